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
   sorted every frame): no re-raster per frame, every frame on the retained fast path
   (its draws kept, the ring sorted and split again), and the frame time (medians) against
   the same frames planned from scratch and the same cards turning in 2D (rotate), in the
   same run (extra_info["ratio_fast_to_full"], ["ratio_3d_to_2d"]; planning alone too).

    .venv/bin/python -m pytest tests/benchmarks/test_preserve3d_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
import lamina.graph.backed as backed
from tests.kept import EVERY_TEXTURE

KEPT = ExecutorFacts(retained=EVERY_TEXTURE)

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


def _frames(gl, scene: Scene, n: int) -> tuple[float, int, int, int]:
    """Median seconds per animation frame over ``n`` frames, the rasters they ran, the
    contexts of the last and how many took the retained fast path (after one frame not
    counted: rasters and programs once)."""
    scene.render(gl, t=0.0)
    rasters, seconds, fast = 0, [], gl.state.fast_frames
    for t in np.linspace(0.05, 11.0, n):
        start = time.perf_counter()
        frame = scene.render(gl, t=float(t))
        seconds.append(time.perf_counter() - start)
        rasters += len(frame.graph.raster_passes())
    return float(np.median(seconds)), rasters, len(frame.graph.contexts3d), gl.state.fast_frames - fast


@pytest.mark.gl
def test_preserve3d_carousel_turning_vs_2d(benchmark, gl):
    """The turning 3D carousel on the retained fast path (its draws kept, the ring sorted
    and split again), against the same frames planned from scratch and the 2D carousel
    (medians, same run)."""
    benchmark.group = "preserve-3d: 12-card carousel 960x540, animation frame"
    turning, flat = carousel(True), carousel(False)
    for scene in (flat, turning):  # turning last: its textures are the ones kept
        gl.drop_caches()
        scene.render(gl, t=0.0)
    times = iter(np.linspace(0.05, 11.0, 100000))
    result = benchmark.pedantic(lambda: turning.render(gl, t=float(next(times))), rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [], "a turning 3D context re-rasters nothing"
    per_3d, rasters_3d, contexts, fast_3d = _frames(gl, turning, ROUNDS)
    gl.state.fast_path = False
    try:
        per_full, rasters_full, _, fast_full = _frames(gl, turning, ROUNDS)
    finally:
        gl.state.fast_path = True
    per_2d, rasters_2d, _, fast_2d = _frames(gl, flat, ROUNDS)
    assert rasters_3d == rasters_full == rasters_2d == 0, "no carousel re-rasters while turning"
    assert contexts == 1, "the ring is sorted every frame"
    assert fast_3d == ROUNDS, "every turning 3D frame takes the retained fast path"
    assert fast_full == 0 and fast_2d == ROUNDS
    benchmark.extra_info["ms_3d_fast_path"] = round(per_3d * 1000, 2)
    benchmark.extra_info["ms_3d_full_plan"] = round(per_full * 1000, 2)
    benchmark.extra_info["ms_2d"] = round(per_2d * 1000, 2)
    benchmark.extra_info["ratio_3d_to_2d"] = round(per_3d / per_2d, 3)
    benchmark.extra_info["ratio_fast_to_full"] = round(per_3d / per_full, 3)
    # Planning alone (no GPU work), medians: what the fast path saves of the frame.
    plan_fast, plan_full, plan_2d = _plans(carousel(True), True), _plans(carousel(True), False), _plans(carousel(False), True)
    benchmark.extra_info["plan_ms_3d_fast_path"] = round(plan_fast * 1000, 2)
    benchmark.extra_info["plan_ms_3d_full_plan"] = round(plan_full * 1000, 2)
    benchmark.extra_info["plan_ms_2d"] = round(plan_2d * 1000, 2)


def _plans(scene: Scene, fast_path: bool) -> float:
    """Median seconds to plan one frame of the turning carousel (no executor: every kept
    texture counts as there), after a first frame; every frame on the fast path or none."""
    state = FrameState(fast_path=fast_path)
    build_frame_graph(scene, FrameRequest(t=0.0), Limits(), ImageStore(), state, KEPT)
    seconds = []
    for t in np.linspace(0.05, 11.0, ROUNDS):
        start = time.perf_counter()
        build_frame_graph(scene, FrameRequest(t=float(t)), Limits(), ImageStore(), state, KEPT)
        seconds.append(time.perf_counter() - start)
    assert state.fast_frames == (ROUNDS if fast_path else 0), "the fast path is taken on every frame, or never"
    return float(np.median(seconds))
