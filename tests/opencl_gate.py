"""A pytest plugin for machines without OpenCL: their OpenCL tests are skipped with the
reason and the install hint, or fail under ``LAMINA_STRICT=1`` (``.ci/run`` sets it: CI
must run them, as ``LAMINA_GOLDEN_STRICT`` makes it run the golden checks).

A test needs OpenCL when it is marked ``@pytest.mark.opencl``, when one of its parameters
is the ``"opencl"`` backend, or when it stops on an ``OpenCLUnavailableError`` (OpenCL is
reached through scenes and ``filters.apply`` in more places than are worth marking). The
probe runs once per process, and only when such a test comes up. Where it finds a
working device nothing is skipped: an ``OpenCLUnavailableError`` is then a failure like
any other. Loaded by tests/conftest.py.
"""

from __future__ import annotations

import os

import pytest

import lamina.gpu.opencl as ocl
from lamina.errors import OpenCLUnavailableError

__all__ = ["STRICT_ENV", "strict", "opencl_missing", "require_opencl"]

STRICT_ENV = "LAMINA_STRICT"
MARKER = "opencl"

_probed: list[str | None] = []  # [why OpenCL is missing, or None], once probed


def strict() -> bool:
    """Whether a missing OpenCL driver fails tests instead of skipping them."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


def opencl_missing() -> str | None:
    """Why OpenCL cannot run here (the error, which says what to install), or None.

    Building the kernels is part of the probe: a driver that lists a device but cannot
    build them (pip's pocl-binary-distribution on some CPUs) is no more use than none."""
    if not _probed:
        try:
            ocl.default_runner()
        except OpenCLUnavailableError as err:
            _probed.append(str(err))
        else:
            _probed.append(None)
    return _probed[0]


def require_opencl(why: str) -> None:
    """Skip the running test because OpenCL is missing (``why``), or fail it when strict."""
    hint = "" if ocl.INSTALL_HINT in why else f"; {ocl.INSTALL_HINT}"
    if strict():
        pytest.fail(f"OpenCL is required ({STRICT_ENV}=1) but unusable here: {why}{hint}", pytrace=False)
    pytest.skip(f"no usable OpenCL driver: {why}{hint} (set {STRICT_ENV}=1 to fail instead)")


def _gate_unavailable():
    """Around a test phase: an OpenCLUnavailableError where OpenCL is missing skips (or fails)."""
    try:
        outcome = yield
    except OpenCLUnavailableError:
        why = opencl_missing()
        if why is None:
            raise  # OpenCL works here: this error is the test's own failure
        require_opencl(why)
        raise  # not reached: require_opencl raises
    return outcome


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: needs a working OpenCL device (skipped without one, "
                                       f"failed under {STRICT_ENV}=1)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(isinstance(v, str) and v == "opencl" for v in callspec.params.values()):
            item.add_marker(MARKER)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    if item.get_closest_marker(MARKER) is not None:
        why = opencl_missing()
        if why is not None:
            require_opencl(why)
    return (yield from _gate_unavailable())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    return (yield from _gate_unavailable())
