"""A frame graph rewritten so its filter passes run where a frame-wide schedule placed
them (graph.frame_schedule), with a TransferPass wherever a texture crosses devices.

The planner, under ``auto``, emits every filter pass on GL; this stage then moves the
passes the schedule put on OpenCL there. A texture keeps one name per device: its GL
name as planned, and ``<name>@cl`` for its OpenCL buffer (as graph.filter_tasks names a
copy), so what GL-only passes read (composites draw a filter's result, a kept result
keeps its name between frames) is untouched: a result made on OpenCL is copied back into
the texture they read, once, just before the first GL pass that needs it. Each texture is
copied at most once to each side. The passes stay in the graph's order (a topological
order): the executor runs them one after another.

The rewrite is made as a ``Placement`` (the copies to insert before each pass and the
filter passes that move to OpenCL, textures said by number), then applied: a frame whose
task graph is last frame's (graph.frame_schedule.frame_key, graph.schedule_memo) applies
last frame's Placement to its own passes and texture names instead of scheduling and
placing again, reusing the buffers' descriptions and copies it made for the same texture.

The executor drives one OpenCL device, so a graph is placed on GL and that one; a
schedule over more devices (a profile's) is for simulation (lamina.simulate).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterator, Mapping, Sequence

from ..errors import LaminaInputError
from ..frame_costs import FrameCosts
from ..filter_costs import FilterCostModel
from ..framegraph import Decision, Executor, FilterPass, FrameGraph, TextureDesc, TransferPass
from ..passes import Reason
from .frame_schedule import Schedule, frame_key, schedule_frame
from .schedule_memo import ScheduleMemo

__all__ = ["Placement", "place_frame", "placement", "scheduled"]


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


@dataclass(frozen=True)
class Placement:
    """A schedule's rewrite of a GL-planned graph, as edits by pass index, with textures
    said by their number in the frame (``FrameKey.textures``): ``before[i]`` the copies
    made just before pass i, each (layer, texture number, executor it goes to);
    ``moved[i]``, for filter pass i placed on OpenCL, the numbers of its inputs and
    target (it reads and writes their OpenCL buffers; a pass left on GL is not edited:
    its ``why`` says the schedule placed it, as the planner wrote); ``after`` the copies
    after the last pass (a kept result made on OpenCL ends on GL); ``notes`` a decision
    per filtered layer. It applies to any graph with the key of the one it was made
    from: the textures' names are that graph's own."""

    before: Mapping[int, tuple[tuple[str, int, Executor], ...]]
    moved: Mapping[int, tuple[int, ...]]
    after: tuple[tuple[str, int, Executor], ...]
    notes: tuple[Decision, ...] = ()

    def apply(self, graph: FrameGraph, textures: Sequence[TextureDesc], schedule: Schedule,
              last: Mapping[Any, Any] | None = None, made: dict[Any, Any] | None = None) -> FrameGraph:
        """``graph`` rewritten (``textures``: its textures by number), with ``schedule``
        attached and the notes added. ``last``: the buffers and copies an earlier apply
        to a graph of the same key made (``made``, filled here), reused where they name
        the same texture (its number and name: under one key, one description)."""
        before, moved = self.before, self.moved
        last = last if last is not None else {}
        made = made if made is not None else {}
        cl = Executor.OPENCL

        bufs: list[TextureDesc | None] = [None] * len(textures)

        def buffer(k: int) -> TextureDesc:
            """Texture ``k``'s OpenCL buffer."""
            b = bufs[k]
            if b is None:
                t = textures[k]
                key = (k, t.name)
                b = last.get(key)
                if b is None:
                    b = _edited(t, {"name": f"{t.name}@cl", "location": cl, "retained": False})
                bufs[k] = made[key] = b
            return b

        def copies(moves) -> Iterator[TransferPass]:
            for layer, k, executor in moves:
                t = textures[k]
                key = (layer, k, t.name, executor)
                copy = last.get(key)
                if copy is None:
                    there, here = (buffer(k), t) if executor is cl else (t, buffer(k))
                    copy = TransferPass(f"transfer:{layer}:{t.name}:{here.location.short}-{executor.short}", layer,
                                        there, here, reason=_CROSSES)
                made[key] = copy
                yield copy

        out: list = []
        for i, p in enumerate(graph.passes):
            moves = before.get(i)
            if moves is not None:
                out.extend(copies(moves))
            numbers = moved.get(i)
            if numbers is not None:
                ins = [buffer(k) for k in numbers]
                p = _edited(p, {"inputs": tuple(ins[:-1]), "target": ins[-1], "executor": cl})
            out.append(p)
        out.extend(copies(self.after))
        placed = replace(graph, passes=out, schedule=schedule)
        if self.notes:
            placed.decisions = [*placed.decisions, *self.notes]
        return placed


