"""Regressions from the review of preserve-3d (issue 26), planned without a GPU: a
scroll inside a 3D rendering context is planned with the whole frame, a member's
backdrop-filter reordered but not split (a split one: test_backdrop_pieces), pieces
cut by many planes, singular 4x4 members, cut edges near the eye plane and the tie
rule on a cut through pixel centres."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.errors import GeometryError
from lamina.geometry3d import DrawPolygon
from lamina.geometry3d.polygon import split_by_distances
from lamina.graph.contexts3d import split_planes
from tests.unit.test_scrolling import Planner


def frame_draws(graph):
    return next(p for p in graph.passes if p.name == "composite:frame").draws


def scroller_in_split_member() -> Scene:
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("x", (30, 10, 100, 100), "background: rgb(0,0,255); transform: rotateY(60deg)"))
    member = group.add(Layer("m", (10, 10, 140, 100), "background: rgb(200,200,200)"))
    scroller = member.add(Layer("s", (0, 0, 140, 100), "overflow: scroll; background: rgb(255,255,0)"))
    for i in range(12):
        scroller.add(Layer(f"row{i}", (0, 40 * i, 140, 40), f"background: rgb({i * 20},{255 if i % 2 else 0},0)"))
    return scene


def test_a_scroll_in_a_3d_context_is_planned_with_the_whole_frame():
    """The cheap scroll path splices the contents' new draws where last frame's record
    says they were; the context's sort moved and duplicated them (m is split by x)."""
    scene = scroller_in_split_member()
    planner = Planner(scene)
    first = planner.plan()
    assert [d.layer_id for d in frame_draws(first)] == ["m", "s-contents", "x", "m", "s-contents"]  # contents split with m
    for y in (40, 85):
        scene.find("s").scroll_to(y=y)
        graph = planner.plan()  # (validated: no pass reads what is not yet written)
        fresh = Scene.plan(scene)
        assert [d.layer_id for d in frame_draws(graph)] == [d.layer_id for d in frame_draws(fresh)]
        assert graph.planned_whole is not None and "3D rendering context of 'group'" in graph.planned_whole


def backdrop_member(x_transform: str, member_style: str = "") -> Scene:
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("x", (30, 10, 100, 100), f"background: rgb(0,0,255); transform: {x_transform}"))
    group.add(Layer("m", (10, 10, 140, 100), "background: rgba(255,255,0,.5); backdrop-filter: blur(2px);" + member_style))
    return scene


def test_a_backdrop_filter_on_a_member_reordered_but_not_split_is_planned():
    graph = backdrop_member("translateZ(-20px)").plan()
    assert graph.contexts3d[0].order == ("x", "m") and graph.contexts3d[0].splits == 0
    assert any(p.name == "backdrop:m" for p in graph.passes)


@pytest.mark.parametrize("n, room", [(12, 8), (16, 8), (16, 3)])
def test_a_piece_with_more_cut_edges_than_room_is_covered_once_by_its_parts(n, room):
    """A regular n-gon piece inside a larger layer (every edge a cut): its parts hold at
    most ``room`` planes each, and every point of the piece is in exactly one part,
    every point outside in none (seeded random points)."""
    big = np.array([[-100, -100, 0], [100, -100, 0], [100, 100, 0], [-100, 100, 0]], float)
    whole = DrawPolygon("x", 0, big, np.array([0, 0, 1.0]), 0.0)
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ngon = np.stack([30 * np.cos(t), 30 * np.sin(t), np.zeros(n)], axis=1)
    parts = split_planes(DrawPolygon("x", 0, ngon, whole.normal, 0.0, True, (True,) * n), whole, room)
    assert len(parts) > 1 and all(len(p) <= room for p in parts)
    points = np.random.default_rng(7).uniform(-40, 40, (4000, 2))
    inside_ngon = np.all([(ngon[(k + 1) % n, 0] - ngon[k, 0]) * (points[:, 1] - ngon[k, 1])
                          - (ngon[(k + 1) % n, 1] - ngon[k, 1]) * (points[:, 0] - ngon[k, 0]) > 0
                          for k in range(n)], axis=0)
    count = sum(np.all([a * points[:, 0] + b * points[:, 1] + c > 0 for a, b, c in part], axis=0) for part in parts)
    assert inside_ngon.sum() > 1000
    assert np.all(count[inside_ngon] == 1) and np.all(count[~inside_ngon] == 0)


@pytest.mark.parametrize("in_context", [False, True])
def test_a_singular_4x4_with_an_invertible_plane_map_draws_nothing(in_context):
    """scaleZ(0): the 4x4 is singular though its flattened 2D map is not; CSS (and
    Chromium) render nothing, flat or in a 3D rendering context."""
    scene = Scene(160, 120, "white")
    parent = scene.root
    if in_context:
        parent = parent.add(Layer("group", (0, 0, 160, 120), "transform-style: preserve-3d; perspective: 200px"))
        parent.add(Layer("back", (20, 20, 120, 80), "background: blue; transform: translateZ(-40px)"))
    parent.add(Layer("x", (40, 30, 60, 50), "background: red; transform: translateZ(40px) scaleZ(0)"))
    graph = scene.plan()
    assert all(d.layer_id != "x" for p in graph.composite_passes() for d in p.draws)
    assert any(d.layer_id == "x" and "not invertible" in d.text for d in graph.decisions)
    if in_context:
        assert graph.contexts3d[0].order == ("back",)
    scene.find("x").style["transform"] = "translateZ(40px) scaleZ(0.0001)"  # invertible: drawn, in front
    graph = scene.plan()
    assert [d.layer_id for d in frame_draws(graph)][-1] == "x"


