"""Where in a layer's raster its outer box shadows are drawn, and how: a nine-patch.

The shadow shader (shaders/common/box_shadow.glsl) adds four corner "bites" to a
separable rectangle term. A bite is zero wherever its corner's kernel cannot reach, so
the raster is cut like a nine-patch (as WebRender cuts its box-shadow masks): corner
cells evaluate the one bite of their corner, edge and middle cells none, and where the
corner regions of the shadows overlap (blur large for the box) one cell evaluates all
four. The part of the border box no shadow shows in (fully inside it, away from its
rounded corners: the shadows are clipped out there) is not drawn at all. On llvmpipe,
which evaluates both sides of every branch, this is what makes the shadow cheap.

Pure geometry on plain data (texture px, whole-pixel rects), tested without a GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from .shadows import ShadowPaint

__all__ = ["Cell", "ALL_CORNERS", "NO_CORNER", "CornerBites", "ShadowRingProgram", "shadow_cells", "kernel_reach",
           "sharp_kernel"]

ALL_CORNERS = -1  # a cell that evaluates all four bites
NO_CORNER = 4     # a cell no bite reaches
_REACH = 3.0      # the kernel's reach in sigmas (BS_REACH in the shader)


class CornerBites(Enum):
    """Which corner bites a cell's program evaluates (its BS_MODE define)."""

    ALL = "all"  # the corner regions overlap: all four bites
    CORNER = "corner"  # one, the cell's corner (picked per vertex)
    NONE = "none"  # edge and middle cells: none reaches


@dataclass(frozen=True)
class ShadowRingProgram:
    """The key of a program that draws outer box shadows over cells of a raster
    (raster/box_shadow.frag over raster/cells.vert): the bites it evaluates, the kernel
    (exact where a shadow's sigma is under 1, else folded), whether its cells touch the
    border box the shadows are clipped out by, and whether it draws one shadow (else all
    of a layer's at once: only with ``clip``). ``str()`` is the program's name in reports
    ("raster.shadow.corner.soft.clip")."""

    bites: CornerBites
    sharp: bool
    clip: bool = True
    one: bool = True

    def __str__(self) -> str:
        kernel = "sharp" if self.sharp else "soft"
        return f"raster.shadow.{self.bites.value}.{kernel}{'.clip' if self.clip else ''}{'' if self.one else '.all'}"


@dataclass(frozen=True)
class Cell:
    """A whole-pixel rect (x, y, w, h) of the texture, which bites it evaluates (a
    corner index: 0 tl, 1 tr, 2 br, 3 bl; ALL_CORNERS or NO_CORNER), and whether it
    touches the border box (``clip``: the shadows are clipped out by the box there; a
    cell outside it needs no clip)."""

    rect: tuple[int, int, int, int]
    corner: int
    clip: bool = True

    @property
    def bites(self) -> CornerBites:
        if self.corner == ALL_CORNERS:
            return CornerBites.ALL
        return CornerBites.NONE if self.corner == NO_CORNER else CornerBites.CORNER


def sharp_kernel(shadows: tuple[ShadowPaint, ...]) -> bool:
    """Do these shadows need the exact kernel (one has sigma under 1)?"""
    return any(s.sigma < 1.0 for s in shadows)


def kernel_reach(sigma: float, sharp: bool) -> float:
    """How far (px) the shader's kernel reaches from a pixel (bs_reach, bs_scale)."""
    if sharp:
        return 0.5 + _REACH * max(sigma, 1e-4)
    return _REACH * math.sqrt(sigma * sigma + 1.0 / 12.0)


