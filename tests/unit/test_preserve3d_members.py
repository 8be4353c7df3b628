"""Draws that belong in a 3D rendering context's sort (issue 26, review items 3 and 7),
planned without a GPU: a ``position: fixed`` child of a preserve-3d element is a member
at z = 0 of that element's plane (the element is its containing block), a draw of no
member inside a context's paint-order span keeps its place (the runs either side sorted
apart, as cc flushes), and a flat member's composited scroller contents and squashed
descendants are sorted and split with the member (``Draw.owner_id``), never squashed
with layers of another plane. The retained fast path keeps them when only transforms
move."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.compositor.tree import resolve_tree
from lamina.geometry import Affine
from lamina.graph.contexts3d import order_3d_contexts
from lamina.textures import Draw, TextureDesc, TextureRole
from tests.same_graph import planned_both


def frame_draws(graph):
    return next(p for p in graph.passes if p.name == "composite:frame").draws


def fixed_child(b_turn: float = 55.0) -> Scene:
    """a (translateZ 20) in front; the fixed child, painted between a and b, at z = 0 of
    the group's plane; b turned about y crossing it; c (translateZ -30) behind."""
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("a", (0, 0, 70, 70), "background: rgb(30,60,230); transform: translateZ(20px)"))
    group.add(Layer("fixedkid", (40, 30, 90, 70), "position: fixed; background: rgb(230,40,40)"))
    group.add(Layer("b", (50, 10, 80, 100), f"background: rgb(20,170,80); transform: rotateY({b_turn}deg)"))
    group.add(Layer("c", (95, 55, 60, 60), "background: rgb(200,40,200); transform: translateZ(-30px)"))
    return scene


ROWS = [((i * 40) % 256, 255 if i % 2 else 120, 0) for i in range(12)]


def scroller_in_member(x_turn: float = 60.0) -> Scene:
    """A flat member m holding a composited scroller (12 rows of 40 px in 100), crossed by x."""
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("x", (30, 10, 100, 100), f"background: rgb(0,0,255); transform: rotateY({x_turn}deg)"))
    member = group.add(Layer("m", (10, 10, 140, 100), "background: rgb(200,200,200)"))
    scroller = member.add(Layer("s", (0, 0, 140, 100), "overflow: scroll; background: rgb(255,255,0)"))
    for i, rgb in enumerate(ROWS):
        scroller.add(Layer(f"row{i}", (0, 40 * i, 140, 40), f"background: rgb{rgb}"))
    return scene


def squash_in_member(x_turn: float = 60.0) -> Scene:
    """A flat member m whose child c2 overlaps its promoted sibling c1 (squashed), crossed
    by x; 'after', outside the context, overlaps m and would squash with c2."""
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("x", (30, 10, 100, 100), f"background: rgb(0,0,255); transform: rotateY({x_turn}deg)"))
    member = group.add(Layer("m", (10, 10, 140, 100), "background: rgb(255,255,0)"))
    member.add(Layer("c1", (0, 0, 70, 100), "background: rgb(255,140,0); will-change: transform"))
    member.add(Layer("c2", (50, 20, 90, 60), "background: rgb(0,190,90)"))
    scene.root.add(Layer("after", (150, 110, 40, 40), "background: rgb(120,0,160)"))
    return scene


# -- position: fixed --------------------------------------------------------------------

def test_a_fixed_child_of_a_preserve3d_element_is_a_member_placed_in_its_plane():
    nodes = {}
    resolve_tree(fixed_child().root, 0.0, nodes)
    kid = nodes["fixedkid"]
    assert kid.container is nodes["group"] and kid.context3d == "group"
    # At z = 0 the group's perspective moves nothing: its box at the group's (20, 20).
    assert np.allclose(kid.to_screen.apply(0, 0), (60, 50)) and np.allclose(kid.to_screen.apply(90, 70), (150, 120))


def test_a_fixed_child_is_sorted_at_z0_between_the_members_in_front_and_behind():
    graph = fixed_child().plan()
    record = graph.contexts3d[0]
    order = list(record.order)
    kid = order.index("fixedkid")
    assert all(i < kid for i, layer in enumerate(order) if layer == "c"), order  # c (z -30) behind it
    assert all(i > kid for i, layer in enumerate(order) if layer == "a"), order  # a (z 20) in front
    assert "b" in record.layers_split or "fixedkid" in record.layers_split, "b crosses the child's plane"
    assert "fixedkid" in order and order.count("b") >= 2 and order[0] != "fixedkid"
    assert [d.layer_id for d in frame_draws(graph)] == order


