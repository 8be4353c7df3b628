"""FilterChain: an immutable sequence of FilterOps, printable as CSS, comparable,
interpolable (Filter Effects 1 §13) and plannable."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

from ..errors import InvalidValueError
from ..css.values import RGBA

from .ops import FilterOp
from .plan import FilterPlan, plan_chain
from .svg.model import SvgDocument
from .svg.op import SvgFilterRef
from .svg.route import route_svg
from .syntax import chain_growth, parse_ops
from ..limits import MAX_FILTER_FUNCTIONS, MAX_FILTER_GROWTH

__all__ = ["FilterChain"]

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class FilterChain:
    """``ops`` in the order they apply. ``repr`` is CSS that parses back to an equal chain."""

    ops: tuple[FilterOp, ...] = ()

    def __post_init__(self) -> None:
        # Built by hand (filters.ops.Morphology has no CSS syntax): each item must be an op.
        ops = tuple(self.ops) if not isinstance(self.ops, (str, bytes)) else None
        if ops is None:
            raise InvalidValueError(f"FilterChain takes a sequence of filter ops, got {self.ops!r}", property="filter")
        for i, op in enumerate(ops):
            if not isinstance(op, FilterOp):
                raise InvalidValueError(f"FilterChain item {i} is {op!r}, not a filter op (lamina.filters.ops)",
                                        property="filter")
        # A chain built by hand is held to what parsed CSS is (filters.syntax).
        if len(ops) > MAX_FILTER_FUNCTIONS:
            raise InvalidValueError(f"{len(ops)} filter ops, more than the {MAX_FILTER_FUNCTIONS} one chain may have "
                                    "(lamina.limits.MAX_FILTER_FUNCTIONS)", property="filter")
        growth = chain_growth(ops)
        if growth > MAX_FILTER_GROWTH:
            raise InvalidValueError(f"the blurs of this chain grow its surface by {growth} px, more than the "
                                    f"{MAX_FILTER_GROWTH} px a chain may (lamina.limits.MAX_FILTER_GROWTH)",
                                    property="filter")
        object.__setattr__(self, "ops", ops)

    def __iter__(self) -> Iterator[FilterOp]:
        return iter(self.ops)

    def __len__(self) -> int:
        return len(self.ops)

    def __getitem__(self, i: int) -> FilterOp:
        return self.ops[i]

    def css(self) -> str:
        return " ".join(op.css() for op in self.ops) if self.ops else "none"

    def __repr__(self) -> str:
        return self.css()

    __str__ = css

    def is_none(self) -> bool:
        return not self.ops

    def svg_ids(self) -> tuple[str, ...]:
        """The ids of the SVG filters its ``url(#id)`` ops name, in order."""
        return tuple(op.id for op in self.ops if isinstance(op, SvgFilterRef))

    def resolved_svg(self, document: SvgDocument) -> "FilterChain":
        """The chain with each ``url(#id)`` holding the ``<filter>`` of ``document`` it
        names (an SvgFilterError for an id the document lacks)."""
        return FilterChain(tuple(op.resolved_svg(document) if isinstance(op, SvgFilterRef) else op for op in self.ops))

    def plan(self, *, current_color: RGBA = BLACK, scale: float = 1.0, size: tuple[int, int] | None = None,
             box: tuple[float, float] | None = None, backdrop: bool = False,
             device_scale: float = 1.0) -> FilterPlan:
        """The GPU passes this chain compiles to (``print`` it to read them).

        ``current_color`` resolves drop-shadow's default colour; ``scale`` is pixels per
        CSS px of the space the filter runs in; ``size`` is the input's (cost rules);
        ``box`` the element's box in CSS px, where the input is that box grown by the
        plan's outsets (a layer's filter: an SVG filter region then grows the bounds);
        ``backdrop`` says the chain is a backdrop-filter's (an SVG filter there is planned
        only with its region the box: filters.svg.route says why); ``device_scale`` is
        device px per CSS px of ``box`` and of the chain's lengths (a scene at a device
        scale factor zooms them), while SVG markup stays in CSS px (its user units)."""
        ops = self.ops
        if any(isinstance(op, SvgFilterRef) for op in ops):
            routed = route_svg(ops, size=size, scale=scale, box=box, current_color=current_color, backdrop=backdrop,
                               device_scale=device_scale)  # lowered to ops, or a graph's own plan
            if isinstance(routed, FilterPlan):
                return routed
            ops = routed
        return plan_chain(ops, current_color=current_color, scale=scale, size=size)

    def interpolate(self, other: "FilterChain | str", t: float) -> "FilterChain":
        """The chain at progress ``t`` from self (0) to ``other`` (1), per Filter
        Effects 1 §13: pairwise when the functions match (the shorter list padded with
        initial values); otherwise discrete (self before t = 0.5, other from it)."""
        if isinstance(other, str):
            other = FilterChain(parse_ops(other))
        if not isinstance(other, FilterChain):
            raise InvalidValueError(f"can only interpolate with a FilterChain, got {type(other).__name__}", property="filter")
        if not math.isfinite(t):
            raise InvalidValueError(f"interpolation progress must be finite, got {t!r}", property="filter")
        a, b = self.ops, other.ops
        if any(isinstance(op, SvgFilterRef) for op in a + b):
            return self if t < 0.5 else other  # a url() filter has no interpolation (Filter Effects 1 §13)
        short, long_ = (a, b) if len(a) <= len(b) else (b, a)
        if all(type(x) is type(y) for x, y in zip(short, long_)):
            pad = tuple(type(op).initial() for op in long_[len(short) :])
            if len(a) < len(b):
                a = a + pad
            else:
                b = b + pad
            return FilterChain(tuple(x.interpolate(y, t) for x, y in zip(a, b)))
        return self if t < 0.5 else other
