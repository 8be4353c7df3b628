"""Benchmarks: each kind of filter pass on GL and on OpenCL at 1920x1080, and the
transfers between them, in the same run (the executors' per-pass ratio and what a
transfer costs next to a pass).

    .venv/bin/python -m pytest tests/benchmarks/test_filter_passes_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina.gpu.opencl as ocl
from lamina.filters.ops import MorphologyOperator
from lamina.filters.plan import BlurPass, ColorPass, ColorStep, MorphologyPass, ResamplePass, ShadowPass, image_size

from .test_filters_bench import ROUNDS, make_image

W, H = 1920, 1080
SEPIA = ColorStep(("sepia(0.5)",), ((0.7, 0.38, 0.09, 0.0), (0.17, 0.84, 0.08, 0.0), (0.14, 0.27, 0.57, 0.0)))
PASSES = {
    # The passes the benchmark chains are made of, at the sizes they run at.
    "color 6 steps": (ColorPass(("source",), "out", (SEPIA,) * 6, 0.9, ("x",)), 1),
    "blur-x sigma 2 (13 taps)": (BlurPass(("source",), "out", "x", 2.0, 6), 1),
    "blur-y sigma 4 (25 taps)": (BlurPass(("source",), "out", "y", 4.0, 12), 1),
    "down to 1/2": (ResamplePass(("source",), "out", "down", 2, 1), 1),
    "up from 1/4": (ResamplePass(("source",), "out", "up", 1, 4), 4),
    "shadow": (ShadowPass(("source", "source"), "out", (4.0, 4.0), (0.0, 0.0, 0.0, 0.5)), 1),
    "dilate-x radius 3 (7 taps)": (MorphologyPass(("source",), "out", "x", 3, MorphologyOperator.DILATE), 1),
    "erode-y radius 3 (7 taps)": (MorphologyPass(("source",), "out", "y", 3, MorphologyOperator.ERODE), 1),
}


@pytest.fixture(scope="module")
def sources(renderer):
    img = make_image()
    small = np.ascontiguousarray(img[: image_size(W, H, 4)[1], : image_size(W, H, 4)[0]])
    ex, runner = renderer.executor, ocl.default_runner()
    out = {}
    for scale, pixels in ((1, img), (4, small)):
        tex = ex.pool.acquire(pixels.shape[1], pixels.shape[0])
        tex.texture.write(pixels)
        out[scale] = (tex, runner.upload(pixels))
    yield out
    for tex, buf in out.values():
        ex.pool.release(tex)
        runner.release(buf)


def _gl_pixels(target) -> np.ndarray:
    """A pooled GL target's pixels, rows in the order they were uploaded (as an OpenCL buffer's)."""
    w, h, _ = target.key
    return np.frombuffer(target.texture.read(), np.uint8).reshape(h, w, 4)


def _run_once(gl, executor: str, step, source) -> np.ndarray:
    """``step`` run once on ``executor`` (GL or OpenCL) from ``source`` (texture, buffer), read back."""
    tex, buf = source
    size = image_size(W, H, step.scale)
    if executor == "gl":
        target = gl.executor.pool.acquire(*size)
        gl.executor.filter_runner.run_pass(step, [tex.texture] * len(step.inputs), target)
        out = _gl_pixels(target).copy()
        gl.executor.pool.release(target)
        return out
    runner = ocl.default_runner()
    target = runner.acquire(*size)
    runner.run_pass(step, [buf] * len(step.inputs), target)
    out = runner.download(target)
    runner.release(target)
    return out


@pytest.mark.gl
@pytest.mark.parametrize("executor", ["gl", "opencl"])
@pytest.mark.parametrize("name", list(PASSES))
def test_pass(benchmark, gl, sources, name, executor):
    step, src_scale = PASSES[name]
    benchmark.group = f"filter pass 1080p: {name}"
    tex, buf = sources[src_scale]
    size = image_size(W, H, step.scale)
    if executor == "gl":
        target = gl.executor.pool.acquire(*size)
        ctx = gl.gpu.ctx

        def once():
            gl.executor.filter_runner.run_pass(step, [tex.texture] * len(step.inputs), target)
            ctx.finish()
    else:
        runner = ocl.default_runner()
        target = runner.acquire(*size)

        def once():
            runner.run_pass(step, [buf] * len(step.inputs), target)
            runner.queue.finish()

    benchmark.pedantic(once, rounds=ROUNDS, warmup_rounds=2)
    out = _gl_pixels(target).astype(int) if executor == "gl" else ocl.default_runner().download(target).astype(int)
    (gl.executor.pool.release if executor == "gl" else ocl.default_runner().release)(target)
    # The per-pass ratio compares like with like: the other executor's pass gives the
    # same pixels (within the one level their roundings may differ by).
    other = _run_once(gl, "opencl" if executor == "gl" else "gl", step, sources[src_scale]).astype(int)
    assert out.shape == (size[1], size[0], 4) and np.abs(out - other).max() <= 1


@pytest.mark.gl
@pytest.mark.parametrize("direction", ["gl->cl", "cl->gl"])
def test_transfer(benchmark, gl, sources, direction):
    """A 1080p image between a GL texture and an OpenCL buffer (mapped: one copy)."""
    benchmark.group = "transfer 1080p"
    tex, buf = sources[1]
    runner = ocl.default_runner()
    # Into a target of its own (another pass's pixels, or none yet), so that what
    # arrives shows the transfer happened; the sources stay as the passes read them.
    to_buf, to_tex = runner.acquire(W, H), gl.executor.pool.acquire(W, H)

    def gl_to_cl():
        runner.from_texture(tex.texture, to_buf)

    def cl_to_gl():
        runner.to_texture(buf, to_tex.texture)
        gl.gpu.ctx.finish()

    benchmark.pedantic(gl_to_cl if direction == "gl->cl" else cl_to_gl, rounds=ROUNDS, warmup_rounds=2)
    arrived = runner.download(to_buf) if direction == "gl->cl" else _gl_pixels(to_tex)
    runner.release(to_buf)
    gl.executor.pool.release(to_tex)
    assert np.array_equal(arrived, make_image()), "the image arrives as it left, byte for byte"
