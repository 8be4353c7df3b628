"""The CSS ``filter`` parser (Filter Effects Module Level 1 §5), its CSS printing, chain
interpolation (§13) and the ``filter`` property in layer styles.

Expected values are written from the spec, not copied from the parser's output; expected
error columns are computed from the input text with ``str.index`` of the offending token.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing

import pytest
import tinycss2
from tinycss2 import ast

from lamina.errors import (
    FilterSyntaxError,
    InvalidValueError,
    LaminaInputError,
    StyleError,
    UnsupportedFeatureError,
)
from lamina.style import ComputedStyle, Style
from lamina.css.values import RGBA
from lamina.filters.chain import FilterChain
from lamina.filters.ops import (
    OPS,
    Blur,
    Brightness,
    Contrast,
    DropShadow,
    Grayscale,
    HueRotate,
    Invert,
    Opacity,
    Saturate,
    Sepia,
)
from lamina.filters.parse import parse

# -- helpers -----------------------------------------------------------------------------

RED = RGBA(1.0, 0.0, 0.0, 1.0)
GREEN = RGBA(0.0, 1.0, 0.0, 1.0)
BLUE = RGBA(0.0, 0.0, 1.0, 1.0)
BLACK = RGBA(0.0, 0.0, 0.0, 1.0)
WHITE = RGBA(1.0, 1.0, 1.0, 1.0)
CLEAR = RGBA(0.0, 0.0, 0.0, 0.0)


def chain(*ops) -> FilterChain:
    return FilterChain(tuple(ops))


def col(text: str, needle: str, nth: int = 0) -> int:
    """1-based column of the ``nth`` occurrence of ``needle`` in the one-line ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + 1


def _same_value(actual, expected) -> bool:
    if expected is None:
        return actual is None
    if isinstance(expected, RGBA):
        return isinstance(actual, RGBA) and dataclasses.astuple(actual) == pytest.approx(
            dataclasses.astuple(expected), abs=1e-9
        )
    return actual == pytest.approx(expected, rel=1e-9, abs=1e-12)


def assert_chain(actual, expected: FilterChain) -> None:
    """Same op types in the same order; every field equal (floats with pytest.approx)."""
    assert isinstance(actual, FilterChain), f"{actual!r} is not a FilterChain"
    assert [type(op) for op in actual.ops] == [type(op) for op in expected.ops], f"{actual!r} != {expected!r}"
    for got, want in zip(actual.ops, expected.ops):
        for f in dataclasses.fields(want):
            a, e = getattr(got, f.name), getattr(want, f.name)
            assert _same_value(a, e), f"{type(want).__name__}.{f.name}: got {a!r}, expected {e!r} (in {actual!r})"


# -- 1. valid values -----------------------------------------------------------------------

ALL_TEN = (
    "grayscale(10%) sepia(0.2) saturate(3) hue-rotate(45deg) invert(0.4) "
    "opacity(50%) brightness(120%) contrast(0.8) blur(1.5px) drop-shadow(2px 3px 4px black)"
)

