"""Edge cases: degenerate gradients, extreme values, anisotropic clips, big images,
resource lifetimes. Each once produced a wrong picture, an untyped error or a leak."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import RendererReleasedError

import lamina.images
from lamina import Layer, Renderer, Scene
from lamina.errors import TextureTooLargeError


def pixel(scene, gl, x, y):
    return tuple(int(v) for v in scene.render(gl).image[y, x])


def near(a, b, tol=1):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def test_repeating_gradient_with_zero_span_paints_the_average(gl):
    scene = Scene(20, 10, "white")
    scene.root.add(Layer("g", (0, 0, 20, 10), "background: repeating-linear-gradient(red 10px, blue 10px)"))
    assert near(pixel(scene, gl, 5, 5), (128, 0, 128, 255))


def test_radial_ellipse_with_zero_height_paints_the_last_colour(gl):
    scene = Scene(20, 11, "white")
    scene.root.add(Layer("g", (0, 0, 20, 11), "background: radial-gradient(50% 0%, red, blue)"))
    img = scene.render(gl).image
    assert np.all(img[..., :3] == (0, 0, 255))


def test_radial_ellipse_with_zero_width_is_a_mirrored_horizontal_gradient(gl):
    scene = Scene(20, 3, "white")
    scene.root.add(Layer("g", (0, 0, 20, 3), "background: radial-gradient(0% 50%, red, blue 5px)"))
    row = scene.render(gl).image[1].astype(int)
    # Pixel centre x + 0.5 lies |x + 0.5 - 10| px from the centre line; blue at 5px.
    for x in range(20):
        t = min(abs(x + 0.5 - 10) / 5, 1)
        assert near(row[x, :3], (round(255 * (1 - t)), 0, round(255 * t)), 1), x
    assert np.array_equal(row[:10, :3], row[10:, :3][::-1]), "mirrored at the centre"


def test_huge_radius_still_rounds(gl):
    scene = Scene(20, 20, "white")
    scene.root.add(Layer("a", (0, 0, 20, 20), "background: blue; border-radius: 1e308px"))
    assert pixel(scene, gl, 1, 1) == (255, 255, 255, 255)
    assert pixel(scene, gl, 10, 10) == (0, 0, 255, 255)


def test_far_gradient_stops_stay_finite(gl):
    scene = Scene(20, 4, "white")
    scene.root.add(Layer("a", (0, 0, 20, 4), "background: linear-gradient(to right, red -1e40px, blue 1e40px)"))
    assert near(pixel(scene, gl, 10, 2), (128, 0, 128, 255))


@pytest.mark.parametrize("scale", [1e4, 1e6])
def test_huge_scale_has_no_seams(gl, scale):
    scene = Scene(64, 64, "white")
    scene.root.add(Layer("a", (7, 7, 50, 50), f"background: red; transform: scale({scale})"))
    img = scene.render(gl).image
    assert np.all(img == (255, 0, 0, 255))


def test_clip_on_non_uniformly_scaled_layer_has_crisp_edges(gl):
    scene = Scene(64, 64, "white")
    clip = scene.root.add(
        Layer("c", (10, 10, 10, 40), "transform: scale(10, 1); transform-origin: 0 0; overflow: hidden")
    )
    clip.add(Layer("k", (-5, -5, 30, 60), "background: black"))
    row = scene.render(gl).image[30, :, 0]
    assert list(row[8:12]) == [255, 255, 0, 0], "the clip edge at x = 10 is one pixel sharp"
    col = scene.render(gl).image[:, 50, 0]
    assert list(col[8:12]) == [255, 255, 0, 0]
    assert list(col[48:52]) == [0, 0, 255, 255]


def test_image_larger_than_max_texture_size_is_typed(gl):
    limit = gl.limits.max_texture_size
    scene = Scene(32, 32)
    layer = scene.root.add(Layer("wide", (0, 0, 16, 16), image=np.zeros((1, limit + 1, 4), np.uint8)))
    with pytest.raises(TextureTooLargeError) as info:
        scene.render(gl)
    assert "wide" in str(info.value) and str(limit + 1) in str(info.value)
    layer.image = np.full((2, 2, 4), 255, np.uint8)
    assert pixel(scene, gl, 8, 8) == (255, 255, 255, 255), "the next frame renders"


def test_in_memory_image_is_decoded_and_uploaded_once_per_frame(gl, monkeypatch):
    calls = []
    real = lamina.images.load_image
    monkeypatch.setattr(lamina.images, "load_image", lambda *a, **k: calls.append(1) or real(*a, **k))
    shared = np.zeros((4, 4, 4), np.uint8)
    scene = Scene(32, 32)
    for i in range(3):
        scene.root.add(Layer(f"l{i}", (i * 8, 0, 4, 4), image=shared))
    frame = scene.render(gl)
    assert len(calls) == 1
    assert frame.stats.images_uploaded == 1
    shared[...] = 255  # changed in place: the next frame shows it
    assert pixel(scene, gl, 1, 1) == (255, 255, 255, 255)


def test_unused_images_and_textures_are_released(gl):
    scene = Scene(32, 32)
    layer = scene.root.add(Layer("pic", (0, 0, 8, 8)))
    for i in range(12):
        layer.image = np.full((4 + i, 4, 4), i, np.uint8)
        layer.box = (0, 0, 8 + i, 8)  # a new texture size every frame
        scene.render(gl)
    assert len(gl.images) == 1 and len(gl.executor._images) == 1
    assert gl.executor.pool.free_count <= 3 * gl.executor.pool.keep_frames + 3


def test_renderer_release(gl):
    renderer = Renderer()
    scene = Scene(8, 8, "red")
    assert pixel(scene, renderer, 0, 0) == (255, 0, 0, 255)
    renderer.release()
    with pytest.raises(RendererReleasedError, match="released"):  # typed (lamina.errors)
        scene.render(renderer)
    gl.gpu.check_errors("after releasing another renderer")
    assert pixel(scene, gl, 0, 0) == (255, 0, 0, 255)
