"""What a layer paints, as plain data resolved to pixels: the LayerPaint the raster
shader draws from (colours premultiplied, geometry in layer px), the key of the raster
program that draws it (RasterProgram), and the program's call as data (RasterCall:
uniforms by name, the image it samples). The compositor makes these (compositor.paint);
raster passes of the frame graph carry them; the GL executor binds what the call says.
A new paint property adds its field and its uniforms here and its code to the shader,
and nothing to the executor."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Union

from ..limits import MAX_GRADIENT_STOPS
from ..text.paint import TextPaint
from .dashes import BorderPattern
from .shadows import ShadowPaint, shadow_uniforms
from ..named import NamedEnum

__all__ = ["GradientPaint", "ImagePaint", "LayerPaint", "FillKind", "BorderKind", "InsetKind", "RasterProgram",
           "RasterCall", "ImageSampler", "UniformValue"]


class FillKind(NamedEnum):
    """What a layer's background paints under its colour: nothing more, an image, or a
    gradient of one of three kinds (the raster program's PAINT define). A ``str``
    (``FillKind.LINEAR == "linear"``, same hash and format), as GradientPaint.kind was."""

    COLOR = "color"
    LINEAR = "linear"
    RADIAL = "radial"
    IMAGE = "image"
    CONIC = "conic"


class BorderKind(Enum):
    """The border's pattern: solid, dashed, or dotted with round dots. Dashed and dotted
    borders (shaders/common/dashes.glsl) compile apart, so a solid border pays nothing for
    them, nor a dashed one for dots."""

    SOLID = ""
    DASHES = ".dashes"
    DOTS = ".dots"  # the dash code, and the dot code too


class InsetKind(Enum):
    """A layer's inset box shadows, as its raster program draws them (they compile apart,
    so layers without them keep the programs they had; outer shadows are drawn by
    programs of their own: gpu.shadow_draws)."""

    NONE = ""
    SHADOWS = ".shadows"  # any number: the exact kernel, a loop over uniform arrays
    # One inset shadow, blur 2px or more: the folded kernel, and no loop over uniform
    # arrays (which llvmpipe indexes by gathers).
    ONE_SOFT = ".shadow"


@dataclass(frozen=True)
class RasterProgram:
    """The key of a layer's raster program (raster/layer.frag compiled for one fill,
    border pattern and inset shadow form). ``str()`` is the program's name in reports
    ("raster.linear.dots.shadow"); ``variant`` the same without "raster.", as paints
    name it."""

    fill: FillKind
    border: BorderKind = BorderKind.SOLID
    inset: InsetKind = InsetKind.NONE

    @property
    def variant(self) -> str:
        return f"{self.fill.value}{self.border.value}{self.inset.value}"

    def __str__(self) -> str:
        return f"raster.{self.variant}"


# A uniform's value as moderngl takes it: a number, or a vector / matrix as a tuple.
UniformValue = Union[float, int, tuple]


@dataclass(frozen=True)
class ImageSampler:
    """An image a raster program samples: the sampler uniform it is bound to (texture
    unit 0), the image, whether the sampler wraps along x and y, and how it filters."""

    uniform: str
    image: "ImagePaint"
    wrap: tuple[bool, bool]
    nearest: bool = False  # sampled at the nearest texel, not bilinearly (image-rendering)


@dataclass(frozen=True)
class RasterCall:
    """What the GL executor draws for a layer's own paint, as plain data (as
    filters.plan.ProgramCall is for filter passes): the program key, uniform values by
    name (set as values), float uniform arrays by name (written tightly packed, one row
    a vecN or float), and the image to sample, if any. The executor binds the program,
    sets these, binds the image and draws: it knows nothing of what they mean."""

    program: RasterProgram
    uniforms: tuple[tuple[str, UniformValue], ...]
    arrays: tuple[tuple[str, tuple], ...] = ()
    image: ImageSampler | None = None

    @property
    def names(self) -> frozenset[str]:
        """Every uniform the call sets, the sampler included."""
        sampler = () if self.image is None else (self.image.uniform,)
        return frozenset((*(n for n, _ in self.uniforms), *(n for n, _ in self.arrays), *sampler))


@dataclass(frozen=True)
class GradientPaint:
    """A gradient resolved for one tile: geometry in tile px, stops in line fractions."""

    kind: FillKind  # LINEAR, RADIAL or CONIC
    stops: tuple  # of ResolvedStop
    repeating: bool
    start: tuple[float, float] = (0.0, 0.0)  # linear: start point of the gradient line
    direction: tuple[float, float] = (0.0, 1.0)  # linear: unit vector
    length: float = 1.0  # linear: line length
    center: tuple[float, float] = (0.0, 0.0)  # radial, conic
    radii: tuple[float, float] = (1.0, 1.0)  # radial: ending shape radii
    angle: float = 0.0  # conic: the `from` angle in degrees (0 = up, clockwise)


@dataclass(frozen=True)
class ImagePaint:
    """An image to sample, referenced by ``key`` (which identifies its pixels: the frame
    graph's ``images`` holds them under it, and uploads are cached by it) and size.
    ``ref`` is where it came from, for lookups and messages; it is not compared, since
    the key already says which pixels these are (and a graph unpickled elsewhere holds
    a copy of an in-memory source, not the caller's object)."""

    key: Any
    ref: Any = field(compare=False)  # ImageRef
    width: int
    height: int
    nearest: bool = False  # image-rendering: pixelated / crisp-edges (nearest pixel, not bilinear)


@dataclass(frozen=True)
class LayerPaint:
    """Everything the raster shader needs for one layer's own content, resolved to px."""

    width: float
    height: float
    background: tuple[float, float, float, float]  # premultiplied
    image: GradientPaint | ImagePaint | None
    tile: tuple[float, float, float, float]  # one image tile (x, y, w, h), layer px
    repeat: tuple[bool, bool]
    radii: tuple[tuple[float, float], ...]  # (rx, ry) tl, tr, br, bl
    border_widths: tuple[float, float, float, float]  # top, right, bottom, left
    border_color: tuple[float, float, float, float]  # premultiplied
    offset: tuple[float, float] = (0.0, 0.0)  # sub-pixel position of the box in its texture
    image_wrap: tuple[bool, bool] = (True, True)  # an image's sampler wraps (a second tile shows)
    border_pattern: BorderPattern | None = None  # dashed / dotted borders; None = solid
    shadows: tuple[ShadowPaint, ...] = ()  # box-shadow, first on top (compositor.shadows)
    text: TextPaint | None = None  # the layer's text, drawn after background and border
    # background-clip: the background's painting area as insets from the border box (top,
    # right, bottom, left): zeros for the border box, the border widths for the padding box.
    background_clip: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    @property
    def summary(self) -> str:
        """The raster program, and the outer box shadows drawn after it, for reports."""
        outer = sum(1 for s in self.shadows if not s.inset)
        return self.shader_variant + (f" + {outer} box-shadow{'s' if outer > 1 else ''}" if outer else "")

    @property
    def shader_variant(self) -> str:
        """The raster program's name less "raster.", as reports and graph dumps show it."""
        return self.program.variant

    @property
    def inset_shadows(self) -> tuple[ShadowPaint, ...]:
        return tuple(s for s in self.shadows if s.inset)

    @property
    def program(self) -> RasterProgram:
        """The key of the program that rasters this paint."""
        pattern = self.border_pattern
        border = BorderKind.SOLID if pattern is None else (BorderKind.DOTS if any(pattern.dots) else BorderKind.DASHES)
        inset = self.inset_shadows
        if not inset:
            shadows = InsetKind.NONE
        else:
            shadows = InsetKind.ONE_SOFT if len(inset) == 1 and inset[0].sigma >= 1.0 else InsetKind.SHADOWS
        if self.image is None:
            fill = FillKind.COLOR
        elif isinstance(self.image, ImagePaint):
            fill = FillKind.IMAGE
        else:
            fill = self.image.kind
        return RasterProgram(fill, border, shadows)

    def raster_call(self, origin: tuple[int, int] = (0, 0)) -> RasterCall:
        """The raster program's call for this paint drawn into a texture whose texel
        (0, 0) is layer px ``origin`` (a tile's corner; (0, 0) for a whole layer): every
        uniform the program declares (shaders/raster/layer.frag and what it includes),
        by name."""
        program = self.program
        uniforms: list[tuple[str, UniformValue]] = [
            ("u_size", (self.width, self.height)),
            ("u_offset", (self.offset[0] - origin[0], self.offset[1] - origin[1])),
            ("u_background", self.background),
            ("u_radii_x", tuple(r[0] for r in self.radii)),
            ("u_radii_y", tuple(r[1] for r in self.radii)),
            ("u_border", self.border_widths),
            ("u_border_color", self.border_color),
            ("u_tile", self.tile),
            ("u_repeat", tuple(1.0 if r else 0.0 for r in self.repeat)),
            ("u_background_clip", self.background_clip),
        ]
        arrays: list[tuple[str, tuple]] = []
        if program.inset is not InsetKind.NONE:
            counts, rows = shadow_uniforms(self.inset_shadows, one=program.inset is InsetKind.ONE_SOFT)
            uniforms += counts
            arrays += rows
        dashes = self.border_pattern
        if dashes is not None:  # dashed / dotted borders (compositor.dashes lays them out)
            uniforms += [
                ("u_dash_start", dashes.start),
                ("u_dash_period", dashes.period),
                ("u_dash_length", dashes.length),
                ("u_dash_count", tuple(float(n) for n in dashes.count)),
                ("u_dash_dots", tuple(1.0 if d else 0.0 for d in dashes.dots)),
                ("u_dash_caps", tuple(1.0 if c else 0.0 for c in dashes.caps)),
                ("u_corner_arc", dashes.corner_arcs),
            ]
        image = self.image
        sampler = None
        if isinstance(image, GradientPaint):
            stops = list(image.stops)
            pad = MAX_GRADIENT_STOPS - len(stops)
            arrays += [
                ("u_stop_color", (*(s.color for s in stops), *[(0.0, 0.0, 0.0, 0.0)] * pad)),
                ("u_stop_pos", (*(s.position for s in stops), *[0.0] * pad)),
                ("u_stop_hint", (*(s.hint for s in stops), *[0.5] * pad)),
            ]
            uniforms += [("u_stop_count", len(stops)), ("u_repeating", 1 if image.repeating else 0)]
            if image.kind is FillKind.LINEAR:
                uniforms += [("u_line_start", image.start), ("u_line_dir", image.direction),
                             ("u_line_length", max(image.length, 1e-6))]
            elif image.kind is FillKind.CONIC:
                uniforms += [("u_conic_center", image.center), ("u_conic_from", image.angle / 360.0)]  # in turns
            else:
                uniforms += [("u_center", image.center), ("u_radius", image.radii)]
        elif isinstance(image, ImagePaint):
            sampler = ImageSampler("u_image", image, self.image_wrap, image.nearest)
        return RasterCall(program, tuple(uniforms), tuple(arrays), sampler)