def _subtract(rect, hole):
    """``rect`` minus ``hole`` (both x0, y0, x1, y1): up to four rects."""
    x0, y0, x1, y1 = rect
    hx0, hy0, hx1, hy1 = max(hole[0], x0), max(hole[1], y0), min(hole[2], x1), min(hole[3], y1)
    if hx0 >= hx1 or hy0 >= hy1:
        return [rect]
    parts = [(x0, y0, x1, hy0), (x0, hy1, x1, y1), (x0, hy0, hx0, hy1), (hx1, hy0, x1, hy1)]
    return [r for r in parts if r[0] < r[2] and r[1] < r[3]]


def shadow_cells(
    shadows: tuple[ShadowPaint, ...],
    box: tuple[float, float, float, float],
    radii,
    size: tuple[int, int],
) -> list[Cell]:
    """The cells to draw ``shadows`` (outer, non-empty) in a texture of ``size``, the
    border box at ``box`` (x, y, w, h in texture px) with ``radii`` ((rx, ry) tl, tr,
    br, bl). The shadows' rects are in layer px, the box's origin their (0, 0)."""
    width, height = size
    bx, by, bw, bh = box
    # Corner regions, in texture px: the left corners' bites reach at most to xa, the
    # right ones' from xb on; likewise ya, yb. The exact kernel's reach, the longer, as
    # a region may draw a shadow with either.
    xa = ya = -math.inf
    xb = yb = math.inf
    for s in shadows:
        reach = kernel_reach(s.sigma, True) + 1.0  # and a pixel of margin for float noise
        x0, y0, x1, y1 = s.rect
        (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = s.radii
        xa = max(xa, bx + x0 + max(tlx, blx) + reach)
        xb = min(xb, bx + x1 - max(trx, brx) - reach)
        ya = max(ya, by + y0 + max(tly, try_) + reach)
        yb = min(yb, by + y1 - max(bly, bry) - reach)
    xa, xb = min(max(math.ceil(xa), 0), width), max(min(math.floor(xb), width), 0)
    ya, yb = min(max(math.ceil(ya), 0), height), max(min(math.floor(yb), height), 0)
    patched = xa < xb and ya < yb  # else the corner regions overlap: all bites everywhere
    # The box's own pixel edges split the grid too: cells off the box need no clip.
    box_px = (math.floor(bx), math.floor(by), math.ceil(bx + bw), math.ceil(by + bh))
    xs = sorted({0, width, *(min(max(v, 0), width) for v in (xa, xb, box_px[0], box_px[2]))})
    ys = sorted({0, height, *(min(max(v, 0), height) for v in (ya, yb, box_px[1], box_px[3]))})
    corner_of = {(0, 0): 0, (2, 0): 1, (2, 2): 2, (0, 2): 3}
    cells = []
    for y0, y1 in zip(ys, ys[1:]):
        for x0, x1 in zip(xs, xs[1:]):
            if patched:
                col = 0 if x1 <= xa else (2 if x0 >= xb else 1)
                row = 0 if y1 <= ya else (2 if y0 >= yb else 1)
                corner = corner_of.get((col, row), NO_CORNER)
            else:
                corner = ALL_CORNERS
            clip = x0 < box_px[2] and x1 > box_px[0] and y0 < box_px[3] and y1 > box_px[1]
            cells.append(((x0, y0, x1, y1), corner, clip))
    # Leave out what lies fully inside the border box away from its corners (a cross):
    # the shadows are clipped out there.
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = radii
    holes = [
        (math.ceil(bx), math.ceil(by + max(tly, try_)), math.floor(bx + bw), math.floor(by + bh - max(bly, bry))),
        (math.ceil(bx + max(tlx, blx)), math.ceil(by), math.floor(bx + bw - max(trx, brx)), math.floor(by + bh)),
    ]
    out = []
    for rect, corner, clip in cells:
        parts = [rect]
        for hole in holes:
            if hole[0] < hole[2] and hole[1] < hole[3]:
                parts = [q for part in parts for q in _subtract(part, hole)]
        out.extend(Cell((x0, y0, x1 - x0, y1 - y0), corner, clip) for x0, y0, x1, y1 in parts)
    return out
