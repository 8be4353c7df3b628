"""CSS easing functions (CSS Easing Functions 1): linear, ease*, cubic-bezier(), steps().

``parse_easing(text)`` returns an ``Easing``: a callable from input progress in [0, 1]
to output progress (which cubic-bezier may take outside [0, 1]).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import tinycss2
from tinycss2 import ast

from ..errors import InvalidValueError
from ..css.bounds import check_css_text
from ..css.tokens import TokenStream, describe, split_commas
from ..limits import MAX_BEZIER_Y, MAX_STEPS

__all__ = ["Easing", "CubicBezier", "Steps", "Linear", "parse_easing", "KEYWORDS"]


class Easing(ABC):
    @abstractmethod
    def __call__(self, x: float) -> float:
        """Output progress for input progress ``x``."""

    @abstractmethod
    def css(self) -> str:
        """The easing as CSS text."""


@dataclass(frozen=True)
class Linear(Easing):
    def __call__(self, x: float) -> float:
        return x

    def css(self) -> str:
        return "linear"


@dataclass(frozen=True)
class CubicBezier(Easing):
    x1: float
    y1: float
    x2: float
    y2: float

    def _coord(self, t: float, p1: float, p2: float) -> float:
        u = 1.0 - t
        return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t

    def __call__(self, x: float) -> float:
        if x <= 0.0 or x >= 1.0:
            # Outside [0, 1] the curve continues along its end tangents (the spec's
            # extrapolation); at the ends themselves it is exactly 0 and 1.
            if x == 0.0 or x == 1.0:
                return x
            if x < 0.0:
                slope = self.y1 / self.x1 if self.x1 > 0 else (self.y2 / self.x2 if self.x2 > 0 else 0.0)
                return slope * x
            slope = (self.y2 - 1) / (self.x2 - 1) if self.x2 < 1 else ((self.y1 - 1) / (self.x1 - 1) if self.x1 < 1 else 0.0)
            return 1.0 + slope * (x - 1.0)
        lo, hi = 0.0, 1.0
        t = x
        for _ in range(8):  # Newton, then bisection if it strays
            err = self._coord(t, self.x1, self.x2) - x
            if abs(err) < 1e-9:
                return self._coord(t, self.y1, self.y2)
            u = 1.0 - t
            d = 3 * u * u * self.x1 + 6 * u * t * (self.x2 - self.x1) + 3 * t * t * (1 - self.x2)
            if abs(d) < 1e-9:
                break
            t -= err / d
            if not 0.0 <= t <= 1.0:
                break
        for _ in range(60):
            t = (lo + hi) / 2
            if self._coord(t, self.x1, self.x2) < x:
                lo = t
            else:
                hi = t
        return self._coord((lo + hi) / 2, self.y1, self.y2)

    def css(self) -> str:
        for name, value in KEYWORDS.items():
            if value == self:
                return name
        return f"cubic-bezier({self.x1:g}, {self.y1:g}, {self.x2:g}, {self.y2:g})"


@dataclass(frozen=True)
class Steps(Easing):
    count: int
    position: str = "jump-end"  # jump-start | jump-end | jump-none | jump-both

    def __call__(self, x: float) -> float:
        step = math.floor(x * self.count)
        if self.position in ("jump-start", "jump-both"):
            step += 1
        if x >= 0 and step < 0:
            step = 0
        jumps = {"jump-start": self.count, "jump-end": self.count, "jump-none": self.count - 1, "jump-both": self.count + 1}[self.position]
        if x <= 1 and step > jumps:
            step = jumps
        return step / jumps

    def css(self) -> str:
        return f"steps({self.count}, {self.position})"


KEYWORDS: dict[str, Easing] = {
    "linear": Linear(),
    "ease": CubicBezier(0.25, 0.1, 0.25, 1.0),
    "ease-in": CubicBezier(0.42, 0.0, 1.0, 1.0),
    "ease-out": CubicBezier(0.0, 0.0, 0.58, 1.0),
    "ease-in-out": CubicBezier(0.42, 0.0, 0.58, 1.0),
    "step-start": Steps(1, "jump-start"),
    "step-end": Steps(1, "jump-end"),
}

_POSITIONS = {"start": "jump-start", "end": "jump-end", "jump-start": "jump-start", "jump-end": "jump-end",
              "jump-none": "jump-none", "jump-both": "jump-both"}


def parse_easing(text: str, *, prop: str = "animation-timing-function") -> Easing:
    """An easing from CSS text; InvalidValueError (with column) when it is not one."""
    if isinstance(text, Easing):
        return text
    if not isinstance(text, str):
        raise InvalidValueError(f"an easing must be CSS text, got {type(text).__name__}", property=prop)
    check_css_text(text, prop)
    ts = TokenStream(tinycss2.parse_component_value_list(text, skip_comments=True), prop)
    tok = ts.next()
    if isinstance(tok, ast.IdentToken) and tok.lower_value in KEYWORDS:
        ts.expect_end()
        return KEYWORDS[tok.lower_value]
    if isinstance(tok, ast.FunctionBlock) and tok.lower_name in ("cubic-bezier", "steps"):
        groups = [TokenStream(g, prop, anchor=tok) for g in split_commas(tok.arguments)]
        ts.expect_end()
        if tok.lower_name == "cubic-bezier":
            if len(groups) != 4:
                raise ts.error(f"cubic-bezier() takes 4 numbers, got {len(groups)}", tok)
            values = []
            for g in groups:
                values.append(g.expect_number())
                g.expect_end()
            x1, y1, x2, y2 = values
            if not (0 <= x1 <= 1 and 0 <= x2 <= 1):
                raise ts.error("cubic-bezier() x values must be between 0 and 1", tok)
            if not (abs(y1) <= MAX_BEZIER_Y and abs(y2) <= MAX_BEZIER_Y):  # the curve's values overflow past it
                raise ts.error(f"cubic-bezier() y values must be within ±{MAX_BEZIER_Y:g} "
                               "(lamina.limits.MAX_BEZIER_Y)", tok)
            return CubicBezier(x1, y1, x2, y2)
        if not 1 <= len(groups) <= 2:
            raise ts.error(f"steps() takes 1 or 2 arguments, got {len(groups)}", tok)
        count = groups[0].expect_integer()
        groups[0].expect_end()
        position = "jump-end"
        if len(groups) == 2:
            position = _POSITIONS.get(groups[1].expect_ident(*_POSITIONS), "jump-end")
            groups[1].expect_end()
        if count > MAX_STEPS:  # (a huge int would not even convert to a float)
            raise ts.error(f"steps() takes at most {MAX_STEPS} steps (lamina.limits.MAX_STEPS)", tok)
        if count < 1 or (position == "jump-none" and count < 2):
            raise ts.error(f"steps() needs at least {2 if position == 'jump-none' else 1} steps", tok)
        return Steps(count, position)
    raise ts.error(f"expected an easing (linear, ease, cubic-bezier(), steps()...), got {describe(tok)}", tok)