_CROSSES = Reason("frame-wide schedule: the texture crosses devices")


def placement(graph: FrameGraph, schedule: Schedule, costs: FrameCosts, index: Mapping[str, int]) -> Placement:
    """The rewrite that puts ``graph``'s filter passes (planned on GL, no transfers) on
    the executors of their devices in ``schedule`` (module docstring); ``index``: the
    number of each texture name (``FrameKey.index``)."""
    executors = {name: d.kind for name, d in zip(costs.names, costs.devices)}
    if sum(e is Executor.OPENCL for e in executors.values()) > 1:
        raise LaminaInputError("a frame runs on GL and one OpenCL device: schedule it on more only to simulate "
                               "(lamina.simulate)")
    if graph.transfer_passes() or any(p.executor is not Executor.GL for p in graph.filter_passes()):
        raise ValueError("place_frame takes a graph planned with every filter pass on GL")
    # Each slot's reason is in the schedule, shown beside the pass there (the sentence
    # is made when a report asks: Slot.why); the pass keeps the planner's "placed by
    # the frame-wide schedule", and its executor says where.
    on = {s.name: executors[s.device] for s in schedule.slots if not s.pinned}
    gl, cl = Executor.GL, Executor.OPENCL
    where: dict[str, Executor] = {}  # texture name -> where its current content was written
    owner: dict[str, str] = {}  # texture name -> the layer whose pass wrote it
    copied: dict[str, set[Executor]] = {}  # texture name -> the sides it was copied to since written
    moves: list[tuple[str, int, Executor]] = []  # the copies before the pass being placed
    before: dict[int, tuple[tuple[str, int, Executor], ...]] = {}
    moved: dict[int, tuple[int, ...]] = {}

    def at(t: TextureDesc, executor: Executor, reader: str = "") -> None:
        """``t`` read on ``executor``: copied there first if it was made on the other
        side and is not there yet."""
        if where.get(t.name, gl) is executor:
            return
        sides = copied.setdefault(t.name, set())
        if executor not in sides:
            moves.append((owner.get(t.name) or reader, index[t.name], executor))  # (a surface's composite names no
            sides.add(executor)                                                 # layer: its reader's)

    layers: dict[str, list[int]] = {}  # filtered layer -> [passes on OpenCL, passes]
    for i, p in enumerate(graph.passes):
        if isinstance(p, FilterPass):
            executor = on.get(p.name, gl)
            for t in p.inputs:
                at(t, executor, p.layer_id)
            if executor is cl:
                moved[i] = (*(index[t.name] for t in p.inputs), index[p.target.name])
            counts = layers.setdefault(p.layer_id, [0, 0])
            counts[0] += executor is cl
            counts[1] += 1
            layer, made = p.layer_id, executor
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
        if p.target.retained and where.get(p.target.name) is cl:
            at(p.target, gl)  # a kept result no pass read this frame still ends on GL
    notes = tuple(Decision(layer, f"filter: auto placed {n} of {m} passes on OpenCL by the frame-wide schedule "
                                  f"(predicted makespan {schedule.makespan_ms:.2f} ms; the report's schedule compares "
                                  "it with other placements)")
                  for layer, (n, m) in layers.items())
    return Placement(before, moved, tuple(moves), notes)


