"""``box-shadow`` (CSS Backgrounds 3 §7.1): the typed value and its parser.

    box-shadow: none | <shadow>#
    <shadow> = <color>? && [ <length>{2} <length [0,∞]>? <length>? ] && inset?

The lengths are the x and y offsets, the blur radius (not negative; the shadow is the
shape blurred with a Gaussian of standard deviation blur / 2) and the spread distance.
A missing colour is ``currentcolor``. The first shadow is painted on top. What the
shadows draw is worked out later (compositor.shadows); this module only reads CSS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from tinycss2 import ast

from ..css.readers import read_color
from ..css.tokens import TokenStream, describe
from ..css.values import RGBA
from ..errors import UnsupportedFeatureError
from ..limits import MAX_BOX_SHADOWS

__all__ = ["BoxShadow", "MAX_SHADOW_LENGTH", "parse_box_shadow", "read_box_shadows", "interpolate_box_shadows"]

# The same bound as a layer box's coordinates (lamina.layer.MAX_COORDINATE): past it a
# shadow cannot be on any screen, and the sizes it implies overflow float32 shaders.
MAX_SHADOW_LENGTH = 1_000_000.0


@dataclass(frozen=True)
class BoxShadow:
    """One shadow as written: px lengths, a colour (RGBA or 'currentcolor'), inset."""

    x: float
    y: float
    blur: float = 0.0
    spread: float = 0.0
    color: RGBA | str = "currentcolor"
    inset: bool = False

    def css(self) -> str:
        """The shadow written back as CSS (for messages, reports and scene files)."""
        color = self.color if isinstance(self.color, str) else self.color.to_css()
        parts = ["inset"] if self.inset else []
        parts += [f"{v:g}px" for v in (self.x, self.y, self.blur, self.spread)]
        return " ".join(parts + [color])


def _at_separator(ts: TokenStream) -> bool:
    tok = ts.peek()
    return tok is None or (isinstance(tok, ast.LiteralToken) and tok.value == ",")


def _read_length(ts: TokenStream) -> float | None:
    """A <length> (px, or a unitless 0) if the next token is one; percentages are errors."""
    tok = ts.peek()
    if isinstance(tok, ast.PercentageToken):
        raise ts.error("box-shadow lengths cannot be percentages", tok)
    if not isinstance(tok, (ast.DimensionToken, ast.NumberToken)):
        return None
    if isinstance(tok, ast.NumberToken) and tok.value != 0:
        raise ts.error(f"expected a length in px, got {describe(tok)} (only 0 may be written without a unit)", tok)
    value = ts.expect_length()
    if abs(value) > MAX_SHADOW_LENGTH:
        raise ts.error(f"{value:g}px is beyond ±{MAX_SHADOW_LENGTH:g} px", tok)
    return value


def _read_shadow(ts: TokenStream) -> BoxShadow:
    start = ts.peek()
    lengths: list[float] = []
    color: RGBA | str | None = None
    inset = False
    lengths_done = False  # the lengths come together: once something else follows, no more
    first_length = None
    while not _at_separator(ts):
        tok = ts.peek()
        if ts.ident("inset") is not None:
            if inset:
                raise ts.error("inset is written twice in one shadow", tok)
            inset = True
            lengths_done = bool(lengths)
            continue
        if ts.ident("none") is not None:
            raise ts.error("none cannot be part of a list of shadows", tok)
        value = _read_length(ts)
        if value is not None:
            if lengths_done:
                raise ts.error("a shadow's lengths must be written together (x y [blur [spread]])", tok)
            if len(lengths) == 4:
                raise ts.error("too many lengths: a shadow has at most 4 (x, y, blur, spread)", tok)
            if len(lengths) == 2 and value < 0:
                raise ts.error(f"the blur radius cannot be negative (got {value:g}px)", tok)
            lengths.append(value)
            first_length = first_length or tok
            continue
        c = read_color(ts)
        if c is not None:
            if color is not None:
                raise ts.error("a shadow has one colour, this is a second", tok)
            color = c
            lengths_done = bool(lengths)
            continue
        raise ts.error(f"unexpected {describe(tok)} in a shadow", tok)
    if len(lengths) < 2:
        # Point at the lone length, or where the shadow's lengths were missing.
        where = first_length if lengths else (start if not _at_separator_token(start) else ts.peek())
        got = "nothing" if not lengths else "one length"
        raise ts.error(f"a shadow needs x and y offsets (2 to 4 lengths), got {got}", where)
    x, y, blur, spread = (lengths + [0.0, 0.0])[:4]
    return BoxShadow(x, y, blur, spread, "currentcolor" if color is None else color, inset)


def _at_separator_token(tok) -> bool:
    return tok is None or (isinstance(tok, ast.LiteralToken) and tok.value == ",")


def read_box_shadows(ts: TokenStream) -> tuple[BoxShadow, ...]:
    """``none`` -> (); otherwise every comma-separated shadow, first (topmost) first."""
    if ts.ident("none") is not None:
        if not ts.at_end():
            raise ts.error("none is the whole value: it cannot be listed with shadows", ts.peek())
        return ()
    shadows = [_read_shadow(ts)]
    while not ts.at_end():
        ts.next()  # the comma _read_shadow stopped at
        if len(shadows) == MAX_BOX_SHADOWS:
            raise ts.error(f"more than {MAX_BOX_SHADOWS} shadows in one box-shadow are not supported "
                           "(one raster pass draws at most that many)", ts.peek(), UnsupportedFeatureError)
        shadows.append(_read_shadow(ts))
    return tuple(shadows)


def parse_box_shadow(ts: TokenStream) -> dict:
    """The ``box-shadow`` property parser (style.properties registers it)."""
    return {"box_shadow": read_box_shadows(ts)}


def interpolate_box_shadows(a: tuple[BoxShadow, ...], b: tuple[BoxShadow, ...], t: float,
                            color: Callable[[RGBA, RGBA, float], RGBA]) -> tuple[BoxShadow, ...]:
    """``box-shadow`` at progress ``t`` from ``a`` to ``b`` (CSS Backgrounds 3 §7.1,
    animation type "shadow list"): shadow by shadow, the shorter list padded with
    transparent zero-length shadows; lengths linearly (blur kept at or above 0),
    colours by ``color``. A pair whose ``inset`` differs makes the whole list discrete,
    as does a pair of one ``currentcolor`` and one colour (resolved only when painted)."""
    n = max(len(a), len(b))

    def padded(shadows, other):
        return shadows + tuple(BoxShadow(0.0, 0.0, 0.0, 0.0, RGBA(0.0, 0.0, 0.0, 0.0), s.inset)
                               for s in other[len(shadows):n])

    pa, pb = padded(a, b), padded(b, a)
    if any(x.inset != y.inset or isinstance(x.color, str) != isinstance(y.color, str) for x, y in zip(pa, pb)):
        return a if t < 0.5 else b
    out = []
    for x, y in zip(pa, pb):
        mixed = x.color if isinstance(x.color, str) else color(x.color, y.color, t)
        out.append(BoxShadow(x.x + (y.x - x.x) * t, x.y + (y.y - x.y) * t, max(x.blur + (y.blur - x.blur) * t, 0.0),
                             x.spread + (y.spread - x.spread) * t, mixed, x.inset))
    return tuple(out)
