"""``background-origin`` and ``background-clip`` on the GPU. Expected pixels are computed
here with numpy, not by the renderer: where image tiles start (the border box's corner,
or the padding box's), what the border ring shows under a semi-transparent border (the
background, or only the page), and, with rounded corners, which side of the inner border
edge a pixel lies on. (Against headless Chromium:
tests/chromium/test_background_origin_clip_chromium.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene

W, H = 48, 40
TOP, RIGHT, BOTTOM, LEFT = 3, 6, 5, 8
BORDER_STYLE = f"border: solid rgba(0, 0, 255, 0.5); border-width: {TOP}px {RIGHT}px {BOTTOM}px {LEFT}px"
BORDER_RGBA = np.array([0.0, 0.0, 1.0, 0.5])


def opaque_image(rng, h: int = 5, w: int = 7) -> np.ndarray:
    """An opaque image of seeded random colours (its premultiplication changes nothing)."""
    img = rng.integers(0, 256, size=(h, w, 4), dtype=np.uint8)
    img[..., 3] = 255
    return img


def over(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Straight-alpha RGBA (floats 0-1) ``top`` over ``bottom``, bottom opaque."""
    a = top[..., 3:4]
    return np.concatenate([top[..., :3] * a + bottom[..., :3] * (1 - a), np.ones_like(a)], axis=-1)


def ring() -> np.ndarray:
    """The border ring of a square-cornered W x H box: True where the border paints."""
    yy, xx = np.mgrid[0:H, 0:W]
    return (xx < LEFT) | (xx >= W - RIGHT) | (yy < TOP) | (yy >= H - BOTTOM)


def render(gl, style: str, image=None, size=(W, H)) -> np.ndarray:
    scene = Scene(*size, "white")
    scene.root.add(Layer("box", (0, 0, *size), style, image=image))
    return scene.render(gl).image


@pytest.mark.parametrize("origin, start", [("border-box", (0, 0)), ("padding-box", (LEFT, TOP)),
                                           ("content-box", (LEFT, TOP))])
def test_image_tiles_start_at_the_origin_boxs_corner(gl, rng, origin, start):
    img = opaque_image(rng)
    out = render(gl, f"{BORDER_STYLE}; background-origin: {origin}", img)
    x0, y0 = start
    # Tile index of every pixel, counted from the origin box's corner (tiles repeat both ways).
    yy, xx = np.mgrid[0:H, 0:W]
    tiles = img[(yy - y0) % img.shape[0], (xx - x0) % img.shape[1]].astype(float) / 255
    expected = np.where(ring()[..., None], over(np.broadcast_to(BORDER_RGBA, tiles.shape), tiles), tiles)
    assert np.abs(out.astype(float) - expected * 255).max() <= 1.0


@pytest.mark.parametrize("origin, area", [("border-box", (0, 0, W, H)),
                                          ("padding-box", (LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM))])
def test_percentages_resolve_in_the_positioning_area(gl, rng, origin, area):
    img = opaque_image(rng, 4, 4)
    out = render(gl, f"{BORDER_STYLE}; border-color: transparent; background: no-repeat 100% 100% {origin}; "
                     "background-clip: border-box", img)
    x, y, w, h = area
    left, top = x + w - 4, y + h - 4  # the tile's corner: 100% of (area - tile)
    expected = np.full((H, W, 4), 255, np.uint8)
    expected[top:top + 4, left:left + 4] = img
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("clip", ["border-box", "padding-box", "content-box"])
def test_clip_decides_what_the_border_ring_shows(gl, clip):
    colour = np.array([1.0, 0.8, 0.0, 1.0])
    out = render(gl, f"{BORDER_STYLE}; background: rgb(255, 204, 0); background-clip: {clip}").astype(float)
    white = np.ones(4)
    under = white if clip != "border-box" else colour  # the page, or the background too
    expected = np.where(ring()[..., None], over(BORDER_RGBA, under), colour)
    assert np.abs(out - expected * 255).max() <= 1.0


def test_clip_follows_the_inner_border_edge_with_the_inner_radii(gl):
    """With rounded corners, the background ends at the inner border edge, whose radii
    are the outer ones less the border widths: pixels more than a pixel outside that
    rounded rect show only the border over the page, those more than a pixel inside the
    background, in the corners too."""
    r, b, size = 20, 8, 64
    out = render(gl, f"border: {b}px solid rgba(0, 0, 255, 0.5); border-radius: {r}px; "
                     "background: rgb(255, 204, 0) padding-box", size=(size, size)).astype(float)
    yy, xx = np.mgrid[0:size, 0:size] + 0.5
    lo, hi, ri = b + (r - b), size - b - (r - b), r - b  # the inner corners' centres, the inner radius
    cx, cy = np.clip(xx, lo, hi), np.clip(yy, lo, hi)
    in_corner = (xx != cx) & (yy != cy)
    edge = np.maximum(np.maximum(b - xx, xx - (size - b)), np.maximum(b - yy, yy - (size - b)))
    distance = np.where(in_corner, np.hypot(xx - cx, yy - cy) - ri, edge)  # signed, to the inner edge
    ocx, ocy = np.clip(xx, r, size - r), np.clip(yy, r, size - r)
    inside_outer = np.where((xx != ocx) & (yy != ocy), np.hypot(xx - ocx, yy - ocy) - r, -1.0) < -1.0
    bare = over(BORDER_RGBA, np.ones(4)) * 255
    background = np.array([255.0, 204.0, 0.0, 255.0])
    outside_inner = (distance > 1.0) & inside_outer
    # Inside the square padding box but outside its rounded corners: the inner radii clip.
    cut = outside_inner & (xx > b) & (xx < size - b) & (yy > b) & (yy < size - b)
    assert cut.sum() >= 20
    assert np.abs(out[outside_inner] - bare).max() <= 1.0
    assert np.abs(out[distance < -1.0] - background).max() <= 1.0


def test_the_shorthands_one_box_sets_both(gl, rng):
    img = opaque_image(rng)
    longhands = render(gl, f"{BORDER_STYLE}; background-origin: border-box; background-clip: border-box", img)
    assert np.array_equal(render(gl, f"{BORDER_STYLE}; background: border-box", img), longhands)
    padded = render(gl, f"{BORDER_STYLE}; background-origin: padding-box; background-clip: padding-box", img)
    assert np.array_equal(render(gl, f"{BORDER_STYLE}; background: padding-box", img), padded)
    assert not np.array_equal(longhands, padded)


def test_initial_values_render_as_before(gl, rng):
    img = opaque_image(rng)
    style = f"{BORDER_STYLE}; border-radius: 12px; background-color: rgb(255, 204, 0)"
    explicit = f"{style}; background-origin: padding-box; background-clip: border-box"
    assert np.array_equal(render(gl, explicit, img), render(gl, style, img))


def test_setting_them_through_the_api_repaints(gl, rng):
    img = opaque_image(rng)
    scene = Scene(W, H, "white")
    box = scene.root.add(Layer("box", (0, 0, W, H), BORDER_STYLE, image=img))
    before = scene.render(gl).image
    box.style["background-clip"] = "padding-box"
    box.style["background-origin"] = "border-box"
    after = scene.render(gl).image
    fresh = render(gl, f"{BORDER_STYLE}; background-clip: padding-box; background-origin: border-box", img)
    assert np.array_equal(after, fresh) and not np.array_equal(after, before)
    box.style["background-clip"] = "border-box"
    box.style["background-origin"] = "padding-box"
    assert np.array_equal(scene.render(gl).image, before)
