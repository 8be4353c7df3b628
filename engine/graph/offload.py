"""Run-time correction of a frame-wide schedule (hybrid scheduling): the OpenCL work of a
placed frame as units the executor may still run on GL, and the rule that decides.

The static plan (graph.frame_schedule, graph.placed) puts filter passes on OpenCL before
anything runs. While the frame runs, the device may be behind: earlier work took longer
than predicted (a shared or throttled device), or work of another frame is still queued.
StarPU's dmda scheduler gives a ready task to the worker that would finish it first:
expected end = max(queue end, transfer end) + predicted run time. Lamina applies it to
the unit of work that can change device without any other pass changing: an
**offload** — OpenCL filter passes with the copies into and out of them, connected by
the buffers they share — whose GL version is the very passes the planner emitted on GL
before the schedule moved them. Both versions are plain data in the graph
(``FrameGraph.offloads``), made before anything executes; the executor only picks one.

The rule (``choose``), when the executor reaches an offload's first pass, all its GL
inputs drawn:

* on OpenCL it would end ``max(backlog, copy in) + run + copy out`` from now, where the
  backlog is the predicted time of the items still queued on the device, and the run and
  the backlog are scaled by how much slower than predicted the device's finished items
  of this frame ran (the queue's actual state, corrected online);
* on GL, ``run on GL`` from now (the GL thread is here, free).

An offload whose inputs include what GL makes of its own results (HEFT put a pass of its
chain on GL in between), or a texture drawn by several passes, has no GL version that
could run where it begins: it has none.

It moves the offload to GL only when the device is **behind its plan** — its expected
remaining time exceeds what the schedule planned for the offload by more than
``LATE_FRACTION`` (and ``LATE_MIN_MS``) — and GL would finish it first. The plan had
OpenCL do the work while GL did other things: on time, the plan stands (HEFT weighed
that; a per-offload greedy rule would undo it).

Pure: plain data and arithmetic; the executor (gpu.executor) calls ``choose``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..framegraph import Executor, FilterPass, FrameGraph, TransferPass

__all__ = ["LATE_FRACTION", "LATE_MIN_MS", "Choice", "Offload", "choose", "offloads", "priced"]

LATE_FRACTION = 0.25  # behind plan: the expected remaining time exceeds the planned by a quarter...
LATE_MIN_MS = 0.5  # ...and by at least this (a millisecond's jitter is not lateness)


@dataclass(frozen=True)
class Offload:
    """OpenCL work the executor may run on GL instead: the placed passes it is
    (``cl_passes``: names, copies included), the GL version (``gl_passes``: the filter
    passes as planned on GL, writing the textures the copies back would), the GL
    textures it reads (``inputs``), and the predicted milliseconds: the filter work on
    each device, the copies in and out, and the time the schedule planned from its first
    copy in to its last copy back (``planned_ms``). ``pass_ms`` is each placed pass's
    predicted time on OpenCL (copies included): what an item queued on the device is
    expected to take."""

    name: str
    cl_passes: tuple[str, ...]
    gl_passes: tuple[FilterPass, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    gl_ms: float
    cl_ms: float
    copy_in_ms: float
    copy_out_ms: float
    planned_ms: float
    pass_ms: tuple[tuple[str, float], ...]
    # The OpenCL device it is placed on ("P:D"; "": the renderer's own): its backlog is
    # that device's queue, not another's.
    device: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "device": self.device, "cl_passes": list(self.cl_passes), "gl_passes": [p.name for p in self.gl_passes],
                "inputs": list(self.inputs), "outputs": list(self.outputs), "gl_ms": self.gl_ms, "cl_ms": self.cl_ms,
                "copy_in_ms": self.copy_in_ms, "copy_out_ms": self.copy_out_ms, "planned_ms": self.planned_ms}


@dataclass(frozen=True)
class Choice:
    """What ``choose`` decided for an offload, and the numbers it compared (ms from the
    moment it decided)."""

    offload: str
    executor: Executor
    gl_end_ms: float
    cl_end_ms: float
    planned_ms: float
    backlog_ms: float
    slowdown: float

    @property
    def moved(self) -> bool:
        return self.executor is Executor.GL

    def why(self) -> str:
        late = self.cl_end_ms - self.planned_ms
        return (f"dmda: on OpenCL it would end in {self.cl_end_ms:.2f} ms (queue {self.backlog_ms:.2f} ms, device "
                f"x{self.slowdown:.2f} its prediction this frame), {late:+.2f} ms against the plan's "
                f"{self.planned_ms:.2f} ms; on GL in {self.gl_end_ms:.2f} ms")

    def to_dict(self) -> dict[str, Any]:
        return {"offload": self.offload, "executor": self.executor.value, "gl_end_ms": round(self.gl_end_ms, 3),
                "cl_end_ms": round(self.cl_end_ms, 3), "planned_ms": round(self.planned_ms, 3),
                "backlog_ms": round(self.backlog_ms, 3), "slowdown": round(self.slowdown, 3), "why": self.why()}


def choose(offload: Offload, backlog_ms: float, slowdown: float = 1.0) -> Choice:
    """Where ``offload`` runs, decided now (module docstring): ``backlog_ms`` is the
    predicted time of what is still queued on its device, ``slowdown`` the measured over
    predicted time of the device's finished items this frame (1: none finished)."""
    slowdown = max(slowdown, 1e-3)
    backlog = backlog_ms * slowdown
    cl_end = max(backlog, offload.copy_in_ms) + offload.cl_ms * slowdown + offload.copy_out_ms
    gl_end = offload.gl_ms
    late = cl_end > offload.planned_ms * (1.0 + LATE_FRACTION) and cl_end - offload.planned_ms > LATE_MIN_MS
    executor = Executor.GL if late and gl_end < cl_end else Executor.OPENCL
    return Choice(offload.name, executor, gl_end, cl_end, offload.planned_ms, backlog, slowdown)


