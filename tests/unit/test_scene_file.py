"""Scene files: round trips, the shipped JSON schema, and every loader error with its path.

The loader and engine/schema/scene.schema.json describe the same format; tests below
check they agree on a set of valid and invalid documents."""

from __future__ import annotations

import copy
import json
import re

import jsonschema
import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.errors import LaminaInputError, SceneFileError, StyleError
from lamina.images import load_image
from lamina.scene_file import FORMAT_VERSION, SCHEMA_PATH, load_scene, scene_from_dict, scene_to_dict


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def write(tmp_path, data, name="scene.json") -> str:
    path = tmp_path / name
    if isinstance(data, (bytes, bytearray)):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return str(path)


def load_error(tmp_path, data) -> SceneFileError:
    path = write(tmp_path, data)
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    err = info.value
    assert isinstance(err, LaminaInputError)
    assert err.file == path
    assert str(err).startswith(f"{path}: {err.path}: ")
    assert "\n" not in str(err)
    return err


RICH = {
    "$schema": "../engine/schema/scene.schema.json",
    "lamina": 1,
    "width": 320,
    "height": 200,
    "background": "#102030",
    "style": "color: rgb(10 20 30)",
    "layers": [
        {
            "id": "card",
            "box": [10, 20.5, 200, 120],
            "style": "background: linear-gradient(45deg, red, blue 40%); border: 2px solid black; "
            "border-radius: 12px / 6px; overflow: hidden; opacity: 0.8",
            "children": [
                {"id": "title", "box": [8, 8, 100, 20], "style": {"background-color": "white", "z-index": 2}},
                {"id": "spin", "box": [50, 50, 30, 30], "style": "transform: rotate(30deg) scale(1.5); "
                 "transform-origin: left top; background-color: rgba(0, 128, 0, 0.5)"},
                {"id": "empty"},
            ],
        },
        {"id": "hidden", "box": [0, 0, 5, 5], "style": "visibility: hidden; color: red !important"},
        {"id": "pic", "box": [0, 100, 16, 16], "style": 'background-image: url("tiles/a b.png"); '
         "background-repeat: no-repeat; background-size: cover"},
    ],
}


def test_schema_is_valid_draft_2020_12(validator):
    assert validator.schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_round_trip_is_stable_and_schema_valid(tmp_path, validator):
    path = write(tmp_path, RICH)
    scene = load_scene(path)
    assert scene.base_dir == tmp_path
    assert [n.id for n in scene.layers()] == ["root", "card", "title", "spin", "empty", "hidden", "pic"]
    assert scene["card"].box.y == 20.5
    assert scene["title"].computed_style().z_index == 2
    first = scene.to_dict()
    validator.validate(first)
    assert first["lamina"] == FORMAT_VERSION
    assert first["background"] == "#102030"
    # Through JSON text and back.
    again = scene_from_dict(json.loads(json.dumps(first)), base_dir=tmp_path)
    second = again.to_dict()
    assert second == first
    validator.validate(second)
    # The computed styles survive too.
    for a, b in zip(scene.layers(), again.layers()):
        assert a.id == b.id and a.box == b.box
    assert scene.to_json() == again.to_json()
    json.loads(scene.to_json(indent=None))


def test_round_trip_preserves_computed_styles(tmp_path):
    scene = load_scene(write(tmp_path, RICH))
    again = scene_from_dict(scene.to_dict(), base_dir=tmp_path)

    def computed(s):
        out, stack = {}, [(s.root, None)]
        while stack:
            layer, parent = stack.pop()
            cs = layer.computed_style(parent)
            out[layer.id] = cs
            stack.extend((c, cs) for c in layer.children)
        return out

    assert computed(again) == computed(scene)


def test_round_trip_preserves_root_background_written_after_shorthand():
    """The root's declarations must keep their order: background-color set after a
    ``background`` shorthand wins, and must still win after saving and loading."""
    scene = Scene(10, 10, "white")
    scene.root.style["background"] = "red"
    scene.root.style["background-color"] = "blue"
    assert scene.root.computed_style().background_color.b == 1.0
    again = scene_from_dict(scene.to_dict())
    assert again.root.computed_style().background_color == scene.root.computed_style().background_color


