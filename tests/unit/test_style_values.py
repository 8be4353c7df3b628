"""Parsing CSS values through ``Style(...).computed()``: colours, backgrounds, borders,
radii, compositing properties and the cascade (CSS-wide keywords, !important, order).

Expected colours for the Lab/OKLab families are computed here, independently of the
engine, with the CSS Color 4 / Ottosson formulas (different matrices from the engine's
XYZ route, so a wrong engine matrix cannot cancel out)."""

from __future__ import annotations

import math

import pytest

from lamina.style import Style
from lamina.style.properties import ComputedStyle
from lamina.style.transforms import has_3d_hint
from lamina.css.values import (
    RGBA,
    TRANSPARENT,
    BackgroundSize,
    ColorStop,
    CornerRadius,
    ImageRef,
    LengthPercentage,
    LinearGradient,
    Radii,
    RadialGradient,
    TransformFunction,
)

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)
RED = RGBA(1.0, 0.0, 0.0, 1.0)
BLUE = RGBA(0.0, 0.0, 1.0, 1.0)


def px(v: float) -> LengthPercentage:
    return LengthPercentage(px=float(v))


def pct(v: float) -> LengthPercentage:
    return LengthPercentage(percent=float(v))


def computed(css, parent=None) -> ComputedStyle:
    return Style(css).computed(parent)


def rgba_tuple(c: RGBA) -> tuple[float, float, float, float]:
    return (c.r, c.g, c.b, c.a)


def assert_rgba(actual, expected, tol=1e-6):
    assert isinstance(actual, RGBA), actual
    got = rgba_tuple(actual)
    assert all(abs(g - e) <= tol for g, e in zip(got, expected)), (got, expected)


# --------------------------------------------------------------------------------------
# Independent reference conversions (CSS Color 4 §9-§10, Ottosson's OKLab)
# --------------------------------------------------------------------------------------


def _gamma(c: float) -> float:
    c = min(max(c, 0.0), 1.0)  # clip before encoding: same as clipping after (monotone)
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def ref_oklab(L: float, a: float, b: float) -> tuple[float, float, float]:
    """OKLab -> sRGB via Ottosson's direct LMS -> linear sRGB matrix."""
    l_ = L + 0.3963377774 * a + 0.2158037573 * b
    m_ = L - 0.1055613458 * a - 0.0638541728 * b
    s_ = L - 0.0894841775 * a - 1.2914855480 * b
    l, m, s = l_**3, m_**3, s_**3
    r = 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s
    g = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s
    bb = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s
    return (_gamma(r), _gamma(g), _gamma(bb))


def ref_oklch(L: float, C: float, h_deg: float):
    h = math.radians(h_deg)
    return ref_oklab(L, C * math.cos(h), C * math.sin(h))


def ref_lab(L: float, a: float, b: float) -> tuple[float, float, float]:
    """CIE Lab (D50) -> sRGB via Lindbloom's Bradford-adapted XYZ(D50) -> sRGB matrix."""
    kappa, eps = 24389 / 27, 216 / 24389
    f1 = (L + 16) / 116
    f0 = a / 500 + f1
    f2 = f1 - b / 200
    x = f0**3 if f0**3 > eps else (116 * f0 - 16) / kappa
    y = f1**3 if L > kappa * eps else L / kappa
    z = f2**3 if f2**3 > eps else (116 * f2 - 16) / kappa
    wx, wz = 0.3457 / 0.3585, (1 - 0.3457 - 0.3585) / 0.3585
    X, Y, Z = x * wx, y, z * wz
    r = 3.1338561 * X - 1.6168667 * Y - 0.4906146 * Z
    g = -0.9787684 * X + 1.9161415 * Y + 0.0334540 * Z
    bb = 0.0719453 * X - 0.2289914 * Y + 1.4052427 * Z
    return (_gamma(r), _gamma(g), _gamma(bb))


def ref_lch(L: float, C: float, h_deg: float):
    h = math.radians(h_deg)
    return ref_lab(L, C * math.cos(h), C * math.sin(h))


def test_reference_formulas_are_sane():
    # The reference itself must reproduce well-known anchor values.
    assert all(abs(g - e) < 0.01 for g, e in zip(ref_oklch(0.628, 0.2577, 29.23), (1, 0, 0)))
    assert all(abs(g - e) < 0.01 for g, e in zip(ref_lab(54.29, 80.82, 69.88), (1, 0, 0)))
    assert all(abs(g - 1.0) < 1e-3 for g in ref_lab(100, 0, 0))
    assert all(abs(g - 1.0) < 1e-3 for g in ref_oklab(1, 0, 0))


# --------------------------------------------------------------------------------------
# Colours
# --------------------------------------------------------------------------------------

