"""The drawing order of one 3D rendering context (``transform-style: preserve-3d``): its
layers as screen-space polygons, hidden back faces dropped, sorted back to front and
split where they intersect, with the explanation a report shows.

Two strategies, the same picture:

* ``SortStrategy.ONE_TREE`` is cc's: one BSP tree over all the context's polygons in
  paint order. A layer is cut by the *infinite* plane of any layer sorted before it, even
  one far away on screen, and a stack painted back to front builds a chain of n^2 / 2
  polygon-against-plane tests (cc accepts this: its contexts are small).
* ``SortStrategy.PARTITIONED`` (the default) first cuts the context into groups that
  cannot hide one another, by gaps between bounding boxes, then builds one cc tree per
  group, in paint order. A group is split along z when, sorted by their farthest z, some
  polygon starts more than SPLIT_THRESHOLD in front of the nearest z of all before it:
  every point of the later group is nearer than every point of the earlier, so the
  groups are drawn back to front. Failing that, it is split the same way along x, then y:
  groups apart on screen never cover each other, so their order is free, and they are
  drawn in the paint order of their first members. Each group is split again until no
  axis has a gap (a group that cannot be split whole may split once a part is apart).
  Each split is a sort, O(m log m); a stack of parallel layers (cards, ``translateZ``
  layering, a carousel's front and back) comes apart into groups of one at the first
  split and needs no BSP test at all, where one tree would test n^2 / 2 pairs for a stack
  painted back to front. Only what overlaps in depth and on screen pays for a tree, as
  cc's does. It also cuts less: no layer is cut by the plane of one it never meets.
  Fragments of different groups may come in another order than cc's (they never overlap
  on screen, or one is wholly in front, so no pixel changes); the pieces and the order
  within a group are cc's.

Intersection-free is not always cheap: polygons that touch in a closed ring (the faces of
a prism) overlap in depth and on screen, and each has all the others behind its plane,
so any BSP over them is a chain (n^2 / 2 tests, fast in numpy: see
tests/benchmarks/test_bsp_bench.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Hashable, Sequence

import numpy as np

from .bsp import BspTree
from .polygon import SPLIT_THRESHOLD, DrawPolygon, DropReason, Side, is_back_face_visible, project_layer_rects

__all__ = ["ContextLayer", "SortStrategy", "Fragment", "DroppedLayer", "ContextOrder", "sort_context",
           "sort_polygons"]


@dataclass(frozen=True)
class ContextLayer:
    """One member of a 3D rendering context: its rect in its own space (x, y, width,
    height), its 4x4 transform to screen space (column vectors, see
    lamina.geometry3d.polygon), and whether ``backface-visibility: hidden`` applies."""

    layer_id: Hashable
    rect: tuple[float, float, float, float]
    transform: object
    backface_hidden: bool = False


class SortStrategy(enum.Enum):
    """How a context's polygons are put into BSP trees (the module docstring compares them)."""

    ONE_TREE = "one BSP tree in paint order (cc)"
    PARTITIONED = "groups apart in z, x or y, one BSP tree each in paint order"


@dataclass(frozen=True)
class Fragment:
    """One draw of a sorted context: a layer, or a piece of one when ``is_split``; the
    polygon is in screen space (its points (k, 3))."""

    layer_id: Hashable
    order: int
    polygon: DrawPolygon
    is_split: bool


@dataclass(frozen=True)
class DroppedLayer:
    """A member that draws nothing, and why."""

    layer_id: Hashable
    order: int
    reason: DropReason


