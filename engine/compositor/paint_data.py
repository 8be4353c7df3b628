"""What a layer paints, as plain data resolved to pixels: the LayerPaint the raster
shader draws from (colours premultiplied, geometry in layer px). The compositor makes
these (compositor.paint); raster passes of the frame graph carry them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..text.paint import TextPaint
from .dashes import BorderPattern
from .shadows import ShadowPaint

__all__ = ["GradientPaint", "ImagePaint", "LayerPaint", "SHADOW_SUFFIX", "SOFT_SHADOW_SUFFIX", "DASHES_SUFFIX",
           "DOTS_SUFFIX"]

# The raster variant of a layer with inset box shadows: its program compiled with the
# shadow code (gpu.programs), so layers without them keep the programs they had. (Outer
# shadows are drawn by programs of their own: gpu.shadow_draws.)
SHADOW_SUFFIX = ".shadows"
SOFT_SHADOW_SUFFIX = ".shadow"  # one inset shadow, blur 2px or more: the cheaper kernel, no loop
# The raster variants of dashed borders, and of dotted ones with round dots (their
# program also has the dot code): so solid borders keep the programs they had.
DASHES_SUFFIX = ".dashes"
DOTS_SUFFIX = ".dots"


@dataclass(frozen=True)
class GradientPaint:
    """A gradient resolved for one tile: geometry in tile px, stops in line fractions."""

    kind: str  # "linear" | "radial" | "conic"
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

    @property
    def summary(self) -> str:
        """The raster program, and the outer box shadows drawn after it, for reports."""
        outer = sum(1 for s in self.shadows if not s.inset)
        return self.shader_variant + (f" + {outer} box-shadow{'s' if outer > 1 else ''}" if outer else "")

    @property
    def shader_variant(self) -> str:
        pattern = self.border_pattern
        dashes = "" if pattern is None else (DOTS_SUFFIX if any(pattern.dots) else DASHES_SUFFIX)
        inset = [s for s in self.shadows if s.inset]  # inset box shadows, likewise apart
        if inset:
            dashes += SOFT_SHADOW_SUFFIX if len(inset) == 1 and inset[0].sigma >= 1.0 else SHADOW_SUFFIX
        if self.image is None:
            return "color" + dashes
        if isinstance(self.image, ImagePaint):
            return "image" + dashes
        return self.image.kind + dashes
