"""The ``filter`` grammar: CSS text or tokens -> the tuple of FilterOps it names, with
tinycss2 tokens (Filter Effects 1 §5): ``none`` or a list of functions, each found by
name in ``filters.ops.OPS`` and parsed by its op (``FilterOp.from_css``), so a new
filter function adds nothing here. ``filters.parse`` wraps the ops in a FilterChain;
this module knows nothing of chains, so the chain can parse the CSS it is given too.

Errors are ``FilterSyntaxError`` with the 1-based column of the offending token and
what was expected there. ``url(#id)`` is an ``SvgFilterRef`` (filters.svg.op), naming
an SVG ``<filter>``; a reference into another file raises UnsupportedFeatureError.
"""

from __future__ import annotations

from typing import Sequence

import tinycss2
from tinycss2 import ast

from ..errors import FilterSyntaxError
from ..css.bounds import check_css_text
from ..css.tokens import TokenStream, describe
from ..limits import MAX_FILTER_FUNCTIONS, MAX_FILTER_GROWTH

from .arguments import MAX_AMOUNT, error as _error
from .ops import OPS, FilterOp
from .svg.op import read_url_op

__all__ = ["parse_ops", "parse_op_tokens", "chain_growth", "MAX_AMOUNT"]


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
    functions = [tok for tok in ts.tokens if isinstance(tok, ast.FunctionBlock)]
    if len(functions) > MAX_FILTER_FUNCTIONS:  # counted before any is parsed
        raise _error(ts, f"{len(functions)} filter functions, more than the {MAX_FILTER_FUNCTIONS} one chain may have "
                         "(lamina.limits.MAX_FILTER_FUNCTIONS)", functions[MAX_FILTER_FUNCTIONS]).without_value()
    ops = []
    while not ts.at_end():
        tok = ts.next()
        if isinstance(tok, ast.URLToken) or (isinstance(tok, ast.FunctionBlock) and tok.lower_name == "url"):
            ops.append(read_url_op(tok, ts))
            continue
        if not isinstance(tok, ast.FunctionBlock):
            if isinstance(tok, ast.LiteralToken) and tok.value == ",":
                raise _error(ts, "filter functions are separated by spaces, not commas", tok)
            raise _error(ts, f"expected a filter function, got {describe(tok)}", tok)
        op_type = OPS.get(tok.lower_name)
        if op_type is None:
            known = ", ".join(sorted(OPS))
            raise _error(ts, f"unknown filter function {tok.name}() (known: {known})", tok)
        ops.append(op_type.from_css(tok, ts))  # each op parses its own arguments (filters.ops)
    growth = chain_growth(ops)
    if growth > MAX_FILTER_GROWTH:
        raise _error(ts, f"the blurs of this chain grow its surface by {growth} px, more than the {MAX_FILTER_GROWTH} px "
                         "a chain may (lamina.limits.MAX_FILTER_GROWTH: each blur reaches 3 sigma)", ts.tokens[0]).without_value()
    return tuple(ops)


def chain_growth(ops: Sequence[FilterOp]) -> int:
    """How far, in px at scale 1, a chain's kernels grow the surface they run on: the
    sum of each op's reach (3 sigma of a blur, sigma capped as planned)."""
    return sum(int(max(op.reach(1.0).radius)) for op in ops)


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
    check_css_text(text, "filter")
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
