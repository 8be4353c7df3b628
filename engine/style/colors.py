"""CSS colours through tinycss2's CSS Color 4 parser, converted to straight sRGB.

tinycss2 parses every syntax (named, hex, rgb()/hsl()/hwb() in comma and space forms
with ``/ alpha``, lab/lch/oklab/oklch, color()); it converts only the sRGB family itself,
so the Lab-family and XYZ spaces are mapped to sRGB here (clipped to the gamut).
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
    for space, adapt in (("xyz-d65", None), ("xyz-d50", _D50_TO_D65)):
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
