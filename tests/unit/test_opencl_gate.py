"""tests/opencl_gate.py: without an OpenCL driver, OpenCL tests skip with the reason and the
install hint; under LAMINA_STRICT=1 they fail; with a driver nothing is skipped. The
availability probe is replaced, so this runs the same with or without OpenCL. And no test
skips on OpenCL by itself: a skip of its own would pass CI's strict run unseen."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lamina.gpu.opencl as ocl
from lamina.errors import OpenCLUnavailableError
from tests import opencl_gate
from tests.ast_names import dotted

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


# -- the gate is the only way to skip on OpenCL ------------------------------------------------

TESTS = Path(__file__).resolve().parents[1]
GATE = TESTS / "opencl_gate.py"
# pytest.skip(...), pytest.importorskip(...), pytest.xfail(...), pytest.skip.Exception(...),
# and the markers pytest.mark.skip/skipif/xfail(...): each turns a missing OpenCL into a pass.
SKIP_CALLS = {("pytest", "skip"), ("pytest", "importorskip"), ("pytest", "xfail"), ("pytest", "skip", "Exception"),
              ("pytest", "mark", "skip"), ("pytest", "mark", "skipif"), ("pytest", "mark", "xfail")}


def opencl_skips(source: str, filename: str) -> list[str]:
    """Where ``source`` skips (or xfails) a test on OpenCL by itself: a skip that mentions
    OpenCL or a name imported from an OpenCL module, one under an ``if`` that does, or one
    in an ``except`` that catches OpenCLUnavailableError."""
    tree = ast.parse(source, filename=filename)
    opencl_names = set()  # names bound by importing something OpenCL: ocl, OpenCLUnavailableError
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            for alias in node.names:
                if "opencl" in f"{module}.{alias.name}".lower():
                    opencl_names.add(alias.asname or alias.name.split(".")[0])

    def about_opencl(node: ast.AST) -> bool:
        return "opencl" in ast.unparse(node).lower() or any(
            isinstance(n, ast.Name) and n.id in opencl_names for n in ast.walk(node))

    found = []

    def visit(node: ast.AST, context: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = context
            if isinstance(child, ast.ExceptHandler) and child.type is not None and about_opencl(child.type):
                inside = True
            elif isinstance(child, (ast.If, ast.IfExp, ast.While)) and about_opencl(child.test):
                inside = True
            if isinstance(child, ast.Call) and dotted(child.func) in SKIP_CALLS and (inside or about_opencl(child)):
                found.append(f"{filename}:{child.lineno}: {ast.unparse(child)}")
            visit(child, inside)

    visit(tree, False)
    return found


def test_no_test_skips_on_opencl_outside_the_gate():
    """Mark the test ``@pytest.mark.opencl`` (or let its OpenCLUnavailableError reach the
    gate) instead: then LAMINA_STRICT=1 fails it where OpenCL is missing."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path != GATE:
            found += opencl_skips(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))
    assert not found, "tests that skip on OpenCL by themselves (LAMINA_STRICT=1 cannot fail them):\n" + "\n".join(found)


def test_the_scan_sees_every_way_of_skipping_on_opencl():
    bypasses = """
import pytest
import pyopencl
import lamina.gpu.opencl as ocl
from lamina.errors import OpenCLUnavailableError

def test_except(gl):
    try:
        gl.executor.opencl_runner
    except OpenCLUnavailableError as err:
        pytest.skip(f"no device: {err}")

def test_except_tuple():
    try:
        pass
    except (ValueError, OpenCLUnavailableError):
        pytest.xfail("flaky")

def test_condition():
    if not ocl.available():
        pytest.skip("no device")

def test_message():
    pytest.skip("OpenCL is missing here")

def test_importorskip():
    pytest.importorskip("pyopencl")

@pytest.mark.skipif(ocl.default_runner is None, reason="none")
def test_marker():
    pass

def test_exception():
    raise pytest.skip.Exception("no OpenCL")
"""
    found = opencl_skips(bypasses, "bypasses.py")
    assert [line.split(":")[1] for line in found] == ["11", "17", "21", "24", "27", "29", "34"], found
    gated = """
import pytest
from lamina.errors import OpenCLUnavailableError

@pytest.mark.opencl
def test_marked():
    pass

def test_other_skip():
    pytest.importorskip("cv2", reason="OpenCV is not installed")

def test_raises():
    with pytest.raises(OpenCLUnavailableError):
        pass
"""
    assert opencl_skips(gated, "gated.py") == []
