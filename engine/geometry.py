"""2D matrices (affine, and projective: a flattened 3D transform) and rectangles in CSS
pixels (origin top-left, y down)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

__all__ = ["Affine", "Projective", "Rect", "clipped_polygon", "W_EPSILON"]


@dataclass(frozen=True)
class Affine:
    """The CSS ``matrix(a, b, c, d, e, f)``: maps (x, y) to (a x + c y + e, b x + d y + f)."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0

    @staticmethod
    def translate(tx: float, ty: float) -> "Affine":
        return Affine(1.0, 0.0, 0.0, 1.0, tx, ty)

    @staticmethod
    def scale(sx: float, sy: float) -> "Affine":
        return Affine(sx, 0.0, 0.0, sy, 0.0, 0.0)

    @staticmethod
    def rotate(degrees: float) -> "Affine":
        # Exact values at multiples of 90deg keep axis-aligned layers pixel-exact.
        turns = degrees / 90.0
        if turns == round(turns):
            cos, sin = [(1, 0), (0, 1), (-1, 0), (0, -1)][int(round(turns)) % 4]
        else:
            rad = math.radians(degrees)
            cos, sin = math.cos(rad), math.sin(rad)
        return Affine(cos, sin, -sin, cos, 0.0, 0.0)

    @staticmethod
    def skew(ax_degrees: float, ay_degrees: float) -> "Affine":
        return Affine(1.0, math.tan(math.radians(ay_degrees)), math.tan(math.radians(ax_degrees)), 1.0, 0.0, 0.0)

    def __matmul__(self, other: "Affine") -> "Affine":
        """``self @ other`` applies ``other`` first, then ``self``."""
        if other.__class__ is not Affine:
            return NotImplemented  # a Projective: its __rmatmul__
        a, b, c, d, e, f = self.a, self.b, self.c, self.d, self.e, self.f
        return Affine(
            a * other.a + c * other.b,
            b * other.a + d * other.b,
            a * other.c + c * other.d,
            b * other.c + d * other.d,
            a * other.e + c * other.f + e,
            b * other.e + d * other.f + f,
        )

    def apply(self, x: float, y: float) -> tuple[float, float]:
        return (self.a * x + self.c * y + self.e, self.b * x + self.d * y + self.f)

    @property
    def determinant(self) -> float:
        return self.a * self.d - self.b * self.c

    def is_invertible(self) -> bool:
        # One sum instead of six tests: it is not finite when any entry is inf or NaN
        # (entries are bounded far below overflow by the layer box limits).
        return abs(self.a * self.d - self.b * self.c) > 1e-12 and math.isfinite(
            self.a + self.b + self.c + self.d + self.e + self.f)

    def inverse(self) -> "Affine":
        det = self.determinant
        if abs(det) <= 1e-12:
            raise ZeroDivisionError("matrix is not invertible")
        a, b, c, d, e, f = self.a / det, self.b / det, self.c / det, self.d / det, self.e, self.f
        return Affine(d, -b, -c, a, -(d * e - c * f), -(-b * e + a * f))

    def is_translation(self) -> bool:
        return self.a == 1.0 and self.b == 0.0 and self.c == 0.0 and self.d == 1.0

    def max_scale(self) -> float:
        """The largest length a unit axis vector gets: the scale that content drawn with
        this matrix must be rastered at to stay sharp."""
        return max(math.hypot(self.a, self.b), math.hypot(self.c, self.d))

    def values(self) -> tuple[float, float, float, float, float, float]:
        return (self.a, self.b, self.c, self.d, self.e, self.f)

    def to_mat3(self) -> tuple[float, ...]:
        """Column-major 3x3 as GLSL ``mat3`` expects."""
        return (self.a, self.b, 0.0, self.c, self.d, 0.0, self.e, self.f, 1.0)

    def almost_equal(self, other: "Affine", tol: float = 1e-9) -> bool:
        return all(abs(p - q) <= tol for p, q in zip(self.values(), other.values()))


