"""The ``filter`` grammar: CSS text or tokens -> the tuple of FilterOps it names, with
tinycss2 tokens (Filter Effects 1 §5). ``filters.parse`` wraps the ops in a FilterChain;
this module knows nothing of chains, so the chain can parse the CSS it is given too.

Errors are ``FilterSyntaxError`` with the 1-based column of the offending token and
what was expected there; ``url()`` references raise UnsupportedFeatureError.
"""

from __future__ import annotations

import math
from typing import Sequence

import tinycss2
from tinycss2 import ast

from ..errors import FilterSyntaxError, StyleError, UnsupportedFeatureError
from ..css.readers import read_color
from ..css.tokens import TokenStream, describe

from .ops import (
    OPS,
    Blur,
    Brightness,
    Contrast,
    DropShadow,
    FilterOp,
    Grayscale,
    HueRotate,
    Invert,
    Opacity,
    Saturate,
    Sepia,
)

__all__ = ["parse_ops", "parse_op_tokens", "MAX_AMOUNT"]

MAX_AMOUNT = 1.0e4

# Functions taking one optional <number> | <percentage>: (class, default, clamp to 1?)
_AMOUNTS = {
    "grayscale": (Grayscale, 1.0, True),
    "sepia": (Sepia, 1.0, True),
    "invert": (Invert, 1.0, True),
    "opacity": (Opacity, 1.0, True),
    "saturate": (Saturate, 1.0, False),
    "brightness": (Brightness, 1.0, False),
    "contrast": (Contrast, 1.0, False),
}


def _error(ts: TokenStream, message: str, tok=None):
    return ts.error(message, tok, FilterSyntaxError)


def _single_argument(fn: ast.FunctionBlock, ts: TokenStream) -> TokenStream:
    """The function's argument stream; at most one argument (no commas)."""
    args = TokenStream(fn.arguments, ts.prop, anchor=fn)
    for tok in args.tokens:
        if isinstance(tok, ast.LiteralToken) and tok.value == ",":
            raise _error(args, f"{fn.lower_name}() takes at most one argument", tok)
    return args


def _amount(fn: ast.FunctionBlock, ts: TokenStream) -> FilterOp:
    cls, default, clamp = _AMOUNTS[fn.lower_name]
    args = _single_argument(fn, ts)
    if args.at_end():
        return cls(default)
    tok = args.peek()
    if not isinstance(tok, (ast.NumberToken, ast.PercentageToken)):
        raise _error(args, f"{fn.lower_name}() expects a number or percentage, got {describe(tok)}", tok)
    value = float(tok.value) / (100.0 if isinstance(tok, ast.PercentageToken) else 1.0)
    if not math.isfinite(value):
        raise _error(args, f"{fn.lower_name}() value is not finite", tok)
    args.next()
    if value < 0:
        raise _error(args, f"{fn.lower_name}() does not take negative values", tok)
    if args.peek() is not None:
        raise _error(args, f"{fn.lower_name}() takes one value, got another: {describe(args.peek())}", args.peek())
    # Clamp per spec (amounts <= 1); the unbounded ones at 10000: beyond that only
    # colours within 1e-4 of grey could still change, while float32 matrices with
    # larger entries cancel badly (saturate(1e6) moved greys by 5 levels).
    return cls(min(value, 1.0) if clamp else min(value, MAX_AMOUNT))


def _angle(fn: ast.FunctionBlock, ts: TokenStream) -> FilterOp:
    args = _single_argument(fn, ts)
    if args.at_end():
        return HueRotate(0.0)
    tok = args.peek()
    if isinstance(tok, ast.DimensionToken) and not math.isfinite(float(tok.value)):
        raise _error(args, "hue-rotate() angle is not finite", tok)
    try:
        value = args.expect_angle()
    except FilterSyntaxError:
        raise
    except StyleError:
        raise _error(args, f"hue-rotate() expects an angle (deg, rad, grad, turn), got {describe(tok)}", tok) from None
    if args.peek() is not None:
        raise _error(args, f"hue-rotate() takes one angle, got another: {describe(args.peek())}", args.peek())
    return HueRotate(value)


def _length(args: TokenStream, fn_name: str, *, minimum: float | None = None) -> float | None:
    """A <length> in px (or unitless 0); None when the next token is not a length."""
    tok = args.peek()
    if isinstance(tok, ast.DimensionToken):
        if tok.lower_unit != "px":
            raise _error(args, f"{fn_name}() lengths must be in px, got {tok.unit!r}", tok)
        value = float(tok.value)
    elif isinstance(tok, ast.NumberToken) and tok.value == 0:
        value = 0.0
    elif isinstance(tok, ast.NumberToken):
        raise _error(args, f"{fn_name}() expects a length with a unit (px), got {describe(tok)}", tok)
    elif isinstance(tok, ast.PercentageToken):
        raise _error(args, f"{fn_name}() does not take percentages", tok)
    else:
        return None
    if not math.isfinite(value):
        raise _error(args, f"{fn_name}() length is not finite", tok)
    if minimum is not None and value < minimum:
        raise _error(args, f"{fn_name}() does not take negative values", tok)
    args.next()
    return value


