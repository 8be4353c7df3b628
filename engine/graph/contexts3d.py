"""3D rendering contexts in a target's draws: each context's draws put in depth order,
its layers split where they intersect, as Chromium cc draws a sorting context (its
``BspTree`` over ``DrawPolygon``s in ``DirectRenderer::DrawRenderPass``).

A target's draws come in paint order (graph.backed: one per backing, surface or
layer). Each draw lies in the plane of one *member* of each context it is in (the
nearest member on its layer's ancestor chain; for a backing labelled by no layer, a
scroller's contents or a squashing backing, the chain of the layer ``Draw.owner_id``
names). A flat member that is a stacking context with drawing descendants is drawn
through a surface in its plane first (graph.routes: cc's "3D flattening"), and that
surface's draw is the member's; the draws of a flat member without a stacking context
of its own go, in paint order, wherever the member's fragments go, each cut to the
fragment. A member's polygon is its box grown to all the draws in its plane, as far as
clips in that plane show them (cc sorts a flattened surface's rect). Contexts whose
member a surface flattens are not sorted inside that surface, only where it is drawn
(``skip``).
Per context, innermost first:

1. every member with draws is a polygon: its box through its accumulated 4x4
   (compositor.tree.screen_matrix3d) into the target's px (lamina.geometry3d);
2. the polygons are sorted back to front and split by BSP trees (geometry3d.sort_context's
   SortStrategy.PARTITIONED: cc's tree per group that can overlap);
3. the context's run of draws is replaced by its fragments in that order: a whole
   member's draws as they were, a split member's draws once per piece, each with the
   piece's split edges as half-planes (``Draw.split_planes``, cut at pixel centres; the
   layer's real edges keep their anti-aliasing, as cc's do); a piece cut by more
   half-planes than a draw holds (MAX_SPLIT_PLANES) is drawn as convex parts that each
   fit, so no cut is dropped. A draw of no member inside the run keeps its place in
   paint order: the members' draws before it and after it are sorted apart (cc flushes
   a sorting context's polygons at a quad of another).

A member whose back face is hidden and toward the viewer was placed with a singular
matrix by the trees and draws nothing; the record names it. Plain data, no GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from ..compositor.tree import LayerNode, screen_matrix3d
from ..geometry import Affine, Projective, Rect, clipped_polygon
from ..geometry3d import DrawPolygon, DropReason, SortStrategy, sort_polygons
from ..geometry3d.polygon import project_layer_rects
from ..limits import MAX_SPLIT_PLANES
from ..matrix4 import Matrix4
from ..textures import Draw

__all__ = ["Context3D", "order_3d_contexts", "split_planes"]


@dataclass(frozen=True)
class Context3D:
    """One 3D rendering context as drawn into one target: its establishing layer, the
    layer of each fragment back to front (``split``: is it a piece), the layers split,
    those not drawn and why, and what sorting cost. ``outlines``: each split piece's
    polygon in target px (the overlay draws them)."""

    root: str
    target: str
    order: tuple[str, ...]
    split: tuple[bool, ...]
    layers_split: tuple[str, ...]
    splits: int
    dropped: tuple[tuple[str, str], ...]
    splitter_tests: int
    trees: int
    sweep_steps: int = 0  # polygons visited by the partition's sorts (geometry3d.context_order)
    outlines: tuple[tuple[tuple[float, float], ...], ...] = ()

    def to_dict(self) -> dict:
        return {"root": self.root, "target": self.target, "order": list(self.order), "split": list(self.split),
                "splits": self.splits, "layers_split": list(self.layers_split),
                "dropped": [{"layer": layer, "reason": why} for layer, why in self.dropped],
                "splitter_tests": self.splitter_tests, "sweep_steps": self.sweep_steps, "bsp_trees": self.trees}

    def describe(self) -> str:
        names = [f"{layer} (piece)" if cut else layer for layer, cut in zip(self.order, self.split)]
        text = (f"3D rendering context of {self.root!r} (into {self.target}): {len(self.order)} fragments, "
                f"{self.splits} split{'s' if self.splits != 1 else ''}"
                + (f" (layers split: {', '.join(self.layers_split)})" if self.layers_split else "")
                + "; back to front: " + (", ".join(names) if names else "(nothing drawn)"))
        for layer, why in self.dropped:
            text += f"; not drawn: {layer} ({why})"
        return text


def _chain(node: LayerNode | None) -> dict[str, LayerNode]:
    """Context id -> the node's nearest member of it (itself or an ancestor)."""
    out: dict[str, LayerNode] = {}
    while node is not None:
        if node.context3d is not None and node.context3d not in out:
            out[node.context3d] = node
        node = node.container
    return out


