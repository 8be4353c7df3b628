"""Benchmarks for turning 3D rendering contexts drawn through surfaces (issue 26), on the
retained fast path, before and after in the same run:

1. The labelled carousel (tests/benchmarks/test_preserve3d_bench.py's: each card holds a
   label, so each is a 3D flattening surface the fast path plans alone again every
   frame). Before: every layer inside a card's surface swept over the whole turn of the
   ring (graph.sweep, for the overlap tests inside it); after: a sweep stops at the
   surface's plane (what moves the plane moves everything in it together). Both take the
   fast path and re-raster nothing (asserted); the property measured is asserted by
   counts, not time: after, no overlap bounds inside a card's surface are swept (before,
   one per label a frame). Without --benchmark-enable, a smoke run of 3 frames each and
   no planning medians. Frame and planning medians of both go to extra_info.
2. The unlabelled carousel inside an opacity group (its context sorted inside the
   group's surface). Before: every frame planned whole (FrameGraph.planned_whole); after:
   the fast path plans the group's surface alone again. Asserted: every frame on the fast
   path, 0 re-rasters; the frame and planning medians of both (the full plan is "before")
   in extra_info. The surface holds the whole context, so planning it alone again saves
   only the rest of the frame's planning (a small part here).

    .venv/bin/python -m pytest tests/benchmarks/test_preserve3d_surfaces_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina.graph.backed as backed
from tests.benchmarks.test_preserve3d_bench import _frames, _plans, carousel
from tests.unit.test_preserve3d_fast_surfaces import carousel_in

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "10"))
SMOKE_ROUNDS = 3  # without --benchmark-enable: the assertions, on a few frames


def _rounds(benchmark) -> int:
    return SMOKE_ROUNDS if benchmark.disabled else ROUNDS


class _SweepsCounted:
    """graph.backed's animated_sweep, counting the sweeps it finds (``whole``: as before,
    ignoring the plane a sweep now stops at)."""

    def __init__(self, inner, whole: bool):
        self.inner, self.whole, self.found = inner, whole, 0

    def __call__(self, node, nodes, sweeps, t, plane=None):
        swept = self.inner(node, nodes, sweeps, t, None if self.whole else plane)
        self.found += swept is not None
        return swept


@pytest.mark.gl
def test_labelled_carousel_surfaces_sweep_nothing_in_their_plane(benchmark, gl, monkeypatch):
    benchmark.group = "preserve-3d: labelled 12-card carousel 960x540, animation frame (surfaces in the frame)"
    inner = backed.animated_sweep
    rounds = _rounds(benchmark)
    rows = {}
    for label, whole in (("before", True), ("after", False)):
        counted = _SweepsCounted(inner, whole)
        monkeypatch.setattr(backed, "animated_sweep", counted)
        gl.drop_caches()
        scene = carousel(True)
        per_frame, rasters, _, fast = _frames(gl, scene, rounds)
        assert rasters == 0 and fast == rounds, f"{label}: {rasters} rasters, {fast} of {rounds} frames on the fast path"
        rows[label] = {"frame_ms": round(per_frame * 1000, 2),
                       "sweeps_per_frame": counted.found / (rounds + 1)}  # (_frames plans a first frame too)
        if not benchmark.disabled:  # planning alone (no executor), medians
            rows[label]["plan_ms"] = round(_plans(carousel(True), True) * 1000, 2)
    assert rows["before"]["sweeps_per_frame"] >= 12, "before: each label swept over the turn, every frame"
    assert rows["after"]["sweeps_per_frame"] == 0, "after: nothing in a card's plane sweeps"
    benchmark.extra_info.update(rows)
    benchmark.extra_info["ratio_frame_after_to_before"] = round(rows["after"]["frame_ms"] / rows["before"]["frame_ms"], 3)
    if not benchmark.disabled:
        benchmark.extra_info["ratio_plan_after_to_before"] = round(rows["after"]["plan_ms"] / rows["before"]["plan_ms"], 3)
    scene = carousel(True)
    scene.render(gl, t=0.0)
    times = iter(np.linspace(0.05, 11.0, 100000))
    result = benchmark.pedantic(lambda: scene.render(gl, t=float(next(times))), rounds=rounds, warmup_rounds=1)
    assert result.graph.raster_passes() == [] and result.graph.planned_whole is None


@pytest.mark.gl
def test_carousel_in_an_opacity_group_on_the_fast_path(benchmark, gl):
    benchmark.group = "preserve-3d: 12-card carousel in an opacity group 480x270, animation frame"
    gl.drop_caches()
    rounds = _rounds(benchmark)
    scene = carousel_in("opacity: 0.8")
    per_fast, rasters, _, fast = _frames(gl, scene, rounds)
    assert rasters == 0 and fast == rounds, f"{rasters} rasters, {fast} of {rounds} frames on the fast path"
    gl.state.fast_path = False  # before: every such frame was planned whole
    try:
        per_full, rasters_full, _, fast_full = _frames(gl, scene, rounds)
    finally:
        gl.state.fast_path = True
    assert rasters_full == 0 and fast_full == 0
    benchmark.extra_info.update({"ms_fast_path": round(per_fast * 1000, 2), "ms_planned_whole": round(per_full * 1000, 2),
                                 "ratio_fast_to_whole": round(per_fast / per_full, 3)})
    if not benchmark.disabled:  # planning alone (no executor), medians
        plan_fast, plan_whole = _plans(carousel_in("opacity: 0.8"), True), _plans(carousel_in("opacity: 0.8"), False)
        benchmark.extra_info.update({"plan_ms_fast_path": round(plan_fast * 1000, 2),
                                     "plan_ms_planned_whole": round(plan_whole * 1000, 2),
                                     "ratio_plan_fast_to_whole": round(plan_fast / plan_whole, 3)})
    scene.render(gl, t=0.0)
    times = iter(np.linspace(0.05, 11.0, 100000))
    result = benchmark.pedantic(lambda: scene.render(gl, t=float(next(times))), rounds=rounds, warmup_rounds=1)
    assert result.graph.raster_passes() == [] and result.graph.planned_whole is None
