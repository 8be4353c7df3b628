"""The text properties: parsed values, how they compute (inheritance, font-relative
units) and their errors — class, property, and the 1-based column of the offending
token, computed from the CSS text with ``str.index``."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene
from lamina.css.values import RGBA
from lamina.errors import InvalidValueError, StyleError, UnknownPropertyError, UnsupportedFeatureError
from lamina.style import Style
from lamina.style.text import FontFamily, FontStyle, LineHeight, TextShadow, check_resolved

RED = RGBA(1.0, 0.0, 0.0, 1.0)


def computed(css: str, parent_css: str | None = None):
    parent = Style(parent_css).computed() if parent_css is not None else None
    return Style(css).computed(parent)


def col(text: str, needle: str, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + 1


# -- values ----------------------------------------------------------------------------


def test_initial_values_are_a_browsers():
    s = computed("")
    assert s.font_family == (FontFamily("serif", generic=True),)
    assert (s.font_size, s.font_weight, s.font_style) == (16.0, 400.0, FontStyle())
    assert (s.line_height, s.text_align, s.letter_spacing, s.white_space, s.text_shadow) == (
        LineHeight(), "start", 0.0, "normal", ())
    assert s.text is None


@pytest.mark.parametrize("css, families", [
    ("font-family: serif", (FontFamily("serif", True),)),
    ('font-family: "DejaVu Sans", sans-serif', (FontFamily("DejaVu Sans"), FontFamily("sans-serif", True))),
    ("font-family: DejaVu   Sans Mono, monospace", (FontFamily("DejaVu Sans Mono"), FontFamily("monospace", True))),
    # A quoted generic name is a family called that, not the generic family.
    ('font-family: "serif"', (FontFamily("serif"),)),
    ("font-family: SYSTEM-UI", (FontFamily("system-ui", True),)),
])
def test_font_family_lists(css, families):
    assert computed(css).font_family == families


@pytest.mark.parametrize("css, parent, size", [
    ("font-size: 20px", None, 20.0),
    ("font-size: medium", None, 16.0),
    ("font-size: xx-large", None, 32.0),
    ("font-size: 2em", "font-size: 10px", 20.0),
    ("font-size: 150%", "font-size: 10px", 15.0),
    ("font-size: larger", "font-size: 10px", 12.0),
    ("font-size: 1.5em", None, 24.0),  # the root's parent is the initial 16px
    ("", "font-size: 11px", 11.0),  # inherited
    ("font-size: 0", None, 0.0),
])
def test_font_size_computes_to_px(css, parent, size):
    assert computed(css, parent).font_size == pytest.approx(size)


@pytest.mark.parametrize("css, parent, weight", [
    ("font-weight: bold", None, 700.0),
    ("font-weight: normal", None, 400.0),
    ("font-weight: 350", None, 350.0),
    ("font-weight: bolder", "font-weight: 300", 400.0),
    ("font-weight: bolder", "font-weight: 400", 700.0),
    ("font-weight: bolder", "font-weight: 600", 900.0),
    ("font-weight: lighter", "font-weight: 700", 400.0),
    ("font-weight: lighter", "font-weight: 400", 100.0),
])
def test_font_weight_and_relative_steps(css, parent, weight):
    assert computed(css, parent).font_weight == weight


def test_font_style():
    assert computed("font-style: italic").font_style == FontStyle("italic", 14.0)
    assert computed("font-style: oblique").font_style == FontStyle("oblique", 14.0)
    assert computed("font-style: oblique 10deg").font_style == FontStyle("oblique", 10.0)
    assert computed("font-style: normal").font_style == FontStyle()


def test_line_height_numbers_inherit_as_numbers_lengths_as_lengths():
    # CSS 2.1 §10.8.1: a number inherits as the factor, a percentage as the length.
    assert computed("font-size: 30px", "line-height: 1.5; font-size: 10px").line_height == LineHeight("number", 1.5)
    assert computed("font-size: 30px", "line-height: 150%; font-size: 10px").line_height == LineHeight("px", 15.0)
    assert computed("line-height: 2em; font-size: 10px").line_height == LineHeight("px", 20.0)
    assert computed("line-height: 22px").line_height == LineHeight("px", 22.0)
    assert computed("line-height: normal").line_height == LineHeight()


def test_letter_spacing_em_is_of_the_elements_own_size():
    assert computed("letter-spacing: 0.5em; font-size: 20px", "font-size: 10px").letter_spacing == 10.0
    assert computed("letter-spacing: -1px").letter_spacing == -1.0
    assert computed("letter-spacing: normal").letter_spacing == 0.0


def test_text_shadow_lists():
    assert computed("text-shadow: 1px 2px").text_shadow == (TextShadow(1.0, 2.0, 0.0, "currentcolor"),)
    assert computed("text-shadow: red 1px 2px 3px, 0 0 4px blue").text_shadow == (
        TextShadow(1.0, 2.0, 3.0, RED), TextShadow(0.0, 0.0, 4.0, RGBA(0.0, 0.0, 1.0, 1.0)))
    assert computed("text-shadow: none").text_shadow == ()


def test_text_align_and_white_space_keywords():
    for word in ("start", "end", "left", "right", "center", "justify"):
        assert computed(f"text-align: {word}").text_align == word
    for word in ("normal", "pre", "nowrap", "pre-wrap", "pre-line"):
        assert computed(f"white-space: {word}").white_space == word


def test_every_text_property_inherits_through_layers():
    scene = Scene(100, 100)
    parent = scene.root.add(Layer("p", (0, 0, 100, 100), (
        "color: red; font-family: monospace; font-size: 20px; font-weight: bold; font-style: italic;"
        " line-height: 1.25; text-align: center; letter-spacing: 2px; white-space: pre;"
        " text-shadow: 1px 1px red")))
    child = parent.add(Layer("c", (0, 0, 50, 50), text="hi"))
    p = parent.computed_style(scene.root.computed_style())
    c = child.computed_style(p)
    for field in ("color", "font_family", "font_size", "font_weight", "font_style", "line_height",
                  "text_align", "letter_spacing", "white_space", "text_shadow"):
        assert getattr(c, field) == getattr(p, field), field
    assert c.text == "hi" and p.text is None, "text content does not inherit"


def test_keywords_initial_inherit_unset():
    assert computed("font-size: initial", "font-size: 30px").font_size == 16.0
    assert computed("font-size: unset", "font-size: 30px").font_size == 30.0  # inherited property
    assert computed("text-shadow: inherit", "text-shadow: 1px 1px red").text_shadow == (TextShadow(1.0, 1.0, 0.0, RED),)


def test_layer_text_is_validated_and_versioned():
    layer = Layer("t", (0, 0, 10, 10), text="a")
    before = layer.version
    layer.text = "b"
    assert layer.version == before + 1 and layer.text == "b"
    with pytest.raises(InvalidValueError) as info:
        layer.text = 12
    assert info.value.layer == "t" and info.value.property == "text"


# -- errors ----------------------------------------------------------------------------

Invalid, Unsupported = InvalidValueError, UnsupportedFeatureError

# (css, error class, property, token the column points at, which occurrence)
ERRORS = [
    ("font-family: serif, , monospace", Invalid, "font-family", ",", 1),
    ("font-family: serif,", Invalid, "font-family", ",", 0),
    ("font-family: Arial, 12", Invalid, "font-family", "12", 0),
    ("font-family: inherit, serif", Invalid, "font-family", "inherit", 0),
    ("font-size: -2px", Invalid, "font-size", "-2px", 0),
    ("font-size: 12pt", Invalid, "font-size", "12pt", 0),
    ("font-size: big", Invalid, "font-size", "big", 0),
    ("font-size: 12px 13px", Invalid, "font-size", "13px", 0),
    ("font-weight: 0", Invalid, "font-weight", "0", 0),
    ("font-weight: 1001", Invalid, "font-weight", "1001", 0),
    ("font-weight: heavy", Invalid, "font-weight", "heavy", 0),
    ("font-style: slanted", Invalid, "font-style", "slanted", 0),
    ("font-style: oblique 95deg", Invalid, "font-style", "95deg", 0),
    ("line-height: -1", Invalid, "line-height", "-1", 0),
    ("line-height: tall", Invalid, "line-height", "tall", 0),
    ("text-align: middle", Invalid, "text-align", "middle", 0),
    ("text-align: match-parent", Unsupported, "text-align", "match-parent", 0),
    ("letter-spacing: 10%", Unsupported, "letter-spacing", "10%", 0),
    ("letter-spacing: wide", Invalid, "letter-spacing", "wide", 0),
    ("white-space: break-spaces", Unsupported, "white-space", "break-spaces", 0),
    ("white-space: wrap", Invalid, "white-space", "wrap", 0),
    ("text-shadow: 1px", Invalid, "text-shadow", "1px", 0),
    ("text-shadow: 1px 1px -2px", Invalid, "text-shadow", "-2px", 0),
    ("text-shadow: 1px red 1px", Invalid, "text-shadow", "red", 0),
    ("text-shadow: 1px 1px 1px 1px", Invalid, "text-shadow", "1px", 3),
    ("text-shadow: 10% 1px", Invalid, "text-shadow", "10%", 0),
    ("text-shadow: 1px 1px,", Invalid, "text-shadow", ",", 0),
    ("color: red; font: 12px serif", Unsupported, "font", "font", 0),
    ("text-decoration: underline", Unsupported, "text-decoration", "text-decoration", 0),
    ("font-colour: red", UnknownPropertyError, "font-colour", "font-colour", 0),
]


@pytest.mark.parametrize("css, cls, prop, token, nth", ERRORS)
def test_errors_name_class_property_and_column(css, cls, prop, token, nth):
    with pytest.raises(StyleError) as info:
        Style(css)
    err = info.value
    assert type(err) is cls, f"{css!r}: {type(err).__name__}: {err}"
    assert err.property == prop
    assert err.column == col(css, token, nth), f"{css!r}: {err}"


def test_too_many_text_shadows_is_unsupported():
    css = "text-shadow: " + ", ".join(["1px 1px"] * 9)
    with pytest.raises(UnsupportedFeatureError) as info:
        Style(css)
    assert info.value.property == "text-shadow" and "at most 8" in str(info.value)


def test_a_value_set_on_a_layer_names_layer_and_column_in_the_value():
    layer = Layer("title", (0, 0, 10, 10))
    with pytest.raises(InvalidValueError) as info:
        layer.style["font-size"] = "12px -3px"
    assert info.value.layer == "title" and info.value.column == "12px -3px".index("-3px") + 1


# -- animation -------------------------------------------------------------------------


def _sampled(from_: dict, to: dict, t: float):
    scene = Scene(100, 50)
    layer = scene.root.add(Layer("t", (0, 0, 100, 50), text="hi"))
    layer.animate({"from": from_, "to": to}, duration=1.0)
    return layer.sampled_style(layer.computed_style(scene.root.computed_style()), t)


def test_text_properties_interpolate_by_their_css_animation_types():
    s = _sampled({"font-size": "10px", "letter-spacing": "0px", "font-weight": "100", "line-height": "1"},
                 {"font-size": "30px", "letter-spacing": "-4px", "font-weight": "900", "line-height": "2"}, 0.25)
    assert (s.font_size, s.letter_spacing, s.font_weight) == (15.0, -1.0, 300.0)
    assert s.line_height == LineHeight("number", 1.25)
    # a number and a length do not interpolate: discrete
    mixed = _sampled({"line-height": "1"}, {"line-height": "30px"}, 0.25)
    assert mixed.line_height == LineHeight("number", 1.0)


def test_text_shadow_lists_interpolate_padded_with_transparent_shadows():
    s = _sampled({"text-shadow": "2px 4px red"}, {"text-shadow": "4px 8px 2px blue, 2px 2px lime"}, 0.5)
    first, second = s.text_shadow
    assert (first.x, first.y, first.blur) == (3.0, 6.0, 1.0)
    assert first.color == RGBA(0.5, 0.0, 0.5, 1.0)  # premultiplied-space midpoint of opaque colours
    assert (second.x, second.y, second.color.a) == (1.0, 1.0, 0.5)


def test_font_relative_units_in_keyframes_are_unsupported_when_painted():
    s = _sampled({"font-size": "1em"}, {"font-size": "2em"}, 0.5)
    with pytest.raises(UnsupportedFeatureError) as info:
        check_resolved(s, "t")
    assert info.value.property == "font-size" and info.value.layer == "t"
