"""box-shadow on the GPU: the analytic one-pass shadow against the float64 reference
of the spec's definition (compositor.shadow_reference: the shape's mask blurred with
sigma = blur / 2 by direct convolution), and the compositor's handling of its ink
overflow (nothing re-rastered when a shadowed card moves; nothing of the shadow left
behind or cut off)."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene
from lamina.compositor.paint import border_widths, used_radii
from lamina.compositor.shadow_reference import reference_layer
from lamina.compositor.shadows import shadow_paints
from lamina.compositor.shadow_cells import CornerBites, ShadowRingProgram
from lamina.gpu.programs import VARIANTS, VARIANTS_BY_NAME, ProgramCache

# Tolerance, WPT style, on premultiplied 8-bit pixels: the shader's float32 sums and
# its erf approximation against float64.
MAX_DIFF = (0, 2)
SEED = 20240611


def _random_style(rng: np.random.Generator) -> str:
    def color() -> str:
        r, g, b = (int(v) for v in rng.integers(0, 256, 3))
        return f"rgb({r} {g} {b} / {rng.uniform(0.3, 1.0):.2f})"

    parts = []
    if rng.random() < 0.6:
        parts.append(f"background: {color()}")
    radii = " ".join(f"{rng.uniform(0, 30):.1f}px" for _ in range(4))
    vertical = " ".join(f"{rng.uniform(0, 30):.1f}px" for _ in range(4))
    parts.append(f"border-radius: {radii} / {vertical}" if rng.random() < 0.5 else f"border-radius: {radii}")
    if rng.random() < 0.4:
        parts.append(f"border: {rng.uniform(1, 5):.1f}px solid {color()}")
    shadows = []
    for _ in range(int(rng.integers(1, 4))):
        inset = "inset " if rng.random() < 0.35 else ""
        blur = 0.0 if rng.random() < 0.2 else rng.uniform(0.5, 24)
        x, y = rng.uniform(-12, 12, 2)
        shadows.append(f"{inset}{x:.2f}px {y:.2f}px {blur:.2f}px {rng.uniform(-6, 10):.2f}px {color()}")
    parts.append("box-shadow: " + ", ".join(shadows))
    return "; ".join(parts)


SEEDED = [_random_style(np.random.default_rng(SEED + i)) for i in range(5)]
CHOSEN = [
    "background: #48f; border-radius: 12px; box-shadow: 0 10px 20px rgb(0 0 0 / 50%)",
    "border-radius: 20px 6px 30px / 10px 25px 8px; box-shadow: 6px -4px 8px 5px #f60",
    "background: white; border: 3px solid #333; border-radius: 16px; "
    "box-shadow: inset 4px 6px 10px 2px rgb(0 0 0 / 60%)",
    "border-radius: 50%; box-shadow: 0 0 0 6px blue, 0 0 12px 10px rgb(255 0 0 / 50%)",  # a ring with no blur
    "background: #eee; border-radius: 10px; box-shadow: inset 0 0 0 4px green, inset -8px -8px 0 rgb(0 0 0 / 30%)",
    "border-radius: 8px; box-shadow: 3px 3px 1px #000",  # sigma 0.5
    "background: #fff; box-shadow: 0 0 60px 0 #000",  # square corners: the closed form alone
    "border-radius: 60px / 8px; box-shadow: 0 0 3px 2px #000, inset 0 0 2px 1px #08f",  # flat corners, sampled along x
    "border-radius: 6px / 30px; box-shadow: 4px 4px 0.8px #000",  # tall corners, the exact kernel
]


def _render_and_reference(gl, style: str, box: tuple[float, float, float, float], size: tuple[int, int]):
    scene = Scene(size[0], size[1], "transparent")
    layer = scene.root.add(Layer("card", box, style))
    got = scene.render(gl).premultiplied.astype(np.int32)
    s = layer.computed_style(None)
    x, y, w, h = box
    radii, borders = used_radii(s, w, h), border_widths(s)
    shadows = shadow_paints(s.box_shadow, s.color, (w, h), radii, borders)
    ref = reference_layer((w, h), radii, borders, s.used_background_color.premultiplied(),
                          s.used_border_color.premultiplied(), shadows, size, (-x, -y))
    return got, np.rint(np.clip(ref, 0.0, 1.0) * 255.0).astype(np.int32)


@pytest.mark.parametrize("style", SEEDED + CHOSEN, ids=[f"seeded{i}" for i in range(len(SEEDED))]
                         + [f"chosen{i}" for i in range(len(CHOSEN))])
def test_matches_the_float64_reference(gl, style):
    rng = np.random.default_rng(zlib.crc32(style.encode()))  # a box of its own, the same every run
    box = (70 + rng.uniform(0, 1), 60 + rng.uniform(0, 1), float(rng.integers(40, 90)), float(rng.integers(30, 70)))
    got, want = _render_and_reference(gl, style, box, (230, 200))
    diff = np.abs(got - want)
    assert diff.sum() > 0 or want.any()
    worst = np.unravel_index(diff.argmax(), diff.shape)
    assert MAX_DIFF[0] <= diff.max() <= MAX_DIFF[1], f"{style}: {diff.max()} levels at {worst}"
    assert want[..., 3].max() > 0  # the case draws something


def test_shadow_uniforms_exist_in_the_shadow_variant(gl):
    cache = ProgramCache(gl.gpu.ctx)
    arrays = ("u_shadow_count", "u_shadow_rect", "u_shadow_rx", "u_shadow_ry", "u_shadow_color", "u_shadow_sigma")
    for name in arrays:
        assert name in cache.get(VARIANTS_BY_NAME["raster.color.shadows"].key), name  # inset shadows, in the layer's program
        if name != "u_shadow_count":
            assert name in cache.get(VARIANTS_BY_NAME["raster.color.shadow"].key), name  # one soft one: no count
    for mode, sharp, clip, one in itertools.product(("all", "corner", "none"), (False, True), (False, True),
                                                    (True, False)):
        if not (clip or one):
            assert ShadowRingProgram(CornerBites(mode), sharp, clip, one) not in VARIANTS  # all at once: only to clip
            continue
        program = cache.get(ShadowRingProgram(CornerBites(mode), sharp, clip, one))  # outer shadows, in their own
        radii = () if mode == "none" else ("u_shadow_rx", "u_shadow_ry")  # no bites: no shadow radii
        box = ("u_size", "u_radii_x", "u_radii_y") if clip else ()  # the border box clips them out
        common = {*arrays, "u_offset", "u_target_size"} - {"u_shadow_rx", "u_shadow_ry"}
        common -= {"u_shadow_count"} if one else set()  # one shadow: no count
        for name in (*common, *radii, *box):
            assert name in program, (mode, sharp, clip, one, name)
        assert ("u_shadow_count" in program) == (not one)
        assert ("in_pick" in program) == (mode == "corner")  # the region's corner, per vertex
    for kind in ("color", "linear", "radial", "image"):  # every paint kind, solid or dashed borders
        assert {f"raster.{kind}{d}{i}" for d in ("", ".dashes", ".dots") for i in (".shadow", ".shadows")} <= set(VARIANTS_BY_NAME)
    cache.release()


def _shadowed_page() -> Scene:
    scene = Scene(320, 240, "#f4f1ea")
    scene.root.add(Layer("panel", (10, 10, 300, 60), "background: #dde; border-radius: 6px"))
    scene.root.add(Layer("card", (60, 70, 160, 100),
                         "background: #fff; border-radius: 12px; box-shadow: 0 10px 40px rgb(0 0 0 / 45%), "
                         "0 1px 3px rgb(0 0 0 / 30%); will-change: transform"))
    return scene


def test_moving_a_shadowed_card_rasters_nothing_and_leaves_no_trace():
    with Renderer() as renderer, Renderer() as fresh:
        scene = _shadowed_page()
        first = scene.render(renderer)
        assert sorted(p.layer_id for p in first.graph.raster_passes()) == ["card", "panel"]
        for i, (dx, dy) in enumerate([(30, 0), (30, 40), (-20, 55), (0, 0)]):
            scene["card"].style["transform"] = f"translate({dx}px, {dy}px)"
            frame = scene.render(renderer)
            assert frame.graph.raster_passes() == [], f"move {i} re-rastered"
            # The damage covers the shadow at the old and the new place: what is left on
            # screen is exactly a first frame of the same scene.
            fresh.drop_caches()  # its next frame is a first frame
            again = scene.render(fresh)
            assert np.array_equal(frame.image, again.image), f"move {i} differs from a fresh frame"


def test_transform_animation_of_a_shadowed_card_rasters_once():
    with Renderer() as renderer:
        scene = _shadowed_page()
        scene["card"].animate({"from": {"transform": "translate(0, 0)"}, "to": {"transform": "translate(80px, 40px)"}},
                              duration=1.0, iterations="infinite")
        rastered = [len(scene.render(renderer, t=i / 8).graph.raster_passes()) for i in range(6)]
        assert rastered[0] == 2 and rastered[1:] == [0] * 5


def test_shadow_shows_where_the_box_is_off_screen(gl):
    scene = Scene(100, 100, "white")
    scene.root.add(Layer("card", (-80, 20, 60, 60), "background: red; box-shadow: 40px 0 0 blue"))
    image = scene.render(gl).image
    assert tuple(image[50, 10]) == (0, 0, 255, 255)  # the shadow, though its box is culled
    assert tuple(image[50, 30]) == (255, 255, 255, 255)


def test_a_shadow_in_a_backing_is_not_cut_off(gl):
    """Browser policy: layers that are not promoted share the page's backing, whose bounds
    must hold their shadows; the same scene under "all" (one raster per layer) agrees."""
    scene = Scene(200, 140, "white")
    scene.root.add(Layer("a", (20, 20, 60, 40), "background: #48f; box-shadow: 0 0 20px 10px rgb(0 0 0 / 60%)"))
    scene.root.add(Layer("b", (120, 70, 50, 40), "background: #f84; box-shadow: inset 0 0 8px #000, 10px 10px 0 #0a0"))
    browser = scene.render(gl, policy="browser").image
    everything = scene.render(gl, policy="all").image
    assert np.abs(browser.astype(int) - everything.astype(int)).max() <= 1
    assert browser[50, 5, 0] < 250  # the blur reaches past a's box
    assert tuple(browser[115, 175]) == (0, 170, 0, 255)  # b's offset shadow


def test_shadow_is_filtered_and_faded_with_its_element(gl):
    """The shadow is part of the element's paint: a filter and opacity apply to it too."""
    base = "background: #fff; box-shadow: 20px 0 0 rgb(255 0 0)"
    scene = Scene(140, 60, "white")
    scene.root.add(Layer("card", (10, 10, 40, 40), base + "; filter: grayscale(1); opacity: 0.5"))
    image = scene.render(gl).image
    r, g, b, a = (int(v) for v in image[30, 60])
    assert a == 255 and abs(r - g) <= 1 and abs(g - b) <= 1 and r < 250  # grey, faded over white


