"""Benchmarks of what the demos' window runner adds to ``scene.render()`` each frame:
showing the frame in the scene's viewport and drawing the Dear ImGui panels
(``Runner.present``), headless into the runner's offscreen framebuffer (what a window
does, less the swap), beside a whole runner frame and the scene's own render.

    .venv/bin/python -m pytest tests/benchmarks/test_demo_overhead_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from demos.registry import DEMOS
from demos.ui.runner import Runner

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl


@pytest.fixture
def runner_for(gl):
    made = []

    def make(name: str) -> Runner:
        made.append(Runner(DEMOS[name](), headless=True))
        for _ in range(3):
            made[-1].render_frame(1 / 30)
        return made[-1]

    yield make
    for runner in made:
        runner.close()
    gl.gpu.activate()


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_runner_overhead(benchmark, runner_for, name):
    """The panels and the scene's viewport, on top of a rendered frame."""
    runner = runner_for(name)
    frame = runner.last_frame
    benchmark.group = "demos: window runner overhead per frame (present: viewport + panels)"
    benchmark.pedantic(lambda: (runner.present(frame), runner.ctx.finish()), rounds=ROUNDS, warmup_rounds=2)
    benchmark.extra_info["window"] = list(runner.size)
    # What the time bought: the frame (or its overlay) in the scene's viewport, as it is,
    # and the panels beside it. (Most of the viewport, not all: a legend the runner
    # draws over the canvas may cover a corner.)
    shown, (w, h) = runner.snapshot(), runner.demo.scene_size
    image = frame.overlay(runner.state.overlay) if runner.state.overlay else frame.premultiplied
    assert (shown[:h, :w, :3] == image[..., :3]).all(axis=-1).mean() > 0.9, "the viewport shows the frame"
    assert len(np.unique(shown[:, w:, :3].reshape(-1, 3), axis=0)) > 10, "the panels are missing"


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_runner_frame(benchmark, runner_for, name):
    """A whole runner frame (the demo's update, scene.render(), present): 1 / this is
    the demo's frame rate headless on this machine."""
    runner = runner_for(name)
    benchmark.group = "demos: whole frame (update + render + present)"
    frame = benchmark.pedantic(lambda: (runner.render_frame(1 / 30), runner.ctx.finish())[0], rounds=ROUNDS,
                               warmup_rounds=1)
    assert frame is runner.last_frame
