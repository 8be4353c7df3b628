"""Scroll containers, composited scrolling, fixed layers and tiles, read from plans (no
GPU): what is rastered, kept and released as a page scrolls."""

from __future__ import annotations

import math

import pytest

from lamina import Layer, Scene
from lamina.compositor.property_trees import PropertyTrees
from lamina.errors import GeometryError, InvalidValueError, LaminaInputError, StyleError, TextureTooLargeError
from lamina.framegraph import CompositePass, RasterPass, TextureRole
from lamina.geometry import Rect
from lamina.graph.tiles import tile_grid
from lamina.limits import Limits
from lamina.renderer import FrameState
from lamina.request import FrameRequest
from lamina.tiling import Tiling
from lamina.graph.planner import ExecutorFacts, build_frame_graph
from lamina.images import ImageStore

CARD = "background: linear-gradient(#f06, #48f); border-radius: 12px"


def long_page(height: int = 20000, width: int = 1280, viewport: int = 720, scroll: float = 0.0) -> Scene:
    scene = Scene(width, viewport, background="#eee")
    scene.root.style["overflow"] = "auto"
    n = 0
    for y in range(20, height - 200, 220):
        for x in range(20, width - 300, 310):
            scene.root.add(Layer(f"c{n}", (x, y, 290, 200), CARD))
            n += 1
    scene.root.scroll_to(y=scroll)
    return scene


class Planner:
    """Plans frames of one scene with kept state, as a renderer would (no GPU: every
    texture the plan keeps counts as still existing)."""

    def __init__(self, scene: Scene, **request) -> None:
        self.scene, self.state, self.request = scene, FrameState(), FrameRequest(**request)
        self.kept: set[str] = set()

    def plan(self):
        facts = ExecutorFacts(retained=frozenset(self.kept))
        graph = build_frame_graph(self.scene, self.request, Limits(), ImageStore(), self.state, facts)
        for p in graph.passes:
            if p.target.retained:
                self.kept.add(p.target.name)
        self.kept -= set(graph.released)
        return graph


def tile_rasters(graph) -> list[str]:
    return [p.name for p in graph.passes if isinstance(p, CompositePass) and p.target.role is TextureRole.TILE]


# -- tile grid --------------------------------------------------------------------------------


def test_tile_grid_is_fixed_in_its_space_and_cut_to_the_content():
    grid, tiles = tile_grid(Rect(20, 20, 1000, 1200), Rect(0, 0, 600, 100), 512)
    assert grid == (2, 3)
    assert [(c, r) for c, r, _ in tiles] == [(0, 0), (1, 0)]
    assert tiles[0][2] == Rect(20, 20, 492, 492) and tiles[1][2] == Rect(512, 20, 508, 492)
    assert tile_grid(Rect(0, 0, 100, 100), Rect(200, 200, 10, 10), 64) == ((2, 2), [])


@pytest.mark.parametrize("kwargs, message", [
    ({"tile_size": 8}, "too small"),
    ({"tile_size": 512, "threshold": 100}, "below the tile size"),
    ({"interest_margin": -1}, "negative"),
    ({"tile_size": 256.5}, "whole number"),
])
def test_bad_tiling_is_a_typed_error(kwargs, message):
    with pytest.raises(LaminaInputError, match=message):
        Tiling(**kwargs)


def test_a_tile_the_gpu_cannot_hold_is_refused_naming_layer_and_size():
    scene = Scene(100, 100)
    scene.root.add(Layer("wide", (0, 0, 300, 10), "background: red"))
    with pytest.raises(TextureTooLargeError) as info:
        scene.plan(limits=Limits(max_texture_size=256), tiling=Tiling(tile_size=512, threshold=512))
    assert "'wide'" in str(info.value) and "512" in str(info.value) and "256" in str(info.value)


# -- scroll offsets ---------------------------------------------------------------------------


def test_offsets_past_the_end_are_clamped_and_the_report_says_so():
    scene = long_page(height=2000, viewport=300, scroll=5000)
    graph = scene.plan()
    node = next(n for n in _trees(scene).scroll_containers if n.id == "root")
    bottom = max(c.box.bottom for c in scene.root.children)  # 1980: the last row's cards
    end = bottom - 300
    assert bottom == 1980 and node.scroll_max == (0.0, end)
    assert node.scroll == (0.0, end) and node.scroll_asked == (0.0, 5000.0)
    assert any("clamped to 0," + f"{end:g}" in d.text for d in graph.decisions if d.layer_id == "root")


