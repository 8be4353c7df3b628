"""What a mask texture holds, as plain data the raster stage draws from (CSS Masking 1):

* a ``mask-image`` is painted exactly like a background image — sized, positioned and
  tiled by ``mask-size`` / ``mask-position`` / ``mask-repeat`` — except that its
  positioning and painting area is the border box (the initial ``mask-origin`` and
  ``mask-clip``), so it is a LayerPaint the layer raster shader draws unchanged;
* a ``polygon()`` clip-path is a PolygonPaint: its vertices in the mask texture's px and
  its fill rule; the polygon shader writes each texel's area coverage.

Mask textures are in the masking layer's own px times its raster scale (one texel per
px at scale 1; graph.masks zooms the lengths as the layer's raster is zoomed), at the
layer's sub-pixel offset plus a transparent texel all round, so a sampled edge fades to
nothing; moving the layer reuses them, as it reuses the layer's own raster.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..images import ImageStore
from ..style import ComputedStyle
from .paint import layer_paint
from .paint_data import LayerPaint

__all__ = ["PolygonPaint", "mask_image_paint", "has_mask", "MASK_PAD"]


def has_mask(style: ComputedStyle) -> bool:
    """Does a layer of this style need a mask (not a clip): a mask-image, or a polygon
    clip-path?"""
    return style.mask_image is not None or (style.clip_path is not None and style.clip_path.is_polygon)

# Transparent texels around every mask texture: bilinear sampling outside the mask
# (a transformed draw) then reads zero coverage, not a clamped edge texel.
MASK_PAD = 1


@dataclass(frozen=True)
class PolygonPaint:
    """A polygon's coverage, rastered into a ``width`` x ``height`` mask texture:
    vertices in texture px, nonzero or even-odd filling."""

    points: tuple[tuple[float, float], ...]
    evenodd: bool
    width: int
    height: int

    @property
    def shader_variant(self) -> str:
        return "polygon"

    @property
    def summary(self) -> str:
        """What the report says the raster pass draws (as LayerPaint.summary)."""
        return f"polygon, {'evenodd' if self.evenodd else 'nonzero'}"


@dataclass(frozen=True)
class _MaskBox:
    """The box a mask image is painted in: the layer's id and size, with a style that
    holds only the mask as its background (nothing else of the layer paints there)."""

    id: str
    style: ComputedStyle
    width: float
    height: float


def mask_image_paint(node, images: ImageStore, base_dir: Path | None, offset: tuple[float, float],
                     max_texture_size: int | None = None) -> LayerPaint:
    """The LayerPaint of ``node``'s mask-image: the image as the only background of a
    box with no border (so it is positioned and clipped in the border box), painted at
    ``offset`` in its texture. Errors (a missing file, an image too large) name the
    layer, as a background's do."""
    s = node.style
    style = ComputedStyle(
        color=s.color,  # currentcolor in the mask's gradient stops
        background_image=s.mask_image,
        background_size=s.mask_size,
        background_position=s.mask_position,
        background_repeat=s.mask_repeat,
        device_scale=s.device_scale,  # the image's natural size in device px
    )
    return layer_paint(_MaskBox(node.id, style, node.width, node.height), images, base_dir, offset, max_texture_size)
