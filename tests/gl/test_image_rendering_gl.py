"""``image-rendering`` on the GPU: a 4x4 checker scaled 8x is drawn as hard-edged 8x8
blocks under ``pixelated`` / ``crisp-edges``, and bilinearly under ``auto`` as before.
Expected pixels are computed here with numpy, not by the renderer (against headless
Chromium: tests/chromium/test_image_rendering_chromium.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene


def checker(rng) -> np.ndarray:
    """A 4x4 opaque checker of two seeded random colours (an opaque image: the texture's
    premultiplication changes nothing)."""
    a, b = rng.integers(0, 256, size=(2, 3))
    img = np.empty((4, 4, 4), np.uint8)
    for y in range(4):
        for x in range(4):
            img[y, x, :3] = a if (x + y) % 2 == 0 else b
    img[..., 3] = 255
    return img


def blocks(img: np.ndarray, k: int) -> np.ndarray:
    """Each pixel of ``img`` as a k x k block: nearest-neighbour upscaling."""
    return np.repeat(np.repeat(img, k, axis=0), k, axis=1)


def bilinear(img: np.ndarray, k: int) -> np.ndarray:
    """``img`` scaled k times by bilinear sampling at pixel centres, edges clamped (one
    tile over the box: its sampler does not wrap, compositor.paint._visible_repeat)."""
    n = img.shape[0]
    centres = (np.arange(n * k) + 0.5) / k - 0.5
    i0 = np.clip(np.floor(centres).astype(int), 0, n - 1)
    i1 = np.clip(i0 + 1, 0, n - 1)
    f = np.clip(centres - np.floor(centres), 0.0, 1.0)
    f[centres < 0] = 0.0
    src = img.astype(float)
    rows = src[i0] * (1 - f)[:, None, None] + src[i1] * f[:, None, None]
    return rows[:, i0] * (1 - f)[None, :, None] + rows[:, i1] * f[None, :, None]


def draw(gl, img, style: str, size: int = 32) -> np.ndarray:
    scene = Scene(size, size, "white")
    scene.root.add(Layer("photo", (0, 0, size, size), f"background: no-repeat; background-size: {size}px {size}px;"
                                                      f" {style}", image=img))
    return scene.render(gl).image


@pytest.mark.parametrize("value", ["pixelated", "crisp-edges"])
def test_a_4x4_checker_scaled_8x_is_hard_edged_8x8_blocks(gl, rng, value):
    img = checker(rng)
    out = draw(gl, img, f"image-rendering: {value}")
    assert np.array_equal(out, blocks(img, 8))


@pytest.mark.parametrize("value", ["auto", "smooth", "high-quality"])
def test_auto_still_samples_bilinearly(gl, rng, value):
    img = checker(rng)
    out = draw(gl, img, f"image-rendering: {value}")
    assert np.array_equal(out, draw(gl, img, ""))  # the same as before the property existed
    diff = np.abs(out.astype(int) - bilinear(img, 8))
    assert diff.max() <= 1  # max_diff 0-1: the GPU filters in 8 bits (measured 0.83 levels at most)
    assert not np.array_equal(out, blocks(img, 8))


def test_pixelated_is_inherited_and_tiles_repeat_as_blocks(gl, rng):
    img = checker(rng)
    scene = Scene(32, 32, "white")
    parent = scene.root.add(Layer("parent", (0, 0, 32, 32), "image-rendering: pixelated"))
    parent.add(Layer("tiles", (0, 0, 32, 32), "background-size: 8px 8px", image=img))  # 2x, repeating
    out = scene.render(gl).image
    assert np.array_equal(out, np.tile(blocks(img, 2), (4, 4, 1)))


def test_setting_it_through_the_api_repaints(gl, rng):
    img = checker(rng)
    scene = Scene(32, 32, "white")
    photo = scene.root.add(Layer("photo", (0, 0, 32, 32), "background-size: 32px 32px", image=img))
    assert not np.array_equal(scene.render(gl).image, blocks(img, 8))
    photo.style["image-rendering"] = "pixelated"
    assert np.array_equal(scene.render(gl).image, blocks(img, 8))
    photo.style["image-rendering"] = "auto"
    assert not np.array_equal(scene.render(gl).image, blocks(img, 8))


def test_setting_it_on_an_ancestor_repaints_the_image_below(gl, rng):
    img = checker(rng)
    scene = Scene(32, 32, "white")
    group = scene.root.add(Layer("group", (0, 0, 32, 32)))
    group.add(Layer("photo", (0, 0, 32, 32), "background-size: 32px 32px", image=img))
    assert not np.array_equal(scene.render(gl).image, blocks(img, 8))
    group.style["image-rendering"] = "crisp-edges"  # inherited by the photo
    assert np.array_equal(scene.render(gl).image, blocks(img, 8))
