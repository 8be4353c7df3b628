"""Benchmarks: a 100-card page-like scene at 1280x720 (gradients, rounded corners, a few
filters, one animated card): the first frame against an animation frame, where layer
rasters are reused and nothing is rastered. The same for the cards nested in a page's
structure and for a stack of overlapping panels (see scenes.py); each records the bytes
of texture each policy keeps (``extra_info["retained_bytes"]``).

    .venv/bin/python -m pytest tests/benchmarks/test_compositor_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from .scenes import SCENES, cards_scene

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl


POLICIES = ("browser", "all", "none")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", list(SCENES))
def test_first_frame(benchmark, gl, name, policy):
    scene = SCENES[name]()
    benchmark.group = f"compositor: {name} 1280x720, first frame"
    scene.render(gl, policy=policy)  # compile programs once

    def first():
        gl.drop_caches()
        return scene.render(gl, t=0.0, policy=policy)

    frame = benchmark.pedantic(first, rounds=ROUNDS, warmup_rounds=1)
    benchmark.extra_info["retained_bytes"] = gl.executor.retained_bytes
    benchmark.extra_info["rastered"] = len(frame.graph.raster_passes())
    assert len(frame.graph.raster_passes()) == len(scene.layers()) - 1, "every layer but the root"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", list(SCENES))
def test_animation_frame(benchmark, gl, name, policy):
    scene = SCENES[name]()
    benchmark.group = f"compositor: {name} 1280x720, animation frame"
    gl.drop_caches()
    scene.render(gl, t=0.0, policy=policy)
    times = iter(np.linspace(0.01, 1000.0, 100000))

    def frame():
        return scene.render(gl, t=next(times), policy=policy)

    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    benchmark.extra_info["retained_bytes"] = gl.executor.retained_bytes
    benchmark.extra_info["rastered"] = len(result.graph.raster_passes())
    if policy != "none":
        assert result.graph.raster_passes() == [], "an animation frame re-rasters nothing"


HERE = Path(__file__).parent


def _frame_composite(gl):
    """The frame's composite pass of the cards page at rest, its inputs, ready, and the
    frame it composited (premultiplied)."""
    scene = cards_scene()
    gl.drop_caches()
    frame = scene.render(gl, policy="all")
    graph = gl.plan(scene, policy="all")  # everything reused: only the frame pass is left
    (frame_pass,) = [p for p in graph.composite_passes() if p.target.name == "frame"]
    frame_pass = type(frame_pass)(**{**frame_pass.__dict__, "damage": None})
    targets = {name: gl.executor._retained[name] for name in graph.reused if name in gl.executor._retained}
    return frame_pass, targets, frame.premultiplied


def _pixels(target) -> np.ndarray:
    """A pooled 1280x720 target's premultiplied pixels, top row first (as frames are)."""
    return np.frombuffer(target.texture.read(), np.uint8).reshape(720, 1280, 4)


def test_composite_pass_of_the_page(benchmark, gl):
    """Lamina's composite of 200 quads (coverage AA, clips, opacity) ..."""
    benchmark.group = "compositor: 200 quads into 1280x720, Lamina vs bare draw"
    frame_pass, targets, rendered = _frame_composite(gl)
    target = gl.executor.pool.acquire(1280, 720)

    def run():
        gl.executor._composite(frame_pass, target, targets)
        gl.gpu.ctx.finish()

    benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=2)
    composited = _pixels(target)
    gl.executor.pool.release(target)
    assert np.array_equal(composited, rendered), "the pass timed alone draws the same frame as the render"


def test_bare_draw_of_the_same_quads(benchmark, gl):
    """... against the same textured quads drawn with the plainest program there is."""
    import moderngl

    benchmark.group = "compositor: 200 quads into 1280x720, Lamina vs bare draw"
    frame_pass, targets, rendered = _frame_composite(gl)
    ctx = gl.gpu.ctx
    program = ctx.program(vertex_shader=(HERE / "bare.vert").read_text(), fragment_shader=(HERE / "bare.frag").read_text())
    vao = ctx.vertex_array(program, [])
    target = gl.executor.pool.acquire(1280, 720)

    def run():
        target.framebuffer.use()
        ctx.viewport = (0, 0, 1280, 720)
        target.framebuffer.clear(*frame_pass.clear)
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = (moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)
        program["u_target"].value = (1280.0, 720.0)
        for d in frame_pass.draws:
            program["u_transform"].value = d.transform.to_mat3()
            program["u_size"].value = (float(d.source.width), float(d.source.height))
            targets[d.source.name].texture.use(0)
            vao.render(moderngl.TRIANGLE_STRIP, vertices=4)
        ctx.disable(moderngl.BLEND)
        ctx.finish()

    benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=2)
    drawn = _pixels(target)
    gl.executor.pool.release(target)
    vao.release()
    program.release()
    # A like-for-like comparison: at rest every quad of the page is whole-pixel, unscaled,
    # unclipped, at full opacity and blended normally, so the bare program draws the
    # same picture (Lamina's coverage AA, clips and opacity are there, and cost, but
    # change no pixel here) -- but card44's two: it spins while scaling to 1.3, so its
    # raster (and its title's) is at that scale (compositor.raster_scale) and drawn
    # scaled down, where Lamina's edge AA and the bare bilinear quad differ.
    diff = np.abs(drawn.astype(int) - rendered)
    diff[292 - 2:292 + 58 + 2, 520 - 2:520 + 110 + 2] = 0  # card44 at (520, 292), 110x58
    assert diff.max() <= 1, "the bare draw is not the same work as Lamina's pass"
