"""CSS ``filter`` values -> FilterChain: the edge where filter text is parsed once.

The grammar is in ``filters.syntax`` (text -> ops); this module wraps the ops in a chain.
Errors are ``FilterSyntaxError`` with the 1-based column of the offending token and what
was expected there; ``url(#id)`` names an SVG filter (filters.svg.op.SvgFilterRef).
"""

from __future__ import annotations

from typing import Sequence

from tinycss2 import ast

from .chain import FilterChain
from .syntax import MAX_AMOUNT, parse_op_tokens, parse_ops

__all__ = ["parse", "parse_tokens", "MAX_AMOUNT"]


def parse_tokens(tokens: Sequence[ast.Node], prop: str = "filter") -> FilterChain:
    """Parse the tokens of a ``filter`` value (columns come from the tokens)."""
    return FilterChain(parse_op_tokens(tokens, prop))


def parse(text: str) -> FilterChain:
    """Parse a CSS ``filter`` value such as ``"blur(2px) sepia(1)"`` or ``"none"``."""
    return FilterChain(parse_ops(text))
