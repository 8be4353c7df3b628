"""Invalid CSS: the exact error class, the property it names and the 1-based column of
the token that is wrong. Expected columns are computed from the CSS text with
``str.index`` of the offending token, never copied from the engine's output."""

from __future__ import annotations

import pytest

from lamina.errors import (
    CSSSyntaxError,
    InvalidValueError,
    LaminaError,
    LaminaInputError,
    StyleError,
    UnknownPropertyError,
    UnsupportedFeatureError,
)
from lamina.style import Style

Syntax, Unknown, Invalid, Unsupported = CSSSyntaxError, UnknownPropertyError, InvalidValueError, UnsupportedFeatureError


def col(text: str, needle: str, nth: int = 0) -> int:
    """1-based column of the ``nth`` occurrence of ``needle`` in a one-line ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + 1


# (css, error class, property, token the column must point at, which occurrence)
CASES = [
    # -- property names ----------------------------------------------------------------
    ("colour: red", Unknown, "colour", "colour", 0),
    ("opacity: 1; bogus-prop: 2", Unknown, "bogus-prop", "bogus-prop", 0),
    ("color: red;   -webkit-mask: none", Unknown, "-webkit-mask", "-webkit-mask", 0),
    ("mask: url(#m)", Unsupported, "mask", "url(", 0),
    ("opacity: 1; clip-path: path('M 0 0')", Unsupported, "clip-path", "path(", 0),
    ("color: red; box-shadow: 0 0 -1px red", Invalid, "box-shadow", "-1px", 0),
    ("box-shadow: 1px 1px 2px red, inset 3px", Invalid, "box-shadow", "3px", 0),
    ("width: 10px", Unsupported, "width", "width", 0),
    # -- declaration syntax ------------------------------------------------------------
    # A missing ':' is reported where the colon was expected (the token after the name).
    ("color red", Syntax, "color", "red", 0),
    ("opacity: 1; color red", Syntax, "color", "red", 0),
    ("color red; opacity: 1", Syntax, "color", "red", 0),
    ("background-image: url(a b)", Syntax, "background-image", "url(", 0),
    ('color: "unterminated', Syntax, "color", '"', 0),
    # Empty values are reported at the declaration.
    ("opacity: ;", Invalid, "opacity", "opacity", 0),
    ("color: red; opacity:", Invalid, "opacity", "opacity", 0),
    # -- numbers ----------------------------------------------------------------------
    ("opacity: NaN", Invalid, "opacity", "NaN", 0),
    ("opacity: 1e999", Invalid, "opacity", "1e999", 0),
    ("border-width: 1e999px", Invalid, "border-width", "1e999px", 0),
    ("transform: rotate(-1e999deg)", Invalid, "transform", "-1e999deg", 0),
    ("opacity: 50px", Invalid, "opacity", "50px", 0),
    ("opacity: 0.5 0.5", Invalid, "opacity", "0.5", 1),
    ("z-index: 1.5", Invalid, "z-index", "1.5", 0),
    ("z-index: 2 3", Invalid, "z-index", "3", 0),
    # -- negative lengths -------------------------------------------------------------
    ("border-width: -1px", Invalid, "border-width", "-1px", 0),
    ("border: -2px solid red", Invalid, "border", "-2px", 0),
    ("border-left-width: 1px -1px", Invalid, "border-left-width", "-1px", 0),
    ("border-radius: 5px -2px", Invalid, "border-radius", "-2px", 0),
    ("border-top-left-radius: -3px", Invalid, "border-top-left-radius", "-3px", 0),
    ("border-radius: 1px / 2px -3%", Invalid, "border-radius", "-3%", 0),
    ("background-size: -5px auto", Invalid, "background-size", "-5px", 0),
    # -- units ------------------------------------------------------------------------
    ("border-width: 2em", Invalid, "border-width", "2em", 0),
    ("border-radius: 1rem", Invalid, "border-radius", "1rem", 0),
    ("border-width: 10% 2px", Invalid, "border-width", "10%", 0),
    ("border: 5% solid red", Invalid, "border", "5%", 0),
    ("border-width: 0%", Invalid, "border-width", "0%", 0),
    ("transform: translate(1em)", Invalid, "transform", "1em", 0),
    ("transform: rotate(10px)", Invalid, "transform", "10px", 0),
    ("transform: rotate(45)", Invalid, "transform", "45", 0),
    ("transform: translateZ(10%)", Invalid, "transform", "10%", 0),
    # -- transform functions ----------------------------------------------------------
    ("transform: rotate(10deg, 20deg)", Invalid, "transform", "rotate(", 0),
    ("transform: translate()", Invalid, "transform", "translate(", 0),
    ("transform: scale(1, 2, 3)", Invalid, "transform", "scale(", 0),
    ("transform: matrix(1, 0, 0, 1, 0)", Invalid, "transform", "matrix(", 0),
    ("transform: rotate(1deg) skew(1deg, 2deg, 3deg)", Invalid, "transform", "skew(", 0),
    ("transform: translate3d(1px, 2px)", Invalid, "transform", "translate3d(", 0),
    ("transform: wobble(3)", Invalid, "transform", "wobble(", 0),
    ("transform: rotate(10deg) 5px", Invalid, "transform", "5px", 0),
    # -- 3D (CSS Transforms 2) ----------------------------------------------------------
    ("transform: rotateX(10px)", Invalid, "transform", "10px", 0),
    ("transform: scale(2) perspective(-100px)", Invalid, "transform", "-100px", 0),
    ("transform: perspective(10%)", Invalid, "transform", "10%", 0),
    ("transform: matrix3d(1,0,0,0,0,1,0,0,0,0,1,0,0,0,0)", Invalid, "transform", "matrix3d(", 0),
    ("transform: matrix3d(1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1,0)", Invalid, "transform", "matrix3d(", 0),
    ("transform: matrix3d(1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1e999)", Invalid, "transform", "1e999", 0),
    ("transform: rotate3d(1, 0, 0)", Invalid, "transform", "rotate3d(", 0),
    ("transform: scale3d(1, 2)", Invalid, "transform", "scale3d(", 0),
    ("perspective: -10px", Invalid, "perspective", "-10px", 0),
    ("perspective: 50%", Invalid, "perspective", "50%", 0),
    ("perspective: 10px 20px", Invalid, "perspective", "20px", 0),
    ("perspective-origin: sideways", Invalid, "perspective-origin", "sideways", 0),
    ("backface-visibility: sometimes", Invalid, "backface-visibility", "sometimes", 0),
    ("transform-style: preserve-2d", Invalid, "transform-style", "preserve-2d", 0),
    ("transform-origin: 1px 2px 3%", Invalid, "transform-origin", "3%", 0),
    # -- backgrounds ------------------------------------------------------------------
    ("background-image: url(a.png), url(b.png)", Unsupported, "background-image", ",", 0),
    ("background: red, blue", Unsupported, "background", ",", 0),
    ("background-position: 0 0, 10px 10px", Unsupported, "background-position", ",", 0),
    ("background-image: cross-fade(red, blue)", Unsupported, "background-image", "cross-fade(", 0),
    ("background-repeat: space", Unsupported, "background-repeat", "space", 0),
    ("background: red fixed", Unsupported, "background", "fixed", 0),
    ("background: red blue", Invalid, "background", "blue", 0),
    ("background-image: red", Invalid, "background-image", "red", 0),
    ("background-position: top 10px", Invalid, "background-position", "10px", 0),
    ("background-position: left right", Invalid, "background-position", "right", 0),
    ("background-position: 10px left", Invalid, "background-position", "left", 0),
    ("transform-origin: 10px top 5%", Invalid, "transform-origin", "5%", 0),
    # -- gradients --------------------------------------------------------------------
    ("background-image: linear-gradient(red)", Invalid, "background-image", "linear-gradient(", 0),
    ("background-image: linear-gradient(45deg, red)", Invalid, "background-image", "linear-gradient(", 0),
    ("background-image: linear-gradient(10%, red, blue)", Invalid, "background-image", "10%", 0),
    ("background-image: linear-gradient(red, blue, 10%)", Invalid, "background-image", "10%", 0),
    ("background-image: linear-gradient(red, 10%, 20%, blue)", Invalid, "background-image", "20%", 0),
    ("background-image: linear-gradient(to top bottom, red, blue)", Invalid, "background-image", "bottom", 0),
    ("background-image: linear-gradient(to left left, red, blue)", Invalid, "background-image", "left", 1),
    ("background-image: linear-gradient(to middle, red, blue)", Invalid, "background-image", "middle", 0),
    ("background-image: linear-gradient(red, , blue)", Invalid, "background-image", "linear-gradient(", 0),
    ("background-image: radial-gradient(circle 10%, red, blue)", Invalid, "background-image", "10%", 0),
    ("background-image: radial-gradient(circle at, red, blue)", Invalid, "background-image", "at", 0),
    ("background-image: conic-gradient(red 10px, blue)", Invalid, "background-image", "10px", 0),
    ("background-image: conic-gradient(from 10%, red, blue)", Invalid, "background-image", "10%", 0),
    ("background-image: conic-gradient(at 10px from 5deg, red, blue)", Invalid, "background-image", "from", 0),
    ("background-image: conic-gradient(at, red, blue)", Invalid, "background-image", "at", 0),
    ("background-image: conic-gradient(red, 5px, blue)", Invalid, "background-image", "5px", 0),
    ("background-image: conic-gradient(red, blue 10deg 20deg 30deg)", Invalid, "background-image", "30deg", 0),
    ("background-image: conic-gradient(red)", Invalid, "background-image", "conic-gradient(", 0),
    ("background: repeating-conic-gradient(red, 10%, 20%, blue)", Invalid, "background", "20%", 0),
    ("background-image: conic-gradient(in oklab, red, blue)", Unsupported, "background-image", "in", 0),
    # -- borders ----------------------------------------------------------------------
    ("border: 1px double red", Unsupported, "border", "double", 0),
    ("border-style: groove", Unsupported, "border-style", "groove", 0),
    ("border-style: dashed dotted", Unsupported, "border-style", "dotted", 0),
    ("border: 2px dashed dotted", Invalid, "border", "dotted", 0),
    ("border-style: solid double", Unsupported, "border-style", "double", 0),
    ("border: 1px solid red blue", Invalid, "border", "blue", 0),
    ("border-radius: 1px 2px 3px 4px 5px", Invalid, "border-radius", "5px", 0),
    ("border-radius: / 4px", Invalid, "border-radius", "/", 0),
    # -- colours ----------------------------------------------------------------------
    ("color: #ggg", Invalid, "color", "#ggg", 0),
    ("color: red blue", Invalid, "color", "blue", 0),
    ("color: rgb(1, 2)", Invalid, "color", "rgb(", 0),
    ("background-color: 12px", Invalid, "background-color", "12px", 0),
    # -- keywords ---------------------------------------------------------------------
    ("visibility: maybe", Invalid, "visibility", "maybe", 0),
    ("overflow: clip visible", Unsupported, "overflow", "visible", 0),
    ("top: 10", Invalid, "top", "10", 0),
    ("bottom: auto 5px", Invalid, "bottom", "5px", 0),
    ("scroll-top: -5px", Invalid, "scroll-top", "-5px", 0),
    ("will-change: all", Invalid, "will-change", "all", 0),
    ("will-change: transform, auto", Invalid, "will-change", "auto", 0),
    ("will-change: transform opacity", Invalid, "will-change", "opacity", 0),
    ("opacity: inherit 1", Invalid, "opacity", "inherit", 0),
]


def _raise(source) -> StyleError:
    with pytest.raises(StyleError) as info:
        Style(source)
    return info.value


@pytest.mark.parametrize("css, cls, prop, token, nth", CASES, ids=[c[0] for c in CASES])
def test_css_text_errors(css, cls, prop, token, nth):
    err = _raise(css)
    expected_col = col(css, token, nth)
    assert (type(err).__name__, err.property, err.column) == (cls.__name__, prop, expected_col)
    assert err.line == 1
    assert isinstance(err, LaminaInputError) and isinstance(err, LaminaError)
    message = str(err)
    assert f"property {prop!r}" in message
    assert f"column {expected_col}" in message


def test_there_are_enough_cases():
    assert len(CASES) >= 40
    assert {c[1] for c in CASES} == {Syntax, Unknown, Invalid, Unsupported}


@pytest.mark.parametrize("cls", [Syntax, Unknown, Invalid, Unsupported])
def test_error_hierarchy(cls):
    assert issubclass(cls, StyleError)
    assert issubclass(cls, LaminaInputError)
    others = [c for c in (Syntax, Unknown, Invalid, Unsupported) if c is not cls]
    assert not any(issubclass(cls, o) or issubclass(o, cls) for o in others)


def test_error_on_second_line():
    css = "color: red;\n  opacity: zz"
    err = _raise(css)
    assert type(err) is Invalid
    assert (err.property, err.line, err.column) == ("opacity", 2, "  opacity: zz".index("zz") + 1)
    assert "line 2" in str(err) and "column 12" in str(err)


def test_error_keeps_offending_value_text():
    err = _raise("transform: rotate(1deg) skew(1deg, 2deg, 3deg)")
    assert err.value == "rotate(1deg) skew(1deg, 2deg, 3deg)"
    assert "skew()" in err.reason or "skew" in err.reason


def test_nothing_is_stored_when_a_later_declaration_fails():
    s = Style("color: red")
    with pytest.raises(InvalidValueError):
        s.update_css("opacity: 0.5; z-index: 1.5")
    assert list(s) == ["color"]


# --------------------------------------------------------------------------------------
# Dict input: columns are counted within the value string the caller wrote
# --------------------------------------------------------------------------------------

DICT_CASES = [
    ({"opacity": "  zz"}, Invalid, "opacity", "  zz", "zz", 0),
    ({"opacity": "zz"}, Invalid, "opacity", "zz", "zz", 0),
    ({"OPACITY": "0.5 zz"}, Invalid, "opacity", "0.5 zz", "zz", 0),
    ({"transform": "rotate(10deg) skew(1deg, 2deg, 3deg)"}, Invalid, "transform", None, "skew(", 0),
    ({"transform": "scale(2) rotateY(1px)"}, Invalid, "transform", None, "1px", 0),
    ({"transform-style": "preserve-2d"}, Invalid, "transform-style", None, "preserve-2d", 0),
    ({"border": "1px ridge red"}, Unsupported, "border", None, "ridge", 0),
    ({"border-radius": "1px -1px"}, Invalid, "border-radius", None, "-1px", 0),
    ({"z-index": "1.5"}, Invalid, "z-index", None, "1.5", 0),
    ({"will-change": "all"}, Invalid, "will-change", None, "all", 0),
    ({"background-position": "top 10px"}, Invalid, "background-position", None, "10px", 0),
    ({"background-image": "url(a.png), url(b.png)"}, Unsupported, "background-image", None, ",", 0),
    ({"background-image": "linear-gradient(to top bottom, red, blue)"}, Invalid, "background-image", None, "bottom", 0),
    ({"color": "red", "opacity": "1", "border-width": "1px 2em"}, Invalid, "border-width", "1px 2em", "2em", 0),
    # An empty value: the only position in an empty string is column 1.
    ({"opacity": ""}, Invalid, "opacity", "", None, 0),
    # A ';' ends the declaration: a second one in the same value is a syntax error there.
    ({"opacity": "1; color: red"}, Syntax, "opacity", "1; color: red", ";", 0),
]


@pytest.mark.parametrize(
    "mapping, cls, prop, value, token, nth", DICT_CASES, ids=[repr(c[0]) for c in DICT_CASES]
)
def test_dict_value_errors(mapping, cls, prop, value, token, nth):
    err = _raise(mapping)
    if value is None:
        (value,) = [v for k, v in mapping.items() if k.lower() == prop]
    expected_col = 1 if token is None else col(value, token, nth)
    assert (type(err).__name__, err.property, err.column) == (cls.__name__, prop, expected_col)
    message = str(err)
    assert f"property {prop!r}" in message
    assert f"column {expected_col}" in message


def test_dict_column_of_zz_is_three():
    err = _raise({"opacity": "  zz"})
    assert err.column == 3


def test_dict_unknown_property_has_no_value_column():
    err = _raise({"bogus": "1"})
    assert type(err) is Unknown
    assert err.property == "bogus"
    assert err.column is None  # the name is not part of the value string


def test_dict_unsupported_property():
    err = _raise({"mask": "url(#m)"})
    assert type(err) is Unsupported and err.property == "mask"


def test_dict_multiline_value_column_is_within_its_line():
    err = _raise({"opacity": "\n  zz"})
    assert type(err) is Invalid
    assert (err.property, err.line, err.column) == ("opacity", 2, 3)


def test_setitem_errors_use_value_columns_and_leave_style_unchanged():
    s = Style({"opacity": "0.5"})
    with pytest.raises(InvalidValueError) as info:
        s["z-index"] = "  1.5"
    assert (info.value.property, info.value.column) == ("z-index", 3)
    assert dict(s) == {"opacity": "0.5"}
    assert s.computed().z_index is None


@pytest.mark.parametrize("value", [None, [1, 2], {"a": 1}, b"red"])
def test_setitem_rejects_non_text_values(value):
    s = Style()
    with pytest.raises(InvalidValueError) as info:
        s["color"] = value
    assert info.value.property == "color"


def test_setitem_rejects_non_string_names():
    s = Style()
    with pytest.raises(InvalidValueError):
        s[3] = "red"
