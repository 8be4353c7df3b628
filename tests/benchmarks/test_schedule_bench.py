"""Scheduling overhead per frame (issue 22: at most 0.3 ms for 50 passes and 3 ms for
500): the frame-wide stage as ``auto`` runs it (graph.placed.scheduled: the task graph
priced by the cost model, HEFT, and the rewrite with its transfers), on animation frames
of filtered cards whose hue turns, so every frame re-runs every filter pass (with new
names for the kept results) over the same task graph:

* ``first``: a renderer's first schedule (an empty ScheduleMemo: nothing priced yet);
* ``steady``: an animation frame after another one (the memo holds last frame's).

Two cost models: one that puts filter work on OpenCL (the rewrite runs), and the 8-core
profile's history model (its schedule only pays off overlapped: every pass stays on GL).
Pure Python: no GPU work.

    .venv/bin/python -m pytest tests/benchmarks/test_schedule_bench.py --benchmark-enable --benchmark-only

LAMINA_SCHEDULE_TIMING=1 also prints medians of the stage and of the whole planning call
(build_frame_graph with ``auto``, what Renderer.plan runs) for the note.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

import pytest

from lamina import FrameRequest, Scene
from lamina.cost_history import DeviceCosts, HistoryModel
from lamina.device_profile import load_profile
from lamina.filter_costs import CostModel
from lamina.framegraph import Executor
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.placed import scheduled
from lamina.graph.schedule_memo import ScheduleMemo
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.turning import gl_frames, turning

ROOT = Path(__file__).resolve().parents[2]
TARGET_MS = {50: 0.3, 500: 3.0}


def placing_model() -> CostModel:
    """OpenCL three times cheaper per pixel, copies cheap: filter work moves there."""
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (0.05, 2e-5) for k in kinds} | {f"opencl:{k}": (0.05, 0.7e-5) for k in kinds}
    return CostModel("hand-written", passes, {"gl->cl": (0.02, 1e-8), "cl->gl": (0.02, 1e-8)})


def profile_model() -> DeviceCosts:
    """The 8-core profile's history model, keyed as a calibrated one is (Device ids)."""
    profile = load_profile(ROOT / "profiles/cpu-8-core.json")
    ids = {profile.keys[0]: "gl:Mesa / llvmpipe", profile.keys[1]: "opencl:Portable Computing Language / pocl"}
    m = profile.model
    model = HistoryModel({replace(k, device=ids[k.device]): v for k, v in m.passes.items()},
                         {replace(k, source=ids[k.source], target=ids[k.target]): v for k, v in m.copies.items()})
    return DeviceCosts(model, *ids.values())


MODELS = {"placed": placing_model, "kept-on-GL": profile_model}


def animation(passes: int) -> tuple[Scene, list]:
    """A turning scene whose animation frames have at least ``passes`` passes, and three
    of its frames planned on GL."""
    layers = max(1, passes // 5)
    while True:
        scene = turning(layers)
        frames = gl_frames(scene, 4)[1:]  # (the first rasters every card)
        if len(frames[0].passes) >= passes:
            return scene, frames
        layers += 1


@pytest.fixture(scope="module", params=[50, 500])
def frames(request):
    return request.param, animation(request.param)


@pytest.mark.parametrize("kind", MODELS)
def test_first_schedule(benchmark, frames, kind):
    passes, (_, graphs) = frames
    model, graph = MODELS[kind](), graphs[0]
    placed = benchmark(lambda: scheduled(graph, model, ScheduleMemo()))
    assert len(placed.schedule.slots) == len(graph.passes) >= passes
    assert any(p.executor is Executor.OPENCL for p in placed.filter_passes()) == (kind == "placed")


@pytest.mark.parametrize("kind", MODELS)
def test_steady_schedule(benchmark, frames, kind):
    passes, (scene, graphs) = frames
    model, memo = MODELS[kind](), ScheduleMemo()
    scheduled(graphs[0], model, memo)  # last frame's
    graph = graphs[1]  # this frame: the same task graph, its kept results named anew
    assert {t.name for t in graph.textures()} != {t.name for t in graphs[0].textures()}
    placed = benchmark(lambda: scheduled(graph, model, memo))
    fresh = scheduled(graph, model)
    assert memo.misses == 1 and memo.hits >= 1, "the frame reused last frame's schedule"
    assert (placed.passes, placed.decisions, placed.schedule) == (fresh.passes, fresh.decisions, fresh.schedule)
    assert len(placed.schedule.slots) == len(graph.passes) >= passes
    if os.environ.get("LAMINA_SCHEDULE_TIMING"):
        _print_medians(passes, kind, model, scene, graphs)


def _median_ms(fn, runs: int = 30) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _print_medians(passes: int, kind: str, model, scene: Scene, graphs: list) -> None:
    """The stage, first and steady, and the whole planning call with auto (first frame
    of a renderer, and animation frames), medians."""
    memo = ScheduleMemo()
    steady = _median_ms(lambda: [scheduled(g, model, memo) for g in graphs[:2]]) / 2
    first = _median_ms(lambda: scheduled(graphs[0], model, ScheduleMemo()))
    facts = ExecutorFacts(retained=EVERY_TEXTURE, filter_costs=model)

    def plan(state: FrameState, k: int):
        return build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="auto"), Limits(), ImageStore(), state, facts)

    plan_first = _median_ms(lambda: plan(FrameState(), 1), runs=10)
    state = FrameState()
    plan(state, 1)
    k = iter(range(2, 10_000))
    plan_steady = _median_ms(lambda: plan(state, next(k)), runs=20)
    print(f"\n{len(graphs[0].passes)} passes, {kind}: schedule first {first:.3f} ms, steady {steady:.3f} ms "
          f"(target {TARGET_MS[passes]} ms); planning with auto: first frame {plan_first:.2f} ms, "
          f"animation frame {plan_steady:.2f} ms")