def test_random_scenes_round_trip(rng, validator):
    for _ in range(20):
        scene = Scene(int(rng.integers(1, 500)), int(rng.integers(1, 500)), "rgba(1, 2, 3, 0.5)")
        nodes = [scene.root]
        for i in range(int(rng.integers(0, 12))):
            parent = nodes[int(rng.integers(len(nodes)))]
            box = [round(float(v), 3) for v in rng.uniform(-50, 50, 2)] + [
                round(float(v), 3) for v in rng.uniform(0, 100, 2)
            ]
            style = {}
            if rng.random() < 0.5:
                style["opacity"] = f"{rng.random():.3f}"
            if rng.random() < 0.5:
                style["background-color"] = f"#{int(rng.integers(0, 1 << 24)):06x}"
            if rng.random() < 0.3:
                style["z-index"] = str(int(rng.integers(-3, 4)))
            if rng.random() < 0.3:
                style["transform"] = f"rotate({int(rng.integers(-180, 180))}deg)"
            nodes.append(parent.add(Layer(f"L{i}", box, style)))
        data = scene.to_dict()
        validator.validate(data)
        assert scene_from_dict(json.loads(json.dumps(data))).to_dict() == data


def test_in_memory_image_is_embedded_as_png_data_url(tmp_path, rng, validator):
    pixels = rng.integers(0, 256, (7, 5, 4), dtype=np.uint8)
    pixels[0, 0] = (200, 100, 50, 0)  # colour under zero alpha must survive (straight RGBA)
    scene = Scene(20, 20)
    layer = scene.root.add(Layer("photo", (1, 2, 5, 7), "background-repeat: no-repeat"))
    layer.image = pixels
    text = scene.to_json()
    data = json.loads(text)
    validator.validate(data)
    style = data["layers"][0]["style"]
    assert "background-repeat: no-repeat" in style
    m = re.search(r'background-image: url\("(data:image/png;base64,[A-Za-z0-9+/=]+)"\)', style)
    assert m, style
    path = write(tmp_path, text)
    loaded = load_scene(path)
    ref = loaded["photo"].computed_style().background_image
    assert ref.url == m.group(1)
    back = load_image(ref)
    assert back.dtype == np.uint8 and back.shape == pixels.shape
    np.testing.assert_array_equal(back, pixels)
    # And the reloaded scene saves to the same document.
    assert loaded.to_dict() == data