def floor_behind_the_eye(wall_z: float) -> Scene:
    """A floor reaching behind the eye (clipped at the eye plane: far-out points) cut by
    a wall: the cut must stay a cut, not be taken for the floor's own edge."""
    scene = Scene(300, 200, "white")
    group = scene.root.add(Layer("group", (0, 0, 300, 200), "transform-style: preserve-3d; perspective: 200px"))
    group.add(Layer("wall", (0, 40, 300, 160), f"background: rgb(0,0,255); transform: translateZ({wall_z}px)"))
    group.add(Layer("floor", (0, -400, 300, 1000),
                    "background: rgb(255,255,0); transform: translateY(60px) rotateX(90deg)"))
    return scene


@pytest.mark.parametrize("wall_z", [-490, -300])
def test_a_cut_of_a_member_reaching_behind_the_eye_keeps_its_half_plane(wall_z):
    draws = frame_draws(floor_behind_the_eye(wall_z).plan())
    assert [d.layer_id for d in draws] == ["floor", "wall", "floor"]
    far, wall, near = draws
    assert len(far.split_planes) == 1 and len(near.split_planes) == 1 and not wall.split_planes
    assert np.allclose(far.split_planes[0], [-v for v in near.split_planes[0]]), "one cut line, opposite sides"


def test_a_split_marks_only_the_new_edge_as_a_cut():
    square = np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], float)
    whole = DrawPolygon("x", 0, square, np.array([0, 0, 1.0]), 0.0)
    result = split_by_distances(whole, square[:, 0] - 4.0, 1)  # the plane x = 4
    for piece in (result.front, result.back):
        cut = [k for k, mark in enumerate(piece.cut_edges) if mark]
        assert len(cut) == 1
        a, b = piece.points[cut[0]], piece.points[(cut[0] + 1) % len(piece.points)]
        assert a[0] == b[0] == 4.0
    again = split_by_distances(result.back, result.back.points[:, 1] - 5.0, 2)  # then y = 5: two cuts on a piece
    assert sum(again.front.cut_edges) == 2 and sum(again.back.cut_edges) == 2


def crossed_translucent(x0: float) -> Scene:
    scene = Scene(200, 150, "white")
    stage = scene.root.add(Layer("stage", (0, 0, 200, 150), "perspective: 250px"))
    group = stage.add(Layer("group", (x0, 25, 100, 100), "transform-style: preserve-3d"))
    group.add(Layer("a", (0, 0, 100, 100), "background: rgba(0,255,0,0.02); transform: rotateY(40deg)"))
    group.add(Layer("b", (0, 0, 100, 100), "background: rgba(0,0,255,0.5); transform: rotateY(-40deg)"))
    return scene


def test_the_two_pieces_along_a_cut_get_exactly_opposite_planes():
    """So quad.frag's tie rule gives a pixel centre on the cut (here x = 100.5) to one."""
    far, _, near = frame_draws(crossed_translucent(50.5).plan())
    (p,), (q,) = far.split_planes, near.split_planes
    assert p == tuple(-v for v in q) and -p[2] / p[0] == 100.5


@pytest.mark.parametrize("seed", [1, 2])
def test_fan_diagonals_are_exact_negatives_on_both_sides(seed):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 2 * np.pi, 14))
    ngon = np.stack([40 * np.cos(t), 40 * np.sin(t), np.zeros(14)], axis=1)
    big = np.array([[-100, -100, 0], [100, -100, 0], [100, 100, 0], [-100, 100, 0]], float)
    whole = DrawPolygon("x", 0, big, np.array([0, 0, 1.0]), 0.0)
    parts = split_planes(DrawPolygon("x", 0, ngon, whole.normal, 0.0, True, (True,) * 14), whole, 5)
    planes = [p for part in parts for p in part]
    diagonals = [p for p in planes if tuple(-v for v in p) in planes]
    assert len(parts) > 2 and len(diagonals) == 2 * (len(parts) - 1), "each shared diagonal on both sides, negated"


@pytest.mark.parametrize("transform", ["scale(1e200)", "matrix(1e300, 0, 0, 1e300, 0, 0)"])
def test_a_transform_too_large_to_composite_is_a_typed_error_naming_the_layer(transform):
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "perspective: 200px"))
    group.add(Layer("m", (10, 10, 140, 100), f"background: yellow; transform: {transform}"))
    with pytest.raises(GeometryError, match="layer 'm'.*too large to composite"):
        scene.plan()


def blending_member() -> Scene:
    scene = Scene(200, 160, "white")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("x", (30, 10, 100, 100), "background: rgb(0,0,255); transform: rotateY(50deg)"))
    group.add(Layer("m", (10, 10, 140, 100), "background: rgb(255,255,0); mix-blend-mode: multiply"))
    return scene


def test_a_blending_member_keeps_its_context_sorted_and_reads_per_piece():
    """The isolated group a member's blend needs is the context root's own surface: the
    context is sorted in it (it was left unsorted), and each piece of the split member
    reads the backdrop copied just before it is drawn."""
    graph = blending_member().plan()
    inside = [c for c in graph.contexts3d if c.target == "surface surface:group"]
    assert len(inside) == 1 and inside[0].order == ("m", "x", "m") and inside[0].layers_split == ("m",)
    names = [p.name for p in graph.passes]
    first, second = names.index("backdrop:m"), names.index("backdrop:m:piece1")
    between = [p for p in graph.passes[first:second] if hasattr(p, "draws")]
    assert [(d.layer_id, d.backdrop.name if d.backdrop else None) for p in between for d in p.draws] == \
        [("m", "backdrop:m"), ("x", None)], "the far piece reads the first copy; x drawn before the second"
    (near,) = graph.passes[second + 1].draws
    assert near.layer_id == "m" and near.backdrop.name == "backdrop:m:piece1"
