"""Tiling settings: how large layers and backings are cut into tiles (the planner's
lamina.graph.tiles does the cutting), parsed and checked once, at the edge."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from .errors import LaminaInputError, TextureTooLargeError

__all__ = ["Tiling"]


@dataclass(frozen=True)
class Tiling:
    """``tile_size``: tile edge in px. ``threshold``: a layer raster or backing larger
    than this in either dimension is tiled (smaller ones stay one texture, and scroller
    contents are always tiled). ``interest_margin``: px the interest rect reaches past
    what can show, on every side.

    The default tile is 512 px: on llvmpipe a 1280x720 viewport over a long page costs
    least with it (tests/benchmarks/test_scroll_bench.py measures 256/512/1024)."""

    tile_size: int = 512
    threshold: int = 2048
    interest_margin: int = 256

    def __post_init__(self) -> None:
        for name in ("tile_size", "threshold", "interest_margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise LaminaInputError(f"tiling {name} must be a whole number of px, got {value!r}")
        if self.tile_size < 16:
            raise LaminaInputError(f"tiling tile_size {self.tile_size} is too small (at least 16 px)")
        if self.threshold < self.tile_size:
            raise LaminaInputError(f"tiling threshold {self.threshold} is below the tile size {self.tile_size}")
        if self.interest_margin < 0:
            raise LaminaInputError(f"tiling interest_margin {self.interest_margin} is negative")

    def check(self, what: str, width: int, height: int, max_texture_size: int, layer: str | None = None) -> None:
        """Refuse to tile ``what`` (width x height px, ``layer``'s) into tiles the GPU cannot hold."""
        if self.tile_size > max_texture_size:
            raise TextureTooLargeError(
                f"{what} is {width}x{height} px, so it is tiled, but its {self.tile_size} px tiles are larger than "
                f"this GPU's maximum texture of {max_texture_size} px (GL_MAX_TEXTURE_SIZE); choose a tile_size "
                f"of at most {max_texture_size}", layer=layer
            )

    def needs_tiles(self, width: float, height: float, max_texture_size: int) -> bool:
        """Is a texture this large tiled? Above the threshold, or above what one texture
        can hold."""
        limit = min(self.threshold, max_texture_size)
        return width > limit or height > limit