VALID: list[tuple[str, FilterChain]] = [
    # none
    ("none", chain()),
    ("NONE", chain()),
    ("  None  ", chain()),
    ("/* c */ none /* d */", chain()),
    # grayscale / sepia / invert / opacity: default 1, percentages, clamped to 1
    ("grayscale()", chain(Grayscale(1.0))),
    ("grayscale(0)", chain(Grayscale(0.0))),
    ("grayscale(0.25)", chain(Grayscale(0.25))),
    ("grayscale(50%)", chain(Grayscale(0.5))),
    ("grayscale(150%)", chain(Grayscale(1.0))),
    ("grayscale(7)", chain(Grayscale(1.0))),
    ("sepia()", chain(Sepia(1.0))),
    ("sepia(.3)", chain(Sepia(0.3))),
    ("sepia(100%)", chain(Sepia(1.0))),
    ("sepia(2.5)", chain(Sepia(1.0))),
    ("invert()", chain(Invert(1.0))),
    ("invert(0%)", chain(Invert(0.0))),
    ("invert(0.75)", chain(Invert(0.75))),
    ("invert(300%)", chain(Invert(1.0))),
    ("opacity()", chain(Opacity(1.0))),
    ("opacity(20%)", chain(Opacity(0.2))),
    ("opacity(0%)", chain(Opacity(0.0))),
    ("opacity(1.5)", chain(Opacity(1.0))),
    # saturate / brightness / contrast: default 1, values above 1 kept
    ("saturate()", chain(Saturate(1.0))),
    ("saturate(0)", chain(Saturate(0.0))),
    ("saturate(250%)", chain(Saturate(2.5))),
    ("saturate(3)", chain(Saturate(3.0))),
    ("brightness()", chain(Brightness(1.0))),
    ("brightness(0.5)", chain(Brightness(0.5))),
    ("brightness(175%)", chain(Brightness(1.75))),
    ("brightness(+2)", chain(Brightness(2.0))),
    ("contrast()", chain(Contrast(1.0))),
    ("contrast(200%)", chain(Contrast(2.0))),
    ("contrast(0)", chain(Contrast(0.0))),
    ("contrast(1e2%)", chain(Contrast(1.0))),
    # hue-rotate: default 0, every angle unit, unitless 0, negative, not normalised
    ("hue-rotate()", chain(HueRotate(0.0))),
    ("hue-rotate(0)", chain(HueRotate(0.0))),
    ("hue-rotate(90deg)", chain(HueRotate(90.0))),
    ("hue-rotate(-45deg)", chain(HueRotate(-45.0))),
    ("hue-rotate(720deg)", chain(HueRotate(720.0))),
    ("hue-rotate(0.5turn)", chain(HueRotate(180.0))),
    ("hue-rotate(1turn)", chain(HueRotate(360.0))),
    ("hue-rotate(-0.25turn)", chain(HueRotate(-90.0))),
    ("hue-rotate(100grad)", chain(HueRotate(90.0))),
    ("hue-rotate(-200grad)", chain(HueRotate(-180.0))),
    ("hue-rotate(1rad)", chain(HueRotate(180.0 / math.pi))),
    (f"hue-rotate({math.pi}rad)", chain(HueRotate(180.0))),
    ("HUE-ROTATE(90DEG)", chain(HueRotate(90.0))),
    ("hue-rotate(0.5Turn)", chain(HueRotate(180.0))),
    # blur: default 0, px or unitless 0
    ("blur()", chain(Blur(0.0))),
    ("blur(0)", chain(Blur(0.0))),
    ("blur(2px)", chain(Blur(2.0))),
    ("blur(0.5px)", chain(Blur(0.5))),
    ("blur(10PX)", chain(Blur(10.0))),
    ("BLUR(3px)", chain(Blur(3.0))),
    # drop-shadow: 2 or 3 lengths, colour before or after, default currentcolor (None)
    ("drop-shadow(1px 2px)", chain(DropShadow(1.0, 2.0, 0.0, None))),
    ("drop-shadow(1px 2px 3px)", chain(DropShadow(1.0, 2.0, 3.0, None))),
    ("drop-shadow(0 0)", chain(DropShadow(0.0, 0.0, 0.0, None))),
    ("drop-shadow(-1px -2px 0)", chain(DropShadow(-1.0, -2.0, 0.0, None))),
    ("drop-shadow(red 1px 2px)", chain(DropShadow(1.0, 2.0, 0.0, RED))),
    ("drop-shadow(1px 2px red)", chain(DropShadow(1.0, 2.0, 0.0, RED))),
    ("drop-shadow(1px 2px 3px #00ff00)", chain(DropShadow(1.0, 2.0, 3.0, GREEN))),
    ("drop-shadow(#f00 0 0)", chain(DropShadow(0.0, 0.0, 0.0, RED))),
    ("drop-shadow(#0000ff80 -1px -2px 4px)", chain(DropShadow(-1.0, -2.0, 4.0, RGBA(0.0, 0.0, 1.0, 128 / 255)))),
    ("drop-shadow(rgb(0 128 255 / 50%) 1px 1px 1px)", chain(DropShadow(1.0, 1.0, 1.0, RGBA(0.0, 128 / 255, 1.0, 0.5)))),
    ("drop-shadow(1px 1px rgba(255, 0, 0, 0.25))", chain(DropShadow(1.0, 1.0, 0.0, RGBA(1.0, 0.0, 0.0, 0.25)))),
    ("drop-shadow(hsl(120deg 100% 50% / 0.5) 2px 2px)", chain(DropShadow(2.0, 2.0, 0.0, RGBA(0.0, 1.0, 0.0, 0.5)))),
    ("drop-shadow(hsl(120deg 50% 50%) 2px 2px)", chain(DropShadow(2.0, 2.0, 0.0, RGBA(0.25, 0.75, 0.25, 1.0)))),
    ("drop-shadow(hsl(0, 100%, 50%) 2px 2px)", chain(DropShadow(2.0, 2.0, 0.0, RED))),
    ("drop-shadow(currentcolor 1px 2px)", chain(DropShadow(1.0, 2.0, 0.0, None))),
    ("drop-shadow(1px 2px 3px currentColor)", chain(DropShadow(1.0, 2.0, 3.0, None))),
    ("drop-shadow(1px 2px 3px transparent)", chain(DropShadow(1.0, 2.0, 3.0, CLEAR))),
    ("drop-shadow(-3px 4px 0 RebeccaPurple)", chain(DropShadow(-3.0, 4.0, 0.0, RGBA(0x66 / 255, 0x33 / 255, 0x99 / 255)))),
    ("DROP-SHADOW(1PX 2PX Red)", chain(DropShadow(1.0, 2.0, 0.0, RED))),
    ("drop-shadow( 1px  2px  /* sigma */ 3px )", chain(DropShadow(1.0, 2.0, 3.0, None))),
    ("drop-shadow(1.5px -2.25px 0.5px #123456)", chain(DropShadow(1.5, -2.25, 0.5, RGBA(0x12 / 255, 0x34 / 255, 0x56 / 255)))),
    # chains, whitespace, comments, repetition
    ("blur(2px) sepia(1)", chain(Blur(2.0), Sepia(1.0))),
    ("blur(2px)sepia(1)", chain(Blur(2.0), Sepia(1.0))),
    ("  blur(2px)\n\tsepia(1)  ", chain(Blur(2.0), Sepia(1.0))),
    ("blur(2px)/* between */sepia(1)", chain(Blur(2.0), Sepia(1.0))),
    ("Sepia(50%) Invert(25%)", chain(Sepia(0.5), Invert(0.25))),
    ("blur(1px) blur(2px) blur(3px)", chain(Blur(1.0), Blur(2.0), Blur(3.0))),
    ("sepia(1) sepia(1)", chain(Sepia(1.0), Sepia(1.0))),
    (
        "grayscale(1) drop-shadow(0 0 4px black) drop-shadow(0 0 8px white) opacity(0.5)",
        chain(Grayscale(1.0), DropShadow(0.0, 0.0, 4.0, BLACK), DropShadow(0.0, 0.0, 8.0, WHITE), Opacity(0.5)),
    ),
    (
        ALL_TEN,
        chain(
            Grayscale(0.1), Sepia(0.2), Saturate(3.0), HueRotate(45.0), Invert(0.4),
            Opacity(0.5), Brightness(1.2), Contrast(0.8), Blur(1.5), DropShadow(2.0, 3.0, 4.0, BLACK),
        ),
    ),
    (
        " ".join(["brightness(1.1) contrast(0.9)"] * 8),
        chain(*([Brightness(1.1), Contrast(0.9)] * 8)),
    ),
]