def test_float_grey_image_is_embedded_as_its_rgba8_pixels(rng):
    grey = rng.random((3, 4))
    scene = Scene(10, 10)
    scene.root.add(Layer("g", (0, 0, 4, 3))).image = grey
    again = scene_from_dict(scene.to_dict())
    back = load_image(again["g"].computed_style().background_image)
    expected = np.clip(np.rint(grey * 255), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(back[..., 0], expected)
    np.testing.assert_array_equal(back[..., 1], expected)
    np.testing.assert_array_equal(back[..., 3], 255)


def test_embed_images_flag_controls_file_images(tmp_path, rng):
    """``to_dict(embed_images=True)`` makes a self-contained document, so an image given by
    file path is written as a data: URL; ``embed_images=False`` (the default) keeps the
    path. The two must differ, and the embedded one must load from another folder."""
    pixels = rng.integers(0, 256, (3, 3, 4), dtype=np.uint8)
    from PIL import Image

    Image.fromarray(pixels, "RGBA").save(tmp_path / "pic.png")
    scene = Scene(10, 10, base_dir=tmp_path)
    scene.root.add(Layer("p", (0, 0, 3, 3))).image = "pic.png"
    kept = scene.to_dict(embed_images=False)["layers"][0]["style"]
    assert kept == 'background-image: url("pic.png")'
    embedded = scene.to_dict(embed_images=True)["layers"][0]["style"]
    assert "data:image/png;base64," in embedded, embedded
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert scene.to_dict()["layers"][0]["style"] == kept
    loaded = load_scene(write(other, scene.to_dict(embed_images=True)))
    np.testing.assert_array_equal(load_image(loaded["p"].computed_style().background_image, other), pixels)


def test_root_image_cannot_be_saved():
    scene = Scene(10, 10)
    scene.root.image = np.zeros((1, 1, 4), np.uint8)
    with pytest.raises(LaminaInputError):
        scene.to_dict()


# -- loader errors, each with its JSON path ---------------------------------------------------

BASE = {"width": 10, "height": 10}


def with_layers(*layers, **top):
    return {**BASE, **top, "layers": list(layers)}


def test_invalid_json_reports_line_and_column(tmp_path):
    text = '{"width": 10,\n "height": 10,\n "layers": [\n  {"id": "a" "box": [0, 0, 1, 1]}]}'
    err = load_error(tmp_path, text)
    assert err.path == "$"
    assert "invalid JSON" in str(err)
    assert "line 4 column 14" in str(err)


@pytest.mark.parametrize("text", ["", "   ", "{", '{"width": 10,}', "[1, 2", "nul"])
def test_truncated_or_empty_json(tmp_path, text):
    err = load_error(tmp_path, text)
    assert err.path == "$" and "invalid JSON" in str(err) and re.search(r"line \d+ column \d+", str(err))


def test_duplicate_key_at_top_level(tmp_path):
    err = load_error(tmp_path, '{"width": 10, "height": 10, "width": 20}')
    assert err.path == "$.width"
    assert "duplicate key 'width'" in str(err)


def test_duplicate_key_inside_a_layer_is_located(tmp_path):
    """A duplicate key deep in the file must be findable: by its JSON path or its line."""
    text = '{\n "width": 10,\n "height": 10,\n "layers": [\n  {"id": "a", "style": "x", "style": "y"}\n ]\n}'
    err = load_error(tmp_path, text)
    assert "duplicate key 'style'" in str(err)
    assert err.path.startswith("$.layers[0]") or "line 5" in str(err), str(err)


def test_unknown_top_level_key(tmp_path):
    err = load_error(tmp_path, {**BASE, "layers": [], "widht": 3})
    assert err.path == "$.widht"
    assert "unknown key 'widht'" in str(err)


def test_unknown_layer_key_in_nested_child(tmp_path):
    doc = with_layers({"id": "a", "children": [{"id": "b"}, {"id": "c", "opacity": 0.5}]})
    err = load_error(tmp_path, doc)
    assert err.path == "$.layers[0].children[1].opacity"
    assert "unknown key 'opacity'" in str(err)


@pytest.mark.parametrize("key", ["width", "height"])
def test_missing_size(tmp_path, key):
    doc = dict(BASE)
    del doc[key]
    err = load_error(tmp_path, doc)
    assert err.path == "$"
    assert f"missing required key '{key}'" in str(err)


@pytest.mark.parametrize(
    "value, fragment",
    [("100", "whole number"), (1.5, "whole number"), (True, "whole number"), (None, "whole number"),
     ([10], "whole number"), (0, "from 1 to 16384"), (-5, "from 1 to 16384"), (16385, "from 1 to 16384")],
)
@pytest.mark.parametrize("key", ["width", "height"])
def test_bad_size_values(tmp_path, key, value, fragment):
    err = load_error(tmp_path, {**BASE, key: value})
    assert err.path == f"$.{key}"
    assert fragment in str(err)


def test_not_an_object(tmp_path):
    err = load_error(tmp_path, [1, 2])
    assert err.path == "$"


def test_bad_format_version(tmp_path):
    err = load_error(tmp_path, {**BASE, "lamina": 2})
    assert err.path == "$.lamina"


def test_bad_background(tmp_path):
    assert load_error(tmp_path, {**BASE, "background": 5}).path == "$.background"
    err = load_error(tmp_path, {**BASE, "background": "reddish"})
    assert err.path == "$.background"
    assert "reddish" in str(err)


@pytest.mark.parametrize("layers", [{"id": "a"}, "a", 3, None])
def test_layers_not_a_list(tmp_path, layers):
    err = load_error(tmp_path, {**BASE, "layers": layers})
    assert err.path == "$.layers"


@pytest.mark.parametrize("layer", ["a", 1, None, ["id", "a"]])
def test_layer_not_an_object(tmp_path, layer):
    err = load_error(tmp_path, with_layers({"id": "ok"}, layer))
    assert err.path == "$.layers[1]"
    assert "a layer must be an object" in str(err)


def test_missing_id(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "children": [{"box": [0, 0, 1, 1]}]}))
    assert err.path == "$.layers[0].children[0]"
    assert "'id'" in str(err)


