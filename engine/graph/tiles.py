"""Tiling: how large layers and backings are cut into tiles, and which tiles exist.

As in Chromium's cc (PictureLayerTiling), a large texture is a grid of tiles fixed in
its own space, so moving or scrolling it moves the tiles without re-rastering them.
Only tiles touching the *interest rect* — what can show, grown by a margin so a
scroll finds the next tiles ready — are rastered and kept; tiles leaving it are
released. The GPU's texture limit then applies to a tile, not to the layer. How large
tiles are, and when a texture is tiled, is a ``lamina.tiling.Tiling``.
"""

from __future__ import annotations

import math

from ..geometry import Rect

__all__ = ["tile_grid", "grow"]


def grow(rect: Rect, margin: float) -> Rect:
    return Rect(rect.x - margin, rect.y - margin, rect.width + 2 * margin, rect.height + 2 * margin)


def tile_grid(bounds: Rect, interest: Rect | None, size: int) -> tuple[tuple[int, int], list[tuple[int, int, Rect]]]:
    """The grid over ``bounds`` (whole px, in the tiled texture's space; tiles sit at
    multiples of ``size`` there) and the tiles touching ``interest``: (columns, rows)
    of the whole grid, and (column, row, rect) per tile, each rect cut to ``bounds``."""
    c0, r0 = math.floor(bounds.x / size), math.floor(bounds.y / size)
    c1, r1 = math.ceil(bounds.right / size), math.ceil(bounds.bottom / size)
    grid = (max(c1 - c0, 0), max(r1 - r0, 0))
    if interest is None:
        return grid, []
    area = bounds.intersect(interest)
    if area.is_empty():
        return grid, []
    tiles = []
    for row in range(max(r0, math.floor(area.y / size)), min(r1, math.ceil(area.bottom / size))):
        for col in range(max(c0, math.floor(area.x / size)), min(c1, math.ceil(area.right / size))):
            rect = Rect(col * size, row * size, size, size).intersect(bounds)
            if not rect.is_empty():
                tiles.append((col, row, rect))
    return grid, tiles
