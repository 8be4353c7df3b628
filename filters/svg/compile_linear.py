"""feGaussianBlur in linearRGB (the SVG default) on an image with colour -> passes through
a float linear image (``filters.svg.compile`` plans it here; issue 27).

One ``SpacePass`` converts the input, once a pixel, from 8-bit premultiplied sRGB to
premultiplied linearRGB held in floats (``ImageFormat.RGBA32F``); the downscaled
separable blur passes run on that image with their maths unchanged (their images held
in floats too); one ``SpacePass`` converts the result back to 8-bit premultiplied
sRGB. No 8-bit linear image is ever stored: it would band the darks (sRGB 1/255 is
linear 0.0003, and 8-bit linear steps by 0.004). 32-bit floats (not half floats: GL
fetches them faster, ``ImageFormat``) keep the round trip within a level of the float64
reference.

What still runs as convolve passes converting each tap (``filters.svg.compile_spatial``):
edgeMode duplicate and wrap (the downscaled blur passes only know transparent edges),
feConvolveMatrix, and fractional feOffset in linearRGB (4 taps a pixel: a float image
would cost two passes more than it saves).
"""

from __future__ import annotations

from ..plan import ImageFormat, SpacePass, _Builder

__all__ = ["plan_linear_blur"]


def plan_linear_blur(b: _Builder, source: str, sigmas: tuple[float, float], tag: str) -> str:
    """The passes blurring ``source`` (8-bit premultiplied sRGB) by ``sigmas`` px (x, y,
    as the sRGB blur takes them) in linear light for primitive ``tag``; the 8-bit sRGB
    image they write."""
    linear = b.name("linear")
    b.passes.append(SpacePass((source,), linear, True, tag))
    blurred = b.blur_axes(linear, sigmas, ImageFormat.RGBA32F)
    out = b.name("srgb")
    b.passes.append(SpacePass((blurred,), out, False, tag))
    return out
