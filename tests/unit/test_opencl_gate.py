"""tests/opencl_gate.py: without an OpenCL driver, OpenCL tests skip with the reason and the
install hint; under LAMINA_STRICT=1 they fail; with a driver nothing is skipped. The
availability probe is replaced, so this runs the same with or without OpenCL."""

from __future__ import annotations

from pathlib import Path

import pytest

import lamina.filters.opencl as ocl
from lamina.errors import OpenCLUnavailableError
from tests import opencl_gate

MISSING = f"no OpenCL platform found (simulated); {ocl.INSTALL_HINT}"

SUITE = """
import pytest
from lamina.errors import OpenCLUnavailableError

@pytest.mark.opencl
def test_marked():
    pass

@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_param(backend):
    pass

def test_raises_unavailable():
    raise OpenCLUnavailableError("no OpenCL device found (simulated)")

def test_plain():
    pass
"""


@pytest.fixture
def run(pytester, monkeypatch):
    def run(missing: str | None, strict: str | None):
        monkeypatch.setattr(opencl_gate, "opencl_missing", lambda: missing)
        if strict is None:
            monkeypatch.delenv(opencl_gate.STRICT_ENV, raising=False)
        else:
            monkeypatch.setenv(opencl_gate.STRICT_ENV, strict)
        pytester.makepyfile(test_suite=SUITE)
        return pytester.runpytest_inprocess("-p", "tests.opencl_gate", "-rsfE", "-p", "no:cacheprovider")
    return run


@pytest.mark.parametrize("strict", [None, "0"])
def test_without_a_driver_opencl_tests_skip_with_reason_and_hint(run, strict):
    result = run(MISSING, strict)
    result.assert_outcomes(passed=2, skipped=3)  # test_param[gl] and test_plain run
    result.stdout.fnmatch_lines([f"SKIPPED*no usable OpenCL driver: {MISSING}*LAMINA_STRICT=1 to fail instead*"])
    assert "apt-get install pocl-opencl-icd" in result.stdout.str()


def test_under_lamina_strict_they_fail_instead(run):
    result = run(MISSING, "1")
    result.assert_outcomes(passed=2, failed=1, errors=2)  # marked ones fail in setup, the raiser in its call
    result.stdout.fnmatch_lines([f"*OpenCL is required (LAMINA_STRICT=1) but unusable here: {MISSING}*"])


def test_with_a_driver_nothing_is_skipped(run):
    result = run(None, None)
    result.assert_outcomes(passed=4, failed=1)  # an OpenCLUnavailableError is then a real failure
    result.stdout.fnmatch_lines(["E   *OpenCLUnavailableError: no OpenCL device found (simulated)", "FAILED*test_raises_unavailable*"])


def test_the_hint_is_added_when_the_error_lacks_it(run):
    result = run("the filter kernels do not build on Some CL (simulated)", None)
    result.stdout.fnmatch_lines([f"SKIPPED*do not build on Some CL (simulated); {ocl.INSTALL_HINT}*"])


def test_the_probe_asks_for_a_working_runner_once(monkeypatch):
    calls = []

    def no_runner():
        calls.append(1)
        raise OpenCLUnavailableError(MISSING)

    monkeypatch.setattr(opencl_gate, "_probed", [])
    monkeypatch.setattr(ocl, "default_runner", no_runner)
    assert opencl_gate.opencl_missing() == MISSING
    assert opencl_gate.opencl_missing() == MISSING and len(calls) == 1
    monkeypatch.setattr(opencl_gate, "_probed", [])
    monkeypatch.setattr(ocl, "default_runner", lambda: object())
    assert opencl_gate.opencl_missing() is None


def test_ci_runs_strict():
    script = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert "LAMINA_STRICT=1" in script
