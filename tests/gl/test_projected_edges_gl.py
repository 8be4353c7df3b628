"""Anti-aliased edges of projected and scaled quads against the float64 model of
tests.projection_reference: a pixel the quad only partly covers is its coverage of the
colour at its nearest edge, never the opposite edge's (a fringe texel rastered at a raster
scale or a fractional offset read its paint through the tile's wrap), never a
neighbour's in a shared backing; and a steep projection's coverage is the pixel's area
inside the projected polygon (it was off by up to 37 levels at acute corners)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.tiling import Tiling
from tests import projection_reference as pr

W, H = 120, 100
CARD = (30, 25, 60, 50)


def smooth_image(w: int, h: int, seed: int) -> np.ndarray:
    """An opaque image whose colour differs between its edges and changes slowly (so a
    sample from the wrong edge shows, and the GPU's 8-bit bilinear weights cost < 1
    level); the phases are seeded."""
    phase = np.random.default_rng(seed).uniform(0.0, 2.0 * np.pi, 3)
    y, x = np.mgrid[0:h, 0:w] + 0.5
    img = np.zeros((h, w, 4), np.uint8)
    img[..., 0] = np.rint(127.5 + 127.5 * np.sin(x / 9.0 + phase[0]))
    img[..., 1] = np.rint(127.5 + 127.5 * np.cos(y / 8.0 + phase[1]))
    img[..., 2] = np.rint(255 * x / w)
    img[..., 3] = 255
    return img


def halves() -> np.ndarray:
    """The card in two colours: blue left half, red right half."""
    img = np.zeros((CARD[3], CARD[2], 4), np.uint8)
    img[..., 3] = 255
    img[:, : CARD[2] // 2, 2] = 255
    img[:, CARD[2] // 2:, 0] = 255
    return img


def card_matrix(m: np.ndarray, depth: float | None, box=CARD) -> np.ndarray:
    """perspective(depth) about the frame centre (the stage's perspective-origin) *
    translate(box) * m about the box centre (transform-origin 50% 50%)."""
    x, y, w, h = box
    p = np.eye(4) if depth is None else pr.translate(W / 2, H / 2) @ pr.perspective(depth) @ pr.translate(-W / 2, -H / 2)
    return p @ pr.translate(x + w / 2, y + h / 2) @ m @ pr.translate(-w / 2, -h / 2)


def render_card(gl, transform: str, depth: float | None, image=None, style: str = "") -> np.ndarray:
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), "" if depth is None else f"perspective: {depth}px"))
    stage.add(Layer("card", CARD, image=image, style=f"transform: {transform}; {style}"))
    return scene.render(gl).image[..., :3].astype(float)


def nearest_edge_colour_only(got: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a blue|red card over white: how far each pixel is from white mixed with red
    (G = B) and from white mixed with blue (R = G). A fringe pixel that read the
    opposite edge is far from the mix its side should be."""
    return np.abs(got[..., 1] - got[..., 2]), np.abs(got[..., 0] - got[..., 1])


# transform, its matrix, perspective (None: a 2D scene)
FRINGE_CASES = [
    ("translateZ(40px)", pr.translate(0, 0, 40), 200),
    ("translate3d(10px, -5px, -60px)", pr.translate(10, -5, -60), 200),
    ("scale(1.25)", np.diag([1.25, 1.25, 1.0, 1.0]), None),
    ("rotateZ(30deg)", pr.rotate((0, 0, 1), 30), 200),
    ("rotateY(25deg)", pr.rotate((0, 1, 0), 25), 200),
]


@pytest.mark.parametrize("paint", ["image", "gradient"])
@pytest.mark.parametrize("transform, m, depth", FRINGE_CASES, ids=[c[0] for c in FRINGE_CASES])
def test_a_fringe_pixel_takes_its_own_edges_colour(gl, transform, m, depth, paint):
    if paint == "image":
        got = render_card(gl, transform, depth, image=halves())
    else:
        got = render_card(gl, transform, depth, style="background: linear-gradient(to right, blue 50%, red 50%)")
    _, cov = pr.draw((W, H), pr.flatten(card_matrix(m, depth)), halves())
    fringe = (cov > 0.05) & (cov < 0.95)
    assert fringe.sum() > 100
    # The card's halves as the reference sees them: which side of the seam each pixel is.
    ys, xs = np.mgrid[0:H, 0:W] + 0.5
    inv = np.linalg.inv(pr.flatten(card_matrix(m, depth)))
    u = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / (inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2])
    off_red, off_blue = nearest_edge_colour_only(got)
    right, left = fringe & (u > CARD[2] * 0.6), fringe & (u < CARD[2] * 0.4)
    assert right.sum() > 20 and left.sum() > 20
    assert off_red[right].max() <= 2, "a pixel of the red edge took blue (the opposite edge)"
    assert off_blue[left].max() <= 2, "a pixel of the blue edge took red (the opposite edge)"


