"""The run-time half of hybrid scheduling (graph.offload): which OpenCL work of a placed
frame the executor may still run on GL, and the dmda rule that decides, without a GPU."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene
from lamina.filter_costs import CostModel
from lamina.framegraph import Executor, FilterPass, TransferPass
from lamina.graph.offload import LATE_FRACTION, Offload, choose

KINDS = ("color", "blur", "down", "up", "shadow", "morphology")


def model(cl_factor: float) -> CostModel:
    return CostModel("hand-written", {f"gl:{k}": (0.1, 1e-5) for k in KINDS}
                     | {f"opencl:{k}": (0.1, 1e-5 * cl_factor) for k in KINDS},
                     {"gl->cl": (0.05, 1e-9), "cl->gl": (0.05, 1e-9)})


def cards(n: int = 3) -> Scene:
    scene = Scene(640, 480, "white")
    for i in range(n):
        scene.root.add(Layer(f"c{i}", (20 + i * 200, 40, 180, 300),
                             f"background: linear-gradient(#f80, #08f); filter: blur({5 + i}px) sepia(.5)"))
    return scene


def offload(gl_ms=4.0, cl_ms=1.0, copy=0.25, planned=1.5) -> Offload:
    return Offload("offload 1 (x)", ("a",), (), ("in",), ("out",), gl_ms, cl_ms, copy, copy, planned, (("a", cl_ms),))


def test_on_plan_the_plan_stands_even_where_gl_alone_would_be_faster():
    # The schedule put it on OpenCL while GL does other work: a greedy per-offload rule
    # would pull it back; on time, it stays.
    choice = choose(offload(gl_ms=1.0, cl_ms=1.0, planned=1.5), backlog_ms=0.0)
    assert choice.executor is Executor.OPENCL and choice.cl_end_ms == pytest.approx(1.5)


def test_a_backlogged_device_loses_the_offload_to_gl():
    choice = choose(offload(), backlog_ms=5.0)
    assert choice.moved and choice.cl_end_ms == pytest.approx(5.0 + 1.0 + 0.25)
    assert "queue 5.00 ms" in choice.why() and "on GL in 4.00 ms" in choice.why()


def test_a_device_slower_than_predicted_this_frame_loses_it():
    assert not choose(offload(), backlog_ms=0.0, slowdown=1.0).moved
    slow = choose(offload(), backlog_ms=0.5, slowdown=4.0)  # (0.5 x 4 queued, 1 x 4 to run)
    assert slow.moved and slow.cl_end_ms == pytest.approx(2.0 + 4.0 + 0.25) and slow.slowdown == 4.0


def test_behind_plan_but_gl_slower_still_stays():
    choice = choose(offload(gl_ms=20.0), backlog_ms=5.0)
    assert choice.executor is Executor.OPENCL and choice.cl_end_ms > choice.planned_ms * (1 + LATE_FRACTION)


def test_a_little_late_is_not_late():
    # Over the fraction but under a millisecond's jitter.
    assert not choose(offload(gl_ms=0.1, cl_ms=0.2, copy=0.05, planned=0.3), backlog_ms=0.3).moved


def test_offloads_of_a_placed_frame_pair_each_opencl_chain_with_its_gl_version():
    scene = cards()
    gl_graph = scene.plan(filter_backend="gl")
    placed = scene.plan(filter_backend="auto", cost_model=model(0.05))
    on_cl = [p for p in placed.filter_passes() if p.executor is Executor.OPENCL]
    assert on_cl and placed.offloads
    by_name = {p.name: p for p in placed.passes}
    covered = set()
    for o in placed.offloads:
        kinds = {type(by_name[n]) for n in o.cl_passes}
        assert kinds == {FilterPass, TransferPass}
        assert [p.name for p in o.gl_passes] == [n for n in o.cl_passes if isinstance(by_name[n], FilterPass)]
        assert all(p.executor is Executor.GL for p in o.gl_passes)
        same = lambda p: (p.name, p.inputs, p.target, p.step)  # noqa: E731 - (its reason says auto's, not gl's)
        assert [same(p) for p in o.gl_passes] == [same(p) for p in gl_graph.filter_passes() if p.name in o.cl_passes]
        # Its GL version writes what its copies back write, reads what its copies in read.
        back = {by_name[n].target.name for n in o.cl_passes
                if isinstance(by_name[n], TransferPass) and by_name[n].target.location is Executor.GL}
        assert set(o.outputs) == back and back <= {p.target.name for p in o.gl_passes}
        assert set(o.inputs) <= {t.name for p in o.gl_passes for t in p.inputs}
        assert o.cl_ms < o.gl_ms and o.planned_ms >= o.cl_ms
        covered.update(o.cl_passes)
    assert {p.name for p in on_cl} <= covered, "every OpenCL pass is in an offload"
    assert "may run on GL instead" in placed.describe() and placed.to_dict()["offloads"]


def test_forced_placements_have_no_offloads():
    assert cards().plan(filter_backend="opencl").offloads == ()
