"""Flat layers with 3D transforms (CSS Transforms 2) against the float64 model of
tests.projection_reference: perspective-correct sampling inside the projected quad
(within 1 level), anti-aliased edges (coverage), a quad crossing the eye plane, the
perspective origin, back faces, and a non-invertible matrix drawing nothing."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from tests import projection_reference as pr

W, H = 160, 120


def smooth_pattern(w: int, h: int) -> np.ndarray:
    """An opaque image whose colour changes everywhere (so a sample taken at the wrong
    place shows) but slowly (so bilinear weights rounded by the GPU cost < 1 level)."""
    y, x = np.mgrid[0:h, 0:w] + 0.5
    img = np.zeros((h, w, 4), np.uint8)
    img[..., 0] = np.rint(127.5 + 127.5 * np.sin(x / 7.0))
    img[..., 1] = np.rint(127.5 + 127.5 * np.cos(y / 9.0))
    img[..., 2] = np.rint(255 * x / w)
    img[..., 3] = 255
    return img


def card_scene(box, image, transform: str, stage_style: str) -> Scene:
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), stage_style))
    stage.add(Layer("card", box, image=image, style=f"transform: {transform}"))
    return scene


def reference_matrix(box, rotation: np.ndarray, depth: float, origin: tuple[float, float]) -> np.ndarray:
    """perspective(origin, depth) * translate(box) * rotation about the box centre."""
    x, y, w, h = box
    return (pr.translate(*origin) @ pr.perspective(depth) @ pr.translate(-origin[0], -origin[1])
            @ pr.translate(x + w / 2, y + h / 2) @ rotation @ pr.translate(-w / 2, -h / 2))


def interior(cov: np.ndarray) -> np.ndarray:
    """Pixels whose 3x3 neighbourhood the polygon covers fully (no edge in reach)."""
    inside = cov >= 1.0
    core = inside.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            core &= np.roll(np.roll(inside, dy, 0), dx, 1)
    return core


CARD = (30, 20, 100, 80)
CASES = [
    # transform, reference rotation, perspective, perspective-origin (CSS, px)
    ("rotateY(50deg)", pr.rotate((0, 1, 0), 50), 200, "center", (80, 60)),
    ("rotateY(-25deg)", pr.rotate((0, 1, 0), -25), 300, "center", (80, 60)),
    ("rotateX(-40deg)", pr.rotate((1, 0, 0), -40), 150, "left top", (0, 0)),
    ("rotateY(35deg)", pr.rotate((0, 1, 0), 35), 150, "right 30px", (160, 30)),
    ("rotate3d(1, 1, 0, 70deg)", pr.rotate((1, 1, 0), 70), 120, "center", (80, 60)),
    ("translateZ(30px) rotateY(30deg)", pr.translate(0, 0, 30) @ pr.rotate((0, 1, 0), 30), 200, "center", (80, 60)),
]


@pytest.mark.parametrize("transform, rotation, depth, origin_css, origin", CASES, ids=[c[0] + " " + c[3] for c in CASES])
def test_projected_card_matches_the_float64_reference(gl, transform, rotation, depth, origin_css, origin):
    image = smooth_pattern(CARD[2], CARD[3])
    scene = card_scene(CARD, image, transform, f"perspective: {depth}px; perspective-origin: {origin_css}")
    got = scene.render(gl).image.astype(float)
    expected, cov = pr.draw((W, H), pr.flatten(reference_matrix(CARD, rotation, depth, origin)), image)
    core = interior(cov)
    assert core.sum() > 2000, "the card shows a large interior"
    diff = np.abs(got[..., :3] - expected)
    # Perspective-correct sampling: an affine interpolation would be many levels off here.
    assert diff[core].max() <= 1.0, f"interior off by {diff[core].max():.2f} levels"
    assert np.all(got[cov == 0][:, :3] == 255), "nothing drawn outside the projected polygon"


@pytest.mark.parametrize("transform, rotation, depth, tol", [
    # The pixel's area inside the projected quad's edge lines (composite/quad.frag), as
    # the reference's: within 8-bit rounding, nearly edge-on under a short perspective too.
    ("rotateY(50deg)", pr.rotate((0, 1, 0), 50), 200, 0.006),
    ("rotateX(-40deg)", pr.rotate((1, 0, 0), -40), 150, 0.006),
    ("rotateY(80deg)", pr.rotate((0, 1, 0), 80), 60, 0.006),
])
def test_projected_edges_are_anti_aliased_by_coverage(gl, transform, rotation, depth, tol):
    black = np.zeros((CARD[3], CARD[2], 4), np.uint8)
    black[..., 3] = 255
    got = card_scene(CARD, black, transform, f"perspective: {depth}px").render(gl).image
    coverage = 1.0 - got[..., 0].astype(float) / 255.0  # black over white: 255 * (1 - coverage)
    _, cov = pr.draw((W, H), pr.flatten(reference_matrix(CARD, rotation, depth, (80, 60))), black)
    edge = (cov > 0) & (cov < 1)
    assert edge.sum() > 100
    assert np.abs(coverage - cov).max() <= tol
    assert coverage.sum() == pytest.approx(cov.sum(), rel=2e-3), "the polygon's area"


@pytest.mark.parametrize("angle", [60, 75])
def test_a_quad_crossing_the_eye_plane_is_clipped_in_homogeneous_space(gl, angle):
    box = (30, -100, 100, 320)  # tall: its lower part swings behind the eye (z > 100px)
    image = smooth_pattern(box[2], box[3])
    scene = card_scene(box, image, f"rotateX({angle}deg)", "perspective: 100px")
    m = pr.flatten(reference_matrix(box, pr.rotate((1, 0, 0), angle), 100, (80, 60)))
    ws = [(m @ np.array([x, y, 1.0]))[2] for x, y in ((0, 0), (100, 0), (100, 320), (0, 320))]
    assert min(ws) < 0 < max(ws), "the case crosses the eye plane"
    frame = scene.render(gl)
    expected, cov = pr.draw((W, H), m, image)
    core = interior(cov)
    assert core.sum() > 5000
    assert np.abs(frame.image[..., :3].astype(float) - expected)[core].max() <= 1.0
    # Bounds and damage come from the clipped polygon: finite, inside the frame.
    draws = [d for p in frame.graph.passes for d in getattr(p, "draws", ())]
    assert draws


@pytest.mark.parametrize("angle, shows", [(0, True), (60, True), (85, True), (95, False), (180, False), (300, True)])
def test_card_flip_hides_its_back_face(gl, angle, shows):
    scene = Scene(60, 40, "white")
    stage = scene.root.add(Layer("stage", (0, 0, 60, 40), "perspective: 300px"))
    stage.add(Layer("front", (10, 5, 40, 30), f"background: red; transform: rotateY({angle}deg); "
                                              "backface-visibility: hidden"))
    frame = scene.render(gl)
    red = (frame.image[..., 0] > 200) & (frame.image[..., 1] < 50)
    assert red.any() == shows
    if not shows:
        assert any("back face" in d.text for d in frame.graph.decisions if d.layer_id == "front"), frame.explain()


def test_card_flip_with_two_faces_shows_one_at_each_angle(gl):
    """The card flip: front and back faces, the back turned 180deg, both hidden when
    turned away: exactly one colour shows at every angle (but edge-on)."""
    for angle in (10, 80, 100, 170, 200, 350):
        scene = Scene(60, 40, "white")
        stage = scene.root.add(Layer("stage", (0, 0, 60, 40), "perspective: 300px"))
        card = stage.add(Layer("card", (10, 5, 40, 30), ""))
        card.add(Layer("front", (0, 0, 40, 30), f"background: red; transform: rotateY({angle}deg); backface-visibility: hidden"))
        card.add(Layer("back", (0, 0, 40, 30), f"background: blue; transform: rotateY({angle + 180}deg); "
                                               "backface-visibility: hidden"))
        img = scene.render(gl).image
        red = ((img[..., 0] > 200) & (img[..., 2] < 50)).any()
        blue = ((img[..., 2] > 200) & (img[..., 0] < 50)).any()
        front_faces = np.cos(np.radians(angle)) > 0
        assert (red, blue) == (front_faces, not front_faces), angle


def test_non_invertible_3d_matrix_draws_nothing_and_says_why(gl):
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("flat", (5, 5, 30, 30), "background: red; transform: scale3d(1, 0, 1)"))
    scene.root.add(Layer("edge", (5, 5, 30, 30), "background: red; transform: perspective(100px) rotateY(90deg)"))
    frame = scene.render(gl)
    assert np.all(frame.image[..., :3] == 255)
    whys = {d.layer_id: d.text for d in frame.graph.decisions}
    assert "not invertible" in whys.get("flat", ""), frame.explain()
    assert "not invertible" in whys.get("edge", ""), frame.explain()


def test_translate_z_without_perspective_changes_nothing(gl):
    a = Scene(40, 40, "white")
    a.root.add(Layer("x", (5, 5, 30, 30), "background: linear-gradient(red, blue); transform: translateZ(50px)"))
    b = Scene(40, 40, "white")
    b.root.add(Layer("x", (5, 5, 30, 30), "background: linear-gradient(red, blue)"))
    assert np.array_equal(a.render(gl).image, b.render(gl).image)


def test_perspective_zero_is_drawn_as_one_px(gl):
    """CSS Transforms 2: a perspective under 1px is used as 1px (not an error)."""
    def render(depth: str):
        scene = Scene(60, 60, "white")
        stage = scene.root.add(Layer("stage", (0, 0, 60, 60), f"perspective: {depth}"))
        stage.add(Layer("c", (20, 20, 20, 20), "background: red; transform: translateZ(-1px)"))
        return scene.render(gl).image
    zero = render("0")
    assert np.array_equal(zero, render("1px"))
    # translateZ(-1px) at 1px perspective halves the size: 10x10 around the centre.
    red = (zero[..., 0] > 200) & (zero[..., 1] < 50)
    assert red.sum() == pytest.approx(100, abs=20)


def test_3d_compositing_reasons_have_blinks_names(fresh):
    from lamina.compositor.backings import CompositingReason as R
    scene = Scene(200, 100, "white")
    stage = scene.root.add(Layer("stage", (0, 0, 200, 100), "background: #eee; perspective: 400px"))
    stage.add(Layer("tilted", (10, 10, 60, 60), "background: red; transform: rotateY(30deg)"))
    stage.add(Layer("hint", (80, 10, 40, 40), "background: red; transform: translateZ(0)"))
    stage.add(Layer("hidden", (130, 10, 40, 40), "background: red; backface-visibility: hidden"))
    rows = {row["layer"]: row for row in scene.render(fresh, policy="browser").graph.layer_table()}
    assert rows["tilted"]["reasons"] == [R.TRANSFORM_3D_MATRIX.value]
    assert R.TRANSFORM_3D_MATRIX.value.startswith("3DTransform")
    assert rows["hint"]["reasons"] == [R.TRANSFORM_3D.value]
    assert rows["hidden"]["reasons"] == [R.BACKFACE_HIDDEN.value] == ["BackfaceVisibilityHidden"]
    assert R.PERSPECTIVE.value in rows["stage"]["reasons"]
    assert R.PERSPECTIVE.value.startswith("PerspectiveWith3DDescendants")


def test_animated_3d_rotation_takes_the_fast_path_and_matches_static_frames(fresh, gl):
    """A card flipping in 3D: after the first frame nothing is rastered again, and
    each frame equals the same card drawn with the sampled transform, still."""
    def scene_with(card_style: str) -> tuple[Scene, Layer]:
        scene = Scene(160, 120, "white")
        stage = scene.root.add(Layer("stage", (0, 0, 160, 120), "perspective: 300px"))
        card = stage.add(Layer("card", (30, 20, 100, 80), "background: linear-gradient(red, blue); " + card_style))
        card.add(Layer("label", (10, 10, 50, 20), "background: yellow"))
        return scene, card

    animated, card = scene_with("")
    card.animate({"0%": {"transform": "rotateY(0deg)"}, "100%": {"transform": "rotateY(160deg)"}},
                 duration=2.0, iterations="infinite")
    first = animated.render(fresh, t=0.0)
    assert sorted(p.layer_id for p in first.graph.raster_passes())
    for t in (0.25, 0.5, 0.75, 1.0):
        frame = animated.render(fresh, t=t)
        assert not list(frame.graph.raster_passes()), f"t={t} re-rastered"
        still, _ = scene_with(f"transform: rotateY({160 * t / 2.0}deg)")
        expected = still.render(gl).image
        assert np.abs(frame.image.astype(int) - expected).max() <= 1, t


def test_a_layer_wholly_behind_the_viewer_draws_nothing_and_says_so(gl):
    scene = Scene(100, 100, "white")
    stage = scene.root.add(Layer("stage", (0, 0, 100, 100), "perspective: 300px"))
    stage.add(Layer("behind", (20, 20, 60, 60), "background: red; transform: translateZ(500px)"))
    stage.add(Layer("near", (20, 20, 60, 60), "background: blue; transform: translateZ(299.5px) rotateY(10deg)"))
    frame = scene.render(gl, policy="all")
    assert not ((frame.image[..., 0] > 200) & (frame.image[..., 2] < 50)).any(), "no red"
    assert (frame.image[..., 2] > 200).all(), "the near card fills the frame (it reaches past the eye's plane)"
    whys = {d.layer_id: d.text for d in frame.graph.decisions}
    assert "behind the viewer" in whys["behind"]