SRGB_COLORS = [
    ("red", (1, 0, 0, 1)),
    ("Blue", (0, 0, 1, 1)),
    ("rebeccapurple", (0x66 / 255, 0x33 / 255, 0x99 / 255, 1)),
    ("orange", (1, 165 / 255, 0, 1)),
    ("#0f8", (0, 1, 0x88 / 255, 1)),
    ("#f008", (1, 0, 0, 0x88 / 255)),
    ("#336699", (0x33 / 255, 0x66 / 255, 0x99 / 255, 1)),
    ("#33669980", (0x33 / 255, 0x66 / 255, 0x99 / 255, 0x80 / 255)),
    ("#ABCDEF", (0xAB / 255, 0xCD / 255, 0xEF / 255, 1)),
    ("rgb(255, 128, 0)", (1, 128 / 255, 0, 1)),
    ("rgba(0, 0, 255, 0.25)", (0, 0, 1, 0.25)),
    ("rgb(255 128 0)", (1, 128 / 255, 0, 1)),
    ("rgb(255 128 0 / 50%)", (1, 128 / 255, 0, 0.5)),
    ("rgb(100% 0% 50% / 0.2)", (1, 0, 0.5, 0.2)),
    ("rgba(10 20 30 / 0.75)", (10 / 255, 20 / 255, 30 / 255, 0.75)),
    ("rgb(300 -20 0)", (1, 0, 0, 1)),  # out-of-range channels clamp
    ("hsl(120, 100%, 50%)", (0, 1, 0, 1)),
    ("hsl(120deg 100% 25% / 0.5)", (0, 0.5, 0, 0.5)),
    ("hsl(240 100% 50%)", (0, 0, 1, 1)),
    ("hsla(0, 0%, 100%, 0.4)", (1, 1, 1, 0.4)),
    ("hsl(0.5turn 100% 50%)", (0, 1, 1, 1)),
    ("hwb(0 0% 0%)", (1, 0, 0, 1)),
    ("hwb(0 50% 50%)", (0.5, 0.5, 0.5, 1)),
    ("hwb(240 20% 0% / 0.5)", (0.2, 0.2, 1, 0.5)),
    ("hwb(90 70% 70%)", (0.5, 0.5, 0.5, 1)),  # w + b > 1 normalises to grey
    ("transparent", (0, 0, 0, 0)),
]


@pytest.mark.parametrize("css, expected", SRGB_COLORS)
def test_srgb_family_colours(css, expected):
    assert_rgba(computed(f"color: {css}").color, expected, tol=1e-6)


@pytest.mark.parametrize("css, expected", SRGB_COLORS)
def test_background_color_accepts_the_same_colours(css, expected):
    assert_rgba(computed({"background-color": css}).used_background_color, expected, tol=1e-6)


def test_oklch_known_red():
    # oklch(62.8% 0.2577 29.23) is the OKLCh of sRGB red.
    got = computed("color: oklch(62.8% 0.2577 29.23)").color
    assert_rgba(got, (1.0, 0.0, 0.0, 1.0), tol=0.01)


WIDE_COLORS = [
    ("oklch(62.8% 0.2577 29.23)", lambda: ref_oklch(0.628, 0.2577, 29.23)),
    ("oklch(0.7 0.1 200)", lambda: ref_oklch(0.7, 0.1, 200)),
    ("oklch(50% 0.05 300deg)", lambda: ref_oklch(0.5, 0.05, 300)),
    ("oklab(0.6 0.05 -0.08)", lambda: ref_oklab(0.6, 0.05, -0.08)),
    ("oklab(80% 0 0)", lambda: ref_oklab(0.8, 0, 0)),
    ("lab(50% 20 30)", lambda: ref_lab(50, 20, 30)),
    ("lab(54.29 80.82 69.88)", lambda: ref_lab(54.29, 80.82, 69.88)),
    ("lab(30 -10 -20)", lambda: ref_lab(30, -10, -20)),
    ("lch(60 30 120)", lambda: ref_lch(60, 30, 120)),
    ("lch(40% 20 270deg)", lambda: ref_lch(40, 20, 270)),
    ("oklch(70% 0.4 150)", lambda: ref_oklch(0.7, 0.4, 150)),  # out of gamut: clipped
]


@pytest.mark.parametrize("css, reference", WIDE_COLORS)
def test_lab_family_converts_to_srgb(css, reference):
    got = computed(f"color: {css}").color
    expected = reference()
    assert got.a == 1.0
    for channel, want in zip((got.r, got.g, got.b), expected):
        assert 0.0 <= channel <= 1.0
        assert abs(channel - want) < 2e-3, (rgba_tuple(got), expected)


def test_lab_family_alpha():
    got = computed("color: oklch(0.7 0.1 200 / 40%)").color
    assert abs(got.a - 0.4) < 1e-9
    got = computed("color: lab(50 20 30 / 0.25)").color
    assert abs(got.a - 0.25) < 1e-9


def test_initial_colours():
    c = computed("")
    assert c.color == BLACK
    assert c.used_background_color == TRANSPARENT
    assert c.used_border_color == BLACK  # currentcolor follows the initial color