def order_3d_contexts(draws: Sequence[Draw], nodes: Mapping[str, LayerNode], to_target: Affine, target: str = "frame",
                      strategy: SortStrategy = SortStrategy.PARTITIONED, skip: frozenset[str] = frozenset()
                      ) -> tuple[tuple[Draw, ...], tuple[Context3D, ...]]:
    """``draws`` (a target's, paint order) with every 3D rendering context among them
    sorted and split; ``to_target`` maps screen px to the target's px. Draws of no
    context keep their places; contexts in ``skip`` are not sorted here (the target is a
    surface flattening one of their members: it is sorted where that surface is drawn)."""
    # A backing's draw whose label names no layer (scroller contents, a squashing
    # backing) is in the plane of the layer it says it belongs to (Draw.owner_id).
    chains = [_chain(nodes.get(d.owner_id or d.layer_id)) for d in draws]
    first_at: dict[str, int] = {}
    for i, chain in enumerate(chains):
        for c in chain:
            if c not in skip:
                first_at.setdefault(c, i)
    if not first_at:
        return tuple(draws), ()
    out = list(draws)
    records = []
    # Innermost first: an inner context's sorted run is then one member's draws in the
    # outer; contexts side by side in paint order.
    for root in sorted(first_at, key=lambda c: (-nodes[c].depth if c in nodes else 0, first_at[c])):
        out, chains, record = _order_one(out, chains, root, nodes, to_target, target, strategy)
        records.append(record)
    return tuple(out), tuple(records)


def _order_one(draws: list[Draw], chains: list[dict], root: str, nodes: Mapping[str, LayerNode], to_target: Affine,
               target: str, strategy: SortStrategy) -> tuple[list[Draw], list[dict], Context3D]:
    at = [i for i, chain in enumerate(chains) if root in chain]
    # A draw of no member inside the context's paint-order span keeps its place: the
    # members' draws before it are sorted and drawn first, then it, then the next run
    # sorted on its own (cc flushes a sorting context's polygons at a quad of another).
    runs = [[at[0]]]
    for i in at[1:]:
        if i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    merged = list(zip(draws[:at[0]], chains[:at[0]]))
    sorted_runs = []
    for k, run_at in enumerate(runs):
        if k:
            gap = range(runs[k - 1][-1] + 1, run_at[0])
            merged.extend((draws[i], chains[i]) for i in gap)
        run, record = _sort_run(draws, chains, run_at, root, nodes, to_target, target, strategy)
        merged.extend(run)
        sorted_runs.append(record)
    merged.extend(zip(draws[at[-1] + 1:], chains[at[-1] + 1:]))
    dropped = [d for r in sorted_runs for d in r.dropped]
    culled = [n.id for n in nodes.values() if n.context3d == root and n.backface_culled]
    dropped.extend((layer, DropReason.BACKFACE_HIDDEN.value) for layer in culled)
    record = Context3D(root, target, sum((r.order for r in sorted_runs), ()), sum((r.split for r in sorted_runs), ()),
                       sum((r.layers_split for r in sorted_runs), ()), sum(r.splits for r in sorted_runs), tuple(dropped),
                       sum(r.splitter_tests for r in sorted_runs), sum(r.trees for r in sorted_runs),
                       sum(r.sweep_steps for r in sorted_runs), sum((r.outlines for r in sorted_runs), ()))
    return [d for d, _ in merged], [c for _, c in merged], record


