"""Planar convex polygons in 3D screen space: a layer's rect through its 4x4 transform,
and the split of one polygon by another's plane (the geometry of Chromium cc's
``DrawPolygon``; our own code).

Coordinates: CSS pixels, x right, y down, z toward the viewer (CSS Transforms 2: a
positive ``translateZ`` comes closer; ``perspective(d)`` puts the eye at z = d). Screen
space is after the perspective divide, so the viewer looks down -z from z = +inf and
depth order there is an orthographic question: larger z is nearer. A 4x4 transform acts
on column vectors, ``M @ (x, y, z, 1)``; ``matrix3d(a1..a16)`` lists M column by column.

A layer's corners are mapped in homogeneous space and the quad is clipped against
w >= ``W_CLIP`` *before* the divide (a quad that reaches the eye plane would otherwise
fold through infinity), as cc's ``MapClippedQuad3d`` clips at w = 0. The cut points lie
on the layer's plane (interpolated in homogeneous space), far out but finite: about
1 / W_CLIP times the layer's coordinates, where cc clamps to a large coordinate while
keeping the points coplanar. Points within
``SPLIT_THRESHOLD`` px of a plane count as on it (cc's "thick plane", 0.05 px), so a
hair of numerical noise never splits a polygon into slivers.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Hashable, Sequence

import numpy as np

from lamina.errors import GeometryError

__all__ = ["SPLIT_THRESHOLD", "W_CLIP", "Side", "DropReason", "DrawPolygon", "SplitResult", "project_layer_rect",
           "project_layer_rects", "is_back_face_visible", "as_transform"]

SPLIT_THRESHOLD = 0.05  # px: how thick a plane is (cc's split_threshold)
W_CLIP = 1e-5  # homogeneous w below which a point is at or behind the eye plane
# cc's Transform::IsBackFaceVisible compares cofactor33 * determinant with this (float epsilon).
BACK_FACE_EPSILON = float(np.finfo(np.float32).eps)
_AREA_EPSILON = 1e-9  # px^2: a polygon with less 3D area than this is degenerate
_SINGULAR_RATIO = 1e-12  # |det| / (product of row lengths) below this: non-invertible


class Side(enum.Enum):
    """Where a polygon lies relative to a splitting plane."""

    FRONT = "front"  # on the side the plane's normal points to
    BACK = "back"
    COPLANAR_FRONT = "coplanar, drawn after"  # in the thick plane, later in paint order
    COPLANAR_BACK = "coplanar, drawn before"  # in the thick plane, earlier in paint order
    SPLIT = "split"  # crosses the plane: cut into a front and a back piece


class DropReason(enum.Enum):
    """Why a layer of a 3D context draws nothing (the report says it)."""

    NON_INVERTIBLE = "non-invertible transform (CSS Transforms: not rendered)"
    BEHIND_VIEWER = "entirely behind the viewer (w <= 0 after perspective)"
    ZERO_AREA = "zero area"
    BACKFACE_HIDDEN = "backface-visibility: hidden and its back faces the viewer"


def as_transform(transform: object, where: str) -> np.ndarray:
    """A 4x4 float64 matrix from anything numpy can read as one (a nested list, an
    array, an object with ``__array__``); a wrong shape or a non-finite entry is a
    GeometryError naming ``where``."""
    try:
        m = np.asarray(transform, dtype=np.float64)
    except (TypeError, ValueError):
        raise GeometryError(f"{where}: transform must be a 4x4 matrix of numbers, got {transform!r}"[:200]) from None
    if m.shape != (4, 4):
        raise GeometryError(f"{where}: transform must be a 4x4 matrix, got shape {m.shape}")
    if not np.isfinite(m).all():
        raise GeometryError(f"{where}: transform has non-finite entries {m[~np.isfinite(m)].tolist()[:4]}")
    return m


def is_back_face_visible(transform: object) -> bool:
    """Whether a layer drawn with this (screen-space) 4x4 transform shows its back face.

    cc's ``Transform::IsBackFaceVisible``: the layer's normal (0, 0, 1) maps through the
    inverse transpose; only the sign of its z matters, which is cofactor33 / det, so
    neither the inverse nor the division is needed. A non-invertible matrix shows no back
    face (it draws nothing at all)."""
    m = as_transform(transform, "is_back_face_visible")
    det = float(np.linalg.det(m))
    if det == 0.0:
        return False
    # cofactor of (2, 2): the determinant of rows and columns 0, 1, 3 (sign (+1)^(2+2))
    cofactor33 = float(np.linalg.det(m[np.ix_((0, 1, 3), (0, 1, 3))]))
    return cofactor33 * det < -BACK_FACE_EPSILON


@dataclass(frozen=True, eq=False)
class DrawPolygon:
    """A planar convex polygon in screen space, a whole layer or a piece of one.

    ``points`` (k >= 3, 3) float64 in order around the polygon; ``normal`` unit length,
    pointing to the layer's front side (toward the viewer when the front faces it);
    ``distance`` = normal . p for every point p of the plane. ``order`` is the layer's
    place in the context's paint order; pieces keep their layer's id, order and normal
    (cc keeps the original normal too, so slivers do not wobble it)."""

    layer_id: Hashable
    order: int
    points: np.ndarray
    normal: np.ndarray
    distance: float
    is_split: bool = False
    # Per edge (points[k] -> points[k + 1]): whether a split made it (a cut), not the
    # layer's own edge or its clip at the eye plane; None: a whole layer, no cut.
    cut_edges: tuple[bool, ...] | None = None

    def signed_distances(self, points: np.ndarray) -> np.ndarray:
        """Signed distances of points (..., 3) from this polygon's plane (+ in front)."""
        return points @ self.normal - self.distance

    def faces_viewer(self) -> bool:
        """Whether the front side faces the viewer (who looks down -z from +inf)."""
        return bool(self.normal[2] > 0.0)

    def screen_area(self) -> float:
        """Area covered on screen (the xy projection), px^2."""
        x, y = self.points[:, 0], self.points[:, 1]
        return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))

    def area(self) -> float:
        """Area in 3D screen space, px^2 (Newell's vector area)."""
        return 0.5 * float(np.linalg.norm(np.cross(self.points, np.roll(self.points, -1, axis=0)).sum(axis=0)))

    def split(self, polygon: "DrawPolygon") -> "SplitResult":
        """Classify ``polygon`` against this polygon's plane, cutting it when it crosses.

        Points within SPLIT_THRESHOLD count as on the plane. A polygon wholly in the
        thick plane is coplanar: after this one when later (or equal) in paint order,
        before it otherwise (cc: coplanar layers keep paint order, whichever way they
        face)."""
        d = self.signed_distances(polygon.points)
        return split_by_distances(polygon, d, self.order)

    def to_layer_space(self, transform: object) -> np.ndarray:
        """The points mapped back through ``transform``'s inverse: (k, 2) layer-local x, y
        (what a drawer needs to texture a piece; cc's ``TransformToLayerSpace``)."""
        m = as_transform(transform, "to_layer_space")
        h = np.c_[self.points, np.ones(len(self.points))] @ np.linalg.inv(m).T
        return h[:, :2] / h[:, 3:4]


