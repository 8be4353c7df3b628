"""The drawing order of one 3D rendering context (``transform-style: preserve-3d``): its
layers as screen-space polygons, hidden back faces dropped, sorted back to front and
split where they intersect, with the explanation a report shows.

Two strategies, the same picture:

* ``SortStrategy.ONE_TREE`` is cc's: one BSP tree over all the context's polygons in
  paint order. A layer is cut by the *infinite* plane of any layer sorted before it, even
  one far away on screen, and a stack painted back to front builds a chain: n^2 / 2
  polygon-against-plane tests.
* ``SortStrategy.PARTITIONED`` (the default) first cuts the context into groups that
  cannot hide each other, then builds one cc tree per group, in paint order:
  1. depth groups: the polygons sorted by their nearest-to-back z; a new group starts
     where a polygon lies wholly in front of everything before it (its z range starts
     more than SPLIT_THRESHOLD past the largest z so far). Each group is drawn after the
     ones behind it: every point of it is nearer than every point of those.
  2. within a depth group, screen groups: polygons whose xy bounding boxes do not touch
     (directly or through others) cannot cover one another, so their order is free;
     groups are drawn in the paint order of their first layer.
  Sorting is O(n log n); a stack of parallel layers (the common context: cards,
  ``translateZ`` layering) is n groups of one and needs no BSP test at all, where one
  tree would test n^2 / 2 pairs. Only groups that overlap in depth and on screen pay for
  a tree, as cc's does. It also makes fewer cuts: no layer is cut by the plane of one it
  never meets. Fragments in different groups may come in another order than cc's (they
  never overlap on screen, so no pixel changes); pieces and order within a group are
  cc's.

Intersection-free is not always cheap: a carousel (cards on a ring, all
overlapping in depth and on screen) puts every other card behind each card's plane, so
*any* BSP over it is a chain; numpy keeps the n^2 / 2 tests fast (see
tests/benchmarks/test_bsp_bench.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Hashable, Sequence

import numpy as np

from .bsp import BspTree
from .polygon import SPLIT_THRESHOLD, DrawPolygon, DropReason, is_back_face_visible, project_layer_rects

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
    PARTITIONED = "depth groups, then screen groups, one BSP tree each in paint order"


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
    trees; ``overlap_tests``: bounding-box tests of the screen grouping; ``trees``: BSP
    trees built and the largest one's polygons."""

    fragments: tuple[Fragment, ...]
    dropped: tuple[DroppedLayer, ...]
    strategy: SortStrategy
    polygons_in: int
    splits: int
    splitter_tests: int
    overlap_tests: int
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
                     f"{self.overlap_tests} overlap tests")
        return "\n".join(lines)


@dataclass
class _Counts:
    splits: int = 0
    splitter_tests: int = 0
    overlap_tests: int = 0
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
        for depth_group in _depth_groups(polygons):
            for screen_group in _screen_groups(depth_group, counts):
                _tree(screen_group, counts)
    fragments = tuple(Fragment(p.layer_id, p.order, p, p.is_split) for p in counts.fragments)
    return ContextOrder(fragments, tuple(dropped), strategy, len(polygons), counts.splits, counts.splitter_tests,
                        counts.overlap_tests, counts.trees, counts.largest_tree)


def _tree(polygons: list[DrawPolygon], counts: _Counts) -> None:
    if len(polygons) == 1:  # nothing to sort: no tree
        counts.fragments.append(polygons[0])
        return
    if not polygons:
        return
    tree = BspTree(polygons)
    counts.fragments.extend(tree.back_to_front())
    counts.splits += tree.stats.splits
    counts.splitter_tests += tree.stats.splitter_tests
    counts.trees += 1
    counts.largest_tree = max(counts.largest_tree, len(polygons))


def _depth_groups(polygons: Sequence[DrawPolygon]) -> list[list[DrawPolygon]]:
    """Groups each wholly in front of the ones before it (back first), members in paint order."""
    if not polygons:
        return []
    z_near = np.array([p.points[:, 2].max() for p in polygons])
    z_far = np.array([p.points[:, 2].min() for p in polygons])
    by_depth = np.lexsort((np.arange(len(polygons)), z_far))
    reach = np.maximum.accumulate(z_near[by_depth])
    starts = np.flatnonzero(z_far[by_depth][1:] > reach[:-1] + SPLIT_THRESHOLD) + 1
    return [[polygons[i] for i in sorted(group)] for group in np.split(by_depth, starts)]


def _screen_groups(polygons: list[DrawPolygon], counts: _Counts) -> list[list[DrawPolygon]]:
    """Groups of polygons whose screen bounding boxes touch, directly or through others
    (a sweep along x with union-find), each in paint order, ordered by their first member."""
    n = len(polygons)
    if n < 2:
        return [polygons]
    lo = np.array([p.points[:, :2].min(axis=0) for p in polygons]) - SPLIT_THRESHOLD
    hi = np.array([p.points[:, :2].max(axis=0) for p in polygons]) + SPLIT_THRESHOLD
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    active: list[int] = []
    for i in np.argsort(lo[:, 0], kind="stable").tolist():
        active = [j for j in active if hi[j, 0] >= lo[i, 0]]
        counts.overlap_tests += len(active)
        for j in active:
            if hi[j, 1] >= lo[i, 1] and hi[i, 1] >= lo[j, 1]:
                a, b = root(i), root(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
        active.append(i)
    groups: dict[int, list[DrawPolygon]] = {}
    for i in range(n):  # paint order, so each group's list and the dict's order follow it
        groups.setdefault(root(i), []).append(polygons[i])
    return list(groups.values())
