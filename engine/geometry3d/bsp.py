"""A BSP tree of screen-space polygons and its back-to-front walk (the shape of Chromium
cc's ``BspTree``; our own code).

Built as cc builds it: the polygons come in paint order, the first is the root's
splitter, and every later one is classified against it: in front, behind, cut in two
(the pieces go to both sides), or coplanar, kept in the node's own lists in paint order
(``coplanars_back`` for earlier layers, ``coplanars_front`` for later ones). Each side's
first polygon splits that side, and so on.

The walk (``back_to_front``) is for a viewer looking down -z from z = +inf (screen space
after the perspective divide; see lamina.geometry3d.polygon): at a node whose normal
points toward the viewer (normal.z > 0) the back subtree is drawn first, then the
coplanar layers before it, the node, the coplanar layers after it, then the front
subtree; otherwise the subtrees swap. Coplanar layers keep paint order whichever way they
face (CSS Transforms 2; cc does the same).

Cost: every polygon in a subtree is tested against the subtree's splitter, so a tree is
O(n^2) tests when it degenerates into a chain, which paint order makes common: a stack of
layers painted back to front puts each one in front of all earlier ones. The tests of one
node run as one numpy expression over all the polygons it sorts (one (m, k) distance
array), and only the polygons that cross the plane are cut in Python, so a chain of a
thousand costs tens of milliseconds; lamina.geometry3d.context_order keeps most trees
small in the first place. Both build and walk are iterative: a chain of thousands of
nodes would pass Python's recursion limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .polygon import SPLIT_THRESHOLD, DrawPolygon, Side, split_by_distances

__all__ = ["BspStats", "BspTree"]


@dataclass(frozen=True)
class BspStats:
    """What building a tree did: polygons in, fragments out, how many cuts (each makes
    one more fragment), how many polygon-against-plane tests, nodes and the deepest one."""

    polygons_in: int
    fragments_out: int
    splits: int
    splitter_tests: int
    nodes: int
    depth: int


class _Store:
    """The polygons of one build, original and cut, by index, with their points padded
    to one vertex count (the last vertex repeated: it has the same distance from any
    plane, so it changes no classification) for the per-node numpy tests."""

    def __init__(self, polygons: Sequence[DrawPolygon]):
        self.polygons: list[DrawPolygon] = list(polygons)
        self.width = max(len(p.points) for p in polygons)
        self.points = np.empty((max(8, 2 * len(polygons)), self.width, 3))
        for i, p in enumerate(polygons):
            self._put(i, p.points)
        self.orders = np.empty(len(self.points), dtype=np.int64)
        self.orders[: len(polygons)] = [p.order for p in polygons]

    def _put(self, i: int, points: np.ndarray) -> None:
        k = len(points)
        self.points[i, :k] = points
        self.points[i, k:] = points[-1]

    def add(self, polygon: DrawPolygon) -> int:
        i = len(self.polygons)
        k = len(polygon.points)
        if k > self.width:  # a piece cut many times: widen, repeating each last vertex
            wider = np.empty((len(self.points), k, 3))
            wider[:, : self.width] = self.points
            wider[:, self.width:] = self.points[:, self.width - 1: self.width]
            self.points, self.width = wider, k
        if i == len(self.points):
            self.points = np.concatenate([self.points, np.empty_like(self.points)])
            self.orders = np.concatenate([self.orders, np.empty_like(self.orders)])
        self.polygons.append(polygon)
        self._put(i, polygon.points)
        self.orders[i] = polygon.order
        return i


@dataclass
class _Node:
    splitter: int
    coplanars_back: np.ndarray
    coplanars_front: np.ndarray
    back: "_Node | None" = None
    front: "_Node | None" = None


_EMPTY = np.zeros(0, dtype=np.int64)


class BspTree:
    """A BSP tree of polygons given in paint order (the first is the root's splitter)."""

    def __init__(self, polygons: Sequence[DrawPolygon]):
        self._store = _Store(polygons) if polygons else None
        self._root: _Node | None = None
        splits = tests = nodes = depth = 0
        if polygons:
            self._root = _Node(0, _EMPTY, _EMPTY)
            work: list[tuple[_Node, np.ndarray, int]] = [(self._root, np.arange(1, len(polygons)), 1)]
            while work:
                node, rest, level = work.pop()
                nodes += 1
                depth = max(depth, level)
                if not len(rest):
                    continue
                tests += len(rest)
                back, front, cut = self._partition(node, rest)
                splits += cut
                for side, ids in (("back", back), ("front", front)):
                    if len(ids):
                        child = _Node(int(ids[0]), _EMPTY, _EMPTY)
                        setattr(node, side, child)
                        work.append((child, ids[1:], level + 1))
        self.stats = BspStats(len(polygons), nodes + sum(len(n.coplanars_back) + len(n.coplanars_front)
                                                         for n in self._nodes()),
                              splits, tests, nodes, depth)

    def _partition(self, node: _Node, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Classify ``rest`` against the node's splitter (one numpy expression), cut the
        ones that cross it, fill the node's coplanar lists; the back and front lists,
        each in paint order (a cut polygon's piece takes its place)."""
        store = self._store
        splitter = store.polygons[node.splitter]
        d = store.points[rest] @ splitter.normal - splitter.distance
        pos = d.max(axis=1) > SPLIT_THRESHOLD  # beyond the thick plane on either side
        neg = d.min(axis=1) < -SPLIT_THRESHOLD
        coplanar = ~(pos | neg)
        if coplanar.any():
            later = store.orders[rest] >= splitter.order
            node.coplanars_front = rest[coplanar & later]
            node.coplanars_back = rest[coplanar & ~later]
        both = pos & neg
        if not both.any():
            return rest[neg], rest[pos], 0
        crossing = np.flatnonzero(both)
        front_ids, back_ids = rest.copy(), rest.copy()
        for k in crossing.tolist():
            polygon = store.polygons[rest[k]]
            result = split_by_distances(polygon, d[k, : len(polygon.points)], splitter.order)
            assert result.side is Side.SPLIT, "the numpy test and the cut agree on crossing"
            front_ids[k] = store.add(result.front)
            back_ids[k] = store.add(result.back)
        return back_ids[neg], front_ids[pos], len(crossing)

    def _nodes(self):
        stack = [self._root] if self._root else []
        while stack:
            node = stack.pop()
            yield node
            stack.extend(c for c in (node.back, node.front) if c is not None)

    def back_to_front(self) -> list[DrawPolygon]:
        """The fragments in drawing order for a viewer looking down -z: each one drawn
        after everything it may hide."""
        if self._root is None:
            return []
        polygons = self._store.polygons
        out: list[DrawPolygon] = []
        # a stack of nodes to walk and runs of polygon ids to draw, last pushed first
        stack: list[_Node | np.ndarray] = [self._root]
        while stack:
            item = stack.pop()
            if isinstance(item, np.ndarray):
                out.extend(polygons[i] for i in item)
                continue
            viewer_in_front = polygons[item.splitter].normal[2] > 0.0
            first, last = (item.back, item.front) if viewer_in_front else (item.front, item.back)
            if last is not None:
                stack.append(last)
            stack.append(item.coplanars_front)
            stack.append(np.array([item.splitter]))
            stack.append(item.coplanars_back)
            if first is not None:
                stack.append(first)
        return out
