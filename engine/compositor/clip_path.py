"""Where a layer's ``clip-path`` lies, in its own px (CSS Masking 1 §3; basic shapes,
CSS Shapes 1 §3): the reference box, and the shape resolved in it.

``inset()``, ``circle()``, ``ellipse()`` and a bare reference box are rounded
rectangles: the compositor puts them in the clip chain (tree.Clip, kind "clip-path")
and every draw of the layer and its descendants is clipped per pixel. A ``polygon()``
is not: its vertices are resolved here and the compositor clips with its coverage as a
mask (graph.masks).
"""

from __future__ import annotations

import math

from ..css.shapes import CircleShape, ClipPath, EllipseShape, GeometryBox, InsetShape, PolygonShape, ShapeRadius
from ..css.values import LengthPercentage
from ..geometry import Rect
from ..style import ComputedStyle
from .paint import border_widths, used_radii

__all__ = ["reference_box", "rounded_shape", "polygon_points", "describe_clip_path"]

Radii4 = tuple[tuple[float, float], ...]


def reference_box(s: ComputedStyle, width: float, height: float, box: GeometryBox) -> tuple[Rect, Radii4]:
    """The reference box in layer px and its corner radii: the border box with the
    border radii, or the padding box with the inner radii (CSS Backgrounds 3 §5.3)."""
    outer = used_radii(s, width, height)
    if box.used is GeometryBox.BORDER:
        return Rect(0.0, 0.0, width, height), outer
    top, right, bottom, left = border_widths(s)
    inner = (
        (max(outer[0][0] - left, 0.0), max(outer[0][1] - top, 0.0)),
        (max(outer[1][0] - right, 0.0), max(outer[1][1] - top, 0.0)),
        (max(outer[2][0] - right, 0.0), max(outer[2][1] - bottom, 0.0)),
        (max(outer[3][0] - left, 0.0), max(outer[3][1] - bottom, 0.0)),
    )
    return Rect(left, top, max(width - left - right, 0.0), max(height - top - bottom, 0.0)), inner


def rounded_shape(s: ComputedStyle, width: float, height: float) -> tuple[Rect, Radii4] | None:
    """The clip-path as a rounded rectangle (rect and radii per corner, layer px), or
    None when there is no clip-path or it is a polygon. An inset whose opposite
    offsets meet or cross, or a zero radius, encloses no area: an empty rect."""
    clip = s.clip_path
    if clip is None or clip.is_polygon:
        return None
    box, box_radii = reference_box(s, width, height, clip.box)
    shape = clip.shape
    if shape is None:
        return box, box_radii
    if isinstance(shape, InsetShape):
        x0 = box.x + shape.left.resolve(box.width)
        y0 = box.y + shape.top.resolve(box.height)
        x1 = box.right - shape.right.resolve(box.width)
        y1 = box.bottom - shape.bottom.resolve(box.height)
        if x1 <= x0 or y1 <= y0:
            return Rect(x0, y0, 0.0, 0.0), ((0.0, 0.0),) * 4
        # Radii percentages refer to the reference box (as Blink resolves them); then
        # they are scaled down to fit the inset rectangle like border-radius.
        raw = [(c.x.resolve(box.width), c.y.resolve(box.height)) for c in shape.radii.corners()]
        return Rect(x0, y0, x1 - x0, y1 - y0), _fit(raw, x1 - x0, y1 - y0)
    cx, cy = _center(shape.center, box)
    if isinstance(shape, CircleShape):
        # A percentage radius refers to sqrt(w² + h²) / sqrt(2) (CSS Shapes 1 §3.2).
        r = _radius(shape.radius, math.hypot(box.width, box.height) / math.sqrt(2.0),
                    (cx - box.x, box.right - cx, cy - box.y, box.bottom - cy))
        return Rect(cx - r, cy - r, 2.0 * r, 2.0 * r), ((r, r),) * 4
    assert isinstance(shape, EllipseShape)
    rx = _radius(shape.rx, box.width, (cx - box.x, box.right - cx))
    ry = _radius(shape.ry, box.height, (cy - box.y, box.bottom - cy))
    return Rect(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry), ((rx, ry),) * 4


def polygon_points(s: ComputedStyle, width: float, height: float) -> tuple[tuple[float, float], ...]:
    """A polygon clip-path's vertices in layer px (percentages of the reference box)."""
    clip = s.clip_path
    assert clip is not None and isinstance(clip.shape, PolygonShape)
    box, _ = reference_box(s, width, height, clip.box)
    return tuple((box.x + x.resolve(box.width), box.y + y.resolve(box.height)) for x, y in clip.shape.points)


def describe_clip_path(clip: ClipPath) -> str:
    """``clip-path: <value>`` as written, for reports."""
    return f"clip-path: {clip.text}" if clip.text else "clip-path"


def _center(center: tuple[LengthPercentage, LengthPercentage], box: Rect) -> tuple[float, float]:
    return box.x + center[0].resolve(box.width), box.y + center[1].resolve(box.height)


def _radius(radius: ShapeRadius, reference: float, sides: tuple[float, ...]) -> float:
    """A <shape-radius>: a length (percentages of ``reference``), or the distance from
    the centre to the closest or farthest side (``sides``: distances to each side)."""
    if isinstance(radius, LengthPercentage):
        return max(radius.resolve(reference), 0.0)
    distances = [abs(d) for d in sides]
    return min(distances) if radius == "closest-side" else max(distances)


def _fit(raw: list[tuple[float, float]], width: float, height: float) -> Radii4:
    """Radii scaled down by one factor where adjacent ones would overlap (CSS
    Backgrounds 3 §5.5), as for border-radius."""
    tl, tr, br, bl = raw
    factor = 1.0
    for length, p, q in ((width, tl[0], tr[0]), (width, bl[0], br[0]), (height, tl[1], bl[1]), (height, tr[1], br[1])):
        if p + q > length > 0:
            factor = min(factor, length / (p + q))
    return tuple((max(rx * factor, 0.0), max(ry * factor, 0.0)) for rx, ry in raw)
