"""The frame-wide schedule: every pass of a frame graph placed on a device by HEFT, with
transfer costs, as plain data (``Schedule``), beside the makespans of the placements it
is compared with.

The task graph is the FrameGraph's passes and their texture dependencies: a pass depends
on the last pass before it that wrote a texture it reads (a data edge: the texture's bytes
are copied when the two run on different devices), and on the passes that read or wrote
a texture before it writes that texture again (order edges: no data). Transfer passes
already in the graph (a forced ``opencl`` placement) are not tasks: what they copy is
the edge they stand on. Filter passes may run on GL or on any OpenCL device the cost
model prices them on; every other pass (raster, composite, backdrop copy, shadows) is
pinned to GL. Costs come from ``lamina.frame_costs`` (measured history, a profile, or a
hand-written model); the list scheduling is ``graph.heft``'s.

Pure: a function of (graph, costs); it runs nothing. ``graph.placed`` rewrites a graph so
its filter passes run where a schedule says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..filters.plan import CostKind, PassKind
from ..frame_costs import FrameCosts, PinnedKind, footprint, source_size
from ..framegraph import FrameGraph, TextureDesc
from ..passes import BackdropPass, CompositePass, FilterPass, Pass, RasterPass, ShadowPass, TaskKind, TransferPass
from .heft import Edge, Placed, TaskDAG, fixed, greedy, heft, repaired, upward_ranks

__all__ = ["Choice", "Copy", "FrameDAG", "FrameKey", "METHOD", "Schedule", "ScheduleTable", "Slot", "frame_dag", "frame_key", "repriced_dag",
           "schedule_dag", "schedule_frame"]

METHOD = "HEFT (insertion-based; upward rank over mean costs; transfers as edge delays)"
PINNED_WHY = "pinned: only GL runs it"
_FILTER_KIND = str(TaskKind.FILTER)


class Choice(NamedTuple):
    """How HEFT chose a filter pass's device: its finish on each device when it was
    placed (``math.inf``: it cannot run there) and when its inputs were there on the
    device it got. Kept as numbers: the sentence (``Slot.why``) is made when a report
    asks for it, not for every frame planned."""

    efts: tuple[float, ...]
    ready_ms: float


@dataclass(frozen=True)
class Slot:
    """One pass in the schedule: its number in the graph (1-based, as describe() numbers
    passes), where it runs and when (predicted ms from the frame's start), its predicted
    time on each device (``row``, in the order of ``names``; ``math.inf`` where it cannot
    run), its upward rank, and why it went there (``reason``: a sentence, or HEFT's
    ``Choice``, which ``why`` says in words)."""

    number: int
    name: str
    kind: str
    layer: str
    device: str
    start_ms: float
    finish_ms: float
    pinned: bool
    row: tuple[float, ...]
    rank: float
    names: tuple[str, ...]
    reason: "str | Choice"

    @property
    def costs(self) -> tuple[tuple[str, float], ...]:
        """Its predicted time on each device that can run it, by name."""
        return tuple((n, c) for n, c in zip(self.names, self.row) if math.isfinite(c))

    @cached_property
    def why(self) -> str:
        r = self.reason
        return r if isinstance(r, str) else _why(self, r)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "pass": self.name, "kind": self.kind, "layer": self.layer, "device": self.device,
                "start_ms": self.start_ms, "finish_ms": self.finish_ms, "pinned": self.pinned,
                "costs_ms": dict(self.costs), "rank": self.rank, "why": self.why}


@dataclass(frozen=True)
class Copy:
    """A texture moved between devices' memories in the schedule (an edge's delay)."""

    texture: str
    source: str
    target: str
    start_ms: float
    finish_ms: float
    bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {"texture": self.texture, "from": self.source, "to": self.target, "start_ms": self.start_ms,
                "finish_ms": self.finish_ms, "bytes": self.bytes}


class ScheduleTable:
    """A schedule's passes as columns, by task (the task graph ``fd``'s order): the
    device index, predicted start and finish of each, its upward rank, HEFT's finish on
    every device and its inputs' ready time (its reason), and its number (1-based: in
    the graph, or in issue order once graph.issue_order has ordered the passes). A
    frame's scheduling reads these columns (placement, offloads, issue order, the
    corrected report); a ``Slot`` per pass is made only when something asks for the
    slots (a report, describe, the simulator), each from its row here.

    ``device_array`` is the device column as a numpy array (vector checks: does any task
    leave GL, is the placement last frame's)."""

    __slots__ = ("fd", "names", "device", "start", "finish", "placed", "ranks", "numbers", "device_array", "_index")

    def __init__(self, fd: "FrameDAG", names: tuple[str, ...], placed: Placed, ranks: Sequence[float],
                 numbers: tuple[int, ...], device_array: np.ndarray | None = None) -> None:
        self.fd, self.names, self.placed = fd, names, placed
        self.device, self.start, self.finish = placed.device, placed.start, placed.finish
        self.ranks, self.numbers = ranks, numbers
        self.device_array = np.array(placed.device, dtype=np.int32) if device_array is None else device_array
        self._index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.device)

    @property
    def index(self) -> dict[str, int]:
        """Each task's index by its pass's name."""
        if self._index is None:
            self._index = {p.name: i for i, p in enumerate(self.fd.tasks)}
        return self._index

    def renumbered(self, numbers: tuple[int, ...]) -> "ScheduleTable":
        """These columns with the tasks numbered ``numbers`` (graph.issue_order)."""
        table = ScheduleTable(self.fd, self.names, self.placed, self.ranks, numbers, self.device_array)
        table._index = self._index
        return table

    def off_gl(self) -> bool:
        """Does any task run on a device other than the first (GL)?"""
        return bool(self.device_array.any())

    def starts_by_name(self) -> dict[str, float]:
        return dict(zip([p.name for p in self.fd.tasks], self.start))

    def slot(self, i: int) -> Slot:
        """Task i's Slot, made from its row."""
        p, d = self.fd.tasks[i], self.device[i]
        if type(p) is FilterPass:
            kind, layer, reason, pinned = _FILTER_KIND, p.layer_id, Choice(self.placed.eft_at(i), self.placed.readies[i * len(self.names) + d]), False
        else:
            kind, layer, reason, pinned = str(p.kind), getattr(p, "layer_id", ""), PINNED_WHY, True
        names = self.names
        return _slot((self.numbers[i], p.name, kind, layer, names[d], self.start[i], self.finish[i], pinned,
                      self.fd.dag.cost[i], self.ranks[i], names, reason))

    def slots(self) -> tuple[Slot, ...]:
        slot = self.slot
        return tuple([slot(i) for i in range(len(self.device))])


