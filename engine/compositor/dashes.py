"""Where the dashes and dots of a ``dashed`` or ``dotted`` border go (CSS Backgrounds 3
§4.2), laid out per side as Chromium lays them out, so the raster shader
(shaders/common/dashes.glsl) only has to find the nearest one.

The spec says only "a series of square-ended dashes" / "a series of round dots" and
leaves their size and spacing to the UA. Lamina follows Blink (StrokeData and
BoxBorderPainter), as measured on headless Chromium 156 with square corners:

* each side is a line along the middle of its border, from the outer corner to the
  outer corner (the corner squares belong to both sides that meet there);
* dashes are 2x the side's width long with 1x gaps when the width is at least 3 px,
  3x long with 2x gaps below that; a side of at most two dashes is solid, one with
  room for two dashes but not a whole gap gets two shrunk dashes; otherwise it starts
  and ends with a whole dash and the gap is stretched or shrunk to the count whose gap
  is closest to the ideal (Blink's SelectBestDashGap for an open path);
* dots (width above 3 px) are circles of the border's width, the first and last
  centred half a width in, spaced the same way (a side of at most two widths is one
  round-capped stroke);
* a dotted side of 3 px or less is square dots with square gaps, not stretched, laid
  out from the far end of the side (as Blink does).

Rounded corners (Blink strokes one pattern around the whole rounded rectangle, with known
trouble at tight corners, crbug.com/344234) are Lamina's own, and symmetric: a side's line
runs from the middle of one corner's arc (along the middle of the border) to the middle
of the next, and a dash is centred on each corner's midpoint (half of it on each side),
or a dot sits there. Positions along an elliptical arc are proportional to its angle, so
dashes on strongly elliptical corners are a little uneven. A corner counts as rounded
when the middle of its border is curved (radius larger than half the border widths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["BorderPattern", "border_pattern", "select_best_dash_gap", "quarter_arc_length"]


@dataclass(frozen=True)
class BorderPattern:
    """Per side (top, right, bottom, left): where the first dash starts (dashes) or the
    first dot's centre lies (dots), as a distance along the side's middle line, the
    repeat period, the dash length (or dot diameter), how many there are and whether
    they are dots. A count of 0 is a side too short for two: solid for dashes; for dots
    one round-capped stroke from ``start``, ``period`` long. ``corner_arcs`` is, per
    corner (tl, tr, br, bl), half the length of the corner's middle-line arc (0: a
    square corner, whose sides run to the outer corner). Sides are walked clockwise
    from their start corner, as shaders/common/dashes.glsl walks them."""

    style: str  # "dashed" | "dotted"
    start: tuple[float, float, float, float]
    period: tuple[float, float, float, float]
    length: tuple[float, float, float, float]
    count: tuple[int, int, int, int]
    dots: tuple[bool, bool, bool, bool]
    caps: tuple[bool, bool, bool, bool]  # also a square of the width at each end (thin dots)
    corner_arcs: tuple[float, float, float, float]


def select_best_dash_gap(length: float, dash: float, gap: float, closed: bool = False) -> tuple[float, int]:
    """The gap that spreads whole dashes evenly over ``length``, and the dash count:
    of the two counts around ``length / (dash + gap)``, the one whose gap is closest to
    ``gap`` (Blink's StrokeData::SelectBestDashGap). An open path starts and ends with
    a dash; a closed one has as many gaps as dashes."""
    available = length if closed else length + gap
    fewer = math.floor(available / (dash + gap))
    more = fewer + 1
    fewer_gaps = fewer if closed else fewer - 1
    more_gaps = more if closed else more - 1
    fewer_gap = (length - fewer * dash) / fewer_gaps if fewer_gaps > 0 else math.inf
    more_gap = (length - more * dash) / more_gaps if more_gaps > 0 else math.inf
    if more_gap <= 0 or abs(fewer_gap - gap) < abs(more_gap - gap):
        return fewer_gap, fewer
    return more_gap, more


def quarter_arc_length(a: float, b: float) -> float:
    """A quarter of the perimeter of an ellipse with semi-axes a, b (Ramanujan's second
    approximation: exact for circles, within 0.01% for any ratio that matters here)."""
    if a <= 0 or b <= 0:
        return max(a, b, 0.0)
    h = ((a - b) / (a + b)) ** 2
    return math.pi * (a + b) * (1.0 + 3.0 * h / (10.0 + math.sqrt(4.0 - 3.0 * h))) / 4.0


def _dash_sizes(style: str, width: float) -> tuple[float, float]:
    """Ideal dash and gap lengths for a side of ``width`` drawn as dashes."""
    if style == "dotted":  # a thin dotted side: square dashes and gaps
        return width, width
    if width >= 3.0:
        return 2.0 * width, width
    return 3.0 * width, 2.0 * width


def border_pattern(style: str, widths: tuple[float, float, float, float],
                   radii: tuple[tuple[float, float], ...], width: float, height: float) -> BorderPattern:
    """Lay out the dashes or dots of a ``style`` (dashed | dotted) border on a box of
    ``width`` x ``height`` with border ``widths`` (top, right, bottom, left) and used
    ``radii`` ((rx, ry) for tl, tr, br, bl)."""
    if style not in ("dashed", "dotted"):
        raise ValueError(f"border_pattern: style must be dashed or dotted, got {style!r}")
    top, right, bottom, left = widths
    # Each corner's two neighbouring widths: the vertical side's (across x) and the
    # horizontal side's (across y).
    corner_widths = ((left, top), (right, top), (right, bottom), (left, bottom))
    arcs = []
    for (rx, ry), (wx, wy) in zip(radii, corner_widths):
        a, b = rx - wx / 2.0, ry - wy / 2.0
        arcs.append(quarter_arc_length(a, b) / 2.0 if a > 0 and b > 0 else 0.0)
    sides = []
    for i in range(4):
        side_length = width if i % 2 == 0 else height
        c0, c1 = i, (i + 1) % 4
        # Radii along the side: rx on top and bottom, ry on the right and left.
        along0 = radii[c0][0] if i % 2 == 0 else radii[c0][1]
        along1 = radii[c1][0] if i % 2 == 0 else radii[c1][1]
        h0, h1 = arcs[c0], arcs[c1]
        straight = side_length - (along0 if h0 > 0 else 0.0) - (along1 if h1 > 0 else 0.0)
        total = h0 + max(straight, 0.0) + h1  # the side's middle line, in px
        # Blink draws every side left to right or top to bottom; Lamina walks them
        # clockwise, so the bottom and left sides run the other way (``reverse``).
        dotted_next = style == "dotted" and widths[c1] > 3.0
        sides.append(_side(style, widths[i], total, h0 > 0, h1 > 0, reverse=i >= 2, dotted_next=dotted_next))
    start, period, length, count, dots, caps = zip(*sides)
    return BorderPattern(style, start, period, length, count, dots, caps, tuple(arcs))


def _side(style: str, w: float, total: float, round0: bool, round1: bool, *,
          reverse: bool = False, dotted_next: bool = False):
    """(start, period, length, count, dots, caps) of one side whose middle line is
    ``total`` px long, from a rounded (``round0``) or square start to a rounded or
    square end; ``reverse``: Blink draws this side from its end to its start;
    ``dotted_next``: the next side is drawn with round dots too."""
    if w <= 0:
        return 0.0, 1.0, 0.0, 0, False, False
    if style == "dotted" and w > 3.0:
        # Dot centres run from half a width in (square corner) or from the corner's
        # midpoint (rounded) to the same at the other end.
        first = 0.0 if round0 else w / 2.0
        last = total - (0.0 if round1 else w / 2.0)
        span = max(last - first, 0.0)
        if span + w <= 2.0 * w:
            # No room for two dots: one round-capped stroke from the first centre to
            # the last (count 0; the period holds its length), as Blink draws it.
            return first, span, float(w), 0, True, False
        _, n = select_best_dash_gap(span + w, w, w)
        # A dot on a rounded corner's midpoint is also the next side's first: drawn once.
        return first, span / (n - 1), float(w), n - (1 if round1 and dotted_next else 0), True, False
    dash, gap = _dash_sizes(style, w)
    # Half a dash beyond each rounded end: the dash centred on the corner's midpoint.
    first = -dash / 2.0 if round0 else 0.0
    laid = total - first + (dash / 2.0 if round1 else 0.0)
    if laid <= 2.0 * dash:  # no room for two dashes: solid
        return 0.0, 1.0, dash, 0, False, False
    if style == "dotted" and not (round0 or round1):
        # Thin dots keep their size and spacing (Blink fits no gap to them), laid out
        # from the end Blink draws towards, and a square fills each end (the near end's
        # replaces any dot that would start inside it), as Chromium draws them.
        period = 2.0 * w
        n = math.floor((laid - 2.0 * w) / period) + 1
        start = 0.0 if reverse else laid - w - (n - 1) * period
        return start, period, dash, n, False, True
    if laid <= 2.0 * dash + gap:
        # Room for two dashes and less than a whole gap: both shrink to fit (Blink).
        f = laid / (2.0 * dash + gap)
        return first, (dash + gap) * f, dash * f, 2, False, False
    best_gap, n = select_best_dash_gap(laid, dash, gap)
    return first, dash + best_gap, dash, n, False, False