def test_scrollable_overflow_is_the_end_of_the_content_boxes():
    scene = Scene(200, 100)
    box = scene.root.add(Layer("box", (10, 10, 100, 80), "overflow: scroll; border: 5px solid black"))
    inner = box.add(Layer("inner", (0, 0, 60, 300), "background: red"))
    inner.add(Layer("deep", (0, 250, 10, 400), "background: blue"))  # ends at 650
    box.add(Layer("fixed", (0, 0, 10, 5000), "position: fixed; background: red"))  # does not count
    node = _trees(scene).nodes["box"]
    # Padding box: 5..75 tall; content ends at 650.
    assert node.scroll_max == (0.0, 650 - 75)


def test_an_offset_on_a_box_that_is_not_a_scroll_container_is_a_typed_error():
    scene = Scene(100, 100)
    scene.root.add(Layer("plain", (0, 0, 50, 50), "scroll-top: 10px; background: red"))
    with pytest.raises(StyleError) as info:
        scene.plan()
    assert info.value.layer == "plain" and info.value.property == "scroll-top" and "10px" in str(info.value)


@pytest.mark.parametrize("value", [-1.0, math.nan, math.inf, "10", True])
def test_bad_scroll_to_values_are_typed_errors_naming_the_layer(value):
    layer = Layer("s", (0, 0, 10, 10), "overflow: auto")
    with pytest.raises(GeometryError, match="'s'"):
        layer.scroll_to(y=value)


def test_negative_scroll_in_css_is_an_invalid_value():
    with pytest.raises(InvalidValueError) as info:
        Layer("s", (0, 0, 10, 10), "overflow: auto; scroll-top: -5px")
    assert info.value.property == "scroll-top"


def test_scroll_updates_the_trees_in_place_with_the_floats_of_a_rebuild():
    scene = long_page(height=3000, viewport=400)
    box = scene.root.add(Layer("box", (100, 100, 300, 200), "overflow: scroll"))
    box.add(Layer("in", (5, 7.25, 100, 900), "background: red; transform: rotate(3deg)"))
    box.add(Layer("pinned", (3, 4, 10, 10), "position: fixed; background: blue"))
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    for y, inner in ((133.5, 10.0), (700.0, 650.0), (0.0, 0.25)):
        scene.root.scroll_to(y=y)
        box.scroll_to(y=inner)
        changes = trees.update(scene, 0.0)
        assert not changes.rebuilt and "scroll_top" in changes.fields["root"]
        fresh = PropertyTrees()
        fresh.update(scene, 0.0)
        for layer_id, node in fresh.nodes.items():
            kept = trees.nodes[layer_id]
            assert kept.to_screen == node.to_screen, layer_id
            assert kept.clips == node.clips and kept.scroll == node.scroll, layer_id


def test_a_fixed_layer_stays_put_while_the_page_scrolls():
    scene = long_page(height=3000, viewport=400)
    scene.root.add(Layer("header", (0, 0, 1280, 60), "position: fixed; background: white"))
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    before = trees.nodes["header"].to_screen
    scene.root.scroll_to(y=500)
    trees.update(scene, 0.0)
    assert trees.nodes["header"].to_screen == before
    assert trees.nodes["c0"].to_screen.f == 20 - 500
    # A transformed ancestor is a fixed layer's containing block: it scrolls with it.
    holder = scene.root.add(Layer("holder", (0, 100, 100, 100), "transform: translate(0px, 0px)"))
    holder.add(Layer("inside", (0, 0, 10, 10), "position: fixed; background: red"))
    trees.update(scene, 0.0)
    assert trees.nodes["inside"].to_screen.f == 100 - 500


# -- composited scrolling ---------------------------------------------------------------------


def test_a_scroll_re_rasters_only_the_tiles_it_exposes():
    scene = long_page()
    planner = Planner(scene)
    first = planner.plan()
    kept_first = {t.owner: t for t in first.tiles}["root-contents"]
    assert kept_first.rastered == kept_first.kept
    assert all(info.reasons == ("composited scroller",) for lid, info in first.layer_info.items() if lid != "root")
    scene.root.scroll_to(y=100)
    second = planner.plan()
    (tiles,) = second.tiles
    # 720 + 256 px of interest reached row 1 (512..1024); 100 px further reaches row 2.
    assert tiles.rastered == 3 and tiles.reused == kept_first.kept
    assert all(":2" in name.rsplit(",", 1)[-1] or name.endswith(",2") for name in tile_rasters(second))
    rastered_cards = {p.layer_id for p in second.passes if isinstance(p, RasterPass)}
    assert rastered_cards and all(scene[c].box.bottom > 1024 - 1 for c in rastered_cards)
    # Scrolling back inside the kept tiles rasters nothing.
    scene.root.scroll_to(y=40)
    third = planner.plan()
    assert not tile_rasters(third) and not third.raster_passes()
    assert third.tiles[0].rastered == 0


