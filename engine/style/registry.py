"""What a CSS property is, as data: one ``StyleProperty`` record per longhand (its CSS
name, the ComputedStyle field it sets, its parser, initial value, whether it inherits,
its animation type and what a change of it invalidates), and one ``Shorthand`` record
per shorthand (its parser and the fields it sets).

The records themselves are listed in ``lamina.style.properties`` (``LONGHANDS``,
``SHORTHANDS``); this module holds only their types, so the stages that read the facts
(parsing, cascading, interpolation, property trees) depend on these types, not on a
property's name.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Callable

from ..css.tokens import TokenStream

__all__ = ["AnimationType", "Invalidation", "StyleProperty", "Shorthand", "IN_PLACE"]


class AnimationType(enum.Enum):
    """How a property's computed values interpolate (the specs' "Animation type")."""

    DISCRETE = "discrete"  # the start value until half way, then the end value
    NUMBER = "number"  # linearly, clamped to the record's range; discrete when not both numbers
    LENGTH_PERCENTAGE = "length-percentage"  # by parts (px and %); discrete against auto
    COLOR = "color"  # in premultiplied sRGB (CSS Color 4 §12); discrete against currentcolor
    TRANSFORM_LIST = "transform-list"  # CSS Transforms 1 §9
    FILTER_LIST = "filter-list"  # Filter Effects 1 §13
    SHADOW_LIST = "shadow-list"  # box-shadow, shadow by shadow (CSS Backgrounds 3 §7.1)
    TEXT_SHADOW_LIST = "text-shadow-list"  # text-shadow, likewise (CSS Text Decoration 3 §4)
    LINE_HEIGHT = "line-height"  # numbers with numbers, lengths with lengths, else discrete


class Invalidation(enum.Flag):
    """What a change of a property's value makes stale. The first four are absorbed by
    the property trees in place (PAINT then re-rasters the layer's backing); TREE rebuilds the
    trees (the layer's geometry, stacking, clips or what its descendants inherit)."""

    NONE = 0
    TRANSFORM = enum.auto()  # moves the layer and its subtree (matrices and clips)
    SCROLL = enum.auto()  # moves the layer's descendants, not the layer
    EFFECT = enum.auto()  # the layer's effect node (opacity, filter): re-composited only
    PAINT = enum.auto()  # what the layer paints: its backing is re-rastered
    TREE = enum.auto()  # the trees are built anew (and decisions made again)


# A change of only these kinds is applied to the property trees' nodes in place (a
# paint change too: the node takes the new style, the planner re-rasters its backing).
IN_PLACE = Invalidation.TRANSFORM | Invalidation.SCROLL | Invalidation.EFFECT | Invalidation.PAINT


@dataclass(frozen=True)
class StyleProperty:
    """One longhand: everything the engine knows about it. ``name`` is None for a
    ComputedStyle field that no CSS declaration sets (the layer's text content).
    ``value_range`` bounds a NUMBER's interpolated value (CSS clamps, e.g. opacity to
    [0, 1], widths to >= 0)."""

    name: str | None
    field: str
    parse: Callable[[TokenStream], dict[str, Any]] | None
    initial: Any
    inherited: bool
    animation: AnimationType
    invalidates: Invalidation
    value_range: tuple[float, float] = (-math.inf, math.inf)
    # Whether a value other than the initial one makes the layer a stacking context
    # (what each property's spec says; position is decided by value, not here).
    stacking: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        """The ComputedStyle fields a declaration of it sets (as Shorthand.fields)."""
        return (self.field,)

    @property
    def in_place(self) -> bool:
        """Whether a change of it alone is applied to the property trees in place."""
        return not (self.invalidates & ~IN_PLACE)


@dataclass(frozen=True)
class Shorthand:
    """A shorthand: its parser sets all of ``fields`` (longhands' fields), resetting those
    it is not given to their initial values."""

    name: str
    parse: Callable[[TokenStream], dict[str, Any]]
    fields: tuple[str, ...]