def test_there_are_enough_valid_cases():
    assert len(VALID) >= 60
    covered = {type(op) for _, c in VALID for op in c}
    assert covered == set(OPS.values())


@pytest.mark.parametrize("text, expected", VALID, ids=[t for t, _ in VALID])
def test_valid(text, expected):
    assert_chain(parse(text), expected)


@pytest.mark.parametrize(
    "value, unit, degrees",
    [
        (90, "deg", 90.0),
        (1, "rad", 57.29577951308232),
        (-2, "rad", -114.59155902616465),
        (2 * math.pi, "rad", 360.0),
        (50, "grad", 45.0),
        (400, "grad", 360.0),
        (0.25, "turn", 90.0),
        (-1.5, "turn", -540.0),
        (3, "turn", 1080.0),
    ],
)
def test_angle_units_convert_to_degrees(value, unit, degrees):
    op = parse(f"hue-rotate({value}{unit})")[0]
    assert isinstance(op, HueRotate)
    assert op.amount == pytest.approx(degrees, rel=1e-12, abs=1e-12)


def test_chain_is_immutable_sequence():
    c = parse("blur(2px) sepia(1)")
    assert len(c) == 2 and list(c) == [Blur(2.0), Sepia(1.0)] and c[1] == Sepia(1.0)
    assert not c.is_none() and parse("none").is_none()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.ops = ()  # type: ignore[misc]
    assert hash(c) == hash(parse("blur(2px)  sepia(100%)"))


def test_non_text_is_a_filter_syntax_error():
    with pytest.raises(FilterSyntaxError) as info:
        parse(None)  # type: ignore[arg-type]
    assert info.value.property == "filter"


# -- 2. invalid values ---------------------------------------------------------------------