def place_frame(graph: FrameGraph, schedule: Schedule, costs: FrameCosts) -> FrameGraph:
    """``graph`` (filter passes on GL, no transfers) with each filter pass on the
    executor of its device in ``schedule``, transfers added, and the schedule attached."""
    key = frame_key(graph)
    placed = replace(placement(graph, schedule, costs, key.index), notes=()).apply(graph, key.textures, schedule)
    placed.validate()
    return placed


@dataclass(frozen=True)
class _Outcome:
    """What ``scheduled`` made of a frame, with textures said by number (``FrameKey``):
    the schedule (applied, or only proposed), the number of the texture each of its
    copies moves, and the rewrite (None: every pass stays on GL, and ``kept`` says why)."""

    schedule: Schedule
    copied: tuple[int, ...]
    placement: Placement | None
    kept: Decision | None = None

    def apply(self, graph: FrameGraph, textures: Sequence[TextureDesc], last: Mapping[Any, Any] | None = None,
              made: dict[Any, Any] | None = None) -> FrameGraph:
        schedule = self.schedule
        if any(c.texture != textures[k].name for c, k in zip(schedule.copies, self.copied)):
            # The frame names some anew (a kept result made again): the copies say its names.
            schedule = replace(schedule, copies=tuple(
                c if c.texture == textures[k].name else _edited(c, {"texture": textures[k].name})
                for c, k in zip(schedule.copies, self.copied)))
        if self.placement is not None:
            return self.placement.apply(graph, textures, schedule, last, made)
        # A new graph: ``graph`` is the one the RetainedPlan keeps for the next frame.
        return replace(graph, schedule=schedule, decisions=[*graph.decisions, self.kept])


def _outcome(graph: FrameGraph, schedule: Schedule, costs: FrameCosts, index: Mapping[str, int]) -> _Outcome:
    copied = tuple(index[c.texture] for c in schedule.copies)
    if schedule.serial_ms > schedule.gl_serial_ms:
        # HEFT's makespan counts on GL and OpenCL running at once; the executor runs the
        # passes one after another (overlap is issue 22's item 5), so a placement that
        # only pays off overlapped would make the frame slower than all-GL: keep GL.
        kept = Decision("root", (
            f"filter: auto kept every filter pass on GL: the frame-wide schedule's predicted "
            f"{schedule.makespan_ms:.2f} ms needs GL and OpenCL to overlap; one pass after another, as the "
            f"executor runs them, it predicts {schedule.serial_ms:.2f} ms against {schedule.gl_serial_ms:.2f} ms all "
            "on GL"))
        return _Outcome(replace(schedule, applied=False), copied, None, kept)
    return _Outcome(schedule, copied, placement(graph, schedule, costs, index))


def scheduled(graph: FrameGraph, model: FilterCostModel, memo: ScheduleMemo | None = None) -> FrameGraph:
    """``graph`` placed frame-wide by ``model`` (``auto``): the schedule, the rewrite and
    a decision per filtered layer saying where its passes went. ``memo``: what the
    renderer kept of its last frame (FrameState.schedules): a frame with last frame's key
    (``frame_key``) under the same model gets last frame's schedule and rewrite, applied
    to its own passes and texture names, without scheduling again."""
    memo = memo if memo is not None else ScheduleMemo()
    key = frame_key(graph)
    outcome = memo.recall(model, key.key)
    made: dict[Any, Any] = {}
    if outcome is not None:
        # Valid as last frame's was: the same passes read and write the same textures.
        placed = outcome.apply(graph, key.textures, memo.made, made)
        memo.made = made
        return placed
    costs = memo.costs(model)
    outcome = _outcome(graph, schedule_frame(graph, costs, memo.prices(model)), costs, key.index)
    placed = outcome.apply(graph, key.textures, None, made)
    placed.validate()
    memo.keep(model, key.key, outcome)
    memo.made = made
    return placed
