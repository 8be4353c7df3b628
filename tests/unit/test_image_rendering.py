"""``image-rendering`` (CSS Images 3 §5.3), a property added as one record: parsing,
typed errors, inheritance, its record's facts, what it paints with, and scene files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.compositor.paint import layer_paint
from lamina.compositor.property_trees import IN_PLACE_FIELDS
from lamina.errors import InvalidValueError, SceneFileError
from lamina.images import ImageStore
from lamina.scene_file import load_scene, scene_from_dict, scene_to_dict
from lamina.style import Style, parse_value
from lamina.style.properties import INHERITED_FIELDS, LONGHANDS, ImageRendering
from lamina.style.registry import AnimationType


@pytest.mark.parametrize("text, value", [
    ("auto", ImageRendering.AUTO), ("smooth", ImageRendering.SMOOTH),
    ("high-quality", ImageRendering.HIGH_QUALITY), ("pixelated", ImageRendering.PIXELATED),
    ("CRISP-EDGES", ImageRendering.CRISP_EDGES),
])
def test_parses_every_keyword(text, value):
    assert parse_value("image-rendering", text) == {"image_rendering": value}
    assert Style(f"image-rendering: {text}").computed().image_rendering is value


def test_only_pixelated_and_crisp_edges_sample_the_nearest_pixel():
    assert {v for v in ImageRendering if v.nearest} == {ImageRendering.PIXELATED, ImageRendering.CRISP_EDGES}


@pytest.mark.parametrize("value, column", [("blurry", 1), ("nearest-neighbor", 1), ("auto pixelated", 6), ("4px", 1)])
def test_an_invalid_value_is_a_typed_error_naming_property_and_column(value, column):
    with pytest.raises(InvalidValueError) as info:
        Style({"image-rendering": value}, owner="photo")
    err = info.value
    assert err.property == "image-rendering" and err.column == column and err.layer == "photo"
    assert "image-rendering" in str(err)
    with pytest.raises(InvalidValueError) as info:  # in a declaration block: the column in the block
        Style(f"color: red; image-rendering: {value}")
    assert info.value.property == "image-rendering" and info.value.column == 29 + column


def test_it_is_inherited_with_initial_value_auto():
    record = LONGHANDS["image_rendering"]
    assert record.name == "image-rendering" and record.inherited and "image_rendering" in INHERITED_FIELDS
    assert record.initial is ImageRendering.AUTO and record.animation is AnimationType.DISCRETE
    assert "image_rendering" not in IN_PLACE_FIELDS  # a change re-rasters the backing
    scene = Scene(20, 20)
    parent = scene.root.add(Layer("parent", (0, 0, 20, 20), "image-rendering: pixelated"))
    child = parent.add(Layer("child", (0, 0, 10, 10)))
    reset = parent.add(Layer("reset", (0, 0, 10, 10), "image-rendering: initial"))
    parent_style = parent.computed_style(scene.root.computed_style())
    assert child.computed_style(parent_style).image_rendering is ImageRendering.PIXELATED
    assert reset.computed_style(parent_style).image_rendering is ImageRendering.AUTO
    assert scene.root.computed_style().image_rendering is ImageRendering.AUTO


def test_the_image_paint_says_how_it_is_sampled(rng):
    """Only the background image's paint changes: no new raster program variant."""
    pixels = rng.integers(0, 256, size=(4, 4, 4), dtype=np.uint8)
    paints = {}
    for value in ("auto", "pixelated"):
        scene = Scene(40, 40)
        layer = scene.root.add(Layer("img", (0, 0, 32, 32), f"background-size: 32px; image-rendering: {value}",
                                     image=pixels))

        class Node:  # what layer_paint reads of a LayerNode
            id, style, width, height = "img", layer.computed_style(), 32.0, 32.0

        paints[value] = layer_paint(Node, ImageStore(), None)
    assert not paints["auto"].image.nearest and paints["pixelated"].image.nearest
    assert paints["auto"].shader_variant == paints["pixelated"].shader_variant == "image"
    assert paints["auto"] != paints["pixelated"]  # a changed value repaints


def test_scene_files_accept_it(tmp_path):
    data = {"width": 32, "height": 32, "layers": [
        {"id": "photo", "box": [0, 0, 32, 32], "style": {"image-rendering": "pixelated", "background": "red"}},
        {"id": "text", "box": [0, 0, 32, 32], "style": "image-rendering: crisp-edges"},
    ]}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data))
    scene = load_scene(path)
    assert scene["photo"].computed_style().image_rendering is ImageRendering.PIXELATED
    assert scene["text"].computed_style().image_rendering is ImageRendering.CRISP_EDGES
    again = scene_from_dict(scene_to_dict(scene))
    assert again["photo"].computed_style().image_rendering is ImageRendering.PIXELATED
    data["layers"][0]["style"]["image-rendering"] = "jagged"
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(data)
    assert "image-rendering" in str(info.value) and "$.layers[0].style" in str(info.value)