@dataclass(frozen=True, eq=False)
class Schedule:
    """A frame's passes placed on devices (``slots``, in the graph's order, made from
    ``table``, its columns, when first asked for), the copies between devices it
    implies, its predicted makespan, and the makespans of the placements it is
    compared with (``baselines``: "greedy", "all GL", "all OpenCL" — the best single
    OpenCL device — and "all on <device>" for each where there are several).
    ``serial_ms`` is the predicted frame when every pass and copy runs one after
    another: what devices that share the CPU's cores get (graph.placed). Two schedules
    are equal when everything they say is (their slots, copies and times)."""

    devices: tuple[str, ...]
    table: ScheduleTable = field(repr=False)
    copies: tuple[Copy, ...]
    makespan_ms: float
    serial_ms: float
    costs: str
    method: str = METHOD
    applied: bool = True  # False: proposed only, the frame ran every pass on GL (graph.placed.scheduled)
    # The task graph and device names the baselines are scheduled on, when first asked
    # for (a report, the simulator): a rendered frame pays for HEFT alone.
    baseline_inputs: tuple[Any, tuple[str, ...]] | None = field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Schedule):
            return NotImplemented
        return (self.devices, self.copies, self.makespan_ms, self.serial_ms, self.costs, self.method, self.applied,
                self.slots) == (other.devices, other.copies, other.makespan_ms, other.serial_ms, other.costs,
                                other.method, other.applied, other.slots)

    __hash__ = None  # type: ignore[assignment]

    @cached_property
    def slots(self) -> tuple[Slot, ...]:
        return self.table.slots()

    def renumbered(self, numbers: tuple[int, ...]) -> "Schedule":
        """This schedule with its passes numbered ``numbers`` (by task: graph.issue_order)."""
        return replace(self, table=self.table.renumbered(numbers))

    def with_copies(self, copies: tuple[Copy, ...]) -> "Schedule":
        """This schedule with ``copies`` (their textures named anew), sharing its slots
        where they were made."""
        new = replace(self, copies=copies)
        made = self.__dict__.get("slots")
        if made is not None:
            new.__dict__["slots"] = made
        return new

    def prices_of(self, name: str) -> tuple[tuple[str, ...], tuple[float, ...]] | None:
        """The device names and the pass ``name``'s predicted ms on each (its slot's
        ``names`` and ``row``), or None: read from the columns, no slot made."""
        i = self.table.index.get(name)
        return None if i is None else (self.table.names, self.table.fd.dag.cost[i])

    def find(self, name: str) -> Slot | None:
        """The slot of the pass ``name``, or None: made alone from its row when the slots
        were not asked for."""
        i = self.table.index.get(name)
        if i is None:
            return None
        made = self.__dict__.get("slots")
        return made[i] if made is not None else self.table.slot(i)

    @cached_property
    def baselines(self) -> tuple[tuple[str, float], ...]:
        return () if self.baseline_inputs is None else _baselines(*self.baseline_inputs)

    @property
    def gl_serial_ms(self) -> float:
        """The predicted frame with every pass on GL (the first device), one after another."""
        return sum(c for c in (row[0] for row in self.table.fd.dag.cost) if c < math.inf)  # (one GL does not price: 0)

    def slot(self, name: str) -> Slot:
        found = self.find(name)
        if found is None:
            raise KeyError(name)
        return found

    def baseline(self, name: str) -> float:
        return dict(self.baselines)[name]

    def device_of(self, name: str) -> str:
        return self.slot(name).device

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "costs": self.costs, "devices": list(self.devices),
                "makespan_ms": self.makespan_ms, "serial_ms": self.serial_ms, "baselines_ms": dict(self.baselines),
                "slots": [s.to_dict() for s in self.slots], "copies": [c.to_dict() for c in self.copies]}

    def summary(self) -> str:
        others = ", ".join(f"{k} {v:.2f} ms" for k, v in self.baselines)
        return f"predicted makespan {self.makespan_ms:.2f} ms ({others})"

    def describe_lines(self) -> list[str]:
        """The schedule as describe() shows it: the makespans, then each pass with its
        device, predicted start and finish, and (filter passes) why it went there."""
        proposed = "" if self.applied else (" — proposed, not run: its devices share the CPU, and one pass after "
                                            "another it gains less than auto needs over all on GL (the decisions "
                                            "say how much), so every pass ran on GL")
        lines = [f"Frame-wide schedule ({self.method}; costs: {self.costs}){proposed}:",
                 f"  {self.summary()}",
                 f"  predicted with nothing overlapping (devices sharing the CPU): {self.serial_ms:.2f} ms"]
        width = max((len(d) for d in self.devices), default=2)
        for s in self.slots:
            why = f"  {s.why}" if not s.pinned else ""
            lines.append(f"  {s.number:>3}. {s.kind:<9} {s.layer[:16]:<16} {s.device:<{width}} "
                         f"{s.start_ms:8.2f} -> {s.finish_ms:8.2f} ms{why}")
        for c in self.copies:
            lines.append(f"       copy      {c.texture[:40]} {c.source} -> {c.target} ({c.bytes / 1024:.0f} KB) "
                         f"{c.start_ms:8.2f} -> {c.finish_ms:8.2f} ms")
        return lines

    def gantt(self, width: int = 72) -> str:
        """A text Gantt chart: one row per device (and one for copies), time across."""
        span = self.makespan_ms or 1.0
        scale = width / span
        label = max([len(d) for d in self.devices] + [len("copies")])
        rows = []
        marks = "#=*+%@&$"
        for d in self.devices:
            row = [" "] * width
            for i, s in enumerate(x for x in self.slots if x.device == d):
                a = min(width - 1, int(s.start_ms * scale))
                b = max(a + 1, min(width, int(round(s.finish_ms * scale))))
                ch = "." if s.pinned else marks[i % len(marks)]
                for k in range(a, b):
                    row[k] = ch
            busy = sum(s.finish_ms - s.start_ms for s in self.slots if s.device == d)
            rows.append(f"{d:<{label}} |{''.join(row)}| {busy:7.2f} ms busy")
        if self.copies:
            row = [" "] * width
            for c in self.copies:
                a = min(width - 1, int(c.start_ms * scale))
                b = max(a + 1, min(width, int(round(c.finish_ms * scale))))
                for k in range(a, b):
                    row[k] = "~"
            rows.append(f"{'copies':<{label}} |{''.join(row)}|")
        axis = f"{'':<{label}} 0{'':>{width - 1}}{span:.2f} ms"
        key = f"{'':<{label}} ('.' a GL-only pass; '#', '=', ... filter passes; '~' a copy)"
        return "\n".join([*rows, axis, key])


