"""List scheduling of a task DAG on heterogeneous devices with transfer costs: HEFT, and
the baselines it is compared with.

HEFT (Topcuoglu, Hariri and Wu, IEEE TPDS 2002): every task gets an upward rank,
``rank(i) = mean cost(i) + max over successors j of (mean transfer(i, j) + rank(j))``
(means over the devices that can run it, and over ordered pairs of distinct devices for a
transfer); tasks are taken in decreasing rank, and each goes to the device on which it
finishes earliest, ``EFT = start + cost``, where the start is the earliest idle gap on the
device, at or after its inputs are ready there (each input's finish, plus the copy when it
was produced on another device). This implementation is **insertion-based**, as the
paper's: a task may fill an idle gap left between tasks placed earlier, not only go after
the device's last one. Transfers are delays on edges, as in the paper: a copy does not
occupy a device (the links are contention-free).

The baselines run the same earliest-finish rule without the rank and without insertion:
``greedy`` takes the tasks in their given (topological) order and gives each the device
that finishes it first; ``fixed`` evaluates a given assignment (all on GL, all filter work
on one OpenCL device) in that order. HEFT is a heuristic: it is not guaranteed to beat the
greedy order or every fixed assignment on every DAG; its schedules are always valid
(``check``).

Plain numbers in, plain numbers out: tasks and devices are indexes; what they are is the
caller's (graph.frame_schedule). A task that cannot run on a device costs ``math.inf``
there.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

__all__ = ["Edge", "Placed", "TaskDAG", "check", "fixed", "greedy", "heft", "repaired", "updated_ranks", "upward_ranks"]

_EPS = 1e-9  # times within this are the same instant (blocks that touch are merged)


@dataclass(frozen=True)
class Edge:
    """``source`` must finish before ``target`` starts. ``copy_ms[a][b]`` is the time of
    moving its data from device a to device b (0 on the diagonal); ``None``: an order edge
    that carries no data (a pass that writes a texture after another read it)."""

    source: int
    target: int
    copy_ms: tuple[tuple[float, ...], ...] | None = None

    def delay(self, a: int, b: int) -> float:
        return 0.0 if a == b or self.copy_ms is None else self.copy_ms[a][b]


@dataclass(frozen=True)
class TaskDAG:
    """Tasks 0..n-1 in a topological order (every edge runs from a lower index to a
    higher one), ``cost[i][d]`` the milliseconds of task i on device d (``math.inf``:
    it cannot run there), and the edges."""

    devices: int
    cost: tuple[tuple[float, ...], ...]
    edges: tuple[Edge, ...]

    def __post_init__(self) -> None:
        preds: list[list[Edge]] = [[] for _ in self.cost]
        succs: list[list[Edge]] = [[] for _ in self.cost]
        for e in self.edges:
            if not 0 <= e.source < e.target < len(self.cost):
                raise ValueError(f"edge {e.source} -> {e.target} does not run forward between tasks 0..{len(self.cost) - 1}")
            preds[e.target].append(e)
            succs[e.source].append(e)
        # Tasks of one footprint share their row (graph.frame_schedule prices each once):
        # each distinct row is checked, and its usable devices found, once.
        usable: list[tuple[int, ...]] = []
        seen: dict[int, tuple[int, ...]] = {}  # id(row) -> its usable devices (rows live in self.cost)
        for i, row in enumerate(self.cost):
            u = seen.get(id(row))
            if u is None:
                u = tuple(d for d, c in enumerate(row) if math.isfinite(c))
                if len(row) != self.devices or not u:
                    raise ValueError(f"task {i} has {len(row)} costs for {self.devices} devices, or none finite")
                seen[id(row)] = u
            usable.append(u)
        object.__setattr__(self, "preds", tuple(tuple(p) for p in preds))
        object.__setattr__(self, "succs", tuple(tuple(s) for s in succs))
        # What the scheduling loop reads, flattened: per task its predecessors with their
        # copy matrices, and the devices that can run it.
        object.__setattr__(self, "pred_rows", tuple(tuple((e.source, e.copy_ms) for e in p) for p in preds))
        object.__setattr__(self, "usable", tuple(usable))

    def __len__(self) -> int:
        return len(self.cost)

    def repriced(self, rows: Mapping[int, tuple[float, ...]], copies: Mapping[int, tuple[tuple[float, ...], ...]]) -> "TaskDAG":
        """This DAG with the cost rows of the tasks in ``rows`` and the copy matrices of
        the edges in ``copies`` (by index in ``edges``) replaced: equal to the TaskDAG
        built from the new costs and edges, its lookups patched where they changed
        instead of built again (a frame whose passes are last frame's but for a few
        prices: graph.frame_schedule.repriced_dag)."""
        cost, edges = list(self.cost), list(self.edges)
        preds, succs, pred_rows, usable = list(self.preds), list(self.succs), list(self.pred_rows), list(self.usable)
        for i, row in rows.items():
            u = tuple(d for d, c in enumerate(row) if math.isfinite(c))
            if len(row) != self.devices or not u:
                raise ValueError(f"task {i} has {len(row)} costs for {self.devices} devices, or none finite")
            cost[i], usable[i] = row, u
        targets = set()
        for k, m in copies.items():
            old = edges[k]
            if old.copy_ms is None:
                raise ValueError(f"edge {k} ({old.source} -> {old.target}) carries no data to price")
            new = edges[k] = Edge(old.source, old.target, m)
            preds[old.target] = tuple(new if e is old else e for e in preds[old.target])
            succs[old.source] = tuple(new if e is old else e for e in succs[old.source])
            targets.add(old.target)
        for t in targets:
            pred_rows[t] = tuple((e.source, e.copy_ms) for e in preds[t])
        dag = object.__new__(TaskDAG)
        for name, value in (("devices", self.devices), ("cost", tuple(cost)), ("edges", tuple(edges)),
                            ("preds", tuple(preds)), ("succs", tuple(succs)), ("pred_rows", tuple(pred_rows)),
                            ("usable", tuple(usable))):
            object.__setattr__(dag, name, value)
        return dag


@dataclass(frozen=True)
class Placed:
    """A schedule of a TaskDAG: per task its device, start and finish (ms from 0), and
    how it was made. ``eft[i][d]``, where recorded (HEFT and greedy), is the finish task i
    would have had on device d when it was placed (``math.inf``: it cannot run there):
    the alternatives its reason compares. ``order`` is the order tasks were placed in."""

    device: tuple[int, ...]
    start: tuple[float, ...]
    finish: tuple[float, ...]
    order: tuple[int, ...]
    # Where recorded, flat by task then device (``eft_at``, ``ready_at``): one list of
    # floats per schedule, not a tuple per task (floats are no work for the collector).
    efts: list[float] = field(default_factory=list, repr=False)
    readies: list[float] = field(default_factory=list, repr=False)  # when its inputs were there, per device
    devices: int = 0

    @property
    def makespan(self) -> float:
        return max(self.finish, default=0.0)

    def eft_at(self, i: int) -> tuple[float, ...]:
        """Task i's finish on each device when it was placed (``eft[i]``)."""
        nd = self.devices
        return tuple(self.efts[i * nd:(i + 1) * nd])

    def ready_at(self, i: int) -> tuple[float, ...]:
        nd = self.devices
        return tuple(self.readies[i * nd:(i + 1) * nd])

    @property
    def eft(self) -> tuple[tuple[float, ...], ...]:
        return tuple(self.eft_at(i) for i in range(len(self.device))) if self.efts else ()

    @property
    def ready(self) -> tuple[tuple[float, ...], ...]:
        return tuple(self.ready_at(i) for i in range(len(self.device))) if self.readies else ()