@dataclass(frozen=True)
class ContextOrder:
    """A sorted 3D context: fragments back to front, dropped layers, and counts.

    ``polygons_in``: polygons sorted (members that draw); ``fragments_out`` =
    polygons_in + splits; ``splitter_tests``: polygon-against-plane tests of the BSP
    trees; ``sweep_steps``: polygons visited by the partition's sorts; ``trees``: BSP
    trees built and the largest one's polygons."""

    fragments: tuple[Fragment, ...]
    dropped: tuple[DroppedLayer, ...]
    strategy: SortStrategy
    polygons_in: int
    splits: int
    splitter_tests: int
    sweep_steps: int
    trees: int
    largest_tree: int

    @property
    def fragments_out(self) -> int:
        return len(self.fragments)

    def layers_split(self) -> tuple[Hashable, ...]:
        """The layers cut into pieces, in paint order."""
        split = {(f.order, f.layer_id) for f in self.fragments if f.is_split}
        return tuple(layer for _, layer in sorted(split, key=lambda item: item[0]))

    def layer_order(self) -> tuple[Hashable, ...]:
        """The layer of each fragment, back to front (a split layer appears once per piece)."""
        return tuple(f.layer_id for f in self.fragments)

    def summary(self) -> dict[str, object]:
        """The explanation as plain data (JSON-ready when layer ids are): the order back to
        front, what was split and dropped, and what the sort cost."""
        return {
            "strategy": self.strategy.name.lower(),
            "order": [f.layer_id for f in self.fragments],
            "split_fragments": [f.is_split for f in self.fragments],
            "polygons_in": self.polygons_in,
            "fragments_out": self.fragments_out,
            "splits": self.splits,
            "layers_split": list(self.layers_split()),
            "dropped": [{"layer": d.layer_id, "reason": d.reason.value} for d in self.dropped],
            "splitter_tests": self.splitter_tests,
            "sweep_steps": self.sweep_steps,
            "trees": self.trees,
            "largest_tree": self.largest_tree,
        }

    def describe(self) -> str:
        """A few lines for a report: order, splits, drops, what the sort cost."""
        pieces: dict[Hashable, int] = {}
        for f in self.fragments:
            pieces[f.layer_id] = pieces.get(f.layer_id, 0) + 1
        seen: dict[Hashable, int] = {}
        names = []
        for f in self.fragments:
            if pieces[f.layer_id] > 1:
                seen[f.layer_id] = seen.get(f.layer_id, 0) + 1
                names.append(f"{f.layer_id} ({seen[f.layer_id]}/{pieces[f.layer_id]})")
            else:
                names.append(str(f.layer_id))
        split = self.layers_split()
        lines = [
            f"3D rendering context: {self.polygons_in} polygons -> {self.fragments_out} fragments, "
            f"{self.splits} split{'s' if self.splits != 1 else ''}"
            + (f" (layers split: {', '.join(map(str, split))})" if split else ""),
            "  back to front: " + (", ".join(names) if names else "(nothing drawn)"),
        ]
        for d in self.dropped:
            lines.append(f"  not drawn: {d.layer_id} ({d.reason.value})")
        lines.append(f"  {self.strategy.value}: {self.trees} tree{'s' if self.trees != 1 else ''} "
                     f"(largest {self.largest_tree} polygons), {self.splitter_tests} splitter tests, "
                     f"{self.sweep_steps} partition steps")
        return "\n".join(lines)


@dataclass
class _Counts:
    splits: int = 0
    splitter_tests: int = 0
    sweep_steps: int = 0
    trees: int = 0
    largest_tree: int = 0
    fragments: list[DrawPolygon] = field(default_factory=list)


def sort_context(layers: Sequence[ContextLayer], strategy: SortStrategy = SortStrategy.PARTITIONED) -> ContextOrder:
    """The drawing order of a 3D context whose members are given in paint order."""
    polygons: list[DrawPolygon] = []
    dropped: list[DroppedLayer] = []
    made_all = project_layer_rects([(layer.layer_id, order, layer.rect, layer.transform)
                                    for order, layer in enumerate(layers)])
    for order, (layer, made) in enumerate(zip(layers, made_all)):
        if isinstance(made, DropReason):
            dropped.append(DroppedLayer(layer.layer_id, order, made))
        elif layer.backface_hidden and is_back_face_visible(layer.transform):
            dropped.append(DroppedLayer(layer.layer_id, order, DropReason.BACKFACE_HIDDEN))
        else:
            polygons.append(made)
    return sort_polygons(polygons, strategy, dropped)