@dataclass(frozen=True)
class SplitResult:
    """What a split did: the side, and the polygon (or its pieces) on each side."""

    side: Side
    front: DrawPolygon | None
    back: DrawPolygon | None


def split_by_distances(polygon: DrawPolygon, d: np.ndarray, splitter_order: int) -> SplitResult:
    """The split of ``polygon`` given its vertices' signed distances ``d`` from a plane
    (the work of DrawPolygon.split, shared with the BSP builder, which computes the
    distances of many polygons at once)."""
    dist = [0.0 if -SPLIT_THRESHOLD <= v <= SPLIT_THRESHOLD else v for v in d.tolist()]
    pos, neg = max(dist) > 0, min(dist) < 0
    if not pos and not neg:
        if polygon.order >= splitter_order:
            return SplitResult(Side.COPLANAR_FRONT, polygon, None)
        return SplitResult(Side.COPLANAR_BACK, None, polygon)
    if not neg:
        return SplitResult(Side.FRONT, polygon, None)
    if not pos:
        return SplitResult(Side.BACK, None, polygon)
    cuts = polygon.cut_edges if polygon.cut_edges is not None else (False,) * len(dist)
    (front, front_cuts), (back, back_cuts) = _cut(polygon.points.tolist(), dist, cuts)
    return SplitResult(Side.SPLIT, _piece(polygon, front, front_cuts), _piece(polygon, back, back_cuts))