# transform, matrix, perspective, edge tolerance (levels). Axis-aligned and projected
# quads: the pixel's exact area, as the reference. rotateZ stays an affine draw, whose
# edges ramp linearly across one pixel as cc and Skia fade them (up to ~10 levels from
# the exact area on a 30deg edge), so it is not here.
REFERENCE_CASES = [
    ("translateZ(40px)", pr.translate(0, 0, 40), 200, 2.0),
    ("translate3d(10px, -5px, -60px)", pr.translate(10, -5, -60), 200, 2.0),
    ("scale(1.25)", np.diag([1.25, 1.25, 1.0, 1.0]), None, 2.0),
    ("rotate3d(1, 1, 0, 40deg)", pr.rotate((1, 1, 0), 40), 200, 2.0),
    ("rotateY(60deg)", pr.rotate((0, 1, 0), 60), 100, 2.0),
    ("rotateY(80deg)", pr.rotate((0, 1, 0), 80), 100, 2.0),
    ("rotateX(75deg)", pr.rotate((1, 0, 0), 75), 120, 2.0),
]


@pytest.mark.parametrize("transform, m, depth, tol", REFERENCE_CASES, ids=[c[0] for c in REFERENCE_CASES])
def test_edges_match_the_float64_reference(gl, transform, m, depth, tol):
    image = smooth_image(CARD[2], CARD[3], seed=26)
    got = render_card(gl, transform, depth, image=image)
    expected, cov = pr.draw((W, H), pr.flatten(card_matrix(m, depth)), image)
    edge = (cov > 0) & (cov < 1)
    assert edge.sum() > 100
    diff = np.abs(got - expected).max(axis=2)
    assert diff[edge].max() <= tol, f"an edge pixel is {diff[edge].max():.1f} levels off"
    assert np.all(got[cov == 0] == 255), "nothing drawn outside the projected polygon"


@pytest.mark.parametrize("transform, m, depth", [
    ("rotateY(80deg)", pr.rotate((0, 1, 0), 80), 100),
    ("rotateX(75deg)", pr.rotate((1, 0, 0), 75), 120),
    ("rotateY(-70deg) rotateX(20deg)", pr.rotate((0, 1, 0), -70) @ pr.rotate((1, 0, 0), 20), 90),
])
def test_steep_projections_cover_each_pixel_by_its_area(gl, transform, m, depth):
    """Black over white: 255 * (1 - coverage), so the coverage is read off directly. The
    acute corners of a steep projection are where a product of per-axis spans strayed."""
    black = np.zeros((CARD[3], CARD[2], 4), np.uint8)
    black[..., 3] = 255
    coverage = 1.0 - render_card(gl, transform, depth, image=black)[..., 0] / 255.0
    _, cov = pr.draw((W, H), pr.flatten(card_matrix(m, depth)), black)
    assert ((cov > 0) & (cov < 1)).sum() > 100
    assert np.abs(coverage - cov).max() <= 1.5 / 255
    assert coverage[cov == 0].max() == 0.0, "no coverage spills past the polygon"


