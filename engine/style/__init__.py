"""Style: CSS property text parsed once (with tinycss2) into typed values.

``Style`` holds a layer's declarations; ``Style.computed()`` gives the ComputedStyle the
compositor and raster stages read. Nothing downstream ever sees CSS text.
"""

from .declarations import Declaration, Style, parse_declarations, parse_value
from .properties import PROPERTIES, ComputedStyle
from ..css.values import RGBA, ConicGradient, ImageRef, LinearGradient, RadialGradient

__all__ = [
    "Style",
    "ComputedStyle",
    "Declaration",
    "parse_declarations",
    "parse_value",
    "PROPERTIES",
    "RGBA",
    "ImageRef",
    "LinearGradient",
    "RadialGradient",
    "ConicGradient",
]
