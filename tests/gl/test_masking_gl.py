"""clip-path and mask-image on the GPU, against independently computed coverage
(tests.coverage_reference: exact chords and point-in-polygon spans along fine vertical
lines) and the spec's formulas: within 2 levels at the edges, exact inside."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene, filters
from lamina.framegraph import SurfaceReason, TextureRole
from tests import coverage_reference as cref
from tests import reference as ref

W, H = 100, 80
GRADIENT = "linear-gradient(to right, black, transparent)"


def coverage_of(frame) -> np.ndarray:
    """Black drawn over white: the red channel says how much of each pixel is covered."""
    return (255.0 - frame.image[..., 0].astype(np.float64)) / 255.0


def levels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b) * 255.0


def clipped(gl, style: str, box=(10.4, 7.7, 80, 70), child=None):
    scene = Scene(W, H, "white")
    layer = scene.root.add(Layer("a", box, "background: black; " + style))
    if child is not None:
        layer.add(Layer("child", child, "background: black"))
    return scene.render(gl)


@pytest.mark.parametrize("style, expected", [
    # the layer sits at (10.4, 7.7): centres are in its own px, expected ones on screen
    ("clip-path: circle(30.3px at 37.2px 38.6px)", (47.6, 46.3, 30.3, 30.3)),
    # 40% of sqrt(80² + 70²) / sqrt(2); at 50% 50% by default
    ("clip-path: circle(40%)", (50.4, 42.7, 0.4 * np.hypot(80, 70) / np.sqrt(2), None)),
    ("clip-path: circle(closest-side at 30% 60%)", (34.4, 49.7, 24.0, None)),
    ("clip-path: ellipse(33.3px 20.7px at 40.2px 30.6px)", (50.6, 38.3, 33.3, 20.7)),
    ("clip-path: ellipse(closest-side farthest-side at 45% 40%)", (46.4, 35.7, 36.0, 42.0)),
])
def test_circles_and_ellipses_match_analytic_coverage(gl, style, expected):
    cx, cy, rx, ry = expected
    frame = clipped(gl, style)
    shape = cref.ellipse(W, H, cx, cy, rx, ry if ry is not None else rx) * ref.box_coverage(W, H, 10.4, 7.7, 80, 70)
    diff = levels(coverage_of(frame), shape)
    assert diff.max() <= 2.0, f"max {diff.max():.2f} levels at {np.unravel_index(diff.argmax(), diff.shape)}"
    assert all(p.target.role is not TextureRole.MASK for p in frame.graph.raster_passes()), "a clip, not a mask"


@pytest.mark.parametrize("transform", ["rotate(33deg)", "rotate(-70deg) scale(1.5)", "skewX(20deg)"])
def test_a_transformed_circle_is_measured_in_screen_pixels(gl, transform):
    """The edge is measured through the layer's mapping (its Jacobian): a circle centred
    on the transform-origin stays a circle (an ellipse under skew: not tested there) and
    keeps area coverage, turned or scaled."""
    if transform.startswith("skew"):
        frame = clipped(gl, f"clip-path: circle(20px); transform: {transform}", box=(10, 0, 80, 80))
        assert coverage_of(frame)[40, 50] == 1.0 and coverage_of(frame)[2, 50] == 0.0
        return
    scale = 1.5 if "scale" in transform else 1.0
    frame = clipped(gl, f"clip-path: circle(20px); transform: {transform}", box=(10.3, 0.2, 80, 80))
    diff = levels(coverage_of(frame), cref.ellipse(W, H, 50.3, 40.2, 20 * scale, 20 * scale))
    assert diff.max() <= 2.0, f"max {diff.max():.2f} levels"


def test_inset_with_round_matches_a_rounded_rect(gl):
    frame = clipped(gl, "clip-path: inset(10.5px 12px 8px 6.25px round 9px)")
    expected = cref.rounded_rect(W, H, 10.4 + 6.25, 7.7 + 10.5, 10.4 + 80 - 12, 7.7 + 70 - 8, 9.0)
    assert levels(coverage_of(frame), expected).max() <= 2.0


POLYGONS = {
    "concave": ([(10.3, 5.2), (90.7, 12.1), (60.2, 70.4), (30.5, 40.0), (5.1, 75.3)], False),
    "star nonzero": (cref.star(50.2, 40.3, 37.6), False),
    "star evenodd": (cref.star(50.2, 40.3, 37.6), True),
    "bow tie evenodd": ([(8.5, 6.5), (92.25, 70.5), (92.25, 8.0), (8.5, 72.5)], True),
}


@pytest.mark.parametrize("name", POLYGONS)
def test_polygons_match_point_in_polygon_coverage(gl, name):
    points, evenodd = POLYGONS[name]
    ox, oy = 0.35, 0.6  # the layer's fractional position: the mask is rastered at it
    css = ", ".join(f"{x - ox:.4f}px {y - oy:.4f}px" for x, y in points)
    rule = "evenodd, " if evenodd else ""
    frame = clipped(gl, f"clip-path: polygon({rule}{css})", box=(ox, oy, W, H))
    diff = levels(coverage_of(frame), cref.polygon(W, H, points, evenodd))
    assert diff.max() <= 2.0, f"max {diff.max():.2f} levels at {np.unravel_index(diff.argmax(), diff.shape)}"
    assert [p.reason for p in frame.graph.raster_passes() if p.target.role is TextureRole.MASK] == [
        "clip-path polygon of layer a (" + ("evenodd" if evenodd else "nonzero") + ")"]


def test_the_star_fill_rules_differ_where_the_middle_is_wound_twice(gl):
    points = cref.star(50, 40, 36)
    css = ", ".join(f"{x}px {y}px" for x, y in points)
    nonzero = coverage_of(clipped(gl, f"clip-path: polygon({css})", box=(0, 0, W, H)))
    evenodd = coverage_of(clipped(gl, f"clip-path: polygon(evenodd, {css})", box=(0, 0, W, H)))
    assert nonzero[40, 50] == 1.0 and evenodd[40, 50] == 0.0
    assert nonzero[10, 50] == evenodd[10, 50] == 1.0  # a point of the star: wound once


@pytest.mark.parametrize("clip", ["circle(30px at 40px 30px)", "polygon(0 0, 80px 0, 80px 60px, 0 70px)"])
def test_descendants_are_clipped_too(gl, clip):
    """A child overflowing its parent's box shows only inside the parent's clip-path
    (a clip in the chain for the circle, a mask surface for the polygon)."""
    frame = clipped(gl, f"clip-path: {clip}", box=(10, 5, 40, 40), child=(20, 20, 50, 50))
    boxes = np.maximum(ref.box_coverage(W, H, 10, 5, 40, 40), ref.box_coverage(W, H, 30, 25, 50, 50))
    reasons = {p.reason for p in frame.graph.composite_passes()}
    if clip.startswith("circle"):
        shape = cref.ellipse(W, H, 50, 35, 30, 30)
        assert SurfaceReason.MASK not in reasons, "no surface for a rounded clip-path"
    else:
        shape = cref.polygon(W, H, [(10, 5), (90, 5), (90, 65), (10, 75)])
        assert SurfaceReason.MASK in reasons
    assert levels(coverage_of(frame), boxes * shape).max() <= 2.0


@pytest.mark.parametrize("clip", ["inset(0)", "polygon(0 0, 100% 0, 100% 100%, 0 100%)"])
def test_clip_path_on_a_filtered_element_clips_the_filtered_result(gl, clip):
    def build(style: str) -> Scene:
        scene = Scene(80, 60, "transparent")
        scene.root.add(Layer("f", (20, 15, 40, 30), "background: rgb(200 30 60); " + style))
        return scene

    chain = "blur(3px)"
    unfiltered = build("").render(gl).premultiplied / 255.0
    expected = filters.reference.apply_premultiplied(unfiltered, filters.parse(chain))
    expected = np.rint(expected * ref.box_coverage(80, 60, 20, 15, 40, 30)[..., None] * 255)
    frame = build(f"filter: {chain}; clip-path: {clip}").render(gl)
    assert np.abs(frame.premultiplied.astype(int) - expected).max() <= 2
    assert frame.premultiplied[30, 17, 3] == 0, "the blur's halo outside the box is clipped away"
    unclipped = build(f"filter: {chain}").render(gl)
    assert unclipped.premultiplied[30, 17, 3] > 0, "(it is there without the clip-path)"


def test_a_gradient_mask_multiplies_alpha(gl):
    scene = Scene(120, 40, "transparent")
    scene.root.add(Layer("m", (10, 10, 100, 20), f"background: red; mask-image: {GRADIENT}"))
    frame = scene.render(gl)
    alpha = frame.premultiplied[20, 10:110, 3].astype(np.float64)
    expected = (1.0 - (np.arange(100) + 0.5) / 100.0) * 255.0  # the gradient at each pixel centre
    assert np.abs(alpha - expected).max() <= 1.0
    assert frame.premultiplied[9, 50, 3] == 0 and frame.premultiplied[30, 50, 3] == 0


def _mask_png(tmp_path, rng) -> tuple[str, np.ndarray]:
    pixels = rng.integers(0, 256, (8, 16, 4), dtype=np.uint8)
    pixels[0, :, 3] = 255  # some opaque, so luminance alone shows
    path = tmp_path / "mask.png"
    Image.fromarray(pixels, "RGBA").save(path)
    return str(path), pixels.astype(np.float64) / 255.0


@pytest.mark.parametrize("mode", ["luminance", "alpha", "match-source"])
def test_image_masks_by_luminance_or_alpha(gl, tmp_path, rng, mode):
    """CSS Masking 1 §6.3: an alpha mask is the image's alpha; a luminance mask is
    0.2125 R + 0.7154 G + 0.0721 B (the luminanceToAlpha coefficients, on sRGB values)
    times alpha. match-source is alpha for an image."""
    path, pixels = _mask_png(tmp_path, rng)
    scene = Scene(20, 12, "transparent")
    scene.root.add(Layer("m", (2, 3, 16, 8), f"background: white; mask: url('{path}') no-repeat {mode}"))
    got = scene.render(gl).premultiplied[3:11, 2:18, 3].astype(np.float64)
    rgb, a = pixels[..., :3], pixels[..., 3]
    if mode == "luminance":
        expected = (rgb @ np.array([0.2125, 0.7154, 0.0721])) * a
    else:
        expected = a
    # The image is premultiplied to 8 bits on upload and the mask stored in 8 bits.
    assert np.abs(got - expected * 255.0).max() <= 2.0


def test_mask_size_position_and_repeat_place_the_mask_like_a_background(gl):
    """The mask is painted by the background machinery: its alpha is the alpha a layer
    with the same image as its background-image, sized and tiled the same, shows."""
    settings = "{0}-size: 22px 9px; {0}-position: 5px 3px; {0}-repeat: repeat-x"
    grad = "radial-gradient(black, transparent)"
    scene = Scene(100, 40, "transparent")
    scene.root.add(Layer("masked", (0, 0, 100, 20), f"background: white; mask-image: {grad}; " + settings.format("mask")))
    scene.root.add(Layer("painted", (0, 20, 100, 20), f"background-image: {grad}; " + settings.format("background")))
    img = scene.render(gl).premultiplied[..., 3].astype(int)
    assert np.abs(img[:20] - img[20:]).max() <= 1
    assert img[:20].max() > 200 and img[:3].max() == 0  # placed: nothing above the first row of tiles


def test_one_masked_layer_draws_the_same_with_or_without_a_surface(gl):
    def build(child: bool) -> Scene:
        scene = Scene(90, 60, "#28a")
        layer = scene.root.add(Layer("m", (10.5, 5, 70, 50), "background: #fc3; mask-image: radial-gradient(black 40%, "
                                     "transparent); clip-path: polygon(0 0, 100% 10%, 80% 100%); opacity: .8"))
        if child:  # the same paint again: now two drawing layers, so a surface
            layer.add(Layer("same", (0, 0, 70, 50), "background: #fc3"))
        return scene

    alone, grouped = build(False).render(gl), build(True).render(gl)
    assert not [p for p in alone.graph.composite_passes() if p.reason is SurfaceReason.MASK]
    assert [p for p in grouped.graph.composite_passes() if p.reason is SurfaceReason.MASK]
    # The group is flattened before it fades: the same layer twice is the same layer.
    assert np.abs(alone.image.astype(int) - grouped.image.astype(int)).max() <= 1


def test_a_mask_over_a_blending_element(gl):
    """The masked element blends (multiply) where the mask lets it: the result is the
    backdrop mixed with the blended colour by the mask value (Compositing 1 is linear in
    the source's coverage)."""
    scene = Scene(120, 50, "white")
    scene.root.add(Layer("bands", (0, 0, 120, 50), "background: linear-gradient(90deg, #e22 50%, #2ae 50%)"))
    scene.root.add(Layer("m", (10, 10, 100, 30), f"background: #ff0; mix-blend-mode: multiply; mask-image: {GRADIENT}"))
    img = scene.render(gl).image[25, 10:110, :3].astype(np.float64) / 255.0
    backdrop = np.where((np.arange(10, 110) < 60)[:, None], [0xEE / 255, 0x22 / 255, 0x22 / 255],
                        [0x22 / 255, 0xAA / 255, 0xEE / 255])
    m = (1.0 - (np.arange(100) + 0.5) / 100.0)[:, None]
    expected = backdrop * (1 - m) + backdrop * np.array([1.0, 1.0, 0.0]) * m
    assert np.abs(img - expected).max() * 255 <= 2.0


def test_a_blend_inside_a_masked_group_reads_the_group(gl):
    scene = Scene(120, 50, "white")
    group = scene.root.add(Layer("g", (10, 10, 100, 30), f"background: #888; mask-image: {GRADIENT}"))
    group.add(Layer("y", (0, 0, 100, 30), "background: #ff0; mix-blend-mode: multiply"))
    img = scene.render(gl).image[25, 10:110, :3].astype(np.float64) / 255.0
    m = (1.0 - (np.arange(100) + 0.5) / 100.0)[:, None]
    inside = np.array([0x88, 0x88, 0]) / 255.0  # yellow multiplied with the group's grey
    assert np.abs(img - (1 - m + inside * m)).max() * 255 <= 2.0



@pytest.mark.parametrize("style", [
    "clip-path: circle(30px at 40px 30px)",
    "clip-path: polygon(0 0, 100% 10%, 60% 100%)",
    f"mask-image: {GRADIENT}",
])
def test_moving_a_clipped_or_masked_layer_rasters_nothing(fresh, style):
    scene = Scene(140, 100, "white")
    layer = scene.root.add(Layer("a", (10, 10, 80, 60), f"background: #36c; will-change: transform; {style}"))
    layer.add(Layer("child", (40, 30, 60, 40), "background: orange"))
    first = scene.render(fresh)
    before = first.image.copy()
    layer.style["transform"] = "translate(30px, 20px)"
    moved = scene.render(fresh)
    assert moved.graph.raster_passes() == [], [p.name for p in moved.graph.raster_passes()]
    assert moved.stats.textures_allocated <= 1  # at most the surface's texture, pooled
    assert np.array_equal(moved.image[30:, 40:], before[10:-20, 10:-30]), "the same pixels, moved"
