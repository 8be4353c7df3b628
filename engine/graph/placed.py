"""Placing a frame by its frame-wide schedule (graph.frame_schedule): the planner emits
every filter pass on GL; ``scheduled`` moves each to the device the schedule chose and
adds the copies (TransferPass) between them.

A texture keeps its GL name; on OpenCL it is a buffer named ``<name>@cl`` (the rewrite's
copy), so what GL-only passes read (composites draw a filter's result, a kept result
keeps its name between frames) is untouched: a result made on OpenCL is copied back into
the texture they read, once, just before the first GL pass that needs it. Each texture is
copied at most once to each side. The passes stay in the graph's order (a topological
order); graph.issue_order then orders them as the schedule has the devices begin them
(``scheduled`` returns its graph so ordered).

A frame may run on several OpenCL devices (``LAMINA_OPENCL_DEVICES``): each pass and
texture then names its device's "P:D" index (``FilterPass.device``,
``TextureDesc.device``; a copy is ``<name>@cl<P:D>``), and a texture made on one device
and read on another is copied between them through the host (one TransferPass). Without
indices (a cost model of GL and one OpenCL device) the OpenCL work is the renderer's own
device's, named ``<name>@cl`` as always.
``place_by`` makes the same rewrite for a placement forced before the frame runs
(lamina.forced_placement: all on OpenCL, alternating, seeded random...), without a
schedule: tests render a frame under several and compare the pixels.

The rewrite is made as a ``Placement`` (the copies to insert before each pass, each
from one place to another, and the filter passes that move to a device, textures said
by number), then applied (compiled once, ``_Program``: numbered buffer slots and copies,
so a frame applying it makes each once). A frame whose task graph is last frame's
(graph.frame_schedule.frame_key, graph.schedule_memo) under the same prices applies
last frame's Placement to its own passes and texture names instead of scheduling and
placing again, reusing the buffers' descriptions and copies it made for the same
texture; its run-time offloads (graph.offload) and its issue order are last frame's
too, said by position and texture number, and named with this frame's names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Mapping, NamedTuple, Sequence

from ..devices import Device, DeviceType
from ..errors import LaminaInputError
from ..frame_costs import CorrectedModel, FrameCosts, device_name
from ..filter_costs import FilterCostModel
from ..forced_placement import ForcedPlacement
from ..framegraph import Decision, Executor, FilterPass, FrameGraph, TextureDesc, TransferPass
from ..passes import Reason
from ..textures import GL_PLACE, Place
from .frame_schedule import FrameKey, Schedule, frame_dag, frame_key, repriced_dag, schedule_dag
from .heft import updated_ranks, upward_ranks
from .issue_order import Dependencies, dependencies, issue_order
from .offload import Offload, offloads
from .rescheduled import Basis, basis_of
from .schedule_memo import ScheduleMemo

__all__ = ["Placement", "SHARED_CPU_MARGIN", "SharedCpuMargin", "overlaps", "place_by", "place_frame", "placement", "planned_on", "scheduled"]


def _edited(value: Any, changes: Mapping[str, Any]) -> Any:
    """A frozen pass, copy or texture description with ``changes`` made, its other fields
    shared: ``dataclasses.replace`` runs ``__init__`` and ``__post_init__`` over every
    field again (four times the cost, for a rewrite made per pass per frame), where the
    fields changed are of the types they had and the rest were checked when ``value``
    was made. (None of these types caches a property in its ``__dict__``.)"""
    if not hasattr(value, "__dict__"):  # (a slotted type: the general way)
        return replace(value, **changes)
    new = object.__new__(type(value))
    attrs = new.__dict__
    attrs.update(value.__dict__)
    attrs.update(changes)
    return new


def _on(t: TextureDesc, place: Place) -> TextureDesc:
    """``t`` as it lives on ``place``: itself on GL; on an OpenCL device, a buffer named
    ``<name>@cl`` (the renderer's own device) or ``<name>@cl<P:D>``."""
    if place.executor is Executor.GL:
        return t
    return _edited(t, {"name": f"{t.name}{place.suffix}", "location": Executor.OPENCL, "device": place.device,
                       "retained": False})


_CROSSES = Reason("frame-wide schedule: the texture crosses devices")

# A copy in a Placement: (layer, texture number, the place it was made on, the place it goes to).
_Move = tuple[str, int, Place, Place]


@dataclass(frozen=True)
class Placement:
    """A rewrite of a GL-planned graph, as edits by pass index, with textures said by
    their number in the frame (``FrameKey.textures``): ``before[i]`` the copies made just
    before pass i, each (layer, texture number, place it was made on, place it goes to);
    ``moved[i]``, for filter pass i placed on an OpenCL device, that place and the
    numbers of its inputs and target (it reads and writes their buffers there; a pass
    left on GL is not edited); ``after`` the copies after the last pass (a kept result
    made on OpenCL ends on GL); ``why`` a reason written on the passes ``reasoned``
    (a forced placement's; the schedule's reasons stay in its slots: Slot.why);
    ``notes`` a decision per filtered layer. It applies to any graph with the key of
    the one it was made from: the textures' names are that graph's own."""

    before: Mapping[int, tuple[_Move, ...]]
    moved: Mapping[int, tuple[Place, tuple[int, ...]]]
    after: tuple[_Move, ...]
    notes: tuple[Decision, ...] = ()
    why: str = ""
    reasoned: frozenset[int] = frozenset()
    # Per filtered layer [passes on OpenCL, passes, {device: passes}]: what the notes
    # count, kept to note the same rewrite anew for a later frame (graph.rescheduled).
    layers: Mapping[str, list] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def _program(self) -> "_Program":
        return _Program.of(self)

    def noted(self, notes: tuple[Decision, ...]) -> "Placement":
        """This rewrite with ``notes``, sharing its compiled program (``_program``)."""
        new = replace(self, notes=notes)
        new.__dict__["_program"] = self._program
        return new

    def apply(self, graph: FrameGraph, textures: Sequence[TextureDesc], schedule: Schedule | None,
              last: "_Made | None" = None) -> tuple[FrameGraph, "_Made"]:
        """``graph`` rewritten (``textures``: its textures by number), with ``schedule``
        attached and the notes added; and what it made (the OpenCL buffers' descriptions
        and the copies, ``_Made``). ``last``: what an earlier apply of this Placement to a
        graph of the same key made, reused where it names the same texture (its number
        and name: under one key, one description)."""
        program = self._program
        bufs, copies, made = program.made(textures, last)
        passes = graph.passes
        why, reasoned = self.why, self.reasoned
        out: list = []
        done = 0
        for i, copied, edit in program.steps:
            if i > done:
                out.extend(passes[done:i])
            if copied:
                out.extend([copies[c] for c in copied])
            if i < len(passes):
                p = passes[i]
                if edit is not None:
                    place, slots = edit
                    changes = {"inputs": tuple([bufs[j] for j in slots[:-1]]), "target": bufs[slots[-1]],
                               "executor": place.executor, "device": place.device}
                    if i in reasoned:
                        changes["why"] = why
                    p = _edited(p, changes)
                elif i in reasoned:
                    p = replace(p, why=why)
                out.append(p)
            done = i + 1
        if done < len(passes):
            out.extend(passes[done:])
        placed = replace(graph, passes=out, schedule=schedule)
        if self.notes:
            placed.decisions = [*placed.decisions, *self.notes]
        return placed, made


class _Made(NamedTuple):
    """What applying a Placement made for one frame, by position in its ``_Program``
    (``program``: reused only by the same one): the name of each buffer's texture and the
    buffer (a TextureDesc: the texture itself where the slot is GL's), the name of each
    copy's texture and the copy."""

    program: "_Program"
    names: tuple[str, ...]
    bufs: tuple[TextureDesc, ...]
    copy_names: tuple[str, ...]
    copies: tuple[TransferPass, ...]

    def without(self, textures: frozenset[int]) -> "_Made":
        """This, less the buffers and copies of the texture numbers ``textures`` (resized
        since: under another key, one name may be described otherwise)."""
        if not textures:
            return self
        numbers = self.program._columns[0]
        return self._replace(names=tuple(["" if k in textures else n for k, n in zip(numbers, self.names)]),
                             copy_names=tuple(["" if c[1] in textures else n
                                               for c, n in zip(self.program.copies, self.copy_names)]))


@dataclass(frozen=True)
class _Program:
    """A Placement compiled once for the frames that apply it (a steady animation applies
    last frame's to each frame): every (texture number, OpenCL place) a moved pass or a
    copy names, as a numbered slot; every copy, with its slots; and the steps, in pass
    order (pass index, the copies just before it, its slots when moved). Applying it
    then makes each buffer and copy once, by slot, reusing last frame's where the
    texture's name is the same, and edits only the passes it moves."""

    slots: tuple[tuple[int, Place], ...]
    copies: tuple[tuple[str, int, Place, Place, int, int], ...]  # layer, texture, from, to, their slots
    steps: tuple[tuple[int, tuple[int, ...], tuple[Place, tuple[int, ...]] | None], ...]

    @classmethod
    def of(cls, placement: Placement) -> "_Program":
        numbered: dict[tuple[int, Place], int] = {}

        def slot(k: int, place: Place) -> int:
            j = numbered.get((k, place))
            if j is None:
                j = numbered[k, place] = len(numbered)
            return j

        copies: list = []

        def moves(found: tuple[_Move, ...]) -> tuple[int, ...]:
            out = []
            for layer, k, source, target in found:
                out.append(len(copies))
                copies.append((layer, k, source, target, slot(k, source), slot(k, target)))
            return tuple(out)

        steps = []
        for i in sorted({*placement.before, *placement.moved, *placement.reasoned}):
            copied = moves(placement.before.get(i, ()))
            edit = placement.moved.get(i)
            if edit is not None:
                place, numbers = edit
                edit = (place, tuple(slot(k, place) for k in numbers))
            steps.append((i, copied, edit))
        if placement.after:
            # (after the last pass: an index past every pass, so nothing is edited there)
            steps.append((_AFTER, moves(placement.after), None))
        return cls(tuple(numbered), tuple(copies), tuple(steps))

    @cached_property
    def _columns(self) -> tuple[tuple[int, ...], tuple[Place, ...], tuple[bool, ...]]:
        """The slots' texture numbers, places, and whether each is GL's (the texture itself)."""
        return (tuple(k for k, _ in self.slots), tuple(p for _, p in self.slots),
                tuple(p == GL_PLACE for _, p in self.slots))

    def made(self, textures: Sequence[TextureDesc], last: _Made | None) -> tuple[list, list, _Made]:
        numbers, places, on_gl = self._columns
        names = tuple([textures[k].name for k in numbers])
        if last is not None and last.program is not self:
            last = None
        if last is not None:
            bufs = [textures[k] if gl else b if n == m else _on(textures[k], place)
                    for k, place, gl, n, m, b in zip(numbers, places, on_gl, names, last.names, last.bufs)]
        else:
            bufs = [textures[k] if gl else _on(textures[k], place) for k, place, gl in zip(numbers, places, on_gl)]
        copy_names = tuple([names[c[5]] for c in self.copies])
        if last is not None:
            copies = [old if name == was else self._copy(c, name, bufs)
                      for c, name, was, old in zip(self.copies, copy_names, last.copy_names, last.copies)]
        else:
            copies = [self._copy(c, name, bufs) for c, name in zip(self.copies, copy_names)]
        return bufs, copies, _Made(self, names, tuple(bufs), copy_names, tuple(copies))

    @staticmethod
    def _copy(c: tuple, name: str, bufs: Sequence[TextureDesc]) -> TransferPass:
        layer, _, source, target, s, t = c
        return TransferPass(f"transfer:{layer}:{name}:{source.short}-{target.short}", layer, bufs[t], bufs[s],
                            reason=_CROSSES)


_AFTER = 1 << 62  # the step of the copies after the last pass


def _devices_note(counts: Mapping[str, int]) -> str:
    """" (0:0: 2, 0:1: 1)" when a layer's OpenCL passes name devices; "" otherwise."""
    counts = {d: n for d, n in counts.items() if d}
    return f" ({', '.join(f'{d}: {n}' for d, n in counts.items())})" if counts else ""


def _placement(graph: FrameGraph, on: Mapping[str, Place | Executor], index: Mapping[str, int],
               why: str = "") -> tuple[Placement, dict[str, list]]:
    """The rewrite that puts each filter pass of ``graph`` (planned on GL, no transfers)
    named in ``on`` on that device (the others on GL), with a copy wherever a texture
    crosses devices: GL to an OpenCL device and back, and from one OpenCL device to
    another (through the host, as the executor copies it); each texture's content is
    copied at most once to each device. ``index``: the number of each texture name
    (``FrameKey.index``); ``why``: a reason to write on the passes named in ``on``.
    Also, per filtered layer, [passes on OpenCL, passes, {device: passes}]."""
    if graph.transfer_passes() or any(p.executor is not Executor.GL for p in graph.filter_passes()):
        raise ValueError("placing takes a graph planned with every filter pass on GL, without transfers")
    gl = GL_PLACE
    where: dict[str, Place] = {}  # texture name -> where its current content was written
    owner: dict[str, str] = {}  # texture name -> the layer whose pass wrote it
    copied: dict[str, set[Place]] = {}  # texture name -> the places it was copied to since written
    moves: list[_Move] = []  # the copies before the pass being placed
    before: dict[int, tuple[_Move, ...]] = {}
    moved: dict[int, tuple[Place, tuple[int, ...]]] = {}
    reasoned: set[int] = set()

    def at(t: TextureDesc, place: Place, reader: str = "") -> None:
        """``t`` read on ``place``: copied there first if it was made on another device
        and is not there yet."""
        made = where.get(t.name, gl)
        if made == place:
            return
        sides = copied.setdefault(t.name, set())
        if place not in sides:
            moves.append((owner.get(t.name) or reader, index[t.name], made, place))  # (a surface's composite names
            sides.add(place)                                                        # no layer: its reader's)

    layers: dict[str, list] = {}  # filtered layer -> [passes on OpenCL, passes, {device: passes on it}]
    for i, p in enumerate(graph.passes):
        if isinstance(p, FilterPass):
            target = on.get(p.name)
            place = gl if target is None else Place.of(target)
            for t in p.inputs:
                at(t, place, p.layer_id)
            counts = layers.setdefault(p.layer_id, [0, 0, {}])
            if place != gl:
                moved[i] = (place, (*(index[t.name] for t in p.inputs), index[p.target.name]))
                counts[0] += 1
                counts[2][place.device] = counts[2].get(place.device, 0) + 1
            counts[1] += 1
            if why and target is not None:
                reasoned.add(i)
            layer, made = p.layer_id, place
        else:
            for t in p.reads():
                at(t, gl)
            layer, made = getattr(p, "layer_id", ""), gl
        if moves:
            before[i] = tuple(moves)
            moves.clear()
        written = p.target.name
        where[written] = made
        owner[written] = layer
        copied.pop(written, None)  # new content: an old copy of it is stale
    at(graph.output, gl)  # (the frame is always a GL pass's: nothing to copy)
    for p in graph.passes:
        if p.target.retained and where.get(p.target.name, gl) != gl:
            at(p.target, gl)  # a kept result no pass read this frame still ends on GL
    return Placement(before, moved, tuple(moves), why=why, reasoned=frozenset(reasoned), layers=layers), layers


def _places(costs: FrameCosts) -> dict[str, Place]:
    """Each device of ``costs``, by its name in a schedule, as the place the executor
    runs it; a LaminaInputError when two OpenCL devices would be the same place."""
    places = {name: Place(d.kind, d.index if d.kind is Executor.OPENCL else "") for name, d in zip(costs.names, costs.devices)}
    seen: dict[Place, str] = {}
    for name, place in places.items():
        if place in seen:
            raise LaminaInputError(f"devices {seen[place]!r} and {name!r} of the cost model {costs.label!r} are both "
                                   f"{place.label}: give each OpenCL device its \"P:D\" index to run a frame on several")
        seen[place] = name
    return places


def placement(graph: FrameGraph, schedule: Schedule, costs: FrameCosts, index: Mapping[str, int],
              reuse: Placement | None = None) -> Placement:
    """The rewrite that puts ``graph``'s filter passes (planned on GL, no transfers) on
    the devices ``schedule`` put them on (module docstring), with a decision per
    filtered layer; ``index``: the number of each texture name (``FrameKey.index``).
    Devices are the costs' (``FrameCosts.devices``): an OpenCL device with a "P:D" index
    is that device, one without is the renderer's own (a cost model of GL and one OpenCL
    device). Two OpenCL devices must differ by index: the executor tells them apart by
    it. ``reuse``: the rewrite (without notes) and per-layer counts of last frame, whose
    passes read and wrote the same textures and went on the same devices
    (graph.rescheduled): the same rewrite, noted anew. Each slot's reason is in the
    schedule, shown beside the pass there (the sentence
    is made when a report asks: Slot.why); a placed pass keeps the planner's "placed by
    the frame-wide schedule", and its executor and device say where."""
    places = _places(costs)
    if reuse is not None:
        rewrite, layers = reuse, reuse.layers
    else:
        table = schedule.table
        at = [places[n] for n in table.names]
        on = {p.name: at[d] for p, d in zip(table.fd.tasks, table.device) if d and type(p) is FilterPass}
        rewrite, layers = _placement(graph, on, index)
    notes = tuple(Decision(layer, f"filter: auto placed {n} of {m} passes on OpenCL{_devices_note(devices)} by the "
                                  f"frame-wide schedule (predicted makespan {schedule.makespan_ms:.2f} ms; the "
                                  "report's schedule compares it with other placements)")
                  for layer, (n, m, devices) in layers.items())
    return rewrite.noted(notes)


def place_frame(graph: FrameGraph, schedule: Schedule, costs: FrameCosts) -> FrameGraph:
    """``graph`` (filter passes on GL, no transfers) with each filter pass on the
    device ``schedule`` put it on, transfers added, and the schedule attached
    (``placement``, without its decisions)."""
    key = frame_key(graph)
    placed, _ = replace(placement(graph, schedule, costs, key.index), notes=()).apply(graph, key.textures, schedule)
    placed.validate()
    return placed


def place_by(graph: FrameGraph, placement: ForcedPlacement | str | Mapping[str, Place | Executor | str],
             devices: Sequence[Device] = ()) -> FrameGraph:
    """``graph`` (filter passes on GL, no transfers) with its filter passes where
    ``placement`` forces them (lamina.forced_placement: a strategy, or pass name ->
    device), through the rewrite ``place_frame`` makes; a decision per filtered layer
    says so. A placement naming a pass ``graph`` lacks (and did not keep from an earlier
    frame: ``graph.reused``), or no device, or a device not among ``devices`` (the OpenCL
    devices the renderer uses, when several), is a PlacementError naming it."""
    placement = ForcedPlacement.parse(placement)
    on = placement.assign(graph.filter_passes(), complete=not graph.reused,
                          devices=tuple(Place(Executor.OPENCL, d.index) for d in devices))
    why = f"forced placement {placement.label}"
    key = frame_key(graph)
    rewrite, layers = _placement(graph, on, key.index, why)
    placed, _ = rewrite.apply(graph, key.textures, graph.schedule)
    placed.validate()
    placed.decisions = [*placed.decisions, *(
        Decision(layer, f"filter: {why} put {n} of {m} passes on OpenCL{_devices_note(counts)}")
        for layer, (n, m, counts) in layers.items())]
    return placed


def _offloads(graph: FrameGraph, placed: FrameGraph, schedule: Schedule, costs: FrameCosts,
              forms: "tuple[_OffloadForm, ...] | None" = None) -> tuple[Offload, ...]:
    """The OpenCL work of ``placed`` the executor may still move to GL (graph.offload),
    priced as the schedule priced it: each pass on the device it was placed on, each
    copy between the two devices it joins. ``forms``: the offloads of last frame, whose
    rewrite placed this one (graph.rescheduled): the same units by position, priced anew."""
    if forms is not None and not forms:
        return ()
    table = schedule.table
    if not table.off_gl():
        return ()
    number = {place: i for i, place in enumerate(_places(costs).values())}  # (in the costs' device order)
    index, rows, device, start, finish = table.index, table.fd.dag.cost, table.device, table.start, table.finish

    def pass_ms(name: str, executor: Executor) -> float:
        i = index[name]
        c = rows[i][0 if executor is Executor.GL else device[i]]
        return c if c < math.inf else 0.0  # (a device that does not price it: as Slot.costs leaves it out)

    copy_prices: dict[tuple, float] = {}  # (copies of one size between two places cost alike)

    def copy_ms(t: TransferPass) -> float:
        a, b = t.source, t.target
        key = (a.location, a.device, b.location, b.device, a.width, a.height, a.format)
        ms = copy_prices.get(key)
        if ms is None:
            ms = copy_prices[key] = costs.copy_ms(number[a.place], number[b.place], t.bytes)
        return ms

    def planned(names: tuple[str, ...]) -> float:
        at = [index[n] for n in names]
        return max([finish[i] for i in at]) - min([start[i] for i in at])

    if forms is not None:
        out, passes = placed.passes, graph.passes
        return tuple([f.repriced(out, passes, table, copy_ms) for f in forms])
    return offloads(graph, placed, pass_ms, copy_ms, planned)


@dataclass(frozen=True)
class _OffloadForm:
    """An Offload said by position, to name it anew in a frame of the same key and
    placement: its placed passes by their index in the placed graph (before issue
    order), its GL version by index in the GL graph, its inputs and outputs by texture
    number; the rest (names of layers, prices, device) as it was."""

    offload: Offload
    cl_passes: tuple[int, ...]
    gl_passes: tuple[int, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]

    @classmethod
    def of(cls, o: Offload, at_graph: Mapping[str, int], at_placed: Mapping[str, int],
           index: Mapping[str, int]) -> "_OffloadForm":
        """``o`` said by position: ``at_graph``, ``at_placed``: each pass's index in the
        GL graph and the placed one, by name."""
        return cls(o, tuple(at_placed[n] for n in o.cl_passes), tuple(at_graph[p.name] for p in o.gl_passes),
                   tuple(index[n] for n in o.inputs), tuple(index[n] for n in o.outputs))

    def repriced(self, out: Sequence[Any], passes: Sequence[Any], table: Any, copy_ms) -> Offload:
        """This offload in a frame placed as its own was (graph.rescheduled): the same
        units by position, named and priced anew from the schedule's columns (``table``:
        graph.frame_schedule.ScheduleTable; the GL graph's passes are its tasks) and
        ``copy_ms`` (a TransferPass's price): the numbers ``offload.priced`` gives, in
        one pass over its placed passes."""
        placed = [out[i] for i in self.cl_passes]
        tasks = self.gl_passes  # (its filter passes' tasks, in placed order)
        rows, device, start, finish, inf, gl = table.fd.dag.cost, table.device, table.start, table.finish, math.inf, Executor.GL
        cl, on_gl, ins, outs, each, inputs, outputs = [], [], [], [], [], [], []
        k = 0
        for p in placed:
            if isinstance(p, FilterPass):
                i = tasks[k]
                k += 1
                row = rows[i]
                c, g = row[device[i]], row[0]
                c = c if c < inf else 0.0
                cl.append(c)
                on_gl.append(g if g < inf else 0.0)
            else:
                c = copy_ms(p)
                if p.source.location is gl:
                    ins.append(c)
                    inputs.append(p.source.name)
                elif p.target.location is gl:
                    outs.append(c)
                    outputs.append(p.target.name)
            each.append((p.name, c))
        copy_in, copy_out = sum(ins), sum(outs)
        planned = max([finish[i] for i in tasks]) - min([start[i] for i in tasks])
        return _edited(self.offload, {
            "cl_passes": tuple([n for n, _ in each]), "gl_passes": tuple([passes[i] for i in tasks]),
            "inputs": tuple(dict.fromkeys(inputs)), "outputs": tuple(dict.fromkeys(outputs)),
            "gl_ms": sum(on_gl), "cl_ms": sum(cl), "copy_in_ms": copy_in, "copy_out_ms": copy_out,
            "planned_ms": planned + copy_in + copy_out, "pass_ms": tuple(each)})

    def named(self, graph: FrameGraph, out: Sequence[Any], textures: Sequence[TextureDesc]) -> Offload:
        names = tuple([out[i].name for i in self.cl_passes])
        o = self.offload
        if names == o.cl_passes:  # (no texture named anew: no copy renamed)
            return o
        passes = graph.passes
        return _edited(o, {
            "cl_passes": names, "gl_passes": tuple([passes[i] for i in self.gl_passes]),
            "inputs": tuple([textures[k].name for k in self.inputs]),
            "outputs": tuple([textures[k].name for k in self.outputs]),
            "pass_ms": tuple([(n, ms) for n, (_, ms) in zip(names, o.pass_ms)])})


def overlaps(costs: FrameCosts) -> bool:
    """Can the devices' work overlap in time, as HEFT's makespan counts it? Not when
    every device runs on the CPU (llvmpipe and PoCL): they share its cores."""
    return not all(d.type is DeviceType.CPU for d in costs.devices)


@dataclass(frozen=True)
class _Outcome:
    """What ``scheduled`` made of a frame, said by number and position (``FrameKey``):
    the schedule (applied, or only proposed; its slots numbered in issue order), the
    number of the texture each of its copies moves, the rewrite (None: every pass stays
    on GL, and ``kept`` says why), the offloads, and the issue order (the placed passes'
    indices; None: the placed order)."""

    schedule: Schedule
    copied: tuple[int, ...]
    placement: Placement | None
    kept: Decision | None = None
    offloads: tuple[_OffloadForm, ...] = ()
    order: tuple[int, ...] | None = None

    def apply(self, graph: FrameGraph, textures: Sequence[TextureDesc],
              last: _Made | None = None) -> tuple[FrameGraph, _Made | None]:
        """``graph`` placed as the frame this was made of was, in issue order; and what
        the rewrite made (``Placement.apply``: None when every pass stays on GL)."""
        schedule = self.schedule
        if any(c.texture != textures[k].name for c, k in zip(schedule.copies, self.copied)):
            # The frame names some anew (a kept result made again): the copies say its names.
            schedule = schedule.with_copies(tuple(
                c if c.texture == textures[k].name else _edited(c, {"texture": textures[k].name})
                for c, k in zip(schedule.copies, self.copied)))
        if self.placement is None:
            # A new graph: ``graph`` is the one the RetainedPlan keeps for the next frame.
            return replace(graph, schedule=schedule, decisions=[*graph.decisions, self.kept]), None
        placed, made = self.placement.apply(graph, textures, schedule, last)
        out = placed.passes
        if self.offloads:
            placed.offloads = tuple(f.named(graph, out, textures) for f in self.offloads)
        if self.order is not None:
            placed.passes = [out[i] for i in self.order]
        return placed, made


@dataclass(frozen=True)
class SharedCpuMargin:
    """How much faster than all on GL a placement must be predicted, one pass after
    another (``Schedule.serial_ms`` against ``gl_serial_ms``), before auto moves work
    off GL on devices that share the CPU (``overlaps`` false), and how much it must stay
    faster to keep work off GL once it runs there.

    Why a margin: on this machine llvmpipe and PoCL run on the same 2 cores, and whole
    frames on either vary by a third from run to run; the calibrated prices of the two
    are within ~10% of each other and which one is faster flips between runs. A
    placement predicted a few per cent faster is within that noise, and acting on it
    costs for sure: copies between devices, a device's first frame waking it (buffers,
    threads), and the feedback correction (lamina.cost_feedback) moving the work back
    when the prediction misses, frame after frame (measured: auto 1.12x the best fixed
    placement, the mixed placement predicted 3% faster). As StarPU-style schedulers and
    compilers' cost thresholds do, work leaves the default device only for a clear gain:
    at least ``enter`` of the all-GL frame and ``enter_ms``. Hysteresis: a frame whose
    last frame ran work off GL keeps it off while the gain is at least ``stay`` (below
    ``enter``), so a prediction near the line does not flip placements frame to frame.
    The hysteresis holds only while a correction from measurement prices a device (its
    factors change frame to frame: what could flip a placement); at the base prices
    every frame is placed alike, by ``enter``, so a frame whose correction is lifted
    does not stay off GL on a gain that would not have moved it there.
    A device slowed by a competing load is corrected by factors of 1.5 and more
    (cost_feedback), far beyond either line: the margin delays no real move."""

    enter: float = 0.10
    enter_ms: float = 1.0
    stay: float = 0.05

    def needed(self, gl_serial_ms: float, off_gl: bool) -> float:
        """The gain (ms) a placement needs over all on GL; ``off_gl``: last frame ran work off GL."""
        return self.stay * gl_serial_ms if off_gl else max(self.enter * gl_serial_ms, self.enter_ms)

    def words(self, off_gl: bool) -> str:
        return (f"{self.stay:.0%} needed to keep work off GL" if off_gl else
                f"{self.enter:.0%} (and {self.enter_ms:g} ms) needed to move work off GL")


SHARED_CPU_MARGIN = SharedCpuMargin()


def _gain(schedule: Schedule) -> tuple[float, float]:
    """The predicted gain of ``schedule`` run one pass after another over all on GL, in
    ms and as a share of the all-GL frame."""
    gl = schedule.gl_serial_ms
    gain = gl - schedule.serial_ms
    return gain, (gain / gl if gl > 0 else 0.0)


def _outcome(graph: FrameGraph, schedule: Schedule, costs: FrameCosts, index: Mapping[str, int],
             off_gl: bool = False, probed: str = "", margin: SharedCpuMargin = SHARED_CPU_MARGIN,
             reuse: Placement | None = None) -> _Outcome:
    """What auto makes of ``schedule``: placed as it says, or (devices sharing the CPU, a
    gain below ``margin``'s: SharedCpuMargin) every pass kept on GL, with a decision
    saying which and why. ``off_gl``: the frame before ran work off GL (the hysteresis).
    ``probed``: the OpenCL devices a correction from measurement prices up, in words
    (``_probed``); while one is, no margin is asked: its decaying factor is a probe
    (lamina.cost_feedback) that brings back only the passes that gain most from it, to
    measure it, and what it still wins at the corrected price is no noise of the base
    prices. ``reuse``: last frame's rewrite, when it places this one (``placement``)."""
    copied = tuple(index[c.texture] for c in schedule.copies)
    needed = _needed(schedule, costs, off_gl, probed, margin)
    if needed is None:
        return _Outcome(schedule, copied, placement(graph, schedule, costs, index, reuse))
    gain, share = _gain(schedule)
    words = f"0% needed while a correction prices up {probed} (a probe)" if probed else margin.words(off_gl)
    said = (f"one after another it predicts {schedule.serial_ms:.2f} ms against {schedule.gl_serial_ms:.2f} ms all "
            f"on GL: a gain of {share:.0%} ({gain:.2f} ms)")
    if gain < needed:
        kept = Decision("root", (
            f"filter: auto kept every filter pass on GL: predicted gain {share:.0%} below the "
            f"{words} when devices share the CPU (GL and OpenCL both run on its cores, so the "
            f"schedule's {schedule.makespan_ms:.2f} ms, which counts on them working at once, is not what the frame "
            f"costs; {said})"))
        return _Outcome(replace(schedule, applied=False), copied, None, kept)
    ran = Decision("root", (
        f"filter: auto moved work off GL though the devices share the CPU: {said}, at least the "
        f"{words}"))
    plan = placement(graph, schedule, costs, index, reuse)
    return _Outcome(schedule, copied, plan.noted((*plan.notes, ran)))


def _needed(schedule: Schedule, costs: FrameCosts, off_gl: bool, probed: str,
            margin: SharedCpuMargin = SHARED_CPU_MARGIN) -> float | None:
    """The gain (ms) over all on GL ``schedule`` needs to be applied (``_outcome``), or
    None when it is applied whatever it gains: its devices overlap, or it keeps every
    pass on GL anyway."""
    if overlaps(costs) or not schedule.table.off_gl():
        return None
    # HEFT's makespan counts on GL and OpenCL running at once. The executor does run
    # them at once (gpu.cl_queue), but devices that both run on the CPU share its
    # cores: one's work slows the other's, so the frame costs about the sum of the
    # two. A placement pays off only if that sum is clearly below all on GL.
    return 0.0 if probed else margin.needed(schedule.gl_serial_ms, off_gl)


def _corrected(model: FilterCostModel) -> bool:
    """Does ``model`` price any device otherwise than its base (a CorrectedModel with a
    factor): the frames SharedCpuMargin's hysteresis holds for."""
    return isinstance(model, CorrectedModel) and model.active


def _probed(model: FilterCostModel) -> str:
    """The OpenCL devices ``model`` (a CorrectedModel) prices up from measurement, in
    words ("OpenCL x1.31"); "" when none."""
    if not isinstance(model, CorrectedModel):
        return ""
    return ", ".join(f"{device_name(c.executor)} x{c.factor:.2f}" for c in model.corrections
                     if c.executor is not Executor.GL and c.factor != 1.0)


def _runs_off_gl(outcome: _Outcome) -> bool:
    """Does the frame ``outcome`` places run any filter pass off GL (the hysteresis of
    SharedCpuMargin: ScheduleMemo.off_gl)?"""
    return outcome.placement is not None and bool(outcome.placement.moved)


def _completed(outcome: _Outcome, graph: FrameGraph, placed: FrameGraph, costs: FrameCosts,
               index: Mapping[str, int], deps: Dependencies | None = None,
               forms: "tuple[_OffloadForm, ...] | None" = None) -> tuple[_Outcome, FrameGraph, Dependencies | None]:
    """A first placement's offloads (graph.offload) and issue order (graph.issue_order)
    made, the graph given them, and both kept in the outcome for the frames that reuse it;
    and the placed passes' issue dependencies. ``deps``, ``forms``: the issue
    dependencies and offloads of last frame, when its rewrite placed this one
    (graph.rescheduled): the passes are placed alike, by position."""
    if outcome.placement is None:
        return outcome, placed, None
    found = _offloads(graph, placed, outcome.schedule, costs, forms)
    placed.offloads = found
    if forms is not None:
        forms = tuple([_edited(f, {"offload": o}) for f, o in zip(forms, found)])
    else:
        at_graph = {p.name: i for i, p in enumerate(graph.passes)}
        at_placed = {p.name: i for i, p in enumerate(placed.passes)}
        forms = tuple(_OffloadForm.of(o, at_graph, at_placed, index) for o in found)
    deps = deps if deps is not None else dependencies(placed.passes)
    issued = issue_order(placed, deps)
    order = None
    if issued is not placed:
        position = {id(p): i for i, p in enumerate(placed.passes)}
        order = tuple(position[id(p)] for p in issued.passes)
    return replace(outcome, schedule=issued.schedule, offloads=forms, order=order), issued, deps


def _schedule(graph: FrameGraph, costs: FrameCosts, prices: dict, memo: ScheduleMemo,
              key: FrameKey) -> tuple[Schedule, Basis | None, tuple | None, frozenset[int]]:
    """``graph``'s frame-wide schedule, incrementally where its key differs from the
    memo's last frame's only in some passes' footprints and textures' sizes
    (graph.rescheduled: repriced, and placed by HEFT with repair); the new basis; last
    frame's rewrite, issue dependencies and offloads (``Basis.reuse``) where every pass
    is on the device it had then (None otherwise); and the texture numbers resized since
    last frame."""
    basis = memo.basis
    found = basis.changes(key) if basis is not None else None
    if found is None:
        fd = frame_dag(graph, costs, prices)
        ranks = upward_ranks(fd.dag)
        schedule = schedule_dag(fd, costs, ranks)
        return schedule, basis_of(key, fd, ranks, schedule.table.device), None, frozenset()
    tasks, resized = found
    fd, dirty = repriced_dag(basis.fd, graph, costs, prices, tasks, basis.carried, key.textures, resized)
    ranks = updated_ranks(fd.dag, basis.ranks, dirty)
    schedule = schedule_dag(fd, costs, ranks, (basis.devices, _downstream(fd, dirty, resized, basis.carried)))
    on = schedule.table.device
    reuse = basis.reuse if basis.reuse is not None and on == basis.devices else None
    return schedule, basis.next(key.key, fd, ranks, on), reuse, resized


def _downstream(fd: Any, dirty: frozenset[int], resized: frozenset[int], carried: Sequence[int]) -> frozenset[int]:
    """The tasks a repaired schedule places anew (graph.rescheduled): those repriced
    (``dirty``), those that read a resized texture, and every task that depends on them."""
    succs = fd.dag.succs
    edges = fd.dag.edges
    todo = [*dirty, *(edges[e].target for e, k in enumerate(carried) if k in resized)] if resized else list(dirty)
    seen = set(todo)
    while todo:
        for e in succs[todo.pop()]:
            if e.target not in seen:
                seen.add(e.target)
                todo.append(e.target)
    return frozenset(seen)


def scheduled(graph: FrameGraph, model: FilterCostModel, devices: Sequence[Device] = (),
              memo: ScheduleMemo | None = None, key: FrameKey | None = None) -> FrameGraph:
    """``graph`` placed frame-wide by ``model`` (``auto``): the schedule, the rewrite,
    the offloads the executor may move back to GL at run time (``placed.offloads``), a
    decision per filtered layer saying where its passes went, and the passes in issue
    order (graph.issue_order). ``devices``: the OpenCL devices the renderer uses when
    several (lamina.frame_costs prices each). ``memo``: what the renderer kept of its
    last frame (FrameState.schedules): a frame with last frame's key (``frame_key``)
    under the same prices (graph.schedule_memo: the model's value, a corrected model's
    factors included, and the devices) gets last frame's schedule, rewrite, offloads and
    issue order, applied to its own passes and texture names, without scheduling again;
    a frame whose key differs only in some sizes is scheduled incrementally
    (graph.rescheduled). ``key``: ``frame_key(graph)``, when the caller has it
    (graph.corrected places one graph twice)."""
    memo = memo if memo is not None else ScheduleMemo()
    devices = tuple(devices)
    key = key if key is not None else frame_key(graph)
    outcome = memo.recall(model, devices, key.key)
    if outcome is not None:
        # Valid as last frame's was: the same passes read and write the same textures.
        placed, memo.made = outcome.apply(graph, key.textures, memo.made)
        return placed
    costs = memo.costs(model, devices)
    schedule, basis, reuse, resized = _schedule(graph, costs, memo.prices(model, devices), memo, key)
    rewrite, deps, forms = reuse if reuse is not None else (None, None, None)
    outcome = _outcome(graph, schedule, costs, key.index, memo.off_gl and _corrected(model), _probed(model),
                       reuse=rewrite)
    memo.off_gl = _runs_off_gl(outcome)
    if outcome.placement is None:
        deps = forms = None
    last = memo.made.without(resized) if deps is not None and memo.made is not None else None
    placed, made = outcome.apply(graph, key.textures, last)
    if deps is None:
        # (A rewrite made for this frame. Last frame's, reused, validated on a graph whose
        # passes read and write the same textures by number: this one is valid alike.)
        placed.validate()
    outcome, placed, deps = _completed(outcome, graph, placed, costs, key.index, deps, forms)
    memo.keep(model, devices, key.key, outcome)
    memo.made = made
    if basis is not None and outcome.placement is not None:
        basis = basis.reused(outcome.placement, deps, outcome.offloads)
    memo.basis = basis
    return placed


def planned_on(graph: FrameGraph, model: FilterCostModel, devices: Sequence[Device] = (),
               memo: ScheduleMemo | None = None, key: FrameKey | None = None) -> Mapping[str, tuple[Executor, str]]:
    """Where ``scheduled`` would run each filter pass of ``graph`` under ``model``: pass
    name -> (executor, layer), without the rewrite, offloads or issue order (the plan a
    corrected frame is compared with: graph.corrected). ``memo`` keeps it as
    ``scheduled``'s memo keeps a placed frame: reused while the key and prices stand,
    and scheduled incrementally where only some sizes changed (graph.rescheduled)."""
    memo = memo if memo is not None else ScheduleMemo()
    devices = tuple(devices)
    key = key if key is not None else frame_key(graph)
    found = memo.recall(model, devices, key.key)
    if found is None:
        costs = memo.costs(model, devices)
        schedule, basis, _, _ = _schedule(graph, costs, memo.prices(model, devices), memo, key)
        # Where each pass goes is the schedule's column, when it is applied (``_outcome``'s
        # rule, without the rewrite: nothing here runs the frame).
        needed = _needed(schedule, costs, memo.off_gl and _corrected(model), _probed(model))
        table = schedule.table
        applied = needed is None or _gain(schedule)[0] >= needed
        memo.off_gl = applied and table.off_gl()
        # (_places: devices the executor could not tell apart are the error scheduled gives)
        on = [place.executor if applied else Executor.GL for place in _places(costs).values()]
        found = {p.name: (on[d], p.layer_id) for p, d in zip(table.fd.tasks, table.device) if isinstance(p, FilterPass)}
        memo.keep(model, devices, key.key, found)
        memo.basis = basis
    return found