@pytest.mark.parametrize("bad", ["", "  ", 7, None])
def test_bad_id(tmp_path, bad):
    assert load_error(tmp_path, with_layers({"id": bad})).path == "$.layers[0].id"


def test_duplicate_id_in_nested_children_reports_the_second(tmp_path):
    doc = with_layers(
        {"id": "a", "children": [{"id": "x"}]},
        {"id": "b", "children": [{"id": "y"}, {"id": "z", "children": [{"id": "x"}]}]},
    )
    err = load_error(tmp_path, doc)
    assert err.path == "$.layers[1].children[1].children[0].id"
    assert "duplicate layer id 'x'" in str(err)
    assert "$.layers[0].children[0]" in str(err)  # where the first one is


def test_layer_named_root_is_a_duplicate(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "root"}))
    assert err.path == "$.layers[0].id"


@pytest.mark.parametrize(
    "box, fragment",
    [
        ([0, 0, -1, 5], "negative"),
        ([0, 0, 1], "4 numbers"),
        ([0, 0, 1, 2, 3], "4 numbers"),
        ([0, "0", 1, 1], "number"),
        ([0, 0, True, 1], "number"),
        ([0, 0, 1e7, 1], "beyond"),
        ("0 0 1 1", "[x, y, width, height]"),
        ({"x": 0}, "[x, y, width, height]"),
        (None, "[x, y, width, height]"),
    ],
)
def test_bad_box(tmp_path, box, fragment):
    err = load_error(tmp_path, with_layers({"id": "a", "children": [{"id": "b", "box": box}]}))
    assert err.path == "$.layers[0].children[0].box"
    assert fragment in str(err)


def test_bad_style_text_has_path_and_column(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "style": "color: red; opacity: nope"}))
    assert err.path == "$.layers[0].style"
    column = len("color: red; opacity: ") + 1
    assert f"column {column}" in str(err)
    assert "'a'" in str(err) and "opacity" in str(err)


def test_style_error_in_scene_file_keeps_the_style_error_as_cause(tmp_path):
    """scene_file._style_errors sets ``__cause__`` to the StyleError so callers can read
    its property/column/layer; the SceneFileError must still carry it when raised."""
    err = load_error(tmp_path, with_layers({"id": "a", "style": "color: red; opacity: nope"}))
    cause = err.__cause__
    assert isinstance(cause, StyleError), f"__cause__ is {cause!r}"
    assert (cause.layer, cause.property, cause.column) == ("a", "opacity", len("color: red; opacity: ") + 1)


def test_bad_style_text_on_second_line_has_line_and_column(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "style": "color: red;\n  opacity: nope"}))
    assert err.path == "$.layers[0].style"
    assert "line 2" in str(err) and "column 12" in str(err)


def test_css_syntax_error_in_style_text(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "style": "color red"}))
    assert err.path == "$.layers[0].style"
    assert "column" in str(err)


def test_dict_style_value_error_path(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "style": {"color": "red", "opacity": "nope"}}))
    assert err.path == "$.layers[0].style.opacity"
    assert "opacity" in str(err)


@pytest.mark.parametrize("value", [True, None, [1], {"a": 1}])
def test_dict_style_value_of_wrong_type(tmp_path, value):
    err = load_error(tmp_path, with_layers({"id": "a", "style": {"opacity": value}}))
    assert err.path == "$.layers[0].style.opacity"


def test_unknown_property_in_dict_style(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "style": {"colour": "red"}}))
    assert err.path == "$.layers[0].style.colour"


