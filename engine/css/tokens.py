"""A cursor over tinycss2 component values, with typed readers that fail with a column.

Every property parser reads its value through ``TokenStream``: it skips whitespace and
comments, and each ``expect_*`` raises ``InvalidValueError`` pointing at the token that
was wrong and saying what was expected there.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import tinycss2
from tinycss2 import ast

from ..errors import InvalidValueError
from .values import LengthPercentage

__all__ = ["TokenStream", "split_commas", "token_text", "ANGLE_UNITS"]

# Degrees per unit (CSS Values 4 <angle>).
ANGLE_UNITS = {"deg": 1.0, "grad": 0.9, "rad": 180.0 / math.pi, "turn": 360.0}

_SKIP = (ast.WhitespaceToken, ast.Comment)


def token_text(tokens: Iterable[ast.Node]) -> str:
    """Serialize tokens back to CSS text (for messages and round-trips)."""
    return tinycss2.serialize(list(tokens)).strip()


def split_commas(tokens: Sequence[ast.Node]) -> list[list[ast.Node]]:
    """Split a token list at top-level commas (function arguments keep theirs)."""
    groups: list[list[ast.Node]] = [[]]
    for tok in tokens:
        if isinstance(tok, ast.LiteralToken) and tok.value == ",":
            groups.append([])
        else:
            groups[-1].append(tok)
    return groups


class TokenStream:
    """Reads significant tokens of one value; knows its property for error messages."""

    def __init__(self, tokens: Sequence[ast.Node], prop: str, *, anchor: ast.Node | None = None):
        self.tokens = [t for t in tokens if not isinstance(t, _SKIP)]
        self.prop = prop
        self.pos = 0
        self.anchor = anchor if anchor is not None else (self.tokens[0] if self.tokens else None)
        self.text = token_text(tokens)

    # -- navigation ---------------------------------------------------------------------
    def peek(self) -> ast.Node | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self) -> ast.Node | None:
        tok = self.peek()
        if tok is not None:
            self.pos += 1
        return tok

    def at_end(self) -> bool:
        return self.pos >= len(self.tokens)

    def rest(self) -> list[ast.Node]:
        out = self.tokens[self.pos :]
        self.pos = len(self.tokens)
        return out

    # -- errors -------------------------------------------------------------------------
    def error(self, message: str, tok: ast.Node | None = None, cls: type = InvalidValueError):
        """Build (not raise) a typed error located at ``tok`` (or the end of the value)."""
        where = tok if tok is not None else self.peek()
        if where is None:
            where = self.tokens[-1] if self.tokens else self.anchor
        column = getattr(where, "source_column", None)
        line = getattr(where, "source_line", None)
        return cls(message, property=self.prop, value=self.text, column=column, line=line)

    def expect_end(self) -> None:
        tok = self.peek()
        if tok is not None:
            raise self.error(f"unexpected {describe(tok)}", tok)

    # -- typed readers ------------------------------------------------------------------
    def ident(self, *allowed: str) -> str | None:
        """Consume an identifier if it is one of ``allowed`` (any when none given)."""
        tok = self.peek()
        if isinstance(tok, ast.IdentToken) and (not allowed or tok.lower_value in allowed):
            self.pos += 1
            return tok.lower_value
        return None

    def literal(self, value: str) -> bool:
        tok = self.peek()
        if isinstance(tok, ast.LiteralToken) and tok.value == value:
            self.pos += 1
            return True
        return False

    def expect_ident(self, *allowed: str) -> str:
        tok = self.peek()
        got = self.ident(*allowed)
        if got is None:
            raise self.error(f"expected {' or '.join(allowed) or 'a keyword'}, got {describe(tok)}", tok)
        return got

    def expect_number(self, *, minimum: float | None = None, what: str = "a number") -> float:
        tok = self.next()
        if not isinstance(tok, ast.NumberToken):
            raise self.error(f"expected {what}, got {describe(tok)}", tok)
        return self._check(tok, float(tok.value), minimum)

    def expect_integer(self) -> int:
        tok = self.next()
        if not isinstance(tok, ast.NumberToken) or not tok.is_integer:
            raise self.error(f"expected an integer, got {describe(tok)}", tok)
        return int(tok.int_value)

    def expect_number_or_percentage(self, *, minimum: float | None = None) -> float:
        """A <number> or <percentage>, returned as a fraction (50% -> 0.5)."""
        tok = self.next()
        if isinstance(tok, ast.NumberToken):
            return self._check(tok, float(tok.value), minimum)
        if isinstance(tok, ast.PercentageToken):
            return self._check(tok, float(tok.value) / 100.0, minimum)
        raise self.error(f"expected a number or percentage, got {describe(tok)}", tok)

    def expect_angle(self) -> float:
        """An <angle> in degrees; unitless 0 is allowed (CSS quirk kept by browsers)."""
        tok = self.next()
        if isinstance(tok, ast.DimensionToken) and tok.lower_unit in ANGLE_UNITS:
            return self._check(tok, float(tok.value) * ANGLE_UNITS[tok.lower_unit], None)
        if isinstance(tok, ast.NumberToken) and tok.value == 0:
            return 0.0
        raise self.error(f"expected an angle (deg, rad, grad, turn), got {describe(tok)}", tok)

    def length_percentage(self, *, minimum: float | None = None) -> LengthPercentage | None:
        """Consume a <length-percentage> if the next token is one."""
        tok = self.peek()
        if isinstance(tok, ast.DimensionToken):
            if tok.lower_unit != "px":
                raise self.error(f"unsupported length unit {tok.unit!r} (Lamina uses px)", tok)
            self.pos += 1
            return LengthPercentage(px=self._check(tok, float(tok.value), minimum))
        if isinstance(tok, ast.PercentageToken):
            self.pos += 1
            return LengthPercentage(percent=self._check(tok, float(tok.value), minimum))
        if isinstance(tok, ast.NumberToken) and tok.value == 0:
            self.pos += 1
            return LengthPercentage(px=0.0)
        return None

    def expect_length_percentage(self, *, minimum: float | None = None) -> "LengthPercentage":
        tok = self.peek()
        value = self.length_percentage(minimum=minimum)
        if value is None:
            raise self.error(f"expected a length or percentage, got {describe(tok)}", tok)
        return value

    def expect_length(self, *, minimum: float | None = None) -> float:
        tok = self.peek()
        value = None if isinstance(tok, ast.PercentageToken) else self.length_percentage(minimum=minimum)
        if value is None:
            raise self.error(f"expected a length in px, got {describe(tok)}", tok)
        return value.px

    def _check(self, tok: ast.Node, value: float, minimum: float | None) -> float:
        if not math.isfinite(value):
            raise self.error("value is not finite", tok)
        if minimum is not None and value < minimum:
            raise self.error(f"negative values are not allowed here (got {token_text([tok])})", tok)
        return value


def describe(tok: ast.Node | None) -> str:
    """Name a token for an error message: 'end of value', 'number 3', 'ident foo'."""
    if tok is None:
        return "end of value"
    if isinstance(tok, ast.FunctionBlock):
        return f"function {tok.name}()"
    return f"{tok.type} {token_text([tok])!r}"
