"""Incremental rescheduling (issue 22): what a frame whose task graph is last frame's
but for a few prices reuses of last frame's scheduling, and how it finds that it is
such a frame.

A frame whose key (graph.frame_schedule.frame_key) equals last frame's reuses the whole
outcome (graph.schedule_memo). A frame whose style changed a few passes' sizes (a blur
widening, a card growing) has another key, and was scheduled from nothing: the task
graph built and priced again, every upward rank, the rewrite, the issue order's
dependencies. ``Basis`` keeps those of last frame; ``Basis.changes`` compares the two
keys part by part and, where they differ only in footprints of passes (same name, type,
layer, device) and in sizes of textures (same format, role, kept flag, location,
device), says which passes and texture numbers changed. The passes read and write the
same textures by number, so the task graph has the same edges: only those passes' cost
rows and the copy matrices of the edges carrying those textures are priced again
(frame_schedule.repriced_dag), only their ranks and their ancestors' are computed
again (heft.updated_ranks), and HEFT places the frame from those (the same algorithm as
a frame scheduled from nothing, so the same schedule: a test asserts it). Where every
pass lands on the device it had last frame, the rewrite (graph.placed.Placement) and
the issue order's dependencies are last frame's too; otherwise they are made again.
Any other difference (a pass more or less, another texture read): None, and the frame
is scheduled from nothing.

Pure data and comparisons; graph.placed decides what to reuse.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

from .frame_schedule import FrameDAG, FrameKey

__all__ = ["Basis", "basis_of"]


@dataclass(frozen=True)
class Basis:
    """Last frame's scheduling, by number and position: its key's parts (``key``), the
    position in them of each pass's part (``pass_at``) and of each texture's
    description (``described_at``), its task graph (``fd``) with the number of the
    texture each edge carries (``carried``; -1: an order edge), the upward ranks, the
    device of each task (``devices``), and what graph.placed made of them (``reuse``:
    the rewrite, graph.placed.Placement, and the placed passes' issue dependencies,
    graph.issue_order.dependencies; None when the frame stayed on GL)."""

    key: tuple
    pass_at: tuple[int, ...]
    described_at: tuple[int, ...]
    fd: FrameDAG
    carried: tuple[int, ...]
    ranks: tuple[float, ...]
    devices: tuple[str, ...]
    reuse: Any = None

    def changes(self, key: FrameKey) -> tuple[frozenset[int], frozenset[int]] | None:
        """The passes (indexes) whose footprint and the textures (numbers) whose size
        differ between last frame and ``key``'s, or None when anything else differs
        (module docstring)."""
        new, old = key.key, self.key
        if len(new) != len(old) or len(key.textures) != len(self.described_at):
            return None
        tasks, resized = set(), set()
        for at in [k for k, (a, b) in enumerate(zip(old, new)) if a != b]:
            a, b = old[at], new[at]
            if type(a) is not tuple or type(b) is not tuple or len(a) != len(b):
                return None  # (a texture named by number, not described: another graph)
            k = bisect_right(self.pass_at, at) - 1
            if self.pass_at[k] == at:
                if a[:-1] != b[:-1]:  # (name, layer, executor, device or type: another pass)
                    return None
                tasks.add(k)
            else:
                if type(b[0]) is str or a[2:] != b[2:] or at not in self._described:
                    return None
                resized.add(self._described[at])
        return frozenset(tasks), frozenset(resized)

    def next(self, key: tuple, fd: FrameDAG, ranks: tuple[float, ...], devices: tuple[str, ...]) -> "Basis":
        """The basis of a frame scheduled from this one (``changes`` found its key's
        differences): the same positions and edges, its key, task graph, ranks and
        devices; nothing placed yet."""
        return Basis(key, self.pass_at, self.described_at, fd, self.carried, ranks, devices)

    def reused(self, rewrite: Any, deps: Any) -> "Basis":
        """This basis with what graph.placed made of its frame: the rewrite and the
        placed passes' issue dependencies (None: not made)."""
        return Basis(self.key, self.pass_at, self.described_at, self.fd, self.carried, self.ranks, self.devices,
                     (rewrite, deps))

    @cached_property
    def _described(self) -> dict[int, int]:
        """Texture number by the position of its description."""
        return {at: k for k, at in enumerate(self.described_at)}


def basis_of(key: FrameKey, fd: FrameDAG, ranks: Sequence[float], devices: Sequence[str]) -> Basis | None:
    """The Basis of a frame scheduled with ``key``, task graph ``fd`` and ``ranks``,
    whose tasks went on ``devices``; None when its task graph is not its passes one for
    one (a graph with transfers: a forced placement)."""
    if len(fd.tasks) != len(fd.numbers) or fd.numbers[-1:] not in ((), (len(fd.tasks),)):
        return None
    pass_at, described_at = [], []
    parts = key.key
    for at, part in enumerate(parts):
        if type(part) is tuple and part and type(part[0]) is str:
            pass_at.append(at)
        elif type(part) is tuple:
            described_at.append(at)
    described_at = described_at[:len(key.textures)]
    if len(pass_at) != len(fd.tasks) or len(described_at) != len(key.textures):
        return None
    carried = tuple(-1 if t is None else key.index.get(t.name, -2) for t in fd.data)
    if -2 in carried:
        return None
    return Basis(parts, tuple(pass_at), tuple(described_at), fd, carried, tuple(ranks), tuple(devices))