# -- currentcolor ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "css",
    [
        "color: red; background-color: currentcolor",
        "background-color: currentcolor; color: red",  # order does not matter
        "background-color: CurrentColor; color: #f00",
        "color: red; background: currentcolor",
    ],
)
def test_currentcolor_follows_color(css):
    assert computed(css).used_background_color == RED


def test_border_colour_defaults_to_currentcolor():
    c = computed("color: blue; border: 1px solid")
    assert c.used_border_color == BLUE
    c = computed("border-color: currentcolor; color: blue")
    assert c.used_border_color == BLUE


def test_currentcolor_follows_inherited_color():
    parent = computed("color: rgb(0 128 0)")
    child = computed("background-color: currentcolor; border-style: solid", parent)
    assert child.color == parent.color
    assert_rgba(child.used_background_color, (0, 128 / 255, 0, 1))
    assert_rgba(child.used_border_color, (0, 128 / 255, 0, 1))


def test_color_currentcolor_means_inherit():
    parent = computed("color: red")
    assert computed("color: currentcolor", parent).color == RED
    assert computed("color: currentcolor").color == BLACK  # no parent: initial


def test_currentcolor_follows_explicit_color_inherit():
    parent = computed("color: red")
    child = computed("color: inherit; background-color: currentcolor", parent)
    assert child.used_background_color == RED


def test_inherited_currentcolor_follows_child_color():
    # CSS Color 4 §6.4: currentcolor computes to itself and inherits as the keyword, so
    # an inherited border-color of currentcolor uses the *child's* color.
    parent = computed("color: red; border-color: currentcolor")
    child = computed("color: blue; border-color: inherit", parent)
    assert child.used_border_color == BLUE


def test_colour_only_inherited_property_is_color():
    parent = computed("color: red; background-color: blue; opacity: 0.5")
    child = computed("", parent)
    assert child.color == RED
    assert child.used_background_color == TRANSPARENT
    assert child.opacity == 1.0


# --------------------------------------------------------------------------------------
# Backgrounds
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "css, url",
    [
        ("url(a.png)", "a.png"),
        ("url( images/b.png )", "images/b.png"),
        ('url("c d.png")', "c d.png"),
        ("url('e.jpg')", "e.jpg"),
        ("URL(f.webp)", "f.webp"),
    ],
)
def test_background_image_url(css, url):
    img = computed(f"background-image: {css}").background_image
    assert isinstance(img, ImageRef)
    assert img.url == url


def test_background_image_none():
    assert computed("background-image: url(a.png); background-image: none").background_image is None
    assert computed("").background_image is None


LINEAR_CASES = [
    ("linear-gradient(red, blue)", 180.0, None, False),
    ("linear-gradient(45deg, red, blue)", 45.0, None, False),
    ("linear-gradient(0.25turn, red, blue)", 90.0, None, False),
    ("linear-gradient(100grad, red, blue)", 90.0, None, False),
    ("linear-gradient(0, red, blue)", 0.0, None, False),
    ("linear-gradient(to right, red, blue)", 90.0, None, False),
    ("linear-gradient(to left, red, blue)", 270.0, None, False),
    ("linear-gradient(to top, red, blue)", 0.0, None, False),
    ("linear-gradient(to top right, red, blue)", None, ("top", "right"), False),
    ("linear-gradient(to left bottom, red, blue)", None, ("bottom", "left"), False),
    ("repeating-linear-gradient(-30deg, red, blue 10px)", -30.0, None, True),
]


@pytest.mark.parametrize("css, angle, corner, repeating", LINEAR_CASES)
def test_linear_gradient_prelude(css, angle, corner, repeating):
    g = computed(f"background-image: {css}").background_image
    assert isinstance(g, LinearGradient)
    if angle is None:
        assert g.angle is None
    else:
        assert g.angle == pytest.approx(angle, abs=1e-9)
    assert g.to_corner == corner
    assert g.repeating is repeating
    assert g.stops[0].color == RED and g.stops[-1].color == BLUE


def test_linear_gradient_stops_and_hints():
    g = computed("background-image: linear-gradient(red 10%, 30%, #00f 20px 40px, lime)").background_image
    assert g.stops == (
        ColorStop(RED, pct(10), pct(30)),
        ColorStop(BLUE, px(20)),
        ColorStop(BLUE, px(40)),
        ColorStop(RGBA(0, 1, 0, 1)),
    )


