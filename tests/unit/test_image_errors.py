"""Image errors say as much as the others: a missing or broken image from a scene file names
the scene file, the JSON path, the url as written and the file it resolved to; bad
``image=`` sources are refused where they are given; float pixels outside [0, 1] are
refused, not clipped; gradient-stop and texture-size errors carry their place."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene, load_scene
from lamina.css.values import ImageRef
from lamina.errors import ImageLoadError, SceneFileError, TextureTooLargeError, UnsupportedFeatureError
from lamina.images import load_image
from lamina.limits import MAX_GRADIENT_STOPS, Limits

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}|BytesIO")


def scene_file(tmp_path, style, box=(0, 0, 20, 10)):
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"lamina": 1, "width": 40, "height": 30,
                                "layers": [{"id": "wrap", "box": [0, 0, 40, 30], "children": [
                                    {"id": "hero", "box": list(box), "style": style}]}]}))
    return path


def test_a_missing_url_names_the_scene_file_json_path_and_resolved_path(tmp_path):
    path = scene_file(tmp_path, "background: url(nope.png)")
    with pytest.raises(ImageLoadError) as info:
        load_scene(path).plan()
    err = info.value
    assert (err.file, err.path, err.layer, err.url) == (str(path), "$.layers[0].children[0].style", "hero", "nope.png")
    assert err.resolved == str(tmp_path / "nope.png")
    assert str(err) == (f"{path}: $.layers[0].children[0].style: layer 'hero' image url(nope.png) "
                        f"({tmp_path / 'nope.png'}): file not found")
    assert isinstance(err.__cause__, ImageLoadError)  # the unlocated original, for debugging


def test_a_file_that_is_not_an_image_says_so_without_object_addresses(tmp_path):
    (tmp_path / "fake.png").write_text("<html>not a picture</html>")
    with pytest.raises(ImageLoadError) as info:
        load_scene(scene_file(tmp_path, "background: url(fake.png)")).plan()
    msg = str(info.value)
    # Named for what it is, never shown: a file's bytes could be a key, and messages go to logs.
    assert "not a readable image" in msg and "HTML" in msg and "$.layers[0].children[0].style" in msg
    assert "<html>" not in msg and "picture" not in msg
    assert not ADDRESS.search(msg), msg


@pytest.mark.parametrize("data", [b"", b"GIF89a broken", b"\x89PNG\r\n\x1a\n" + b"\0" * 40])
def test_undecodable_bytes_never_leak_a_python_repr(data):
    with pytest.raises(ImageLoadError, match="not a readable image") as info:
        load_image(ImageRef(data=data), layer="x")
    assert not ADDRESS.search(str(info.value)), str(info.value)


@pytest.mark.parametrize("bad", [42, 3.5, object(), {"r": 1}, True])
def test_a_bad_image_source_is_refused_at_construction(bad):
    with pytest.raises(ImageLoadError) as info:
        Layer("pic", (0, 0, 4, 4), image=bad)
    assert info.value.layer == "pic" and type(bad).__name__ in str(info.value)
    layer = Layer("later", (0, 0, 4, 4))
    with pytest.raises(ImageLoadError, match="layer 'later'"):
        layer.image = bad
    assert layer.image is None


@pytest.mark.parametrize("array, fragment", [
    (np.full((2, 2, 4), 1.5), "found 1.5"),
    (np.full((2, 2), -0.1, np.float32), "found -0.1"),
    (np.array([[0.2, np.nan]]), "NaN"),
    (np.zeros((2, 2, 5), np.uint8), "shape"),
    (np.zeros((2, 2, 4), np.int64), "dtype"),
    ([[0.1, 0.2], [0.3]], "not an image array"),
])
def test_bad_arrays_are_refused_at_construction(array, fragment):
    with pytest.raises(ImageLoadError, match=re.escape(fragment)) as info:
        Layer("pic", (0, 0, 4, 4), image=array)
    assert info.value.layer == "pic"


def test_good_sources_are_still_accepted(tmp_path):
    white = Layer("a", image=np.full((2, 2, 4), 1.0))
    assert np.array_equal(load_image(white.image), np.full((2, 2, 4), 255, np.uint8))
    grey = Layer("b", image=np.array([[0, 255], [255, 0]], np.uint8))
    checker = np.array([[0, 255], [255, 0]], np.uint8)[..., None]
    assert np.array_equal(load_image(grey.image), np.dstack([checker] * 3 + [np.full((2, 2, 1), 255, np.uint8)]))
    pil = Layer("c", image=Image.new("RGBA", (2, 2)))
    assert np.array_equal(load_image(pil.image), np.zeros((2, 2, 4), np.uint8))
    path = Layer("d", image=tmp_path / "later.png")  # a path is read when drawn
    assert path.image.url == str(tmp_path / "later.png") and path.image.unconfined
    encoded = Layer("e", image=b"\x89PNG...")  # encoded bytes are decoded when drawn
    assert encoded.image.data == b"\x89PNG..."


def test_too_many_gradient_stops_are_refused_where_they_are_written(tmp_path):
    ok = ", ".join(["red"] * MAX_GRADIENT_STOPS)
    Layer("g", style=f"background: linear-gradient({ok})")
    many = ", ".join(["red"] * (MAX_GRADIENT_STOPS + 1))
    with pytest.raises(UnsupportedFeatureError) as info:
        Layer("g", style=f"background-image: radial-gradient({many})")
    err = info.value
    assert (err.layer, err.property, err.column) == ("g", "background-image", 19)  # where radial-gradient( starts
    assert f"{MAX_GRADIENT_STOPS + 1} colour stops" in str(err)
    with pytest.raises(SceneFileError) as info:
        load_scene(scene_file(tmp_path, f"background: linear-gradient({many})"))
    assert info.value.path == "$.layers[0].children[0].style" and "column 13" in str(info.value)
    # two positions make two stops, as the shader counts them
    with pytest.raises(UnsupportedFeatureError):
        Layer("g", style="background: linear-gradient(" + ", ".join(["red 1px 2px"] * 17) + ")")


def test_a_texture_too_large_names_the_scene_file(tmp_path):
    path = scene_file(tmp_path, "background: red; will-change: transform", box=(0, 0, 30, 20))
    with pytest.raises(TextureTooLargeError) as info:
        load_scene(path).plan(limits=Limits(max_texture_size=16))
    assert info.value.file == str(path) and str(info.value).startswith(f"{path}: ")


def test_a_texture_error_with_its_layer_gets_the_layer_json_path(tmp_path):
    scene = load_scene(scene_file(tmp_path, "background: red"))
    err = scene.locate(TextureTooLargeError("layer 'hero' needs a 9x9 texture", layer="hero"))
    assert (err.path, err.file) == ("$.layers[0].children[0]", scene.source.file)
    assert str(err).startswith(f"{scene.source.file}: $.layers[0].children[0]: layer 'hero'")


def test_python_scenes_keep_their_errors_as_they_are():
    scene = Scene(10, 10)
    scene.root.add(Layer("pic", (0, 0, 4, 4), "background: url(/no/such/file.png)"))
    with pytest.raises(ImageLoadError) as info:
        scene.plan()
    assert info.value.file is None and info.value.path is None and info.value.layer == "pic"
    assert str(info.value) == "layer 'pic' image url(/no/such/file.png): file not found"
