"""linear-gradient() / radial-gradient() / conic-gradient() (and repeating-*): parsing
and the geometry a shader needs (CSS Images 3 §3, CSS Images 4 §3.3 for conic)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from tinycss2 import ast

from ..css.readers import read_at_position, read_color
from ..css.tokens import TokenStream, describe, split_commas
from ..css.tokens import ANGLE_UNITS
from ..css.values import (
    RGBA,
    AnglePercentage,
    ColorStop,
    ConicGradient,
    LengthPercentage,
    LinearGradient,
    RadialGradient,
)
from ..errors import UnsupportedFeatureError
from ..limits import MAX_GRADIENT_STOPS

__all__ = [
    "read_gradient",
    "ResolvedStop",
    "resolve_stops",
    "linear_gradient_line",
    "radial_gradient_radii",
    "conic_gradient_center",
    "CONIC_TURN",
]

_SIDES = ("top", "right", "bottom", "left")
_SIDE_ANGLES = {"top": 0.0, "right": 90.0, "bottom": 180.0, "left": 270.0}
_EXTENTS = ("closest-side", "farthest-side", "closest-corner", "farthest-corner")


def read_gradient(ts: TokenStream):
    """Consume a gradient function if the next token is one; None otherwise."""
    tok = ts.peek()
    if not isinstance(tok, ast.FunctionBlock):
        return None
    name = tok.lower_name
    repeating = name.startswith("repeating-")
    base = name[len("repeating-") :] if repeating else name
    if base not in ("linear-gradient", "radial-gradient", "conic-gradient"):
        return None
    ts.next()
    groups = split_commas(tok.arguments)
    first = TokenStream(groups[0], ts.prop, anchor=tok)
    if base == "linear-gradient":
        angle, corner, used = _linear_prelude(first)
        stops = _stops(groups[1:] if used else groups, ts, tok)
        return LinearGradient(stops=stops, angle=angle, to_corner=corner, repeating=repeating)
    if base == "conic-gradient":
        angle, center, used = _conic_prelude(first)
        stops = _stops(groups[1:] if used else groups, ts, tok, _angle_percentage, "an angle or percentage")
        return ConicGradient(stops=stops, angle=angle, center=center, repeating=repeating)
    shape, size, center, used = _radial_prelude(first)
    stops = _stops(groups[1:] if used else groups, ts, tok)
    return RadialGradient(stops=stops, shape=shape, size=size, center=center, repeating=repeating)


def _linear_prelude(ts: TokenStream):
    """``<angle> | to <side-or-corner>``; returns (angle, corner, consumed?)."""
    if ts.at_end():
        return 180.0, None, False
    tok = ts.peek()
    if isinstance(tok, ast.DimensionToken) or (isinstance(tok, ast.NumberToken) and tok.value == 0):
        angle = ts.expect_angle()
        ts.expect_end()
        return angle, None, True
    if ts.ident("to"):
        a = ts.expect_ident(*_SIDES)
        b = ts.ident(*_SIDES)
        ts.expect_end()
        if b is None:
            return _SIDE_ANGLES[a], None, True
        if {a, b} in ({"top", "bottom"}, {"left", "right"}) or a == b:
            raise ts.error(f"'to {a} {b}' is not a corner")
        vertical = a if a in ("top", "bottom") else b
        horizontal = b if vertical == a else a
        return None, (vertical, horizontal), True
    return 180.0, None, False


def _radial_prelude(ts: TokenStream):
    """``[<shape> || <size>]? [at <position>]?``; returns (shape, size, center, consumed?)."""
    center = (LengthPercentage(percent=50.0), LengthPercentage(percent=50.0))
    if ts.at_end() or read_color(TokenStream([ts.peek()], ts.prop)) is not None:
        return "ellipse", "farthest-corner", center, False
    shape = None
    size = None
    lengths: list[LengthPercentage] = []
    while not ts.at_end():
        tok = ts.peek()
        if isinstance(tok, ast.IdentToken) and tok.lower_value == "at":
            break
        word = ts.ident("circle", "ellipse")
        if word is not None and shape is None:
            shape = word
            continue
        word = ts.ident(*_EXTENTS)
        if word is not None and size is None and not lengths:
            size = word
            continue
        value = ts.length_percentage(minimum=0)
        if value is not None and size is None and len(lengths) < 2:
            lengths.append(value)
            continue
        if value is None and not (isinstance(tok, ast.IdentToken)):
            # Not part of the prelude: maybe it is the first colour stop without a comma.
            raise ts.error(f"expected a shape, size or 'at <position>', got {describe(tok)}", tok)
        raise ts.error(f"unexpected {describe(tok)} in radial-gradient shape", tok)
    center = read_at_position(ts, center)
    ts.expect_end()
    if lengths:
        if shape is None:
            shape = "circle" if len(lengths) == 1 else "ellipse"
        if shape == "circle":
            if len(lengths) != 1 or lengths[0].percent:
                raise ts.error("a circle takes one length (no percentage) as its size")
        elif len(lengths) != 2:
            raise ts.error("an ellipse takes two lengths or percentages as its size")
        size = tuple(lengths)
    return shape or "ellipse", size or "farthest-corner", center, True


def _conic_prelude(ts: TokenStream):
    """``[from <angle>]? [at <position>]?`` (CSS Images 4 §3.3); returns
    (angle, center, consumed?)."""
    center = (LengthPercentage(percent=50.0), LengthPercentage(percent=50.0))
    tok = ts.peek()
    if not (isinstance(tok, ast.IdentToken) and tok.lower_value in ("from", "at", "in")):
        return 0.0, center, False  # no prelude: the first argument is a colour stop
    _no_interpolation_method(ts)
    angle = 0.0
    if ts.ident("from"):
        angle = ts.expect_angle()
    center = read_at_position(ts, center)
    _no_interpolation_method(ts)
    tok = ts.peek()
    if isinstance(tok, ast.IdentToken) and tok.lower_value == "from":
        raise ts.error("'from <angle>' must come before 'at <position>'", tok)
    ts.expect_end()
    return angle, center, True


def _no_interpolation_method(ts: TokenStream) -> None:
    """``in <colour-space>`` is real CSS Images 4 syntax that Lamina does not draw:
    gradients interpolate in premultiplied sRGB only."""
    tok = ts.peek()
    if isinstance(tok, ast.IdentToken) and tok.lower_value == "in":
        raise ts.error("colour interpolation methods ('in <colour-space>') are not supported yet",
                       tok, UnsupportedFeatureError)


def _angle_percentage(ts: TokenStream) -> AnglePercentage | None:
    """Consume an <angle-percentage> if the next token is one (unitless 0 allowed, as
    Chromium and Firefox accept it in gradients). A length is an error here: conic
    stops are angles around the centre, not distances."""
    tok = ts.peek()
    if isinstance(tok, ast.PercentageToken):
        if not math.isfinite(float(tok.value)):
            raise ts.error("value is not finite", tok)
        ts.next()
        return AnglePercentage(percent=float(tok.value))
    if isinstance(tok, ast.NumberToken) and tok.value == 0:
        ts.next()
        return AnglePercentage()
    if isinstance(tok, ast.DimensionToken):
        if tok.lower_unit not in ANGLE_UNITS:
            raise ts.error(f"conic-gradient() positions are angles or percentages, got {describe(tok)}", tok)
        return AnglePercentage(deg=ts.expect_angle())
    return None


def _stops(groups, parent: TokenStream, fn: ast.FunctionBlock,
           read_position: Callable[[TokenStream], object | None] | None = None,
           what: str = "a length or percentage") -> tuple[ColorStop, ...]:
    """<color-stop-list>: stops with 0-2 positions, and transition hints between them.
    ``read_position`` reads one position or hint, ``what`` names it in errors (default:
    a <length-percentage>; conic gradients read <angle-percentage>)."""
    if read_position is None:
        read_position = TokenStream.length_percentage
    stops: list[ColorStop] = []
    pending_hint = False
    for group in groups:
        ts = TokenStream(group, parent.prop, anchor=fn)
        if ts.at_end():
            raise parent.error(f"empty argument in {fn.name}()", fn)
        color = read_color(ts)
        if color is None:
            hint_tok = ts.peek()
            hint = read_position(ts)
            if hint is None:
                raise ts.error(f"expected a colour stop, got {describe(hint_tok)}", hint_tok)
            ts.expect_end()
            if not stops or pending_hint:
                raise ts.error("a transition hint must stand between two colour stops", hint_tok)
            last = stops[-1]
            stops[-1] = ColorStop(last.color, last.position, hint)
            pending_hint = hint_tok
            continue
        positions = []
        while not ts.at_end() and len(positions) < 2:
            pos_tok = ts.peek()
            pos = read_position(ts)
            if pos is None:
                raise ts.error(f"expected {what}, got {describe(pos_tok)}", pos_tok)
            positions.append(pos)
        ts.expect_end()
        if isinstance(color, str):  # currentcolor is resolved against `color` later
            color = _CurrentColor
        if not positions:
            stops.append(ColorStop(color))
        for p in positions:
            stops.append(ColorStop(color, p))
        pending_hint = False
    if pending_hint:
        raise parent.error("a transition hint must be followed by a colour stop", pending_hint)
    if len(stops) < 2:
        raise parent.error(f"{fn.name}() needs at least two colour stops", fn)
    if len(stops) > MAX_GRADIENT_STOPS:
        # Checked here, where the error can name the property, the column and (from a
        # scene file) the JSON path, rather than when the layer is painted.
        raise parent.error(
            f"{fn.name}() has {len(stops)} colour stops (a stop with two positions counts twice); "
            f"Lamina draws at most {MAX_GRADIENT_STOPS}", fn, cls=UnsupportedFeatureError)
    return tuple(stops)


class _CurrentColorType(RGBA):
    """Marker colour for ``currentcolor`` inside gradients (resolved at paint time)."""


_CurrentColor = _CurrentColorType(0.0, 0.0, 0.0, 1.0)


_FAR = 1.0e6  # gradient-line lengths; beyond this a stop is as good as infinitely far


@dataclass(frozen=True)
class ResolvedStop:
    """A stop in gradient-line units (0..1 along the line), premultiplied colour, and the
    hint as a fraction of the way to the next stop (0.5 = linear)."""

    position: float
    color: tuple[float, float, float, float]
    hint: float = 0.5


def resolve_stops(stops, line_length: float, current_color: RGBA, percent_basis: float | None = None) -> list[ResolvedStop]:
    """Apply CSS Images 3 §3.5.3 colour-stop fix-up and convert to line fractions.

    Percentages resolve against ``percent_basis`` (default: the line length)."""
    n = len(stops)
    length = max(line_length, 1e-6)
    basis = length if percent_basis is None else percent_basis
    pos: list[float | None] = [
        None if s.position is None else s.position.resolve(basis) / length for s in stops
    ]
    hints: list[float | None] = [
        None if s.hint is None else s.hint.resolve(basis) / length for s in stops
    ]
    if pos[0] is None:
        pos[0] = 0.0
    if pos[-1] is None:
        pos[-1] = 1.0
    # No stop or hint may sit before the largest position of any stop or hint before it.
    running = pos[0]
    for i in range(n):
        if pos[i] is not None:
            running = max(running, pos[i])
            pos[i] = running
        if hints[i] is not None:
            running = max(running, hints[i])
            hints[i] = running
    # Runs of unpositioned stops are spread evenly between their neighbours.
    i = 0
    while i < n:
        if pos[i] is None:
            j = i
            while pos[j] is None:
                j += 1
            start, end = pos[i - 1], pos[j]
            for k in range(i, j):
                pos[k] = start + (end - start) * (k - i + 1) / (j - i + 1)
            i = j
        i += 1
    # Far-away stops change nothing visible; keep them finite for float32 shaders.
    pos = [min(max(p, -_FAR), _FAR) for p in pos]
    out = []
    for i, s in enumerate(stops):
        color = current_color if isinstance(s.color, _CurrentColorType) else s.color
        hint = 0.5
        if hints[i] is not None and i + 1 < n:
            span = pos[i + 1] - pos[i]
            hint = 0.5 if span <= 0 else min(max((hints[i] - pos[i]) / span, 0.0), 1.0)
        out.append(ResolvedStop(float(pos[i]), color.premultiplied(), hint))
    return out


def linear_gradient_line(g: LinearGradient, width: float, height: float):
    """Start point, direction (unit) and length of the gradient line in a box (§3.1.1)."""
    if g.to_corner is not None:
        vertical, horizontal = g.to_corner
        # Perpendicular to the diagonal joining the two neighbouring corners.
        angle = math.degrees(math.atan2(width, height))
        angle = {
            ("top", "right"): 90.0 - angle,
            ("bottom", "right"): 90.0 + angle,
            ("bottom", "left"): 270.0 - angle,
            ("top", "left"): 270.0 + angle,
        }[(vertical, horizontal)]
    else:
        angle = g.angle
    rad = math.radians(angle)
    dx, dy = math.sin(rad), -math.cos(rad)
    length = abs(width * math.sin(rad)) + abs(height * math.cos(rad))
    cx, cy = width / 2.0, height / 2.0
    start = (cx - dx * length / 2.0, cy - dy * length / 2.0)
    return start, (dx, dy), length


CONIC_TURN = 360.0  # a conic gradient's "line": one turn, in degrees (100% = 360deg)


def conic_gradient_center(g: ConicGradient, width: float, height: float) -> tuple[float, float]:
    """The centre of a conic gradient in a box of ``width`` x ``height`` (its ``at``)."""
    return (g.center[0].resolve(width), g.center[1].resolve(height))


def radial_gradient_radii(g: RadialGradient, width: float, height: float):
    """Centre and (rx, ry) of the ending shape in a box (§3.2.2)."""
    cx = g.center[0].resolve(width)
    cy = g.center[1].resolve(height)
    if isinstance(g.size, tuple):
        if g.shape == "circle":
            r = g.size[0].resolve(width)
            return (cx, cy), (r, r)
        return (cx, cy), (g.size[0].resolve(width), g.size[1].resolve(height))
    dxs = (abs(cx), abs(width - cx))
    dys = (abs(cy), abs(height - cy))
    size = g.size
    if g.shape == "circle":
        if size == "closest-side":
            r = min(min(dxs), min(dys))
        elif size == "farthest-side":
            r = max(max(dxs), max(dys))
        else:
            corners = [math.hypot(x, y) for x in dxs for y in dys]
            r = min(corners) if size == "closest-corner" else max(corners)
        return (cx, cy), (r, r)
    if size in ("closest-side", "closest-corner"):
        rx, ry = min(dxs), min(dys)
    else:
        rx, ry = max(dxs), max(dys)
    if size.endswith("corner"):
        # Same aspect ratio as the *-side ellipse, scaled to pass through the corner.
        rx, ry = rx * math.sqrt(2.0), ry * math.sqrt(2.0)
    return (cx, cy), (rx, ry)
