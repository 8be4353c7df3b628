"""Benchmarks for 3D rendering contexts (transform-style: preserve-3d) in real frames.

1. Sorting and splitting inside a frame's planning (Scene.plan: trees, decisions,
   graph, no GPU) for 10, 100 and 1,000 layers in one context, seeded:
   * apart: tilted cards (rotateY 20deg) at distinct depths, painted in a random order,
     overlapping in depth and on screen but never intersecting;
   * crossing: pairs of small cards crossing in an X (rotateY +-40deg), the pairs on a
     grid at random depths: every pair intersects (n / 2 splits at least).
   The time in graph.contexts3d.order_3d_contexts (the sort and split, wrapped here) and
   the whole plan are measured in the same run; asserted: the intersection-free context
   does at most n log2 n BSP plane tests (counts, not time: no noise), the crossing one
   splits every pair.
2. A 12-card preserve-3d carousel turning (its ring's rotateY animated, the cards
   sorted every frame): no re-raster per frame, and the frame time against the same cards
   turning in 2D (rotate), in the same run (extra_info["ratio_3d_to_2d"]).

    .venv/bin/python -m pytest tests/benchmarks/test_preserve3d_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
import pytest

from lamina import Layer, Scene
import lamina.graph.backed as backed

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "10"))
SIZES = (10, 100, 1000)


def cards(n: int, crossing: bool, seed: int = 26) -> Scene:
    rng = np.random.default_rng(seed)
    scene = Scene(800, 600, "white")
    group = scene.root.add(Layer("group", (0, 0, 800, 600), "transform-style: preserve-3d; perspective: 1000px"))
    if crossing:
        # Pairs on a grid (each pair apart on screen from the others), at random depths.
        cols = math.ceil(math.sqrt(n / 2))
        for k in range(n // 2):
            x, y, z = 10 + 780 * (k % cols) / cols, 10 + 580 * (k // cols) / cols, rng.uniform(-300, 0)
            for j, angle in enumerate((40, -40)):
                group.add(Layer(f"c{k}-{j}", (x, y, 20, 16),
                                f"background: #48f; transform: translateZ({z:.2f}px) rotateY({angle}deg)"))
    else:
        for i, z in enumerate(rng.permutation(n)):
            x, y = rng.uniform(0, 700), rng.uniform(0, 500)
            group.add(Layer(f"c{i}", (x, y, 100, 80), f"background: #48f; transform: translateZ({z * 0.5:.2f}px) rotateY(20deg)"))
    return scene


class _Timed:
    """graph.backed's order_3d_contexts, timed (the sort and split of a real frame)."""

    def __init__(self, inner):
        self.inner, self.seconds = inner, 0.0

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


@pytest.mark.parametrize("crossing", [False, True], ids=["apart", "crossing"])
def test_sorting_and_splitting_in_a_real_frame(benchmark, monkeypatch, crossing):
    benchmark.group = "preserve-3d: sort and split one context inside Scene.plan"
    timed = _Timed(backed.order_3d_contexts)
    monkeypatch.setattr(backed, "order_3d_contexts", timed)
    rows = {}
    for n in SIZES:
        scene = cards(n, crossing)
        timed.seconds = 0.0
        start = time.perf_counter()
        graph = scene.plan()
        plan_s = time.perf_counter() - start
        (context,) = graph.contexts3d
        rows[n] = {"sort_ms": round(timed.seconds * 1000, 2), "plan_ms": round(plan_s * 1000, 1),
                   "splits": context.splits, "plane_tests": context.splitter_tests, "sweep_steps": context.sweep_steps,
                   "fragments": len(context.order)}
        if crossing:
            assert context.splits >= n // 2, "each crossing pair is split (and pairs that meet others more)"
        else:
            assert context.splits == 0
            assert context.splitter_tests <= n * math.log2(n), f"{context.splitter_tests} plane tests for {n} layers"
    benchmark.extra_info.update({str(n): row for n, row in rows.items()})
    scene = cards(100, crossing)
    benchmark.pedantic(scene.plan, rounds=3, warmup_rounds=0)


def carousel(three_d: bool) -> Scene:
    """3D: the cards sit on a preserve-3d ring whose rotateY is animated (the cards are
    sorted by depth every frame). 2D: the same cards each animated by rotate() about the
    stage centre (as tests/benchmarks/test_transforms_3d_bench.py turns them: a 2D ring
    of layers without content would repaint its children every frame)."""
    scene = Scene(960, 540, "#111")
    kind = "p3d" if three_d else "2d"
    stage = scene.root.add(Layer("stage", (0, 0, 960, 540), "perspective: 1000px"))
    ring = stage.add(Layer(f"ring{kind}", (410, 170, 140, 200), "transform-style: preserve-3d" if three_d else ""))
    radius = 70 / math.tan(math.radians(15)) + 20
    for i in range(12):
        card = ring.add(Layer(f"card{kind}-{i}", (0, 0, 140, 200),
                              f"background: linear-gradient(hsl({30 * i} 80% 60%), #222); border-radius: 10px"))
        card.add(Layer(f"title{kind}-{i}", (12, 12, 116, 24), "background: rgba(255,255,255,.8)"))
        if three_d:
            card.style["transform"] = f"rotateY({30 * i}deg) translateZ({radius:.2f}px)"
        else:
            card.animate({"0%": {"transform": f"rotate({30 * i}deg) translateY(-180px)"},
                          "100%": {"transform": f"rotate({30 * i + 360}deg) translateY(-180px)"}},
                         duration=12.0, iterations="infinite")
    if three_d:
        ring.animate({"0%": {"transform": "rotateY(0deg)"}, "100%": {"transform": "rotateY(360deg)"}},
                     duration=12.0, iterations="infinite")
    return scene


def _frames(gl, scene: Scene, n: int) -> tuple[float, int, int]:
    """Mean seconds per animation frame over ``n`` frames, the rasters they ran and the
    splits of the last (after one frame not counted: rasters and programs once)."""
    scene.render(gl, t=0.0)
    rasters = 0
    start = time.perf_counter()
    for t in np.linspace(0.05, 11.0, n):
        frame = scene.render(gl, t=float(t))
        rasters += len(frame.graph.raster_passes())
    return (time.perf_counter() - start) / n, rasters, len(frame.graph.contexts3d)


@pytest.mark.gl
def test_preserve3d_carousel_turning_vs_2d(benchmark, gl):
    benchmark.group = "preserve-3d: 12-card carousel 960x540, animation frame"
    turning, flat = carousel(True), carousel(False)
    for scene in (turning, flat):
        gl.drop_caches()
        scene.render(gl, t=0.0)
    times = iter(np.linspace(0.05, 11.0, 100000))
    result = benchmark.pedantic(lambda: turning.render(gl, t=float(next(times))), rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [], "a turning 3D context re-rasters nothing"
    per_3d, rasters_3d, contexts = _frames(gl, turning, ROUNDS)
    per_2d, rasters_2d, _ = _frames(gl, flat, ROUNDS)
    assert rasters_3d == 0 and rasters_2d == 0, "neither carousel re-rasters while turning"
    assert contexts == 1, "the ring is sorted every frame"
    benchmark.extra_info["ms_3d"] = round(per_3d * 1000, 2)
    benchmark.extra_info["ms_2d"] = round(per_2d * 1000, 2)
    benchmark.extra_info["ratio_3d_to_2d"] = round(per_3d / per_2d, 3)