# -- the task graph ------------------------------------------------------------------------

def _pinned(p: Pass) -> tuple[PinnedKind, float]:
    """The proxy kind and pixels of a pass only GL runs."""
    if isinstance(p, CompositePass):
        _, _, w, h = p.damage if p.damage is not None else (0, 0, p.target.width, p.target.height)
        return PinnedKind.COMPOSITE, float(w * h + sum(min(d.source.width * d.source.height, w * h) for d in p.draws))
    if isinstance(p, RasterPass):
        return PinnedKind.RASTER, float(p.pixels)
    if isinstance(p, ShadowPass):
        return PinnedKind.BOX_SHADOW, float(p.pixels)
    if isinstance(p, BackdropPass):
        return PinnedKind.BACKDROP, float(p.pixels)
    return PinnedKind.COMPOSITE, float(p.pixels)  # an upload or a read-back: a pass over its pixels


@dataclass(frozen=True)
class FrameDAG:
    """A frame graph as a task DAG: ``tasks[i]`` is the pass of task i (transfers are not
    tasks), ``numbers[i]`` its 1-based number in the graph, ``data[e]`` the texture an
    edge carries (None: an order edge)."""

    dag: TaskDAG
    tasks: tuple[Pass, ...]
    numbers: tuple[int, ...]
    data: tuple[Any, ...]