@pytest.mark.parametrize("style", [5, ["color: red"], None, True])
def test_style_of_wrong_type(tmp_path, style):
    assert load_error(tmp_path, with_layers({"id": "a", "style": style})).path == "$.layers[0].style"


def test_root_style_error_path(tmp_path):
    assert load_error(tmp_path, {**BASE, "style": "opacity: 2x"}).path == "$.style"


def test_children_not_a_list(tmp_path):
    err = load_error(tmp_path, with_layers({"id": "a", "children": {"id": "b"}}))
    assert err.path == "$.layers[0].children"


def test_file_not_found(tmp_path):
    path = tmp_path / "missing.json"
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    assert info.value.path == "$"
    assert info.value.file == str(path)
    assert str(info.value) == f"{path}: $: file not found"


def test_directory_instead_of_file(tmp_path):
    with pytest.raises(SceneFileError) as info:
        load_scene(tmp_path)
    assert info.value.path == "$"


def test_non_utf8_file(tmp_path):
    err = load_error(tmp_path, b'{"width": 10, "height": 10, "background": "\xff"}')
    assert err.path == "$"
    assert "cannot read" in str(err) and "utf-8" in str(err).lower()


def test_relative_image_paths_resolve_against_the_scene_folder(tmp_path):
    path = write(tmp_path, with_layers({"id": "a", "style": "background-image: url(img/p.png)"}))
    scene = load_scene(path)
    assert scene.base_dir == tmp_path


# -- schema and loader agree ------------------------------------------------------------------

VALID_DOCS = [
    pytest.param({"width": 1, "height": 1}, id="minimal"),
    pytest.param({"width": 16384, "height": 16384, "layers": []}, id="max-size"),
    pytest.param({"width": 100.0, "height": 50, "lamina": 1}, id="whole-float"),
    pytest.param({"$schema": "x", "width": 5, "height": 5, "background": "transparent",
                  "style": {"opacity": 0.5}}, id="root-style-dict"),
    pytest.param(with_layers({"id": "a", "box": [0, 0, 40, 20], "style": "font-family: monospace", "text": "two\nlines"}),
                 id="text"),
    pytest.param(with_layers({"id": "a", "box": [0.5, -3, 0, 0], "style": {"z-index": 2, "color": "red"},
                              "children": [{"id": "b", "style": "opacity: 0.1"}]}), id="nested"),
    pytest.param(RICH, id="rich"),
]

INVALID_DOCS = [
    pytest.param({"height": 10}, id="missing-width"),
    pytest.param({**BASE, "width": 1.5}, id="fractional-width"),
    pytest.param({**BASE, "height": "10"}, id="string-height"),
    pytest.param({**BASE, "width": True}, id="bool-width"),
    pytest.param({**BASE, "width": 16385}, id="width-too-big"),
    pytest.param({**BASE, "height": 0}, id="zero-height"),
    pytest.param({**BASE, "extra": 1}, id="unknown-top-key"),
    pytest.param({**BASE, "lamina": 2}, id="format-2"),
    pytest.param({**BASE, "lamina": True}, id="format-true"),
    pytest.param({**BASE, "background": 0}, id="numeric-background"),
    pytest.param({**BASE, "layers": {}}, id="layers-object"),
    pytest.param(with_layers("a"), id="layer-string"),
    pytest.param(with_layers({"box": [0, 0, 1, 1]}), id="layer-without-id"),
    pytest.param(with_layers({"id": ""}), id="empty-id"),
    pytest.param(with_layers({"id": "a", "size": 3}), id="unknown-layer-key"),
    pytest.param(with_layers({"id": "a", "box": [0, 0, 1]}), id="short-box"),
    pytest.param(with_layers({"id": "a", "box": [0, 0, "1", 1]}), id="string-in-box"),
    pytest.param(with_layers({"id": "a", "style": 3}), id="numeric-style"),
    pytest.param(with_layers({"id": "a", "style": {"opacity": True}}), id="bool-style-value"),
    pytest.param(with_layers({"id": "a", "style": {"opacity": None}}), id="null-style-value"),
    pytest.param(with_layers({"id": "a", "children": [{"id": "b", "children": "c"}]}), id="children-string"),
    pytest.param(with_layers({"id": "a", "children": [{"id": "b", "extra": 1}]}), id="nested-unknown-key"),
    pytest.param(with_layers({"id": "a", "text": 5}), id="text-not-a-string"),
]


