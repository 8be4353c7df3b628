"""3D rendering contexts (transform-style: preserve-3d) drawn on GL against the float64
depth-buffer model of tests.projection_reference.draw_context: two layers that
intersect, each shown exactly where it is nearer the viewer (so split by the other's
plane and drawn in depth order), sampled perspective-correctly; a cube whose hidden back
faces are dropped; the same cards with preserve-3d and flat differ where the spec says."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from tests import projection_reference as pr
from tests.gl.test_transforms_3d_gl import interior, smooth_pattern

W, H = 160, 120
BOX = (30, 20, 100, 80)


def crossed_planes(angle: float, depth: float, origin_css: str) -> tuple[Scene, np.ndarray, np.ndarray]:
    """A stage with a perspective, a preserve-3d group, and two cards turned by +angle and
    -angle about their vertical centre line: they cross along it."""
    a = smooth_pattern(BOX[2], BOX[3])
    b = a[::-1, ::-1].copy()
    b[..., 2] = 255 - b[..., 2]
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), f"perspective: {depth}px; perspective-origin: {origin_css}"))
    group = stage.add(Layer("group", BOX, "transform-style: preserve-3d"))
    group.add(Layer("a", (0, 0, BOX[2], BOX[3]), image=a, style=f"transform: rotateY({angle}deg)"))
    group.add(Layer("b", (0, 0, BOX[2], BOX[3]), image=b, style=f"transform: rotateY({-angle}deg)"))
    return scene, a, b


def card_matrix(rotation: np.ndarray, depth: float, origin: tuple[float, float]) -> np.ndarray:
    x, y, w, h = BOX
    return (pr.translate(*origin) @ pr.perspective(depth) @ pr.translate(-origin[0], -origin[1])
            @ pr.translate(x + w / 2, y + h / 2) @ rotation @ pr.translate(-w / 2, -h / 2))


def steady(shown: np.ndarray) -> np.ndarray:
    """Pixels whose 3x3 neighbourhood shows the same layer (none across the cut line)."""
    out = shown >= 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            out &= np.roll(np.roll(shown, dy, 0), dx, 1) == shown
    return out


@pytest.mark.parametrize("angle, depth, origin_css, origin", [
    (40, 200, "center", (80, 60)),
    (25, 300, "left top", (0, 0)),
    (55, 150, "right 30px", (160, 30)),
])
def test_intersecting_planes_match_the_depth_buffer_reference(gl, angle, depth, origin_css, origin):
    scene, a, b = crossed_planes(angle, depth, origin_css)
    frame = scene.render(gl)
    ma = card_matrix(pr.rotate((0, 1, 0), angle), depth, origin)
    mb = card_matrix(pr.rotate((0, 1, 0), -angle), depth, origin)
    expected, shown, covers = pr.draw_context((W, H), [(ma, a), (mb, b)])
    _, cov_a = pr.draw((W, H), pr.flatten(ma), a)
    _, cov_b = pr.draw((W, H), pr.flatten(mb), b)
    inner = np.where(shown == 0, interior(cov_a), interior(cov_b)) & steady(shown)
    assert (inner & (shown == 0)).sum() > 300 and (inner & (shown == 1)).sum() > 300, "both layers show in part"
    assert ((covers == 2) & inner).sum() > 500, "they overlap on screen: the order decides"
    diff = np.abs(frame.image[..., :3].astype(float) - expected)
    assert diff[inner].max() <= 1.0, f"off by {diff[inner].max():.2f} levels where one plane is nearest"
    context = frame.graph.contexts3d[0]
    assert context.root == "group" and context.splits >= 1
    assert set(context.order) == {"a", "b"}


def test_a_flat_group_draws_in_paint_order_not_depth(gl):
    """transform-style: flat (or a grouping property, here opacity: 0.99) flattens the
    cards into the group's plane: the later card covers the earlier wholly, whatever its
    depth (CSS Transforms 2 §"Grouping property values"), and the stage's perspective
    reaches the group only, not the cards (each level is flattened)."""
    scene, a, b = crossed_planes(40, 200, "center")
    scene.root.find("group").style["opacity"] = "0.999"
    frame = scene.render(gl)
    assert frame.graph.contexts3d == []
    x, y, w, h = BOX
    group = pr.translate(80, 60) @ pr.perspective(200) @ pr.translate(-80, -60) @ pr.translate(x, y)
    card = pr.translate(w / 2, h / 2) @ pr.rotate((0, 1, 0), -40) @ pr.translate(-w / 2, -h / 2)
    expected, cov = pr.draw((W, H), pr.flatten(group) @ pr.flatten(card), b)
    core = interior(cov)
    diff = np.abs(frame.image[..., :3].astype(float) - expected)
    assert diff[core].max() <= 1.5, "b, painted last, covers a everywhere it is (opacity 0.999 costs < 0.3 level)"


def cube_scene(turn: float) -> Scene:
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), "perspective: 300px"))
    cube = stage.add(Layer("cube", (50, 30, 60, 60), f"transform-style: preserve-3d; transform: rotateX(-20deg) rotateY({turn}deg)"))
    faces = [("front", "rotateY(0deg)", "#e33"), ("back", "rotateY(180deg)", "#3e3"), ("right", "rotateY(90deg)", "#33e"),
             ("left", "rotateY(-90deg)", "#ee3"), ("top", "rotateX(90deg)", "#3ee"), ("bottom", "rotateX(-90deg)", "#e3e")]
    for name, turn_face, colour in faces:
        cube.add(Layer(name, (0, 0, 60, 60), f"background: {colour}; backface-visibility: hidden; "
                                             f"transform: {turn_face} translateZ(30px)"))
    return scene


def test_cube_drops_its_hidden_back_faces_and_shows_three(gl):
    frame = cube_scene(30).render(gl)
    context = frame.graph.contexts3d[0]
    dropped = {layer for layer, _ in context.dropped}
    # rotateY(30deg) turns +x away (z toward x: the right face's normal gets -z), and
    # rotateX(-20deg) tips the top toward the viewer: front, left and top face it.
    assert dropped == {"back", "right", "bottom"}, "faces turned away with backface-visibility: hidden"
    assert set(context.order) == {"front", "left", "top"} and context.splits == 0
    colours = {tuple(int(c) for c in px[:3]) for px in frame.image.reshape(-1, 4)}
    for shown in ((0xee, 0x33, 0x33), (0xee, 0xee, 0x33), (0x33, 0xee, 0xee)):
        assert shown in colours, f"face colour {shown} is on screen"
    for hidden in ((0x33, 0xee, 0x33), (0x33, 0x33, 0xee), (0xee, 0x33, 0xee)):
        assert hidden not in colours, f"face colour {hidden} (a back face) is not"


def test_splits_overlay_outlines_each_split_piece(gl):
    """The splits overlay draws red along the pieces' edges: on the cut line (x = 80, the
    cards' shared centre line under a centred perspective) and nowhere outside the cards."""
    from lamina.overlays import overlay

    scene, _, _ = crossed_planes(40, 200, "center")
    frame = scene.render(gl)
    img = overlay(frame, "splits")
    red = (img[..., 0] == 230) & (img[..., 1] == 20) & (img[..., 2] == 20)
    assert red[30:90, 77:83].any(axis=1).all(), "the cut line is outlined"
    assert not red[:, :20].any() and not red[:, 140:].any(), "nothing outlined off the cards"
    assert (frame.image != img).any(axis=-1).sum() == red.sum(), "only the outlines change"
