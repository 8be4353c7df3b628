"""CSS colours through tinycss2's CSS Color 4 parser, converted to straight sRGB.

tinycss2 parses every syntax (named, hex, rgb()/hsl()/hwb() in comma and space forms
with ``/ alpha``, lab/lch/oklab/oklch, color()); it converts only the sRGB family itself,
so the Lab-family, XYZ and the other predefined RGB spaces of color() (srgb-linear,
display-p3, a98-rgb, prophoto-rgb, rec2020) are mapped to sRGB here through XYZ, with
CSS Color 4's transfer functions and matrices (§10, §18), clipped to the gamut.
"""

from __future__ import annotations

import math

import tinycss2.color4 as color4
from tinycss2 import ast

from .values import RGBA

__all__ = ["parse_color_token", "CURRENT_COLOR"]

CURRENT_COLOR = "currentcolor"

# XYZ (D65) -> linear sRGB, CSS Color 4 §18 sample code.
_XYZ65_TO_LINEAR_SRGB = (
    (3.2409699419045226, -1.537383177570094, -0.4986107602930034),
    (-0.9692436362808796, 1.8759675015077202, 0.04155505740717559),
    (0.05563007969699366, -0.20397695888897652, 1.0569715142428786),
)
# Bradford chromatic adaptation D50 -> D65, CSS Color 4 §18.
_D50_TO_D65 = (
    (0.955473421488075, -0.02309845494876471, 0.06325924320057072),
    (-0.0283697093338637, 1.0099953980813041, 0.021041441191917323),
    (0.012314014864481998, -0.020507649298898964, 1.330365926242124),
)



def _srgb_linear(c: float) -> float:
    a = abs(c)
    return math.copysign(((a + 0.055) / 1.055) ** 2.4 if a > 0.04045 else a / 12.92, c)


def _a98_linear(c: float) -> float:
    return math.copysign(abs(c) ** (563 / 256), c)


def _prophoto_linear(c: float) -> float:
    a = abs(c)
    return math.copysign(a**1.8 if a > 16 / 512 else a / 16, c)


def _rec2020_linear(c: float) -> float:
    alpha, beta = 1.09929682680944, 0.018053968510807
    a = abs(c)
    return math.copysign(a / 4.5 if a < beta * 4.5 else ((a + alpha - 1) / alpha) ** (1 / 0.45), c)


# space -> (to linear light, linear RGB -> XYZ matrix, white point of that XYZ)
_PREDEFINED = {
    "srgb-linear": (lambda c: c, (
        (0.41239079926595934, 0.357584339383878, 0.1804807884018343),
        (0.21263900587151027, 0.715168678767756, 0.07219231536073371),
        (0.01933081871559182, 0.11919477979462598, 0.9505321522496607),
    ), "d65"),
    "display-p3": (_srgb_linear, (
        (0.4865709486482162, 0.26566769316909306, 0.1982172852343625),
        (0.2289745640697488, 0.6917385218365064, 0.079286914093745),
        (0.0, 0.04511338185890264, 1.043944368900976),
    ), "d65"),
    "a98-rgb": (_a98_linear, (
        (0.5766690429101305, 0.1855582379065463, 0.1882286462349947),
        (0.29734497525053605, 0.6273635662554661, 0.07529145849399788),
        (0.02703136138641234, 0.07068885253582723, 0.9913375368376388),
    ), "d65"),
    "prophoto-rgb": (_prophoto_linear, (
        (0.7977666449006423, 0.13518129740053308, 0.0313477341283922),
        (0.2880748288194013, 0.711835234241873, 0.00008993693872564),
        (0.0, 0.0, 0.8251046025104602),
    ), "d50"),
    "rec2020": (_rec2020_linear, (
        (0.6369580483012914, 0.14461690358620832, 0.1688809751641721),
        (0.2627002120112671, 0.6779980715188708, 0.05930171646986196),
        (0.0, 0.028072693049087428, 1.060985057710791),
    ), "d65"),
}


def _mul(m, v):
    return tuple(sum(m[i][j] * v[j] for j in range(3)) for i in range(3))


def _encode_srgb(c: float) -> float:
    sign = -1.0 if c < 0 else 1.0
    c = abs(c)
    return sign * (1.055 * c ** (1 / 2.4) - 0.055) if c > 0.0031308 else sign * 12.92 * c


def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def to_rgba(color: color4.Color) -> RGBA | None:
    """Convert a tinycss2 colour to straight sRGB; None for spaces we cannot map."""
    alpha = _clip(color.alpha)
    try:
        r, g, b, _ = color.to("srgb")
        return RGBA(_clip(r), _clip(g), _clip(b), alpha)
    except NotImplementedError:
        pass
    except (OverflowError, ValueError):
        raise ValueError("colour components are out of range") from None
    xyz = None
    if color.space in _PREDEFINED:
        to_linear, matrix, white = _PREDEFINED[color.space]
        try:
            xyz = _mul(matrix, tuple(to_linear(float(c)) for c in color.coordinates))
        except (OverflowError, ValueError):
            raise ValueError("colour components are out of range") from None
        if white == "d50":
            xyz = _mul(_D50_TO_D65, xyz)
    for space, adapt in (("xyz-d65", None), ("xyz-d50", _D50_TO_D65)) if xyz is None else ():
        try:
            xyz = tuple(color.to(space).coordinates)
        except NotImplementedError:
            continue
        except (OverflowError, ValueError):
            raise ValueError("colour components are out of range") from None
        if adapt is not None:
            xyz = _mul(adapt, xyz)
        break
    if xyz is None:
        return None
    try:
        linear = _mul(_XYZ65_TO_LINEAR_SRGB, xyz)
        r, g, b = (_clip(_encode_srgb(c)) for c in linear)
    except (OverflowError, ValueError):
        raise ValueError("colour components are out of range") from None
    if not all(math.isfinite(c) for c in (r, g, b)):
        raise ValueError("colour components are out of range")
    return RGBA(r, g, b, alpha)


def parse_color_token(tok: ast.Node | None) -> RGBA | str | None:
    """An RGBA for a colour token, ``CURRENT_COLOR`` for currentcolor, None when the token
    is not a colour; ValueError for a colour in a space that cannot be mapped to sRGB."""
    if tok is None:
        return None
    parsed = color4.parse_color(tok)
    if parsed is None:
        return None
    if parsed == "currentcolor":
        return CURRENT_COLOR
    rgba = to_rgba(parsed)
    if rgba is None:
        raise ValueError(f"colour space {parsed.space!r} cannot be converted to sRGB")
    return rgba