def _sort_run(draws: list[Draw], chains: list[dict], at: list[int], root: str, nodes: Mapping[str, LayerNode],
              to_target: Affine, target: str, strategy: SortStrategy) -> tuple[list[tuple[Draw, dict]], Context3D]:
    """One run of a context's draws (consecutive in paint order) sorted back to front and
    split, each with its chain; and its record (the back faces culled are the caller's)."""
    groups: dict[str, list[int]] = {}
    members: list[LayerNode] = []
    for i in at:
        member = chains[i][root]
        if member.id not in groups:
            groups[member.id] = []
            members.append(member)
        groups[member.id].append(i)
    to_target4 = np.asarray(Matrix4.from_plane_map(to_target))
    matrices = to_target4 @ np.stack([np.asarray(screen_matrix3d(m)) for m in members])
    made = project_layer_rects([(m.id, k, _plane_rect(m, [draws[i] for i in groups[m.id]], to_target, nodes), matrices[k])
                                for k, m in enumerate(members)])
    polygons = [p for p in made if isinstance(p, DrawPolygon)]
    whole = {p.layer_id: p for p in polygons}
    order = sort_polygons(polygons, strategy)
    first: list[int] = []  # draws of members with no plane to sort by (zero area, behind the eye): first, as painted
    dropped = []
    for member, p in zip(members, made):
        if p is DropReason.NON_INVERTIBLE:  # CSS Transforms: not rendered (as Chromium skips it)
            dropped.append((member.id, p.value))
        elif isinstance(p, DropReason):
            first.extend(groups[member.id])
            dropped.append((member.id, f"{p.value}: its draws are not sorted"))
    run: list[tuple[Draw, dict]] = [(draws[i], chains[i]) for i in first]
    outlines = []
    for f in order.fragments:
        parts: list[tuple[tuple[float, float, float], ...]] = [()]
        if f.is_split:
            # A piece cut by more planes than a draw holds is drawn as convex parts
            # that each are (split_planes: a fan from its first corner).
            room = MAX_SPLIT_PLANES - max(len(draws[i].split_planes) for i in groups[f.layer_id])
            parts = list(split_planes(f.polygon, whole[f.layer_id], room))
            outlines.append(tuple((float(x), float(y)) for x, y in f.polygon.points[:, :2]))
        for i in groups[f.layer_id]:
            for planes in parts:
                d = draws[i]
                if planes:
                    d = replace(d, split_planes=d.split_planes + planes)
                run.append((d, chains[i]))
    record = Context3D(root, target, tuple(str(f.layer_id) for f in order.fragments),
                       tuple(f.is_split for f in order.fragments), tuple(map(str, order.layers_split())),
                       order.splits, tuple(dropped), order.splitter_tests, order.trees, order.sweep_steps, tuple(outlines))
    return run, record


def _plane_rect(member: LayerNode, draws: list[Draw], to_target: Affine, nodes: Mapping[str, LayerNode]
                ) -> tuple[float, float, float, float]:
    """What the member's plane holds, in its px: its box, grown to every draw of its
    group (a flattened surface, descendants reaching past its box) as far as the clips
    of layers in its plane let them show (a scroller's contents tiles reach past the
    scroller), so the polygon sorted and split is all that is drawn in the plane (cc
    sorts a flattened surface's rect)."""
    box = Rect(0.0, 0.0, member.width, member.height)
    if all(d.source.name.startswith("layer:") and d.layer_id == member.id for d in draws):
        return (box.x, box.y, box.width, box.height)  # its own raster alone: the box is its quad
    placed = to_target @ member.to_screen
    if not placed.is_invertible():
        return (box.x, box.y, box.width, box.height)
    back = placed.inverse()
    xs, ys = [0.0, box.width], [0.0, box.height]
    for d in draws:
        shown = _local_bounds(back, clipped_polygon(Rect(0, 0, *d.quad_size), d.transform))
        for c in d.clips:
            if shown is not None and _in_plane_of(member, nodes.get(c.layer_id)) and c.to_local.is_invertible():
                clip_box = _local_bounds(back, _in_front(c.to_local.inverse(), Rect(*c.rect).corners()))
                shown = None if clip_box is None else shown.intersect(clip_box)
        if shown is not None and not shown.is_empty():
            xs += [shown.x, shown.right]
            ys += [shown.y, shown.bottom]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def _local_bounds(back: Affine | Projective, points: Sequence[tuple[float, float]]) -> Rect | None:
    """The bounds in a member's px of target px ``points`` (``back``: target px -> its px);
    None when none maps to a finite point. A point past the plane's horizon (w <= 0) is
    left out: a draw rounded out to whole target px (a surface of an edge-on member, 1 px
    wide) reaches past the line where its plane meets the eye."""
    local = _in_front(back, points)
    if not local:
        return None
    lx, ly = [p[0] for p in local], [p[1] for p in local]
    return Rect(min(lx), min(ly), max(lx) - min(lx), max(ly) - min(ly))