def _piece(polygon: DrawPolygon, points: list[list[float]], cuts: tuple[bool, ...]) -> DrawPolygon:
    return DrawPolygon(polygon.layer_id, polygon.order, np.array(points), polygon.normal, polygon.distance, True, cuts)


def _cut(points: list[list[float]], d: list[float], cuts: tuple[bool, ...]
         ) -> tuple[tuple[list[list[float]], tuple[bool, ...]], tuple[list[list[float]], tuple[bool, ...]]]:
    """A convex polygon cut where d crosses 0 (d has no values in the thick plane but
    exact zeros): the front (d >= 0) and back (d <= 0) pieces, both in the input's winding,
    each with its edges' cut marks (``cuts``: the input's). A convex polygon crosses a
    plane at exactly two places, each an edge's interior point or a vertex on the plane:
    the edge joining them is the new cut, every other edge part of an input edge and
    marked as it was. Plain floats: a handful of vertices is faster without numpy."""
    n = len(points)
    # Per piece: (point, on the plane, the mark of the input edge it starts along).
    front: list[tuple[list[float], bool, bool]] = []
    back: list[tuple[list[float], bool, bool]] = []
    for i in range(n):
        j = (i + 1) % n
        p, di, dj = points[i], d[i], d[j]
        if di >= 0:
            front.append((p, di == 0, cuts[i]))
        if di <= 0:
            back.append((p, di == 0, cuts[i]))
        if (di > 0 > dj) or (di < 0 < dj):
            # the distances, not a fresh dot product, place the cut: they separated front
            # from back, so the denominator is never 0 (as cc does)
            t = di / (di - dj)
            q = points[j]
            cut = [p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t, p[2] + (q[2] - p[2]) * t]
            front.append((cut, True, cuts[i]))
            back.append((cut, True, cuts[i]))
    return _marked(front), _marked(back)


def _marked(piece: list[tuple[list[float], bool, bool]]) -> tuple[list[list[float]], tuple[bool, ...]]:
    """A piece's points and its edges' cut marks: an edge between two points on the
    cutting plane is the cut (an input edge on the plane cannot be: the polygon crosses it)."""
    k = len(piece)
    marks = tuple((piece[i][1] and piece[(i + 1) % k][1]) or piece[i][2] for i in range(k))
    return [p for p, _, _ in piece], marks


def _clip_homogeneous(corners: np.ndarray) -> np.ndarray:
    """A convex polygon of homogeneous points (k, 4) clipped to w >= W_CLIP
    (Sutherland-Hodgman against one plane)."""
    w = corners[:, 3] - W_CLIP
    if (w >= 0).all():
        return corners
    out = []
    n = len(corners)
    for i in range(n):
        j = (i + 1) % n
        if w[i] >= 0:
            out.append(corners[i])
        if (w[i] >= 0) != (w[j] >= 0):
            t = w[i] / (w[i] - w[j])
            q = corners[i] + (corners[j] - corners[i]) * t
            q[3] = W_CLIP  # exactly on the clip plane, not a rounding below it
            out.append(q)
    return np.array(out) if out else np.zeros((0, 4))


def _newell(points: np.ndarray) -> np.ndarray:
    """Twice the vector area of a planar polygon (Newell's method): its direction is the
    normal by the points' winding, its length twice the area."""
    return np.cross(points, np.roll(points, -1, axis=0)).sum(axis=0)


def project_layer_rect(layer_id: Hashable, order: int, rect: tuple[float, float, float, float],
                       transform: object) -> DrawPolygon | DropReason:
    """A layer's rect (x, y, width, height in its own space) as a screen-space polygon
    through its 4x4 screen transform, or why it draws nothing (project_layer_rects for one)."""
    return project_layer_rects([(layer_id, order, rect, transform)])[0]


