"""Where a layer's own raster lies: its box, grown by its ink overflow (outer box
shadows, compositor.shadows), at the sub-pixel offset it is drawn at.

A layer with shadows rasters them into its own texture, grown to hold them, instead of
into a texture of their own drawn under it: the shadow is part of the element's paint,
so it moves, fades, filters, blends and clips with it as CSS says, for nothing — one
raster pass, one texture, one draw, as before — and the planner's one-draw-per-layer
bookkeeping (backings, squashing, damage, the retained fast path) holds as it is. What
it costs: a change to the shadow re-rasters the background too (both are one cheap pass).
"""

from __future__ import annotations

import math

from ..compositor.tree import LayerNode
from ..geometry import Affine
from .placement import subpixel, whole_pixel

__all__ = ["raster_placement"]


def raster_placement(node: LayerNode, m: Affine, sampled: bool = False) -> tuple[tuple[float, float], int, int, Affine]:
    """For a layer drawn with ``m`` (layer px -> target): where its box lies in its
    raster (the LayerPaint offset), the raster's size, and texture px -> target.
    ``sampled``: a moving layer is rastered at no sub-pixel offset and drawn where it
    is, sampled (as cc rasters animating layers), so its raster is the same each frame."""
    ox, oy = (0.0, 0.0) if sampled else _offset(m)
    left, top, right, bottom = node.ink_outsets
    w, h = math.ceil(ox + left + node.width + right), math.ceil(oy + top + node.height + bottom)
    if sampled:
        placed = m
    elif m.is_translation():
        placed = whole_pixel(m)
    else:
        placed = m @ Affine.translate(-ox, -oy)  # (0 for other transforms)
    if left or top:
        placed = placed @ Affine.translate(-left, -top)
    return (ox + left, oy + top), w, h, placed


def _offset(m: Affine) -> tuple[float, float]:
    """The sub-pixel offset a layer drawn with ``m`` is rastered at. A translation's
    (placement.subpixel). An axis-aligned scale -- a raster kept at a scale near its
    ideal (compositor.raster_scale: "kept") resampled by the little left -- is rastered
    at its translation's offset too: the raster then depends on where the layer is, not
    on the scale it is composited with, so a script's scale change within the keep
    threshold reuses it (and a frame at the ideal, a translation, rasters the same)."""
    if (isinstance(m, Affine) and not m.is_translation() and m.b == 0.0 and m.c == 0.0 and m.a > 0.0
            and m.d > 0.0):  # (a projected layer's matrix is a Projective: its offset is subpixel's)
        return (m.e - math.floor(m.e), m.f - math.floor(m.f))
    return subpixel(m)