FSE, UFE = FilterSyntaxError, UnsupportedFeatureError
NEG = r"negative"
PX = r"\bpx\b"
ANGLE = r"angle"
AMOUNT = r"number or percentage"
UNCLOSED = r"unclosed|missing '\)'|expected '\)'|closing"

# (text, error class, offending token, which occurrence, regex the message must match)
INVALID: list[tuple[str, type, str, int, str]] = [
    # negative values
    ("blur(-1px)", FSE, "-1px", 0, NEG),
    ("BLUR(-1PX)", FSE, "-1PX", 0, NEG),
    ("grayscale(-0.1)", FSE, "-0.1", 0, NEG),
    ("sepia(-5%)", FSE, "-5%", 0, NEG),
    ("invert(-1)", FSE, "-1", 0, NEG),
    ("opacity(-0.5)", FSE, "-0.5", 0, NEG),
    ("saturate(-1)", FSE, "-1", 0, NEG),
    ("brightness(-1)", FSE, "-1", 0, NEG),
    ("contrast(-200%)", FSE, "-200%", 0, NEG),
    ("blur(1px) brightness(-1)", FSE, "-1", 0, NEG),
    # unknown functions
    ("fuzz(2px)", FSE, "fuzz(", 0, r"unknown filter function.*known: .*blur"),
    ("blur(1px) glow(2)", FSE, "glow(", 0, r"unknown filter function"),
    ("hue-rotation(90deg)", FSE, "hue-rotation(", 0, r"unknown filter function.*hue-rotate"),
    ("drop_shadow(1px 1px)", FSE, "drop_shadow(", 0, r"unknown filter function.*drop-shadow"),
    ("none(1)", FSE, "none(", 0, r"unknown filter function"),
    # wrong units / types
    ("blur(2em)", FSE, "2em", 0, PX),
    ("blur(10%)", FSE, "10%", 0, r"percentage"),
    ("blur(2deg)", FSE, "2deg", 0, PX),
    ("blur(2)", FSE, "2", 0, PX),
    ("blur(red)", FSE, "red", 0, r"length"),
    ("hue-rotate(90px)", FSE, "90px", 0, ANGLE),
    ("hue-rotate(90)", FSE, "90", 0, ANGLE),
    ("hue-rotate(50%)", FSE, "50%", 0, ANGLE),
    ("hue-rotate(1s)", FSE, "1s", 0, ANGLE),
    ("grayscale(1px)", FSE, "1px", 0, AMOUNT),
    ("opacity(1deg)", FSE, "1deg", 0, AMOUNT),
    ("sepia(red)", FSE, "red", 0, AMOUNT),
    ("drop-shadow(1em 2px)", FSE, "1em", 0, PX),
    ("drop-shadow(1px 2%)", FSE, "2%", 0, r"percentage"),
    ("drop-shadow(1px 2px 3deg)", FSE, "3deg", 0, PX),
    ("drop-shadow(1 2)", FSE, "1", 0, PX),
    ("drop-shadow(1px 2px 3)", FSE, "3)", 0, PX),
    # too many arguments
    ("grayscale(1 1)", FSE, "1", 1, r"one value"),
    ("grayscale(1, 1)", FSE, ",", 0, r"at most one argument"),
    ("brightness(1 2 3)", FSE, "2", 0, r"one value"),
    ("blur(1px 2px)", FSE, "2px", 0, r"one length"),
    ("blur(1px, 2px)", FSE, ",", 0, r"at most one argument"),
    ("hue-rotate(1deg 2deg)", FSE, "2deg", 0, r"one angle"),
    ("hue-rotate(0.5turn 1)", FSE, "1)", 0, r"one angle"),
    ("opacity(50%%)", FSE, "%)", 0, r"one value"),
    # too few arguments (drop-shadow needs two offsets)
    ("drop-shadow()", FSE, "drop-shadow(", 0, r"x and a y offset"),
    ("drop-shadow(red)", FSE, "drop-shadow(", 0, r"x and a y offset"),
    ("drop-shadow(1px)", FSE, "1px", 0, r"x and a y offset"),
    ("drop-shadow(red 1px)", FSE, "1px", 0, r"x and a y offset"),
    # drop-shadow: 4 lengths, two colours, colour splitting the lengths, negative blur
    ("drop-shadow(1px 2px 3px 4px)", FSE, "4px", 0, r"at most 3 lengths"),
    ("drop-shadow(0 0 0 0)", FSE, "0", 3, r"at most 3 lengths"),
    ("drop-shadow(1px 2px 3px 4px red)", FSE, "4px", 0, r"at most 3 lengths"),
    ("drop-shadow(red blue 1px 2px)", FSE, "blue", 0, r"length"),
    ("drop-shadow(1px 2px red blue)", FSE, "blue", 0, r"after the colou?r"),
    ("drop-shadow(red 1px 2px blue)", FSE, "blue", 0, r"length"),
    ("drop-shadow(red 1px blue 2px)", FSE, "blue", 0, r"length"),
    ("drop-shadow(1px red 2px)", FSE, "red", 0, r"lengths together"),
    ("drop-shadow(1px 2px red 3px)", FSE, "3px", 0, r"after the colou?r"),
    ("drop-shadow(1px 2px -3px)", FSE, "-3px", 0, NEG),
    ("drop-shadow(red 1px 2px -3px)", FSE, "-3px", 0, NEG),
    ("drop-shadow(1px 2px foo)", FSE, "foo", 0, r"colou?r or a length"),
    ("drop-shadow(1px, 2px)", FSE, ",", 0, r"at most one argument"),
    # commas between functions
    ("blur(2px), sepia(1)", FSE, ",", 0, r"spaces, not commas"),
    ("blur(2px) , sepia(1)", FSE, ",", 0, r"spaces, not commas"),
    ("sepia(1),sepia(1)", FSE, ",", 0, r"spaces, not commas"),
    ("blur(1px) /* x */ , sepia()", FSE, ",", 0, r"spaces, not commas"),
    # stray tokens
    ("blur(2px) foo", FSE, "foo", 0, r"expected a filter function"),
    ("blur(2px) 3", FSE, "3", 0, r"expected a filter function"),
    ("blur", FSE, "blur", 0, r"expected a filter function"),
    ('"blur"', FSE, '"blur"', 0, r"expected a filter function"),
    ("(blur(2px))", FSE, "(blur", 0, r"expected a filter function"),
    ("blur(2px) ; sepia(1)", FSE, ";", 0, r"expected a filter function"),
    ("blur(2px) !important", FSE, "!", 0, r"expected a filter function"),
    ("inherit blur(1px)", FSE, "inherit", 0, r"expected a filter function"),
    ("blur(2px))", FSE, ")", 1, r"[Uu]nmatched \)"),
    ("blur(2px) )", FSE, ")", 1, r"[Uu]nmatched \)"),
    # none with other functions
    ("none blur(1px)", FSE, "blur(", 0, r"'none' must stand alone"),
    ("none none", FSE, "none", 1, r"'none' must stand alone"),
    ("blur(1px) none", FSE, "none", 0, r"expected a filter function"),
    # empty value: reported at the start of the value
    ("", FSE, "", 0, r"expected 'none' or filter functions"),
    ("   ", FSE, "", 0, r"expected 'none' or filter functions"),
    ("/* nothing */", FSE, "", 0, r"expected 'none' or filter functions"),
    # SVG filter references: url(#id) parses (tests/unit/test_svg_filter_markup.py); other files do not
    ("url('f.svg#id')", UFE, "url(", 0, r"SVG filter references to other files"),
    ("blur(1px) url(f.svg#id)", UFE, "url(", 0, r"SVG filter references to other files"),
    ("url(#a) blur(1px) url(b.svg#c)", UFE, "url(", 1, r"SVG filter references to other files"),
    ("url(#)", FSE, "url(", 0, r"needs the id of a <filter>"),
    ('url("#a b")', FSE, "url(", 0, r"needs the id of a <filter>"),
    # unclosed parenthesis: reported at the function left open
    ("blur(2px", FSE, "blur(", 0, UNCLOSED),
    ("blur(2px) sepia(1", FSE, "sepia(", 0, UNCLOSED),
    ("drop-shadow(1px 2px red", FSE, "drop-shadow(", 0, UNCLOSED),
    # non-finite numbers (rejected like everywhere else in Lamina's CSS)
    ("blur(1e999px)", FSE, "1e999px", 0, r"finite"),
    ("brightness(1e999)", FSE, "1e999", 0, r"finite"),
    ("drop-shadow(1e999px 0)", FSE, "1e999px", 0, r"finite"),
    ("hue-rotate(1e999deg)", FSE, "1e999deg", 0, r"finite|angle"),
]