RADIAL_CASES = [
    ("radial-gradient(red, blue)", "ellipse", "farthest-corner", (pct(50), pct(50)), False),
    ("radial-gradient(circle, red, blue)", "circle", "farthest-corner", (pct(50), pct(50)), False),
    ("radial-gradient(closest-side, red, blue)", "ellipse", "closest-side", (pct(50), pct(50)), False),
    ("radial-gradient(farthest-side circle at top left, red, blue)", "circle", "farthest-side", (pct(0), pct(0)), False),
    ("radial-gradient(ellipse closest-corner at 10px 20%, red, blue)", "ellipse", "closest-corner", (px(10), pct(20)), False),
    ("radial-gradient(25px, red, blue)", "circle", (px(25),), (pct(50), pct(50)), False),
    ("radial-gradient(10% 20px at right, red, blue)", "ellipse", (pct(10), px(20)), (pct(100), pct(50)), False),
    ("radial-gradient(at bottom, red, blue)", "ellipse", "farthest-corner", (pct(50), pct(100)), False),
    ("repeating-radial-gradient(circle 5px, red, blue 10%)", "circle", (px(5),), (pct(50), pct(50)), True),
]


@pytest.mark.parametrize("css, shape, size, center, repeating", RADIAL_CASES)
def test_radial_gradient_prelude(css, shape, size, center, repeating):
    g = computed(f"background-image: {css}").background_image
    assert isinstance(g, RadialGradient)
    assert (g.shape, g.size, g.center, g.repeating) == (shape, size, center, repeating)
    assert g.stops[0].color == RED and g.stops[-1].color == BLUE


@pytest.mark.parametrize(
    "css, expected",
    [
        ("repeat", (True, True)),
        ("no-repeat", (False, False)),
        ("repeat-x", (True, False)),
        ("repeat-y", (False, True)),
        ("repeat no-repeat", (True, False)),
        ("no-repeat repeat", (False, True)),
        ("REPEAT-X", (True, False)),
    ],
)
def test_background_repeat(css, expected):
    assert computed(f"background-repeat: {css}").background_repeat == expected


@pytest.mark.parametrize(
    "css, expected",
    [
        ("auto", BackgroundSize()),
        ("auto auto", BackgroundSize()),
        ("cover", BackgroundSize(keyword="cover")),
        ("contain", BackgroundSize(keyword="contain")),
        ("50%", BackgroundSize(keyword=None, width=pct(50), height=None)),
        ("10px 20%", BackgroundSize(keyword=None, width=px(10), height=pct(20))),
        ("auto 30px", BackgroundSize(keyword=None, width=None, height=px(30))),
        ("0 0", BackgroundSize(keyword=None, width=px(0), height=px(0))),
    ],
)
def test_background_size(css, expected):
    assert computed(f"background-size: {css}").background_size == expected


POSITIONS = [
    ("center", (pct(50), pct(50))),
    ("left", (pct(0), pct(50))),
    ("top", (pct(50), pct(0))),
    ("bottom", (pct(50), pct(100))),
    ("right bottom", (pct(100), pct(100))),
    ("bottom right", (pct(100), pct(100))),
    ("top left", (pct(0), pct(0))),
    ("center top", (pct(50), pct(0))),
    ("top center", (pct(50), pct(0))),
    ("left center", (pct(0), pct(50))),
    ("center left", (pct(0), pct(50))),
    ("10px 20%", (px(10), pct(20))),
    ("10px", (px(10), pct(50))),
    ("right 10px", (pct(100), px(10))),
    ("25% bottom", (pct(25), pct(100))),
    ("center 5px", (pct(50), px(5))),
    ("0 0", (px(0), px(0))),
]


@pytest.mark.parametrize("css, expected", POSITIONS)
def test_background_position(css, expected):
    assert computed(f"background-position: {css}").background_position == expected


def test_background_position_initial_is_top_left():
    assert computed("").background_position == (px(0), px(0))


# -- background shorthand --------------------------------------------------------------


def _bg(c: ComputedStyle):
    return (c.used_background_color, c.background_image, c.background_repeat, c.background_position, c.background_size)


BG_EXPECTED = (
    RED,
    ImageRef(url="a.png"),
    (False, False),
    (pct(50), pct(100)),
    BackgroundSize(keyword="cover"),
)


@pytest.mark.parametrize(
    "css",
    [
        "background: url(a.png) no-repeat center bottom / cover red",
        "background: red url(a.png) no-repeat bottom / cover",
        "background: no-repeat bottom center/cover url('a.png') red",
        "background: bottom / cover red no-repeat url(\"a.png\")",
        "background: #ff0000 center bottom /cover url(a.png) no-repeat",
    ],
)
def test_background_shorthand_any_order(css):
    assert _bg(computed(css)) == BG_EXPECTED


def test_background_shorthand_size_two_values():
    c = computed("background: 10px 20% / 50% auto repeat-y linear-gradient(red, blue)")
    assert c.background_position == (px(10), pct(20))
    assert c.background_size == BackgroundSize(keyword=None, width=pct(50), height=None)
    assert c.background_repeat == (False, True)
    assert isinstance(c.background_image, LinearGradient)
    assert c.used_background_color == TRANSPARENT


