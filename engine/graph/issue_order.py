"""The order in which the executor's GL thread issues a frame graph's passes, once some
run on an OpenCL device: work for the device as early as the graph allows, a copy back
to GL as late as it allows.

The executor queues OpenCL work on the device and goes on (gpu.cl_queue); it waits
only where a pass needs the device's result, at a copy back to GL. Emitted layer by
layer, a graph copies a filter's result back right after the filter, so the GL thread
would wait there at once, with GL work that does not need the result still to come.
``issue_order`` reorders the passes: a topological order of their texture dependencies
(read after write, write after read, write after write: the edges of
``lamina.graph.frame_schedule``'s task graph), taking among the passes that are ready

* where the graph carries a frame-wide schedule, the one predicted to start first (a
  copy at the predicted start of the pass that reads what it copies): the executor
  issues the work in the order the schedule has the devices begin it;
* otherwise (a forced ``opencl`` placement) a copy back to GL only when no other pass
  is ready, and the graph's own order.

The frame's pixels do not change (every dependency is kept); what GL draws while the
device works does. A graph with no copy back is returned as it is.

Pure: a function of the graph; the result is a new graph that validates.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import replace
from ..framegraph import Executor, FrameGraph, TransferPass

__all__ = ["Dependencies", "dependencies", "issue_order"]


def _is_copy_back(p) -> bool:
    return isinstance(p, TransferPass) and p.source.location is not Executor.GL


def _predicted_starts(graph: FrameGraph, succs) -> list[float]:
    """Each pass's predicted start in the graph's schedule; a transfer (not a task of
    the schedule) that of the first pass after it that depends on it."""
    start = graph.schedule.table.starts_by_name()
    passes = graph.passes
    key = [math.inf] * len(passes)
    at = start.get
    for i in range(len(passes) - 1, -1, -1):  # (a transfer's readers come after it)
        k = at(passes[i].name)
        key[i] = k if k is not None else min([key[j] for j in succs[i]], default=math.inf)
    return key


Dependencies = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]  # each pass's successors, and its predecessors' count


def dependencies(passes) -> Dependencies:
    """The texture dependencies of ``passes`` (module docstring), by position: a function
    of which texture each pass reads and writes, so passes that read and write alike by
    position (a frame placed as last frame was, graph.placed) share them."""
    n = len(passes)
    succs: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    for i, p in enumerate(passes):
        before: set[int] = set()
        for t in p.reads():
            j = writer.get(t.name)
            if j is not None:
                before.add(j)
            readers.setdefault(t.name, []).append(i)
        name = p.target.name
        before.update(readers.pop(name, ()))
        if name in writer:
            before.add(writer[name])
        before.discard(i)
        for j in before:
            succs[j].append(i)
            indegree[i] += 1
        writer[name] = i
    return tuple(tuple(s) for s in succs), tuple(indegree)


def issue_order(graph: FrameGraph, deps: Dependencies | None = None) -> FrameGraph:
    """``graph`` with its passes in issue order (module docstring). ``deps``: its
    passes' ``dependencies``, when the caller has them."""
    passes = graph.passes
    if not any(_is_copy_back(p) for p in passes):
        return graph
    n = len(passes)
    succs, indegree = deps if deps is not None else dependencies(passes)
    indegree = list(indegree)
    key = _predicted_starts(graph, succs) if graph.schedule is not None else \
        [float(_is_copy_back(p)) for p in passes]  # a copy back waits while anything else can go
    ready = [(key[i], i) for i in range(n) if indegree[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for j in succs[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, (key[j], j))
    if len(order) != n:  # pragma: no cover - a validated graph has no cycle
        raise AssertionError("the frame graph's dependencies have a cycle")
    if order == list(range(n)):
        return graph
    # (No validate(): the order keeps every read after the write it reads, so the
    # issued graph is valid where ``graph`` was; tests/unit/test_issue_order.py checks it.)
    issued = replace(graph, passes=[passes[i] for i in order])
    if graph.schedule is not None:  # its slots name passes by their numbers in the graph
        number = {passes[i].name: k for k, i in enumerate(order, 1)}
        table = graph.schedule.table
        issued.schedule = graph.schedule.renumbered(tuple([number[p.name] for p in table.fd.tasks]))
    return issued
