"""position: sticky (CSS Positioned Layout 3 §3.4) without a GPU: the shift on
rectangles (compositor.sticky.sticky_shift) against values worked out by hand from the
spec's rule, the layer tree measuring them (nearest scroller, containing block,
percentages, nested sticky), property-tree updates giving a rebuild's floats, the
compositing reason, and the errors."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene
from lamina.compositor.property_trees import PropertyTrees
from lamina.compositor.sticky import StickyInsets, sticky_shift
from lamina.compositor.tree import resolve_tree
from lamina.errors import StyleError, UnsupportedFeatureError
from lamina.framegraph import RasterPass
from lamina.geometry import Rect

from .test_scrolling import Planner

PORT = Rect(0, 0, 400, 300)  # a scrollport at offset 0, in contents space
BLOCK = Rect(0, 0, 400, 1000)


def port_at(sx: float, sy: float) -> Rect:
    return Rect(PORT.x + sx, PORT.y + sy, PORT.width, PORT.height)


# -- the rule, on rectangles ------------------------------------------------------------------


@pytest.mark.parametrize("scroll, expected", [
    (0, 0.0),      # below the line (100 > 0 + 10): where the box puts it
    (90, 0.0),     # exactly on it
    (150, 60.0),   # 100 + 60 = 150 + 10
    (940, 850.0),  # would be 850, and the block ends at 1000: 100 + 850 + 50 = 1000
    (2000, 850.0),  # never out of its containing block
])
def test_top_keeps_the_box_below_the_scrollports_top_edge_inside_its_block(scroll, expected):
    box = Rect(20, 100, 200, 50)
    assert sticky_shift(box, StickyInsets(top=10), port_at(0, scroll), BLOCK) == (0.0, expected)


@pytest.mark.parametrize("scroll, block, expected", [
    (700, BLOCK, 0.0),      # the box (600..650) is above the line 700 + 300 - 20 = 980
    (300, BLOCK, -70.0),    # the line is at 580: 650 - 70 = 580
    (0, BLOCK, -370.0),     # the line is at 280
    (0, Rect(0, 500, 400, 500), -100.0),  # ... but its block starts at 500: 600 - 100 = 500
])
def test_bottom_keeps_the_box_above_the_scrollports_bottom_edge_inside_its_block(scroll, block, expected):
    box = Rect(0, 600, 100, 50)
    assert sticky_shift(box, StickyInsets(bottom=20), port_at(0, scroll), block) == (0.0, expected)


def test_left_and_right_shift_horizontally_the_same_way():
    box = Rect(300, 0, 50, 20)
    wide = Rect(0, 0, 2000, 300)
    assert sticky_shift(box, StickyInsets(left=5), port_at(400, 0), wide) == (105.0, 0.0)   # 300 + 105 = 400 + 5
    assert sticky_shift(box, StickyInsets(right=5), port_at(0, 0), wide) == (0.0, 0.0)      # 350 <= 395
    far = Rect(900, 0, 50, 20)
    assert sticky_shift(far, StickyInsets(right=5), port_at(0, 0), wide) == (-555.0, 0.0)   # 950 - 555 = 395


@pytest.mark.parametrize("scroll, expected", [
    (0, -90.0),   # bottom pulls it up to 0..280, then top pushes it back to 10
    (80, -10.0),  # bottom: 380 -> 360 (-20); top: 80 -> 90 (+10)
    (150, 60.0),  # bottom needs nothing; top: 160
])
def test_top_wins_over_bottom_when_the_box_and_both_insets_do_not_fit(scroll, expected):
    # What Chromium 156 draws: a 280 px box with top: 10px; bottom: 20px in a 300 px
    # scrollport shows 10 px from the top at every one of these offsets.
    box = Rect(0, 100, 100, 280)
    assert sticky_shift(box, StickyInsets(top=10, bottom=20), port_at(0, scroll), BLOCK) == (0.0, expected)


def test_when_the_box_fits_both_opposite_insets_apply():
    box = Rect(0, 100, 100, 200)  # 10 + 200 + 20 <= 300
    assert sticky_shift(box, StickyInsets(top=10, bottom=20), port_at(0, 0), BLOCK) == (0.0, -20.0)
    assert sticky_shift(box, StickyInsets(top=10, bottom=20), port_at(0, 150), BLOCK) == (0.0, 60.0)


def test_left_wins_over_right_the_same_way():
    box = Rect(0, 0, 390, 20)  # right pulls it to -10, then left pushes it to 10
    assert sticky_shift(box, StickyInsets(left=10, right=20), port_at(0, 0), Rect(-100, 0, 2000, 300)) == (10.0, 0.0)


def test_percentages_are_of_the_scrollport_and_auto_is_none():
    class Style:
        from lamina.css.values import LengthPercentage as LP
        inset_top, inset_right, inset_bottom, inset_left = LP(percent=10), None, LP(5, 50), LP(percent=25)

    assert StickyInsets.of(Style, PORT) == StickyInsets(top=30.0, right=None, bottom=155.0, left=100.0)


def test_a_negative_inset_lets_the_box_go_past_the_edge():
    box = Rect(0, 100, 100, 50)
    assert sticky_shift(box, StickyInsets(top=-20), port_at(0, 200), BLOCK) == (0.0, 80.0)  # 100 + 80 = 200 - 20


# -- on the layer tree ------------------------------------------------------------------------


def page(scroll: float = 0.0) -> Scene:
    scene = Scene(400, 300, "#eee")
    scene.root.style["overflow"] = "auto"
    scene.root.add(Layer("tall", (0, 0, 400, 3000), "background: linear-gradient(#fff, #000)"))
    section = scene.root.add(Layer("section", (0, 200, 400, 600), "background: #abc; border: 5px solid #123"))
    section.add(Layer("head", (0, 40, 400, 40), "position: sticky; top: 10px; background: #f06"))
    scene.root.add(Layer("footer", (0, 1500, 400, 30), "position: sticky; bottom: 0; background: #0a8"))
    scene.root.scroll_to(y=scroll)
    return scene


def placed(scene: Scene) -> dict:
    nodes: dict = {}
    resolve_tree(scene.root, 0.0, nodes)
    return nodes


# The section's box starts at 200 and has 5 px borders: its content box is 205..795, so
# the head (normal position 240, 40 tall) moves on at most 795 - 280 = 515. The footer is
# the page's child: its block is the whole scrollable overflow (0..3000).
@pytest.mark.parametrize("scroll, head_y, footer_y", [
    (0, 240, 270),          # the head shows below the line; the footer pulled up to 300 - 30
    (230, 10, 270),         # the head is on the line (240 = 230 + 10): not shifted yet
    (300, 10, 270),         # stuck: shifted 70
    (760, 755 - 760, 270),  # the section's end: shifted 515, no more
    (1400, 755 - 1400, 100),  # the footer's own place (1500) now shows above the line
])
def test_a_sticky_header_and_footer_on_a_scrolled_page(scroll, head_y, footer_y):
    nodes = placed(page(scroll))
    assert nodes["head"].creates_stacking_context()  # as fixed, in every current browser
    assert nodes["head"].to_screen.f == head_y
    assert nodes["footer"].to_screen.f == footer_y


def test_a_sticky_layer_sticks_to_its_nearest_scroller_not_the_page():
    scene = Scene(400, 300, "white")
    scene.root.style["overflow"] = "auto"
    scene.root.add(Layer("tall", (0, 0, 400, 2000)))
    box = scene.root.add(Layer("box", (50, 60, 200, 150), "overflow: auto"))
    box.add(Layer("rows", (0, 0, 200, 900)))
    box.add(Layer("label", (0, 100, 200, 20), "position: sticky; top: 0"))
    scene.root.scroll_to(y=30)
    box.scroll_to(y=400)
    node = placed(scene)["label"]
    assert node.sticky == (0.0, 300.0)  # 100 + 300 = 400: the box's scrollport top
    assert node.to_screen.f == 60 - 30  # so it shows at the box's top, wherever the page is


def test_scrolling_in_place_gives_the_floats_of_a_rebuild():
    scene = page(0)
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    for scroll in (120, 333, 760, 5):
        scene.root.scroll_to(y=scroll)
        trees.update(scene, 0.0)
        fresh = placed(scene)
        for lid in ("head", "footer", "section"):
            assert trees.nodes[lid].to_screen == fresh[lid].to_screen, (scroll, lid)
            assert trees.nodes[lid].sticky == fresh[lid].sticky


def test_a_sticky_layer_in_a_composited_scroller_is_promoted_and_a_scroll_rasters_none_of_it():
    scene = page(0)
    planner = Planner(scene)
    first = planner.plan()
    assert first.layer_info["head"].reasons == ("sticky position in a composited scroller",)
    assert first.layer_info["footer"].reasons == ("sticky position in a composited scroller",)
    for scroll in (300, 320, 500):
        scene.root.scroll_to(y=scroll)
        graph = planner.plan()
        rastered = {p.layer_id for p in graph.passes if isinstance(p, RasterPass)}
        assert not rastered & {"head", "footer"}, (scroll, rastered)


def test_insets_on_a_layer_that_is_not_sticky_are_an_error():
    scene = Scene(100, 100)
    scene.root.add(Layer("a", (0, 0, 10, 10), "top: 5px"))
    with pytest.raises(StyleError, match="top applies to position: sticky layers only"):
        placed(scene)
    scene["a"].style["position"] = "fixed"
    with pytest.raises(StyleError, match="top applies to position: sticky layers only"):
        placed(scene)
    scene["a"].style["position"] = "sticky"
    # No scroll container: the viewport's top edge, 5 px in, pushes it down 5 px.
    assert placed(scene)["a"].sticky == (0.0, 5.0)


def test_transforms_between_a_sticky_layer_and_its_scroller_leave_the_shift_to_the_boxes():
    # As Blink (and Chromium 156 draws it): the shift is layout; a rotated section turns
    # the header with it, but does not change how far it is shifted.
    plain, turned = page(300), page(300)
    turned["section"].style["transform"] = "rotate(8deg) scale(0.8)"
    assert placed(turned)["head"].sticky == placed(plain)["head"].sticky == (0.0, 70.0)


def test_sticky_inside_a_fixed_layer_in_its_scroller_is_refused():
    scene = Scene(100, 100)
    scene.root.style["overflow"] = "auto"
    f = scene.root.add(Layer("f", (0, 0, 50, 50), "position: fixed"))
    f.add(Layer("s", (0, 0, 10, 10), "position: sticky; top: 0"))
    with pytest.raises(UnsupportedFeatureError, match="inside a fixed layer \\('f'\\)"):
        placed(scene)


def test_an_inset_animates_as_a_length_and_auto_discretely():
    scene = Scene(100, 100)
    scene.root.style["overflow"] = "auto"
    scene.root.add(Layer("tall", (0, 0, 100, 1000)))
    layer = scene.root.add(Layer("s", (0, 50, 100, 10), "position: sticky"))
    layer.animate({"from": {"top": "0px"}, "to": {"top": "40px"}}, duration=1, fill="both")
    scene.root.scroll_to(y=100)
    at = {}
    for t in (0.0, 0.25, 1.0):
        nodes: dict = {}
        resolve_tree(scene.root, t, nodes)
        at[t] = nodes["s"].to_screen.f
    assert at == {0.0: 0.0, 0.25: 10.0, 1.0: 40.0}
    layer.animations.clear()
    layer.animate({"from": {"top": "auto"}, "to": {"top": "40px"}}, duration=1)
    nodes = {}
    resolve_tree(scene.root, 0.4, nodes)
    assert nodes["s"].style.inset_top is None  # before half way: auto


def test_a_sticky_root_is_an_error():
    scene = Scene(100, 100)
    scene.root.style["position"] = "sticky"
    with pytest.raises(StyleError, match="sticky on the root layer"):
        placed(scene)


def test_a_child_of_a_bordered_scroller_stops_inside_its_borders():
    scene = Scene(400, 300)
    box = scene.root.add(Layer("box", (0, 0, 200, 200), "overflow: auto; border: 10px solid black"))
    box.add(Layer("tall", (0, 0, 200, 1000)))
    box.add(Layer("s", (10, 100, 50, 20), "position: sticky; bottom: 170px"))
    # The line is 190 - 170 = 20: the box (100..120) would go to 0..20, but the block
    # (the scrollable overflow) starts inside the border, at 10.
    assert placed(scene)["s"].sticky == (0.0, -90.0)


def test_a_sticky_layer_without_an_inset_is_not_promoted():
    scene = page(0)
    scene.root.add(Layer("still", (0, 900, 400, 30), "position: sticky; background: #123"))
    graph = Planner(scene).plan()
    assert "sticky position in a composited scroller" not in graph.layer_info["still"].reasons
    assert graph.layer_info["head"].reasons == ("sticky position in a composited scroller",)


def test_inner_and_outer_scrolls_in_place_give_the_floats_of_a_rebuild():
    scene = Scene(400, 300)
    scene.root.style["overflow"] = "auto"
    scene.root.add(Layer("tall", (0, 0, 400, 2000)))
    box = scene.root.add(Layer("box", (50, 60, 200, 150), "overflow: auto; border: 3px solid black"))
    box.add(Layer("rows", (0, 0, 200, 900)))
    inner = box.add(Layer("group", (0, 200, 200, 300)))
    inner.add(Layer("label", (0, 20, 200, 20), "position: sticky; top: 5%; bottom: 0"))
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    for outer, inner_scroll in ((30, 0), (30, 250), (500, 250), (0, 700), (12, 13)):
        scene.root.scroll_to(y=outer)
        box.scroll_to(y=inner_scroll)
        trees.update(scene, 0.0)
        fresh = placed(scene)
        assert trees.nodes["label"].to_screen == fresh["label"].to_screen, (outer, inner_scroll)
        assert trees.nodes["label"].sticky == fresh["label"].sticky


def test_a_failed_update_leaves_no_half_moved_trees():
    scene = page(0)
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    scene["section"].style["position"] = "fixed"
    for _ in range(2):  # the second update does not find "no change" in half-built trees
        with pytest.raises(UnsupportedFeatureError, match="inside a fixed layer \\('section'\\)"):
            trees.update(scene, 0.0)
    scene["section"].style["position"] = "static"
    scene.root.scroll_to(y=300)
    trees.update(scene, 0.0)
    assert trees.nodes["head"].to_screen == placed(scene)["head"].to_screen


def test_a_transform_animation_above_a_sticky_layer_updates_in_place_as_a_rebuild():
    scene = page(300)
    scene["section"].animate({"from": {"transform": "none"}, "to": {"transform": "rotate(20deg)"}}, duration=1)
    trees = PropertyTrees()
    for t in (0.0, 0.3, 0.7):
        trees.update(scene, t)
        fresh: dict = {}
        resolve_tree(scene.root, t, fresh)
        assert trees.nodes["head"].to_screen == fresh["head"].to_screen and fresh["head"].sticky == (0.0, 70.0)