def test_background_shorthand_resets_omitted_longhands():
    c = computed("background-size: cover; background-repeat: no-repeat; background-color: blue; background: url(x.png)")
    assert c.background_image == ImageRef(url="x.png")
    assert c.background_size == BackgroundSize()
    assert c.background_repeat == (True, True)
    assert c.used_background_color == TRANSPARENT
    assert c.background_position == (px(0), px(0))


def test_background_longhand_after_shorthand_wins():
    c = computed("background: red url(x.png); background-color: blue")
    assert c.used_background_color == BLUE
    assert c.background_image == ImageRef(url="x.png")


def test_background_none_and_colour_only():
    assert _bg(computed("background: red url(x.png); background: none")) == _bg(ComputedStyle())
    assert computed("background: rgb(0 0 255)").used_background_color == BLUE


# --------------------------------------------------------------------------------------
# Borders
# --------------------------------------------------------------------------------------


def _widths(c: ComputedStyle):
    return (c.border_top_width, c.border_right_width, c.border_bottom_width, c.border_left_width)


@pytest.mark.parametrize(
    "css, widths, style, color",
    [
        ("border: 2px solid red", (2, 2, 2, 2), "solid", RED),
        ("border: solid", (3, 3, 3, 3), "solid", BLACK),
        ("border: red thick solid", (5, 5, 5, 5), "solid", RED),
        ("border: thin solid blue", (1, 1, 1, 1), "solid", BLUE),
        ("border: medium hidden", (3, 3, 3, 3), "hidden", BLACK),
        ("border: 0 none", (0, 0, 0, 0), "none", BLACK),
        ("border: 1.5px SOLID", (1.5, 1.5, 1.5, 1.5), "solid", BLACK),
    ],
)
def test_border_shorthand(css, widths, style, color):
    c = computed(css)
    assert _widths(c) == widths
    assert c.border_style == style
    assert c.used_border_color == color


@pytest.mark.parametrize(
    "css, widths",
    [
        ("border-width: 4px", (4, 4, 4, 4)),
        ("border-width: 1px 2px", (1, 2, 1, 2)),
        ("border-width: 1px 2px 3px", (1, 2, 3, 2)),
        ("border-width: 1px 2px 3px 4px", (1, 2, 3, 4)),
        ("border-width: thin medium thick", (1, 3, 5, 3)),
        ("border-top-width: thick", (5, 3, 3, 3)),
        ("border-right-width: 7px", (3, 7, 3, 3)),
        ("border-bottom-width: thin", (3, 3, 1, 3)),
        ("border-left-width: 0", (3, 3, 3, 0)),
        ("border: 2px solid; border-left-width: 9px", (2, 2, 2, 9)),
        ("border-left-width: 9px; border: 2px solid", (2, 2, 2, 2)),
    ],
)
def test_border_width_longhands(css, widths):
    assert _widths(computed(css)) == widths


def test_border_style_and_colour_longhands():
    c = computed("border-style: solid; border-color: rgb(0 0 255)")
    assert c.border_style == "solid" and c.used_border_color == BLUE
    c = computed("border-style: hidden hidden")
    assert c.border_style == "hidden"
    c = computed("border-color: red red red red")
    assert c.used_border_color == RED


def test_initial_border():
    c = computed("")
    assert _widths(c) == (3, 3, 3, 3)
    assert c.border_style == "none"


# -- border-radius ---------------------------------------------------------------------


def _radii(c: ComputedStyle):
    return (c.radius_top_left, c.radius_top_right, c.radius_bottom_right, c.radius_bottom_left)


def _cr(x, y=None):
    return CornerRadius(x, x if y is None else y)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("10px", (_cr(px(10)),) * 4),
        ("10px 20%", (_cr(px(10)), _cr(pct(20)), _cr(px(10)), _cr(pct(20)))),
        ("1px 2px 3px", (_cr(px(1)), _cr(px(2)), _cr(px(3)), _cr(px(2)))),
        ("1px 2px 3px 4px", (_cr(px(1)), _cr(px(2)), _cr(px(3)), _cr(px(4)))),
        ("10px / 20px", (_cr(px(10), px(20)),) * 4),
        (
            "1px 2px 3px 4px / 5px 6px",
            (_cr(px(1), px(5)), _cr(px(2), px(6)), _cr(px(3), px(5)), _cr(px(4), px(6))),
        ),
        (
            "10px 20px 30px / 5px",
            (_cr(px(10), px(5)), _cr(px(20), px(5)), _cr(px(30), px(5)), _cr(px(20), px(5))),
        ),
        (
            "50% / 1px 2px 3px",
            (_cr(pct(50), px(1)), _cr(pct(50), px(2)), _cr(pct(50), px(3)), _cr(pct(50), px(2))),
        ),
        ("0", (_cr(px(0)),) * 4),
    ],
)
def test_border_radius_shorthand(value, expected):
    assert _radii(computed(f"border-radius: {value}")) == expected


