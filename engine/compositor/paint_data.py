"""What a layer paints, as plain data resolved to pixels: the LayerPaint the raster
shader draws from (colours premultiplied, geometry in layer px). The compositor makes
these (compositor.paint); raster passes of the frame graph carry them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["GradientPaint", "ImagePaint", "LayerPaint"]


@dataclass(frozen=True)
class GradientPaint:
    """A gradient resolved for one tile: geometry in tile px, stops in line fractions."""

    kind: str  # "linear" | "radial"
    stops: tuple  # of ResolvedStop
    repeating: bool
    start: tuple[float, float] = (0.0, 0.0)  # linear: start point of the gradient line
    direction: tuple[float, float] = (0.0, 1.0)  # linear: unit vector
    length: float = 1.0  # linear: line length
    center: tuple[float, float] = (0.0, 0.0)  # radial
    radii: tuple[float, float] = (1.0, 1.0)  # radial: ending shape radii


@dataclass(frozen=True)
class ImagePaint:
    """An image source to sample; ``key`` identifies its pixels for texture caching."""

    key: Any
    ref: Any  # ImageRef
    width: int
    height: int


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

    @property
    def shader_variant(self) -> str:
        if self.image is None:
            return "color"
        if isinstance(self.image, ImagePaint):
            return "image"
        return self.image.kind
