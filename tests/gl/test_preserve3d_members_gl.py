"""Draws sorted into a 3D rendering context (issue 26, review items 3 and 7) drawn on GL
against the float64 depth-buffer model (tests.projection_reference.draw_context), each
layer's 4x4 written out here: a ``position: fixed`` child of the preserve-3d group at
z = 0 of its plane, a flat member's composited scroller contents (scrolled) and its
squashed descendant, each crossed by a turned member. Inside the polygons (pixels whose
5x5 neighbourhood shows one layer) every pixel is within 1 level of the model."""

from __future__ import annotations

import numpy as np

from tests import projection_reference as pr
from tests.gl.test_preserve3d_fixes_gl import solid, steady
from tests.unit.test_preserve3d_members import ROWS, fixed_child, scroller_in_member, squash_in_member

W, H = 200, 160
# The group at (20, 20), 160 x 120, perspective 300px about its centre.
EYE = pr.translate(20, 20) @ pr.translate(80, 60) @ pr.perspective(300) @ pr.translate(-80, -60)


def turned_y(x: float, y: float, w: float, h: float, degrees: float) -> np.ndarray:
    """A group child at (x, y) turned about y through its centre (transform-origin 50% 50%)."""
    return EYE @ pr.translate(x, y) @ pr.translate(w / 2, h / 2) @ pr.rotate((0, 1, 0), degrees) @ pr.translate(-w / 2, -h / 2)


def colour_regions(expected: np.ndarray) -> np.ndarray:
    """A label per distinct colour of the model's image: a layer's rows and children are
    regions of their own, and blended pixels on their edges small ones (steady keeps off)."""
    _, labels = np.unique(np.round(expected).reshape(-1, 3), axis=0, return_inverse=True)
    return labels.reshape(expected.shape[:2])


def assert_matches_model(image: np.ndarray, expected: np.ndarray, shown: np.ndarray) -> None:
    """Inside the polygons (and inside each colour region of them) within 1 level."""
    inner = steady(shown * 1000 + colour_regions(expected))
    diff = np.abs(image[..., :3].astype(float) - expected).max(axis=2)
    assert inner.sum() > 0.6 * inner.size and diff[inner].max() <= 1.0, \
        f"{(diff[inner] > 1).sum()} of {inner.sum()} px differ from the depth buffer, up to {diff[inner].max()}"


def test_a_fixed_child_is_drawn_at_z0_of_the_groups_plane(gl):
    frame = fixed_child().render(gl)
    planes = [(EYE @ pr.translate(0, 0, 20), solid(70, 70, (30, 60, 230))),
              (EYE @ pr.translate(40, 30), solid(90, 70, (230, 40, 40))),
              (turned_y(50, 10, 80, 100, 55), solid(80, 100, (20, 170, 80))),
              (EYE @ pr.translate(95, 55, -30), solid(60, 60, (200, 40, 200)))]
    expected, shown, covers = pr.draw_context((W, H), planes)
    inner = steady(shown)
    assert (inner & (shown == 1) & (covers >= 2)).sum() > 300, "the child hides b's far half and c"
    assert (inner & (shown == 2) & (covers >= 2)).sum() > 300, "b's near half hides the child"
    assert_matches_model(frame.image, expected, shown)


def test_a_members_scrolled_contents_are_cut_with_it_where_a_member_crosses_it(gl):
    scene = scroller_in_member()
    scene.find("s").scroll_to(y=30)
    frame = scene.render(gl)
    member = solid(140, 100, (255, 255, 0))
    for i, rgb in enumerate(ROWS):  # the rows 30 px up, inside the scroller's 100
        top, bottom = max(0, 40 * i - 30), min(100, 40 * i + 10)
        if top < bottom:
            member[top:bottom, :, :3] = rgb
    planes = [(turned_y(30, 10, 100, 100, 60), solid(100, 100, (0, 0, 255))), (EYE @ pr.translate(10, 10), member)]
    expected, shown, covers = pr.draw_context((W, H), planes)
    inner = steady(shown)
    assert (inner & (shown == 0) & (covers == 2)).sum() > 300, "x's near half over the contents"
    assert (inner & (shown == 1) & (covers == 2)).sum() > 300, "the contents over x's far half"
    assert_matches_model(frame.image, expected, shown)


def test_a_members_squashed_child_is_cut_with_it_and_a_later_layer_drawn_over_all(gl):
    frame = squash_in_member().render(gl)
    member = solid(140, 100, (255, 255, 0))
    member[:, :70, :3] = (255, 140, 0)
    member[20:80, 50:140, :3] = (0, 190, 90)
    planes = [(turned_y(30, 10, 100, 100, 60), solid(100, 100, (0, 0, 255))), (EYE @ pr.translate(10, 10), member)]
    expected, shown, covers = pr.draw_context((W, H), planes)
    expected[110:150, 150:190] = (120, 0, 160)  # 'after', outside the context: over it
    shown[110:150, 150:190] = 2
    inner = steady(shown)
    assert (inner & (shown == 0) & (covers == 2)).sum() > 300, "x's near half over the squashed child"
    assert (inner & (shown == 1) & (covers == 2)).sum() > 300, "the squashed child over x's far half"
    assert_matches_model(frame.image, expected, shown)