@pytest.mark.parametrize(
    "css, index, expected",
    [
        ("border-top-left-radius: 10px", 0, _cr(px(10))),
        ("border-top-right-radius: 10px 20%", 1, _cr(px(10), pct(20))),
        ("border-bottom-right-radius: 5% 0", 2, _cr(pct(5), px(0))),
        ("border-bottom-left-radius: 0 7px", 3, _cr(px(0), px(7))),
    ],
)
def test_border_corner_longhands(css, index, expected):
    radii = _radii(computed(css))
    assert radii[index] == expected
    assert all(r == CornerRadius() for i, r in enumerate(radii) if i != index)


def test_corner_longhand_after_shorthand():
    radii = _radii(computed("border-radius: 4px; border-bottom-left-radius: 9px"))
    assert radii == (_cr(px(4)), _cr(px(4)), _cr(px(4)), _cr(px(9)))


def _resolved(css, w, h):
    c = computed(css)
    return Radii(*_radii(c)).resolve(w, h)


def _approx_radii(got, expected):
    assert len(got) == 4
    for (gx, gy), (ex, ey) in zip(got, expected):
        assert gx == pytest.approx(ex, abs=1e-9) and gy == pytest.approx(ey, abs=1e-9), (got, expected)


@pytest.mark.parametrize(
    "css, w, h, expected",
    [
        # No overlap: unchanged.
        ("border-radius: 10px", 100, 50, ((10, 10),) * 4),
        # Percentages resolve x against width, y against height; 50% + 50% fits exactly.
        ("border-radius: 50%", 200, 100, ((100, 50),) * 4),
        ("border-radius: 10% / 20%", 200, 100, ((20, 20),) * 4),
        # Top side: 60 + 60 = 120 > 100 -> f = 100/120 for every corner.
        ("border-radius: 60px", 100, 300, ((50, 50),) * 4),
        # Height-bound: left side 80 + 30 = 110 > 100 -> f = 10/11 everywhere.
        (
            "border-radius: 50px / 80px 60px 40px 30px",
            300, 100,
            tuple((50 * 10 / 11, y * 10 / 11) for y in (80, 60, 40, 30)),
        ),
        # Bottom side decides: bl 150 + br 250 = 400 on a 200 wide box -> f = 0.5.
        (
            "border-radius: 10px 20px 250px 150px",
            200, 1000,
            ((5, 5), (10, 10), (125, 125), (75, 75)),
        ),
        # Right side decides: tr.y 300 + br.y 100 = 400 on a 100 tall box -> f = 0.25.
        (
            "border-radius: 10px / 10px 300px 100px 10px",
            1000, 100,
            ((2.5, 2.5), (2.5, 75), (2.5, 25), (2.5, 2.5)),
        ),
        # Only one corner rounded but too big for the box.
        ("border-top-left-radius: 300px 50px", 100, 100, ((100, 100 / 6), (0, 0), (0, 0), (0, 0))),
    ],
)
def test_radii_resolve_overlap_scaling(css, w, h, expected):
    _approx_radii(_resolved(css, w, h), expected)


def test_radii_resolve_zero_box():
    got = _resolved("border-radius: 10px", 0, 0)
    _approx_radii(got, ((0, 0),) * 4)


# --------------------------------------------------------------------------------------
# Compositing properties
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        ("0.25", 0.25),
        ("50%", 0.5),
        ("150%", 1.0),
        ("1.5", 1.0),
        ("-1", 0.0),
        ("-20%", 0.0),
        ("0", 0.0),
        ("1", 1.0),
    ],
)
def test_opacity_clamps(value, expected):
    assert computed(f"opacity: {value}").opacity == expected


def test_opacity_from_python_number():
    assert computed({"opacity": 0.5}).opacity == 0.5
    assert computed({"opacity": 2}).opacity == 1.0


def _tf(name, *args):
    return TransformFunction(name, tuple(args))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("none", ()),
        ("translate(10px)", (_tf("translate", px(10), px(0)),)),
        ("translate(10px, 20%)", (_tf("translate", px(10), pct(20)),)),
        ("translateX(5%)", (_tf("translate", pct(5), px(0)),)),
        ("translateY(-3px)", (_tf("translate", px(0), px(-3)),)),
        ("scale(2)", (_tf("scale", 2.0, 2.0),)),
        ("scale(2, 50%)", (_tf("scale", 2.0, 0.5),)),
        ("scaleX(3)", (_tf("scale", 3.0, 1.0),)),
        ("scaleY(150%)", (_tf("scale", 1.0, 1.5),)),
        ("rotate(45deg)", (_tf("rotate", 45.0),)),
        ("rotate(0.5turn)", (_tf("rotate", 180.0),)),
        ("rotate(-100grad)", (_tf("rotate", -90.0),)),
        ("rotateZ(10deg)", (_tf("rotate", 10.0),)),
        ("rotate(0)", (_tf("rotate", 0.0),)),
        ("skew(10deg)", (_tf("skew", 10.0, 0.0),)),
        ("skew(10deg, 20deg)", (_tf("skew", 10.0, 20.0),)),
        ("skewX(5deg)", (_tf("skew", 5.0, 0.0),)),
        ("skewY(5deg)", (_tf("skew", 0.0, 5.0),)),
        ("matrix(1, 2, 3, 4, 5, 6)", (_tf("matrix", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0),)),
        (
            "translate(1px, 2px) rotate(90deg) scale(2)",
            (_tf("translate", px(1), px(2)), _tf("rotate", 90.0), _tf("scale", 2.0, 2.0)),
        ),
        ("translate3d(1px, 2%, 5px)", (_tf("translate3d", px(1), pct(2), 5.0),)),
        ("translateZ(0)", (_tf("translate3d", px(0), px(0), 0.0),)),
    ],
)
def test_transform_lists(value, expected):
    got = computed(f"transform: {value}").transform
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.name == e.name
        for ga, ea in zip(g.args, e.args, strict=True):
            if isinstance(ea, float):
                assert ga == pytest.approx(ea, abs=1e-9)
            else:
                assert ga == ea


