"""Animations: keyframes of a layer's style over time, CSS easing and interpolation.

    card.animate({"0%": {"transform": "rotate(0deg)"}, "100%": {"transform": "rotate(90deg)"}},
                 duration="2s", easing="ease-in-out", iterations="infinite", direction="alternate")
    scene.render(t=0.5)

SVG filter primitive attributes animate the same way, per scene (``svg_attributes``):

    scene.animate_svg("#glow", {"0%": {"blur.stdDeviation": 2}, "100%": {"blur.stdDeviation": 8}}, duration="2s")
"""

from .easing import CubicBezier, Easing, Linear, Steps, parse_easing
from .interpolate import interpolate_field
from .svg_attributes import SvgAttributeAnimation
from .timeline import COMPOSITED_PROPERTIES, Animation, Keyframe, parse_time

__all__ = [
    "Animation",
    "Keyframe",
    "Easing",
    "Linear",
    "CubicBezier",
    "Steps",
    "parse_easing",
    "parse_time",
    "interpolate_field",
    "COMPOSITED_PROPERTIES",
    "SvgAttributeAnimation",
]
