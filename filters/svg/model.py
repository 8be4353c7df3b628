"""The typed model of SVG filters (Filter Effects 1): every filter primitive as an
immutable dataclass with validated attributes, light sources, transfer functions, the
``<filter>`` element with its region and units, and the document (filters by id).

Nothing here reads XML (``filters.svg.markup`` builds these from markup) or computes
pixels (``filters.svg.reference``). Values are in the units the markup wrote them in
(user space or bounding-box fractions, as the filter's ``primitiveUnits`` says);
``filters.svg.reference`` resolves them against the element's bounding box.

Validation that needs only one primitive lives in its ``__post_init__`` (a kernel matrix
of the wrong size, a negative radius, a value over a limit); what needs the whole graph
(results used before they are defined, unused results) lives in ``filters.svg.graph``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, Union

from ...errors import SvgFilterError
from ...css.values import RGBA
from ...blending.modes import BlendMode

__all__ = [
    "Units", "ColorSpace", "StandardInput", "Input", "Coordinate", "Region", "EdgeMode",
    "Primitive", "Blend", "ColorMatrixType", "ColorMatrix", "TransferType", "TransferFunction",
    "ComponentTransfer", "CompositeOperator", "Composite", "ConvolveMatrix", "DistantLight",
    "PointLight", "SpotLight", "LightSource", "DiffuseLighting", "SpecularLighting", "Channel",
    "DisplacementMap", "DropShadow", "Flood", "GaussianBlur", "Image", "Merge", "MorphologyOperator",
    "Morphology", "Offset", "Tile", "TurbulenceType", "Turbulence", "FilterElement", "SvgDocument",
    "PRIMITIVES", "MAX_KERNEL_ORDER", "MAX_OCTAVES", "MAX_RADIUS", "MAX_STD_DEVIATION", "MAX_PRIMITIVES",
    "MAX_TABLE_VALUES", "MAX_MERGE_NODES",
]

# Limits, checked when a primitive is built (before any pixel work). Each bounds a cost:
MAX_KERNEL_ORDER = 32  # feConvolveMatrix: order x order reads per pixel
MAX_OCTAVES = 24  # feTurbulence: past ~24 octaves the frequency passes a pixel's float precision
MAX_RADIUS = 500.0  # feMorphology: 2 r + 1 reads per pixel per axis (as lamina.filters.ops.Morphology)
MAX_STD_DEVIATION = 1000.0  # feGaussianBlur / feDropShadow, in the markup's units
MAX_PRIMITIVES = 256  # primitives in one <filter>
MAX_TABLE_VALUES = 1024  # tableValues of one transfer function
MAX_MERGE_NODES = 64  # feMergeNode children of one feMerge
MAX_ABS = 1.0e6  # any other number: coordinates, offsets, scales (finite and float32-safe)


class Units(Enum):
    """``filterUnits`` / ``primitiveUnits``."""

    USER_SPACE = "userSpaceOnUse"
    BOUNDING_BOX = "objectBoundingBox"


class ColorSpace(Enum):
    """``color-interpolation-filters``: the space a primitive computes in."""

    SRGB = "sRGB"
    LINEAR_RGB = "linearRGB"


class StandardInput(Enum):
    """The keyword inputs Lamina has (``BackgroundImage``, ``BackgroundAlpha``, ``FillPaint``
    and ``StrokePaint`` are refused by the markup reader)."""

    SOURCE_GRAPHIC = "SourceGraphic"
    SOURCE_ALPHA = "SourceAlpha"


# An input: a keyword, a named result, or None: the previous primitive's result
# (SourceGraphic for the first primitive).
Input = Union[StandardInput, str, None]


@dataclass(frozen=True)
class Coordinate:
    """One of x, y, width, height as written: a number (user units or, in
    objectBoundingBox units, a fraction) or a percentage."""

    value: float
    percent: bool = False

    def fraction(self) -> float:
        return self.value / 100.0 if self.percent else self.value


@dataclass(frozen=True)
class Region:
    """x, y, width, height of a filter region or a primitive subregion; None: not written
    (the default applies)."""

    x: Coordinate | None = None
    y: Coordinate | None = None
    width: Coordinate | None = None
    height: Coordinate | None = None


class EdgeMode(Enum):
    """How feConvolveMatrix and feGaussianBlur extend their input past its edges."""

    DUPLICATE = "duplicate"
    WRAP = "wrap"
    NONE = "none"


def _bad(prim: "Primitive | str", attribute: str, value, message: str) -> SvgFilterError:
    element = prim if isinstance(prim, str) else prim.describe()
    return SvgFilterError(message, element=element, attribute=attribute, value=str(value))


def _finite(prim, attribute: str, value: float, *, minimum: float | None = None, maximum: float = MAX_ABS,
            positive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _bad(prim, attribute, value, "must be a finite number")
    if positive and value <= 0:
        raise _bad(prim, attribute, value, "must be greater than 0")
    if minimum is not None and value < minimum:
        raise _bad(prim, attribute, value, f"must be at least {minimum:g}")
    if abs(value) > maximum:
        raise _bad(prim, attribute, value, f"is over the limit of {maximum:g}")


@dataclass(frozen=True, kw_only=True)
class Primitive:
    """What every filter primitive has: its subregion, its ``result`` name, its colour
    space (None: the filter's) and the line it was written on (for errors)."""

    tag: ClassVar[str] = ""
    input_names: ClassVar[tuple[str, ...]] = ("in",)  # attribute names of its inputs

    subregion: Region = field(default_factory=Region)
    result: str | None = None
    color_space: ColorSpace | None = None
    line: int | None = field(default=None, compare=False)

    def describe(self) -> str:
        """``<feGaussianBlur result="b">`` (line n): how errors name it."""
        result = f' result="{self.result}"' if self.result else ""
        return f"<{self.tag}{result}>"

    def inputs(self) -> tuple[Input, ...]:
        """Its inputs, in the order of ``input_names``."""
        return tuple(getattr(self, "in_" if name == "in" else name) for name in self.input_names)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Checks of its own attributes (subclasses add theirs)."""
        for name in ("x", "y", "width", "height"):
            c = getattr(self.subregion, name)
            if c is not None:
                _finite(self, name, c.value)
                if name in ("width", "height") and c.value < 0:
                    raise _bad(self, name, c.value, "must not be negative")


@dataclass(frozen=True, kw_only=True)
class Blend(Primitive):
    tag: ClassVar[str] = "feBlend"
    input_names: ClassVar[tuple[str, ...]] = ("in", "in2")
    in_: Input = None
    in2: Input = None
    mode: BlendMode = BlendMode.NORMAL


class ColorMatrixType(Enum):
    MATRIX = "matrix"
    SATURATE = "saturate"
    HUE_ROTATE = "hueRotate"
    LUMINANCE_TO_ALPHA = "luminanceToAlpha"


@dataclass(frozen=True, kw_only=True)
class ColorMatrix(Primitive):
    """``values``: 20 numbers for matrix, one for saturate and hueRotate (degrees), none
    for luminanceToAlpha; None: not written (identity, 1, 0)."""

    tag: ClassVar[str] = "feColorMatrix"
    in_: Input = None
    type: ColorMatrixType = ColorMatrixType.MATRIX
    values: tuple[float, ...] | None = None

    def validate(self) -> None:
        super().validate()
        if self.values is None:
            return
        for v in self.values:
            _finite(self, "values", v)
        expected = {ColorMatrixType.MATRIX: 20, ColorMatrixType.SATURATE: 1, ColorMatrixType.HUE_ROTATE: 1,
                    ColorMatrixType.LUMINANCE_TO_ALPHA: 0}[self.type]
        if len(self.values) != expected:
            raise _bad(self, "values", " ".join(f"{v:g}" for v in self.values),
                       f"type=\"{self.type.value}\" takes {expected} number(s), got {len(self.values)}")
        if self.type is ColorMatrixType.SATURATE and self.values[0] < 0:
            raise _bad(self, "values", self.values[0], "saturate must not be negative")


class TransferType(Enum):
    IDENTITY = "identity"
    TABLE = "table"
    DISCRETE = "discrete"
    LINEAR = "linear"
    GAMMA = "gamma"


@dataclass(frozen=True)
class TransferFunction:
    """One feFuncR/G/B/A: its type and parameters (the spec's defaults)."""

    type: TransferType = TransferType.IDENTITY
    table_values: tuple[float, ...] = ()
    slope: float = 1.0
    intercept: float = 0.0
    amplitude: float = 1.0
    exponent: float = 1.0
    offset: float = 0.0

    def __post_init__(self) -> None:
        for name in ("slope", "intercept", "amplitude", "exponent", "offset"):
            _finite("<feFunc>", name, getattr(self, name))
        for v in self.table_values:
            _finite("<feFunc>", "tableValues", v)
        if len(self.table_values) > MAX_TABLE_VALUES:
            raise _bad("<feFunc>", "tableValues", len(self.table_values), f"more than {MAX_TABLE_VALUES} values")


@dataclass(frozen=True, kw_only=True)
class ComponentTransfer(Primitive):
    tag: ClassVar[str] = "feComponentTransfer"
    in_: Input = None
    red: TransferFunction = field(default_factory=TransferFunction)
    green: TransferFunction = field(default_factory=TransferFunction)
    blue: TransferFunction = field(default_factory=TransferFunction)
    alpha: TransferFunction = field(default_factory=TransferFunction)


class CompositeOperator(Enum):
    OVER = "over"
    IN = "in"
    OUT = "out"
    ATOP = "atop"
    XOR = "xor"
    LIGHTER = "lighter"
    ARITHMETIC = "arithmetic"


@dataclass(frozen=True, kw_only=True)
class Composite(Primitive):
    tag: ClassVar[str] = "feComposite"
    input_names: ClassVar[tuple[str, ...]] = ("in", "in2")
    in_: Input = None
    in2: Input = None
    operator: CompositeOperator = CompositeOperator.OVER
    k1: float = 0.0
    k2: float = 0.0
    k3: float = 0.0
    k4: float = 0.0

    def validate(self) -> None:
        super().validate()
        for name in ("k1", "k2", "k3", "k4"):
            _finite(self, name, getattr(self, name))


@dataclass(frozen=True, kw_only=True)
class ConvolveMatrix(Primitive):
    """``order`` (x, y); ``kernel`` row by row, order_x * order_y numbers; ``divisor``
    None or 0: the kernel's sum, or 1 where that is 0; ``target`` None: floor(order / 2);
    ``kernel_unit_length`` (x, y) in primitive units between kernel cells, None: one pixel."""

    tag: ClassVar[str] = "feConvolveMatrix"
    in_: Input = None
    order: tuple[int, int] = (3, 3)
    kernel: tuple[float, ...] = ()
    divisor: float | None = None
    bias: float = 0.0
    target_x: int | None = None
    target_y: int | None = None
    edge_mode: EdgeMode = EdgeMode.DUPLICATE
    preserve_alpha: bool = False
    kernel_unit_length: tuple[float, float] | None = None

    def validate(self) -> None:
        super().validate()
        ox, oy = self.order
        for v in self.kernel_unit_length or ():
            _finite(self, "kernelUnitLength", v)
            if v <= 0:
                raise _bad(self, "kernelUnitLength", v, "must be positive")
        for o in self.order:
            if isinstance(o, bool) or not isinstance(o, int) or o < 1:
                raise _bad(self, "order", o, "must be a whole number of at least 1")
            if o > MAX_KERNEL_ORDER:
                raise _bad(self, "order", o, f"is over the limit of {MAX_KERNEL_ORDER}")
        if len(self.kernel) != ox * oy:
            raise _bad(self, "kernelMatrix", f"{len(self.kernel)} numbers",
                       f"order {ox}x{oy} needs {ox * oy} numbers, got {len(self.kernel)}")
        for v in self.kernel:
            _finite(self, "kernelMatrix", v)
        if self.divisor is not None:
            _finite(self, "divisor", self.divisor)
        _finite(self, "bias", self.bias)
        for name, t, o in (("targetX", self.target_x, ox), ("targetY", self.target_y, oy)):
            if t is not None and (isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < o):
                raise _bad(self, name, t, f"must be a whole number from 0 to {o - 1} (the order minus 1)")

    def resolved_divisor(self) -> float:
        """The divisor applied: a divisor of 0 means the default, as Filter Effects 1 says
        (and browsers render it)."""
        if self.divisor is not None and self.divisor != 0:
            return self.divisor
        total = math.fsum(self.kernel)
        return total if total != 0 else 1.0

    def targets(self) -> tuple[int, int]:
        ox, oy = self.order
        return (ox // 2 if self.target_x is None else self.target_x, oy // 2 if self.target_y is None else self.target_y)


@dataclass(frozen=True)
class DistantLight:
    """feDistantLight: ``azimuth`` and ``elevation`` in degrees."""

    azimuth: float = 0.0
    elevation: float = 0.0

    def __post_init__(self) -> None:
        _finite("<feDistantLight>", "azimuth", self.azimuth)
        _finite("<feDistantLight>", "elevation", self.elevation)


@dataclass(frozen=True)
class PointLight:
    """fePointLight at (x, y, z) in the primitive units' space."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0

    def __post_init__(self) -> None:
        for name in ("x", "y", "z"):
            _finite("<fePointLight>", name, getattr(self, name))


SPOT_EXPONENT_RANGE = (1.0, 128.0)  # Chromium's clamp of feSpotLight's specularExponent


@dataclass(frozen=True)
class SpotLight:
    """feSpotLight at (x, y, z) pointing at ``points_at``; ``limiting_cone_angle`` None:
    no cone."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    points_at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    specular_exponent: float = 1.0
    limiting_cone_angle: float | None = None

    def __post_init__(self) -> None:
        for name in ("x", "y", "z"):
            _finite("<feSpotLight>", name, getattr(self, name))
        for v in self.points_at:
            _finite("<feSpotLight>", "pointsAt", v)
        _finite("<feSpotLight>", "specularExponent", self.specular_exponent)
        if self.limiting_cone_angle is not None:
            _finite("<feSpotLight>", "limitingConeAngle", self.limiting_cone_angle)

    @property
    def exponent(self) -> float:
        """The spot's falloff exponent as rendered: specularExponent clamped to [1, 128], as
        Chromium does (Blink's SpotLightSource, Skia's SkSpotLight); a negative one would
        make pow(0, e) infinite outside the spot."""
        return min(max(self.specular_exponent, SPOT_EXPONENT_RANGE[0]), SPOT_EXPONENT_RANGE[1])


LightSource = Union[DistantLight, PointLight, SpotLight]
WHITE = RGBA(1.0, 1.0, 1.0, 1.0)
BLACK = RGBA(0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True, kw_only=True)
class _Lighting(Primitive):
    in_: Input = None
    light: LightSource = field(default_factory=DistantLight)
    surface_scale: float = 1.0
    lighting_color: RGBA = WHITE
    kernel_unit_length: tuple[float, float] | None = None  # dx, dy of the normal's kernel (primitive units)

    def validate(self) -> None:
        super().validate()
        _finite(self, "surfaceScale", self.surface_scale)
        for v in self.kernel_unit_length or ():
            _finite(self, "kernelUnitLength", v, positive=True)
        if not isinstance(self.light, (DistantLight, PointLight, SpotLight)):
            raise _bad(self, "light", self.light, "needs one light source element (feDistantLight, fePointLight or feSpotLight)")


@dataclass(frozen=True, kw_only=True)
class DiffuseLighting(_Lighting):
    tag: ClassVar[str] = "feDiffuseLighting"
    diffuse_constant: float = 1.0

    def validate(self) -> None:
        super().validate()
        _finite(self, "diffuseConstant", self.diffuse_constant, minimum=0.0)


@dataclass(frozen=True, kw_only=True)
class SpecularLighting(_Lighting):
    tag: ClassVar[str] = "feSpecularLighting"
    specular_constant: float = 1.0
    specular_exponent: float = 1.0

    def validate(self) -> None:
        super().validate()
        _finite(self, "specularConstant", self.specular_constant, minimum=0.0)
        _finite(self, "specularExponent", self.specular_exponent, minimum=1.0, maximum=128.0)


class Channel(Enum):
    R = "R"
    G = "G"
    B = "B"
    A = "A"

    @property
    def index(self) -> int:
        return "RGBA".index(self.value)


@dataclass(frozen=True, kw_only=True)
class DisplacementMap(Primitive):
    tag: ClassVar[str] = "feDisplacementMap"
    input_names: ClassVar[tuple[str, ...]] = ("in", "in2")
    in_: Input = None
    in2: Input = None
    scale: float = 0.0
    x_channel: Channel = Channel.A
    y_channel: Channel = Channel.A

    def validate(self) -> None:
        super().validate()
        _finite(self, "scale", self.scale)


def _std_deviation(prim, value: tuple[float, float]) -> None:
    for v in value:
        _finite(prim, "stdDeviation", v, minimum=0.0, maximum=MAX_STD_DEVIATION)


@dataclass(frozen=True, kw_only=True)
class DropShadow(Primitive):
    tag: ClassVar[str] = "feDropShadow"
    in_: Input = None
    dx: float = 2.0
    dy: float = 2.0
    std_deviation: tuple[float, float] = (2.0, 2.0)
    flood_color: RGBA = BLACK
    flood_opacity: float = 1.0

    def validate(self) -> None:
        super().validate()
        _finite(self, "dx", self.dx)
        _finite(self, "dy", self.dy)
        _std_deviation(self, self.std_deviation)
        _finite(self, "flood-opacity", self.flood_opacity)


@dataclass(frozen=True, kw_only=True)
class Flood(Primitive):
    tag: ClassVar[str] = "feFlood"
    input_names: ClassVar[tuple[str, ...]] = ()
    flood_color: RGBA = BLACK
    flood_opacity: float = 1.0

    def validate(self) -> None:
        super().validate()
        _finite(self, "flood-opacity", self.flood_opacity)


@dataclass(frozen=True, kw_only=True)
class GaussianBlur(Primitive):
    tag: ClassVar[str] = "feGaussianBlur"
    in_: Input = None
    std_deviation: tuple[float, float] = (0.0, 0.0)
    edge_mode: EdgeMode = EdgeMode.NONE

    def validate(self) -> None:
        super().validate()
        _std_deviation(self, self.std_deviation)


@dataclass(frozen=True, kw_only=True)
class Image(Primitive):
    """feImage: ``href`` an image file (resolved against the scene's folder, as every
    image is) or a data: URL; ``preserve_aspect_ratio`` as written ("xMidYMid meet")."""

    tag: ClassVar[str] = "feImage"
    input_names: ClassVar[tuple[str, ...]] = ()
    href: str = ""
    preserve_aspect_ratio: str = "xMidYMid meet"

    def validate(self) -> None:
        super().validate()
        if not self.href:
            raise _bad(self, "href", self.href, "needs the image to show (href)")


@dataclass(frozen=True, kw_only=True)
class Merge(Primitive):
    """feMerge: its feMergeNode inputs, bottom first."""

    tag: ClassVar[str] = "feMerge"
    nodes: tuple[Input, ...] = ()

    def inputs(self) -> tuple[Input, ...]:
        return self.nodes

    def validate(self) -> None:
        super().validate()
        if len(self.nodes) > MAX_MERGE_NODES:
            raise _bad(self, "feMergeNode", len(self.nodes), f"more than {MAX_MERGE_NODES} nodes")


class MorphologyOperator(Enum):
    ERODE = "erode"
    DILATE = "dilate"


@dataclass(frozen=True, kw_only=True)
class Morphology(Primitive):
    tag: ClassVar[str] = "feMorphology"
    in_: Input = None
    operator: MorphologyOperator = MorphologyOperator.ERODE
    radius: tuple[float, float] = (0.0, 0.0)

    def validate(self) -> None:
        super().validate()
        for v in self.radius:
            _finite(self, "radius", v, minimum=0.0, maximum=MAX_RADIUS)


@dataclass(frozen=True, kw_only=True)
class Offset(Primitive):
    tag: ClassVar[str] = "feOffset"
    in_: Input = None
    dx: float = 0.0
    dy: float = 0.0

    def validate(self) -> None:
        super().validate()
        _finite(self, "dx", self.dx)
        _finite(self, "dy", self.dy)


@dataclass(frozen=True, kw_only=True)
class Tile(Primitive):
    tag: ClassVar[str] = "feTile"
    in_: Input = None


class TurbulenceType(Enum):
    FRACTAL_NOISE = "fractalNoise"
    TURBULENCE = "turbulence"


@dataclass(frozen=True, kw_only=True)
class Turbulence(Primitive):
    tag: ClassVar[str] = "feTurbulence"
    input_names: ClassVar[tuple[str, ...]] = ()
    base_frequency: tuple[float, float] = (0.0, 0.0)
    num_octaves: int = 1
    seed: float = 0.0
    stitch_tiles: bool = False
    type: TurbulenceType = TurbulenceType.TURBULENCE

    def validate(self) -> None:
        super().validate()
        for v in self.base_frequency:
            _finite(self, "baseFrequency", v, minimum=0.0)
        n = self.num_octaves
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise _bad(self, "numOctaves", n, "must be a whole number, not negative")
        if n > MAX_OCTAVES:
            raise _bad(self, "numOctaves", n, f"is over the limit of {MAX_OCTAVES} octaves")
        _finite(self, "seed", self.seed, maximum=2.0**31)


PRIMITIVES: dict[str, type[Primitive]] = {
    cls.tag: cls
    for cls in (Blend, ColorMatrix, ComponentTransfer, Composite, ConvolveMatrix, DiffuseLighting, SpecularLighting,
                DisplacementMap, DropShadow, Flood, GaussianBlur, Image, Merge, Morphology, Offset, Tile, Turbulence)
}


@dataclass(frozen=True)
class FilterElement:
    """A ``<filter>``: its id, region (defaults -10%, -10%, 120%, 120% of the bounding
    box), units, colour space and primitives in document order (the last one's result
    is the filter's)."""

    id: str
    primitives: tuple[Primitive, ...]
    region: Region = field(default_factory=Region)
    filter_units: Units = Units.BOUNDING_BOX
    primitive_units: Units = Units.USER_SPACE
    color_space: ColorSpace = ColorSpace.LINEAR_RGB
    line: int | None = field(default=None, compare=False)

    def describe(self) -> str:
        return f'<filter id="{self.id}">'

    def space_of(self, primitive: Primitive) -> ColorSpace:
        """The colour space ``primitive`` computes in."""
        return primitive.color_space or self.color_space


@dataclass(frozen=True)
class SvgDocument:
    """The filters of SVG markup, by id; ``markup`` as given (a scene file keeps it)."""

    filters: dict[str, FilterElement]
    markup: str = field(default="", compare=False, repr=False)

    def filter(self, id: str) -> FilterElement:
        """The filter ``url(#id)`` names, or an SvgFilterError saying which ids exist."""
        found = self.filters.get(id)
        if found is None:
            known = ", ".join(f"#{k}" for k in sorted(self.filters)) or "none"
            raise SvgFilterError(f"url(#{id}) names no <filter> (the SVG markup has: {known})",
                                 attribute="filter", value=f"url(#{id})")
        return found