def sort_polygons(polygons: Sequence[DrawPolygon], strategy: SortStrategy = SortStrategy.PARTITIONED,
                  dropped: Sequence[DroppedLayer] = ()) -> ContextOrder:
    """Polygons (in paint order) sorted back to front with ``strategy``."""
    counts = _Counts()
    if strategy is SortStrategy.ONE_TREE:
        _tree(list(polygons), counts)
    else:
        for group in _separated_groups(polygons, counts):
            _tree(group, counts)
    fragments = tuple(Fragment(p.layer_id, p.order, p, p.is_split) for p in counts.fragments)
    return ContextOrder(fragments, tuple(dropped), strategy, len(polygons), counts.splits, counts.splitter_tests,
                        counts.sweep_steps, counts.trees, counts.largest_tree)


def _tree(polygons: list[DrawPolygon], counts: _Counts) -> None:
    if len(polygons) == 1:  # nothing to sort: no tree
        counts.fragments.append(polygons[0])
        return
    if not polygons:
        return
    if len(polygons) == 2:  # the tree of two, without building one: a root and one child
        _pair(polygons[0], polygons[1], counts)
        return
    tree = BspTree(polygons)
    counts.fragments.extend(tree.back_to_front())
    counts.splits += tree.stats.splits
    counts.splitter_tests += tree.stats.splitter_tests
    counts.trees += 1
    counts.largest_tree = max(counts.largest_tree, len(polygons))


def _pair(root: DrawPolygon, other: DrawPolygon, counts: _Counts) -> None:
    """What BspTree does with two polygons: ``other`` sorted (or cut) by ``root``'s plane,
    then drawn around it as the walk would."""
    result = root.split(other)
    viewer_in_front = root.normal[2] > 0.0
    if result.side in (Side.COPLANAR_BACK, Side.COPLANAR_FRONT):
        drawn = [other, root] if result.side is Side.COPLANAR_BACK else [root, other]
    else:
        near, far = (result.front, result.back) if viewer_in_front else (result.back, result.front)
        drawn = [p for p in (far, root, near) if p is not None]
    counts.fragments.extend(drawn)
    counts.splits += result.side is Side.SPLIT
    counts.splitter_tests += 1
    counts.trees += 1
    counts.largest_tree = max(counts.largest_tree, 2)


def _bounds(polygons: Sequence[DrawPolygon]) -> tuple[np.ndarray, np.ndarray]:
    """Each polygon's bounding box in screen space: (n, 3) lows and highs."""
    points = np.concatenate([p.points for p in polygons])
    starts = np.cumsum([0] + [len(p.points) for p in polygons[:-1]])
    return np.minimum.reduceat(points, starts, axis=0), np.maximum.reduceat(points, starts, axis=0)


_AXES = (2, 0, 1)  # z first: its groups have an order (back to front); x and y groups do not


def _gaps(lo: np.ndarray, hi: np.ndarray, members: np.ndarray, axis: int) -> list[np.ndarray]:
    """``members`` (indices in paint order) split where, sorted by their low end on
    ``axis``, one starts more than SPLIT_THRESHOLD past the high ends of all before it;
    the groups in that order along the axis, each in paint order."""
    by_low = members[np.argsort(lo[members, axis], kind="stable")]
    reach = np.maximum.accumulate(hi[by_low, axis])
    starts = np.flatnonzero(lo[by_low[1:], axis] > reach[:-1] + SPLIT_THRESHOLD) + 1
    return [np.sort(group) for group in np.split(by_low, starts)]


def _separated_groups(polygons: Sequence[DrawPolygon], counts: _Counts) -> list[list[DrawPolygon]]:
    """The polygons in groups that cannot hide one another, in drawing order (see the
    module docstring); iterative, since a staircase can peel off one polygon a split."""
    if len(polygons) < 2:
        return [list(polygons)]
    lo, hi = _bounds(polygons)
    out: list[list[DrawPolygon]] = []
    work = [np.arange(len(polygons))]
    while work:
        members = work.pop()
        groups = [members]
        if len(members) > 1:
            for axis in _AXES:
                counts.sweep_steps += len(members)
                groups = _gaps(lo, hi, members, axis)
                if len(groups) > 1:
                    if axis != 2:  # apart on screen: in the paint order of their first members
                        groups.sort(key=lambda g: g[0])
                    break
        if len(groups) == 1:
            out.append([polygons[i] for i in members.tolist()])
        else:
            work.extend(reversed(groups))
    return out
