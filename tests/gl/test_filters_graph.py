"""``filters.apply`` runs as a one-source frame graph on the renderer's executor, the same
executor that renders scenes (GL and OpenCL)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.filters.runners import ApplyBackend, plan_runner
from lamina.framegraph import Executor, FilterPass, UploadPass
from lamina.gpu.executor import GLExecutor

CHAINS = ["blur(9px) sepia(.4)", "drop-shadow(2px 3px 2px rgb(0 0 0 / 50%)) hue-rotate(30deg)", "opacity(1)"]
# Max and mean level difference from the reference: a blur over sigma 4 is downscaled, and
# is held to the accuracy of test_filters_gl.test_downscaled_blur_matches_reference.
TOLERANCE = {"blur(9px) sepia(.4)": (8, 1.0)}


def random_image(rng, h, w):
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    return img


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_apply_runs_its_graph_on_the_scene_executor(gl, rng, monkeypatch, chain, backend):
    graphs = []
    real = GLExecutor.execute

    def spy(self, graph, *args, **kwargs):
        graphs.append(graph)
        return real(self, graph, *args, **kwargs)

    monkeypatch.setattr(GLExecutor, "execute", spy)
    img = random_image(rng, 37, 53)
    out = filters.apply(img, chain, backend, premultiplied=True)
    (graph,) = graphs
    runner = plan_runner(ApplyBackend(backend))
    plan = filters.parse(chain).plan(size=(53, 37))
    assert graph.passes == runner.graph(img, plan).passes
    assert isinstance(graph.passes[0], UploadPass)
    executor = Executor(backend)
    assert all(p.executor is executor for p in graph.passes if isinstance(p, FilterPass))
    assert graph.output.location is executor
    ref = filters.apply(img, chain, "reference", premultiplied=True).astype(int)
    diff = np.abs(out.astype(int) - ref)
    most, mean = TOLERANCE.get(chain, (2, 0.5))
    assert diff.max() <= most and diff.mean() <= mean, (diff.max(), diff.mean())


def test_apply_leaves_no_texture_or_buffer_behind(gl, rng, monkeypatch):
    import lamina.gpu.opencl as ocl

    pool, cl = gl.executor.pool, ocl.default_runner()
    before = pool.in_use
    img = random_image(rng, 40, 40)
    filters.apply(img, "blur(6px) invert(.5)", "gl", premultiplied=True)
    assert pool.in_use == before
    held: list = []
    made: list = []
    acquire, release = cl.acquire, cl.release
    monkeypatch.setattr(cl, "acquire", lambda w, h, *fmt: made.append(1) or held.append(acquire(w, h, *fmt)) or held[-1])
    monkeypatch.setattr(cl, "release", lambda image: (held.remove(image), release(image)))
    filters.apply(img, "blur(6px) invert(.5)", "opencl", premultiplied=True)
    assert len(made) >= 3 and held == [] and pool.in_use == before
