"""A frame graph runs with nothing beside it (issue 21): it carries its decoded images
(FrameGraph.images, referenced by ImagePaint.key), so it can be pickled and executed
by another renderer, with the sources gone; uploads stay cached by key."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Renderer, Scene
from lamina.images import ImageResource


def _picture(rng, w: int, h: int) -> np.ndarray:
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., 3] = rng.integers(128, 256, (h, w), dtype=np.uint8)
    return img


def _image_scene(tmp_path, rng) -> tuple[Scene, np.ndarray]:
    """A scene drawing an in-memory array (twice) and a PNG file."""
    array = _picture(rng, 12, 10)
    Image.fromarray(_picture(rng, 9, 7), "RGBA").save(tmp_path / "tile.png")
    scene = Scene(80, 60, "#f4f1ea", base_dir=tmp_path)
    scene.root.add(Layer("array", (4, 4, 24, 20), image=array))
    scene.root.add(Layer("again", (30, 4, 12, 10), image=array))
    scene.root.add(Layer("file", (8, 30, 50, 24), "background: url(tile.png) repeat; border-radius: 6px"))
    return scene, array


def test_a_pickled_graph_runs_elsewhere_with_its_images(gl, tmp_path, rng):
    scene, array = _image_scene(tmp_path, rng)
    with Renderer() as renderer:
        expected = scene.render(renderer).premultiplied
    graph = scene.plan()
    assert sorted(k[0] for k in graph.images) == ["data", "file"], "one resource per image, drawn twice or not"
    assert all(isinstance(r, ImageResource) and r.pixels.shape == (r.height, r.width, 4) for r in graph.images.values())
    data = pickle.dumps(graph)
    array[...] = 0  # the sources change, or go: the graph has what it was planned with
    (tmp_path / "tile.png").unlink()
    again = pickle.loads(data)
    assert again == graph
    with Renderer() as elsewhere:
        elsewhere.gpu.activate()
        pixels, stats = elsewhere.executor.execute(again, frame=True)
        assert np.array_equal(pixels.premultiplied(), expected)
        assert stats.images_uploaded == 2


def test_a_graph_keeps_the_pixels_it_was_planned_with(tmp_path, rng):
    scene, array = _image_scene(tmp_path, rng)
    graph = scene.plan()
    (resource,) = [r for k, r in graph.images.items() if k[0] == "data"]
    planned = array.copy()
    array[...] = 7
    assert np.array_equal(resource.pixels[..., :4], planned), "copied from the caller's array"
    assert not resource.pixels.flags.writeable


def test_an_unchanged_image_is_uploaded_once(fresh, tmp_path, rng):
    scene, array = _image_scene(tmp_path, rng)
    first = scene.render(fresh)
    assert first.stats.images_uploaded == 2
    scene["array"].box = (6, 4, 26, 22)  # re-rastered, same pixels: the upload is kept
    scene["file"].style["border-radius"] = "9px"
    moved = scene.render(fresh)
    assert moved.graph.images and moved.stats.images_uploaded == 0
    array[0, 0] = (1, 2, 3, 255)  # changed in place: up again, that one
    assert scene.render(fresh).stats.images_uploaded == 1