def test_rotate_radians():
    (fn,) = computed("transform: rotate(1rad)").transform
    assert fn.args[0] == pytest.approx(math.degrees(1.0))


def test_3d_hint():
    assert has_3d_hint(computed("transform: translateZ(0)").transform)
    assert has_3d_hint(computed("transform: scale(2) translate3d(0, 0, 0)").transform)
    assert not has_3d_hint(computed("transform: translate(1px, 2px)").transform)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("left top", (pct(0), pct(0))),
        ("top left", (pct(0), pct(0))),
        ("right bottom", (pct(100), pct(100))),
        ("bottom right", (pct(100), pct(100))),
        ("center top", (pct(50), pct(0))),
        ("top center", (pct(50), pct(0))),
        ("right center", (pct(100), pct(50))),
        ("center right", (pct(100), pct(50))),
        ("bottom", (pct(50), pct(100))),
        ("left", (pct(0), pct(50))),
        ("10px 20%", (px(10), pct(20))),
        ("left 10px 5px", (pct(0), px(10), px(5))),  # the z offset (CSS Transforms 2)
        ("right 25%", (pct(100), pct(25))),
    ],
)
def test_transform_origin(value, expected):
    assert computed(f"transform-origin: {value}").transform_origin == expected


def test_transform_origin_initial_is_centre():
    assert computed("").transform_origin == (pct(50), pct(50))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("visible", "visible"),
        ("hidden", "hidden"),
        ("clip", "clip"),
        ("scroll", "scroll"),
        ("auto", "scroll"),
        ("hidden scroll", "scroll"),
        ("hidden clip", "hidden"),
        ("visible hidden", "scroll"),  # visible computes to auto beside a scrolling axis
        ("visible visible", "visible"),
        ("AUTO", "scroll"),
    ],
)
def test_overflow(value, expected):
    assert computed(f"overflow: {value}").overflow == expected


@pytest.mark.parametrize(
    "value, expected",
    [("visible", "visible"), ("hidden", "hidden"), ("collapse", "hidden"), ("Collapse", "hidden")],
)
def test_visibility(value, expected):
    assert computed(f"visibility: {value}").visibility == expected


def test_visibility_inherits():
    parent = computed("visibility: hidden")
    assert computed("", parent).visibility == "hidden"
    assert computed("visibility: visible", parent).visibility == "visible"
    assert computed("visibility: initial", parent).visibility == "visible"


@pytest.mark.parametrize(
    "value, expected",
    [("auto", None), ("0", 0), ("5", 5), ("-3", -3), ("+7", 7), ("2147483647", 2147483647)],
)
def test_z_index(value, expected):
    got = computed(f"z-index: {value}").z_index
    assert got == expected and (got is None or type(got) is int)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("auto", ()),
        ("transform", ("transform",)),
        ("transform, opacity", ("transform", "opacity")),
        ("Opacity,scroll-position", ("opacity", "scroll-position")),
    ],
)
def test_will_change(value, expected):
    assert computed(f"will-change: {value}").will_change == expected


# --------------------------------------------------------------------------------------
# Cascade: CSS-wide keywords, !important, declaration order
# --------------------------------------------------------------------------------------


def test_initial_keyword_resets_to_initial():
    parent = computed("color: red; opacity: 0.3")
    c = computed("color: initial; opacity: initial; z-index: initial", parent)
    assert c.color == BLACK and c.opacity == 1.0 and c.z_index is None


def test_initial_keyword_overrides_earlier_declaration():
    c = computed("background-color: red; background-color: initial")
    assert c.used_background_color == TRANSPARENT
    c = computed("border-radius: 5px; border-radius: INITIAL")
    assert _radii(c) == (CornerRadius(),) * 4


