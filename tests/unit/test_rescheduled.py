"""Incremental rescheduling (issue 22: a rescheduled frame's overhead), without a GPU:
a task graph repriced in place equals the one built anew, updated upward ranks equal
ranks computed anew, HEFT-with-repair makes valid schedules that keep every task it is
not asked to re-place where it was (and how far its makespan is from HEFT's, on seeded
random DAGs), and frames whose styles change some sizes (a widening blur) are scheduled
incrementally: near the same frames scheduled from nothing by HEFT, identical to them
where every pass lands alike, and identical with or without last frame's rewrite."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import replace

import pytest

from lamina import FrameRequest, Layer
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.frame_schedule import frame_key
from lamina.graph.heft import Edge, TaskDAG, check, heft, repaired, updated_ranks, upward_ranks
from lamina.graph.placed import scheduled
from lamina.graph.rescheduled import HEFT_EVERY, basis_of
from lamina.graph.schedule_memo import ScheduleMemo
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.turning import turning
from tests.unit.test_frame_schedule import _random_dag, model


def _repriced_rows(rng: random.Random, dag: TaskDAG, k: int) -> tuple[dict, dict]:
    """New cost rows for k random tasks (same finite devices) and new copy matrices for
    the data edges leaving them."""
    tasks = rng.sample(range(len(dag)), min(k, len(dag)))
    rows = {i: tuple(c * rng.uniform(0.3, 3) if math.isfinite(c) else c for c in dag.cost[i]) for i in tasks}
    copies = {}
    for e, edge in enumerate(dag.edges):
        if edge.source in rows and edge.copy_ms is not None:
            f = rng.uniform(0.3, 3)
            copies[e] = tuple(tuple(v * f for v in row) for row in edge.copy_ms)
    return rows, copies


def _rebuilt(dag: TaskDAG, rows: dict, copies: dict) -> TaskDAG:
    cost = tuple(rows.get(i, row) for i, row in enumerate(dag.cost))
    edges = tuple(Edge(e.source, e.target, copies[k]) if k in copies else e for k, e in enumerate(dag.edges))
    return TaskDAG(dag.devices, cost, edges)


@pytest.mark.parametrize("seed", range(20))
def test_a_repriced_dag_and_its_updated_ranks_equal_those_built_anew(seed):
    rng = random.Random(seed)
    dag = _random_dag(rng, rng.randint(2, 60), rng.randint(1, 3))
    rows, copies = _repriced_rows(rng, dag, rng.randint(1, 5))
    patched, fresh = dag.repriced(rows, copies), _rebuilt(dag, rows, copies)
    for field in ("devices", "cost", "edges", "preds", "succs", "pred_rows", "usable"):
        assert getattr(patched, field) == getattr(fresh, field), field
    dirty = set(rows) | {dag.edges[e].source for e in copies}
    assert updated_ranks(patched, upward_ranks(dag), dirty) == upward_ranks(fresh), "the same numbers, exactly"
    assert heft(patched).device == heft(fresh).device


def test_repricing_checks_its_rows():
    dag = _random_dag(random.Random(1), 5, 2)
    with pytest.raises(ValueError, match="task 0"):
        dag.repriced({0: (math.inf, math.inf)}, {})
    order = next((k for k, e in enumerate(dag.edges) if e.copy_ms is None), None)
    if order is not None:
        with pytest.raises(ValueError, match="carries no data"):
            dag.repriced({}, {order: ((0.0, 1.0), (1.0, 0.0))})


def _descendants(dag: TaskDAG, start) -> set[int]:
    seen, todo = set(start), list(start)
    while todo:
        for e in dag.succs[todo.pop()]:
            if e.target not in seen:
                seen.add(e.target)
                todo.append(e.target)
    return seen


def test_repair_is_valid_keeps_what_it_does_not_replace_and_stays_near_heft():
    """On 200 seeded random DAGs (2-3 devices, 20-80 tasks), last frame's HEFT schedule
    repaired after a few tasks' prices change: valid, every task outside the repriced
    ones and their dependants on its old device; its makespan against HEFT's of the new
    prices measured (median, 90th percentile and worst ratio asserted)."""
    ratios = []
    for seed in range(200):
        rng = random.Random(seed)
        dag = _random_dag(rng, rng.randint(20, 80), rng.randint(2, 3))
        before = heft(dag)
        rows, copies = _repriced_rows(rng, dag, rng.randint(1, 4))
        new = dag.repriced(rows, copies)
        ranks = updated_ranks(new, upward_ranks(dag), set(rows) | {dag.edges[e].source for e in copies})
        replace = _descendants(new, set(rows) | {dag.edges[e].target for e in copies})
        fixed_up = repaired(new, ranks, before.device, replace)
        check(new, fixed_up)
        assert all(fixed_up.device[i] == before.device[i] for i in range(len(new)) if i not in replace)
        full = heft(new, ranks)
        ratios.append(fixed_up.makespan / full.makespan)
    # Measured (2026-12-03, these seeds): median 1.000, 90th percentile 1.043, worst
    # 1.128, best 0.915 (repair better than HEFT on 43 DAGs, equal on 91, worse on 66).
    assert statistics.median(ratios) <= 1.01
    assert sorted(ratios)[int(0.9 * len(ratios))] <= 1.08
    assert max(ratios) <= 1.25
    assert min(ratios) < 1.0, "and on some the repaired schedule beats HEFT's"


def _restyled_frames(count: int = 8) -> list:
    """Frames of the turning page beside a card whose blur widens each frame (its
    passes' footprints and textures' sizes change: scheduled anew each frame), planned
    on GL, as auto hands them to the scheduler."""
    scene = turning(12)
    card = scene.root.add(Layer("widening", (600, 300, 80, 60), "background: #f84"))
    card.animate({"from": {"filter": "blur(1px)"}, "to": {"filter": "blur(61px)"}}, duration="1s", iterations="infinite")
    state, facts = FrameState(), ExecutorFacts(retained=EVERY_TEXTURE)
    return [build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="gl"), Limits(), ImageStore(), state, facts)
            for k in range(1, count + 3)][2:]


def test_changes_finds_the_passes_and_textures_resized_and_nothing_else():
    frames = _restyled_frames(6)
    cost_model = model()
    memo = ScheduleMemo()
    found = []
    for graph in frames:
        if memo.basis is not None:
            found.append((memo.basis.changes(frame_key(graph)), graph))
        scheduled(graph, cost_model, (), memo)
    assert any(c is not None for c, _ in found), "a widening blur only resizes: repriced incrementally"
    for changes, graph in found:
        if changes is not None:
            tasks, resized = changes
            assert tasks and resized
            assert all(graph.passes[i].name.endswith(":widening") or ":widening:" in graph.passes[i].name
                       or graph.passes[i].name == "composite:frame" for i in tasks)
    key = frame_key(frames[-1])
    assert memo.basis.changes(key) == (frozenset(), frozenset()), "the frame it was made of: nothing changed"
    # Another page (a card more): another task graph, scheduled from nothing.
    state, facts = FrameState(), ExecutorFacts(retained=EVERY_TEXTURE)
    other = build_frame_graph(turning(13), FrameRequest(t=3 / 60, filter_backend="gl"), Limits(), ImageStore(), state, facts)
    assert memo.basis.changes(frame_key(other)) is None
    basis = memo.basis
    assert basis_of(key, basis.fd, basis.ranks, basis.devices).changes(key) == (frozenset(), frozenset())


def test_rescheduled_frames_stay_near_heft_and_equal_a_fresh_rewrite():
    """Each restyled frame through one renderer's memo: valid, its predicted makespan
    within 6% of the same frame scheduled from nothing by HEFT (an empty memo; measured
    at most 5.1% on the benchmark's frames), identical to it where every pass is on the
    same device; the same whether last frame's rewrite was reused or made again (a
    second memo that forgets it each frame); and, after HEFT_EVERY repaired frames, one
    placed whole by HEFT again."""
    frames = _restyled_frames(8)
    cost_model = model(cl_factor=0.3, transfer_ms=0.01)
    memo, forgetful = ScheduleMemo(), ScheduleMemo()
    incremental = reused = 0
    for graph in frames:
        incremental += memo.basis is not None and memo.basis.changes(frame_key(graph)) is not None
        if forgetful.basis is not None:
            forgetful.basis = replace(forgetful.basis, reuse=None)
        placed = scheduled(graph, cost_model, (), memo)
        again = scheduled(graph, cost_model, (), forgetful)
        fresh = scheduled(graph, cost_model, (), None)
        placed.validate()
        assert (placed.passes, placed.decisions, placed.schedule, placed.offloads) == \
            (again.passes, again.decisions, again.schedule, again.offloads), "a reused rewrite is the one made anew"
        assert placed.schedule.makespan_ms <= fresh.schedule.makespan_ms * 1.06
        if [s.device for s in placed.schedule.slots] == [s.device for s in fresh.schedule.slots]:
            assert placed.schedule == fresh.schedule
        reused += memo.basis.reuse is not None and memo.basis.repairs > 0
    assert incremental >= len(frames) // 2, "most frames were repriced, not scheduled from nothing"
    assert reused >= 1, "and some reused last frame's rewrite"
    memo.basis = replace(memo.basis, repairs=HEFT_EVERY)
    assert memo.basis.changes(frame_key(frames[-1])) is None, "placed whole by HEFT again"
