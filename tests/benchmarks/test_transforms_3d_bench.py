"""Benchmark: a 12-card carousel turning in 3D (each card rotateY(angle) translateZ(r)
under a stage with perspective; flat: drawn in tree order, no depth sort) against the
same 12 cards turning in 2D (rotate(angle) translateY(-r)), at 1280x720. Both animation
frames must re-raster nothing; the ratio of their frame times (3D / 2D, measured in the
same run) goes to ``extra_info["ratio_3d_to_2d"]``.

    .venv/bin/python -m pytest tests/benchmarks/test_transforms_3d_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from lamina import Layer, Scene

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl
CARDS = 12


def carousel(three_d: bool) -> Scene:
    scene = Scene(1280, 720, "#111")
    stage = scene.root.add(Layer("stage", (0, 0, 1280, 720), "perspective: 1200px" if three_d else ""))
    kind = "3d" if three_d else "2d"  # ids of its own: one renderer keeps both scenes' rasters
    for i in range(CARDS):
        card = stage.add(Layer(f"card{kind}-{i}", (570, 260, 140, 200),
                               f"background: linear-gradient(hsl({30 * i} 80% 60%), #222); border-radius: 10px"))
        card.add(Layer(f"title{kind}-{i}", (12, 12, 116, 24), "background: rgba(255,255,255,.8)"))
        a = 360.0 * i / CARDS
        if three_d:
            frames = {"0%": {"transform": f"rotateY({a}deg) translateZ(330px)"},
                      "100%": {"transform": f"rotateY({a + 360}deg) translateZ(330px)"}}
        else:
            frames = {"0%": {"transform": f"rotate({a}deg) translateY(-220px)"},
                      "100%": {"transform": f"rotate({a + 360}deg) translateY(-220px)"}}
        card.animate(frames, duration=12.0, iterations="infinite")
    return scene


def _frames(gl, scene: Scene, n: int) -> tuple[float, int]:
    """Mean seconds per animation frame over ``n`` frames, and the rasters they ran (after
    one frame not counted: a renderer keeps the rasters of the scene it drew last)."""
    scene.render(gl, t=0.0)
    rasters = 0
    start = time.perf_counter()
    for t in np.linspace(0.05, 11.0, n):
        rasters += len(scene.render(gl, t=float(t)).graph.raster_passes())
    return (time.perf_counter() - start) / n, rasters


def test_carousel_animation_frame_3d_vs_2d(benchmark, gl):
    benchmark.group = "transforms 3D: 12-card carousel 1280x720, animation frame"
    flat, turning = carousel(False), carousel(True)
    for scene in (flat, turning):
        gl.drop_caches()
        scene.render(gl, t=0.0)  # rasters and programs once
    times = iter(np.linspace(0.05, 11.0, 100000))
    result = benchmark.pedantic(lambda: turning.render(gl, t=float(next(times))), rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [], "a 3D animation frame re-rasters nothing"
    per_3d, rasters_3d = _frames(gl, turning, ROUNDS)
    per_2d, rasters_2d = _frames(gl, flat, ROUNDS)
    assert rasters_3d == 0 and rasters_2d == 0, "neither carousel re-rasters while turning"
    benchmark.extra_info["ms_3d"] = round(per_3d * 1000, 2)
    benchmark.extra_info["ms_2d"] = round(per_2d * 1000, 2)
    benchmark.extra_info["ratio_3d_to_2d"] = round(per_3d / per_2d, 3)
