"""A schedule held as columns (graph.frame_schedule.ScheduleTable, issue 22: a frame's
scheduling reads columns, and a Slot per pass is made only when a report asks), without
a GPU: on seeded frames (the turning page beside a widening blur, scheduled through one
renderer's memo: first, repaired and reused frames), every slot made from the columns
equals one written out from HEFT's own output (Placed) and the task graph, one slot
found alone equals the same slot made with all the others, the numbers issue order
gives are each pass's place in the issued graph, and the issued graph (no longer
validated where it is made) is valid. Also what is now read from the columns instead of
the slots equals what the slots say: HEFT's flat per-device records, a pass's prices
(the corrected report), where graph.placed.planned_on says each pass goes (the placed
frame's), and HEFT's order by rank."""

from __future__ import annotations

import math
import random

import pytest

from lamina.framegraph import Executor, FilterPass
from lamina.graph.frame_schedule import PINNED_WHY, Choice
from lamina.graph.heft import _by_rank, heft
from lamina.graph.placed import planned_on, scheduled
from lamina.graph.schedule_memo import ScheduleMemo
from tests.benchmarks.test_schedule_bench import profile_model
from tests.unit.test_frame_schedule import _random_dag, model
from tests.unit.test_rescheduled import _restyled_frames


@pytest.fixture(scope="module")
def placed_frames():
    frames = _restyled_frames(6)
    cost_model = model(cl_factor=0.3, transfer_ms=0.01)
    memo = ScheduleMemo()
    return [scheduled(graph, cost_model, (), memo) for graph in frames]


def test_slots_made_from_the_columns_are_heft_s_placement(placed_frames):
    moved = 0
    for placed in placed_frames:
        schedule = placed.schedule
        table = schedule.table
        fd, out = table.fd, table.placed
        assert len(schedule.slots) == len(fd.tasks) == len(table)
        for i, (slot, p) in enumerate(zip(schedule.slots, fd.tasks)):
            d = out.device[i]
            assert (slot.name, slot.device, slot.start_ms, slot.finish_ms, slot.row, slot.rank) == \
                (p.name, table.names[d], out.start[i], out.finish[i], fd.dag.cost[i], table.ranks[i])
            assert slot.finish_ms - slot.start_ms == pytest.approx(fd.dag.cost[i][d], abs=1e-9)
            if isinstance(p, FilterPass):
                assert slot.reason == Choice(out.eft[i], out.ready[i][d]) and not slot.pinned
            else:
                assert slot.reason == PINNED_WHY and slot.pinned and d == 0
        moved += table.off_gl()
        assert table.off_gl() == any(s.device != table.names[0] for s in schedule.slots)
    assert moved, "some frames run work off GL"


def test_a_slot_found_alone_is_the_one_made_with_the_others(placed_frames):
    rng = random.Random(7)
    for placed in placed_frames:
        schedule = placed.schedule
        names = [p.name for p in schedule.table.fd.tasks]
        lone = type(schedule)(**{f: getattr(schedule, f) for f in ("devices", "table", "copies", "makespan_ms",
                                                                     "serial_ms", "costs", "method", "applied")})
        for name in rng.sample(names, 10):
            found = lone.find(name)
            assert "slots" not in lone.__dict__, "found without making every slot"
            assert found == schedule.slot(name) == next(s for s in schedule.slots if s.name == name)
        assert lone.find("no such pass") is None
        assert lone == schedule


def test_issue_order_numbers_each_pass_by_its_place_and_keeps_it_valid(placed_frames):
    reordered = 0
    for placed in placed_frames:
        placed.validate()
        at = {p.name: k for k, p in enumerate(placed.passes, 1)}
        numbers = [s.number for s in placed.schedule.slots]
        if placed.schedule.table.numbers != placed.schedule.table.fd.numbers:
            reordered += 1
            assert numbers == [at[s.name] for s in placed.schedule.slots]
    assert reordered, "some frames were issued in another order than planned"


@pytest.mark.parametrize("seed", range(10))
def test_flat_records_are_each_task_s_finish_and_ready_time_per_device(seed):
    rng = random.Random(seed)
    dag = _random_dag(rng, rng.randint(2, 40), rng.randint(1, 3))
    placed = heft(dag)
    nd = dag.devices
    assert len(placed.efts) == len(placed.readies) == len(dag) * nd
    for i in range(len(dag)):
        d = placed.device[i]
        assert placed.eft[i][d] == placed.finish[i]
        assert placed.eft[i] == placed.eft_at(i) == tuple(placed.efts[i * nd:(i + 1) * nd])
        for k in range(nd):
            if not math.isfinite(dag.cost[i][k]):
                assert placed.eft[i][k] == math.inf
            else:
                assert placed.eft[i][k] >= placed.ready[i][k] + dag.cost[i][k] - 1e-9


@pytest.mark.parametrize("cl_factor", [0.3, 0.9, 3.0, "shared CPU"])
def test_planned_on_is_where_scheduled_places_each_filter_pass(cl_factor):
    """graph.placed.planned_on reads the schedule's device column instead of rewriting
    the frame: the same pass -> (executor, layer) as the placed frame's, through a memo
    (first and repaired frames, alike for both memos) and without one (HEFT), whether
    the work moves or stays on GL."""
    if cl_factor == "shared CPU":  # (GL and PoCL on the CPU's cores: the margin keeps work on GL)
        cost_model = profile_model()
    else:
        cost_model = model(cl_factor=cl_factor, transfer_ms=0.01)
    memo, plans = ScheduleMemo(), ScheduleMemo()
    kinds = set()
    for graph in _restyled_frames(4):
        for placed, plan in ((scheduled(graph, cost_model, (), memo), planned_on(graph, cost_model, (), plans)),
                             (scheduled(graph, cost_model), planned_on(graph, cost_model))):
            where = {p.name: (Executor.of(p.executor), p.layer_id) for p in placed.filter_passes()}
            assert plan == where
            kinds.add(frozenset(e for e, _ in where.values()))
    if cl_factor == "shared CPU":
        assert kinds == {frozenset({Executor.GL})}, "kept on GL by the margin"
    else:
        assert any(Executor.OPENCL in k for k in kinds), "some work moves to OpenCL (HEFT overlaps even a slower device)"


@pytest.mark.parametrize("seed", range(5))
def test_heft_order_is_by_decreasing_rank_ties_to_the_lower_index(seed):
    rng = random.Random(seed)
    ranks = [rng.choice([0.0, 1.0, 2.5, rng.random()]) for _ in range(300)]  # (many ties)
    assert _by_rank(ranks) == sorted(range(len(ranks)), key=lambda i: (-ranks[i], i))


def test_prices_and_renamed_copies_read_from_the_columns(placed_frames):
    """What the corrected report reads of a pass (its devices and row) is its slot's; a
    schedule whose copies are named anew keeps the slots already made."""
    for placed in placed_frames:
        schedule = placed.schedule
        for slot in schedule.slots[::7]:
            assert schedule.prices_of(slot.name) == (slot.names, slot.row)
        assert schedule.prices_of("no such pass") is None
        renamed = schedule.with_copies(schedule.copies[::-1])
        assert renamed.slots is schedule.slots and renamed.copies == schedule.copies[::-1]