def _in_front(m: Affine | Projective, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The finite images under ``m`` of those ``points`` that map in front of the eye
    (w > 0); the others have no image (Projective.apply would raise)."""
    mapped = [Projective.of(m).homogeneous(x, y) for x, y in points]
    local = [(X / W, Y / W) for X, Y, W in mapped if W > 0.0]
    return [(x, y) for x, y in local if np.isfinite(x) and np.isfinite(y)]


def _in_plane_of(member: LayerNode, node: LayerNode | None) -> bool:
    """Is ``node`` the member or flattened into its plane (a descendant placed in it)?"""
    while node is not None:
        if node is member:
            return True
        node = node.container
    return False


def split_planes(piece: DrawPolygon, whole: DrawPolygon, room: int = MAX_SPLIT_PLANES
                 ) -> tuple[tuple[tuple[float, float, float], ...], ...]:
    """The half-planes (a, b, c), a x + b y + c >= 0 inside (= 0: inside only when
    a > 0, or a = 0 < b, quad.frag's tie rule), of the edges of ``piece``
    (in target px) that are cuts (``DrawPolygon.cut_edges``), not edges of the ``whole``
    layer it is a piece of: one
    tuple of them per convex part the piece is drawn as. One part, unless the piece has
    more than ``room`` cut edges (a draw holds MAX_SPLIT_PLANES): then a fan from its
    first corner, each part its run of edges and the diagonals that bound it (a shared
    diagonal's two planes exact negatives, so the tie rule gives each pixel to one)."""
    if room < 3:
        raise ValueError(f"a split piece needs room for 3 half-planes, a draw has {room} left")
    pts = piece.points[:, :2]
    scale = max(1.0, float(np.abs(whole.points[:, :2]).max()))
    centre = pts.mean(axis=0)
    n_pts = len(pts)
    # The edges the splits marked (geometry3d.polygon._cut); the layer's own edges and its
    # clip at the eye plane keep their anti-aliasing.
    marks = piece.cut_edges or (False,) * n_pts
    cuts = [_edge_plane(pts[k], pts[(k + 1) % n_pts], centre, scale) if marks[k] else None for k in range(n_pts)]
    if sum(c is not None for c in cuts) <= room:
        return (tuple(c for c in cuts if c is not None),)
    parts = []
    k = 0  # the part's first edge: p[k] -> p[k + 1]
    while k < n_pts:
        m = k  # grow the part by edges k..m while its planes fit
        while m + 1 < n_pts:
            used = sum(c is not None for c in cuts[k:m + 2]) + (k > 0) + (m + 2 < n_pts)
            if used > room:
                break
            m += 1
        corners = ([0] if k > 0 else []) + [t % n_pts for t in range(k, m + 2)]
        inside = pts[corners].mean(axis=0)
        planes = [c for c in cuts[k:m + 1] if c is not None]
        for far in ([k] if k > 0 else []) + ([m + 1] if m + 1 < n_pts else []):
            diagonal = _edge_plane(pts[0], pts[far], None, scale)
            if diagonal is not None:
                a, b, c = diagonal
                if a * inside[0] + b * inside[1] + c < 0:
                    a, b, c = -a, -b, -c
                planes.append((a, b, c))
        parts.append(tuple(planes))
        k = m + 1
    return tuple(parts)


def _edge_plane(a: np.ndarray, b: np.ndarray, centre: np.ndarray | None, scale: float
                ) -> tuple[float, float, float] | None:
    """The line through a and b as (a, b, c), unit normal, ``centre`` on its >= 0 side
    (None: as the points give it); None for a degenerate edge (the neighbouring ones
    bound the piece). Made from the ends in one order whichever way the edge runs, so
    the two pieces along a cut get exact negatives (the tie rule of quad.frag then
    gives a pixel centre on the line to one)."""
    flip = (float(a[0]), float(a[1])) > (float(b[0]), float(b[1]))
    if flip:
        a, b = b, a
    n = np.array([a[1] - b[1], b[0] - a[0]])
    length = float(np.hypot(*n))
    if length < 1e-9 * scale:
        return None
    n /= length
    c = -float(n @ a)
    if centre is not None and float(n @ centre) + c < 0 or centre is None and flip:
        n, c = -n, -c
    return (float(n[0]), float(n[1]), c)
