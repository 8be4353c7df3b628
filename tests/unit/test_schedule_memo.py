"""Reusing last frame's frame-wide schedule (graph.schedule_memo, issue 22's overhead
number): a frame whose task graph and cost model are last frame's gets last frame's
schedule and rewrite, applied to its own passes and texture names, and the result is
the graph a schedule made from scratch gives; a changed price, size, footprint or
texture is scheduled afresh. Without a GPU: planned graphs and hand-written models."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from lamina import FrameRequest, Scene
from lamina.filter_costs import CostModel
from lamina.filters.plan import Axis, BlurPass, ColorPass, ColorStep
from lamina.frame_costs import ExecutorCosts, footprint
from lamina.framegraph import Executor, FilterPass, TextureDesc
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.frame_schedule import frame_key
from lamina.graph.placed import scheduled
from lamina.graph.schedule_memo import ScheduleMemo
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.turning import gl_frames, turning


def model(cl_factor: float = 0.05, transfer_ms: float = 0.05) -> CostModel:
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (0.1, 1e-5) for k in kinds} | {f"opencl:{k}": (0.1, 1e-5 * cl_factor) for k in kinds}
    return CostModel("hand-written", passes, {"gl->cl": (transfer_ms, 1e-9), "cl->gl": (transfer_ms, 1e-9)})


def animated(layers: int = 6) -> Scene:
    return turning(layers, 320, 200)


def same(a, b) -> None:
    """Two placed graphs alike in what scheduling made: passes, decisions, schedule."""
    assert a.passes == b.passes
    assert a.decisions == b.decisions
    assert a.schedule == b.schedule
    assert a.schedule.baselines == b.schedule.baselines


@pytest.mark.parametrize("cl_factor", [0.05, 1.3])  # placed on OpenCL; kept on GL (only pays off overlapped)
def test_a_reused_schedule_is_the_one_made_from_scratch(cl_factor):
    m = model(cl_factor, transfer_ms=0.05 if cl_factor < 1 else 0.01)
    memo = ScheduleMemo()
    frames = gl_frames(animated(), 5)
    names = [{t.name for t in g.textures()} for g in frames]
    assert names[1] != names[2], "kept results are named anew each frame: the key must not hold names"
    for g in frames:
        reused, fresh = scheduled(g, m, memo), scheduled(g, m)
        same(reused, fresh)
        reused.validate()
    assert (memo.misses, memo.hits) == (2, 3), "the first frame rasters: the second is the first of the steady ones"
    if cl_factor < 1:
        last = scheduled(frames[-1], m, memo)
        assert any(p.executor is Executor.OPENCL for p in last.filter_passes()) and last.transfer_passes()
        assert {c.texture for c in last.schedule.copies} <= {t.name for t in frames[-1].textures()}
    else:
        assert not scheduled(frames[-1], m, memo).schedule.applied


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
    scheduled(g, cheap, memo)
    dear = model(0.5)  # another model: another version of the prices
    same(scheduled(g, dear, memo), scheduled(g, dear))
    assert memo.hits == 0 and memo.misses == 2
    scheduled(g, dear, memo)
    assert memo.hits == 1


def test_a_changed_graph_is_not_reused():
    scene = animated()
    memo, m = ScheduleMemo(), model()
    first = gl_frames(scene, 1)[0]
    scheduled(first, m, memo)
    scene.root.children[0].box = (10, 10, 80, 30)  # a bigger card: bigger textures, dearer passes
    changed = gl_frames(scene, 1)[0]
    assert frame_key(changed).key != frame_key(first).key
    same(scheduled(changed, m, memo), scheduled(changed, m))
    assert memo.hits == 0


def test_the_key_holds_every_texture_field_but_the_name():
    g = gl_frames(animated(), 1)[0]
    key = frame_key(g).key
    i, p = next((i, p) for i, p in enumerate(g.passes) if isinstance(p, FilterPass))
    changes = {"width": p.target.width + 1, "height": p.target.height + 1, "format": "rgba16f",
               "role": "backing", "retained": not p.target.retained, "location": Executor.OPENCL,
               "straight": not p.target.straight}
    assert {f.name for f in fields(TextureDesc)} == {"name", *changes}, "a new TextureDesc field: say it in the key"
    for name, value in changes.items():
        edited = replace(g, passes=[*g.passes[:i], replace(p, target=replace(p.target, **{name: value})), *g.passes[i + 1:]])
        assert frame_key(edited).key != key, name
    renamed = replace(g, passes=[*g.passes[:i], replace(p, target=replace(p.target, name="elsewhere")), *g.passes[i + 1:]])
    assert frame_key(renamed).key != key, "a pass writing another texture than its readers read: another graph"
    # (Every texture renamed alike keeps the key: test_a_reused_schedule_is_the_one_made_from_scratch.)


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
