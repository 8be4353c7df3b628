"""A projected quad drawn as nine cells (executor._projected_cells: an inset centre
with coverage 1, whose pixels skip quad.frag's exact-area code, and the fringe around
it) gives the pixels of the one whole draw: GL rasterises each pixel centre in exactly
one cell (a pixel shaded twice or never would be tens of levels off under these
opacities), and no pixel of the centre needed the area code. Within 1 level on a few
pixels only: the source position is interpolated over other triangles, so a bilinear
read can round the other way."""

from __future__ import annotations

import numpy as np
import pytest

import lamina.gpu.executor as executor
from lamina import Layer, Scene
from lamina.tiling import Tiling

W, H = 160, 120


def assert_same_pixels(cut: np.ndarray, whole: np.ndarray) -> None:
    diff = np.abs(cut.astype(int) - whole.astype(int))
    assert diff.max() <= 1, f"a pixel {diff.max()} levels off: shaded twice or never"
    assert (diff > 0).any(axis=-1).sum() <= 0.002 * W * H, "more than interpolation's rounding"


def tilted_cards(seed: int) -> Scene:
    """Translucent gradient cards at seeded 3D rotations, depths and positions, some past
    the frame's edge, under a seeded perspective."""
    rng = np.random.default_rng(seed)
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), f"perspective: {rng.uniform(150, 600):.1f}px"))
    for k in range(5):
        x, y = rng.uniform(-30, W - 20), rng.uniform(-25, H - 15)
        w, h = rng.uniform(8, 70), rng.uniform(8, 60)
        ax, ay, az = rng.uniform(-75, 75, 3)
        z = rng.uniform(-120, 60)
        stage.add(Layer(f"c{k}", (x, y, w, h), style=(
            f"transform: translateZ({z:.2f}px) rotateX({ax:.2f}deg) rotateY({ay:.2f}deg) rotateZ({az:.2f}deg); "
            f"background: linear-gradient({rng.uniform(0, 360):.0f}deg, #2a6 0%, #c31 100%); "
            f"opacity: {rng.uniform(0.4, 0.9):.2f}")))
    return scene


def render_both(gl, scene: Scene, monkeypatch, **kw) -> tuple[np.ndarray, np.ndarray, int]:
    """The scene drawn with split projected quads and with every quad whole; how many
    draws were split."""
    split = 0
    cells_of = executor._projected_cells

    def counting(*args):
        nonlocal split
        cells = cells_of(*args)
        split += cells is not None
        return cells

    monkeypatch.setattr(executor, "_projected_cells", counting)
    gl.drop_caches()
    cut = scene.render(gl, **kw).image.copy()
    monkeypatch.setattr(executor, "_projected_cells", lambda *args: None)
    gl.drop_caches()
    whole = scene.render(gl, **kw).image.copy()
    return cut, whole, split


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_split_projected_draws_equal_the_whole_draw(gl, monkeypatch, seed):
    cut, whole, split = render_both(gl, tilted_cards(seed), monkeypatch)
    assert split >= 3, "most cards were drawn split"
    assert_same_pixels(cut, whole)


def test_split_tiles_keep_their_hard_edges(gl, monkeypatch):
    """Tiles of one projected layer: a tile's side that a neighbour continues is not
    inset (nor faded), and the tiles still meet without a seam or a double pixel."""
    scene = Scene(W, H, "white")
    stage = scene.root.add(Layer("stage", (0, 0, W, H), "perspective: 300px"))
    stage.add(Layer("card", (14, 12, 130, 96), style="transform: rotateY(35deg) rotateX(-20deg); opacity: 0.7; "
                    "background: linear-gradient(to right, blue, red)"))
    cut, whole, split = render_both(gl, scene, monkeypatch, tiling=Tiling(tile_size=32, threshold=64, interest_margin=0))
    assert split > 4, "the tiles were drawn split"
    assert_same_pixels(cut, whole)


def test_the_inset_cell_lies_half_a_diagonal_inside_every_edge():
    """Every corner of the centre cell's image (and so, the distance being linear, all of
    it) is at least HALF_DIAGONAL target px inside each of the quad's four edge lines,
    for seeded steep projections: the area code would give each of its pixels 1."""
    from lamina.geometry import Projective

    rng = np.random.default_rng(26)
    checked = 0
    for _ in range(200):
        m = Projective(*rng.uniform(-1.5, 1.5, 4), *rng.uniform(0, 200, 2), *rng.uniform(-0.004, 0.004, 2), 1.0)
        w, h = rng.uniform(2, 120, 2)

        class Quad:
            transform = m
            hard_edges = (False, False, False, False)
            source = type("S", (), {"width": w, "height": h})

        rect = executor._projected_draw_rect(m, w, h)
        if rect is None or not m.is_invertible():
            continue
        edges = executor._edge_lines(Quad)
        cells = executor._projected_cells(m, Quad, rect, edges)
        if cells is None:
            continue
        inner = [c for c, fringe in cells if not fringe]
        assert len(inner) == 1 and len(cells) == 9
        x0, y0, x1, y1 = inner[0]
        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            X, Y = m.apply(x, y)
            assert min(nx * X + ny * Y + c for nx, ny, c in edges) >= executor._HALF_DIAGONAL
        checked += 1
    assert checked > 50