def test_there_are_enough_invalid_cases():
    assert len(INVALID) >= 60


@pytest.mark.parametrize("text, cls, token, nth, message", INVALID, ids=[c[0] or "<empty>" for c in INVALID])
def test_invalid(text, cls, token, nth, message):
    with pytest.raises(LaminaInputError) as info:
        parse(text)
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert err.property == "filter"
    assert err.column == col(text, token, nth), f"column {err.column} for {text!r}: {err}"
    assert re.search(message, err.reason), f"message {err.reason!r} does not match {message!r}"


def test_error_hierarchy():
    assert issubclass(FilterSyntaxError, InvalidValueError)
    assert issubclass(FilterSyntaxError, StyleError)
    assert issubclass(FilterSyntaxError, LaminaInputError)
    assert issubclass(UnsupportedFeatureError, StyleError)
    assert not issubclass(UnsupportedFeatureError, InvalidValueError)


def test_error_message_names_property_and_column():
    with pytest.raises(FilterSyntaxError) as info:
        parse("sepia(1) blur(-2px)")
    text = str(info.value)
    assert "'filter'" in text and f"column {col('sepia(1) blur(-2px)', '-2px')}" in text


# -- 3. round trip -------------------------------------------------------------------------


def _is_css_filter_text(text: str) -> bool:
    nodes = [n for n in tinycss2.parse_component_value_list(text) if not isinstance(n, ast.WhitespaceToken)]
    if any(isinstance(n, ast.ParseError) for n in nodes):
        return False
    if len(nodes) == 1 and isinstance(nodes[0], ast.IdentToken) and nodes[0].value == "none":
        return True
    return bool(nodes) and all(isinstance(n, ast.FunctionBlock) and n.name in OPS for n in nodes)