def _blur(fn: ast.FunctionBlock, ts: TokenStream) -> FilterOp:
    args = _single_argument(fn, ts)
    if args.at_end():
        return Blur(0.0)
    tok = args.peek()
    value = _length(args, "blur", minimum=0.0)
    if value is None:
        raise _error(args, f"blur() expects a length in px, got {describe(tok)}", tok)
    if args.peek() is not None:
        raise _error(args, f"blur() takes one length, got another: {describe(args.peek())}", args.peek())
    return Blur(value)


def _drop_shadow(fn: ast.FunctionBlock, ts: TokenStream) -> FilterOp:
    """``[ <color>? && <length>{2,3} ]``: the colour before or after the lengths."""
    args = _single_argument(fn, ts)
    color = None
    have_color = False
    lengths_closed = False  # a colour after the lengths ends them
    lengths: list[float] = []
    while not args.at_end():
        tok = args.peek()
        if not have_color:
            c = read_color(args)
            if c is not None:
                if len(lengths) == 1:
                    raise _error(args, "drop-shadow() needs its 2 or 3 lengths together", tok)
                color, have_color = (None if c == "currentcolor" else c), True
                lengths_closed = bool(lengths)
                continue
        if lengths_closed:
            raise _error(args, f"unexpected {describe(tok)} after the colour", tok)
        if len(lengths) == 3:
            raise _error(args, f"drop-shadow() takes at most 3 lengths, got {describe(tok)}", tok)
        value = _length(args, "drop-shadow", minimum=0.0 if len(lengths) == 2 else None)
        if value is None:
            what = "a length" if have_color else "a colour or a length"
            raise _error(args, f"drop-shadow() expects {what}, got {describe(tok)}", tok)
        lengths.append(value)
    if len(lengths) < 2:
        where = None if lengths else fn
        raise _error(args, f"drop-shadow() needs an x and a y offset, got {len(lengths)} length(s)", where)
    dx, dy = lengths[0], lengths[1]
    sigma = lengths[2] if len(lengths) == 3 else 0.0
    return DropShadow(dx, dy, sigma, color)


_PARSERS = {name: _amount for name in _AMOUNTS}
_PARSERS.update({"hue-rotate": _angle, "blur": _blur, "drop-shadow": _drop_shadow})


def parse_op_tokens(tokens: Sequence[ast.Node], prop: str = "filter") -> tuple[FilterOp, ...]:
    """Parse the tokens of a ``filter`` value (columns come from the tokens)."""
    ts = TokenStream(tokens, prop)
    for tok in ts.tokens:
        if isinstance(tok, ast.ParseError):
            raise _error(ts, f"CSS syntax error: {tok.message}", tok)
    if ts.at_end():
        raise _error(ts, "expected 'none' or filter functions, got an empty value")
    if ts.ident("none"):
        if not ts.at_end():
            raise _error(ts, f"'none' must stand alone, got {describe(ts.peek())}", ts.peek())
        return ()
    ops = []
    while not ts.at_end():
        tok = ts.next()
        if isinstance(tok, ast.URLToken) or (isinstance(tok, ast.FunctionBlock) and tok.lower_name == "url"):
            raise ts.error("SVG filter references (url()) are not supported yet", tok, UnsupportedFeatureError)
        if not isinstance(tok, ast.FunctionBlock):
            if isinstance(tok, ast.LiteralToken) and tok.value == ",":
                raise _error(ts, "filter functions are separated by spaces, not commas", tok)
            raise _error(ts, f"expected a filter function, got {describe(tok)}", tok)
        parser = _PARSERS.get(tok.lower_name)
        if parser is None:
            known = ", ".join(sorted(OPS))
            raise _error(ts, f"unknown filter function {tok.name}() (known: {known})", tok)
        ops.append(parser(tok, ts))
    return tuple(ops)


def _unclosed(text: str) -> int | None:
    """Index of the first '(' never closed (outside strings and comments), else None.

    tinycss2 closes blocks left open at the end of the text (CSS Syntax 3 recovers from
    that parse error); a filter value given on its own is held to the stricter rule."""
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if ch in "\"'":
            i += 1
            while i < n and text[i] != ch:
                i += 2 if text[i] == "\\" else 1
        elif ch == "\\":
            i += 1
        elif ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            stack.pop()
        i += 1
    return stack[0] if stack else None


def parse_ops(text: str) -> tuple[FilterOp, ...]:
    """The ops of a CSS ``filter`` value such as ``"blur(2px) sepia(1)"`` (``"none"``: none)."""
    if not isinstance(text, str):
        raise FilterSyntaxError(f"a filter must be CSS text, got {type(text).__name__}", property="filter")
    tokens = tinycss2.parse_component_value_list(text, skip_comments=True)
    if not any(not isinstance(t, (ast.WhitespaceToken, ast.Comment)) for t in tokens):
        raise FilterSyntaxError("expected 'none' or filter functions, got an empty value", property="filter", value=text, column=1)
    open_at = _unclosed(text)
    if open_at is not None:
        start = text.rfind(" ", 0, open_at) + 1
        raise FilterSyntaxError(
            f"{text[start:open_at + 1]!s}...: missing ')'", property="filter", value=text, column=start + 1
        )
    return parse_op_tokens(tokens)