def test_inherit_takes_parent_value_even_for_non_inherited_properties():
    parent = computed("opacity: 0.3; z-index: 4; transform: rotate(10deg); border: 2px solid blue")
    c = computed("opacity: inherit; z-index: inherit; transform: inherit; border-width: inherit", parent)
    assert c.opacity == 0.3 and c.z_index == 4
    assert c.transform == parent.transform
    assert _widths(c) == (2, 2, 2, 2)


def test_inherit_without_parent_is_initial():
    c = computed("opacity: inherit; color: inherit; background: inherit")
    assert c.opacity == 1.0 and c.color == BLACK
    assert _bg(c) == _bg(ComputedStyle())


def test_unset_inherits_inherited_and_resets_others():
    parent = computed("color: red; visibility: hidden; opacity: 0.3")
    c = computed("color: unset; visibility: unset; opacity: unset", parent)
    assert c.color == RED and c.visibility == "hidden" and c.opacity == 1.0


def test_shorthand_inherit():
    parent = computed("background: blue url(p.png) no-repeat")
    c = computed("background: inherit", parent)
    assert _bg(c) == _bg(parent)


def test_later_declaration_replaces_earlier():
    assert computed("color: red; color: blue").color == BLUE
    assert computed("opacity: 0.1; opacity: 0.9").opacity == 0.9
    assert computed("background-color: red; background: blue").used_background_color == BLUE
    assert computed("background: blue; background-color: red").used_background_color == RED


def test_later_declaration_replaces_earlier_with_other_properties_between():
    c = computed("background-color: red; background: blue; background-color: lime")
    assert c.used_background_color == RGBA(0, 1, 0, 1)


def test_important_beats_later_normal_declaration_of_another_property():
    c = computed("background-color: red !important; background: blue")
    assert c.used_background_color == RED
    c = computed("border-top-width: 9px !important; border-width: 1px")
    assert _widths(c) == (9, 1, 1, 1)


def test_important_beats_later_normal_declaration_of_same_property():
    # CSS Cascade 4 §6.4: importance is compared before order of appearance.
    assert computed("color: red !important; color: blue").color == RED
    assert computed("opacity: 0.2 !important; opacity: 0.8").opacity == 0.2


def test_later_important_beats_earlier_important():
    assert computed("color: red !important; color: blue !important").color == BLUE


def test_normal_then_important():
    assert computed("color: blue; color: red !IMPORTANT").color == RED


def test_dict_and_text_inputs_agree():
    text = computed("color: red; opacity: 50%; transform: rotate(10deg); border-radius: 3px / 4px")
    mapping = computed({"color": "red", "opacity": "50%", "transform": "rotate(10deg)", "border-radius": "3px / 4px"})
    assert text == mapping


def test_property_names_are_case_insensitive():
    assert computed("COLOR: red; Opacity: 0.5") == computed("color: red; opacity: 0.5")


def test_style_mapping_roundtrip():
    s = Style("color: red; opacity: 0.5 !important")
    assert s["opacity"] == "0.5 !important"
    assert list(s) == ["color", "opacity"]
    assert Style(s.to_css()).computed() == s.computed()


@pytest.mark.parametrize(
    "css, expected",
    [
        # sRGB red expressed in Display P3 (its primaries are wider): back to sRGB red.
        ("color(display-p3 0.9175 0.2003 0.1386)", (1.0, 0.0, 0.0)),
        # Adobe RGB shares sRGB's red primary: linear 0.7152 (white balance), gamma 563/256.
        ("color(a98-rgb 0.8586 0 0)", (1.0, 0.0, 0.0)),
        # Linear light 0.5 is sRGB-encoded 0.7354.
        ("color(srgb-linear 0.5 0.5 0.5)", (0.7354, 0.7354, 0.7354)),
        # White is white and greys stay grey in every space (D50 adapted for ProPhoto).
        ("color(display-p3 1 1 1)", (1.0, 1.0, 1.0)),
        ("color(rec2020 1 1 1)", (1.0, 1.0, 1.0)),
        ("color(prophoto-rgb 1 1 1)", (1.0, 1.0, 1.0)),
        ("color(display-p3 0.5 0.5 0.5)", (0.5, 0.5, 0.5)),
        # Out of the sRGB gamut: clipped.
        ("color(display-p3 1 0 0)", (1.0, 0.0, 0.0)),
        ("color(rec2020 0 1 0)", (0.0, 1.0, 0.0)),
    ],
)
def test_predefined_rgb_spaces_convert_to_srgb(css, expected):
    assert_rgba(computed(f"color: {css}").color, (*expected, 1.0), tol=0.003)


def test_predefined_grey_is_neutral_in_every_space():
    for space in ("srgb-linear", "display-p3", "a98-rgb", "prophoto-rgb", "rec2020"):
        c = computed(f"color: color({space} 0.3 0.3 0.3 / 40%)").color
        assert abs(c.r - c.g) < 1e-6 and abs(c.g - c.b) < 1e-6 and 0 < c.r < 1 and c.a == pytest.approx(0.4), space