@pytest.mark.parametrize("text", [t for t, _ in VALID])
def test_round_trip(text):
    parsed = parse(text)
    css = repr(parsed)
    assert css == parsed.css() == str(parsed)
    assert _is_css_filter_text(css), f"repr {css!r} is not a CSS filter value"
    assert parse(css) == parsed, f"{text!r} -> {css!r} -> {parse(css)!r}"


def test_repr_is_plain_css():
    assert repr(parse("none")) == "none"
    assert repr(chain(Blur(2.0), Sepia(0.5))) == "blur(2px) sepia(0.5)"
    assert repr(chain(HueRotate(-90.0))) == "hue-rotate(-90deg)"
    assert repr(Grayscale(1.0)) == "grayscale(1)"


# -- 4. interpolation (Filter Effects 1 §13) -------------------------------------------------


@pytest.mark.parametrize(
    "a, b, t, expected",
    [
        # same functions: pairwise
        ("blur(0px)", "blur(10px)", 0.25, chain(Blur(2.5))),
        ("grayscale(0) sepia(1)", "grayscale(1) sepia(0)", 0.5, chain(Grayscale(0.5), Sepia(0.5))),
        ("brightness(1) contrast(2)", "brightness(3) contrast(0)", 0.75, chain(Brightness(2.5), Contrast(0.5))),
        ("hue-rotate(0deg)", "hue-rotate(720deg)", 0.5, chain(HueRotate(360.0))),
        ("hue-rotate(-90deg)", "hue-rotate(0.25turn)", 0.5, chain(HueRotate(0.0))),
        ("opacity(0.2) invert(0)", "opacity(0.6) invert(1)", 0.5, chain(Opacity(0.4), Invert(0.5))),
        ("drop-shadow(0 0 0 red)", "drop-shadow(10px -20px 4px red)", 0.5, chain(DropShadow(5.0, -10.0, 2.0, RED))),
        # different lengths: the shorter padded with initial values
        ("blur(2px)", "blur(4px) grayscale(1)", 0.5, chain(Blur(3.0), Grayscale(0.5))),
        ("blur(4px) sepia(1)", "blur(2px)", 0.5, chain(Blur(3.0), Sepia(0.5))),
        ("saturate(3)", "saturate(3) brightness(3) contrast(3)", 0.5, chain(Saturate(3.0), Brightness(2.0), Contrast(2.0))),
        ("invert(1)", "invert(1) opacity(0) hue-rotate(90deg)", 0.5, chain(Invert(1.0), Opacity(0.5), HueRotate(45.0))),
        # none to a list (and back): none becomes the list's initial values
        ("none", "blur(10px) brightness(3)", 0.5, chain(Blur(5.0), Brightness(2.0))),
        ("sepia(1) saturate(0)", "none", 0.25, chain(Sepia(0.75), Saturate(0.25))),
        ("none", "grayscale(1) invert(1) opacity(0)", 0.5, chain(Grayscale(0.5), Invert(0.5), Opacity(0.5))),
        ("none", "none", 0.5, chain()),
        # drop-shadow: initial value is zero lengths and transparent; colours premultiplied
        ("none", "drop-shadow(10px 20px 4px red)", 0.5, chain(DropShadow(5.0, 10.0, 2.0, RGBA(1.0, 0.0, 0.0, 0.5)))),
        ("drop-shadow(0 0 red)", "drop-shadow(0 0 rgb(0 0 255 / 0))", 0.5, chain(DropShadow(0.0, 0.0, 0.0, RGBA(1.0, 0.0, 0.0, 0.5)))),
        (
            "drop-shadow(0 0 rgb(255 0 0 / 0.2))",
            "drop-shadow(0 0 rgb(0 0 255 / 0.6))",
            0.5,
            # premultiplied: (0.2,0,0,0.2) and (0,0,0.6,0.6) -> (0.1,0,0.3,0.4) -> (0.25,0,0.75,0.4)
            chain(DropShadow(0.0, 0.0, 0.0, RGBA(0.25, 0.0, 0.75, 0.4))),
        ),
    ],
)
def test_interpolate(a, b, t, expected):
    assert_chain(parse(a).interpolate(parse(b), t), expected)