@pytest.mark.parametrize("doc", VALID_DOCS)
def test_valid_documents_pass_schema_and_loader(tmp_path, validator, doc):
    validator.validate(doc)
    scene = load_scene(write(tmp_path, doc))
    assert (scene.width, scene.height) == (doc["width"], doc["height"])
    assert [layer.id for layer in scene.layers()[1:]] == _layer_ids(doc.get("layers", [])), "every layer, in order"
    written = scene.to_dict()
    validator.validate(written)
    assert load_scene(write(tmp_path, written, "again.json")).to_dict() == written, "what it writes loads as itself"


def _layer_ids(layers: list) -> list[str]:
    """The ids of a document's layers, depth first (as Scene.layers() lists them, less the root)."""
    return [i for layer in layers for i in (layer["id"], *_layer_ids(layer.get("children", [])))]


@pytest.mark.parametrize("doc", INVALID_DOCS)
def test_invalid_documents_fail_schema_and_loader(tmp_path, validator, doc):
    schema_errors = list(validator.iter_errors(copy.deepcopy(doc)))
    assert schema_errors, "the schema accepts a document the loader should reject"
    with pytest.raises(SceneFileError):
        load_scene(write(tmp_path, doc))


def test_schema_rejects_negative_box_size_like_the_loader(tmp_path, validator):
    """The schema documents 'width and height >= 0' for boxes; Draft 2020-12 can say it
    (prefixItems), so a negative size must fail validation as it fails loading."""
    doc = with_layers({"id": "a", "box": [0, 0, -5, 10]})
    with pytest.raises(SceneFileError):
        load_scene(write(tmp_path, doc))
    assert list(validator.iter_errors(doc)), "schema accepts a negative box width"


def test_scene_to_dict_is_scene_method():
    scene = Scene(3, 4, "red")
    assert scene.to_dict() == scene_to_dict(scene) == {
        "lamina": 1, "width": 3, "height": 4, "background": "red", "layers": []
    }


def test_description_and_golden_options_round_trip(validator):
    data = {**RICH, "description": "cards",
            "golden": {"t": 0.5, "policy": "all", "max_diff": "0-2", "max_pixels": 40, "max_pixel_ratio": 0.05}}
    validator.validate(data)
    scene = scene_from_dict(data)
    assert scene.description == "cards"
    assert scene.golden == {"t": 0.5, "policy": "all", "max_diff": "0-2", "max_pixels": "40", "max_pixel_ratio": 0.05}
    again = scene.to_dict()
    validator.validate(again)
    assert scene_from_dict(again).golden == scene.golden


@pytest.mark.parametrize(
    "golden, where",
    [
        ([], r"\$\.golden: golden must be an object"),
        ({"t": -1}, r"\$\.golden\.t: t must be a time"),
        ({"t": "1s"}, r"\$\.golden\.t"),
        ({"policy": "some"}, r"\$\.golden\.policy: policy must be one of"),
        ({"max_diff": "3-1"}, r"\$\.golden\.max_diff: max_diff: '3-1' is not a range"),
        ({"max_pixels": "lots"}, r"\$\.golden\.max_pixels"),
        ({"max_pixel_ratio": 2}, r"\$\.golden\.max_pixel_ratio: max_pixel_ratio: expected a fraction from 0 to 1"),
        ({"max_pixel_ratio": True}, r"\$\.golden\.max_pixel_ratio"),
        ({"tolerance": 1}, r"\$\.golden\.tolerance: unknown key"),
    ],
)
def test_bad_golden_options_name_their_path(golden, where):
    with pytest.raises(SceneFileError, match=where):
        scene_from_dict({"width": 4, "height": 4, "golden": golden})
