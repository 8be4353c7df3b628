"""``background-origin`` and ``background-clip`` (CSS Backgrounds 3 §3.7, §3.8), two
properties added as records: parsing, typed errors, the ``background`` shorthand's boxes,
their records' facts, the positioning and painting areas they give a layer's paint, and
scene files. (Their pixels: tests/gl/test_background_origin_clip_gl.py; against Chromium:
tests/chromium/test_background_origin_clip_chromium.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.animation import interpolate_field
from lamina.compositor.paint import layer_paint
from lamina.compositor.property_trees import IN_PLACE_FIELDS, PAINT_FIELDS
from lamina.errors import InvalidValueError, SceneFileError, UnsupportedFeatureError
from lamina.images import ImageStore
from lamina.scene_file import load_scene, scene_from_dict, scene_to_dict
from lamina.style import Style, parse_value
from lamina.style.properties import INHERITED_FIELDS, LONGHANDS, NOT_YET_SUPPORTED, BackgroundBox
from lamina.style.registry import AnimationType, Invalidation

BORDER, PADDING, CONTENT = BackgroundBox.BORDER_BOX, BackgroundBox.PADDING_BOX, BackgroundBox.CONTENT_BOX
PROPS = {"background-origin": "background_origin", "background-clip": "background_clip"}


@pytest.mark.parametrize("prop", PROPS)
@pytest.mark.parametrize("text, value", [("border-box", BORDER), ("padding-box", PADDING),
                                         ("content-box", CONTENT), ("Padding-Box", PADDING)])
def test_parses_every_box(prop, text, value):
    assert parse_value(prop, text) == {PROPS[prop]: value}
    assert getattr(Style(f"{prop}: {text}").computed(), PROPS[prop]) is value


@pytest.mark.parametrize("prop", PROPS)
@pytest.mark.parametrize("value, column", [("margin-box", 1), ("fill-box", 1), ("border-box padding-box", 12),
                                           ("4px", 1), ("border-box red", 12)])
def test_an_invalid_value_is_a_typed_error_naming_property_and_column(prop, value, column):
    with pytest.raises(InvalidValueError) as info:
        Style({prop: value}, owner="card")
    err = info.value
    assert err.property == prop and err.column == column and err.layer == "card"
    assert prop in str(err)
    with pytest.raises(InvalidValueError) as info:  # in a declaration block: the column in the block
        Style(f"color: red; {prop}: {value}")
    assert info.value.property == prop and info.value.column == 13 + len(prop) + 1 + column


def test_clip_text_and_several_layers_are_unsupported_not_invalid():
    with pytest.raises(UnsupportedFeatureError) as info:
        Style({"background-clip": "text"}, owner="title")
    assert info.value.property == "background-clip" and info.value.column == 1 and "text" in str(info.value)
    for prop in PROPS:
        with pytest.raises(UnsupportedFeatureError) as info:
            parse_value(prop, "border-box, padding-box")
        assert info.value.property == prop and info.value.column == 11  # the comma
    assert not {"background-origin", "background-clip"} & NOT_YET_SUPPORTED


def test_the_shorthand_sets_both_from_one_box_and_origin_then_clip_from_two():
    one = parse_value("background", "red border-box")
    assert one["background_origin"] is BORDER and one["background_clip"] is BORDER
    two = parse_value("background", "content-box url(a.png) no-repeat border-box")  # not adjacent
    assert two["background_origin"] is CONTENT and two["background_clip"] is BORDER
    assert two["background_repeat"] == (False, False)
    none = parse_value("background", "blue")  # a shorthand resets what it is not given
    assert none["background_origin"] is PADDING and none["background_clip"] is BORDER
    style = Style("background-clip: padding-box; background: red").computed()
    assert style.background_clip is BORDER


@pytest.mark.parametrize("value, column, error", [
    ("red border-box padding-box content-box", 28, InvalidValueError),  # a third box
    ("red text", 5, UnsupportedFeatureError),  # background-clip: text (CSS Backgrounds 4)
    ("fixed red", 1, UnsupportedFeatureError),
    ("red margin-box", 5, InvalidValueError),
])
def test_the_shorthand_refuses_what_it_cannot_do_with_a_typed_error(value, column, error):
    with pytest.raises(error) as info:
        Style({"background": value}, owner="card")
    assert type(info.value) is error
    assert info.value.property == "background" and info.value.column == column and info.value.layer == "card"


@pytest.mark.parametrize("field, initial", [("background_origin", PADDING), ("background_clip", BORDER)])
def test_records_say_initial_value_not_inherited_discrete_and_paint_only(field, initial):
    record = LONGHANDS[field]
    assert record.initial is initial and not record.inherited and field not in INHERITED_FIELDS
    assert record.animation is AnimationType.DISCRETE and record.invalidates == Invalidation.PAINT
    assert field in PAINT_FIELDS and field in IN_PLACE_FIELDS  # a change re-rasters the backing in place
    other = BORDER if initial is PADDING else PADDING
    assert interpolate_field(field, initial, other, 0.49, (10, 10)) is initial
    assert interpolate_field(field, initial, other, 0.5, (10, 10)) is other
    assert parse_value(record.name, "initial") == {field: initial}


def _paint(style: str, w: float = 60.0, h: float = 40.0, image=None):
    scene = Scene(100, 100)
    layer = scene.root.add(Layer("box", (0, 0, w, h), style, image=image))

    class Node:  # what layer_paint reads of a LayerNode
        id, width, height = "box", w, h

    Node.style = layer.computed_style()
    return layer_paint(Node, ImageStore(), None)


BORDERS = "border: solid red; border-width: 2px 6px 4px 8px"  # top, right, bottom, left


@pytest.mark.parametrize("origin, area", [
    ("border-box", (0.0, 0.0, 60.0, 40.0)),
    ("padding-box", (8.0, 2.0, 60.0 - 8 - 6, 40.0 - 2 - 4)),
    ("content-box", (8.0, 2.0, 60.0 - 8 - 6, 40.0 - 2 - 4)),  # no padding: the padding box
])
def test_origin_is_the_area_positions_and_sizes_resolve_in(origin, area, rng):
    x, y, w, h = area
    image = rng.integers(0, 256, size=(5, 7, 4), dtype=np.uint8)  # 7 wide, 5 high
    paint = _paint(f"{BORDERS}; background-origin: {origin}; background-position: 100% 25%", image=image)
    assert paint.tile == (x + (w - 7) * 1.0, y + (h - 5) * 0.25, 7.0, 5.0)
    paint = _paint(f"{BORDERS}; background: linear-gradient(red, blue) {origin}; background-size: 50% 10px")
    assert paint.tile == (x, y, w * 0.5, 10.0)


@pytest.mark.parametrize("clip, insets", [
    ("border-box", (0.0, 0.0, 0.0, 0.0)),
    ("padding-box", (2.0, 6.0, 4.0, 8.0)),
    ("content-box", (2.0, 6.0, 4.0, 8.0)),
])
def test_clip_is_the_painting_area_as_insets_from_the_border_box(clip, insets):
    paint = _paint(f"{BORDERS}; background-color: blue; background-clip: {clip}")
    assert paint.background_clip == insets
    assert dict(paint.raster_call().uniforms)["u_background_clip"] == insets
    assert paint.shader_variant == "color"  # a uniform, not a new program
    # Without a border (or with border-style none) the padding box is the border box.
    assert _paint(f"background-color: blue; background-clip: {clip}").background_clip == (0.0,) * 4


def test_a_single_tile_filling_the_painting_area_is_not_wrapped(rng):
    """A tile covering the padding box shows once when the background is clipped to it:
    its sampler does not wrap (wrapping would blend its edge with the opposite one)."""
    image = rng.integers(0, 256, size=(4, 4, 4), dtype=np.uint8)
    style = f"{BORDERS}; background-size: 100% 100%"
    assert _paint(style, image=image).image_wrap == (True, True)  # a second tile shows in the border
    assert _paint(f"{style}; background-clip: padding-box", image=image).image_wrap == (False, False)


def test_scene_files_accept_them(tmp_path):
    data = {"width": 32, "height": 32, "layers": [
        {"id": "card", "box": [0, 0, 32, 32],
         "style": {"background": "red border-box", "background-clip": "padding-box"}},
        {"id": "note", "box": [0, 0, 32, 32], "style": "background: blue content-box"},
    ]}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data))
    scene = load_scene(path)
    card, note = scene["card"].computed_style(), scene["note"].computed_style()
    assert (card.background_origin, card.background_clip) == (BORDER, PADDING)
    assert (note.background_origin, note.background_clip) == (CONTENT, CONTENT)
    again = scene_from_dict(scene_to_dict(scene))["card"].computed_style()
    assert (again.background_origin, again.background_clip) == (BORDER, PADDING)
    data["layers"][0]["style"]["background-clip"] = "margin-box"
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(data)
    assert "background-clip" in str(info.value) and "$.layers[0].style" in str(info.value)