@pytest.mark.parametrize(
    "a, b",
    [
        ("blur(2px) sepia(1)", "sepia(1) blur(2px)"),
        ("grayscale(1)", "blur(1px) grayscale(1)"),
        ("hue-rotate(90deg)", "saturate(2)"),
        ("drop-shadow(1px 1px red) blur(1px)", "blur(1px) drop-shadow(1px 1px red)"),
        ("opacity(0.5) invert(1) blur(1px)", "opacity(1) sepia(1)"),
    ],
)
def test_mismatched_functions_interpolate_discretely(a, b):
    ca, cb = parse(a), parse(b)
    for t in (0.0, 0.2, 0.4999):
        assert ca.interpolate(cb, t) == ca
    for t in (0.5, 0.8, 1.0):
        assert cb.interpolate(ca, t) == ca
        assert ca.interpolate(cb, t) == cb


ENDPOINT_PAIRS = [
    ("blur(2px) sepia(0.3)", "blur(7px) sepia(0.9)"),
    ("grayscale(0.1) hue-rotate(1rad)", "grayscale(0.7) hue-rotate(3turn)"),
    ("brightness(0.3) contrast(1.7) saturate(0.1)", "brightness(2.9) contrast(0.1) saturate(1.3)"),
    ("drop-shadow(1px 2px 3px rgb(50 100 150 / 0.3))", "drop-shadow(-4px 5px 0 hsl(200 50% 40% / 0.9))"),
    ("drop-shadow(1px 2px red)", "drop-shadow(3px 4px 5px transparent)"),
    ("drop-shadow(1px 2px)", "drop-shadow(3px 4px 5px)"),  # currentcolor on both sides
    ("drop-shadow(1px 2px currentcolor)", "drop-shadow(3px 4px blue)"),
]


@pytest.mark.parametrize("a, b", ENDPOINT_PAIRS)
def test_interpolation_endpoints_equal_inputs(a, b):
    ca, cb = parse(a), parse(b)
    assert_chain(ca.interpolate(cb, 0.0), ca)
    assert_chain(ca.interpolate(cb, 1.0), cb)


def test_currentcolor_shadows_stay_currentcolor():
    ca, cb = parse("drop-shadow(1px 2px)"), parse("drop-shadow(3px 4px currentcolor)")
    assert_chain(ca.interpolate(cb, 0.5), chain(DropShadow(2.0, 3.0, 0.0, None)))


def test_extrapolated_lengths_never_negative():
    # t outside [0, 1] (overshooting easings) must not produce a negative blur radius.
    assert parse("blur(4px)").interpolate(parse("blur(0)"), 2.0) == chain(Blur(0.0))
    shadow = parse("drop-shadow(0 0 4px red)").interpolate(parse("drop-shadow(0 0 0 red)"), 2.0)[0]
    assert isinstance(shadow, DropShadow) and shadow.sigma == 0.0


@pytest.mark.parametrize(
    "cls, initial",
    [
        (Blur, Blur(0.0)),
        (Grayscale, Grayscale(0.0)),
        (Sepia, Sepia(0.0)),
        (Invert, Invert(0.0)),
        (HueRotate, HueRotate(0.0)),
        (Opacity, Opacity(1.0)),
        (Saturate, Saturate(1.0)),
        (Brightness, Brightness(1.0)),
        (Contrast, Contrast(1.0)),
        (DropShadow, DropShadow(0.0, 0.0, 0.0, CLEAR)),
    ],
)
def test_initial_values_for_interpolation(cls, initial):
    assert cls.initial() == initial


