"""feGaussianBlur through a float image (``filters.svg.compile`` plans it here; issue 27):
in linearRGB (the SVG default) on an image with colour, and in either space where what
reads the blur amplifies it (``HeldFor``).

One ``SpacePass`` converts the input, once a pixel, from 8-bit premultiplied sRGB to
premultiplied linearRGB held in floats (``ImageFormat.RGBA32F``); the downscaled
separable blur passes run on that image with their maths unchanged (their images held
in floats too); one ``SpacePass`` converts the result back to 8-bit premultiplied
sRGB. No 8-bit linear image is ever stored: it would band the darks (sRGB 1/255 is
linear 0.0003, and 8-bit linear steps by 0.004). 32-bit floats (not half floats: GL
fetches them faster, ``ImageFormat``) keep the round trip within a level of the float64
reference.

A blur whose result is amplified is not rounded to 8 bits either: a blur's rounding of
half a level, times a colour matrix's alpha gain of 18 ("gooey"), is 9 levels; lighting's
normal multiplies the alpha's slopes by surfaceScale. Colour primitives that alone read
the blur run in float in the pass back (``SpacePass.steps``: ``compile_color`` fuses
them there as into an svg colour pass), and an sRGB blur gets a float image of its own
(a SpacePass that only changes the format). Lighting reads the float blur as it is (only
its alpha, the same in either space): no pass back at all.

What still runs as convolve passes converting each tap (``filters.svg.compile_spatial``):
edgeMode duplicate and wrap (the downscaled blur passes only know transparent edges),
feConvolveMatrix, and fractional feOffset in linearRGB (4 taps a pixel: a float image
would cost two passes more than it saves).
"""

from __future__ import annotations

from enum import Enum

import math

from ..plan import Axis, BlurPass, ImageFormat, SpacePass, _Builder

__all__ = ["HeldFor", "plan_float_blur"]


class HeldFor(Enum):
    """Why a blur's result stays in floats past the blur passes (``SpacePlanner.held_for``)."""

    NOTHING = "nothing"  # 8-bit, as every image between passes (a linearRGB blur of colour converts back)
    COLOUR = "colour"  # the colour primitive alone reading it amplifies: fused into the pass back
    LIGHTING = "lighting"  # only lighting reads it: the lighting pass reads the float image


def plan_float_blur(b: _Builder, source: str, sigmas: tuple[float, float], tag: str, linear: bool,
                    held_for: HeldFor = HeldFor.NOTHING) -> str:
    """The passes blurring ``source`` (8-bit premultiplied sRGB) by ``sigmas`` px (x, y,
    as the sRGB blur takes them) on a float image, in linear light when ``linear``, for
    primitive ``tag``; the image they write: 8-bit sRGB (a SpacePass back, which the
    colour work that reads it joins for ``HeldFor.COLOUR``), or for ``HeldFor.LIGHTING``
    the float blur itself."""
    held = b.name("linear" if linear else "float")
    b.passes.append(SpacePass((source,), held, True, tag, linear=linear))
    if held_for is HeldFor.NOTHING:
        blurred = b.blur_axes(held, sigmas, ImageFormat.RGBA32F)
    else:
        blurred = _exact_blur(b, held, sigmas)
    if held_for is HeldFor.LIGHTING:
        return blurred
    out = b.name("srgb")
    b.passes.append(SpacePass((blurred,), out, False, tag, linear=linear))
    return out


def _exact_blur(b: _Builder, source: str, sigmas: tuple[float, float]) -> str:
    """A blur of the float image ``source`` whose result is amplified: at full size, each
    axis the Gaussian of ``sigmas`` to 4 sigma, as the float64 reference's kernel
    (filters.ops.gaussian_kernel). The downscaled passes keep the variance but not the
    shape (box halvings, a tent upsample), and stop at 3 sigma: within a level of a blur,
    but 4 levels once gooey's matrix multiplies alpha by 18 (sigma 3). It costs more
    taps (sigma 10: 81 a pixel and axis), paid only where the result is amplified."""
    current = source
    for axis, sigma in zip(Axis, sigmas):
        if sigma <= 0:
            continue
        out = b.name(f"blur{axis}")
        b.passes.append(BlurPass((current,), out, axis, sigma, max(1, math.ceil(4.0 * sigma)), 1, ImageFormat.RGBA32F))
        current = out
    return current
