"""Typed CSS values: what a property means once parsed, independent of its spelling.

All values are immutable dataclasses so they can be compared (to detect what changed),
hashed (as cache keys) and handed to the raster stage as plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Union

from ..named import NamedEnum

__all__ = [
    "RGBA",
    "TRANSPARENT",
    "LengthPercentage",
    "ColorStop",
    "LinearGradient",
    "RadialGradient",
    "AnglePercentage",
    "ConicGradient",
    "ImageRef",
    "BackgroundImage",
    "BackgroundSize",
    "CornerRadius",
    "Radii",
    "Border",
    "TransformFunction",
    "Overflow",
    "Position",
    "ClipKind",
    "BackfaceVisibility",
    "TransformStyle",
]


class Overflow(str, Enum):
    """The used ``overflow`` of a box (CSS Overflow 3 §3). ``hidden`` and ``scroll``
    boxes are scroll containers (a script may scroll them; Lamina: ``scroll-top``);
    ``clip`` clips without being one. ``auto`` is ``scroll`` here: Lamina draws no
    scrollbars, so the two look the same."""

    VISIBLE = "visible"
    CLIP = "clip"
    HIDDEN = "hidden"
    SCROLL = "scroll"

    @property
    def clips(self) -> bool:
        return self is not _VISIBLE

    @property
    def is_scroll_container(self) -> bool:
        return self in _SCROLL_CONTAINERS


# Read once, not per call (these are asked for every layer on every frame planned from
# scratch): on Python 3.11 ``Overflow.HIDDEN`` goes through EnumType.__getattr__'s
# attribute hook, about 100 ns, five times a plain class attribute.
_VISIBLE = Overflow.VISIBLE
_SCROLL_CONTAINERS = (Overflow.HIDDEN, Overflow.SCROLL)


class ClipKind(NamedEnum):
    """What made a clip in a layer's clip chain: its ``overflow`` (the padding box with
    inner radii, applied to its descendants) or a ``clip-path`` that is a rounded rect
    (applied to the layer itself and its descendants; its edges get area coverage). A
    ``str`` (``ClipKind.CLIP_PATH == "clip-path"``, same hash and format) so clip
    signatures and reports read as they always did."""

    OVERFLOW = "overflow"
    CLIP_PATH = "clip-path"


class Position(str, Enum):
    """The used ``position``. Lamina boxes are always placed relative to their parent's
    box, which is what ``static``, ``relative`` and ``absolute`` come to without
    offsets; ``fixed`` boxes are placed relative to the viewport (or the nearest
    transformed ancestor, CSS Transforms 1 §2) and do not scroll with the page;
    ``sticky`` boxes are shifted by their ``top``/``right``/``bottom``/``left`` to stay
    inside their nearest scrollport, never out of their containing block (CSS Positioned
    Layout 3 §3.4; lamina.compositor.sticky)."""

    STATIC = "static"
    FIXED = "fixed"
    STICKY = "sticky"


class BackfaceVisibility(str, Enum):
    """``backface-visibility`` (CSS Transforms 2 §11): ``hidden`` draws nothing of the
    element (and what is flattened into it) while its back face is toward the viewer."""

    VISIBLE = "visible"
    HIDDEN = "hidden"


class TransformStyle(str, Enum):
    """``transform-style`` (CSS Transforms 2 §10): ``flat`` draws the children into the
    element's plane; ``preserve-3d`` lets them share its 3D rendering context (sorted by
    depth and split where they intersect: lamina.compositor.tree, lamina.geometry3d)."""

    FLAT = "flat"
    PRESERVE_3D = "preserve-3d"


@dataclass(frozen=True)
class RGBA:
    """A straight (not premultiplied) sRGB colour, components in [0, 1]."""

    r: float
    g: float
    b: float
    a: float = 1.0

    def premultiplied(self) -> tuple[float, float, float, float]:
        return (self.r * self.a, self.g * self.a, self.b * self.a, self.a)

    def to_css(self) -> str:
        r, g, b = (round(c * 255) for c in (self.r, self.g, self.b))
        if self.a >= 1.0:
            return f"#{r:02x}{g:02x}{b:02x}"
        return f"rgba({r}, {g}, {b}, {round(self.a, 4):g})"


TRANSPARENT = RGBA(0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class LengthPercentage:
    """``px + percent% of a reference length`` (CSS <length-percentage>)."""

    px: float = 0.0
    percent: float = 0.0

    def resolve(self, reference: float) -> float:
        return self.px + self.percent * reference / 100.0


@dataclass(frozen=True)
class ColorStop:
    """A gradient stop; ``position`` is None until fixed up. ``hint`` is a transition
    hint (CSS Images 3 §3.5.3) placed between this stop and the next one. Conic
    gradients hold AnglePercentage positions and hints instead of lengths."""

    color: RGBA
    position: LengthPercentage | AnglePercentage | None = None
    hint: LengthPercentage | AnglePercentage | None = None


@dataclass(frozen=True)
class LinearGradient:
    """``linear-gradient()``: ``angle`` in degrees (0 = to top, clockwise) or a side/corner."""

    stops: tuple[ColorStop, ...]
    angle: float | None = 180.0
    to_corner: tuple[str, str] | None = None  # e.g. ("top", "right"), angle None
    repeating: bool = False


@dataclass(frozen=True)
class RadialGradient:
    """``radial-gradient()``: shape, size keyword or explicit radii, and centre."""

    stops: tuple[ColorStop, ...]
    shape: str = "ellipse"  # "circle" | "ellipse"
    size: str | tuple[LengthPercentage, ...] = "farthest-corner"
    center: tuple[LengthPercentage, LengthPercentage] = (
        LengthPercentage(percent=50.0),
        LengthPercentage(percent=50.0),
    )
    repeating: bool = False


@dataclass(frozen=True)
class AnglePercentage:
    """``deg + percent% of a full turn`` (CSS <angle-percentage>, as conic-gradient()
    stops use it). ``resolve`` mirrors LengthPercentage's so the colour-stop fix-up
    treats both alike: a conic gradient's "line" is 360 degrees long."""

    deg: float = 0.0
    percent: float = 0.0

    def resolve(self, reference: float) -> float:
        return self.deg + self.percent * reference / 100.0