@pytest.mark.parametrize("policy", ["all", "browser"])
def test_a_tiled_shadowed_layer_matches_one_raster(gl, policy):
    """A layer past the tiling threshold rasters tiles of its grown raster: each tile
    draws the shadow's cells that fall in it, and the whole matches one raster."""
    from lamina.tiling import Tiling

    scene = Scene(300, 220, "white")
    scene.root.add(Layer("card", (40.5, 30.25, 200, 140),
                         "background: #48f; border-radius: 24px 8px; "
                         "box-shadow: 6px 10px 16px rgb(0 0 0 / 60%), inset 0 0 8px 2px #fff, 0 0 0 3px #f60"))
    gl.drop_caches()
    whole = scene.render(gl, policy=policy)
    gl.drop_caches()
    tiled = scene.render(gl, policy=policy, tiling=Tiling(tile_size=64, threshold=128, interest_margin=0))
    assert len(tiled.graph.raster_passes()) > 4, "the card is rastered as tiles"
    assert np.abs(tiled.image.astype(int) - whole.image.astype(int)).max() <= 1


def test_a_repaint_copies_the_kept_shadows_instead_of_drawing_them_again(gl):
    # WebRender keeps box-shadow render tasks the same way: the blur is evaluated once
    # while the shadow, the box and its radii stay; a new background only repaints.
    from lamina import Layer, Scene
    from lamina.framegraph import ShadowPass

    scene = Scene(300, 200, "white")
    card = scene.root.add(Layer("card", (60, 40, 160, 100), "background: #fff; border-radius: 12px; "
                                                             "box-shadow: 0 8px 24px rgb(0 0 0 / 50%)"))
    first = scene.render(gl)
    assert [p.layer_id for p in first.graph.passes if isinstance(p, ShadowPass)] == ["card"]
    card.style["background-color"] = "#fefefe"
    scene.render(gl)  # (the frame after a new shadow texture is planned in full)
    card.style["background-color"] = "#fff"
    again = scene.render(gl)
    assert not [p for p in again.graph.passes if isinstance(p, ShadowPass)], "the shadows are not drawn again"
    (raster,) = again.graph.raster_passes()
    assert raster.shadows is not None and raster.shadows.name in again.graph.reused
    fresh = Scene(300, 200, "white")
    fresh.root.add(Layer("card", (60, 40, 160, 100), "background: #fff; border-radius: 12px; "
                                                      "box-shadow: 0 8px 24px rgb(0 0 0 / 50%)"))
    gl.drop_caches()
    import numpy as np
    assert np.array_equal(again.image, fresh.render(gl).image), "copied shadows are the drawn ones, byte for byte"
    # Drawn straight into the raster (nothing kept: policy none), the shadow blends in
    # float before its one rounding; copied, it was rounded once before: a level at most.
    inline = fresh.render(gl, policy="none").image
    assert np.abs(inline.astype(int) - again.image.astype(int)).max() <= 1
    card.style["box-shadow"] = "0 8px 30px rgb(0 0 0 / 50%)"
    changed = scene.render(gl)
    assert [p.layer_id for p in changed.graph.passes if isinstance(p, ShadowPass)] == ["card"]
