"""Input limits (lamina.limits) are enforced before they bite, each with a typed error
that names the limit: layers per scene, animations per layer, image pixels (checked
before decoding: decompression bombs), data: URL size, scene file size, JSON depth."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

import lamina.limits as limits
from lamina import Layer, Scene, load_scene
from lamina.errors import ImageLoadError, LayerTreeError, SceneFileError
from lamina.css.values import ImageRef
from lamina.images import ImageStore


def test_layers_per_scene(monkeypatch):
    monkeypatch.setattr("lamina.scene.MAX_LAYERS", 50)
    scene = Scene(10, 10)
    for i in range(49):
        scene.root.add(Layer(f"l{i}", (0, 0, 1, 1)))
    group = Layer("group", (0, 0, 1, 1), children=[Layer("child", (0, 0, 1, 1))])
    with pytest.raises(LayerTreeError, match="MAX_LAYERS") as info:
        scene.root.add(group)
    assert "'group'" in str(info.value) and "52 layers" in str(info.value)
    assert scene.find("group") is None and len(scene.layers()) == 50, "nothing half-added"


def test_animations_per_layer():
    layer = Layer("busy", (0, 0, 10, 10))
    for _ in range(limits.MAX_ANIMATIONS_PER_LAYER):
        layer.animate({"from": {"opacity": "1"}, "to": {"opacity": "0"}}, duration=1)
    with pytest.raises(LayerTreeError, match="MAX_ANIMATIONS_PER_LAYER") as info:
        layer.animate({"from": {"opacity": "1"}, "to": {"opacity": "0"}}, duration=1)
    assert "'busy'" in str(info.value)


def _png(w: int, h: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (w, h)).save(buffer, format="PNG")  # a few KB however large
    return buffer.getvalue()


def test_a_decompression_bomb_is_refused_before_decoding(tmp_path, monkeypatch):
    monkeypatch.setattr("lamina.images.MAX_IMAGE_PIXELS", 1000 * 1000)
    path = tmp_path / "bomb.png"
    path.write_bytes(_png(1001, 1000))
    assert path.stat().st_size < 20_000
    decoded = []
    monkeypatch.setattr("lamina.images._from_pil", lambda *a: decoded.append(1))
    with pytest.raises(ImageLoadError, match="MAX_IMAGE_PIXELS") as info:
        ImageStore().get(ImageRef(url=str(path)), None, "pic")
    assert "1001x1000" in str(info.value) and not decoded


def test_an_array_image_over_the_pixel_limit_is_refused(monkeypatch):
    monkeypatch.setattr("lamina.images.MAX_IMAGE_PIXELS", 100)
    with pytest.raises(ImageLoadError, match="MAX_IMAGE_PIXELS"):
        ImageStore().get(ImageRef(data=np.zeros((11, 10, 4), np.uint8)), None, "pic")


def test_a_data_url_over_its_limit_is_refused(monkeypatch):
    monkeypatch.setattr("lamina.images.MAX_DATA_URL_BYTES", 1000)
    url = "data:image/png;base64," + base64.b64encode(_png(40, 40) + b"\0" * 1000).decode()
    with pytest.raises(ImageLoadError, match="MAX_DATA_URL_BYTES"):
        ImageStore().get(ImageRef(url=url), None, "pic")


def test_a_scene_file_over_its_limit_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr("lamina.scene_file.MAX_SCENE_FILE_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"lamina": 1, "width": 10, "height": 10, "description": "x" * 200}))
    with pytest.raises(SceneFileError, match="MAX_SCENE_FILE_BYTES") as info:
        load_scene(path)
    assert str(path) in str(info.value)


def test_json_nested_beyond_any_scene_is_a_typed_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"lamina": 1, "width": 10, "height": 10, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(SceneFileError, match="nested too deeply"):
        load_scene(path)


def test_a_texture_too_large_for_the_gpu_names_the_layer_and_its_json_path(tmp_path):
    from lamina.errors import TextureTooLargeError
    from lamina.limits import Limits

    path = tmp_path / "big.json"
    path.write_text(json.dumps({"lamina": 1, "width": 50, "height": 50, "layers": [
        {"id": "wide", "box": [0, 0, 65, 10], "style": "background: red"}]}))
    scene = load_scene(path)
    with pytest.raises(TextureTooLargeError) as info:
        scene.plan(policy="none", limits=Limits(max_texture_size=64))
    err = info.value
    assert err.layer == "wide" and err.path == "$.layers[0]" and err.file == str(path)
