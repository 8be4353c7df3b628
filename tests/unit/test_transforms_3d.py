"""3D transforms without a GPU: the 4x4 functions against numpy's independent matrices,
flattening, the back-face test, homogeneous clipping of projected quads, the placed
matrices of the property trees, device scale, and the 3D decomposition round trip."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.compositor.property_trees import PropertyTrees
from lamina.geometry import Affine, Projective, Rect, clipped_polygon
from lamina.matrix4 import Matrix4, decompose3d, interpolate_decomposed, recompose3d
from lamina.style.transforms import transform_matrix
from tests import projection_reference as pr


def as_np(m: Matrix4) -> np.ndarray:
    return np.array(m.m).reshape(4, 4)


def style_of(css: str):
    return Layer("x", (0, 0, 100, 50), css).computed_style(None)


@pytest.mark.parametrize("css, expected", [
    ("rotateX(30deg)", pr.rotate((1, 0, 0), 30)),
    ("rotateY(-70deg)", pr.rotate((0, 1, 0), -70)),
    ("rotateZ(20deg)", pr.rotate((0, 0, 1), 20)),
    ("rotate3d(1, 2, 3, 40deg)", pr.rotate((1, 2, 3), 40)),
    ("perspective(250px)", pr.perspective(250)),
    ("translate3d(5px, 10%, 7px)", pr.translate(5, 5, 7)),
    ("translateZ(-3px) scaleZ(2)", pr.translate(0, 0, -3) @ np.diag([1, 1, 2, 1.0])),
    ("scale3d(2, 3, 4)", np.diag([2, 3, 4, 1.0])),
    ("matrix3d(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)", np.arange(1, 17, dtype=float).reshape(4, 4).T),
])
def test_functions_match_the_spec_matrices(css, expected):
    m = transform_matrix(style_of(f"transform: {css}").transform, _zero(), 100, 50)
    if css.startswith("rotateZ"):  # a 2D function: the exact affine path
        assert isinstance(m, Affine)
        m = Matrix4.from_affine(m)
    assert isinstance(m, Matrix4)
    assert np.allclose(as_np(m), expected, atol=1e-12)


def _zero():
    from lamina.css.values import LengthPercentage
    return (LengthPercentage(), LengthPercentage())


def test_transform_origin_z_applies_around_a_3d_transform():
    s = style_of("transform: rotateY(90deg); transform-origin: 0 0 10px")
    m = as_np(transform_matrix(s.transform, s.transform_origin, 100, 50))
    expected = pr.translate(0, 0, 10) @ pr.rotate((0, 1, 0), 90) @ pr.translate(0, 0, -10)
    assert np.allclose(m, expected, atol=1e-12)


def test_2d_lists_stay_affine():
    s = style_of("transform: rotate(10deg) translate3d(1px, 2px, 0)")
    assert isinstance(transform_matrix(s.transform, s.transform_origin, 100, 50), Affine)


def test_flattening_drops_z_and_keeps_w():
    m = Matrix4.perspective(100) @ Matrix4.rotate3d(0, 1, 0, 30)
    flat = m.flattened()
    assert isinstance(flat, Projective)
    assert np.allclose(np.array(flat.values())[[0, 2, 4, 1, 3, 5, 6, 7, 8]].reshape(3, 3), pr.flatten(as_np(m)))
    # Without perspective a 3D rotation flattens to an affine squash.
    assert isinstance(Matrix4.rotate3d(0, 1, 0, 60).flattened(), Affine)


@pytest.mark.parametrize("angle, back", [(0, False), (89, False), (91, True), (180, True), (269, True), (271, False)])
def test_back_face_is_the_sign_of_the_inverse_z_entry(angle, back):
    m = Matrix4.perspective(400) @ Matrix4.rotate3d(0, 1, 0, angle)
    assert m.is_back_facing() == back
    assert (np.linalg.inv(as_np(m))[2, 2] < 0) == back


def test_projective_algebra_matches_numpy(rng):
    vals = rng.normal(size=9)
    p = Projective(*vals)
    mat = np.array([[p.a, p.c, p.e], [p.b, p.d, p.f], [p.g, p.h, p.i]])
    q = Projective(*rng.normal(size=9))
    qm = np.array([[q.a, q.c, q.e], [q.b, q.d, q.f], [q.g, q.h, q.i]])
    pq = p @ q
    assert np.allclose([[pq.a, pq.c, pq.e], [pq.b, pq.d, pq.f], [pq.g, pq.h, pq.i]], mat @ qm)
    inv = p.inverse()
    assert np.allclose([[inv.a, inv.c, inv.e], [inv.b, inv.d, inv.f], [inv.g, inv.h, inv.i]], np.linalg.inv(mat))
    a = Affine(1, 2, 3, 4, 5, 6)
    assert (a @ p).almost_equal(Projective.of(a) @ p)


def test_clipped_polygon_matches_the_reference_across_the_eye_plane(rng):
    for _ in range(50):
        h = rng.normal(size=(3, 3))
        p = Projective(h[0, 0], h[1, 0], h[0, 1], h[1, 1], h[0, 2], h[1, 2], h[2, 0], h[2, 1], h[2, 2])
        got = clipped_polygon(Rect(0, 0, 2, 3), p)
        expected = pr.clipped_polygon(h, 2, 3)
        assert np.allclose(np.array(got).reshape(-1, 2), np.array(expected).reshape(-1, 2))


def test_bounds_of_a_quad_behind_the_eye_are_empty_and_crossing_ones_finite():
    behind = Projective(1, 0, 0, 1, 0, 0, 0, 0, -1)
    assert Rect(0, 0, 10, 10).transformed_bounds(behind).is_empty()
    crossing = Projective(1, 0, 0, 1, 0, 0, 0, 0.2, -1)  # w = 0.2 y - 1: in front for y > 5
    b = Rect(0, 0, 10, 10).transformed_bounds(crossing)
    assert math.isfinite(b.width) and math.isfinite(b.height) and b.height > 0


def test_trees_place_a_child_under_its_parents_perspective():
    scene = Scene(200, 100)
    stage = scene.root.add(Layer("stage", (10, 0, 200, 100), "perspective: 300px; perspective-origin: 20px 30px"))
    stage.add(Layer("card", (40, 20, 60, 40), "transform: rotateX(20deg)"))
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    card = trees.nodes["card"].to_screen
    expected = pr.flatten(pr.translate(10, 0) @ pr.translate(20, 30) @ pr.perspective(300) @ pr.translate(-20, -30)
                          @ pr.translate(40, 20) @ pr.translate(30, 20) @ pr.rotate((1, 0, 0), 20) @ pr.translate(-30, -20))
    expected = expected / expected[2, 2]
    got = np.array([[card.a, card.c, card.e], [card.b, card.d, card.f], [card.g, card.h, card.i]])
    assert np.allclose(got / got[2, 2], expected, atol=1e-12)
    # A new perspective moves the child in place (no rebuild).
    stage.style["perspective"] = "600px"
    changes = trees.update(scene, 0.0)
    assert not changes.rebuilt and "card" in changes.nodes
    assert not trees.nodes["card"].to_screen.almost_equal(card)


def test_device_scale_keeps_the_projection_in_proportion():
    from lamina import device_scale
    scene = Scene(200, 100)
    stage = scene.root.add(Layer("stage", (0, 0, 200, 100), "perspective: 150px"))
    stage.add(Layer("card", (40, 20, 60, 40), "transform: translateZ(20px) rotateY(30deg) "
                                              "matrix3d(1,0,0,0.001, 0,1,0,0, 0,0,1,0, 3,4,5,1)"))
    at = {}
    for s in (1.0, 2.0):
        with device_scale.in_force(device_scale.DeviceScale(s)):
            trees = PropertyTrees()
            trees.update(scene, 0.0)
            at[s] = trees.nodes["card"].to_screen
    for x, y in ((0, 0), (60, 0), (60, 40), (30, 20)):
        p1 = at[1.0].apply(x, y)
        p2 = at[2.0].apply(2 * x, 2 * y)
        assert p2 == pytest.approx((2 * p1[0], 2 * p1[1]), abs=1e-9)


@pytest.mark.parametrize("css", [
    "rotate3d(1, 2, 3, 50deg) translate3d(10px, -5px, 20px) scale3d(1.5, 0.5, 2)",
    "perspective(400px) rotateX(30deg) rotateY(-20deg)",
    "skew(10deg, 5deg) rotateY(120deg)",
])
def test_decompose_recompose_round_trip(css):
    m = transform_matrix(style_of(f"transform: {css}").transform, _zero(), 100, 50)
    d = decompose3d(m)
    assert d is not None
    assert np.allclose(as_np(recompose3d(d)), as_np(m), atol=1e-9)


def test_slerp_takes_the_rotation_half_way():
    a = decompose3d(Matrix4.rotate3d(0, 1, 0, 0))
    b = decompose3d(Matrix4.rotate3d(0, 1, 0, 120))
    mid = recompose3d(interpolate_decomposed(a, b, 0.5))
    assert np.allclose(as_np(mid), pr.rotate((0, 1, 0), 60), atol=1e-12)


def test_animation_between_different_3d_lists_slerps_the_rotation():
    from lamina.animation.interpolate import interpolate_field
    a = style_of("transform: rotateX(0deg)").transform
    b = style_of("transform: rotateY(90deg) translateZ(10px)").transform
    (mid,) = interpolate_field("transform", a, b, 0.5, (100.0, 50.0))
    assert mid.name == "matrix3d"
    got = as_np(Matrix4.from_css_matrix3d(mid.args))
    # Half way: half the rotation about y (slerp), half the translation (lerp) in the
    # rotated frame of the recomposition (translate applied before the rotation).
    end = pr.rotate((0, 1, 0), 90) @ pr.translate(0, 0, 10)
    expected = pr.translate(*(end[:3, 3] / 2)) @ pr.rotate((0, 1, 0), 45)
    assert np.allclose(got, expected, atol=1e-9)


def test_rotate3d_about_the_same_axis_interpolates_the_angle():
    from lamina.animation.interpolate import interpolate_field
    a = style_of("transform: rotate3d(0, 2, 0, 0deg)").transform
    b = style_of("transform: rotate3d(0, 1, 0, 300deg)").transform
    (mid,) = interpolate_field("transform", a, b, 0.5, (100.0, 50.0))
    assert mid.name == "rotate3d" and mid.args[3] == pytest.approx(150.0)
    # Different axes go through the matrices.
    c = style_of("transform: rotate3d(1, 0, 0, 90deg)").transform
    (other,) = interpolate_field("transform", a, c, 0.5, (100.0, 50.0))
    assert other.name == "matrix3d"


def test_a_plane_wholly_behind_the_eye_stays_projective_and_shows_nothing():
    from lamina.graph.placement import clean
    behind = Projective(2, 0, 0, 2, 4, 4, 0, 0, -2)
    assert behind.simplified() is behind, "dividing by i < 0 would bring it in front"
    assert clean(behind).__class__ is Projective
    assert clipped_polygon(Rect(0, 0, 10, 10), clean(behind)) == []
    # A positive scale of a cancelled map is the affine map it is.
    assert clean(Projective(2, 0, 0, 2, 4, 4, 0, 0, 2)) == Affine(1, 0, 0, 1, 2, 2)
