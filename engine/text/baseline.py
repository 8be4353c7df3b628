"""Where Blink puts a line's baseline: the font's ascent and descent rounded to whole device
pixels, the line height in Blink's fixed-point LayoutUnit, and the half-leading floored to a
whole pixel above the text (the odd pixel of leading goes below).

Everything here is in *device* pixels at a device scale factor ``scale`` (1 today; Chromium
lays a page out at ``--force-device-scale-factor=2`` as a page zoomed 2x, so fonts are
measured at twice the size and rounded there), and returns CSS px where a layout wants them.
The rule was read in Chromium's source (Blink, 2024-2025) and checked against Chromium 156:
tests/chromium/text_baselines.py measures its baselines, tests/unit/test_text_baseline.py
holds this module to them at scales 1 and 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..style.text import LineHeight

__all__ = ["LAYOUT_UNIT", "FontHeight", "LineMetrics", "font_height", "used_line_height", "half_leading",
           "line_metrics", "subpixel_positioning"]

LAYOUT_UNIT = 64  # Blink's LayoutUnit: a fixed-point number of 1/64 px


def _fixed_round(px: float) -> int:
    """LayoutUnit::FromFloatRound, as raw 1/64 units (round half away from zero)."""
    v = px * LAYOUT_UNIT
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def _fixed_trunc(px: float) -> int:
    """LayoutUnit(float), as raw 1/64 units: the constructor truncates towards zero."""
    return int(px * LAYOUT_UNIT)


def _round_half_away(v: float) -> float:
    """SkScalarRoundToScalar / lroundf: halves round away from zero."""
    return float(math.floor(v + 0.5)) if v >= 0 else -float(math.floor(-v + 0.5))


def subpixel_positioning(scale: float) -> bool:
    """Whether Chromium on Linux has ``use_subpixel_positioning`` in the font render style it
    hands Blink at device scale ``scale``: gfx::GetFontRenderParams
    (ui/gfx/font_render_params_linux.cc) sets it when the device scale factor is above 1
    (and turns hinting off with it), and not at 1. Measured with Chromium 156: the descent
    pixel of :func:`font_height` moves at scale 2 and never at 1. (This flag is what the
    metrics follow; it says nothing about how Lamina positions glyphs horizontally.)"""
    return scale > 1.0


@dataclass(frozen=True)
class FontHeight:
    """A font's vertical metrics as Blink's SimpleFontData keeps them, in device px: ascent
    and descent whole pixels, and the line spacing ``line-height: normal`` uses."""

    ascent: float
    descent: float
    line_gap: float

    @property
    def line_spacing(self) -> float:
        # SimpleFontData::PlatformInit: lroundf(ascent) + lroundf(descent) + lroundf(line_gap)
        return self.ascent + self.descent + _round_half_away(self.line_gap)


def font_height(ascender: float, descender: float, line_gap: float, upem: float, size: float,
                scale: float = 1.0, subpixel: bool | None = None) -> FontHeight:
    """Blink's ascent and descent of a font of ``size`` CSS px at device scale ``scale``.

    ``ascender`` and ``descender`` (positive below the baseline) and ``line_gap`` are in font
    units, from the tables Skia reads (hhea, or OS/2's typo metrics when USE_TYPO_METRICS is
    set: what HarfBuzz's font extents give). Blink's FontMetrics::AscentDescentWithHacks,
    called from SimpleFontData::PlatformInit:

    * ascent and descent are each rounded to a whole (device) pixel, SkScalarRoundToScalar;
    * on Linux, when the font render style has subpixel positioning (``subpixel``; by
      default :func:`subpixel_positioning` of ``scale``: only above scale 1) and the
      descent was rounded *down*, one pixel moves from the ascent to the descent, so
      descenders are not cut off by an ``overflow: hidden`` box — the baseline rises by a
      pixel;
    * VDMX tables are used only with full or normal hinting (Lamina, like Chromium's
      default "slight", hints lightly), and the unrounded metrics of tiny fonts only for
      canvas (``subpixel_ascent_descent``), so neither applies to laid-out text.
    """
    device_size = size * scale
    k = device_size / upem
    exact_descent = descender * k
    ascent = _round_half_away(ascender * k)
    descent = _round_half_away(exact_descent)
    if subpixel is None:
        subpixel = subpixel_positioning(scale)
    if subpixel and descent < exact_descent and ascent >= 1:
        ascent -= 1.0
        descent += 1.0
    return FontHeight(ascent, descent, line_gap * k)


def used_line_height(line_height: LineHeight, size: float, normal_spacing: float, scale: float = 1.0) -> int:
    """The used line height in raw LayoutUnits (1/64 device px), as Blink's
    ComputedLineHeightAsFixed computes it: ``normal`` is the font's line spacing (whole
    pixels already); a length is LayoutUnit::FromFloatRound of it; a number multiplies the
    font size (itself FromFloatRound) and the product is truncated to a LayoutUnit, as
    MinimumValueForLength does for a percentage. (Lamina computes a percentage line
    height to px when the style is computed, so it rounds instead of truncating here: at
    most 1/64 px apart.)"""
    if line_height.kind == "number":
        font_size = _fixed_round(size * scale) / LAYOUT_UNIT
        return _fixed_trunc(line_height.value * font_size)
    if line_height.kind == "px":
        return _fixed_round(line_height.value * scale)
    return _fixed_round(normal_spacing)


def half_leading(line_height_raw: int, ascent: float, descent: float) -> int:
    """The leading above the text, in whole device px: Blink's CalculateLeadingSpace
    (core/layout/inline/line_utils.cc) halves ``line-height - (ascent + descent)`` in
    LayoutUnits (an integer division of the raw value, which truncates towards zero) and
    floors the half to a whole pixel; the rest, the odd pixel included, goes below the
    text. (CSS 2 §10.8.1 splits the leading exactly in half; Blink floors it "to make text
    dump compatible with legacy test results".)"""
    content_raw = int(round((ascent + descent) * LAYOUT_UNIT))
    leading_raw = line_height_raw - content_raw
    half_raw = int(leading_raw / 2)  # C++ integer division: towards zero
    return half_raw // LAYOUT_UNIT  # LayoutUnit::Floor: towards minus infinity


@dataclass(frozen=True)
class LineMetrics:
    """The line boxes of one run of text in one font: every line ``line_height`` tall, its
    baseline ``half_leading + ascent`` below its top. Device px at ``scale``; the
    ``css_*`` accessors and :meth:`baseline` give CSS px."""

    scale: float
    ascent: float
    descent: float
    line_height_raw: int  # LayoutUnits of device px
    half_leading: int

    @property
    def line_height(self) -> float:
        return self.line_height_raw / LAYOUT_UNIT

    def baseline(self, index: int) -> float:
        """The baseline of line ``index`` (from 0), in CSS px below the first line's top:
        line tops are multiples of the LayoutUnit line height, the baseline a whole number
        of device px below its line's top."""
        top_raw = index * self.line_height_raw
        return (top_raw / LAYOUT_UNIT + self.half_leading + self.ascent) / self.scale

    @property
    def css_line_height(self) -> float:
        return self.line_height / self.scale

    @property
    def css_ascent(self) -> float:
        return self.ascent / self.scale

    @property
    def css_descent(self) -> float:
        return self.descent / self.scale


def line_metrics(font, size: float, line_height: LineHeight, scale: float = 1.0) -> LineMetrics:
    """The line metrics of text in ``font`` (a lamina.text.fonts.Font, the primary face of
    the font list, as Blink uses the primary font's metrics) at ``size`` CSS px with
    ``line_height``, at device scale ``scale``."""
    fh = font_height(font.ascender, font.descender, font.line_gap, font.upem, size, scale)
    lh = used_line_height(line_height, size, fh.line_spacing, scale)
    return LineMetrics(scale, fh.ascent, fh.descent, lh, half_leading(lh, fh.ascent, fh.descent))