def offloads(gl_graph: FrameGraph, placed: FrameGraph, pass_ms, copy_ms, planned) -> tuple[Offload, ...]:
    """The offloads of ``placed`` (``gl_graph`` placed by a schedule): its OpenCL passes
    and copies grouped by the buffers they share. ``pass_ms(name, executor)`` is a
    filter pass's predicted time on GL or OpenCL, ``copy_ms(transfer)`` a copy's, and
    ``planned(names)`` the schedule's time from the first to the last of those passes
    (copies excluded: they are added here)."""
    on_gl = {p.name: p for p in gl_graph.passes if isinstance(p, FilterPass)}
    # Union-find over the buffers' names: a pass joins the buffers it touches, and an
    # offload is a set of passes whose buffers are joined (one pass at a time, by position).
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = parent.setdefault(x, x)
        while root != x:
            up = parent[root]
            parent[x] = up
            x, root = root, up
        return x

    opencl = Executor.OPENCL
    members: list[tuple[int, Any, str]] = []  # (position, pass, a buffer it touches)
    written: dict[str, int] = {}  # texture -> its last writer's position (copies write once)
    writes: dict[str, int] = {}  # texture -> how many passes write it
    for i, p in enumerate(placed.passes):
        name = p.target.name
        written[name] = i
        writes[name] = writes.get(name, 0) + 1
        if isinstance(p, FilterPass):
            if p.executor is not opencl:
                continue
            touched = [t.name for t in p.inputs]
            touched.append(name)
        elif isinstance(p, TransferPass):
            # A copy between two OpenCL devices joins the work on both into one unit:
            # which the next section leaves out (its GL version would have to stand in on
            # two devices' queues at once).
            touched = [t.name for t in (p.source, p.target) if t.location is opencl]
        else:
            continue
        if not touched:  # (a copy touching no OpenCL buffer: a unit of its own)
            touched = [f"\0{i}"]
        root = find(touched[0])
        for other in touched[1:]:
            r = find(other)
            if r != root:
                parent[r] = root
        members.append((i, p, touched[0]))
    groups: dict[str, list[tuple[int, Any]]] = {}
    for i, p, buffer in members:
        groups.setdefault(find(buffer), []).append((i, p))
    out = []
    for group in groups.values():  # (in the order of their first pass)
        first = group[0][0]
        passes = [p for _, p in group]
        filters, ins, outs = [], [], []
        for p in passes:
            if isinstance(p, FilterPass):
                filters.append(p)
            elif p.source.location is Executor.GL:
                ins.append(p)
            elif p.target.location is Executor.GL:
                outs.append(p)
        if not filters or not outs or any(p.name not in on_gl for p in filters):
            continue  # (nothing comes back to GL: no GL version stands in for it)
        devices = {p.device for p in filters}
        if len(devices) > 1 or len(filters) + len(ins) + len(outs) < len(passes):
            continue  # spans two OpenCL devices (a copy between them): no one queue to judge it by
        if any(written.get(t.source.name, -1) > first or writes.get(t.source.name, 0) > 1 for t in ins):
            # It reads what GL makes of its own results (HEFT put a pass of the chain on GL
            # in between), or a texture drawn in several passes (which of its states the
            # GL version would read depends on when it runs): it has no GL version.
            continue
        out.append(priced(len(out) + 1, passes, tuple([on_gl[p.name] for p in filters]), pass_ms, copy_ms, planned))
    return tuple(out)


def priced(number: int, passes: Sequence[Any], gl_version: tuple[FilterPass, ...], pass_ms, copy_ms,
           planned) -> Offload:
    """The ``number``-th offload of a frame: its placed ``passes`` (OpenCL filter passes
    and the copies into and out of them, in the placed order), its GL version, priced by
    ``pass_ms``, ``copy_ms`` and ``planned`` (``offloads``). A frame placed as the last
    one was (graph.rescheduled) has last frame's offloads, by position: only their names
    and prices are made again, by this."""
    opencl, gl = Executor.OPENCL, Executor.GL
    filters = [p for p in passes if isinstance(p, FilterPass)]
    ins = [p for p in passes if not isinstance(p, FilterPass) and p.source.location is gl]
    outs = [p for p in passes if not isinstance(p, FilterPass) and p.target.location is gl]
    copy_in, copy_out = sum([copy_ms(t) for t in ins]), sum([copy_ms(t) for t in outs])
    names = tuple([p.name for p in passes])
    cl = {p.name: pass_ms(p.name, opencl) for p in filters}
    layers = "+".join(dict.fromkeys(p.layer_id for p in filters))
    return Offload(
        name=f"offload {number} ({layers})",
        cl_passes=names, gl_passes=gl_version,
        inputs=tuple(dict.fromkeys(t.source.name for t in ins)),
        outputs=tuple(dict.fromkeys(t.target.name for t in outs)),
        gl_ms=sum([pass_ms(p.name, gl) for p in filters]),
        cl_ms=sum(cl.values()),
        copy_in_ms=copy_in, copy_out_ms=copy_out,
        planned_ms=planned(tuple(cl)) + copy_in + copy_out,
        pass_ms=tuple([(n, cl[n] if n in cl else copy_ms(p)) for n, p in zip(names, passes)]),
        device=filters[0].device)
