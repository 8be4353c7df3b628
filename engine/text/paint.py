"""A layer's text as paint: ComputedStyle -> TextPaint, the plain data a LayerPaint
carries and the raster pass draws (lamina.gpu.text).

It compares by what the pixels depend on — the layout's inputs, where the content box
sits in the raster, the colours and the shadows — never by the layout object, so a
layer that moves, fades or is filtered keeps an equal TextPaint and is not rastered
again. CSS paints text after the background and borders, shadows under the text, the
first shadow on top (CSS Text Decoration 3 §4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import device_scale
from ..filters.plan import BLUR_SIGMA_CAP
from ..style.properties import ComputedStyle
from ..style.text import check_resolved
from .layout import TextLayout, TextSpec, lay_out

__all__ = ["ShadowPaint", "TextPaint", "text_paint"]


@dataclass(frozen=True)
class ShadowPaint:
    """One text-shadow resolved: offset in px, Gaussian sigma (blur radius / 2, capped
    as blur filters are), premultiplied colour."""

    offset: tuple[float, float]
    sigma: float
    color: tuple[float, float, float, float]


@dataclass(frozen=True)
class TextPaint:
    """What the raster pass needs to draw a layer's text. ``origin`` is where the
    content box's top-left lies in the layer's raster (border widths plus the box's
    sub-pixel offset); ``shadows`` are in drawing order (the last CSS shadow first)."""

    spec: TextSpec
    origin: tuple[float, float]
    color: tuple[float, float, float, float]  # premultiplied
    shadows: tuple[ShadowPaint, ...] = ()
    layout: TextLayout | None = field(default=None, compare=False, repr=False)

    @property
    def mask_key(self) -> tuple:
        """What the coverage mask depends on (not the colours): a colour change
        reuses the mask."""
        return (self.spec, self.origin)

    @property
    def margin(self) -> int:
        """Extra px around a raster region that the mask must cover, so shadows offset
        or blurred into the region find the glyphs they come from."""
        reach = [abs(s.offset[0]) + 3.0 * s.sigma for s in self.shadows] + \
                [abs(s.offset[1]) + 3.0 * s.sigma for s in self.shadows]
        return int(math.ceil(max(reach, default=0.0)))


def text_paint(style: ComputedStyle, content: tuple[float, float, float, float], offset: tuple[float, float],
               layer: str | None = None) -> TextPaint | None:
    """The TextPaint of a layer whose content box is ``content`` (x, y, w, h in layer
    px, inside the borders) and whose box sits at ``offset`` in its raster; None when
    it has no text. Fonts are resolved here: FontUnavailableError names the layer.
    The frame's device scale is the one in force (lamina.device_scale.current()); what
    the style's device scale has beyond it is the layer's raster scale (TextSpec.zoom)."""
    if not style.text:
        return None
    check_resolved(style, layer)
    # The style's device scale is the frame's times the layer's raster scale (a layer
    # rastered larger is painted from its style zoomed: lamina.device_scale.zoomed_style).
    device = device_scale.current().s
    spec = TextSpec(
        text=style.text,
        families=style.font_family,
        size=style.font_size,
        weight=style.font_weight,
        style=style.font_style,
        line_height=style.line_height,
        align=style.text_align,
        letter_spacing=style.letter_spacing,
        white_space=style.white_space,
        width=content[2],
        scale=device,
        zoom=style.device_scale / device,
    )
    layout = lay_out(spec, layer)
    shadows = tuple(
        ShadowPaint((s.x, s.y), min(s.blur / 2.0, BLUR_SIGMA_CAP), style.used_color(s.color).premultiplied())
        for s in reversed(style.text_shadow)
    )
    origin = (content[0] + offset[0], content[1] + offset[1])
    return TextPaint(spec, origin, style.color.premultiplied(), shadows, layout)