@dataclass(frozen=True)
class Rect:
    """(x, y, width, height) in CSS pixels."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def is_empty(self) -> bool:
        return self.width <= 0 or self.height <= 0

    def corners(self) -> tuple[tuple[float, float], ...]:
        return ((self.x, self.y), (self.right, self.y), (self.right, self.bottom), (self.x, self.bottom))

    def overlaps(self, other: "Rect") -> bool:
        """Do the two share any area? (The same as a non-empty intersect, without making it.)"""
        return (self.width > 0 and self.height > 0 and other.width > 0 and other.height > 0
                and self.x < other.x + other.width and other.x < self.x + self.width
                and self.y < other.y + other.height and other.y < self.y + self.height)

    def intersect(self, other: "Rect") -> "Rect":
        x0, y0 = max(self.x, other.x), max(self.y, other.y)
        x1, y1 = min(self.right, other.right), min(self.bottom, other.bottom)
        return Rect(x0, y0, max(0.0, x1 - x0), max(0.0, y1 - y0))

    def rounded_out(self) -> "Rect":
        x0, y0 = math.floor(self.x), math.floor(self.y)
        return Rect(x0, y0, math.ceil(self.right) - x0, math.ceil(self.bottom) - y0)

    @staticmethod
    def bounding(points: Iterable[tuple[float, float]]) -> "Rect":
        pts = list(points)
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))

    @staticmethod
    def union(rects: Iterable["Rect"]) -> "Rect | None":
        items = [r for r in rects if not r.is_empty()]
        if not items:
            return None
        x0 = min(r.x for r in items)
        y0 = min(r.y for r in items)
        return Rect(x0, y0, max(r.right for r in items) - x0, max(r.bottom for r in items) - y0)

    def transformed_bounds(self, m: "Affine | Projective") -> "Rect":
        if m.__class__ is not Affine:
            # Projected: the bounds of the polygon left after cutting away what lies at or
            # behind the eye (w <= 0), as cc's MathUtil::MapClippedRect does.
            pts = clipped_polygon(self, m)
            return Rect.bounding(pts) if pts else Rect(0.0, 0.0, 0.0, 0.0)
        # Per corner: x' = a x + c y + e, y' = b x + d y + f. Written out (not through
        # apply/bounding): the planner calls this thousands of times a frame.
        x0, y0, x1, y1 = self.x, self.y, self.x + self.width, self.y + self.height
        ax0, ax1, cy0, cy1 = m.a * x0, m.a * x1, m.c * y0, m.c * y1
        bx0, bx1, dy0, dy1 = m.b * x0, m.b * x1, m.d * y0, m.d * y1
        xs = (ax0 + cy0, ax1 + cy0, ax1 + cy1, ax0 + cy1)
        ys = (bx0 + dy0, bx1 + dy0, bx1 + dy1, bx0 + dy1)
        # (Adding e after min/max rounds exactly as adding it per corner would.)
        left, top = min(xs) + m.e, min(ys) + m.f
        return Rect(left, top, (max(xs) + m.e) - left, (max(ys) + m.f) - top)


# Points with w below this are cut away before the divide (cc clips at w <= 0 and
# places the new vertices just in front of the eye plane; a tiny positive w keeps the
# divide finite: the polygon then reaches far out, as the projection really does).
W_EPSILON = 1e-5


@dataclass(frozen=True)
class Projective:
    """A 2D projective map (a homography): the 4x4 transform of a flat layer with the z
    row and column dropped (CSS Transforms 2 flattening: a flat layer lies at z = 0 and
    its children are drawn into its plane). Row-major::

        | a c e |        x' = (a x + c y + e) / w
        | b d f |        y' = (b x + d y + f) / w
        | g h i |        w  =  g x + h y + i

    a..f name the same entries as Affine's, so an affine map is g = h = 0, i = 1.
    Mapping a point with w <= 0 (at or behind the eye) has no meaning: polygons are
    clipped in homogeneous space first (``clipped_polygon``)."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0
    g: float = 0.0
    h: float = 0.0
    i: float = 1.0

    @staticmethod
    def of(m: "Affine | Projective") -> "Projective":
        return m if m.__class__ is Projective else Projective(m.a, m.b, m.c, m.d, m.e, m.f, 0.0, 0.0, 1.0)

    def simplified(self) -> "Affine | Projective":
        """An Affine when the bottom row is (0, 0, i > 0): every 2D consumer keeps its
        exact affine path (translateZ without perspective changes nothing)."""
        # Only for i > 0: with i < 0 every point lies behind the eye (w < 0), which an
        # Affine cannot say (dividing by i would bring the plane back in front).
        if self.g == 0.0 and self.h == 0.0 and self.i > 0.0:
            k = 1.0 / self.i
            if k == 1.0:
                return Affine(self.a, self.b, self.c, self.d, self.e, self.f)
            return Affine(self.a * k, self.b * k, self.c * k, self.d * k, self.e * k, self.f * k)
        return self

    def _rows(self) -> tuple[float, ...]:
        return (self.a, self.c, self.e, self.b, self.d, self.f, self.g, self.h, self.i)

    def __matmul__(self, other: "Affine | Projective") -> "Projective":
        p, q = self._rows(), Projective.of(other)._rows()
        r = [sum(p[3 * row + k] * q[3 * k + col] for k in range(3)) for row in range(3) for col in range(3)]
        return Projective(r[0], r[3], r[1], r[4], r[2], r[5], r[6], r[7], r[8])

    def __rmatmul__(self, other: Affine) -> "Projective":
        return Projective.of(other) @ self

    def homogeneous(self, x: float, y: float) -> tuple[float, float, float]:
        return (self.a * x + self.c * y + self.e, self.b * x + self.d * y + self.f, self.g * x + self.h * y + self.i)

    def apply(self, x: float, y: float) -> tuple[float, float]:
        """The image of a point in front of the eye (w > 0); ValueError otherwise."""
        X, Y, W = self.homogeneous(x, y)
        if not W > 0.0:
            raise ValueError(f"({x}, {y}) maps to w = {W}: at or behind the eye")
        return (X / W, Y / W)

    @property
    def determinant(self) -> float:
        a, c, e, b, d, f, g, h, i = self._rows()
        return a * (d * i - f * h) - c * (b * i - f * g) + e * (b * h - d * g)

    def is_invertible(self) -> bool:
        return abs(self.determinant) > 1e-12 and math.isfinite(sum(self._rows()))

    def inverse(self) -> "Projective":
        a, c, e, b, d, f, g, h, i = self._rows()
        det = self.determinant
        if abs(det) <= 1e-12:
            raise ZeroDivisionError("matrix is not invertible")
        k = 1.0 / det
        # The adjugate over the determinant (row-major entries of the inverse).
        r = ((d * i - f * h) * k, (e * h - c * i) * k, (c * f - e * d) * k,
             (f * g - b * i) * k, (a * i - e * g) * k, (e * b - a * f) * k,
             (b * h - d * g) * k, (c * g - a * h) * k, (a * d - c * b) * k)
        return Projective(r[0], r[3], r[1], r[4], r[2], r[5], r[6], r[7], r[8])

    def is_translation(self) -> bool:
        return False  # a Projective is only kept where simplified() could not make an Affine

    def axis_scales(self, x: float, y: float) -> tuple[float, float] | None:
        """The lengths a unit step along x and one along y at (x, y) get; None at or
        behind the eye."""
        X, Y, W = self.homogeneous(x, y)
        if not W > 0.0:
            return None
        # d(X/W)/dx = (a W - X g) / W^2, and so on.
        w2 = W * W
        dxdx, dydx = (self.a * W - X * self.g) / w2, (self.b * W - Y * self.g) / w2
        dxdy, dydy = (self.c * W - X * self.h) / w2, (self.d * W - Y * self.h) / w2
        return (math.hypot(dxdx, dydx), math.hypot(dxdy, dydy))

    def jacobian_scale(self, x: float, y: float) -> float:
        """The largest length a unit axis vector at (x, y) gets (the local scale there)."""
        scales = self.axis_scales(x, y)
        return 0.0 if scales is None else max(scales)

    def max_scale(self) -> float:
        """The local scale at the layer's origin: a projected layer's scale varies across
        it; the raster scale uses this one point (cc rasters such layers at the scale of
        its 2D part too)."""
        return self.jacobian_scale(0.0, 0.0)

    def values(self) -> tuple[float, ...]:
        return (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h, self.i)

    def to_mat3(self) -> tuple[float, ...]:
        """Column-major 3x3 as GLSL ``mat3`` expects; the third row is w."""
        return (self.a, self.b, self.g, self.c, self.d, self.h, self.e, self.f, self.i)

    def almost_equal(self, other: "Affine | Projective", tol: float = 1e-9) -> bool:
        return all(abs(p - q) <= tol for p, q in zip(self.values(), Projective.of(other).values()))


def clipped_polygon(rect: Rect, m: "Affine | Projective") -> list[tuple[float, float]]:
    """The image of ``rect`` under ``m`` as a convex polygon in target px, cut in
    homogeneous space where w < W_EPSILON before the divide (Sutherland-Hodgman against
    one plane, as cc's MathUtil::MapClippedQuad). Empty when all of it lies behind."""
    if m.__class__ is Affine:
        return [m.apply(x, y) for x, y in rect.corners()]
    hs = [m.homogeneous(x, y) for x, y in rect.corners()]
    out: list[tuple[float, float]] = []
    for k in range(4):
        p, q = hs[k], hs[(k + 1) % 4]
        p_in, q_in = p[2] >= W_EPSILON, q[2] >= W_EPSILON
        if p_in:
            out.append((p[0] / p[2], p[1] / p[2]))
        if p_in != q_in:
            t = (W_EPSILON - p[2]) / (q[2] - p[2])
            x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
            out.append((x / W_EPSILON, y / W_EPSILON))
    return out