class FrameKey(NamedTuple):
    """A frame's key (``frame_key``) and the textures it names, by number: ``textures[k]``
    is the k-th texture the frame's passes name (first writes or reads it), ``index``
    the number of each texture name."""

    key: tuple
    textures: tuple[TextureDesc, ...]
    index: dict[str, int]


def frame_key(graph: FrameGraph) -> FrameKey:
    """Everything a frame's task graph, schedule and placement depend on but the prices'
    source: each pass's name, type, layer, what prices it (a filter pass's
    ``footprint``, a GL-only pass's proxy pixels), and the textures it writes and reads,
    then the frame's texture. A texture is said by its number in the frame and, where
    first named, its description but its name: a kept filter result gets a new name
    each time it is made again, and the same task graph with it. Two graphs with one
    key, priced by one cost model, are scheduled and placed alike but for those names
    (graph.schedule_memo reuses the last frame's). Cheaper than pricing: no prediction,
    no edges, no sort; a step's parameters are not in it (an animated hue-rotate keeps
    its footprint)."""
    index: dict[str, int] = {}
    textures: list[TextureDesc] = []
    parts: list = []
    add = parts.append
    number = index.get
    color, pixel_taps = PassKind.COLOR, CostKind.PIXEL_TAPS

    for p in graph.passes:
        if type(p) is FilterPass:
            t = p.target
            step = p.step
            w, h = (t.width, t.height) if step.scale <= 1 else source_size(step, t.width, t.height)
            kind = step.pass_kind  # (the footprint, as frame_costs.footprint writes it: a call less per pass)
            add((p.name, p.layer_id, p.executor, p.device, (
                kind, len(step.steps) if kind is color else 1, step.scale,
                step.taps if step.cost is pixel_taps else 1, w, h)))
            named = (*p.inputs, t)
        elif isinstance(p, TransferPass):
            add((p.name, p.layer_id))
            named = (p.source, p.target)
        else:
            add((p.name, type(p), getattr(p, "layer_id", ""), _pinned(p)))
            named = (*p.reads(), p.target)
        for t in named:  # what it reads, then what it writes: each by number, or described where new
            k = number(t.name)
            if k is None:
                index[t.name] = len(textures)
                textures.append(t)
                add((t.width, t.height, t.format, t.role, t.retained, t.location, t.device, t.straight))  # (as _described)
            else:
                add(k)
    t = graph.output
    if t.name in index:
        add(index[t.name])
    else:
        index[t.name] = len(textures)
        textures.append(t)
        add(_described(t))
    return FrameKey(tuple(parts), tuple(textures), index)


def _described(t: TextureDesc) -> tuple:
    """A texture's description less its name (every other TextureDesc field: a test
    checks that a change of any of them changes the key)."""
    return (t.width, t.height, t.format, t.role, t.retained, t.location, t.device, t.straight)


