"""A frame graph rewritten so its filter passes run where a frame-wide schedule placed
them (graph.frame_schedule), with a TransferPass wherever a texture crosses devices.

The planner, under ``auto``, emits every filter pass on GL; this stage then moves the
passes the schedule put on OpenCL there. A texture keeps one name per device: its GL
name as planned, and ``<name>@cl`` for its OpenCL buffer (as graph.filter_tasks names a
copy), so what GL-only passes read (composites draw a filter's result, a kept result
keeps its name between frames) is untouched: a result made on OpenCL is copied back into
the texture they read, once, just before the first GL pass that needs it. Each texture is
copied at most once to each side. The passes stay in the graph's order (a topological
order); graph.issue_order then orders them as the schedule has the devices begin them.

A frame may run on several OpenCL devices (``LAMINA_OPENCL_DEVICES``): each pass and
texture then names its device's "P:D" index (``FilterPass.device``,
``TextureDesc.device``; a copy is ``<name>@cl<P:D>``), and a texture made on one device
and read on another is copied between them through the host (one TransferPass). Without
indices (a cost model of GL and one OpenCL device) the OpenCL work is the renderer's own
device's, named ``<name>@cl`` as always.
``place_by`` makes the same rewrite for a placement forced before the frame runs
(lamina.forced_placement: all on OpenCL, alternating, seeded random...), without a
schedule: tests render a frame under several and compare the pixels.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from ..devices import Device, DeviceType
from ..errors import LaminaInputError
from ..frame_costs import FrameCosts, frame_costs
from ..filter_costs import FilterCostModel
from ..forced_placement import ForcedPlacement
from ..framegraph import Decision, Executor, FilterPass, FrameGraph, TextureDesc, TransferPass
from ..textures import GL_PLACE, Place
from .frame_schedule import Schedule, schedule_frame
from .offload import Offload, offloads

__all__ = ["overlaps", "place_by", "place_frame", "scheduled"]


def _on(t: TextureDesc, place: Place) -> TextureDesc:
    """``t`` as it lives on ``place``: itself on GL; on an OpenCL device, a buffer named
    ``<name>@cl`` (the renderer's own device) or ``<name>@cl<P:D>``."""
    if place.executor is Executor.GL:
        return t
    return replace(t, name=f"{t.name}{place.suffix}", location=Executor.OPENCL, device=place.device, retained=False)


def _base(name: str) -> str:
    """The GL name of a texture a rewrite named for a device (``_on``)."""
    return name.partition("@cl")[0]


def place_frame(graph: FrameGraph, schedule: Schedule, costs: FrameCosts) -> FrameGraph:
    """``graph`` (filter passes on GL, no transfers) with each filter pass on the
    device ``schedule`` put it on, transfers added, and the schedule attached. Devices
    are the costs' (``FrameCosts.devices``): an OpenCL device with a "P:D" index is that
    device, one without is the renderer's own (a cost model of GL and one OpenCL device).
    Two OpenCL devices must differ by index: the executor tells them apart by it."""
    places = _places(costs)
    on = {s.name: places[s.device] for s in schedule.slots}
    why = {s.name: s.why for s in schedule.slots}
    return replace(_rewrite(graph, on, why), schedule=schedule)


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
    placed = _rewrite(graph, on, dict.fromkeys(on, why))
    layers: dict[str, list[FilterPass]] = {}
    for p in placed.filter_passes():
        layers.setdefault(p.layer_id, []).append(p)
    placed.decisions = [*placed.decisions, *(
        Decision(layer, f"filter: {why} put {sum(p.executor is Executor.OPENCL for p in ps)} of {len(ps)} passes "
                        f"on OpenCL{_devices_note(ps)}")
        for layer, ps in layers.items())]
    return placed


def _devices_note(passes: list[FilterPass]) -> str:
    """" (0:0: 2, 0:1: 1)" when a layer's OpenCL passes name devices; "" otherwise."""
    counts: dict[str, int] = {}
    for p in passes:
        if p.executor is Executor.OPENCL and p.device:
            counts[p.device] = counts.get(p.device, 0) + 1
    return f" ({', '.join(f'{d}: {n}' for d, n in counts.items())})" if counts else ""


def _rewrite(graph: FrameGraph, on: Mapping[str, Place | Executor], why: Mapping[str, str]) -> FrameGraph:
    """``graph`` with each filter pass named in ``on`` on that device (the others on
    GL), ``why`` as its reason, and a transfer wherever a texture crosses devices: GL to
    an OpenCL device and back, and from one OpenCL device to another (through the host,
    as the executor copies it). Each texture's content is copied at most once to each
    device."""
    if graph.transfer_passes() or any(p.executor is not Executor.GL for p in graph.filter_passes()):
        raise ValueError("placing takes a graph planned with every filter pass on GL, without transfers")
    where: dict[str, Place] = {}  # texture name -> where its current content was written
    owner: dict[str, str] = {}  # texture name -> the layer whose pass wrote it
    copied: dict[tuple[str, Place], TextureDesc] = {}
    out: list = []

    def at(t: TextureDesc, place: Place, reader: str = "") -> TextureDesc:
        """``t`` as a pass on ``place`` reads it, copied there first if it was made on
        another device."""
        made = where.get(t.name, GL_PLACE)
        mine = _on(t, place)
        if made == place:
            return mine
        key = (t.name, place)
        if key not in copied:
            source = _on(t, made)
            layer = owner.get(t.name) or reader  # (a surface's composite names no layer: its reader's)
            out.append(TransferPass(f"transfer:{layer}:{t.name}:{made.short}-{place.short}", layer, mine, source,
                                    reason="frame-wide schedule: the texture crosses devices"))
            copied[key] = mine
        return copied[key]

    for p in graph.passes:
        if isinstance(p, FilterPass):
            place = Place.of(on.get(p.name, GL_PLACE))
            inputs = tuple(at(t, place, p.layer_id) for t in p.inputs)
            p = replace(p, inputs=inputs, target=_on(p.target, place), executor=place.executor, device=place.device,
                        why=why.get(p.name, p.why))
            written, layer = _base(p.target.name), p.layer_id
        else:
            place = GL_PLACE
            for t in p.reads():
                at(t, GL_PLACE)
            written, layer = p.target.name, getattr(p, "layer_id", "")
        out.append(p)
        where[written] = place
        owner[written] = layer
        for key in [k for k in copied if k[0] == written]:
            del copied[key]  # new content: an old copy of it is stale
    for t in (graph.output,):
        at(t, GL_PLACE)  # (the frame is always a GL pass's: nothing to copy)
    kept = [p.target for p in graph.passes if p.target.retained and where.get(p.target.name, GL_PLACE) != GL_PLACE]
    for t in kept:
        at(t, GL_PLACE)  # a kept result no pass read this frame still ends on GL
    placed = replace(graph, passes=out)
    placed.validate()
    return placed


def _offloads(graph: FrameGraph, placed: FrameGraph, schedule: Schedule, costs: FrameCosts) -> tuple[Offload, ...]:
    """The OpenCL work of ``placed`` the executor may still move to GL (graph.offload),
    priced as the schedule priced it: each pass on the device it was placed on, each
    copy between the two devices it joins."""
    slots = {s.name: s for s in schedule.slots}
    if not any(p.executor is Executor.OPENCL for p in placed.filter_passes()):
        return ()
    number = {place: i for i, place in enumerate(_places(costs).values())}  # (in the costs' device order)
    gl = costs.names[0]

    def pass_ms(name: str, executor: Executor) -> float:
        slot = slots[name]
        return dict(slot.costs).get(gl if executor is Executor.GL else slot.device, 0.0)

    def copy_ms(t: TransferPass) -> float:
        return costs.copy_ms(number[t.source.place], number[t.target.place], t.bytes)

    def planned(names: tuple[str, ...]) -> float:
        return max(slots[n].finish_ms for n in names) - min(slots[n].start_ms for n in names)

    return offloads(graph, placed, pass_ms, copy_ms, planned)


def overlaps(costs: FrameCosts) -> bool:
    """Can the devices' work overlap in time, as HEFT's makespan counts it? Not when
    every device runs on the CPU (llvmpipe and PoCL): they share its cores."""
    return not all(d.type is DeviceType.CPU for d in costs.devices)


def scheduled(graph: FrameGraph, model: FilterCostModel, devices: Sequence[Device] = ()) -> FrameGraph:
    """``graph`` placed frame-wide by ``model`` (``auto``): the schedule, the rewrite and
    a decision per filtered layer saying where its passes went. ``devices``: the OpenCL
    devices the renderer uses when several (lamina.frame_costs prices each)."""
    costs = frame_costs(model, tuple(devices))
    schedule = schedule_frame(graph, costs)
    if not overlaps(costs) and schedule.serial_ms > schedule.gl_serial_ms:
        # HEFT's makespan counts on GL and OpenCL running at once. The executor does run
        # them at once (gpu.cl_queue), but devices that both run on the CPU share its
        # cores: one's work slows the other's, so the frame costs about the sum of the
        # two. A placement that only pays off overlapped would then be slower than all
        # on GL: keep GL.
        kept = Decision("root", (
            f"filter: auto kept every filter pass on GL: the frame-wide schedule's predicted "
            f"{schedule.makespan_ms:.2f} ms needs GL and OpenCL to work at once, but both run on the CPU and share "
            f"its cores; one after another it predicts {schedule.serial_ms:.2f} ms against "
            f"{schedule.gl_serial_ms:.2f} ms all on GL"))
        # A new graph: ``graph`` is the one the RetainedPlan keeps for the next frame.
        return replace(graph, schedule=replace(schedule, applied=False), decisions=[*graph.decisions, kept])
    placed = place_frame(graph, schedule, costs)
    placed.offloads = _offloads(graph, placed, schedule, costs)
    layers: dict[str, list[FilterPass]] = {}
    for p in placed.filter_passes():
        layers.setdefault(p.layer_id, []).append(p)
    notes = [Decision(layer, f"filter: auto placed {sum(p.executor is Executor.OPENCL for p in ps)} of {len(ps)} passes "
                             f"on OpenCL{_devices_note(ps)} by the frame-wide schedule (predicted makespan {schedule.makespan_ms:.2f} ms; "
                             "the report's schedule compares it with other placements)")
             for layer, ps in layers.items()]
    placed.decisions = [*placed.decisions, *notes]
    return placed
