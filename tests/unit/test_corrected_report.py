"""The correction report kept between frames (lamina.cost_feedback.Reported, kept by
graph.corrected in the renderer's ScheduleMemo): through one memo, over seeded random
frames (animation frames with last frame's task graph, frames whose blur widens so they
are scheduled incrementally, factors that change and lift, passes measured anew, moves
sent back), each frame's report is the one written from nothing against the same two
plans; and the work it keeps is really skipped: a frame whose two plans are last
frame's, with the model saying the same, has last frame's report, and a move whose
words depend on nothing that changed is the one written before. Without a GPU."""

from __future__ import annotations

import random

import pytest

from lamina import FrameRequest, Layer
from lamina.cost_feedback import report_against
from lamina.filter_costs import CostModel
from lamina.frame_costs import CorrectedModel, DeviceCorrection, PassSeen
from lamina.framegraph import Executor
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.corrected import scheduled_with_feedback
from lamina.graph.placed import planned_on
from lamina.graph.schedule_memo import ScheduleMemo
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.turning import turning


def model() -> CostModel:
    """OpenCL a third of GL's price per pixel, copies cheap: a correction of 1.5 to 4
    on OpenCL moves some passes back to GL, not all."""
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (0.05, 2e-5) for k in kinds} | {f"opencl:{k}": (0.05, 0.7e-5) for k in kinds}
    return CostModel("hand-written", passes, {"gl->cl": (0.02, 1e-8), "cl->gl": (0.02, 1e-8)})


def frames(count: int, widening: bool) -> list:
    """Animation frames of turning cards planned on GL by one state; ``widening``: with a
    card whose blur widens every frame (another key each frame, scheduled incrementally)."""
    scene = turning(8, 320, 200)
    if widening:
        card = scene.root.add(Layer("widening", (200, 100, 80, 60), "background: #f84"))
        card.animate({"from": {"filter": "blur(1px)"}, "to": {"filter": "blur(61px)"}}, duration="1s",
                     iterations="infinite")
    state, facts = FrameState(), ExecutorFacts(retained=EVERY_TEXTURE)
    return [build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="gl"), Limits(), ImageStore(), state, facts)
            for k in range(1, count + 3)][2:]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("widening", [False, True])
def test_reports_kept_between_frames_are_the_reports_written_anew(seed, widening):
    rng, base, memo = random.Random(seed), model(), ScheduleMemo()
    seen: dict = {}
    moved: dict = {}
    reused = kept = 0
    last = None
    factor = 1.5
    for k, graph in enumerate(frames(14, widening)):
        if rng.random() < 0.25:  # the factor moves, or is lifted
            factor = rng.choice([1.5, 2.0, 4.0, 1.0])
        fix = (DeviceCorrection(Executor.OPENCL, factor, 3.0, 2.0, 0.2, "slower than predicted"),) if factor != 1 else ()
        measured = rng.random() < 0.3
        if measured:  # some passes measured anew (a new mapping, as FeedbackState makes)
            seen = dict(seen)
            for p in rng.sample(graph.filter_passes(), 4):
                for e in (Executor.GL, Executor.OPENCL):
                    seen[p.name, e] = PassSeen(e, round(rng.uniform(0.1, 3), 2), round(rng.uniform(0.1, 3), 2), 0.1)
        m = CorrectedModel(base, fix, seen, moved, ("a measured frame",) if measured else ())
        before = memo.reported
        placed = scheduled_with_feedback(graph, m, (), memo)
        if not m.active:
            moved = placed.corrections.moved() if placed.corrections is not None else {}
            continue
        # The same two plans, the report written from nothing: (planned_on hands back
        # the plan its memo made this frame.)
        plan = planned_on(graph, base, (), memo.uncorrected())
        assert placed.corrections == report_against(plan, placed, m), k
        if before is not None and last is not None and before.report is not None and placed.corrections is before.report:
            reused += 1
        if before is not None and placed.corrections is not None:
            kept += sum(1 for mv in placed.corrections.moves
                        if not mv.back and mv.pass_name in before.written and before.written[mv.pass_name][4] is mv)
        moved = placed.corrections.moved() if placed.corrections is not None else {}
        last = placed
    assert kept > 0, "moves whose words did not change are the ones written before"
    if not widening:
        assert reused > 0, "a frame with last frame's plans and words has last frame's report"


def test_a_report_is_written_anew_when_what_it_says_changes():
    base, memo = model(), ScheduleMemo()
    graphs = frames(4, False)
    fix = (DeviceCorrection(Executor.OPENCL, 4.0, 3.0, 2.0, 0.2, "slower than predicted"),)
    first = scheduled_with_feedback(graphs[0], CorrectedModel(base, fix), (), memo).corrections
    assert first.moves, "the correction moves passes"
    same = scheduled_with_feedback(graphs[1], CorrectedModel(base, fix), (), memo).corrections
    assert same is first, "the same plans and words: last frame's report"
    name = first.moves[0].pass_name
    seen = {(name, first.moves[0].source): PassSeen(first.moves[0].source, 2.5, 1.0, 0.1)}
    told = scheduled_with_feedback(graphs[2], CorrectedModel(base, fix, seen), (), memo).corrections
    assert told is not first and "it measured 2.50 ms" in told.moves[0].why
    assert told.moves[1:] == first.moves[1:] and all(a is b for a, b in zip(told.moves[1:], first.moves[1:])), \
        "the other moves' words depend on nothing that changed"
    back = scheduled_with_feedback(graphs[3], CorrectedModel(base, fix, seen, {name: (Executor.OPENCL, Executor.GL)},
                                                             ("moved",)), (), memo).corrections
    assert back.events == ("moved",) and back.moves == told.moves, "the same moves, with the events of this frame"
