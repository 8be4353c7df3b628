"""Readers for value types shared by several properties: colours, positions, url()."""

from __future__ import annotations

from tinycss2 import ast

from ..errors import UnsupportedFeatureError
from .colors import parse_color_token
from .tokens import TokenStream, describe, token_text
from .values import RGBA, CornerRadius, ImageRef, LengthPercentage

__all__ = ["read_color", "expect_color", "read_position", "read_url", "read_radii", "read_at_position"]

_X_KEYWORDS = {"left": 0.0, "center": 50.0, "right": 100.0}
_Y_KEYWORDS = {"top": 0.0, "center": 50.0, "bottom": 100.0}
CENTER = LengthPercentage(percent=50.0)


def read_color(ts: TokenStream) -> RGBA | str | None:
    """Consume a colour if the next token is one (RGBA or 'currentcolor')."""
    tok = ts.peek()
    if tok is None or isinstance(tok, (ast.NumberToken, ast.DimensionToken, ast.PercentageToken)):
        return None
    try:
        color = parse_color_token(tok)
    except ValueError as exc:
        raise ts.error(str(exc), tok, UnsupportedFeatureError) from None
    if color is not None:
        ts.next()
    return color


def expect_color(ts: TokenStream) -> RGBA | str:
    tok = ts.peek()
    color = read_color(ts)
    if color is None:
        raise ts.error(f"expected a colour, got {describe(tok)}", tok)
    return color


def _position_component(ts: TokenStream):
    """One <position> component: ('x'|'y'|'either', LengthPercentage) or None."""
    tok = ts.peek()
    if isinstance(tok, ast.IdentToken):
        word = tok.lower_value
        if word == "center":
            ts.next()
            return ("either", CENTER)
        if word in ("left", "right"):
            ts.next()
            return ("x", LengthPercentage(percent=_X_KEYWORDS[word]))
        if word in ("top", "bottom"):
            ts.next()
            return ("y", LengthPercentage(percent=_Y_KEYWORDS[word]))
        return None
    value = ts.length_percentage()
    return None if value is None else ("lp", value)


def read_position(ts: TokenStream) -> tuple[LengthPercentage, LengthPercentage] | None:
    """A 1- or 2-value CSS <position> (keywords, lengths, percentages); None if absent."""
    start = ts.peek()
    first = _position_component(ts)
    if first is None:
        return None
    second_tok = ts.peek()
    second = _position_component(ts)
    if second is None:
        kind, value = first
        return (CENTER, value) if kind == "y" else (value, CENTER)
    k1, v1 = first
    k2, v2 = second
    # Keywords may come in either order ("top left"); lengths fix the order (x then y).
    if k1 == "y" or k2 == "x":
        if k1 == "lp" or k2 == "lp" or k1 == k2:
            raise ts.error("invalid position: horizontal value must come first", second_tok)
        k1, v1, k2, v2 = k2, v2, k1, v1
    if k1 == "y" or k2 == "x":
        raise ts.error("invalid position", start)
    return (v1, v2)


def read_url(ts: TokenStream) -> ImageRef | None:
    """Consume ``url(...)`` (quoted or not) and return an ImageRef, else None."""
    tok = ts.peek()
    if isinstance(tok, ast.URLToken):
        ts.next()
        return ImageRef(url=tok.value)
    if isinstance(tok, ast.FunctionBlock) and tok.lower_name == "url":
        args = [t for t in tok.arguments if not isinstance(t, (ast.WhitespaceToken, ast.Comment))]
        if len(args) != 1 or not isinstance(args[0], ast.StringToken):
            raise ts.error(f"expected url(\"...\"), got url({token_text(tok.arguments)})", tok)
        ts.next()
        return ImageRef(url=args[0].value)
    return None


def read_radii(ts: TokenStream, where=None) -> tuple[CornerRadius, CornerRadius, CornerRadius, CornerRadius]:
    """The <'border-radius'> grammar to the end of ``ts``: 1-4 horizontal radii,
    optionally '/' and 1-4 vertical ones, each list expanded to the four corners (top
    left first) as the box sides are. Used by border-radius and by clip-path's
    ``inset(... round ...)``; ``where`` is the token an empty list is reported at."""
    horizontal: list[LengthPercentage] = []
    vertical: list[LengthPercentage] = []
    target = horizontal
    while not ts.at_end():
        tok = ts.peek()
        if ts.literal("/"):
            if target is vertical or not horizontal:
                raise ts.error("unexpected '/'", tok)
            target = vertical
            continue
        value = ts.length_percentage(minimum=0)
        if value is None:
            raise ts.error(f"expected a radius (a length or percentage), got {describe(tok)}", tok)
        if len(target) == 4:
            raise ts.error("too many radii (at most 4 on each side of '/')", tok)
        target.append(value)
    if not horizontal or (target is vertical and not vertical):
        raise ts.error("expected 1 to 4 radii", ts.tokens[-1] if ts.tokens else where)

    def expand(values: list[LengthPercentage]) -> list[LengthPercentage]:
        values = list(values)
        while len(values) < 4:
            values.append(values[{1: 0, 2: 0, 3: 1}[len(values)]])
        return values

    hs = expand(horizontal)
    vs = expand(vertical) if vertical else hs
    tl, tr, br, bl = (CornerRadius(h, v) for h, v in zip(hs, vs))
    return tl, tr, br, bl


def read_at_position(ts: TokenStream, default: tuple[LengthPercentage, LengthPercentage] = (CENTER, CENTER)
                     ) -> tuple[LengthPercentage, LengthPercentage]:
    """``[at <position>]?`` (radial and conic gradients, circle() and ellipse()): the
    position after ``at``, or ``default`` (the centre) without one."""
    if not ts.ident("at"):
        return default
    tok = ts.peek()
    pos = read_position(ts)
    if pos is None:
        raise ts.error(f"expected a position after 'at', got {describe(tok)}", tok or ts.tokens[-1])
    return pos
