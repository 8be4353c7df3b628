"""Shared fixtures: one GL renderer for the whole session, GL error checks after each GL
test, a fresh renderer for tests that must not share kept state, and seeded random
generators whose seed is printed when a test fails."""

from __future__ import annotations

import os
import secrets
import tempfile

import numpy as np
import pytest

from lamina.renderer import Renderer, default_renderer

# pytester: the golden plugin tests itself with it. opencl_gate: OpenCL tests skip where
# there is no OpenCL driver, and fail instead under LAMINA_STRICT=1 (CI).
pytest_plugins = ["pytester", "tests.opencl_gate"]

# Measured filter cost models (gpu.calibrate) go to a folder of this run, not ~/.cache.
os.environ.setdefault("LAMINA_CACHE_DIR", tempfile.mkdtemp(prefix="lamina-test-cache-"))


@pytest.fixture(scope="session")
def renderer():
    """The process-wide renderer (one headless EGL context shared by all GL tests)."""
    return default_renderer()


@pytest.fixture
def gl(renderer):
    """Use in GL tests: gives the renderer and fails the test on any pending GL error."""
    renderer.gpu.check_errors("the previous test")  # also makes its context current
    yield renderer
    renderer.gpu.check_errors("this test")


@pytest.fixture
def fresh():
    """A renderer of its own, released after the test: no raster caches, kept textures
    or plans of other tests (policy, invalidation and memory tests count those)."""
    with Renderer() as own:
        yield own


@pytest.fixture
def rng(request):
    """A fresh random generator per test; LAMINA_SEED=N replays a failure."""
    seed = int(os.environ.get("LAMINA_SEED", secrets.randbits(32)))
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for key, value in item.user_properties:
            if key == "seed":
                report.sections.append(("random seed", f"LAMINA_SEED={value} reproduces this run"))


def pytest_collection_modifyitems(items):
    for item in items:
        if "/gl/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.gl)
