"""The values of ``mix-blend-mode`` and ``isolation`` as types, parsed once at the edge.

``BlendMode.index`` is the number the composite shader switches on
(``shaders/common/blend.glsl`` defines the same numbers; a test checks they agree)."""

from __future__ import annotations

from enum import Enum

__all__ = ["BlendMode", "Isolation", "SEPARABLE", "NON_SEPARABLE"]


class BlendMode(str, Enum):
    NORMAL = "normal"
    MULTIPLY = "multiply"
    SCREEN = "screen"
    OVERLAY = "overlay"
    DARKEN = "darken"
    LIGHTEN = "lighten"
    COLOR_DODGE = "color-dodge"
    COLOR_BURN = "color-burn"
    HARD_LIGHT = "hard-light"
    SOFT_LIGHT = "soft-light"
    DIFFERENCE = "difference"
    EXCLUSION = "exclusion"
    HUE = "hue"
    SATURATION = "saturation"
    COLOR = "color"
    LUMINOSITY = "luminosity"
    PLUS_LIGHTER = "plus-lighter"

    @property
    def index(self) -> int:
        """The shader's number for this mode (declaration order, normal = 0)."""
        return _ORDER.index(self)

    @property
    def separable(self) -> bool:
        return self not in NON_SEPARABLE

    def __str__(self) -> str:
        return self.value


_ORDER = list(BlendMode)
NON_SEPARABLE = frozenset({BlendMode.HUE, BlendMode.SATURATION, BlendMode.COLOR, BlendMode.LUMINOSITY})
SEPARABLE = frozenset(m for m in BlendMode if m not in NON_SEPARABLE and m is not BlendMode.PLUS_LIGHTER)


class Isolation(str, Enum):
    AUTO = "auto"
    ISOLATE = "isolate"

    def __str__(self) -> str:
        return self.value
