"""Pixels against independently computed values: colours, gradients, transforms,
rounded corners, borders, images, clipping, group opacity, paint order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.errors import ImageLoadError
from tests import reference as ref


def render(scene, gl):
    frame = scene.render(gl)
    assert frame.image.shape == (scene.height, scene.width, 4)
    assert frame.image.dtype == np.uint8
    return frame.image.astype(int)


def near(actual, expected, tol=1):
    return np.all(np.abs(np.asarray(actual, int) - np.asarray(expected, int)) <= tol)


def test_half_opacity_red_over_white(gl):
    scene = Scene(20, 20, "white")
    scene.root.add(Layer("red", (0, 0, 20, 20), "background-color: red; opacity: 0.5"))
    img = render(scene, gl)
    assert near(img[10, 10], (255, 128, 128, 255))
    assert near(img.reshape(-1, 4).min(0), (255, 127, 127, 255)), "uniform everywhere"


def test_alpha_in_colour_equals_opacity(gl):
    a = Scene(8, 8, "white")
    a.root.add(Layer("x", (0, 0, 8, 8), "background-color: rgb(0 0 255 / 40%)"))
    b = Scene(8, 8, "white")
    b.root.add(Layer("x", (0, 0, 8, 8), "background-color: blue; opacity: .4"))
    assert near(render(a, gl), render(b, gl), 1)


def test_transparent_scene_background_reads_back_transparent(gl):
    scene = Scene(6, 6, "transparent")
    scene.root.add(Layer("x", (0, 0, 3, 6), "background-color: rgb(10 200 30 / 50%)"))
    img = render(scene, gl)
    assert near(img[3, 1], (10, 200, 30, 128), 1), "straight colour survives premultiplication"
    assert np.all(img[:, 3:] == 0)


@pytest.mark.parametrize("width", [100, 101, 256])
def test_linear_gradient_matches_formula(gl, width):
    scene = Scene(width, 4, "white")
    scene.root.add(Layer("g", (0, 0, width, 4), "background: linear-gradient(to right, red, blue)"))
    img = render(scene, gl)
    t = (np.arange(width) + 0.5) / width  # pixel centres along the gradient line
    expected_r = np.rint(255 * (1 - t))
    expected_b = np.rint(255 * t)
    assert np.max(np.abs(img[2, :, 0] - expected_r)) <= 1
    assert np.max(np.abs(img[2, :, 2] - expected_b)) <= 1
    mid = width // 2
    assert near(img[2, mid, :3], (expected_r[mid], 0, expected_b[mid]))


def test_gradient_to_transparent_interpolates_premultiplied(gl):
    # Premultiplied interpolation: red fades out without going grey/dark (CSS Images 3).
    scene = Scene(100, 2, "white")
    scene.root.add(Layer("g", (0, 0, 100, 2), "background: linear-gradient(90deg, red, transparent)"))
    img = render(scene, gl)
    t = (np.arange(100) + 0.5) / 100
    assert np.all(img[0, :, 0] == 255)
    assert np.max(np.abs(img[0, :, 1] - np.rint(255 * t))) <= 1
    assert np.max(np.abs(img[0, :, 2] - np.rint(255 * t))) <= 1


def test_gradient_stops_and_hard_edge(gl):
    scene = Scene(100, 2, "white")
    scene.root.add(
        Layer("g", (0, 0, 100, 2), "background: linear-gradient(to right, black 30%, white 30% 60%, red 60%)")
    )
    img = render(scene, gl)
    assert np.all(img[0, :30, :3] == 0)
    assert np.all(img[0, 30:60, :3] == 255)
    assert np.all(img[0, 60:] == (255, 0, 0, 255))


def test_radial_gradient_centre_and_edge(gl):
    scene = Scene(101, 101, "white")
    scene.root.add(
        Layer("g", (0, 0, 101, 101), "background: radial-gradient(circle closest-side, black, white)")
    )
    img = render(scene, gl)
    assert np.all(img[50, 50, :3] <= 2)
    # At distance d from the centre the grey level is 255 * d / 50.5.
    for d in (10, 25, 40):
        expected = 255 * (d) / 50.5
        assert abs(img[50, 50 + d, 0] - expected) <= 1.5
    assert np.all(img[0, 0, :3] == 255), "beyond the last stop: last colour"


def test_rotated_square_centre_and_corners(gl):
    scene = Scene(200, 200, "white")
    scene.root.add(Layer("sq", (50, 50, 100, 100), "background-color: black; transform: rotate(45deg)"))
    img = render(scene, gl)
    half_diag = 50 * math.sqrt(2)
    assert np.all(img[100, 100, :3] == 0), "centre"
    # The rotated square's corners point up, down, left and right of the centre.
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        inside = (int(100 + dx * (half_diag - 3)), int(100 + dy * (half_diag - 3)))
        outside = (int(100 + dx * (half_diag + 3)), int(100 + dy * (half_diag + 3)))
        assert np.all(img[inside[1], inside[0], :3] <= 10), (dx, dy)
        assert np.all(img[outside[1], outside[0], :3] == 255), (dx, dy)
    # The corners of the unrotated box are now outside the diamond.
    for x, y in ((52, 52), (147, 52), (52, 147), (147, 147)):
        assert np.all(img[y, x, :3] == 255)
    # Anti-aliased edges: the coverage integrates to the square's area.
    coverage = (255 - img[..., 0]).sum() / 255
    assert abs(coverage - 100 * 100) / 10000 < 0.01


def test_transform_origin_top_left(gl):
    scene = Scene(100, 100, "white")
    scene.root.add(
        Layer("sq", (50, 50, 20, 10), "background-color: black; transform: rotate(90deg); transform-origin: 0 0")
    )
    img = render(scene, gl)
    # rotate(90deg) about (50, 50): x' = 50 - (y - 50), so the box covers x 40..50, y 50..70.
    assert np.all(img[50:70, 40:50, :3] == 0)
    assert np.all(img[50:70, 50:60, :3] == 255)


def test_translate_percent_and_scale(gl):
    scene = Scene(100, 100, "white")
    scene.root.add(
        Layer("sq", (10, 10, 20, 20), "background-color: black; transform: translate(50%, 100%) scale(2)")
    )
    img = render(scene, gl)
    # Local p -> origin + (10, 20) + 2 (p - origin), origin = (10, 10), then the box
    # offset (10, 10): x 0..20 -> 10..50, y 0..20 -> 20..60.
    assert np.all(img[20:60, 10:50, :3] == 0)
    assert np.all(img[20:60, 50:60, :3] == 255)
    assert np.all(img[10:20, 10:50, :3] == 255)


def _circle_coverage(size: int, r: float, samples: int = 16) -> np.ndarray:
    """Supersampled area coverage of a disc of radius r centred in a size x size box."""
    offs = (np.arange(samples) + 0.5) / samples
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)
    cov = np.zeros((size, size))
    for oy in offs:
        for ox in offs:
            cov += ((xs + ox - size / 2) ** 2 + (ys + oy - size / 2) ** 2) <= r * r
    return cov / samples**2


def test_rounded_corners_coverage(gl):
    scene = Scene(100, 100, "transparent")
    scene.root.add(Layer("disc", (0, 0, 100, 100), "background-color: black; border-radius: 50%"))
    img = render(scene, gl)
    alpha = img[..., 3] / 255.0
    assert abs(alpha.sum() - math.pi * 50**2) / (math.pi * 50**2) < 0.002
    expected = _circle_coverage(100, 50.0)
    diff = np.abs(alpha - expected)
    assert diff.max() <= 0.06, "edge coverage within 6% of the exact area per pixel"
    assert alpha[0, 0] == 0 and alpha[50, 50] == 1
    assert alpha[50, 0] > 0.4, "the disc touches the box edge at mid-height"


def test_elliptical_and_per_corner_radii(gl):
    scene = Scene(100, 60, "transparent")
    scene.root.add(
        Layer("b", (0, 0, 100, 60), "background-color: black; border-radius: 40px 0 0 0 / 20px 0 0 0")
    )
    img = render(scene, gl)
    a = img[..., 3]
    assert a[0, 99] == 255 and a[59, 0] == 255 and a[59, 99] == 255, "square corners"
    assert a[0, 0] == 0 and a[2, 5] == 0, "elliptical corner cut"
    assert a[0, 45] == 255 and a[25, 0] == 255, "beyond the 40x20 ellipse"
    # Against the supersampled area of the ellipse (x-40)^2/40^2 + (y-20)^2/20^2 <= 1.
    n = 16
    offs = (np.arange(n) + 0.5) / n
    ys, xs = np.mgrid[0:20, 0:40].astype(np.float64)
    cov = np.zeros((20, 40))
    for oy in offs:
        for ox in offs:
            cov += ((xs + ox - 40) / 40) ** 2 + ((ys + oy - 20) / 20) ** 2 <= 1
    cov /= n * n
    assert np.max(np.abs(a[:20, :40] / 255.0 - cov)) <= 0.08


def test_border_and_inner_radius(gl):
    scene = Scene(60, 60, "white")
    scene.root.add(
        Layer("b", (0, 0, 60, 60), "background-color: blue; border: 10px solid rgb(255 0 0); border-radius: 20px")
    )
    img = render(scene, gl)
    assert near(img[30, 5], (255, 0, 0, 255)), "left border"
    assert near(img[5, 30], (255, 0, 0, 255)), "top border"
    assert near(img[30, 30], (0, 0, 255, 255)), "inside"
    # Inner radius is 20 - 10 = 10: at (12, 12) we are outside the inner rounded corner.
    assert near(img[12, 12], (255, 0, 0, 255))
    assert near(img[0, 0], (255, 255, 255, 255)), "outside the outer corner"


def test_semi_transparent_border_over_background(gl):
    scene = Scene(20, 20, "white")
    scene.root.add(Layer("b", (0, 0, 20, 20), "background: blue; border: 5px solid rgb(255 0 0 / 50%)"))
    img = render(scene, gl)
    # Border paints over the background (background-clip: border-box).
    assert near(img[2, 10], (128, 0, 127, 255))


def test_image_drawn_one_to_one(gl, rng):
    pixels = rng.integers(0, 256, size=(23, 31, 3), dtype=np.uint8)
    scene = Scene(40, 30, "white")
    scene.root.add(Layer("img", (4, 3, 31, 23), image=pixels))
    img = render(scene, gl)
    assert np.array_equal(img[3:26, 4:35, :3], pixels.astype(int))
    assert np.all(img[0:3] == 255)


def test_image_with_alpha_over_white(gl, rng):
    pixels = rng.integers(0, 256, size=(16, 16, 4), dtype=np.uint8)
    scene = Scene(16, 16, "white")
    scene.root.add(Layer("img", (0, 0, 16, 16), image=pixels))
    img = render(scene, gl)
    canvas = ref.blank(16, 16)
    a = pixels[..., 3:4] / 255.0
    premult = np.rint(pixels[..., :3] * a) / 255.0  # the uploaded texture is premultiplied RGBA8
    canvas[..., :3] = premult + canvas[..., :3] * (1 - a)
    expected = ref.to_straight_u8(canvas)
    assert np.max(np.abs(img - expected)) <= 1


def test_image_file_cover_and_repeat(gl, tmp_path):
    from PIL import Image

    checker = np.zeros((2, 2, 3), np.uint8)
    checker[0, 0] = checker[1, 1] = 255
    Image.fromarray(checker).save(tmp_path / "c.png")
    scene = Scene(8, 8, "black", base_dir=tmp_path)
    scene.root.add(Layer("tiles", (0, 0, 8, 8), "background-image: url(c.png)"))
    img = render(scene, gl)
    expected = np.tile(checker, (4, 4, 1))
    assert np.array_equal(img[..., :3], expected), "auto size tiles at natural size"

    scene = Scene(8, 8, "black", base_dir=tmp_path)
    scene.root.add(Layer("one", (0, 0, 8, 8), "background: url('c.png') no-repeat; background-size: 4px 4px"))
    img = render(scene, gl)
    assert np.all(img[4:, :, :3] == 0) and np.all(img[:, 4:, :3] == 0), "no-repeat paints one tile"
    assert np.all(img[0, 0, :3] == 255) and np.all(img[3, 3, :3] == 255)


@pytest.mark.parametrize("size", ["cover", "100% 100%", "contain"])
def test_a_single_covering_tile_does_not_bleed_at_the_box_edges(gl, size):
    # A 2x2 image stretched over a 12x12 box: the last column is the image's right
    # column (clamped), not blended with its left column as a repeating tile would be.
    pixels = np.array([[[255, 0, 0], [0, 0, 255]], [[255, 0, 0], [0, 0, 255]]], np.uint8)
    scene = Scene(12, 12, "white")
    scene.root.add(Layer("img", (0, 0, 12, 12), f"background-size: {size}", image=pixels))
    img = render(scene, gl)
    assert tuple(img[6, 11, :3]) == (0, 0, 255) and tuple(img[6, 0, :3]) == (255, 0, 0)
    assert np.all(img[:, :3, 0] == 255) and np.all(img[:, -3:, 2] == 255)


def test_a_covering_gradient_tile_adds_no_edge_coverage_of_its_own(gl):
    # A box from x = 0.5 to 10.5: its last pixel is half covered, whatever paints it.
    # (Treating the tile's edge as an edge too made it a quarter: found by a golden.)
    scene = Scene(12, 4, "black")
    scene.root.add(Layer("g", (0.5, 0, 10, 4), "background: linear-gradient(white, white)"))
    img = render(scene, gl)
    assert abs(int(img[2, 10, 0]) - 128) <= 1 and abs(int(img[2, 0, 0]) - 128) <= 1
    assert np.all(img[2, 1:10, 0] == 255)


def test_missing_image_file_is_a_typed_error(gl, tmp_path):
    scene = Scene(8, 8, base_dir=tmp_path)
    scene.root.add(Layer("photo", (0, 0, 8, 8), "background-image: url(nope.png)"))
    with pytest.raises(ImageLoadError) as info:
        scene.render(gl)
    assert "photo" in str(info.value) and "nope.png" in str(info.value)


def test_group_opacity_differs_from_per_child_opacity(gl):
    def build(group: bool) -> Scene:
        scene = Scene(60, 40, "white")
        parent = scene.root.add(Layer("group", (0, 0, 60, 40), "opacity: 0.5" if group else None))
        child_style = "" if group else "; opacity: 0.5"
        parent.add(Layer("red", (0, 0, 40, 40), "background-color: red" + child_style))
        parent.add(Layer("blue", (20, 0, 40, 40), "background-color: blue" + child_style))
        return scene

    grouped = render(build(True), gl)
    separate = render(build(False), gl)
    # Grouped: the overlap shows only blue (flattened, then faded) = 50% blue over white.
    assert near(grouped[20, 30], (128, 128, 255, 255))
    # Per child: 50% blue over 50% red over white.
    canvas = ref.blank(1, 1)
    canvas = ref.over(canvas, (1, 0, 0, 1), np.ones((1, 1)), 0.5)
    canvas = ref.over(canvas, (0, 0, 1, 1), np.ones((1, 1)), 0.5)
    assert near(separate[20, 30], ref.to_straight_u8(canvas)[0, 0])
    assert not near(grouped[20, 30], separate[20, 30], 10)
    # Outside the overlap both agree.
    assert near(grouped[20, 5], separate[20, 5]) and near(grouped[20, 55], separate[20, 55])


def test_nested_opacity_multiplies(gl):
    scene = Scene(10, 10, "white")
    outer = scene.root.add(Layer("outer", (0, 0, 10, 10), "opacity: 0.5"))
    outer.add(Layer("inner", (0, 0, 10, 10), "background: black; opacity: 0.5"))
    img = render(scene, gl)
    assert near(img[5, 5], (191, 191, 191, 255))


def test_overflow_hidden_clips_descendants_to_padding_box(gl):
    scene = Scene(100, 100, "white")
    box = scene.root.add(
        Layer("clip", (20, 20, 60, 60), "overflow: hidden; border: 5px solid black; background: white")
    )
    box.add(Layer("big", (-50, -50, 200, 200), "background: red"))
    img = render(scene, gl)
    assert np.all(img[10, 10, :3] == 255), "outside the clip"
    assert near(img[22, 50], (0, 0, 0, 255)), "the border is not covered by the clipped child"
    assert near(img[50, 50], (255, 0, 0, 255)), "inside the padding box"
    assert np.all(img[26:74, 26:74, :3] == (255, 0, 0))


def test_rounded_clip_on_rotated_parent(gl):
    scene = Scene(120, 120, "white")
    clip = scene.root.add(
        Layer("clip", (20, 20, 80, 80), "overflow: hidden; border-radius: 50%; transform: rotate(30deg)")
    )
    clip.add(Layer("fill", (0, 0, 80, 80), "background: black; transform: rotate(-30deg) scale(2)"))
    img = render(scene, gl)
    alpha = (255 - img[..., 0]) / 255.0
    assert abs(alpha.sum() - math.pi * 40**2) / (math.pi * 40**2) < 0.01, "the disc-shaped clip survives rotation"
    assert np.all(img[60, 60, :3] == 0) and np.all(img[22, 22, :3] == 255)


def test_clip_is_not_applied_to_the_clipping_layer_itself(gl):
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("c", (10, 10, 20, 20), "overflow: hidden; background: black; border-radius: 0"))
    img = render(scene, gl)
    assert np.all(img[10:30, 10:30, :3] == 0)


def test_z_index_paint_order(gl):
    scene = Scene(30, 10, "white")
    a = scene.root.add(Layer("a", (0, 0, 30, 10), "background: red; z-index: 2"))
    scene.root.add(Layer("b", (0, 0, 20, 10), "background: lime; z-index: 1"))
    holder = scene.root.add(Layer("holder", (0, 0, 30, 10)))
    holder.add(Layer("c", (0, 0, 10, 10), "background: blue; z-index: 3"))
    img = render(scene, gl)
    assert near(img[5, 5], (0, 0, 255, 255)), "z 3 hoisted out of a non-stacking parent"
    assert near(img[5, 15], (255, 0, 0, 255)), "z 2 above z 1"
    del a.style["z-index"]
    img = render(scene, gl)
    assert near(img[5, 15], (0, 255, 0, 255)), "auto paints below positive z"


def test_negative_z_index_paints_above_stacking_context_background(gl):
    scene = Scene(20, 20, "white")
    ctx = scene.root.add(Layer("ctx", (0, 0, 20, 20), "background: red; z-index: 0"))
    ctx.add(Layer("neg", (5, 5, 10, 10), "background: blue; z-index: -1"))
    img = render(scene, gl)
    assert near(img[10, 10], (0, 0, 255, 255))


def test_visibility_hidden_parent_visible_child(gl):
    scene = Scene(20, 20, "white")
    p = scene.root.add(Layer("p", (0, 0, 20, 20), "background: red; visibility: hidden"))
    p.add(Layer("c", (0, 0, 10, 10), "background: blue; visibility: visible"))
    p.add(Layer("d", (10, 10, 10, 10), "background: green"))
    img = render(scene, gl)
    assert near(img[5, 5], (0, 0, 255, 255))
    assert near(img[15, 15], (255, 255, 255, 255)), "inherits hidden"
    assert near(img[5, 15], (255, 255, 255, 255))


def test_non_invertible_transform_draws_nothing(gl):
    scene = Scene(20, 20, "white")
    scene.root.add(Layer("flat", (0, 0, 20, 20), "background: red; transform: scale(0)"))
    img = render(scene, gl)
    assert np.all(img == 255)


def test_fractional_position_has_exact_edge_coverage(gl):
    scene = Scene(20, 4, "white")
    scene.root.add(Layer("bar", (2.25, 0, 10.5, 4), "background: black"))
    img = render(scene, gl)
    expected = ref.box_coverage(20, 4, 2.25, 0, 10.5, 4)[1]
    assert np.max(np.abs((255 - img[1, :, 0]) / 255.0 - expected)) <= 1.5 / 255


def test_layer_larger_than_max_texture_renders_through_tiles(gl):
    # The texture limit applies to a tile, not to the layer: only the tiles that can
    # show are rastered, and the pixels are the layer's.
    limit = gl.limits.max_texture_size
    scene = Scene(100, 100, "white")
    scene.root.add(Layer("huge", (-limit // 2, 10, limit + 1, 20), "background: red"))
    frame = scene.render(gl)
    assert (frame.image[10:30] == (255, 0, 0, 255)).all()
    assert (frame.image[:10] == 255).all() and (frame.image[30:] == 255).all()
    (tiles,) = frame.graph.tiles
    assert tiles.owner == "huge" and tiles.grid[0] * tiles.tile_size >= limit + 1
    assert tiles.kept == tiles.rastered <= 2  # 100 px + margins of a 16385 px row


def test_gl_state_is_clean_after_errors(gl):
    # An input error in planning leaves nothing half-done: the next frame renders.
    scene = Scene(10, 10, "white")
    scene.root.add(Layer("x", (0, 0, 10, 10), "background-image: url(/nonexistent.png)"))
    with pytest.raises(ImageLoadError):
        scene.render(gl)
    scene["x"].style["background-image"] = "none"
    scene["x"].style["background-color"] = "black"
    assert np.all(render(scene, gl)[..., :3] == 0)
