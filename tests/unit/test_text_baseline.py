"""The text baseline as Blink places it (lamina.text.baseline), against Chromium 156's own.

Chromium is not run here: tests/chromium/text_baselines.py measured where it puts the
baselines of three-line texts (DejaVu Sans, DejaVu Serif regular and bold, DejaVu Sans Mono;
sizes 10-33 px whose descents round up and down; line-height normal, numbers, percentages,
whole, odd and fractional px lengths, one smaller than the font; boxes at fractional tops),
at device scale factors 1 and 2, into fixtures/chromium_text_baselines.json. Every one of
those baselines must come out of the rule to the device pixel: at scale 1 through the
layout Lamina draws with, at scale 2 (which Lamina cannot render yet) through the rule's
arithmetic. Also the rule's pieces one by one, with numbers worked by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from lamina.style.text import FontFamily, FontStyle, LineHeight
from lamina.text.baseline import (
    FontHeight, font_height, half_leading, line_metrics, subpixel_positioning, used_line_height,
)
from lamina.text.fonts import resolve_families
from lamina.text.layout import TextSpec, lay_out
from tests.chromium.text_baselines import fixture_cases

FIXTURE = Path(__file__).parent / "fixtures" / "chromium_text_baselines.json"
DATA = json.loads(FIXTURE.read_text())
CASES = fixture_cases(DATA)


def parse_line_height(text: str, size: float) -> LineHeight:
    """A line-height as Lamina's style computes it (a percentage becomes px)."""
    if text == "normal":
        return LineHeight()
    if text.endswith("px"):
        return LineHeight("px", float(text[:-2]))
    if text.endswith("%"):
        return LineHeight("px", float(text[:-1]) / 100.0 * size)
    return LineHeight("number", float(text))


def _spec(case: dict) -> TextSpec:
    families = (FontFamily(case["family"]),)
    return TextSpec(DATA["text"], families, float(case["size"]), float(case["weight"]), FontStyle(),
                    parse_line_height(case["line_height"], case["size"]), "start", 0.0, "pre", 300.0)


def _snap(device_px: float) -> int:
    # What lamina.text.raster does with a baseline: the nearest whole pixel, halves down
    # the page (Skia rounds glyph origins the same way when y is not subpixel).
    return math.floor(device_px + 0.5)


def predicted_baselines(case: dict) -> list[int]:
    """Where Lamina puts the fixture case's three baselines, in device px of the page."""
    spec = _spec(case)
    scale = case["scale"]
    if scale == 1:
        layout = lay_out(spec)
        return [_snap(case["top"] + line.baseline) for line in layout.lines]
    chain = resolve_families(spec.families, spec.weight, spec.style)
    m = line_metrics(chain.primary, spec.size, spec.line_height, scale=scale)
    return [_snap(case["top"] * scale + m.baseline(i) * scale) for i in range(3)]


def test_fixture_covers_what_it_says():
    fonts = {(c["family"], c["weight"]) for c in CASES}
    assert {("DejaVu Sans", 400), ("DejaVu Serif", 700), ("DejaVu Sans Mono", 400)} <= fonts
    assert {c["scale"] for c in CASES} == {1, 2}
    heights = {c["line_height"] for c in CASES}
    assert {"normal", "20px", "34px", "17.5px", "13.3px", "1.3", "0.8", "150%"} <= heights
    assert any(c["top"] % 1 for c in CASES)
    assert len(CASES) > 800


@pytest.mark.parametrize("scale", [1, 2])
def test_every_measured_chromium_baseline_is_the_rules(scale):
    cases = [c for c in CASES if c["scale"] == scale]
    wrong = [(c, predicted_baselines(c)) for c in cases if predicted_baselines(c) != c["baselines"]]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ from {DATA['chromium']}, first: {wrong[:3]}"


def test_the_issue_cases_sit_a_pixel_higher_than_an_exact_half_leading():
    # DejaVu Sans 16px: ascent 14.85 -> 15, descent 3.77 -> 4; a 20px line leaves 1px of
    # leading: Blink floors the half (0.5 -> 0), the odd pixel goes below.
    sans = line_metrics(resolve_families((FontFamily("DejaVu Sans"),), 400.0, FontStyle()).primary,
                        16.0, LineHeight("px", 20.0))
    assert (sans.ascent, sans.descent, sans.half_leading, sans.baseline(0), sans.baseline(1)) == (15, 4, 0, 15, 35)
    # DejaVu Serif Bold 28px: 25.99 -> 26 and 6.60 -> 7 on a 34px line: baseline 26, not 26.5.
    serif = line_metrics(resolve_families((FontFamily("DejaVu Serif"),), 700.0, FontStyle()).primary,
                         28.0, LineHeight("px", 34.0))
    assert (serif.ascent, serif.descent, serif.half_leading, serif.baseline(0)) == (26, 7, 0, 26)


