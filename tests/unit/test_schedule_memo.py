"""Reusing last frame's frame-wide schedule (graph.schedule_memo, issue 22's overhead
number): a frame whose task graph and cost model are last frame's gets last frame's
schedule and rewrite, applied to its own passes and texture names, and the result is
the graph a schedule made from scratch gives; a changed price, size, footprint or
texture is scheduled afresh (sizes and footprints incrementally: graph.rescheduled). Without a GPU: planned graphs and hand-written models."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from lamina import FrameRequest, Scene
from lamina.filter_costs import CostModel
from lamina.filters.plan import Axis, BlurPass, ColorPass, ColorStep
from lamina.devices import Device
from lamina.frame_costs import CorrectedModel, DeviceCorrection, ExecutorCosts, footprint, source_size
from lamina.framegraph import Executor, FilterPass, TextureDesc
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.frame_schedule import frame_key
from lamina.graph.corrected import scheduled_with_feedback
from lamina.graph.placed import scheduled
from lamina.graph.schedule_memo import ScheduleMemo
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.turning import gl_frames, turning


def model(cl_factor: float = 0.05, transfer_ms: float = 0.05, shares_cpu: bool = False) -> CostModel:
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (0.1, 1e-5) for k in kinds} | {f"opencl:{k}": (0.1, 1e-5 * cl_factor) for k in kinds}
    return CostModel("hand-written", passes, {"gl->cl": (transfer_ms, 1e-9), "cl->gl": (transfer_ms, 1e-9)},
                     shares_cpu=shares_cpu)


def animated(layers: int = 6) -> Scene:
    return turning(layers, 320, 200)


def same(a, b) -> None:
    """Two placed graphs alike in what scheduling made: passes (in issue order),
    decisions, schedule, the offloads the executor may move back to GL."""
    assert a.passes == b.passes
    assert a.decisions == b.decisions
    assert a.schedule == b.schedule
    assert a.schedule.baselines == b.schedule.baselines
    assert a.offloads == b.offloads


@pytest.mark.parametrize("cl_factor", [0.05, 1.3])  # placed on OpenCL; kept on GL (only pays off overlapped,
def test_a_reused_schedule_is_the_one_made_from_scratch(cl_factor):  # and both devices share the CPU)
    m = model(cl_factor, transfer_ms=0.05 if cl_factor < 1 else 0.01, shares_cpu=cl_factor > 1)
    memo = ScheduleMemo()
    frames = gl_frames(animated(), 5)
    names = [{t.name for t in g.textures()} for g in frames]
    assert names[1] != names[2], "kept results are named anew each frame: the key must not hold names"
    for g in frames:
        reused, fresh = scheduled(g, m, memo=memo), scheduled(g, m)
        same(reused, fresh)
        reused.validate()
    assert (memo.misses, memo.hits) == (2, 3), "the first frame rasters: the second is the first of the steady ones"
    if cl_factor < 1:
        last = scheduled(frames[-1], m, memo=memo)
        assert any(p.executor is Executor.OPENCL for p in last.filter_passes()) and last.transfer_passes()
        assert {c.texture for c in last.schedule.copies} <= {t.name for t in frames[-1].textures()}
    else:
        assert not scheduled(frames[-1], m, memo=memo).schedule.applied


def test_auto_frames_reuse_the_schedule_and_equal_a_fresh_one():
    # Through the planner, as Renderer.plan runs it: the RetainedPlan keeps the GL graph
    # each frame was scheduled from.
    scene, state, m = animated(), FrameState(), model()
    facts = ExecutorFacts(retained=EVERY_TEXTURE, filter_costs=m)
    for k in range(1, 6):
        graph = build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="auto"), Limits(), ImageStore(), state, facts)
        same(graph, scheduled(state.last.graph, m))
    assert (state.schedules.misses, state.schedules.hits) == (2, 3)


def test_a_changed_price_is_not_reused():
    g = gl_frames(animated(), 1)[0]
    memo, cheap = ScheduleMemo(), model(0.05)
    scheduled(g, cheap, memo=memo)
    dear = model(0.5)  # another model: another version of the prices
    same(scheduled(g, dear, memo=memo), scheduled(g, dear))
    assert memo.hits == 0 and memo.misses == 2
    scheduled(g, dear, memo=memo)
    assert memo.hits == 1


def test_a_changed_graph_is_not_reused():
    scene = animated()
    memo, forgetful, m = ScheduleMemo(), ScheduleMemo(), model()
    first = gl_frames(scene, 1)[0]
    scheduled(first, m, memo=memo)
    scheduled(first, m, memo=forgetful)
    scene.root.children[0].box = (10, 10, 80, 30)  # a bigger card: bigger textures, dearer passes
    changed = gl_frames(scene, 1)[0]
    assert frame_key(changed).key != frame_key(first).key
    # Only sizes changed: scheduled anew, incrementally (graph.rescheduled: HEFT with
    # repair from last frame's placement), near HEFT's; from nothing, HEFT's own.
    basis = memo.basis
    assert basis is not None and basis.changes(frame_key(changed)) is not None
    repaired = scheduled(changed, m, memo=memo)
    repaired.validate()
    fresh = scheduled(changed, m)
    assert repaired.schedule.makespan_ms <= fresh.schedule.makespan_ms * 1.06
    forgetful.basis = None
    same(scheduled(changed, m, memo=forgetful), fresh)
    assert memo.hits == forgetful.hits == 0


def test_the_key_holds_every_texture_field_but_the_name():
    g = gl_frames(animated(), 1)[0]
    key = frame_key(g).key
    i, p = next((i, p) for i, p in enumerate(g.passes) if isinstance(p, FilterPass))
    changes = {"width": p.target.width + 1, "height": p.target.height + 1, "format": "rgba16f",
               "role": "backing", "retained": not p.target.retained, "location": Executor.OPENCL,
               "device": "0:1", "straight": not p.target.straight}
    assert {f.name for f in fields(TextureDesc)} == {"name", *changes}, "a new TextureDesc field: say it in the key"
    for name, value in changes.items():
        edited = replace(g, passes=[*g.passes[:i], replace(p, target=replace(p.target, **{name: value})), *g.passes[i + 1:]])
        assert frame_key(edited).key != key, name
    renamed = replace(g, passes=[*g.passes[:i], replace(p, target=replace(p.target, name="elsewhere")), *g.passes[i + 1:]])
    assert frame_key(renamed).key != key, "a pass writing another texture than its readers read: another graph"
    # (Every texture renamed alike keeps the key: test_a_reused_schedule_is_the_one_made_from_scratch.)


def test_the_key_holds_each_filter_pass_footprint():
    # frame_key writes the footprint inline (a call less per pass): as footprint() does.
    graph = gl_frames(animated(), 2)[1]
    parts = set(frame_key(graph).key)
    for p in graph.filter_passes():
        size = source_size(p.step, p.target.width, p.target.height)
        assert (p.name, p.layer_id, p.executor, p.device, footprint(p.step, *size)) in parts, p.name


def test_a_footprint_says_what_a_pass_costs():
    # Parameters outside the footprint (a colour matrix, a blur's sigma at one radius)
    # do not change a price; what is in it (steps, radius, scale, size) does.
    red = ColorStep(("a",), ((1.0, 0, 0, 0), (0, 1.0, 0, 0), (0, 0, 1.0, 0)))
    blue = ColorStep(("b",), ((0.5, 0, 0, 0), (0, 0.2, 0, 0), (0, 0, 0.9, 0.1)))
    one, other = ColorPass(("s",), "o", (red,)), ColorPass(("s",), "o", (blue,))
    two = ColorPass(("s",), "o", (red, blue))
    narrow, wide = BlurPass(("s",), "o", Axis.X, 2.0, 6), BlurPass(("s",), "o", Axis.X, 2.1, 6)
    costs = ExecutorCosts(model())
    assert footprint(one, 40, 30) == footprint(other, 40, 30) != footprint(two, 40, 30)
    assert footprint(narrow, 40, 30) == footprint(wide, 40, 30) != footprint(BlurPass(("s",), "o", Axis.X, 2.5, 8), 40, 30)
    assert footprint(one, 40, 30) != footprint(one, 41, 30)
    for d in (0, 1):
        assert costs.filter_ms(d, one, 40, 30) == costs.filter_ms(d, other, 40, 30)
        assert costs.filter_ms(d, narrow, 40, 30) == costs.filter_ms(d, wide, 40, 30)


def test_a_why_is_made_when_asked():
    g = gl_frames(animated(), 1)[0]
    schedule = scheduled(g, model()).schedule
    slot = next(s for s in schedule.slots if not s.pinned)
    assert "why" not in vars(slot), "no sentence is made for a frame that is only run"
    assert slot.why.startswith(f"HEFT rank {slot.rank:.2f}: earliest finish on {slot.device}")
    assert slot.to_dict()["why"] == slot.why


def test_a_slot_made_fast_is_a_slot():
    # (frame_schedule makes slots without dataclass __init__: they must be the same values)
    from lamina.graph.frame_schedule import Slot
    schedule = scheduled(gl_frames(animated(), 1)[0], model()).schedule
    for s in schedule.slots:
        made = Slot(**{f.name: getattr(s, f.name) for f in fields(Slot)})
        assert made == s and hash(made) == hash(s) and made.why == s.why and made.costs == s.costs


DEVICES = tuple(Device(Executor.OPENCL, "pthread", "PoCL", "3.1", index) for index in ("0:0", "0:1"))


def test_a_reused_schedule_over_several_devices_is_the_one_made_from_scratch():
    # Passes on GL and two OpenCL devices ("P:D" places, <name>@cl0:1 buffers, copies
    # between devices): the reused rewrite names each frame's buffers on each device.
    m, memo = model(0.1, transfer_ms=0.001), ScheduleMemo()
    frames = gl_frames(animated(8), 4)
    for g in frames:
        reused = scheduled(g, m, DEVICES, memo=memo)
        same(reused, scheduled(g, m, DEVICES))
        reused.validate()
    assert (memo.misses, memo.hits) == (2, 2)
    on = {p.device for p in reused.filter_passes() if p.executor is Executor.OPENCL}
    assert on == {"0:0", "0:1"}, on
    assert all(t.name.endswith(f"@cl{t.device}") for p in reused.filter_passes() if p.device for t in p.inputs)
    assert reused.offloads and {o.device for o in reused.offloads} <= {"0:0", "0:1"}
    # Another device list is other prices: scheduled afresh.
    same(scheduled(frames[-1], m, DEVICES[:1], memo=memo), scheduled(frames[-1], m, DEVICES[:1]))
    assert memo.misses == 3


def corrected(base, factor: float) -> CorrectedModel:
    """A corrected model as FeedbackState.model makes one for each frame: a new object."""
    fix = DeviceCorrection(Executor.OPENCL, factor, 2.0, 1.0, 0.1, "slower than predicted") if factor != 1 else None
    return CorrectedModel(base, (fix,) if fix else (), events=("measured",))


def test_corrected_models_reuse_while_their_factors_stand():
    # The renderer hands the planner a new CorrectedModel every frame: the memo keys it
    # by its base model and factors, so equal prices reuse and changed ones do not.
    base, memo = model(), ScheduleMemo()
    frames = gl_frames(animated(), 5)
    for g in frames:
        m = corrected(base, 3.0)
        same(scheduled(g, m, memo=memo), scheduled(g, m))
    assert (memo.misses, memo.hits) == (2, 3)
    same(scheduled(frames[-1], corrected(base, 1.5), memo=memo), scheduled(frames[-1], corrected(base, 1.5)))
    assert memo.misses == 3, "a changed factor is other prices"
    scheduled(frames[-1], corrected(base, 1.0), memo=memo)
    scheduled(frames[-1], base, memo=memo)
    assert (memo.misses, memo.hits) == (4, 4), "a corrected model without a factor prices as its base"
    scheduled(frames[-1], model(), memo=memo)
    assert memo.misses == 5, "another base model object: another version (a new calibration)"


def test_feedback_frames_through_the_planner_reuse_the_schedule():
    # As the renderer plans: a CorrectedModel made anew for each frame, with an active
    # correction (scheduled_with_feedback also makes the uncorrected plan, without the memo).
    scene, state, base = animated(), FrameState(), model()
    for k in range(1, 6):
        m = corrected(base, 3.0)
        facts = ExecutorFacts(retained=EVERY_TEXTURE, filter_costs=m)
        graph = build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="auto"), Limits(), ImageStore(), state, facts)
        fresh = scheduled_with_feedback(state.last.graph, m)
        same(graph, fresh)
        assert graph.corrections == fresh.corrections
    assert (state.schedules.misses, state.schedules.hits) == (2, 3)
