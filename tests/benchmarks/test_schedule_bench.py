"""Scheduling overhead per frame (issue 22: at most 0.3 ms for 50 passes and 3 ms for
500): the frame-wide stage as ``auto`` runs it (graph.placed.scheduled: the task graph
priced by the cost model, HEFT, and the rewrite with its transfers), on animation frames
of filtered cards whose hue turns, so every frame re-runs every filter pass (with new
names for the kept results) over the same task graph:

* ``first``: a renderer's first schedule (an empty ScheduleMemo: nothing priced yet);
* ``steady``: an animation frame after another one (the memo holds last frame's).

Cost models: one that puts filter work on OpenCL (the rewrite runs); the same over two
OpenCL devices ("P:D" places, copies between them); the same corrected from measurement
(a CorrectedModel with an active factor, made anew each frame as the renderer's
FeedbackState.model makes it, through graph.corrected.scheduled_with_feedback: the
corrected plan and the uncorrected one it is compared with); and the 8-core profile's
history model with both devices on the CPU, as calibrate marks llvmpipe and PoCL (its
schedule only pays off overlapped: every pass stays on GL). Pure Python: no GPU work.

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
from lamina.devices import Device
from lamina.filter_costs import CostModel
from lamina.frame_costs import CorrectedModel, DeviceCorrection
from lamina.framegraph import Executor
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.corrected import scheduled_with_feedback
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
    return DeviceCosts(model, *ids.values(), shares_cpu=True)


DEVICES = tuple(Device(Executor.OPENCL, "pthread", "PoCL", "3.1", index) for index in ("0:0", "0:1"))
_PLACING, _PROFILE = placing_model(), profile_model()  # (one object each: a model is its prices' version)


def corrected_model() -> CorrectedModel:
    """What FeedbackState.model hands each frame while OpenCL runs 1.5x its prediction:
    a new object over the same base model and factor."""
    fix = DeviceCorrection(Executor.OPENCL, 1.5, 3.0, 2.0, 0.2, "slower than predicted")
    return CorrectedModel(_PLACING, (fix,), events=("OpenCL ran 1.5x its prediction",))


# kind -> (the model one frame is planned by: called per frame, the OpenCL devices in use)
MODELS = {"placed": (lambda: _PLACING, ()), "two-devices": (lambda: _PLACING, DEVICES),
          "corrected": (corrected_model, ()), "kept-on-GL": (lambda: _PROFILE, ())}


def stage(graph, kind: str, memo: ScheduleMemo | None):
    """The frame-wide stage as the planner runs it for ``kind`` (graph.corrected)."""
    make, devices = MODELS[kind]
    return scheduled_with_feedback(graph, make(), devices, memo)


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
    graph = graphs[0]
    placed = benchmark(lambda: stage(graph, kind, ScheduleMemo()))
    assert len(placed.schedule.slots) == len(graph.passes) >= passes
    assert any(p.executor is Executor.OPENCL for p in placed.filter_passes()) == (kind != "kept-on-GL")
    if kind == "two-devices":
        assert {p.device for p in placed.filter_passes() if p.executor is Executor.OPENCL} == {"0:0", "0:1"}


@pytest.mark.parametrize("kind", MODELS)
def test_steady_schedule(benchmark, frames, kind):
    passes, (scene, graphs) = frames
    memo = ScheduleMemo()
    stage(graphs[0], kind, memo)  # last frame's
    graph = graphs[1]  # this frame: the same task graph, its kept results named anew
    assert {t.name for t in graph.textures()} != {t.name for t in graphs[0].textures()}
    placed = benchmark(lambda: stage(graph, kind, memo))
    fresh = stage(graph, kind, None)
    assert memo.misses == 1 and memo.hits >= 1, "the frame reused last frame's schedule"
    if kind == "corrected":
        assert memo.uncorrected().misses == 1 and memo.uncorrected().hits >= 1, "and the uncorrected plan"
        assert placed.corrections is not None and placed.corrections == fresh.corrections
    assert (placed.passes, placed.decisions, placed.schedule, placed.offloads) == \
        (fresh.passes, fresh.decisions, fresh.schedule, fresh.offloads)
    assert len(placed.schedule.slots) == len(graph.passes) >= passes
    if os.environ.get("LAMINA_SCHEDULE_TIMING"):
        _print_medians(passes, kind, scene, graphs)


def _median_ms(fn, runs: int = 30) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _print_medians(passes: int, kind: str, scene: Scene, graphs: list) -> None:
    """The stage, first and steady, and the whole planning call with auto (first frame
    of a renderer, and animation frames), medians."""
    memo = ScheduleMemo()
    steady = _median_ms(lambda: [stage(g, kind, memo) for g in graphs[:2]]) / 2
    first = _median_ms(lambda: stage(graphs[0], kind, ScheduleMemo()))
    make, devices = MODELS[kind]

    def plan(state: FrameState, k: int):
        facts = ExecutorFacts(retained=EVERY_TEXTURE, filter_costs=make(), opencl_devices=devices)
        return build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="auto"), Limits(), ImageStore(), state, facts)

    plan_first = _median_ms(lambda: plan(FrameState(), 1), runs=10)
    state = FrameState()
    plan(state, 1)
    k = iter(range(2, 10_000))
    plan_steady = _median_ms(lambda: plan(state, next(k)), runs=20)
    print(f"\n{len(graphs[0].passes)} passes, {kind}: schedule first {first:.3f} ms, steady {steady:.3f} ms "
          f"(target {TARGET_MS[passes]} ms); planning with auto: first frame {plan_first:.2f} ms, "
          f"animation frame {plan_steady:.2f} ms")
