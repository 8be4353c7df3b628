"""border-style: dashed | dotted (CSS Backgrounds 3 §4.2): parsing, and where the dashes
and dots go (lamina.compositor.dashes). The expected layouts on square corners are what
headless Chromium 156 drew (measured from its screenshots, see the README's notes on
dashed borders and python -m tests.chromium.compare, cases border-*): counts and gaps, the
3 px thresholds, short sides. Rounded corners are Lamina's own symmetric layout. The
pixels are checked in tests/gl/test_conic_and_dashes.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.compositor.dashes import BorderPattern, border_pattern, quarter_arc_length, select_best_dash_gap
from lamina.errors import InvalidValueError, StyleError, UnsupportedFeatureError
from lamina.style import Style

SQUARE = ((0.0, 0.0),) * 4


def side(style: str, w: float, length: float, side_index: int = 0) -> tuple:
    """(start, period, length, count, dots, caps) of one side of a square-cornered box
    whose side ``side_index`` is ``length`` long."""
    size = (length, 40.0) if side_index % 2 == 0 else (40.0, length)
    p = border_pattern(style, (w,) * 4, SQUARE, *size)
    return (p.start[side_index], p.period[side_index], p.length[side_index], p.count[side_index],
            p.dots[side_index], p.caps[side_index])


# -- parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize("css, style", [
    ("border: 2px dashed red", "dashed"),
    ("border: dotted", "dotted"),
    ("border: blue DOTTED 4px", "dotted"),
    ("border-style: dashed", "dashed"),
    ("border-style: dotted dotted dotted dotted", "dotted"),
])
def test_dashed_and_dotted_parse(css, style):
    assert Style(css).computed().border_style == style


@pytest.mark.parametrize("css, cls, token", [
    ("border-style: dashed solid", UnsupportedFeatureError, "solid"),
    ("border-style: double", UnsupportedFeatureError, "double"),
    ("border: 3px inset red", UnsupportedFeatureError, "inset"),
    ("border: 3px dashed dotted", InvalidValueError, "dotted"),
    ("border-style: dashed wavy", InvalidValueError, "wavy"),
])
def test_bad_border_styles_name_property_and_column(css, cls, token):
    with pytest.raises(StyleError) as info:
        Style(css)
    err = info.value
    assert type(err) is cls and err.property == css.split(":")[0]
    assert err.column == css.index(token) + 1, str(err)


def test_unsupported_style_message_lists_what_is_supported():
    with pytest.raises(UnsupportedFeatureError, match="solid, dashed, dotted, none, hidden"):
        Style("border: 1px groove red")


def test_solid_borders_keep_their_program_and_dashed_ones_get_theirs():
    scene = Scene(100, 100)
    scene.root.add(Layer("a", (0, 0, 40, 40), "border: 2px solid red; background: conic-gradient(red, blue)"))
    scene.root.add(Layer("b", (50, 0, 40, 40), "border: 2px dashed red"))
    scene.root.add(Layer("c", (0, 50, 40, 40), "border: 0 dotted red; background: red"))
    paints = {p.layer_id: p.paint for p in scene.plan().raster_passes()}
    assert paints["a"].shader_variant == "conic" and paints["a"].border_pattern is None
    assert paints["b"].shader_variant == "color.dashes"
    assert isinstance(paints["b"].border_pattern, BorderPattern) and paints["b"].border_pattern.style == "dashed"
    assert paints["c"].shader_variant == "color", "a zero-width dotted border draws nothing"


def test_round_dots_have_a_program_of_their_own():
    scene = Scene(100, 100)
    scene.root.add(Layer("thick", (0, 0, 40, 40), "border: 6px dotted red; background: linear-gradient(red, blue)"))
    scene.root.add(Layer("thin", (50, 0, 40, 40), "border: 2px dotted red"))
    paints = {p.layer_id: p.paint for p in scene.plan().raster_passes()}
    assert paints["thick"].shader_variant == "linear.dots"
    assert paints["thin"].shader_variant == "color.dashes", "thin dots are square dashes"


# -- Blink's gap fitting -----------------------------------------------------------------


@pytest.mark.parametrize("length, dash, gap, expected", [
    (100, 8, 4, (3.5, 9)),      # 4px dashed, 100 px: Chromium draws 9 dashes, gaps 3.5
    (60, 8, 4, (5.0, 5)),       # 4px dashed, 60 px: 5 dashes, gaps 5
    (100, 6, 4, (40 / 9, 10)),  # 2px dashed
    (60, 6, 4, (4.8, 6)),
    (100, 6, 3, (3.4, 11)),     # 3px dashed
    (100, 8, 8, (22 / 3, 7)),   # 8px dots
    (60, 8, 8, (28 / 3, 4)),
    (40, 8, 4, (8 / 3, 4)),
])
def test_select_best_dash_gap_matches_what_chromium_drew(length, dash, gap, expected):
    got_gap, got_n = select_best_dash_gap(length, dash, gap)
    assert (got_gap, got_n) == (pytest.approx(expected[0]), expected[1])
    assert got_n * dash + (got_n - 1) * got_gap == pytest.approx(length), "starts and ends with a dash"


@pytest.mark.parametrize("seed", range(20))
def test_the_chosen_count_has_the_gap_closest_to_the_ideal(seed):
    rng = np.random.default_rng(seed)
    dash, gap = rng.uniform(1, 20), rng.uniform(1, 20)
    length = rng.uniform(2 * dash + gap, 600)
    got_gap, n = select_best_dash_gap(length, dash, gap)
    candidates = {k: (length - k * dash) / (k - 1) for k in range(2, int(length / dash) + 1)}
    best = min((k for k, g in candidates.items() if g > 0), key=lambda k: abs(candidates[k] - gap))
    assert n == best and got_gap == pytest.approx(candidates[best])


def test_closed_paths_have_as_many_gaps_as_dashes():
    g, n = select_best_dash_gap(100, 8, 4, closed=True)
    assert n * (8 + g) == pytest.approx(100)


# -- sides on square corners -------------------------------------------------------------


def test_dashes_are_twice_the_width_from_3px_and_three_times_below():
    assert side("dashed", 4, 100)[:4] == (0.0, 11.5, 8.0, 9)
    assert side("dashed", 3, 100)[:4] == (0.0, pytest.approx(9.4), 6.0, 11)
    assert side("dashed", 2, 100)[:4] == (0.0, pytest.approx(6 + 40 / 9), 6.0, 10)
    assert side("dashed", 1, 100)[2] == 3.0


@pytest.mark.parametrize("w, length, expected", [
    (4, 16, (0, None)),          # two dashes long: solid (Chromium: solid up to 16 px)
    (4, 17, (2, 6.8)),           # room for two dashes, not a gap: both shrink
    (4, 20, (2, 8.0)),           # exactly two dashes and a gap
    (2, 12, (0, None)),
    (2, 13, (2, 6 * 13 / 16)),
])
def test_short_dashed_sides(w, length, expected):
    start, period, dash, n, dots, caps = side("dashed", w, length)
    assert n == expected[0] and not dots and not caps
    if n:
        assert dash == pytest.approx(expected[1])
        assert start + period + dash == pytest.approx(length), "the second dash ends at the corner"


def test_dots_are_centred_half_a_width_in_and_spread_evenly():
    start, period, diameter, n, dots, caps = side("dotted", 8, 100)
    assert dots and not caps and (start, diameter, n) == (4.0, 8.0, 7)
    assert start + (n - 1) * period == pytest.approx(96.0), "the last dot is half a width from the end"
    assert side("dotted", 8, 60)[3] == 4


def test_short_dotted_sides_are_one_round_capped_stroke():
    start, period, diameter, n, dots, _ = side("dotted", 8, 16)
    assert (start, period, n, dots) == (4.0, 8.0, 0, True)
    assert side("dotted", 8, 17)[3] == 2


@pytest.mark.parametrize("w, length, side_index, first", [
    (1, 100, 0, 1.0),  # top: laid out from its right end, a square fills the left one
    (1, 100, 2, 0.0),  # bottom runs right to left here: its far end is where it starts
    (3, 100, 0, 7.0),  # the dot that would start inside the 3 px end square is dropped
    (2, 57, 1, 3.0),
    (2, 57, 3, 0.0),
])
def test_thin_dots_are_squares_one_width_apart(w, length, side_index, first):
    start, period, dash, n, dots, caps = side("dotted", w, length, side_index)
    assert not dots and caps and (dash, period) == (w, 2 * w)
    assert start == pytest.approx(first)
    if side_index < 2:
        assert start + (n - 1) * period + dash == pytest.approx(length)
    else:
        assert start + (n - 1) * period + dash <= length - w


def test_zero_width_sides_draw_nothing_and_widths_are_per_side():
    p = border_pattern("dashed", (2.0, 6.0, 0.0, 8.0), SQUARE, 100.0, 60.0)
    assert p.count[2] == 0 and p.length[2] == 0.0
    assert p.length[:2] == (6.0, 12.0) and p.length[3] == 16.0


def test_only_dashed_and_dotted_have_a_pattern():
    with pytest.raises(ValueError, match="dashed or dotted"):
        border_pattern("solid", (1.0,) * 4, SQUARE, 10.0, 10.0)


# -- rounded corners ---------------------------------------------------------------------


def test_quarter_arc_length():
    assert quarter_arc_length(10.0, 10.0) == pytest.approx(5 * math.pi)
    # an ellipse's quarter, against a fine numerical integration
    t = np.linspace(0.0, math.pi / 2, 200001)
    x, y = 30.0 * np.cos(t), 8.0 * np.sin(t)
    exact = float(np.sum(np.hypot(np.diff(x), np.diff(y))))
    assert quarter_arc_length(30.0, 8.0) == pytest.approx(exact, rel=1e-4)
    assert quarter_arc_length(0.0, 5.0) == 5.0


def test_rounded_corners_centre_a_dash_on_their_midpoint():
    p = border_pattern("dashed", (10.0,) * 4, ((20.0, 20.0),) * 4, 100.0, 60.0)
    half_arc = quarter_arc_length(15.0, 15.0) / 2  # the middle line's radius is 20 - 10 / 2
    assert p.corner_arcs == pytest.approx((half_arc,) * 4)
    total = 2 * half_arc + (100 - 40)
    start, period, dash, n = p.start[0], p.period[0], p.length[0], p.count[0]
    assert start == -dash / 2, "half the corner's dash on each side of its midpoint"
    assert start + (n - 1) * period + dash == pytest.approx(total + dash / 2)


def test_rounded_dotted_corners_share_their_midpoint_dot():
    p = border_pattern("dotted", (6.0,) * 4, ((20.0, 20.0),) * 4, 100.0, 60.0)
    half_arc = quarter_arc_length(17.0, 17.0) / 2
    total = 2 * half_arc + 60
    assert p.start[0] == 0.0
    # n dots laid out from midpoint to midpoint, the last one left to the next side
    n_laid = p.count[0] + 1
    assert p.start[0] + (n_laid - 1) * p.period[0] == pytest.approx(total)


def test_a_radius_under_half_the_width_is_a_square_corner():
    p = border_pattern("dashed", (10.0,) * 4, ((4.0, 4.0),) * 4, 100.0, 60.0)
    assert p.corner_arcs == (0.0, 0.0, 0.0, 0.0)
    assert p.start == (0.0,) * 4


def test_mixed_corners():
    radii = ((20.0, 20.0), (0.0, 0.0), (20.0, 10.0), (0.0, 0.0))
    p = border_pattern("dashed", (4.0,) * 4, radii, 120.0, 80.0)
    assert p.corner_arcs[1] == p.corner_arcs[3] == 0.0
    assert p.corner_arcs[0] > 0 and p.corner_arcs[2] > 0
    assert p.start == (-4.0, 0.0, -4.0, 0.0), "a side starting at a rounded corner starts half a dash early"
