"""Glyph coverage on the CPU: one glyph lands in the mask as FreeType rendered it, at the
pen position rounded to the subpixel phase and the whole-pixel baseline; overlapping
glyphs combine as source-over (1 - (1-a)(1-b)); blurring keeps the mass. The expected
masks are built here with plain numpy from FreeType's own bitmaps."""

from __future__ import annotations

import math

import freetype
import numpy as np
import pytest

from lamina.style.text import FontFamily, FontStyle, LineHeight
from lamina.text.layout import TextSpec, lay_out
from lamina.text.raster import blurred, coverage

MONO = (FontFamily("DejaVu Sans Mono"),)


def spec(text: str, spacing: float = 0.0, scale: float = 1.0) -> TextSpec:
    return TextSpec(text, MONO, 40.0, 400.0, FontStyle(), LineHeight("px", 50.0), "start", spacing, "pre", 400.0,
                    scale=scale)


def freetype_bitmap(layout, char: str, phase: int, hinting: int = freetype.FT_LOAD_TARGET_LIGHT):
    """FreeType's bitmap of ``char`` at 40 px and pen phase ``phase`` / 4 px, hinted as asked."""
    face = freetype.Face(layout.fonts[0].file.path)
    face.set_char_size(40 * 64)
    face.set_transform(freetype.Matrix(65536, 0, 0, 65536), freetype.Vector(phase * 16, 0))
    face.load_char(char, hinting | freetype.FT_LOAD_NO_BITMAP)
    face.glyph.render(freetype.FT_RENDER_MODE_NORMAL)
    bm = face.glyph.bitmap
    rows = np.array(bm.buffer, np.uint8).reshape(bm.rows, bm.pitch)[:, : bm.width]
    return rows, face.glyph.bitmap_left, face.glyph.bitmap_top


@pytest.mark.parametrize("origin_x", [3.0, 3.25, 3.6])
def test_one_glyph_is_freetypes_bitmap_at_its_pen(origin_x):
    layout = lay_out(spec("g"))
    mask = coverage(layout, (origin_x, 2.0), (60, 60))
    whole = math.floor(origin_x)
    phase = round((origin_x - whole) * 4)
    rows, left, top = freetype_bitmap(layout, "g", phase)
    baseline = math.floor(layout.lines[0].baseline + 2.0 + 0.5)
    expected = np.zeros_like(mask)
    y0, x0 = baseline - top, whole + left
    expected[y0 : y0 + rows.shape[0], x0 : x0 + rows.shape[1]] = rows
    np.testing.assert_array_equal(mask, expected)


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_glyphs_are_unhinted_above_device_scale_1(scale):
    """Chromium on Linux hints glyphs lightly at device scale 1 and not at all above it
    (subpixel positioning on, hinting off): a 40 px font at scale 2 (a 20 px font at
    DPR 2) is FreeType's unhinted bitmap; at 1 its light-hinted one. The two differ, so the
    test tells them apart."""
    layout = lay_out(spec("a", scale=scale))
    mask = coverage(layout, (3.0, 2.0), (60, 60))
    baseline = math.floor(layout.lines[0].baseline + 2.0 + 0.5)
    light, unhinted = (freetype_bitmap(layout, "a", 0, flags) for flags in
                       (freetype.FT_LOAD_TARGET_LIGHT, freetype.FT_LOAD_NO_HINTING))
    masks = []
    for rows, left, top in (light, unhinted):
        expected = np.zeros_like(mask)
        expected[baseline - top: baseline - top + rows.shape[0], 3 + left: 3 + left + rows.shape[1]] = rows
        masks.append(expected)
    assert not np.array_equal(masks[0], masks[1])
    np.testing.assert_array_equal(mask, masks[1] if scale > 1 else masks[0])


def test_overlapping_glyphs_combine_source_over():
    single = lay_out(spec("o"))
    advance = single.lines[0].width
    stacked = lay_out(spec("oo", spacing=-advance))  # the second o lands on the first
    assert stacked.lines[0].x[1] == pytest.approx(stacked.lines[0].x[0])
    a = coverage(single, (4.0, 0.0), (60, 60)).astype(np.float64) / 255.0
    both = coverage(stacked, (4.0, 0.0), (60, 60)).astype(np.int64)
    expected = np.rint((1.0 - (1.0 - a) ** 2) * 255.0).astype(np.int64)
    assert np.abs(both - expected).max() <= 1
    assert (both >= (a * 255).astype(np.int64)).all()


def test_glyphs_outside_the_mask_are_cut_off():
    layout = lay_out(spec("MMMM"))
    full = coverage(layout, (0.0, 0.0), (60, 200))
    part = coverage(layout, (-30.0, 0.0), (60, 40))  # the mask sees columns 30..70
    np.testing.assert_array_equal(part, full[:, 30:70])


def test_blur_keeps_the_mass_and_sigma_zero_is_identity():
    mask = coverage(lay_out(spec("W")), (20.0, 10.0), (80, 80))
    assert blurred(mask, 0.0) is mask
    soft = blurred(mask, 3.0)
    assert soft.sum() == pytest.approx(mask.sum(), rel=0.02)
    assert soft.max() < mask.max()


@pytest.mark.parametrize("dpr, raster_scale, hinted", [(1.0, 1.0, True), (2.0, 1.0, False), (1.0, 4.0, True),
                                                       (2.0, 2.0, False)])
def test_hinting_follows_the_device_scale_not_the_raster_scale(dpr, raster_scale, hinted):
    """The text paint of a layer hints its glyphs exactly when the frame's device scale is 1
    (Chromium's font render params depend on the device scale factor alone): a layer
    rastered at 4 for its transform (its style zoomed, lamina.compositor.raster_scale) at
    DPR 1 stays hinted; at DPR 2 nothing is."""
    from lamina import Layer
    from lamina.device_scale import DeviceScale, in_force, zoomed_style
    from lamina.text.paint import text_paint
    style = Layer("t", (0, 0, 100, 40), "font-size: 16px; font-family: 'DejaVu Sans'", text="Hi").computed_style()
    with in_force(DeviceScale(dpr)):
        device = DeviceScale(dpr).style(style) if dpr != 1 else style
        paint = text_paint(zoomed_style(device, raster_scale), (0, 0, 100 * dpr * raster_scale, 40), (0, 0))
    assert (paint.spec.scale, paint.spec.zoom) == (dpr, raster_scale)  # laid out at the DPR, then zoomed
    assert paint.spec.hinted is hinted
