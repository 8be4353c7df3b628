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
(frame_schedule.repriced_dag), and only their ranks and their ancestors' are computed
again (heft.updated_ranks: the same numbers as computed anew). The frame is then placed
by HEFT with repair (heft.repaired): in HEFT's order, the repriced passes, those that
read a resized texture and everything that depends on them go to the device that
finishes them first; every other pass stays on the device it had, at the earliest start
the timelines allow. HEFT itself would move many passes for a small change (its
earliest-finish ties and rank order shift: measured, a blur widening by a pixel moved
20 of 55 passes); the repair moves only what changed, so last frame's rewrite
(graph.placed.Placement) and the issue order's dependencies are reused whenever the
re-placed passes land where they were.

Why it is a valid schedule: it is made by the same list scheduling as HEFT's (each
pass starts after its inputs, with their copies, are on its device, in an idle gap of
that device's timeline), only the device of some passes is given; graph.heft.check
holds for it. How far from HEFT: not bounded in general (HEFT is itself a heuristic;
the repair beats it on some graphs); measured on 200 seeded random DAGs with a few
tasks repriced (tests/unit/test_rescheduled.py), the repaired makespan over HEFT's has
median 1.00, 90th percentile 1.04 and worst 1.13; on the restyled benchmark frames
at most 1% over HEFT's at 500 passes, 5% at 50. After ``HEFT_EVERY`` repaired frames in a row a frame is placed
whole by HEFT. Any other difference (a pass more or less, another texture read):
``changes`` says None, and the frame is scheduled from nothing.

Pure data and comparisons; graph.placed decides what to reuse.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import compress, count
from operator import ne
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

from .frame_schedule import FrameDAG, FrameKey

__all__ = ["Basis", "HEFT_EVERY", "basis_of"]

# A repaired schedule keeps most tasks where an earlier one put them; after this many
# repaired frames in a row, a frame is scheduled whole by HEFT again (``changes`` says
# None), so repairs upon repairs cannot drift from HEFT for long.
HEFT_EVERY = 16


@dataclass(frozen=True)
class Basis:
    """Last frame's scheduling, by number and position: its key's parts (``key``), the
    position in them of each pass's part (``pass_at``) and of each texture's
    description (``described_at``), its task graph (``fd``) with the number of the
    texture each edge carries (``carried``; -1: an order edge), the upward ranks, the
    device of each task (``devices``: its index in the costs' devices), and what graph.placed made of them (``reuse``:
    the rewrite, graph.placed.Placement, the placed passes' issue dependencies,
    graph.issue_order.dependencies, and the offloads by position; None when the frame
    stayed on GL)."""

    key: tuple
    pass_at: tuple[int, ...]
    described_at: tuple[int, ...]
    fd: FrameDAG
    carried: tuple[int, ...]
    ranks: tuple[float, ...]
    devices: tuple[int, ...]
    reuse: Any = None
    repairs: int = 0  # frames repaired since the last one HEFT placed whole (``HEFT_EVERY``)

    def changes(self, key: FrameKey) -> tuple[frozenset[int], frozenset[int]] | None:
        """The passes (indexes) whose footprint and the textures (numbers) whose size
        differ between last frame and ``key``'s, or None when anything else differs
        (module docstring)."""
        new, old = key.key, self.key
        if len(new) != len(old) or len(key.textures) != len(self.described_at) or self.repairs >= HEFT_EVERY:
            return None
        tasks, resized = set(), set()
        for at in compress(count(), map(ne, old, new)):  # (the positions that differ, compared in C)
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

    def next(self, key: tuple, fd: FrameDAG, ranks: tuple[float, ...], devices: tuple[int, ...]) -> "Basis":
        """The basis of a frame scheduled from this one (``changes`` found its key's
        differences): the same positions and edges, its key, task graph, ranks and
        devices; nothing placed yet."""
        return Basis(key, self.pass_at, self.described_at, fd, self.carried, ranks, devices, None, self.repairs + 1)

    def reused(self, rewrite: Any, deps: Any, offloads: Any) -> "Basis":
        """This basis with what graph.placed made of its frame: the rewrite, the placed
        passes' issue dependencies and its offloads by position (None: not made)."""
        return Basis(self.key, self.pass_at, self.described_at, self.fd, self.carried, self.ranks, self.devices,
                     (rewrite, deps, offloads), self.repairs)

    @cached_property
    def _described(self) -> dict[int, int]:
        """Texture number by the position of its description."""
        return {at: k for k, at in enumerate(self.described_at)}


def basis_of(key: FrameKey, fd: FrameDAG, ranks: Sequence[float], devices: Sequence[int]) -> Basis | None:
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