# -- 5. the filter property in layer styles ---------------------------------------------------


def test_style_filter_computes_to_chain():
    computed = Style("color: red; filter: blur(2px) drop-shadow(1px 1px)").computed()
    assert isinstance(computed, ComputedStyle)
    assert computed.filter == chain(Blur(2.0), DropShadow(1.0, 1.0, 0.0, None))
    assert computed.color == RED


@pytest.mark.parametrize(
    "css, expected",
    [
        ("FILTER: Sepia(50%) hue-rotate(0.5turn)", chain(Sepia(0.5), HueRotate(180.0))),
        ("filter: drop-shadow(rgb(0 0 255 / 50%) 2px 3px 4px); opacity: 0.5", chain(DropShadow(2.0, 3.0, 4.0, RGBA(0, 0, 1, 0.5)))),
        ("filter: blur(1px); filter: grayscale()", chain(Grayscale(1.0))),
    ],
)
def test_style_filter_values(css, expected):
    assert_chain(Style(css).computed().filter, expected)


def test_style_filter_none_is_the_initial_value():
    # How `none` is stored (None or an empty chain) is the style's choice; it must be
    # the same as the initial value, and not a chain with ops in it.
    initial = ComputedStyle().filter
    assert Style("filter: none").computed().filter == initial
    assert Style("filter: NONE; color: red").computed().filter == initial
    assert initial is None or initial == chain()


def test_style_mapping_filter():
    style = Style({"filter": "invert(1) blur(3px)"})
    assert style.computed().filter == chain(Invert(1.0), Blur(3.0))
    style["filter"] = "none"
    assert style.computed().filter == ComputedStyle().filter


@pytest.mark.parametrize(
    "css, cls, token, nth",
    [
        ("opacity: 1; filter: blur(-1px)", FilterSyntaxError, "-1px", 0),
        ("color: red; filter: sepia(1) fuzz(2)", FilterSyntaxError, "fuzz(", 0),
        ("filter: blur(2px), sepia(1)", FilterSyntaxError, ",", 0),
        ("opacity: 0.5;   filter: drop-shadow(1px red 2px) ", FilterSyntaxError, "red", 0),
        ("color: blue; filter: drop-shadow(1px 2px 3px 4px)", FilterSyntaxError, "4px", 0),
        ("filter: none blur(1px)", FilterSyntaxError, "blur(", 0),
        ("filter: hue-rotate(90px); color: red", FilterSyntaxError, "90px", 0),
        ("color: red; filter: url(f.svg#f)", UnsupportedFeatureError, "url(", 0),
    ],
)
def test_style_filter_error_columns(css, cls, token, nth):
    with pytest.raises(StyleError) as info:
        Style(css)
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert err.property == "filter"
    assert err.column == col(css, token, nth), str(err)


def test_style_filter_error_on_second_line():
    css = "color: red;\nfilter: sepia(1) blur(-1px)"
    with pytest.raises(FilterSyntaxError) as info:
        Style(css)
    second = css.splitlines()[1]
    assert info.value.line == 2 and info.value.column == col(second, "-1px")


def test_style_setitem_filter_error_column_is_within_value():
    style = Style("color: red")
    value = "sepia(1) blur(-1px)"
    with pytest.raises(FilterSyntaxError) as info:
        style["filter"] = value
    assert info.value.property == "filter" and info.value.column == col(value, "-1px")
    assert "filter" not in style


# -- each op parses its own function ----------------------------------------------------------

@dataclasses.dataclass(frozen=True, repr=False)
class _Twice(Brightness):
    """A made-up amount function: what a new colour filter function adds (its op alone)."""

    name: typing.ClassVar[str] = "twice"
    css_default: typing.ClassVar[float] = 2.0
    clamps_to_one: typing.ClassVar[bool] = False


def test_a_filter_function_is_parsed_by_its_op_found_by_name(monkeypatch):
    monkeypatch.setitem(OPS, "twice", _Twice)
    assert parse("twice() sepia(1)").ops == (_Twice(2.0), Sepia(1.0))
    assert parse("twice(300%)").ops == (_Twice(3.0),), "not clamped to 1: the op says so"
    text = "sepia(1) twice(-1)"
    with pytest.raises(FilterSyntaxError, match=r"twice\(\) does not take negative values") as err:
        parse(text)
    assert err.value.column == text.index("-1") + 1
    monkeypatch.delitem(OPS, "twice")
    with pytest.raises(FilterSyntaxError, match=r"unknown filter function twice\(\)"):
        parse("twice(1)")
