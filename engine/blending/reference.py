"""The reference: every CSS ``mix-blend-mode`` in float64 numpy, written from the spec.

This is the oracle the compositor's GLSL (``shaders/common/blend.glsl``) is tested
against; it favours being obviously right over being fast. Citations are the anchors of
W3C Compositing and Blending Level 1 (``#blending...``); plus-lighter comes from
Compositing and Blending Level 2 (``#porterduffcompositingoperators_plus_lighter``).

* Blending works on the non-linear sRGB values as stored (the spec's colour space).
* Inputs and outputs are premultiplied RGBA, shape ``(..., 4)``, in [0, 1].
* The blend functions B(Cb, Cs) take *straight* colours ("The blending calculations
  must not use pre-multiplied color values", ``#blending``), backdrop first as the spec
  writes them. Separable ones work on any shape; non-separable ones on ``(..., 3)``.
* ``blend`` mixes with B, weighted by the backdrop's alpha (``#blending``):
  ``Cs' = (1 - ab) Cs + ab B(Cb, Cs)``, then composites that source-over:
  ``co = as Cs' + (1 - as) cb`` and ``ao = as + ab (1 - as)``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .modes import BlendMode

__all__ = [
    "BlendFunction",
    "blend",
    "blend_function",
    "mix_and_composite",
    "source_over",
    "plus_lighter",
    "unpremultiply",
    # separable B(Cb, Cs)
    "normal",
    "multiply",
    "screen",
    "overlay",
    "darken",
    "lighten",
    "color_dodge",
    "color_burn",
    "hard_light",
    "soft_light",
    "soft_light_d",
    "difference",
    "exclusion",
    # non-separable helpers and B(Cb, Cs)
    "lum",
    "clip_color",
    "set_lum",
    "sat",
    "set_sat",
    "hue",
    "saturation",
    "color",
    "luminosity",
]

BlendFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""B(Cb, Cs): straight backdrop and source colour in, straight mixed colour out."""


def _floats(*arrays: np.ndarray) -> list[np.ndarray]:
    return np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in arrays))


# -- separable blend modes (#blendingseparable): each colour component on its own --------