def test_tiles_leaving_the_interest_rect_are_released():
    scene = long_page()
    planner = Planner(scene)
    planner.plan()
    first_tiles = set(planner.kept)
    scene.root.scroll_to(y=5000)
    graph = planner.plan()
    assert first_tiles & set(graph.released)
    assert all(not name.startswith("tile:root-contents:") or name in {d.source.name for p in graph.composite_passes()
                                                                      for d in p.draws} for name in planner.kept)


def test_textures_kept_do_not_grow_with_the_page():
    kept = {}
    for height in (20000, 100000):
        scene = long_page(height=height)
        planner = Planner(scene)
        planner.plan()
        scene.root.scroll_to(y=height / 2)
        planner.plan()
        kept[height] = len(planner.kept)
    assert kept[20000] == kept[100000]


def test_nested_scroller_contents_are_their_own_tiled_backing():
    scene = long_page(height=3000, viewport=720)
    box = scene.root.add(Layer("box", (100, 100, 400, 300), "overflow: auto; background: white"))
    for i in range(20):
        box.add(Layer(f"row{i}", (0, i * 100, 400, 90), CARD))
    planner = Planner(scene)
    planner.plan()
    box.scroll_to(y=600)
    graph = planner.plan()
    owners = {t.owner: t for t in graph.tiles}
    assert owners["box-contents"].rastered >= 1 and owners["root-contents"].rastered == 0
    draws = [d for p in graph.composite_passes() for d in p.draws if d.layer_id == "box-contents"]
    # Clipped by the box when drawn (the page's viewport clip holds them whole: dropped).
    assert draws and all([c.layer_id for c in d.clips] == ["box"] for d in draws)


def test_a_fixed_layer_over_a_scrolling_page_is_promoted():
    scene = long_page(height=3000)
    scene.root.add(Layer("header", (0, 0, 1280, 60), "position: fixed; background: white"))
    graph = scene.plan()
    info = graph.layer_info["header"]
    assert info.composited and info.reasons == ("fixed position over scrolling content",)


def test_without_backings_each_layer_moves_and_nothing_is_tiled():
    scene = long_page(height=3000)
    planner = Planner(scene, policy="all")
    planner.plan()
    scene.root.scroll_to(y=100)
    graph = planner.plan()
    assert not graph.tiles
    assert {p.layer_id for p in graph.raster_passes()} <= {c.id for c in scene.root.children if c.box.bottom > 720}


def _trees(scene: Scene) -> PropertyTrees:
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    return trees


def test_a_scroll_offset_animates_and_moves_the_contents_without_rebuilding():
    scene = long_page(height=3000)
    scene.root.animate({"from": {"scroll-top": "0px"}, "to": {"scroll-top": "1000px"}}, duration=2)
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    changes = trees.update(scene, 0.5)
    assert not changes.rebuilt and trees.nodes["root"].scroll == (0.0, 250.0)
    assert trees.nodes["c0"].to_screen.f == 20 - 250
    planner = Planner(scene, t=1.0)
    graph = planner.plan()
    assert trees.nodes["root"].scroll_max[1] > 500
    (tiles,) = graph.tiles
    assert tiles.owner == "root-contents" and tiles.kept > 0


def test_a_blended_group_cut_to_nothing_by_the_scrollers_interest_rect_is_not_drawn():
    """A blended container whose only drawing child lies right of the viewport, in a
    composited root scroller: its group surface came out 0 px wide (the GL executor then
    failed with an untyped error); it is not drawn, and the decision says so."""
    scene = Scene(320, 200, "#eee")
    scene.root.style["overflow"] = "auto"
    scene.root.add(Layer("tall", (0, 0, 10, 900), "background: #888"))
    group = scene.root.add(Layer("L0", (251, -13, 115, 67), "mix-blend-mode: multiply"))
    group.add(Layer("L2", (167, 76, 82, 9), "background-color: purple; filter: drop-shadow(2px 2px 1px red)"))
    graph = scene.plan(policy="browser")
    assert all(p.target.width > 0 and p.target.height > 0 for p in graph.passes), "no empty texture is planned"
    assert any(d.layer_id == "L0" and "not drawn" in d.text for d in graph.decisions)
