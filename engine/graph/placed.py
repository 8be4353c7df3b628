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

The executor drives one OpenCL device, so a graph is placed on GL and that one; a
schedule over more devices (a profile's) is for simulation (lamina.simulate).
``place_by`` makes the same rewrite for a placement forced before the frame runs
(lamina.forced_placement: all on OpenCL, alternating, seeded random...), without a
schedule: tests render a frame under several and compare the pixels.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..errors import LaminaInputError
from ..frame_costs import FrameCosts, frame_costs
from ..filter_costs import FilterCostModel
from ..forced_placement import ForcedPlacement
from ..framegraph import Decision, Executor, FilterPass, FrameGraph, TextureDesc, TransferPass
from .frame_schedule import Schedule, schedule_frame

__all__ = ["place_by", "place_frame", "scheduled"]


def _on_cl(t: TextureDesc) -> TextureDesc:
    return replace(t, name=f"{t.name}@cl", location=Executor.OPENCL, retained=False)


def place_frame(graph: FrameGraph, schedule: Schedule, costs: FrameCosts) -> FrameGraph:
    """``graph`` (filter passes on GL, no transfers) with each filter pass on the
    executor of its device in ``schedule``, transfers added, and the schedule attached."""
    executors = {name: d.kind for name, d in zip(costs.names, costs.devices)}
    if sum(e is Executor.OPENCL for e in executors.values()) > 1:
        raise LaminaInputError("a frame runs on GL and one OpenCL device: schedule it on more only to simulate "
                               "(lamina.simulate)")
    on = {s.name: executors[s.device] for s in schedule.slots}
    why = {s.name: s.why for s in schedule.slots}
    return replace(_rewrite(graph, on, why), schedule=schedule)


def place_by(graph: FrameGraph, placement: ForcedPlacement | str | Mapping[str, Executor | str]) -> FrameGraph:
    """``graph`` (filter passes on GL, no transfers) with its filter passes where
    ``placement`` forces them (lamina.forced_placement: a strategy, or pass name ->
    executor), through the rewrite ``place_frame`` makes; a decision per filtered layer
    says so. A placement naming a pass ``graph`` lacks (and did not keep from an earlier
    frame: ``graph.reused``), or no device, is a PlacementError naming it."""
    placement = ForcedPlacement.parse(placement)
    on = placement.assign(graph.filter_passes(), complete=not graph.reused)
    why = f"forced placement {placement.label}"
    placed = _rewrite(graph, on, dict.fromkeys(on, why))
    layers: dict[str, list[FilterPass]] = {}
    for p in placed.filter_passes():
        layers.setdefault(p.layer_id, []).append(p)
    placed.decisions = [*placed.decisions, *(
        Decision(layer, f"filter: {why} put {sum(p.executor is Executor.OPENCL for p in ps)} of {len(ps)} passes "
                        "on OpenCL")
        for layer, ps in layers.items())]
    return placed


def _rewrite(graph: FrameGraph, on: Mapping[str, Executor], why: Mapping[str, str]) -> FrameGraph:
    """``graph`` with each filter pass named in ``on`` on that executor (the others on
    GL), ``why`` as its reason, and a transfer wherever a texture crosses devices."""
    if graph.transfer_passes() or any(p.executor is not Executor.GL for p in graph.filter_passes()):
        raise ValueError("placing takes a graph planned with every filter pass on GL, without transfers")
    where: dict[str, Executor] = {}  # texture name -> where its current content was written
    owner: dict[str, str] = {}  # texture name -> the layer whose pass wrote it
    copied: dict[tuple[str, Executor], TextureDesc] = {}
    out: list = []

    def at(t: TextureDesc, executor: Executor, reader: str = "") -> TextureDesc:
        """``t`` as a pass on ``executor`` reads it, copied there first if it was made
        on the other side."""
        made = where.get(t.name, Executor.GL)
        mine = t if executor is Executor.GL else _on_cl(t)
        if made is executor:
            return mine
        key = (t.name, executor)
        if key not in copied:
            source = t if made is Executor.GL else _on_cl(t)
            layer = owner.get(t.name) or reader  # (a surface's composite names no layer: its reader's)
            out.append(TransferPass(f"transfer:{layer}:{t.name}:{made.short}-{executor.short}", layer, mine, source,
                                    reason="frame-wide schedule: the texture crosses devices"))
            copied[key] = mine
        return copied[key]

    for p in graph.passes:
        if isinstance(p, FilterPass):
            executor = on.get(p.name, Executor.GL)
            inputs = tuple(at(t, executor, p.layer_id) for t in p.inputs)
            target = p.target if executor is Executor.GL else _on_cl(p.target)
            p = replace(p, inputs=inputs, target=target, executor=executor, why=why.get(p.name, p.why))
            written, layer = p.target.name.removesuffix("@cl"), p.layer_id
        else:
            for t in p.reads():
                at(t, Executor.GL)
            written, layer = p.target.name, getattr(p, "layer_id", "")
        out.append(p)
        where[written] = executor if isinstance(p, FilterPass) else Executor.GL
        owner[written] = layer
        for key in [k for k in copied if k[0] == written]:
            del copied[key]  # new content: an old copy of it is stale
    for t in (graph.output,):
        at(t, Executor.GL)  # (the frame is always a GL pass's: nothing to copy)
    kept = [p.target for p in graph.passes if p.target.retained and where.get(p.target.name) is Executor.OPENCL]
    for t in kept:
        at(t, Executor.GL)  # a kept result no pass read this frame still ends on GL
    placed = replace(graph, passes=out)
    placed.validate()
    return placed


def scheduled(graph: FrameGraph, model: FilterCostModel) -> FrameGraph:
    """``graph`` placed frame-wide by ``model`` (``auto``): the schedule, the rewrite and
    a decision per filtered layer saying where its passes went."""
    costs = frame_costs(model)
    schedule = schedule_frame(graph, costs)
    if schedule.serial_ms > schedule.gl_serial_ms:
        # HEFT's makespan counts on GL and OpenCL running at once; the executor runs the
        # passes one after another (overlap is issue 22's item 5), so a placement that
        # only pays off overlapped would make the frame slower than all-GL: keep GL.
        kept = Decision("root", (
            f"filter: auto kept every filter pass on GL: the frame-wide schedule's predicted "
            f"{schedule.makespan_ms:.2f} ms needs GL and OpenCL to overlap; one pass after another, as the "
            f"executor runs them, it predicts {schedule.serial_ms:.2f} ms against {schedule.gl_serial_ms:.2f} ms all "
            "on GL"))
        # A new graph: ``graph`` is the one the RetainedPlan keeps for the next frame.
        return replace(graph, schedule=replace(schedule, applied=False), decisions=[*graph.decisions, kept])
    placed = place_frame(graph, schedule, costs)
    layers: dict[str, list[FilterPass]] = {}
    for p in placed.filter_passes():
        layers.setdefault(p.layer_id, []).append(p)
    notes = [Decision(layer, f"filter: auto placed {sum(p.executor is Executor.OPENCL for p in ps)} of {len(ps)} passes "
                             f"on OpenCL by the frame-wide schedule (predicted makespan {schedule.makespan_ms:.2f} ms; "
                             "the report's schedule compares it with other placements)")
             for layer, ps in layers.items()]
    placed.decisions = [*placed.decisions, *notes]
    return placed