def _checked_rect(rect: object, where: str) -> tuple[float, float, float, float]:
    try:
        x, y, w, h = (float(v) for v in rect)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise GeometryError(f"{where}: rect must be (x, y, width, height), got {rect!r}"[:200]) from None
    if not all(math.isfinite(v) for v in (x, y, w, h)):
        raise GeometryError(f"{where}: rect has non-finite values {rect!r}")
    if w < 0 or h < 0:
        raise GeometryError(f"{where}: rect width and height must be >= 0, got {w:g} x {h:g}")
    return x, y, w, h


def project_layer_rects(layers: Sequence[tuple[Hashable, int, tuple[float, float, float, float], object]]
                        ) -> list[DrawPolygon | DropReason]:
    """Layers (id, paint order, rect, 4x4 screen transform) as screen-space polygons, or
    why each draws nothing, computed for all of them at once (numpy over the stack of
    matrices: a thousand layers cost about what a few dozen would one by one).

    A matrix is non-invertible when |det| is below 1e-12 of the product of its rows'
    lengths (Hadamard's bound, so the test does not depend on the matrix's scale). The
    normal points to the layer's front: the sign of the screen-space plane, row 2 of the
    inverse (layer z = 0), which keeps the front side right through mirroring transforms
    where the winding flips (cc aligns its normal with the mapped (0, 0, 1) for the same
    reason)."""
    n = len(layers)
    out: list[DrawPolygon | DropReason] = [DropReason.ZERO_AREA] * n
    if not n:
        return out
    rects = np.array([_checked_rect(rect, f"layer {layer_id!r}") for layer_id, _, rect, _ in layers])
    m = np.stack([as_transform(t, f"layer {layer_id!r}") for layer_id, _, _, t in layers])
    x, y, w, h = rects.T
    det = np.linalg.det(m)
    bound = np.prod(np.linalg.norm(m, axis=2), axis=1)
    invertible = np.abs(det) > _SINGULAR_RATIO * bound
    live = (w > 0) & (h > 0) & invertible
    for i in np.flatnonzero((w > 0) & (h > 0) & ~invertible):
        out[i] = DropReason.NON_INVERTIBLE
    idx = np.flatnonzero(live)
    if not len(idx):
        return out
    corners = np.zeros((len(idx), 4, 4))
    corners[:, :, 0] = np.stack([x[idx], x[idx] + w[idx], x[idx] + w[idx], x[idx]], axis=1)
    corners[:, :, 1] = np.stack([y[idx], y[idx], y[idx] + h[idx], y[idx] + h[idx]], axis=1)
    corners[:, :, 3] = 1.0
    mapped = corners @ m[idx].transpose(0, 2, 1)
    fronts = np.linalg.inv(m[idx])[:, 2, :3]
    whole = (mapped[:, :, 3] >= W_CLIP).all(axis=1)
    quads = mapped[whole, :, :3] / mapped[whole, :, 3:4]
    vector_areas = np.cross(quads, np.roll(quads, -1, axis=1)).sum(axis=1)
    quad_polygons = iter(zip(quads, vector_areas))
    for k, i in enumerate(idx.tolist()):
        layer_id, order = layers[i][0], layers[i][1]
        if whole[k]:
            points, vector_area = next(quad_polygons)
        else:
            clipped = _clip_homogeneous(mapped[k])
            if len(clipped) < 3:
                out[i] = DropReason.BEHIND_VIEWER
                continue
            points = clipped[:, :3] / clipped[:, 3:4]
            vector_area = _newell(points)
        out[i] = _polygon(layer_id, int(order), points, vector_area, fronts[k])
    return out


def _polygon(layer_id: Hashable, order: int, points: np.ndarray, vector_area: np.ndarray,
             front: np.ndarray) -> DrawPolygon | DropReason:
    length = math.sqrt(float(vector_area @ vector_area))
    if not length > 2 * _AREA_EPSILON:
        return DropReason.ZERO_AREA
    normal = vector_area / length
    if float(front @ normal) < 0:
        normal = -normal
    return DrawPolygon(layer_id, order, points, normal, float((points @ normal).sum()) / len(points))
