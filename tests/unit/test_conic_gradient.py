"""conic-gradient() and repeating-conic-gradient() (CSS Images 4 §3.3): parsing into
ConicGradient, colour-stop fix-up in fractions of a turn, the GradientPaint the raster
shader gets, and bad input (typed errors naming the property, the column and, from a
scene file, the JSON path). The pixels are checked in tests/gl/test_conic_and_dashes.py."""

from __future__ import annotations

import json
import math

import pytest

from lamina import Layer, Scene
from lamina.compositor.paint_data import GradientPaint
from lamina.css.values import AnglePercentage, ConicGradient, LengthPercentage, RGBA
from lamina.errors import InvalidValueError, SceneFileError, StyleError, UnsupportedFeatureError
from lamina.limits import MAX_GRADIENT_STOPS
from lamina.scene_file import load_scene
from lamina.style import Style
from lamina.style.gradients import CONIC_TURN, conic_gradient_center, resolve_stops

GREEN = RGBA(0.0, 1.0, 0.0, 1.0)


def conic(value: str) -> ConicGradient:
    g = Style({"background-image": value}).computed().background_image
    assert isinstance(g, ConicGradient)
    return g


def turns(value: str) -> list[float]:
    return [s.position for s in resolve_stops(conic(value).stops, CONIC_TURN, GREEN)]


# -- the prelude -------------------------------------------------------------------------


def test_defaults_start_at_the_top_around_the_centre():
    g = conic("conic-gradient(red, blue)")
    assert g.angle == 0.0 and not g.repeating
    assert g.center == (LengthPercentage(percent=50.0), LengthPercentage(percent=50.0))
    assert [s.color for s in g.stops] == [RGBA(1, 0, 0, 1), RGBA(0, 0, 1, 1)]


@pytest.mark.parametrize("angle, degrees", [
    ("45deg", 45.0), ("0.25turn", 90.0), ("100grad", 90.0), (f"{math.pi}rad", 180.0),
    ("-90deg", -90.0), ("720deg", 720.0), ("0", 0.0),
])
def test_from_angle_in_every_unit(angle, degrees):
    assert conic(f"conic-gradient(from {angle}, red, blue)").angle == pytest.approx(degrees)


@pytest.mark.parametrize("position, expected", [
    ("left top", (LengthPercentage(percent=0.0), LengthPercentage(percent=0.0))),
    ("10px 30%", (LengthPercentage(px=10.0), LengthPercentage(percent=30.0))),
    ("right", (LengthPercentage(percent=100.0), LengthPercentage(percent=50.0))),
    ("center bottom", (LengthPercentage(percent=50.0), LengthPercentage(percent=100.0))),
])
def test_at_position(position, expected):
    g = conic(f"conic-gradient(at {position}, red, blue)")
    assert g.center == expected and g.angle == 0.0


def test_from_and_at_together_and_case_insensitive():
    g = conic("CONIC-GRADIENT(FROM 30deg AT 25% 75%, red, blue)")
    assert g.angle == 30.0
    assert g.center == (LengthPercentage(percent=25.0), LengthPercentage(percent=75.0))


def test_repeating_and_the_background_shorthand():
    css = "background: repeating-conic-gradient(from 5deg, red 0 10deg, blue 0 20deg) center / 20px 20px"
    s = Style(css).computed()
    g = s.background_image
    assert isinstance(g, ConicGradient) and g.repeating and g.angle == 5.0
    assert s.background_size.width == LengthPercentage(px=20.0)


def test_conic_center_resolves_against_the_tile():
    g = conic("conic-gradient(at 25% 10px, red, blue)")
    assert conic_gradient_center(g, 200.0, 80.0) == (50.0, 10.0)


# -- stops -------------------------------------------------------------------------------


@pytest.mark.parametrize("stops, expected", [
    ("red, blue", [0.0, 1.0]),
    ("red, lime, blue", [0.0, 0.5, 1.0]),
    ("red 90deg, blue", [0.25, 1.0]),
    ("red 25%, blue 0.75turn", [0.25, 0.75]),
    ("red 0 25%, blue 0, lime", [0.0, 0.25, 0.25, 1.0]),  # hard stop: two positions, 0 clamps up
    ("red 200grad, blue 90deg", [0.5, 0.5]),  # a stop before an earlier one is clamped
    ("red -90deg, lime, blue 450deg", [-0.25, 0.5, 1.25]),  # outside the turn is allowed
    (f"red {math.pi / 2}rad, blue", [0.25, 1.0]),
])
def test_stop_positions_are_fractions_of_a_turn(stops, expected):
    assert turns(f"conic-gradient({stops})") == pytest.approx(expected, abs=1e-12)