def normal(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingnormal: B(Cb, Cs) = Cs."""
    return np.array(_floats(cb, cs)[1])


def multiply(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingmultiply: B(Cb, Cs) = Cb x Cs."""
    cb, cs = _floats(cb, cs)
    return cb * cs


def screen(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingscreen: B(Cb, Cs) = Cb + Cs - Cb x Cs."""
    cb, cs = _floats(cb, cs)
    return cb + cs - cb * cs


def hard_light(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendinghardlight: Multiply(Cb, 2 Cs) if Cs <= 0.5, else Screen(Cb, 2 Cs - 1)."""
    cb, cs = _floats(cb, cs)
    return np.where(cs <= 0.5, multiply(cb, 2.0 * cs), screen(cb, 2.0 * cs - 1.0))


def overlay(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingoverlay: B(Cb, Cs) = HardLight(Cs, Cb), i.e. hard-light with the roles
    swapped: the backdrop chooses between multiply and screen."""
    return hard_light(cs, cb)


def darken(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingdarken: B(Cb, Cs) = min(Cb, Cs)."""
    cb, cs = _floats(cb, cs)
    return np.minimum(cb, cs)


def lighten(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendinglighten: B(Cb, Cs) = max(Cb, Cs)."""
    cb, cs = _floats(cb, cs)
    return np.maximum(cb, cs)


def color_dodge(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingcolordodge: 0 if Cb == 0; else 1 if Cs == 1; else min(1, Cb / (1 - Cs)).

    The tests are in the spec's order, so (Cb, Cs) = (0, 1) gives 0."""
    cb, cs = _floats(cb, cs)
    with np.errstate(divide="ignore", invalid="ignore"):  # the Cs == 1 lanes are replaced
        dodged = np.minimum(1.0, cb / (1.0 - cs))
    return np.where(cb == 0.0, 0.0, np.where(cs == 1.0, 1.0, dodged))


def color_burn(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingcolorburn: 1 if Cb == 1; else 0 if Cs == 0; else 1 - min(1, (1 - Cb) / Cs).

    The tests are in the spec's order, so (Cb, Cs) = (1, 0) gives 1."""
    cb, cs = _floats(cb, cs)
    with np.errstate(divide="ignore", invalid="ignore"):  # the Cs == 0 lanes are replaced
        burned = 1.0 - np.minimum(1.0, (1.0 - cb) / cs)
    return np.where(cb == 1.0, 1.0, np.where(cs == 0.0, 0.0, burned))


def soft_light_d(cb: np.ndarray) -> np.ndarray:
    """#blendingsoftlight, D(Cb): ((16 Cb - 12) Cb + 4) Cb if Cb <= 0.25, else sqrt(Cb)."""
    cb = np.asarray(cb, dtype=np.float64)
    # max(): np.where evaluates both branches; the sqrt lane is unused for Cb < 0 anyway.
    return np.where(cb <= 0.25, ((16.0 * cb - 12.0) * cb + 4.0) * cb, np.sqrt(np.maximum(cb, 0.0)))


def soft_light(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingsoftlight: Cb - (1 - 2 Cs) Cb (1 - Cb) if Cs <= 0.5,
    else Cb + (2 Cs - 1) (D(Cb) - Cb)."""
    cb, cs = _floats(cb, cs)
    return np.where(
        cs <= 0.5,
        cb - (1.0 - 2.0 * cs) * cb * (1.0 - cb),
        cb + (2.0 * cs - 1.0) * (soft_light_d(cb) - cb),
    )


def difference(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingdifference: B(Cb, Cs) = |Cb - Cs|."""
    cb, cs = _floats(cb, cs)
    return np.abs(cb - cs)


def exclusion(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingexclusion: B(Cb, Cs) = Cb + Cs - 2 x Cb x Cs."""
    cb, cs = _floats(cb, cs)
    return cb + cs - 2.0 * cb * cs


# -- non-separable blend modes (#blendingnonseparable): colours are (..., 3) arrays -------

LUM_WEIGHTS = (0.3, 0.59, 0.11)  # Lum(C) = 0.3 Cred + 0.59 Cgreen + 0.11 Cblue


def lum(c: np.ndarray) -> np.ndarray:
    """#blendingnonseparable, Lum(C) = 0.3 Cred + 0.59 Cgreen + 0.11 Cblue.

    Shape (..., 1), so that it broadcasts against the colour it came from."""
    c = np.asarray(c, dtype=np.float64)
    r, g, b = LUM_WEIGHTS
    return r * c[..., 0:1] + g * c[..., 1:2] + b * c[..., 2:3]


def clip_color(c: np.ndarray) -> np.ndarray:
    """#blendingnonseparable, ClipColor(C): move an out-of-range colour towards grey at
    its own luminosity L until it fits in [0, 1]; L is unchanged.

    As the spec writes it, L, n = min(C) and x = max(C) are taken once, on entry. (Both
    corrections never apply to one colour SetLum makes from colours in [0, 1]: that would
    need max - min > 1.) The divisions are guarded: L - n or x - L is zero only for a grey
    that rounding pushed a hair out of range, which the final clamp then settles."""
    c = np.asarray(c, dtype=np.float64)
    l = lum(c)
    n = c.min(axis=-1, keepdims=True)
    x = c.max(axis=-1, keepdims=True)
    low = (n < 0.0) & (l > n)
    c = np.where(low, l + (c - l) * l / np.where(low, l - n, 1.0), c)
    high = (x > 1.0) & (x > l)
    c = np.where(high, l + (c - l) * (1.0 - l) / np.where(high, x - l, 1.0), c)
    return c


def set_lum(c: np.ndarray, l: np.ndarray) -> np.ndarray:
    """#blendingnonseparable, SetLum(C, l): add l - Lum(C) to every component, then
    ClipColor. ``l`` broadcasts against (..., 1)."""
    c = np.asarray(c, dtype=np.float64)
    return clip_color(c + (l - lum(c)))


def sat(c: np.ndarray) -> np.ndarray:
    """#blendingnonseparable, Sat(C) = max(Cred, Cgreen, Cblue) - min(...); shape (..., 1)."""
    c = np.asarray(c, dtype=np.float64)
    return c.max(axis=-1, keepdims=True) - c.min(axis=-1, keepdims=True)


def set_sat(c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """#blendingnonseparable, SetSat(C, s): Cmax -> s, Cmid -> (Cmid - Cmin) s / (Cmax -
    Cmin), Cmin -> 0 if Cmax > Cmin; otherwise every component -> 0.

    Written as one expression, (C - Cmin) s / (Cmax - Cmin), which performs the spec's
    three assignments at once. It also settles ties (two equal components, where the
    spec does not say which is "mid") without a choice: equal inputs give equal outputs
    whichever is picked."""
    c = np.asarray(c, dtype=np.float64)
    n = c.min(axis=-1, keepdims=True)
    x = c.max(axis=-1, keepdims=True)
    spread = x > n
    return np.where(spread, (c - n) * s / np.where(spread, x - n, 1.0), 0.0)


def hue(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendinghue: B(Cb, Cs) = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))."""
    return set_lum(set_sat(cs, sat(cb)), lum(cb))


def saturation(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingsaturation: B(Cb, Cs) = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))."""
    return set_lum(set_sat(cb, sat(cs)), lum(cb))


def color(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingcolor: B(Cb, Cs) = SetLum(Cs, Lum(Cb))."""
    return set_lum(cs, lum(cb))


def luminosity(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """#blendingluminosity: B(Cb, Cs) = SetLum(Cb, Lum(Cs))."""
    return set_lum(cb, lum(cs))


_FUNCTIONS: dict[BlendMode, BlendFunction] = {
    BlendMode.NORMAL: normal,
    BlendMode.MULTIPLY: multiply,
    BlendMode.SCREEN: screen,
    BlendMode.OVERLAY: overlay,
    BlendMode.DARKEN: darken,
    BlendMode.LIGHTEN: lighten,
    BlendMode.COLOR_DODGE: color_dodge,
    BlendMode.COLOR_BURN: color_burn,
    BlendMode.HARD_LIGHT: hard_light,
    BlendMode.SOFT_LIGHT: soft_light,
    BlendMode.DIFFERENCE: difference,
    BlendMode.EXCLUSION: exclusion,
    BlendMode.HUE: hue,
    BlendMode.SATURATION: saturation,
    BlendMode.COLOR: color,
    BlendMode.LUMINOSITY: luminosity,
}


def blend_function(mode: BlendMode | str) -> BlendFunction:
    """The spec's B(Cb, Cs) for ``mode`` (straight colours, backdrop first).

    plus-lighter has none: it is a Porter-Duff operator on premultiplied values, not a
    mixing function (see ``plus_lighter``)."""
    mode = BlendMode(mode)
    if mode is BlendMode.PLUS_LIGHTER:
        raise ValueError("plus-lighter is a compositing operator, it has no blend function B(Cb, Cs)")
    return _FUNCTIONS[mode]


# -- compositing ----------------------------------------------------------------------------


def unpremultiply(rgba: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Straight colour (..., 3) and alpha (..., 1) of premultiplied RGBA.

    Alpha 0 gives colour 0: its colour is undefined, and every use multiplies it by 0.
    Colours are clamped to [0, 1] so that input whose colour exceeds its alpha by a
    rounding error still lies in the blend functions' domain."""
    rgba = np.asarray(rgba, dtype=np.float64)
    a = rgba[..., 3:4]
    straight = np.where(a > 0.0, rgba[..., :3] / np.where(a > 0.0, a, 1.0), 0.0)
    return np.clip(straight, 0.0, 1.0), a


def source_over(backdrop: np.ndarray, source: np.ndarray) -> np.ndarray:
    """#porterduffcompositingoperators_srcover on premultiplied RGBA:
    co = cs + cb (1 - as), ao = as + ab (1 - as)."""
    backdrop, source = _floats(backdrop, source)
    return source + backdrop * (1.0 - source[..., 3:4])


def plus_lighter(backdrop: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Compositing Level 2, #porterduffcompositingoperators_plus_lighter, on premultiplied
    RGBA: co = min(1, cs + cb), ao = min(1, as + ab)."""
    backdrop, source = _floats(backdrop, source)
    return np.minimum(1.0, source + backdrop)


def mix_and_composite(backdrop: np.ndarray, source: np.ndarray, function: BlendFunction) -> np.ndarray:
    """The general formula of #blending with any B: mix, weighted by the backdrop's alpha,
    then source-over. Premultiplied RGBA in and out."""
    backdrop, source = _floats(backdrop, source)
    cb, ab = unpremultiply(backdrop)
    cs, a_s = unpremultiply(source)
    # "The result of the mixing formula must be clamped to the minimum and maximum values
    # of the color range." (#blending)
    mixed = np.clip(function(cb, cs), 0.0, 1.0)
    cs_prime = (1.0 - ab) * cs + ab * mixed
    co = a_s * cs_prime + (1.0 - a_s) * backdrop[..., :3]
    ao = a_s + ab * (1.0 - a_s)
    return np.concatenate([co, ao], axis=-1)


def _rgba(name: str, value: np.ndarray) -> np.ndarray:
    value = np.asarray(value, dtype=np.float64)
    if value.shape[-1:] != (4,):
        raise ValueError(f"{name} must be premultiplied RGBA of shape (..., 4), got shape {value.shape}")
    return value


def blend(backdrop: np.ndarray, source: np.ndarray, mode: BlendMode | str) -> np.ndarray:
    """Composite premultiplied ``source`` over premultiplied ``backdrop`` with ``mode``.

    Both are arrays of shape (..., 4) in [0, 1] that broadcast against each other; the
    result is float64 premultiplied RGBA of the broadcast shape. ``mode`` is a BlendMode
    or its CSS name ("multiply", "plus-lighter", ...)."""
    mode = BlendMode(mode)
    backdrop = _rgba("backdrop", backdrop)
    source = _rgba("source", source)
    if mode is BlendMode.PLUS_LIGHTER:
        return plus_lighter(backdrop, source)
    if mode is BlendMode.NORMAL:
        # With B = Cs the general formula is source-over, algebraically. Computing
        # source-over directly skips the un-premultiply round trip, so normal is exactly
        # the compositor's plain premultiplied over (and the GLSL's normal path).
        return source_over(backdrop, source)
    return mix_and_composite(backdrop, source, _FUNCTIONS[mode])
