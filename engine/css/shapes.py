"""Typed values of ``clip-path`` (CSS Masking 1 §3, basic shapes from CSS Shapes 1 §3)
and of the ``mask-*`` properties (CSS Masking 1 §6): what a value means once parsed,
with lengths still unresolved (percentages resolve against the reference box when the
compositor places the shape, compositor.clip_path).

Immutable dataclasses, like every typed value (css.values): comparable, hashable, plain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Union

from .values import LengthPercentage, Radii

__all__ = [
    "GeometryBox",
    "FillRule",
    "MaskMode",
    "ShapeRadius",
    "InsetShape",
    "CircleShape",
    "EllipseShape",
    "PolygonShape",
    "BasicShape",
    "ClipPath",
]

CENTER_POSITION = (LengthPercentage(percent=50.0), LengthPercentage(percent=50.0))


class GeometryBox(str, Enum):
    """A reference box keyword (CSS Masking 1 §3.1 <geometry-box>)."""

    MARGIN = "margin-box"
    BORDER = "border-box"
    PADDING = "padding-box"
    CONTENT = "content-box"
    FILL = "fill-box"
    STROKE = "stroke-box"
    VIEW = "view-box"

    @property
    def used(self) -> "GeometryBox":
        """The box it comes to for a Lamina layer, which has a CSS layout box but no
        margins or padding (neither property exists here): margin-box is the border box,
        content-box the padding box. For elements with a CSS layout box, fill-box is
        content-box and stroke-box and view-box are border-box (CSS Masking 1 §3.1)."""
        if self in (GeometryBox.MARGIN, GeometryBox.BORDER, GeometryBox.STROKE, GeometryBox.VIEW):
            return GeometryBox.BORDER
        return GeometryBox.PADDING


class FillRule(str, Enum):
    """``polygon()``'s <fill-rule> (SVG: nonzero is the default)."""

    NONZERO = "nonzero"
    EVENODD = "evenodd"


class MaskMode(str, Enum):
    """``mask-mode`` (CSS Masking 1 §6.3). ``match-source`` is alpha for every image
    source Lamina has (gradients and url() images; an SVG <mask> would be luminance)."""

    ALPHA = "alpha"
    LUMINANCE = "luminance"
    MATCH_SOURCE = "match-source"

    @property
    def luminance(self) -> bool:
        return self is MaskMode.LUMINANCE


# A <shape-radius>: a length-percentage, or "closest-side" / "farthest-side".
ShapeRadius = Union[LengthPercentage, str]


@dataclass(frozen=True)
class InsetShape:
    """``inset(top right bottom left round <border-radius>)``: offsets inward from
    each side of the reference box, and the corner radii."""

    top: LengthPercentage
    right: LengthPercentage
    bottom: LengthPercentage
    left: LengthPercentage
    radii: Radii = Radii()

    @property
    def function(self) -> str:
        return "inset"


@dataclass(frozen=True)
class CircleShape:
    """``circle(<shape-radius> at <position>)``."""

    radius: ShapeRadius = "closest-side"
    center: tuple[LengthPercentage, LengthPercentage] = CENTER_POSITION

    @property
    def function(self) -> str:
        return "circle"


@dataclass(frozen=True)
class EllipseShape:
    """``ellipse(<shape-radius>{2} at <position>)``."""

    rx: ShapeRadius = "closest-side"
    ry: ShapeRadius = "closest-side"
    center: tuple[LengthPercentage, LengthPercentage] = CENTER_POSITION

    @property
    def function(self) -> str:
        return "ellipse"


@dataclass(frozen=True)
class PolygonShape:
    """``polygon(<fill-rule>, x1 y1, x2 y2, ...)``: vertices in the reference box."""

    points: tuple[tuple[LengthPercentage, LengthPercentage], ...]
    fill_rule: FillRule = FillRule.NONZERO

    @property
    def function(self) -> str:
        return "polygon"


BasicShape = Union[InsetShape, CircleShape, EllipseShape, PolygonShape]


@dataclass(frozen=True)
class ClipPath:
    """A ``clip-path`` other than none: a basic shape in a reference box, or (shape
    None) the reference box itself with its border-radius corners. ``text`` is the
    value as written, for reports."""

    shape: BasicShape | None
    box: GeometryBox = GeometryBox.BORDER
    text: str = field(default="", compare=False)

    @property
    def is_polygon(self) -> bool:
        """A polygon is no rounded rectangle: the compositor clips it with a mask."""
        return isinstance(self.shape, PolygonShape)
