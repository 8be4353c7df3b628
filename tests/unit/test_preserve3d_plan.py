"""3D rendering contexts without a GPU: which layers are members (transform-style:
preserve-3d, and the grouping properties that force it flat), their accumulated 4x4
matrices (unflattened inside a context, checked against numpy products written out
here), and the frame graph's plan: draws in depth order, split pieces with their
half-planes, Preserve3D promotion, hidden back faces reported."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.compositor.tree import flattening_property, screen_matrix3d
from lamina.geometry3d import DrawPolygon
from lamina.graph.contexts3d import split_planes
from lamina.textures import Draw

W, H = 200, 150


def rot_y(deg: float) -> np.ndarray:
    a = math.radians(deg)
    m = np.eye(4)
    m[0, 0], m[0, 2], m[2, 0], m[2, 2] = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    return m


def translate(x: float, y: float, z: float = 0.0) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def persp(d: float, ox: float, oy: float) -> np.ndarray:
    p = np.eye(4)
    p[3, 2] = -1.0 / d
    return translate(ox, oy) @ p @ translate(-ox, -oy)


def crossed(group_style: str = "") -> Scene:
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), "perspective: 250px"))
    group = stage.add(Layer("group", (50, 25, 100, 100), "transform-style: preserve-3d; " + group_style))
    group.add(Layer("a", (0, 0, 100, 100), "background: red; transform: rotateY(40deg)"))
    group.add(Layer("b", (0, 0, 100, 100), "background: blue; transform: rotateY(-40deg)"))
    return scene


def nodes_of(scene: Scene) -> dict:
    nodes: dict = {}
    from lamina.compositor.tree import resolve_tree
    resolve_tree(scene.root, 0.0, nodes)
    return nodes


def test_members_keep_their_accumulated_matrix_unflattened():
    nodes = nodes_of(crossed())
    assert {k: n.context3d for k, n in nodes.items()} == {"root": None, "stage": None, "group": "group",
                                                           "a": "group", "b": "group"}
    expected = persp(250, 100, 75) @ translate(50, 25) @ translate(50, 50) @ rot_y(40) @ translate(-50, -50)
    got = np.asarray(screen_matrix3d(nodes["a"]))
    assert np.allclose(got, expected, atol=1e-9), "perspective, offset and rotation multiplied in 4x4, z kept"
    flat = expected[np.ix_([0, 1, 3], [0, 1, 3])]
    m = nodes["a"].to_screen
    assert np.allclose(np.array([[m.a, m.c, m.e], [m.b, m.d, m.f], [m.g, m.h, m.i]]) / m.i, flat / flat[2, 2])


def test_a_nested_preserve3d_member_extends_the_context_and_a_flat_one_ends_it():
    scene = Scene(W, H, "white")
    outer = scene.root.add(Layer("outer", (0, 0, 100, 100), "transform-style: preserve-3d"))
    inner = outer.add(Layer("inner", (0, 0, 100, 100), "transform-style: preserve-3d; transform: rotateY(30deg)"))
    leaf = inner.add(Layer("leaf", (0, 0, 50, 50), "transform: rotateY(30deg)"))
    flat = outer.add(Layer("flat", (0, 0, 100, 100), "transform: rotateX(10deg)"))
    flat.add(Layer("flattened", (0, 0, 50, 50), "transform: rotateY(30deg)"))
    nodes = nodes_of(scene)
    assert [nodes[k].context3d for k in ("outer", "inner", "leaf", "flat", "flattened")] == \
        ["outer", "outer", "outer", "outer", None]
    # leaf: rotateY(30) twice about different origins, kept 3D: its z row is not zero.
    assert abs(np.asarray(screen_matrix3d(nodes["leaf"]))[2, 0]) > 0.5


@pytest.mark.parametrize("style, prop", [
    ("overflow: hidden", "overflow"), ("opacity: 0.5", "opacity"), ("filter: blur(2px)", "filter"),
    ("clip-path: inset(2px)", "clip-path"), ("mask-image: linear-gradient(red, blue)", "mask-image"),
    ("mix-blend-mode: multiply", "mix-blend-mode"), ("isolation: isolate", "isolation"),
    ("backdrop-filter: blur(2px)", "backdrop-filter"),
])
def test_grouping_properties_flatten_a_preserve3d_element(style, prop):
    scene = crossed(style)
    nodes = nodes_of(scene)
    assert flattening_property(nodes["group"].style) == prop
    assert all(n.context3d is None for n in nodes.values()), "no 3D rendering context"
    assert scene.plan().contexts3d == []


def frame_draws(graph) -> tuple[Draw, ...]:
    return next(p for p in graph.passes if p.name == "composite:frame").draws


def test_intersecting_layers_are_split_and_drawn_back_to_front():
    graph = crossed().plan()
    (context,) = graph.contexts3d
    # rotateY(+40) turns a's right half away, rotateY(-40) turns b's left half away: b is
    # cut by a's plane, its far piece first, a, then its near piece.
    assert context.order == ("b", "a", "b") and context.split == (True, False, True)
    assert context.layers_split == ("b",) and context.splits == 1
    draws = frame_draws(graph)
    assert [d.layer_id for d in draws] == ["b", "a", "b"]
    far, whole, near = draws
    assert whole.split_planes == () and len(far.split_planes) == 1 and len(near.split_planes) == 1
    # The two pieces keep opposite sides of one line: the vertical centre line x = 100.
    (a1, b1, c1), (a2, b2, c2) = far.split_planes[0], near.split_planes[0]
    assert np.allclose((a1, b1, c1), (-a2, -b2, -c2)) and abs(b1) < 1e-9 and abs(-c1 / a1 - 100.0) < 1e-6
    assert (a1 < 0) == True, "the far piece is b's left half (x < 100)"  # noqa: E712
    info = {row["layer"]: row for row in graph.layer_table()}
    assert any("Preserve3D" in r for r in info["a"]["reasons"])
    assert "3D rendering contexts" in graph.describe() and "layers split: b" in graph.describe()


def test_a_stack_painted_front_first_is_drawn_back_to_front_without_a_split():
    scene = Scene(W, H, "white")
    group = scene.root.add(Layer("group", (0, 0, W, H), "transform-style: preserve-3d; perspective: 400px"))
    for i in range(5):  # painted nearest first: depth order is the reverse
        group.add(Layer(f"card{i}", (20 + 10 * i, 20, 80, 60), f"background: #{i}{i}{i}; transform: translateZ({40 - 10 * i}px)"))
    graph = scene.plan()
    (context,) = graph.contexts3d
    assert context.order == tuple(f"card{i}" for i in reversed(range(5))) and context.splits == 0
    assert [d.layer_id for d in frame_draws(graph)] == list(context.order)


def test_hidden_back_faces_are_reported_not_drawn():
    scene = Scene(W, H, "white")
    card = scene.root.add(Layer("card", (50, 25, 100, 100), "transform-style: preserve-3d; transform: rotateY(150deg)"))
    card.add(Layer("front", (0, 0, 100, 100), "background: red; backface-visibility: hidden"))
    card.add(Layer("back", (0, 0, 100, 100), "background: blue; backface-visibility: hidden; transform: rotateY(180deg)"))
    graph = scene.plan()
    (context,) = graph.contexts3d
    assert context.order == ("back",)
    assert context.dropped == (("front", "backface-visibility: hidden and its back faces the viewer"),)
    assert [d.layer_id for d in frame_draws(graph)] == ["back"]


def test_split_planes_are_the_cut_edges_only():
    square = np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], float)
    whole = DrawPolygon("x", 0, square, np.array([0, 0, 1.0]), 0.0)
    left = DrawPolygon("x", 0, np.array([[0, 0, 0], [4, 0, 0], [4, 10, 0], [0, 10, 0]], float), whole.normal, 0.0, True,
                       (False, True, False, False))
    ((plane,),) = split_planes(left, whole)
    assert np.allclose(plane, (-1.0, 0.0, 4.0)), "keep x <= 4: the cut at x = 4, inside to its left"
    corner = DrawPolygon("x", 0, np.array([[0, 0, 0], [6, 0, 0], [0, 6, 0]], float), whole.normal, 0.0, True,
                         (False, True, False))
    ((diagonal,),) = split_planes(corner, whole)
    assert np.allclose(diagonal, (-1 / math.sqrt(2), -1 / math.sqrt(2), 6 / math.sqrt(2)))


def test_a_flat_member_with_drawing_descendants_is_a_3d_flattening_surface():
    """cc's k3dTransformFlattening: a flat member (a) whose child turns in 3D is drawn
    into a surface in its plane; the context sorts that surface (its polygon grown to the
    child, which reaches past a's box) against b in the frame, and nothing inside it."""
    scene = crossed()
    a = scene.root.find("a")
    a.add(Layer("kid", (60, 20, 90, 60), "background: green; transform: rotateX(30deg)"))
    graph = scene.plan()
    assert graph.routes["a"].surface.value == "3D flattening"
    (context,) = graph.contexts3d
    assert context.target == "frame" and context.order == ("b", "a", "b")
    draws = frame_draws(graph)
    assert draws[1].source.name == "surface:a" and draws[1].layer_id == "a"
    surface = next(p for p in graph.passes if p.target.name == "surface:a")
    assert [d.layer_id for d in surface.draws] == ["a", "kid"] and all(not d.split_planes for d in surface.draws)


def test_a_context_inside_an_opacity_group_is_sorted_inside_its_surface():
    """Flattened at its boundary: the wrapper's opacity surface holds the sorted, split
    context, and the frame draws the surface once."""
    scene = Scene(W, H, "white")
    wrapper = scene.root.add(Layer("wrapper", (0, 0, W, H), "opacity: 0.5; perspective: 250px"))
    group = wrapper.add(Layer("group", (50, 25, 100, 100), "transform-style: preserve-3d"))
    group.add(Layer("a", (0, 0, 100, 100), "background: red; transform: rotateY(40deg)"))
    group.add(Layer("b", (0, 0, 100, 100), "background: blue; transform: rotateY(-40deg)"))
    graph = scene.plan()
    (context,) = graph.contexts3d
    assert context.target.startswith("surface") and context.order == ("b", "a", "b")
    assert [d.layer_id for d in frame_draws(graph)] == ["wrapper"]