def test_a_tiled_layer_under_translate_z_has_its_own_edges_in_every_tile(gl):
    """A layer rastered as tiles at a raster scale: each tile's fringe on the layer's edge
    takes that edge's colour, and the tiles together equal one raster."""
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), "perspective: 200px"))
    stage.add(Layer("card", (12, 10, 96, 80), style="transform: translateZ(30px); "
                    "background: linear-gradient(to right, blue 50%, red 50%)"))
    gl.drop_caches()
    whole = scene.render(gl).image[..., :3].astype(float)
    gl.drop_caches()
    tiled = scene.render(gl, tiling=Tiling(tile_size=32, threshold=64, interest_margin=0))
    assert len(tiled.graph.raster_passes()) > 4, "the card is rastered as tiles"
    got = tiled.image[..., :3].astype(float)
    assert np.abs(got - whole).max() <= 1
    _, cov = pr.draw((W, H), pr.flatten(card_matrix(pr.translate(0, 0, 30), 200, (12, 10, 96, 80))),
                     np.zeros((80, 96, 4), np.uint8))
    fringe = (cov > 0.05) & (cov < 0.95)
    column = np.arange(W)[None, :]
    right, left = fringe & (column > W // 2 + 4), fringe & (column < W // 2 - 4)
    assert right.sum() > 20 and left.sum() > 20
    off_red, off_blue = nearest_edge_colour_only(got)
    assert off_red[right].max() <= 2, "a pixel of the red edge took blue (the opposite edge)"
    assert off_blue[left].max() <= 2, "a pixel of the blue edge took red (the opposite edge)"


def _children_reference(parent_matrix: np.ndarray, children) -> np.ndarray:
    """Non-overlapping children (box, image) drawn with ``parent_matrix``, over white."""
    expected = np.full((H, W, 3), 255.0)
    for (x, y, w, h), image in children:
        exp, cov = pr.draw((W, H), pr.flatten(parent_matrix @ pr.translate(x, y)), image)
        expected = np.where(cov[..., None] > 0, exp, expected)
    return expected


def test_children_in_a_scaled_backing_read_neither_a_neighbour_nor_their_far_edge(gl):
    """Two image children painted into their parent's backing, rastered at the parent's
    scale 1.25 (the backing lands on whole pixels; the children's edges do not): each
    one's fringe is its own nearest edge's colour, not its neighbour's across the gap
    nor its own opposite edge's."""
    box = (28, 24, 64, 48)
    kids = [((3, 5, 23, 38), smooth_image(23, 38, seed=1)), ((35, 5, 24, 38), smooth_image(24, 38, seed=2))]
    scene = Scene(W, H, "white")
    card = scene.root.add(Layer("card", box, "transform: translateZ(0) scale(1.25); background: white"))
    for k, (kid_box, image) in enumerate(kids):
        card.add(Layer(f"kid{k}", kid_box, image=image))
    frame = scene.render(gl)
    rows = {row["layer"]: row for row in frame.graph.layer_table()}
    assert rows["kid0"]["painted_into"] == rows["kid1"]["painted_into"] == rows["card"]["backing"], "one backing"
    got = frame.image[..., :3].astype(float)
    expected = _children_reference(card_matrix(np.diag([1.25, 1.25, 1.0, 1.0]), None, box), kids)
    assert np.abs(got - expected).max() <= 2.0


def test_squashed_layers_at_fractional_positions_keep_their_own_edges(gl):
    """Layers squashed into one backing at fractional positions: each one's half-covered
    fringe texels are its own edge's colour."""
    kids = [((50.5, 10.25, 24, 30), smooth_image(24, 30, seed=3)), ((80.75, 40.5, 26, 30), smooth_image(26, 30, seed=4))]
    scene = Scene(W, H, "white")
    scene.root.add(Layer("promoted", (40, 0, 80, 100), "background: white; will-change: transform"))
    for k, (box, image) in enumerate(kids):
        scene.root.add(Layer(f"over{k}", box, image=image))
    frame = scene.render(gl)
    rows = {row["layer"]: row for row in frame.graph.layer_table()}
    assert rows["over0"]["painted_into"] == rows["over1"]["painted_into"], "squashed into one backing"
    got = frame.image[..., :3].astype(float)
    assert np.abs(got - _children_reference(np.eye(4), kids)).max() <= 2.0
