"""What a layer's ``box-shadow`` draws, resolved to pixels (CSS Backgrounds 3 §7.1-7.2).

An outer shadow is the border box (with its radii) moved by the offsets and grown by the
spread distance, blurred with a Gaussian of standard deviation blur / 2, and painted
*outside* the border box only (clipped out by it). An inset shadow is everything
outside the padding box, seen through a hole that is the padding box moved by the
offsets and shrunk by the spread, blurred the same way, and painted *inside* the padding
box only. Spread also changes the corner radii: by the spread distance, except that a
growing corner smaller than the spread grows by ``spread * (1 + (r - 1)^3)`` with
``r = radius / spread`` (§7.2), so that sharp corners stay sharp and small radii grow
gently; radii never go below 0.

The blurred shape is drawn analytically by the raster shader
(shaders/common/box_shadow.glsl); ``compositor.shadow_reference`` is the float64
oracle it is tested against. Outer shadows are *ink overflow*: they draw beyond the
layer's box, by ``shadow_outsets``, which the planner grows the layer's raster and every
bounds it computes by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..css.values import RGBA
from ..filters.plan import BLUR_SIGMA_CAP
from ..limits import MAX_BOX_SHADOWS
from ..style.box_shadow import BoxShadow

__all__ = ["ShadowPaint", "BLUR_REACH", "SHADOW_SIGMA_CAP", "adjust_radius", "shadow_paints", "shadow_outsets",
           "capped_shadows", "shadow_cap_note", "shadow_uniforms"]

# A Gaussian's tail past 3 sigma is under 0.14 % (a third of an 8-bit level): the
# shadow's ink is taken to end there, as blur() filters' output bounds do.
BLUR_REACH = 3.0
# The same cap as blur() filters (WebRender's): past it a shadow is a flat wash anyway.
SHADOW_SIGMA_CAP = BLUR_SIGMA_CAP

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


@dataclass(frozen=True)
class ShadowPaint:
    """One shadow resolved for the raster shader, in layer px. ``rect`` (x0, y0, x1, y1)
    and ``radii`` ((rx, ry) for tl, tr, br, bl) are the shadow shape: for an outer
    shadow the opaque shape, for an inset one the hole. An empty ``rect`` (x1 <= x0 or
    y1 <= y0) means no shape: an inset shadow then fills its padding box."""

    inset: bool
    rect: tuple[float, float, float, float]
    radii: Corners
    sigma: float
    color: tuple[float, float, float, float]  # premultiplied

    @property
    def empty(self) -> bool:
        x0, y0, x1, y1 = self.rect
        return x1 <= x0 or y1 <= y0


_NO_ROW = (0.0, 0.0, 0.0, 0.0)


def shadow_uniforms(shadows: tuple[ShadowPaint, ...], one: bool) -> tuple[tuple[tuple[str, int], ...],
                                                                          tuple[tuple[str, tuple], ...]]:
    """What a shadow program is handed for ``shadows`` (at most MAX_BOX_SHADOWS: the
    parser refuses more), by uniform name: the count (none for a program of ``one``
    shadow, which has no loop), and the uniform arrays (float rows), padded to the
    program's array size (1 for ``one``, else MAX_BOX_SHADOWS). An empty shape (spread
    shrank it away) is sent as a zero rect: the shader reads x1 <= x0 as "no shape" (an
    inset shadow then covers its whole padding box)."""
    pad = (1 if one else MAX_BOX_SHADOWS) - len(shadows)
    counts = () if one else (("u_shadow_count", len(shadows)),)
    arrays = (
        ("u_shadow_rect", (*(_NO_ROW if s.empty else s.rect for s in shadows), *[_NO_ROW] * pad)),
        ("u_shadow_rx", (*(tuple(r[0] for r in s.radii) for s in shadows), *[_NO_ROW] * pad)),
        ("u_shadow_ry", (*(tuple(r[1] for r in s.radii) for s in shadows), *[_NO_ROW] * pad)),
        ("u_shadow_color", (*(s.color for s in shadows), *[_NO_ROW] * pad)),
        ("u_shadow_sigma", (*(s.sigma for s in shadows), *[0.0] * pad)),
    )
    return counts, arrays


def adjust_radius(radius: float, grow: float) -> float:
    """A corner radius (one axis) of the shape grown by ``grow`` px (negative: shrunk),
    CSS Backgrounds 3 §7.2."""
    if grow <= 0.0:
        return max(radius + grow, 0.0)
    if radius >= grow:
        return radius + grow
    # A radius smaller than the growth grows by a cubic share of it: 0 stays 0 (sharp
    # corners stay sharp) and the result meets radius + grow smoothly at radius = grow.
    return radius + grow * (1.0 + (radius / grow - 1.0) ** 3)


def _fit(rect: tuple[float, float, float, float], radii: Corners) -> Corners:
    """Radii scaled down where adjacent ones overlap (CSS Backgrounds 3 §5.5)."""
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    (a, b), (c, d), (e, f), (g, k) = radii
    factor = 1.0
    for length, p, q in ((w, a, c), (w, g, e), (h, b, k), (h, d, f)):
        if p + q > length > 0.0:
            factor = min(factor, length / (p + q))
    if factor == 1.0:
        return radii
    return tuple((rx * factor, ry * factor) for rx, ry in radii)  # type: ignore[return-value]


def _shape(box: tuple[float, float, float, float], radii: Corners, dx: float, dy: float,
           grow: float) -> tuple[tuple[float, float, float, float], Corners]:
    x0, y0, x1, y1 = box
    rect = (x0 + dx - grow, y0 + dy - grow, x1 + dx + grow, y1 + dy + grow)
    if rect[2] <= rect[0] or rect[3] <= rect[1]:
        return rect, ((0.0, 0.0),) * 4  # type: ignore[return-value]
    grown = tuple((adjust_radius(rx, grow), adjust_radius(ry, grow)) for rx, ry in radii)
    return rect, _fit(rect, grown)  # type: ignore[arg-type]


def capped_shadows(shadows: tuple[BoxShadow, ...]) -> tuple[BoxShadow, ...]:
    """The shadows whose blur is past the cap (the planner reports them)."""
    return tuple(s for s in shadows if s.blur / 2.0 > SHADOW_SIGMA_CAP)


def shadow_cap_note(shadows: tuple[BoxShadow, ...]) -> str:
    """What the report says of shadows whose blur was capped."""
    capped = ", ".join(s.css() for s in capped_shadows(shadows))
    return (f"box-shadow {capped}: blur capped at {2 * SHADOW_SIGMA_CAP:g}px "
            f"(sigma {SHADOW_SIGMA_CAP:g}px, WebRender's cap)")


def shadow_paints(
    shadows: tuple[BoxShadow, ...],
    current_color: RGBA,
    size: tuple[float, float],
    radii: Corners,
    borders: tuple[float, float, float, float],
) -> tuple[ShadowPaint, ...]:
    """The shadows that paint something, resolved, in CSS order (first on top).

    ``radii`` are the border box's used radii, ``borders`` the used border widths
    (top, right, bottom, left): inset shadows work in the padding box."""
    w, h = size
    top, right, bottom, left = borders
    padding = (left, top, max(w - right, left), max(h - bottom, top))
    inner = (
        (max(radii[0][0] - left, 0.0), max(radii[0][1] - top, 0.0)),
        (max(radii[1][0] - right, 0.0), max(radii[1][1] - top, 0.0)),
        (max(radii[2][0] - right, 0.0), max(radii[2][1] - bottom, 0.0)),
        (max(radii[3][0] - left, 0.0), max(radii[3][1] - bottom, 0.0)),
    )
    out = []
    for s in shadows:
        color = (current_color if isinstance(s.color, str) else s.color).premultiplied()
        if color[3] <= 0.0:
            continue  # a transparent shadow paints nothing
        sigma = min(s.blur / 2.0, SHADOW_SIGMA_CAP)
        if s.inset:
            if padding[2] <= padding[0] or padding[3] <= padding[1]:
                continue  # no padding box to paint in
            rect, shape_radii = _shape(padding, inner, s.x, s.y, -s.spread)
        else:
            rect, shape_radii = _shape((0.0, 0.0, w, h), radii, s.x, s.y, s.spread)
            if rect[2] <= rect[0] or rect[3] <= rect[1]:
                continue  # spread shrank the shape away
        out.append(ShadowPaint(s.inset, rect, shape_radii, sigma, color))
    return tuple(out)


@lru_cache(maxsize=4096)
def shadow_outsets(shadows: tuple[BoxShadow, ...]) -> tuple[int, int, int, int]:
    """How far, in whole px, the outer shadows can draw past the border box: (left, top,
    right, bottom). The layer's raster and bounds grow by this much (its ink overflow).
    Colour does not matter here (a currentcolor shadow may turn transparent later)."""
    left = top = right = bottom = 0.0
    for s in shadows:
        if s.inset:
            continue  # inset shadows stay inside the padding box
        reach = BLUR_REACH * min(s.blur / 2.0, SHADOW_SIGMA_CAP) + s.spread
        left = max(left, reach - s.x)
        right = max(right, reach + s.x)
        top = max(top, reach - s.y)
        bottom = max(bottom, reach + s.y)
    return tuple(math.ceil(max(v, 0.0)) for v in (left, top, right, bottom))  # type: ignore[return-value]
