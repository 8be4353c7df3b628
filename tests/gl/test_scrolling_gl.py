"""Scrolled pages, nested scrollers, fixed layers and tiled layers against independently
built references: the same content laid out already moved, drawn without scrolling
or tiles."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene
from lamina.tiling import Tiling

CARD = "background: linear-gradient(#f06, #48f); border-radius: 12px; border: 3px solid #234"


def cards(parent: Layer, height: int, width: int, dy: float = 0.0, prefix: str = "c") -> None:
    n = 0
    for y in range(20, height - 200, 220):
        for x in range(20, width - 300, 310):
            parent.add(Layer(f"{prefix}{n}", (x, y - dy, 290, 200), CARD))
            n += 1


def page(scroll: float, height: int = 6000) -> Scene:
    scene = Scene(1280, 720, "#eee")
    scene.root.style["overflow"] = "auto"
    cards(scene.root, height, 1280)
    scene.root.add(Layer("header", (0, 0, 1280, 50), "position: fixed; background: rgba(255, 255, 255, 0.8)"))
    scene.root.scroll_to(y=scroll)
    return scene


def reference_page(scroll: float, height: int = 6000) -> Scene:
    scene = Scene(1280, 720, "#eee")
    cards(scene.root, height, 1280, dy=scroll)
    scene.root.add(Layer("header", (0, 0, 1280, 50), "background: rgba(255, 255, 255, 0.8)"))
    return scene


def max_diff(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.abs(a.astype(int) - b.astype(int)).max())


def test_a_long_page_scrolled_frame_by_frame_matches_the_page_laid_out_moved(gl):
    scene = page(0)
    for scroll in (0, 100, 1234, 2500, 99999):  # the last is clamped to the end
        scene.root.scroll_to(y=scroll)
        frame = scene.render(gl)
        end = max(c.box.bottom for c in scene.root.children) - 720  # the last row of cards
        used = min(scroll, end)
        expected = reference_page(used).render(gl, policy="none").image
        assert max_diff(frame.image, expected) <= 1, scroll
        assert frame.graph.tiles and frame.graph.tiles[0].owner == "root-contents"


def test_a_fractional_offset_snaps_to_whole_pixels_as_composited_scrolling_does(gl):
    scene = page(300.25)
    expected = reference_page(300).render(gl, policy="none").image
    assert max_diff(scene.render(gl).image, expected) <= 1


def test_a_nested_scroller_matches_its_content_laid_out_moved(gl):
    def build(scroll: float | None) -> Scene:
        scene = Scene(600, 500, "white")
        box = scene.root.add(Layer("box", (50, 40, 420, 380),
                                   "overflow: auto; background: #ddd; border: 6px solid black; border-radius: 20px"))
        dy = 0.0 if scroll is not None else 777.0
        for i in range(30):
            box.add(Layer(f"row{i}", (10, 10 + i * 95 - dy, 380, 80), CARD))
        if scroll is not None:
            box.style["overflow"] = "scroll"
            box.scroll_to(y=scroll)
        else:
            box.style["overflow"] = "hidden"
        return scene

    scrolled = build(777.0)
    frame = scrolled.render(gl)
    assert any(t.owner == "box-contents" for t in frame.graph.tiles)
    expected = build(None).render(gl, policy="none").image
    assert max_diff(frame.image, expected) <= 1


def test_a_fixed_header_stays_while_the_page_moves_under_it(gl):
    scene = page(0)
    top = scene.render(gl).image[:50].copy()
    scene.root.scroll_to(y=220)  # one row of cards: the same picture under the header
    moved = scene.render(gl)
    assert max_diff(moved.image[:50], top) <= 1
    assert moved.graph.layer_info["header"].reasons == ("fixed position over scrolling content",)


def test_a_transformed_tiled_layer_meets_at_its_tile_edges_without_seams(gl):
    def build() -> Scene:
        scene = Scene(400, 400, "white")
        scene.root.add(Layer("big", (-1500, -1500, 3000, 3000),
                             "background: linear-gradient(45deg, #f06, #48f); transform: rotate(20deg)"))
        return scene

    tiled = build().render(gl)
    assert tiled.graph.tiles[0].kept > 1
    whole = build().render(gl, tiling=Tiling(threshold=4096)).image
    assert not build().plan(tiling=Tiling(threshold=4096)).tiles
    # Bilinear samples at a tile's edge read its own edge texel (no neighbour border):
    # a smooth gradient moves by at most a level there.
    assert max_diff(tiled.image, whole) <= 1


@pytest.mark.parametrize("policy", ["browser", "all", "none"])
def test_a_layer_larger_than_the_texture_limit_renders_under_every_policy(gl, policy):
    limit = gl.limits.max_texture_size
    scene = Scene(300, 200, "white")
    scene.root.add(Layer("strip", (0, 0, 300, limit + 5000),
                         "background: linear-gradient(red, blue); transform: translate(0px, -16000px)"))
    frame = scene.render(gl, policy=policy)
    reference = Scene(300, 200, "white")
    # Rows 16000..16200 of a gradient over limit+5000 px: laid out directly.
    full = limit + 5000
    reference.root.add(Layer("strip", (0, 0, 300, 200),
                             f"background: linear-gradient(red {-16000 / 200 * 100:.6f}%, "
                             f"blue {(full - 16000) / 200 * 100:.6f}%)"))
    assert max_diff(frame.image, reference.render(gl).image) <= 1
    assert frame.graph.tiles and frame.graph.tiles[0].kept <= 4


def test_tiles_show_in_the_borders_overlay_and_the_explanation(gl):
    scene = page(300)
    frame = scene.render(gl)
    brown = (150, 80, 20)
    borders = frame.overlay("borders")
    assert (borders[..., :3] == brown).all(axis=-1).sum() > 1000, "each tile outlined"
    assert "Tiles (only those touching the interest rect exist):" in frame.explain()
    assert "root-contents (backing" in frame.explain()
    (entry,) = frame.report["graph"]["tiles"]
    assert entry["owner"] == "root-contents" and entry["kept"] == entry["rastered"] + entry["reused"]
    assert frame.report["graph"]["totals"]["tile_bytes"] == entry["bytes"]


@pytest.mark.parametrize("scroller", ["root", "box"])
def test_scrolls_planned_on_the_fast_path_draw_what_planning_from_scratch_draws(fresh, scroller):
    """scroll-top set through the API frame by frame on plain contents (the page's root,
    or a scroll container in it): small steps, a long one, past the end; each frame drawn
    by the renderer that plans scrolls on the fast path is the frame a fresh renderer
    draws at that offset."""
    def make() -> Scene:
        scene = Scene(640, 360, "#eee")
        box = scene.root
        if scroller == "box":
            box = scene.root.add(Layer("box", (20.5, 20, 560, 300), "overflow: scroll; background: white"))
        else:
            scene.root.style["overflow"] = "auto"
        for i in range(90):
            box.add(Layer(f"c{i}", (10 + (i % 3) * 180, 10 + (i // 3) * 90, 170, 80), CARD))
        return scene

    scene = make()
    steps = (0, 7, 14, 300, 307, 1100, 99999, 40)
    for y in steps:
        scene[scroller].style["scroll-top"] = f"{y}px"
        frame = scene.render(fresh)
        reference = make()
        reference[scroller].style["scroll-top"] = f"{y}px"
        with Renderer() as other:
            expected = reference.render(other).image
        assert max_diff(frame.image, expected) == 0, y
    assert fresh.state.fast_frames >= len(steps) - 3, "the scroll frames after the first two took the fast path"