def test_transition_hints_in_angles_and_percentages():
    got = resolve_stops(conic("conic-gradient(red, 90deg, blue 50%, 40%, lime)").stops, CONIC_TURN, GREEN)
    # 90deg is half way from 0 to 50%; 40% lies before blue's 50% and clamps up to it.
    assert [s.hint for s in got[:2]] == pytest.approx([0.5, 0.0])
    got = resolve_stops(conic("conic-gradient(red, 25%, blue 50%)").stops, CONIC_TURN, GREEN)
    assert got[0].hint == pytest.approx(0.5)
    got = resolve_stops(conic("conic-gradient(red, 30deg, blue 120deg)").stops, CONIC_TURN, GREEN)
    assert got[0].hint == pytest.approx(0.25)
    g = conic("conic-gradient(red, 90deg, blue)")
    assert g.stops[0].hint == AnglePercentage(deg=90.0)


def test_currentcolor_stop_follows_color():
    style = Style("color: rgb(0 0 255); background-image: conic-gradient(currentcolor, red)").computed()
    got = resolve_stops(style.background_image.stops, CONIC_TURN, style.color)
    assert got[0].color == (0.0, 0.0, 1.0, 1.0)


# -- what the raster shader gets ---------------------------------------------------------


def paint_of(style: str, box=(0, 0, 100, 60)):
    scene = Scene(120, 80)
    scene.root.add(Layer("g", box, style))
    rasters = [p for p in scene.plan().raster_passes() if p.layer_id == "g"]
    assert len(rasters) == 1
    return rasters[0].paint


def test_layer_paint_carries_centre_angle_and_turn_stops():
    paint = paint_of("background: conic-gradient(from 90deg at 25% 50%, red, blue 50%)")
    g = paint.image
    assert isinstance(g, GradientPaint) and g.kind == "conic"
    assert g.center == (25.0, 30.0) and g.angle == 90.0
    assert [s.position for s in g.stops] == [0.0, 0.5]
    assert paint.shader_variant == "conic"


def test_degenerate_repeating_conic_paints_the_average_colour():
    g = paint_of("background: repeating-conic-gradient(red 10deg, blue 10deg)").image
    assert g.kind == "linear" and g.stops[0].color == g.stops[-1].color
    assert g.stops[0].color == pytest.approx((0.5, 0.0, 0.5, 1.0))


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("value, cls, token", [
    ("conic-gradient(red 10px, blue)", InvalidValueError, "10px"),
    ("conic-gradient(from 1em, red, blue)", InvalidValueError, "1em"),
    ("conic-gradient(from, red, blue)", InvalidValueError, None),
    ("conic-gradient(at 50% from 10deg, red, blue)", InvalidValueError, "from"),
    ("conic-gradient(from 10deg at middle, red, blue)", InvalidValueError, "middle"),
    ("conic-gradient(red, blue 10deg 20deg 30deg)", InvalidValueError, "30deg"),
    ("conic-gradient(red, 10%, 20%, blue)", InvalidValueError, "20%"),
    ("conic-gradient(red 1e999deg, blue)", InvalidValueError, "1e999deg"),
    ("conic-gradient(red)", InvalidValueError, "conic-gradient("),
    ("conic-gradient(from 10deg, red)", InvalidValueError, "conic-gradient("),
    ("conic-gradient(in hsl, red, blue)", UnsupportedFeatureError, "in"),
    ("conic-gradient(from 10deg in oklab, red, blue)", UnsupportedFeatureError, "in"),
])
def test_bad_conic_values_name_the_property_and_column(value, cls, token):
    css = f"background-image: {value}"
    with pytest.raises(StyleError) as info:
        Style(css)
    err = info.value
    assert type(err) is cls and err.property == "background-image"
    if token is not None:
        assert err.column == css.index(token) + 1, str(err)


def test_too_many_stops_is_unsupported_with_a_column():
    stops = ", ".join(["red", "blue"] * (MAX_GRADIENT_STOPS // 2 + 1))
    css = f"color: red; background: conic-gradient({stops})"
    with pytest.raises(UnsupportedFeatureError) as info:
        Style(css)
    assert info.value.property == "background" and info.value.column == css.index("conic-gradient(") + 1
    assert str(MAX_GRADIENT_STOPS) in str(info.value)


def test_scene_file_error_names_the_json_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"lamina": 1, "width": 10, "height": 10, "layers": [
        {"id": "a", "box": [0, 0, 5, 5]},
        {"id": "b", "box": [0, 0, 5, 5], "style": "background: conic-gradient(red 5px, blue)"}]}))
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    err = info.value
    assert err.path == "$.layers[1].style"
    cause = err.__cause__
    assert isinstance(cause, StyleError)
    assert (cause.layer, cause.property) == ("b", "background")
    assert cause.column == "background: conic-gradient(red 5px, blue)".index("5px") + 1