def test_a_flattened_preserve3d_element_is_still_the_fixed_childs_containing_block():
    """The computed value preserve-3d makes a containing block (CSS Transforms 2); opacity
    makes its used value flat, so the child is placed in it but sorted in no context."""
    scene = fixed_child()
    scene.find("group").style["opacity"] = "0.9"
    nodes = {}
    resolve_tree(scene.root, 0.0, nodes)
    assert nodes["fixedkid"].container is nodes["group"] and nodes["fixedkid"].context3d is None
    assert np.allclose(nodes["fixedkid"].to_screen.apply(0, 0), (60, 50))


def test_a_draw_of_no_member_inside_a_contexts_span_keeps_its_place():
    """Paint order a, o (not in the context), b, c: a is sorted alone before o, then b and
    c after it (cc flushes the sorting context at o); o was hoisted before the run."""
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d"))
    for name, z in (("a", 10), ("b", -10), ("c", -20)):
        group.add(Layer(name, (10, 10, 80, 80), f"background: red; transform: translateZ({z}px)"))
    scene.root.add(Layer("o", (0, 0, 50, 50), "background: blue"))
    nodes = {}
    resolve_tree(scene.root, 0.0, nodes)

    def draw(layer_id):
        return Draw(TextureDesc(f"layer:{layer_id}", 80, 80, TextureRole.LAYER_CONTENT), layer_id, nodes[layer_id].to_screen, 1.0)

    draws, records = order_3d_contexts([draw("a"), draw("o"), draw("b"), draw("c")], nodes, Affine())
    assert [d.layer_id for d in draws] == ["a", "o", "c", "b"]
    assert records[0].order == ("a", "c", "b") and records[0].root == "group"


# -- scroller contents and squashed layers of a member ------------------------------------

def test_a_members_scroller_contents_are_sorted_and_split_with_it():
    graph = scroller_in_member().plan()
    draws = frame_draws(graph)
    assert [d.layer_id for d in draws] == ["m", "s-contents", "x", "m", "s-contents"]
    contents = [d for d in draws if d.layer_id == "s-contents"]
    assert all(d.owner_id == "s" for d in contents)
    member = [d for d in draws if d.layer_id == "m"]
    assert [d.split_planes for d in contents] == [d.split_planes for d in member] and all(d.split_planes for d in member)
    # The member's polygon is its box (30..170 x 30..130 on screen), not grown to the
    # contents' tiles below the scroller (they reach y = 530).
    outline = np.array([p for piece in graph.contexts3d[0].outlines for p in piece])
    assert outline[:, 1].max() <= 130.5 and outline[:, 1].min() >= 29.5


def test_a_members_squashed_layer_is_sorted_and_split_with_it_and_not_squashed_with_other_planes():
    graph = squash_in_member().plan()
    draws = frame_draws(graph)
    assert [d.layer_id for d in draws] == ["m", "c1", "root-squash1", "x", "m", "c1", "root-squash1", "root-squash2"]
    squash = [d for d in draws if d.layer_id == "root-squash1"]
    assert all(d.owner_id == "c2" and d.split_planes for d in squash)
    after = draws[-1]  # outside the context: drawn after it, whole, in a backing of its own
    assert after.owner_id == "after" and not after.split_planes
    assert graph.layer_info["c2"].backing != graph.layer_info["after"].backing


# -- the retained fast path ---------------------------------------------------------------

SWING = {"0%": {"transform": "rotateY(30deg)"}, "100%": {"transform": "rotateY(80deg)"}}


def _swinging(make, layer_id):
    scene = make()
    scene.find(layer_id).animate(SWING, duration=4.0, iterations="infinite")
    return scene


@pytest.mark.parametrize("make, turning", [(fixed_child, "b"), (scroller_in_member, "x"), (squash_in_member, "x")],
                         ids=["fixed-child", "scroller-contents", "squash"])
def test_a_frame_moving_only_a_members_transform_takes_the_fast_path_with_these_draws(make, turning):
    times = np.sort(np.random.default_rng(26).uniform(0.0, 4.0, 10))
    pairs, fast = planned_both(lambda: _swinging(make, turning), times)
    for t, (ga, gb) in zip(times, pairs):
        assert ga.contexts3d == gb.contexts3d, f"t={t}: sorted as the full plan sorts it"
    # All but the first frame (and, with a composited scroller, the second: so on main
    # too, before its contents were in the context).
    least = len(times) - (2 if make is scroller_in_member else 1)
    assert fast.fast_frames >= least, f"the fast path took {fast.fast_frames} of {len(times) - 1} frames"