def frame_dag(graph: FrameGraph, costs: FrameCosts, prices: dict | None = None) -> FrameDAG:
    """The task graph of ``graph`` priced by ``costs`` (module docstring). ``prices``
    memoises ``costs``' rows and copy matrices by footprint (``frame_costs.footprint``):
    the same dict for frames priced by the same ``costs`` (graph.schedule_memo keeps
    one), a new one otherwise (a frame's passes share few footprints)."""
    nd = len(costs.devices)
    memo: dict = {} if prices is None else prices
    infs = (math.inf,) * (nd - 1)
    alias: dict[str, Any] = {}  # a transfer's copy -> the texture it copies
    writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    tasks: list[Pass] = []
    numbers: list[int] = []
    rows: list[tuple[float, ...]] = []
    edges: dict[tuple[int, int], Any] = {}  # (source, target) -> texture (None: order only)
    for number, p in enumerate(graph.passes, 1):
        if isinstance(p, TransferPass):
            alias[p.target.name] = alias.get(p.source.name, p.source)
            continue
        i = len(tasks)
        for t in p.reads():
            if alias:
                t = alias.get(t.name, t)
            name = t.name
            j = writer.get(name)
            if j is not None and j != i:
                edges[j, i] = t
            seen = readers.get(name)
            if seen is None:
                readers[name] = [i]
            else:
                seen.append(i)
        name = p.target.name
        for j in readers.pop(name, ()):
            if j != i:
                edges.setdefault((j, i), None)
        j = writer.get(name)
        if j is not None and j != i:
            edges.setdefault((j, i), None)
        writer[name] = i
        rows.append(_row(p, costs, memo, infs))
        tasks.append(p)
        numbers.append(number)
    edge_list, data = [], []
    for (j, i), t in sorted(edges.items()):
        if t is None:
            edge_list.append(Edge(j, i))
        else:
            edge_list.append(Edge(j, i, _copies(t, costs, memo)))
        data.append(t)
    return FrameDAG(TaskDAG(nd, tuple(rows), tuple(edge_list)), tuple(tasks), tuple(numbers), tuple(data))


def _row(p: Pass, costs: FrameCosts, memo: dict, infs: tuple[float, ...]) -> tuple[float, ...]:
    """A pass's predicted ms on each device (``math.inf`` where it cannot run), one row
    per footprint in ``memo``."""
    if isinstance(p, FilterPass):
        step = p.step
        w, h = source_size(step, p.target.width, p.target.height)
        key = footprint(step, w, h)
        row = memo.get(key)
        if row is None:
            row = memo[key] = tuple(costs.filter_ms(d, step, w, h) for d in range(len(costs.devices)))
        return row
    key = _pinned(p)
    row = memo.get(key)
    if row is None:
        row = memo[key] = (costs.pinned_ms(*key),) + infs
    return row


def _copies(t: TextureDesc, costs: FrameCosts, memo: dict) -> tuple[tuple[float, ...], ...]:
    """The copy matrix of a texture between every two devices, one per size in ``memo``
    (edges of one size share it)."""
    nbytes, nd = t.bytes, len(costs.devices)
    key = ("copy", nbytes)
    m = memo.get(key)
    if m is None:
        m = memo[key] = tuple(tuple(costs.copy_ms(a, b, nbytes) if a != b else 0.0 for b in range(nd))
                              for a in range(nd))
    return m


def repriced_dag(fd: FrameDAG, graph: FrameGraph, costs: FrameCosts, prices: dict, tasks: frozenset[int],
                 carried: Sequence[int], textures: Sequence[TextureDesc],
                 resized: frozenset[int]) -> tuple[FrameDAG, frozenset[int]]:
    """The task graph of ``graph``, whose passes read and write the same textures as
    those of ``fd``'s graph (last frame's, by the same ``costs``) with other footprints
    for the passes ``tasks`` and other sizes for the textures ``resized`` (numbers):
    ``fd`` with those rows and the copy matrices of the edges carrying those textures
    priced again, and this frame's passes and textures. ``carried[e]``: the number of
    the texture edge e carries (-1: an order edge). Also the tasks whose row or outgoing
    copies changed (what ``heft.updated_ranks`` starts from). ``graph`` has no
    transfers (a frame planned on GL): its passes are the tasks."""
    memo, infs, passes = prices, (math.inf,) * (len(costs.devices) - 1), graph.passes
    rows = {i: _row(passes[i], costs, memo, infs) for i in tasks}
    rows = {i: r for i, r in rows.items() if r is not fd.dag.cost[i]}
    edges = fd.dag.edges
    copies = {}
    if resized:
        for e, k in enumerate(carried):
            if k in resized:
                m = _copies(textures[k], costs, memo)
                if m is not edges[e].copy_ms:
                    copies[e] = m
    dag = fd.dag.repriced(rows, copies) if rows or copies else fd.dag
    data = tuple([textures[k] if k >= 0 else None for k in carried])
    dirty = frozenset(rows) | frozenset(edges[e].source for e in copies)
    return FrameDAG(dag, tuple(passes), fd.numbers, data), dirty


