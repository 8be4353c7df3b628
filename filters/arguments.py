"""Readers for the arguments of CSS filter functions, over tinycss2 tokens: what each
op's ``from_css`` (filters.ops) parses its function with. Errors are
``FilterSyntaxError`` with the 1-based column of the offending token.
"""

from __future__ import annotations

import math

from tinycss2 import ast

from ..errors import FilterSyntaxError
from ..css.tokens import TokenStream, describe

__all__ = ["MAX_AMOUNT", "error", "single_argument", "length"]

MAX_AMOUNT = 1.0e4


def error(ts: TokenStream, message: str, tok=None):
    return ts.error(message, tok, FilterSyntaxError)


def single_argument(fn: ast.FunctionBlock, ts: TokenStream) -> TokenStream:
    """The function's argument stream; at most one argument (no commas)."""
    args = TokenStream(fn.arguments, ts.prop, anchor=fn)
    for tok in args.tokens:
        if isinstance(tok, ast.LiteralToken) and tok.value == ",":
            raise error(args, f"{fn.lower_name}() takes at most one argument", tok)
    return args


def length(args: TokenStream, fn_name: str, *, minimum: float | None = None) -> float | None:
    """A <length> in px (or unitless 0); None when the next token is not a length."""
    tok = args.peek()
    if isinstance(tok, ast.DimensionToken):
        if tok.lower_unit != "px":
            raise error(args, f"{fn_name}() lengths must be in px, got {tok.unit!r}", tok)
        value = float(tok.value)
    elif isinstance(tok, ast.NumberToken) and tok.value == 0:
        value = 0.0
    elif isinstance(tok, ast.NumberToken):
        raise error(args, f"{fn_name}() expects a length with a unit (px), got {describe(tok)}", tok)
    elif isinstance(tok, ast.PercentageToken):
        raise error(args, f"{fn_name}() does not take percentages", tok)
    else:
        return None
    if not math.isfinite(value):
        raise error(args, f"{fn_name}() length is not finite", tok)
    if minimum is not None and value < minimum:
        raise error(args, f"{fn_name}() does not take negative values", tok)
    args.next()
    return value
