"""Benchmarks: a 100-card page-like scene at 1280x720 (gradients, rounded corners, a few
filters, one animated card): the first frame against an animation frame, where layer
rasters are reused and nothing is rastered.

    .venv/bin/python -m pytest tests/benchmarks/test_compositor_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from engine import Layer, Scene

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl


def cards_scene(seed: int = 7) -> Scene:
    rng = np.random.default_rng(seed)
    scene = Scene(1280, 720, "#f4f1ea")
    for i in range(100):
        col, row = i % 10, i // 10
        hue = int(rng.integers(0, 360))
        style = (
            f"background: linear-gradient({int(rng.integers(0, 360))}deg, hsl({hue} 70% 60%), hsl({(hue + 60) % 360} 70% 45%));"
            f"border-radius: {int(rng.integers(4, 16))}px; border: 1px solid rgb(0 0 0 / 15%)"
        )
        if i % 17 == 3:
            style += "; filter: drop-shadow(0 4px 4px rgb(0 0 0 / 30%))"
        card = scene.root.add(Layer(f"card{i}", (16 + col * 126, 12 + row * 70, 110, 58), style))
        card.add(Layer(f"title{i}", (10, 10, 60, 10), "background: rgb(255 255 255 / 80%); border-radius: 5px"))
    scene["card44"].style["will-change"] = "transform"
    scene["card44"].animate(
        {"from": {"transform": "rotate(0deg) scale(1)"}, "to": {"transform": "rotate(360deg) scale(1.3)"}},
        duration=2.0,
        iterations="infinite",
    )
    return scene


POLICIES = ("browser", "all", "none")


@pytest.mark.parametrize("policy", POLICIES)
def test_first_frame(benchmark, gl, policy):
    scene = cards_scene()
    benchmark.group = "compositor: 100 cards 1280x720, first frame"
    scene.render(gl, policy=policy)  # compile programs once

    def first():
        gl.drop_caches()
        return scene.render(gl, t=0.0, policy=policy)

    frame = benchmark.pedantic(first, rounds=ROUNDS, warmup_rounds=1)
    benchmark.extra_info["retained_bytes"] = gl.executor.retained_bytes
    benchmark.extra_info["rastered"] = len(frame.graph.raster_passes())
    assert len(frame.graph.raster_passes()) == 200


@pytest.mark.parametrize("policy", POLICIES)
def test_animation_frame(benchmark, gl, policy):
    scene = cards_scene()
    benchmark.group = "compositor: 100 cards 1280x720, animation frame"
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
