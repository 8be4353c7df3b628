"""The compiled rewrite (graph.placed: a Placement applied through its numbered buffer
slots and copies, reusing last frame's) makes the graph the plain rewrite makes: every
pass in order, each moved pass reading and writing its buffers on its device, a copy
before each pass that needs one. Checked against a reference written here the plain way
(a buffer and a copy made per texture as each pass asks for it) on every filtered suite
scene, placed by a schedule and by forced placements; and the corrected path's report
from the uncorrected plan said as pass -> device (graph.placed.planned_on) against the
one made from that plan's placed frame. Without a GPU: planned graphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from lamina import load_scene
from lamina.cost_feedback import correction_report, report_against
from lamina.filter_costs import CostModel
from lamina.forced_placement import ForcedPlacement
from lamina.frame_costs import CorrectedModel, DeviceCorrection, frame_costs
from lamina.filters.plan import PassKind
from lamina.framegraph import Executor, TransferPass
from lamina.graph.frame_schedule import frame_key, schedule_frame
from lamina.graph.placed import _CROSSES, _on, _placement, placement, planned_on, scheduled
from lamina.textures import GL_PLACE

SCENES = sorted((Path(__file__).resolve().parents[1] / "scenes").glob("*.json"))


def model() -> CostModel:
    kinds = tuple(k.value for k in PassKind)  # every kind, so each suite scene's passes have costs
    passes = {f"gl:{k}": (0.05, 2e-5) for k in kinds} | {f"opencl:{k}": (0.05, 0.7e-5) for k in kinds}
    return CostModel("hand-written", passes, {"gl->cl": (0.02, 1e-8), "cl->gl": (0.02, 1e-8)})


def reference(rewrite, graph, textures):
    """The rewrite's passes made the plain way: each buffer and copy made when asked for."""
    bufs = {}

    def at(k, place):
        if place == GL_PLACE:
            return textures[k]
        if (k, place) not in bufs:
            bufs[k, place] = _on(textures[k], place)
        return bufs[k, place]

    def copies(moves):
        return [TransferPass(f"transfer:{layer}:{textures[k].name}:{a.short}-{b.short}", layer, at(k, b), at(k, a),
                             reason=_CROSSES) for layer, k, a, b in moves]

    out = []
    for i, p in enumerate(graph.passes):
        out += copies(rewrite.before.get(i, ()))
        if i in rewrite.moved:
            place, numbers = rewrite.moved[i]
            ins = [at(k, place) for k in numbers]
            changes = {"inputs": tuple(ins[:-1]), "target": ins[-1], "executor": place.executor, "device": place.device}
            if i in rewrite.reasoned:
                changes["why"] = rewrite.why
            p = type(p)(**{**{f: getattr(p, f) for f in p.__dataclass_fields__}, **changes})
        elif i in rewrite.reasoned:  # (forced to GL: only the reason written)
            p = type(p)(**{**{f: getattr(p, f) for f in p.__dataclass_fields__}, "why": rewrite.why})
        out.append(p)
    return out + copies(rewrite.after)


def filtered_graphs():
    for path in SCENES:
        graph = load_scene(path).plan(filter_backend="gl")
        if graph.filter_passes():
            yield path.stem, graph


@pytest.fixture(scope="module")
def graphs():
    found = list(filtered_graphs())
    assert len(found) >= 30, "the filtered suite scenes"
    return found


def test_a_scheduled_placement_applies_as_the_plain_rewrite(graphs):
    costs = frame_costs(model())
    moved = 0
    for name, graph in graphs:
        key = frame_key(graph)
        rewrite = placement(graph, schedule_frame(graph, costs), costs, key.index)
        placed, made = rewrite.apply(graph, key.textures, None)
        assert placed.passes == reference(rewrite, graph, key.textures), name
        again, _ = rewrite.apply(graph, key.textures, None, made)  # (reusing what it made: the same)
        assert again.passes == placed.passes, name
        moved += len(rewrite.moved)
    assert moved > 0, "the model moves work"


@pytest.mark.parametrize("forced", ["alternate", "random:1", "all-opencl"])
def test_a_forced_placement_applies_as_the_plain_rewrite(graphs, forced):
    for name, graph in graphs:
        key = frame_key(graph)
        on = ForcedPlacement.parse(forced).assign(graph.filter_passes())
        rewrite, _ = _placement(graph, on, key.index, f"forced placement {forced}")
        placed, _ = rewrite.apply(graph, key.textures, None)
        assert placed.passes == reference(rewrite, graph, key.textures), (name, forced)


def test_the_uncorrected_plan_said_by_device_reports_as_its_placed_frame(graphs):
    base = model()
    slow = CorrectedModel(base, (DeviceCorrection(Executor.OPENCL, 4.0, 3.0, 2.0, 0.2, "slower than predicted"),),
                          events=("OpenCL ran 4x its prediction",))
    reported = 0
    for name, graph in graphs:
        placed = scheduled(graph, slow)
        plan = planned_on(graph, base)
        assert report_against(plan, placed, slow) == correction_report(scheduled(graph, base), placed, slow), name
        reported += len(report_against(plan, placed, slow).moves)
    assert reported > 0, "the correction moves passes somewhere"


def test_a_kept_move_is_written_again_when_what_it_says_changed():
    # scheduled_with_feedback keeps last frame's moves (ScheduleMemo.reported): a frame
    # whose pass measured otherwise, or whose factor moved, says so in its own words.
    from dataclasses import replace

    from lamina.frame_costs import PassSeen
    from lamina.graph.corrected import scheduled_with_feedback
    from lamina.graph.schedule_memo import ScheduleMemo
    from tests.turning import gl_frames, turning

    base, memo = model(), ScheduleMemo()
    frames = gl_frames(turning(6, 320, 200), 6)[1:]
    fix = DeviceCorrection(Executor.OPENCL, 4.0, 3.0, 2.0, 0.2, "slower than predicted")
    first = scheduled_with_feedback(frames[0], CorrectedModel(base, (fix,)))
    moved = [m.pass_name for m in first.corrections.moves]
    assert moved, "the correction moves passes"
    for k, graph in enumerate(frames):
        seen = {(name, Executor.OPENCL): PassSeen(Executor.OPENCL, 1.0 + (k // 2) * 0.5, 0.4, 0.1) for name in moved}
        m = CorrectedModel(base, (replace(fix, factor=4.0 + (k // 3)),), seen=seen, events=(f"frame {k}",))
        reused, fresh = scheduled_with_feedback(graph, m, (), memo), scheduled_with_feedback(graph, m)
        assert reused.corrections == fresh.corrections, k
        assert f"it measured {1.0 + (k // 2) * 0.5:.2f} ms" in reused.corrections.moves[0].why