def _mean(values: Sequence[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else 0.0


class _Ranker:
    """The upward rank of one task from its successors' (module docstring), with the
    means of copy matrices and cost rows kept by identity (edges of one texture size
    share a matrix, tasks of one footprint a row): ``upward_ranks`` and
    ``updated_ranks`` compute each task's rank by this one rule, so both give the same
    numbers."""

    __slots__ = ("dag", "pairs", "means", "row_means")

    def __init__(self, dag: TaskDAG) -> None:
        d = dag.devices
        self.dag = dag
        self.pairs = [(a, b) for a in range(d) for b in range(d) if a != b]
        self.means: dict[int, float] = {}
        self.row_means: dict[int, float] = {}

    def rank(self, i: int, rank: Sequence[float]) -> float:
        pairs, means = self.pairs, self.means
        tail = 0.0
        for e in self.dag.succs[i]:
            m = e.copy_ms
            if m is None or not pairs:
                comm = 0.0
            else:
                comm = means.get(id(m))
                if comm is None:
                    comm = means[id(m)] = _mean([m[a][b] for a, b in pairs])
            t = comm + rank[e.target]
            if t > tail:
                tail = t
        row = self.dag.cost[i]
        mean = self.row_means.get(id(row))
        if mean is None:
            mean = self.row_means[id(row)] = _mean(row)
        return mean + tail


def upward_ranks(dag: TaskDAG) -> tuple[float, ...]:
    """Each task's upward rank over mean costs (see the module docstring)."""
    rank = [0.0] * len(dag)
    ranker = _Ranker(dag)
    for i in range(len(dag) - 1, -1, -1):
        rank[i] = ranker.rank(i, rank)
    return tuple(rank)


def updated_ranks(dag: TaskDAG, old: Sequence[float], dirty: Iterable[int]) -> tuple[float, ...]:
    """``upward_ranks(dag)``, given ``old``: the ranks of a DAG with the same tasks and
    edges that differed only in the cost rows of the tasks ``dirty`` and the copy
    matrices of edges leaving them (TaskDAG.repriced). A rank depends only on its task's
    row and its successors' ranks and copies, so only the dirty tasks and, where a rank
    changed, its predecessors are computed again: highest index first (every edge runs
    forward), each by the same rule as ``upward_ranks``, so the result is the same."""
    rank = list(old)
    ranker = _Ranker(dag)
    heap = [-i for i in set(dirty)]
    queued = set(heap)
    heapq.heapify(heap)
    preds = dag.preds
    while heap:
        i = -heapq.heappop(heap)
        r = ranker.rank(i, rank)
        if r != rank[i]:
            rank[i] = r
            for e in preds[i]:
                if -e.source not in queued:
                    queued.add(-e.source)
                    heapq.heappush(heap, -e.source)
    return tuple(rank)


class _Timeline:
    """One device's busy time as merged blocks [start, end), sorted: an insertion search
    scans blocks, not tasks, so a device packed with many tasks costs a few steps."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.ends: list[float] = []

    def earliest(self, ready: float, dur: float) -> float:
        """The earliest start at or after ``ready`` of an idle gap ``dur`` long."""
        starts, ends = self.starts, self.ends
        k = bisect_right(ends, ready + _EPS)  # the first block that ends after ready
        t = ready
        for j in range(k, len(starts)):
            if starts[j] - t >= dur - _EPS:
                return t
            t = max(t, ends[j])
        return t

    def last_end(self) -> float:
        return self.ends[-1] if self.ends else 0.0

    def occupy(self, start: float, end: float) -> None:
        if end - start <= _EPS:
            return  # a task of no cost takes no time
        starts, ends = self.starts, self.ends
        k = bisect_right(starts, start)
        merge_left = k > 0 and ends[k - 1] >= start - _EPS
        merge_right = k < len(starts) and starts[k] <= end + _EPS
        if merge_left and merge_right:
            ends[k - 1] = ends[k]
            del starts[k], ends[k]
        elif merge_left:
            ends[k - 1] = max(ends[k - 1], end)
        elif merge_right:
            starts[k] = start
        else:
            starts.insert(k, start)
            ends.insert(k, end)


def _run(dag: TaskDAG, order: Sequence[int], choose, insertion: bool, record: bool = False,
         keep: Sequence[int] | None = None) -> Placed:
    """Place the tasks in ``order`` (each after its predecessors), on the device
    ``choose(i)`` picks (None: the earliest finish, ties to the lower device); with
    ``record``, keep each task's finish and input-ready time on every device (its
    reason). ``keep[i]`` >= 0: task i goes on that device, its finish on every device
    still recorded (``repaired``). Written for speed: it runs four times per frame (HEFT
    and the baselines)."""
    n, nd = len(dag), dag.devices
    device = [0] * n
    start = [0.0] * n
    finish = [0.0] * n
    efts: list[float] = [math.inf] * (n * nd) if record else []
    readies: list[float] = [math.inf] * (n * nd) if record else []
    lines = [_Timeline() for _ in range(nd)]
    inf = math.inf
    usable = dag.usable
    preds = dag.pred_rows
    cost = dag.cost
    for i in order:
        allowed = usable[i] if choose is None else (choose(i),)
        best_d, best_f, best_s = -1, inf, inf
        at = i * nd
        for d in allowed:
            c = cost[i][d]
            ready = 0.0
            for j, cm in preds[i]:
                dj = device[j]
                t = finish[j] + cm[dj][d] if cm is not None and dj != d else finish[j]
                if t > ready:
                    ready = t
            line = lines[d]
            if insertion:
                s_ = line.earliest(ready, c)
            else:
                last = line.ends[-1] if line.ends else 0.0
                s_ = ready if ready > last else last
            f = s_ + c
            if record:
                efts[at + d], readies[at + d] = f, ready
            if f < best_f if keep is None or keep[i] < 0 else d == keep[i]:
                best_d, best_f, best_s = d, f, s_
        if best_d < 0 or not math.isfinite(cost[i][best_d]):
            raise ValueError(f"task {i} cannot run on device {allowed}")
        device[i], start[i], finish[i] = best_d, best_s, best_f
        lines[best_d].occupy(best_s, best_f)
    return Placed(tuple(device), tuple(start), tuple(finish), tuple(order), efts, readies, nd)


def heft(dag: TaskDAG, ranks: Sequence[float] | None = None) -> Placed:
    """HEFT, insertion-based (module docstring). Ties in rank go to the lower index,
    which keeps the order topological where a task costs nothing."""
    rank = upward_ranks(dag) if ranks is None else ranks
    return _run(dag, _by_rank(rank), None, insertion=True, record=True)


def _by_rank(rank: Sequence[float]) -> list[int]:
    """Task indexes by decreasing rank, ties to the lower index (a stable sort of the
    ascending indexes by the negated rank: no key tuple per task)."""
    negated = [-r for r in rank]
    return sorted(range(len(rank)), key=negated.__getitem__)


def repaired(dag: TaskDAG, ranks: Sequence[float], devices: Sequence[int], replace: Iterable[int]) -> Placed:
    """HEFT with repair: the tasks in HEFT's order (``ranks``), each of ``replace`` on
    the device that finishes it first, every other task on the device it had in an
    earlier schedule (``devices``), all at the earliest start the devices' timelines
    allow (insertion, as ``heft``). A frame whose prices changed for a few tasks
    re-places those and what depends on them, instead of all: its placement stays
    last frame's elsewhere (HEFT itself may move many tasks for a small change). Valid
    as any schedule ``_run`` makes: each task starts after its inputs are on its
    device and in an idle gap of it (``check``); its makespan may exceed HEFT's
    (graph.frame_schedule.schedule_dag keeps the better of the two)."""
    keep = list(devices)
    for i in replace:
        keep[i] = -1
    for i, d in enumerate(keep):
        if d >= 0 and d not in dag.usable[i]:
            keep[i] = -1  # (it cannot run there any more: placed anew)
    return _run(dag, _by_rank(ranks), None, insertion=True, record=True, keep=keep)


def greedy(dag: TaskDAG) -> Placed:
    """The tasks in their given order, each on the device that finishes it first, after
    that device's last task (no rank, no insertion)."""
    return _run(dag, range(len(dag)), None, insertion=False, record=True)


def fixed(dag: TaskDAG, assignment: Sequence[int]) -> Placed:
    """The tasks in their given order, each on ``assignment[i]``, after that device's
    last task: the schedule of a placement made without looking at the devices' queues."""
    return _run(dag, range(len(dag)), assignment.__getitem__, insertion=False)


def check(dag: TaskDAG, placed: Placed) -> None:
    """Raise AssertionError unless ``placed`` is a valid schedule of ``dag``: every task
    on a device that can run it for its cost, after each predecessor's finish plus the
    copy between their devices, and no two tasks on one device at the same time."""
    n = len(dag)
    if not (len(placed.device) == len(placed.start) == len(placed.finish) == n):
        raise AssertionError("a schedule places every task once")
    for i in range(n):
        d = placed.device[i]
        c = dag.cost[i][d]
        if not math.isfinite(c) or abs(placed.finish[i] - placed.start[i] - c) > 1e-6 or placed.start[i] < -_EPS:
            raise AssertionError(f"task {i} on device {d}: {placed.start[i]}..{placed.finish[i]} for a cost of {c}")
    for e in dag.edges:
        a, b = placed.device[e.source], placed.device[e.target]
        if placed.start[e.target] < placed.finish[e.source] + e.delay(a, b) - 1e-6:
            raise AssertionError(f"task {e.target} starts at {placed.start[e.target]} before its input from "
                                 f"task {e.source} is there ({placed.finish[e.source]} + {e.delay(a, b)})")
    for d in range(dag.devices):
        spans = sorted((placed.start[i], placed.finish[i], i) for i in range(n)
                       if placed.device[i] == d and placed.finish[i] - placed.start[i] > _EPS)
        for (s0, f0, i0), (s1, f1, i1) in zip(spans, spans[1:]):
            if s1 < f0 - 1e-6:
                raise AssertionError(f"tasks {i0} and {i1} overlap on device {d}: {s0}..{f0} and {s1}..{f1}")
