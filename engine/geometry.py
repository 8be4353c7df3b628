"""2D affine matrices and rectangles in CSS pixels (origin top-left, y down)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

__all__ = ["Affine", "Rect"]


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

    def transformed_bounds(self, m: Affine) -> "Rect":
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