@dataclass(frozen=True)
class ConicGradient:
    """``conic-gradient()`` (CSS Images 4 §3.3): stops are AnglePercentage positions
    around ``center``, starting at ``angle`` degrees (``from``; 0 = up, clockwise)."""

    stops: tuple[ColorStop, ...]
    angle: float = 0.0
    center: tuple[LengthPercentage, LengthPercentage] = (
        LengthPercentage(percent=50.0),
        LengthPercentage(percent=50.0),
    )
    repeating: bool = False


@dataclass(frozen=True, eq=False)
class ImageRef:
    """An image source: a URL/path from CSS or an in-memory array/Pillow image.

    ``url`` is the text written in ``url()``; ``data`` holds in-memory pixels (numpy or
    Pillow) given through the API. ``unconfined`` marks a path the Python caller gave
    itself (``Layer(image=path)``): a scene file's folder confinement (lamina.file_access)
    does not apply to it, only to ``url()`` text. Two refs are equal when they name the
    same source the same way.
    """

    url: str | None = None
    data: Any = field(default=None, compare=False, repr=False)
    unconfined: bool = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImageRef):
            return NotImplemented
        if self.data is not None or other.data is not None:
            return self.data is other.data
        return self.url == other.url and self.unconfined == other.unconfined

    def __hash__(self) -> int:
        return hash(self.url) if self.data is None else id(self.data)


BackgroundImage = Union[LinearGradient, RadialGradient, ConicGradient, ImageRef]


@dataclass(frozen=True)
class BackgroundSize:
    """``background-size``: a keyword (auto/cover/contain) or explicit width/height
    (None = auto)."""

    keyword: str | None = "auto"
    width: LengthPercentage | None = None
    height: LengthPercentage | None = None


@dataclass(frozen=True)
class CornerRadius:
    """Horizontal and vertical radius of one corner."""

    x: LengthPercentage = LengthPercentage()
    y: LengthPercentage = LengthPercentage()


@dataclass(frozen=True)
class Radii:
    """``border-radius``: corners in the order top-left, top-right, bottom-right, bottom-left."""

    top_left: CornerRadius = CornerRadius()
    top_right: CornerRadius = CornerRadius()
    bottom_right: CornerRadius = CornerRadius()
    bottom_left: CornerRadius = CornerRadius()

    def corners(self) -> tuple[CornerRadius, CornerRadius, CornerRadius, CornerRadius]:
        return (self.top_left, self.top_right, self.bottom_right, self.bottom_left)

    def resolve(self, width: float, height: float) -> tuple[tuple[float, float], ...]:
        """Used radii in px, (rx, ry) per corner, scaled down where adjacent radii would
        overlap (CSS Backgrounds 3 §5.5: one factor for all corners)."""
        raw = [(c.x.resolve(width), c.y.resolve(height)) for c in self.corners()]
        tl, tr, br, bl = raw
        factor = 1.0
        for length, p, q in (
            (width, tl[0], tr[0]),
            (width, bl[0], br[0]),
            (height, tl[1], bl[1]),
            (height, tr[1], br[1]),
        ):
            big, small = max(p, q), min(p, q)
            if big > 0:
                # length / (p + q), written so that huge radii do not overflow the sum.
                factor = min(factor, (length / big) / (1.0 + small / big))
        return tuple((max(rx * factor, 0.0), max(ry * factor, 0.0)) for rx, ry in raw)

    def is_zero(self) -> bool:
        return all(c == CornerRadius() for c in self.corners())


@dataclass(frozen=True)
class Border:
    """Border widths per side (top, right, bottom, left) in px, one style, one colour."""

    widths: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    style: str = "none"
    color: RGBA | None = None  # None = currentcolor

    def used_widths(self) -> tuple[float, float, float, float]:
        """Widths that actually paint: zero when the style is none/hidden."""
        if self.style in ("none", "hidden"):
            return (0.0, 0.0, 0.0, 0.0)
        return self.widths


@dataclass(frozen=True)
class TransformFunction:
    """One transform function with its arguments already typed (angles in degrees,
    translations as LengthPercentage, scales and matrix entries as floats)."""

    name: str
    args: tuple[Any, ...]