_SLOT_FIELDS = tuple(f.name for f in fields(Slot))


def _slot(values: tuple) -> Slot:
    """``Slot(*values)`` for values made here, of the fields' types: a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__`` (three times the cost, for
    a slot per pass per scheduled frame)."""
    slot = object.__new__(Slot)
    slot.__dict__.update(zip(_SLOT_FIELDS, values))
    return slot


def _why(slot: Slot, choice: Choice) -> str:
    """HEFT's choice for ``slot`` in words: its rank, its finish where it went and where
    its inputs were ready, against its finish on every other device that prices it."""
    names, row, eft = slot.names, slot.row, choice.efts
    d = names.index(slot.device)
    ready = choice.ready_ms
    waited = slot.start_ms - ready
    there = f", inputs there at {ready:.2f} ms" + (f", device busy {waited:.2f} ms more" if waited > 1e-6 else "")
    others = "; ".join(f"{names[k]} at {eft[k]:.2f} ms (runs {row[k]:.2f})" for k in range(len(names))
                       if k != d and math.isfinite(eft[k]))
    vs = f" vs {others}" if others else " (no other device prices it)"
    return f"HEFT rank {slot.rank:.2f}: earliest finish on {names[d]} at {eft[d]:.2f} ms (runs {row[d]:.2f}{there}){vs}"


def schedule_frame(graph: FrameGraph, costs: FrameCosts, prices: dict | None = None) -> Schedule:
    """Place ``graph``'s passes on ``costs``' devices by HEFT; also the makespans of the
    greedy earliest-finish order, all on GL and all filter work on each OpenCL device
    (when first asked for). ``prices``: a memo of ``costs``' prices (``frame_dag``)."""
    fd = frame_dag(graph, costs, prices)
    return schedule_dag(fd, costs, upward_ranks(fd.dag))


def schedule_dag(fd: FrameDAG, costs: FrameCosts, ranks: Sequence[float],
                 repair: tuple[Sequence[int], frozenset[int]] | None = None) -> Schedule:
    """``schedule_frame`` of the task graph ``fd``, its upward ranks given (computed anew,
    or updated from last frame's: ``heft.updated_ranks``). ``repair``: an earlier
    schedule's device per task and the tasks to place anew: HEFT with repair
    (``heft.repaired``, graph.rescheduled says how far from HEFT it may be) instead of
    HEFT."""
    dag, names = fd.dag, tuple(costs.names)
    placed = heft(dag, ranks) if repair is None else repaired(dag, ranks, *repair)
    device, start, finish = placed.device, placed.start, placed.finish
    table = ScheduleTable(fd, names, placed, ranks, fd.numbers)
    copies: dict[tuple[str, int], Copy] = {}
    for e, t in zip(dag.edges, fd.data):
        if t is None:
            continue
        a, b = device[e.source], device[e.target]
        if a == b:
            continue
        start_ms = finish[e.source]
        c = Copy(t.name, names[a], names[b], start_ms, start_ms + e.copy_ms[a][b], t.bytes)
        if (t.name, b) not in copies or c.finish_ms < copies[t.name, b].finish_ms:
            copies[t.name, b] = c
    serial = sum([f - s for s, f in zip(start, finish)]) + sum(c.finish_ms - c.start_ms for c in copies.values())
    return Schedule(names, table, tuple(copies.values()), placed.makespan, serial, costs.label,
                    baseline_inputs=(dag, names))


def _baselines(dag: TaskDAG, names: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """The makespans HEFT's is compared with: the greedy earliest-finish order, all on
    GL, all filter work on the best OpenCL device (and on each, where there are several)."""
    n = len(dag)
    out: list[tuple[str, float]] = [("greedy", greedy(dag).makespan), ("all GL", fixed(dag, [0] * n).makespan)]
    per_cl = []
    for d in range(1, dag.devices):
        assign = [d if math.isfinite(dag.cost[i][d]) else 0 for i in range(n)]
        per_cl.append((f"all on {names[d]}", fixed(dag, assign).makespan))
    if per_cl:
        out.append(("all OpenCL", min(v for _, v in per_cl)))
        if len(per_cl) > 1:
            out.extend(per_cl)
    return tuple(out)
