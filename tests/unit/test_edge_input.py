"""Extreme and malformed inputs must end in typed errors, never in OverflowError,
RecursionError, AttributeError or OSError."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene
from lamina.cli import main
from lamina.errors import GeometryError, ImageLoadError, InvalidValueError, LayerTreeError, SceneFileError
from lamina.images import load_image
from lamina.layer import MAX_TREE_DEPTH
from lamina.scene_file import load_scene
from lamina.css.values import ImageRef
from lamina.compositor.tree import resolve_tree


def test_huge_integers_are_geometry_errors():
    with pytest.raises(GeometryError):
        Scene(10**400, 10)
    with pytest.raises(GeometryError):
        Layer("x", (10**400, 0, 1, 1))


def test_huge_integer_in_scene_file(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"width": 1' + "0" * 400 + ', "height": 10}')
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    assert info.value.path == "$.width"


def test_tree_depth_is_limited_with_a_clear_error():
    scene = Scene(10, 10)
    node = scene.root
    for i in range(MAX_TREE_DEPTH - 1):
        node = node.add(Layer(f"l{i}"))
    resolve_tree(scene.root)  # the deepest allowed tree resolves
    with pytest.raises(LayerTreeError, match="deeper than"):
        node.add(Layer("one-too-many"))
    # A deep subtree built on its own is refused when attached too.
    top = Layer("t0")
    tail = top
    for i in range(1, 10):
        tail = tail.add(Layer(f"t{i}"))
    with pytest.raises(LayerTreeError):
        node.parent.add(top)


def test_deeply_nested_scene_file(tmp_path):
    layer: dict = {"id": "leaf"}
    for i in range(MAX_TREE_DEPTH + 5):
        layer = {"id": f"n{i}", "children": [layer]}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"width": 10, "height": 10, "layers": [layer]}))
    with pytest.raises(SceneFileError, match="deeper than"):
        load_scene(path)
    path.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(SceneFileError):
        load_scene(path)


@pytest.mark.parametrize("style", [5, ["background: red"], b"background: red"])
def test_style_of_the_wrong_type(style):
    with pytest.raises(InvalidValueError) as info:
        Layer("a", (0, 0, 1, 1), style)
    assert info.value.layer == "a"


@pytest.mark.parametrize("url", ["a" * 5000, "http://[x", "ftp://host/a.png"])
def test_bad_urls_are_image_load_errors(url):
    with pytest.raises(ImageLoadError):
        load_image(ImageRef(url=url))


def test_sixteen_bit_png_is_scaled_not_clipped(tmp_path):
    Image.fromarray(np.full((4, 4), 32768, np.uint16)).save(tmp_path / "g16.png")
    pixels = load_image(ImageRef(url=str(tmp_path / "g16.png")))
    assert tuple(pixels[0, 0]) == (128, 128, 128, 255)


def test_exif_orientation_is_applied(tmp_path):
    img = Image.new("RGB", (4, 2), (255, 0, 0))
    img.putpixel((0, 0), (0, 0, 255))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    buf = io.BytesIO()
    img.save(buf, format="PNG", exif=exif)
    (tmp_path / "o.png").write_bytes(buf.getvalue())
    pixels = load_image(ImageRef(url=str(tmp_path / "o.png")))
    assert pixels.shape[:2] == (4, 2), "shown 2 wide and 4 tall, as a browser shows it"
    assert tuple(pixels[0, 1, :3]) == (0, 0, 255), "top-left pixel moved to the top-right"


def test_report_into_missing_folder_exits_2_before_rendering(tmp_path, capsys, monkeypatch):
    import lamina.scene

    monkeypatch.setattr(lamina.scene.Scene, "render", lambda *a, **k: pytest.fail("must not render"))
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"width": 4, "height": 4}))
    assert main(["render", str(path), "-o", str(tmp_path / "o.png"), "--report", str(tmp_path / "no" / "r.json")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err
    assert not (tmp_path / "o.png").exists()


def test_will_change_filter_makes_a_stacking_context():
    scene = Scene(40, 40)
    a = scene.root.add(Layer("a", (0, 0, 40, 40), "will-change: filter"))
    a.add(Layer("a1", (0, 0, 20, 20), "background: red; z-index: 100"))
    scene.root.add(Layer("b", (0, 0, 40, 40), "background: blue; z-index: 1"))
    draws = [d.layer_id for d in scene.plan(policy="none").passes[-1].draws]
    assert draws == ["a1", "b"], "a1's z-index is trapped inside a's stacking context"