def test_ascent_and_descent_round_to_device_pixels():
    # DejaVu Sans: ascender 1901, descender 483, no line gap, 2048 units per em.
    assert font_height(1901, 483, 0, 2048, 16.0) == FontHeight(15.0, 4.0, 0.0)
    # 13px: 12.07 and 3.07: both round down; at scale 1 nothing more.
    assert font_height(1901, 483, 0, 2048, 13.0) == FontHeight(12.0, 3.0, 0.0)
    # At scale 2 the font is measured at 26px (24.13, 6.13): the descent rounded down and
    # glyphs are positioned at subpixels, so a pixel moves from the ascent to the descent.
    assert font_height(1901, 483, 0, 2048, 13.0, scale=2.0) == FontHeight(23.0, 7.0, 0.0)
    # 16px at scale 2 = 32px (29.70, 7.55): the descent rounded up, nothing moves.
    assert font_height(1901, 483, 0, 2048, 16.0, scale=2.0) == FontHeight(30.0, 8.0, 0.0)
    # Forced either way, independent of the scale.
    assert font_height(1901, 483, 0, 2048, 13.0, subpixel=True) == FontHeight(11.0, 4.0, 0.0)
    assert font_height(1901, 483, 0, 2048, 13.0, scale=2.0, subpixel=False) == FontHeight(24.0, 6.0, 0.0)
    assert not subpixel_positioning(1.0) and subpixel_positioning(2.0) and subpixel_positioning(1.5)
    # Halves round away from zero (SkScalarRoundToScalar): 1024 units of 2048 at 5px = 2.5.
    assert font_height(1024, 1024, 0, 2048, 5.0).ascent == 3.0
    # normal's line spacing adds the rounded line gap.
    assert font_height(1901, 483, 410, 2048, 10.0).line_spacing == 9 + 2 + 2


def test_used_line_height_is_in_layout_units():
    # Lengths round to 1/64 px; numbers truncate the product with the (rounded) font size.
    assert used_line_height(LineHeight("px", 20.0), 16.0, 19.0) == 20 * 64
    assert used_line_height(LineHeight("px", 13.3), 16.0, 19.0) == 851  # 851.2 -> 851
    assert used_line_height(LineHeight("px", 13.3), 16.0, 19.0, scale=2.0) == 1702  # 1702.4
    assert used_line_height(LineHeight("number", 1.3), 16.0, 19.0) == 1331  # 20.8 * 64 = 1331.2
    assert used_line_height(LineHeight("number", 1.3), 17.0, 19.0) == 1414  # 22.1 * 64 = 1414.4
    assert used_line_height(LineHeight("number", 1.3), 16.0, 38.0, scale=2.0) == 2662  # 41.6 * 64 = 2662.4
    assert used_line_height(LineHeight(), 16.0, 19.0) == 19 * 64
    assert used_line_height(LineHeight(), 16.0, 38.0, scale=2.0) == 38 * 64


def test_half_leading_floors_to_a_whole_pixel():
    assert half_leading(20 * 64, 15, 4) == 0  # 0.5 -> 0
    assert half_leading(21 * 64, 15, 4) == 1  # 1.0
    assert half_leading(1331, 15, 4) == 0  # 20.797: 0.898 -> 0
    assert half_leading(40 * 64, 30, 8) == 1  # scale 2, 20px line: 1 device px
    assert half_leading(42 * 64, 30, 8) == 2
    # Negative leading (line-height below the content) floors away from zero: -1.5 -> -2.
    assert half_leading(16 * 64, 15, 4) == -2
    # The raw halving truncates towards zero first: -1/64 px of leading halves to 0, not -1.
    assert half_leading(19 * 64 - 1, 15, 4) == 0


def test_line_tops_accumulate_in_layout_units_and_baselines_stay_whole_below_them():
    font = resolve_families((FontFamily("DejaVu Sans"),), 400.0, FontStyle()).primary
    m = line_metrics(font, 16.0, LineHeight("number", 1.3))
    assert m.line_height == 1331 / 64
    assert [m.baseline(i) for i in range(3)] == [15.0, 15.0 + 1331 / 64, 15.0 + 2662 / 64]
    # At scale 2 the same text: CSS px are device px / 2, tops still LayoutUnits of device px.
    m2 = line_metrics(font, 16.0, LineHeight("number", 1.3), scale=2.0)
    assert (m2.ascent, m2.descent, m2.line_height_raw, m2.half_leading) == (30, 8, 2662, 1)
    assert m2.baseline(1) == (2662 / 64 + 1 + 30) / 2
    assert m2.css_line_height == 2662 / 64 / 2


def test_layout_reports_the_rules_metrics():
    layout = lay_out(_spec({"family": "DejaVu Sans", "weight": 400, "size": 16, "line_height": "20px"}))
    assert (layout.ascent, layout.descent, layout.line_height) == (15.0, 4.0, 20.0)
    assert [line.baseline for line in layout.lines] == [15.0, 35.0, 55.0]


def test_dpr2_layout_puts_each_baseline_on_chromiums_row():
    """The layout at device scale 2 (lamina.device_scale zooms the spec: sizes in device px,
    TextSpec.scale 2) gives, for every k = 2 case of the fixture, Chromium's rows."""
    from dataclasses import replace

    wrong = []
    cases = [c for c in CASES if c["scale"] == 2]
    assert cases
    for case in cases:
        css = _spec(case)
        lh = css.line_height
        spec = replace(css, size=css.size * 2, width=css.width * 2, scale=2.0,
                       line_height=replace(lh, value=lh.value * 2) if lh.kind == "px" else lh)
        ours = [_snap(case["top"] * 2 + line.baseline) for line in lay_out(spec).lines]
        if ours != case["baselines"]:
            wrong.append((case["family"], case["size"], case["line_height"], case["top"], ours, case["baselines"]))
    assert not wrong, f"{len(wrong)} of {len(cases)} off: {wrong[:5]}"
