"""lamina.geometry3d: layers of a 3D rendering context as screen-space polygons, split
by each other's planes and sorted back to front by a BSP tree.

The oracle for drawing order is independent of the code under test: for each pixel
sample, each *original* layer is ray-cast (its rect's homography inverted at the sample,
depth from its own 4x4 matrix), the nearest layer is the one with the largest z, and the
fragment list must draw that layer's fragment last among the fragments covering the
sample. Samples within a hair of any fragment edge (where the answer flips) are skipped.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lamina.errors import GeometryError
from lamina.geometry3d import (SPLIT_THRESHOLD, BspTree, ContextLayer, DropReason, Side, SortStrategy,
                               is_back_face_visible, project_layer_rect, sort_context, sort_polygons)
from tests.matrices3d import about, perspective, rotate_x, rotate_y, scale, translate

STRATEGIES = list(SortStrategy)


# --- the independent oracle -----------------------------------------------------------

def ray_cast_nearest(layers, xs, ys):
    """Per sample: index of the nearest layer covering it (-1: none), and the depth gap
    to the second nearest (inf when one or none covers it)."""
    samples = np.stack([xs, ys, np.ones_like(xs)], axis=1)
    depths = np.full((len(layers), len(xs)), -np.inf)
    for i, layer in enumerate(layers):
        m = np.asarray(layer.transform, dtype=float)
        homography = m[np.ix_((0, 1, 3), (0, 1, 3))]  # layer (u, v, 1) -> screen (x w, y w, w)
        uvw = samples @ np.linalg.inv(homography).T
        u, v = uvw[:, 0] / uvw[:, 2], uvw[:, 1] / uvw[:, 2]
        x0, y0, w, h = layer.rect
        local = np.stack([u, v, np.zeros_like(u), np.ones_like(u)], axis=1) @ m.T
        inside = (u >= x0) & (u <= x0 + w) & (v >= y0) & (v <= y0 + h) & (local[:, 3] > 0)
        depths[i, inside] = (local[:, 2] / local[:, 3])[inside]
    order = np.argsort(-depths, axis=0)
    nearest = np.where(np.isfinite(depths.max(axis=0)), order[0], -1)
    second = depths[order[1], np.arange(len(xs))] if len(layers) > 1 else np.full(len(xs), -np.inf)
    with np.errstate(invalid="ignore"):  # -inf - -inf where nothing covers a sample
        gap = np.nan_to_num(depths.max(axis=0) - second, nan=np.inf)
    return nearest, gap


def covers(points, xs, ys, margin):
    """Samples strictly inside a convex polygon's xy projection (either winding), and
    samples within ``margin`` of its boundary."""
    p = points[:, :2]
    q = np.roll(p, -1, axis=0)
    edge = q - p
    length = np.maximum(np.linalg.norm(edge, axis=1), 1e-300)
    # signed distance of each sample from each edge's line
    cross = (edge[:, 0:1] * (ys[None] - p[:, 1:2]) - edge[:, 1:2] * (xs[None] - p[:, 0:1])) / length[:, None]
    sign = np.sign(np.sum(edge[:, 0] * np.roll(edge[:, 1], -1) - edge[:, 1] * np.roll(edge[:, 0], -1)))
    inside = (cross * sign > margin).all(axis=0)
    # near an edge: within margin of the segment
    t = np.clip(((xs[None] - p[:, 0:1]) * edge[:, 0:1] + (ys[None] - p[:, 1:2]) * edge[:, 1:2]) / length[:, None] ** 2,
                0, 1)
    dx = xs[None] - (p[:, 0:1] + t * edge[:, 0:1])
    dy = ys[None] - (p[:, 1:2] + t * edge[:, 1:2])
    near = (np.hypot(dx, dy) <= margin).any(axis=0)
    return inside, near


def check_order_by_ray_cast(layers, result, grid=48, margin=1e-3, min_checked=50, window=None):
    """At every grid sample not on an edge, the fragment drawn last is the nearest layer's,
    and a sample is covered by some fragment exactly where some layer covers it. The grid
    spans the fragments' bounds, or ``window`` ((x0, y0), (x1, y1))."""
    drawn = [layer for layer in layers if layer.layer_id not in {d.layer_id for d in result.dropped}]
    pts = np.concatenate([f.polygon.points for f in result.fragments])
    lo, hi = pts[:, :2].min(axis=0) - 3, pts[:, :2].max(axis=0) + 3
    if window is not None:
        lo, hi = np.array(window[0], dtype=float), np.array(window[1], dtype=float)
    # an irrational offset keeps samples off the axis-aligned edges of the scenes
    gx = lo[0] + (np.arange(grid) + 0.5 + 1 / math.pi) * (hi[0] - lo[0]) / grid
    gy = lo[1] + (np.arange(grid) + 0.5 + 1 / math.e) * (hi[1] - lo[1]) / grid
    xs, ys = (a.ravel() for a in np.meshgrid(gx, gy))
    nearest, gap = ray_cast_nearest(drawn, xs, ys)
    index = {layer.layer_id: i for i, layer in enumerate(drawn)}
    last = np.full(len(xs), -1)
    ambiguous = np.zeros(len(xs), dtype=bool)
    for f in result.fragments:
        inside, near = covers(f.polygon.points, xs, ys, margin)
        last[inside] = index[f.layer_id]
        ambiguous |= near
    for layer in drawn:  # the layers' own outlines, where coverage flips
        made = project_layer_rect(layer.layer_id, 0, layer.rect, layer.transform)
        ambiguous |= covers(made.points, xs, ys, margin)[1]
    checked = ~ambiguous & ((gap > 1e-6) | (nearest < 0))
    assert checked.sum() >= min_checked, f"only {checked.sum()} samples off the edges"
    wrong = checked & (last != nearest)
    assert not wrong.any(), (
        f"{wrong.sum()} of {checked.sum()} samples draw the wrong layer last, e.g. at "
        f"{xs[wrong][:3].round(2).tolist()}, {ys[wrong][:3].round(2).tolist()}: "
        f"drawn {last[wrong][:3].tolist()}, nearest {nearest[wrong][:3].tolist()}")
    return int(checked.sum())


def area_by_layer(result):
    out = {}
    for f in result.fragments:
        out[f.layer_id] = out.get(f.layer_id, 0.0) + f.polygon.area()
    return out


# --- depth order without intersections ------------------------------------------------

@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_stack_is_sorted_by_depth_whatever_the_paint_order(strategy, rng):
    """Parallel layers at different z, painted in a random order, overlapping on screen:
    drawn farthest first, none split."""
    zs = rng.permutation(np.linspace(-200, 200, 12))
    layers = [ContextLayer(f"z{z:g}", (0, 0, 100, 80), translate(rng.uniform(-20, 20), rng.uniform(-20, 20), z))
              for z in zs]
    result = sort_context(layers, strategy)
    drawn_z = [f.polygon.points[0, 2] for f in result.fragments]
    assert drawn_z == sorted(zs.tolist()) and result.splits == 0
    assert result.fragments_out == result.polygons_in == 12
    check_order_by_ray_cast(layers, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tilted_stack_is_sorted_by_depth(strategy, rng):
    """Parallel tilted cards (rotateY 40deg, rotateX 20deg) at different z, in a random
    paint order: back to front along z, none split."""
    zs = rng.permutation(np.arange(8) * 60.0)
    tilt = rotate_y(40) @ rotate_x(20)
    layers = [ContextLayer(i, (0, 0, 120, 90), translate(0, 0, z) @ about(tilt, (60, 45, 0))) for i, z in enumerate(zs)]
    result = sort_context(layers, strategy)
    assert [zs[f.layer_id] for f in result.fragments] == sorted(zs.tolist()) and result.splits == 0
    check_order_by_ray_cast(layers, result)


# --- splitting --------------------------------------------------------------------------

def crossing_pair(angle=30.0, extra=np.eye(4)):
    """Two 100x100 layers through the same vertical axis at x = 50, rotated +-angle about
    it: they cross along that axis."""
    return [ContextLayer("a", (0, 0, 100, 100), extra @ about(rotate_y(angle), (50, 50, 0))),
            ContextLayer("b", (0, 0, 100, 100), extra @ about(rotate_y(-angle), (50, 50, 0)))]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_intersecting_planes_split_into_three_fragments_in_depth_order(strategy):
    """As in cc, the first layer is the splitter and the second is cut in two by its
    plane: 3 fragments (a BSP of two polygons never cuts both; an 'X' drawn as b's back
    half, a, b's front half). Each layer's pieces cover its area exactly, in screen space
    and mapped back to layer space, and every sample draws the nearest layer last."""
    layers = crossing_pair()
    result = sort_context(layers, strategy)
    assert result.splits == 1 and result.fragments_out == 3 and result.layers_split() == ("b",)
    assert result.layer_order() == ("b", "a", "b")
    originals = {layer.layer_id: project_layer_rect(layer.layer_id, 0, layer.rect, layer.transform) for layer in layers}
    for layer_id, area in area_by_layer(result).items():
        assert area == pytest.approx(originals[layer_id].area(), rel=1e-12)
    b_pieces = [f.polygon for f in result.fragments if f.layer_id == "b"]
    assert all(f.is_split for f in result.fragments if f.layer_id == "b")
    assert sum(p.screen_area() for p in b_pieces) == pytest.approx(originals["b"].screen_area(), rel=1e-12)
    local = [p.to_layer_space(layers[1].transform) for p in b_pieces]
    assert sum(0.5 * abs(np.dot(q[:, 0], np.roll(q[:, 1], -1)) - np.dot(q[:, 1], np.roll(q[:, 0], -1)))
               for q in local) == pytest.approx(100 * 100, rel=1e-12)
    assert all(((q >= -1e-9) & (q <= 100 + 1e-9)).all() for q in local)
    assert check_order_by_ray_cast(layers, result) > 500


@pytest.mark.parametrize("d", [150.0, 400.0, 2000.0])
def test_intersecting_planes_under_perspective(d):
    """The crossing pair seen through perspective(d) from above their middle: still 3
    fragments, areas kept, order right at every sample (depth in screen space after the
    divide orders points as the eye does)."""
    layers = crossing_pair(35.0, perspective(d, (50, 50)) @ translate(0, 0, -20))
    result = sort_context(layers)
    assert result.splits == 1 and result.fragments_out == 3
    check_order_by_ray_cast(layers, result)


def test_split_classifies_against_the_thick_plane():
    """DrawPolygon.split: front, back, coplanar before/after by paint order, and a cut
    whose pieces keep the layer; a polygon within SPLIT_THRESHOLD of the plane is
    coplanar, and one that only dips into the thick plane is not cut."""
    flat = project_layer_rect("base", 5, (0, 0, 100, 100), np.eye(4))

    def polygon(order, m):
        return project_layer_rect(f"p{order}", order, (0, 0, 100, 100), m)

    assert flat.split(polygon(1, translate(z=10))).side is Side.FRONT
    assert flat.split(polygon(1, translate(z=-10))).side is Side.BACK
    near = polygon(9, translate(z=0.6 * SPLIT_THRESHOLD))
    assert flat.split(near).side is Side.COPLANAR_FRONT
    assert flat.split(polygon(2, translate(z=-0.6 * SPLIT_THRESHOLD))).side is Side.COPLANAR_BACK
    # tilted so one edge is 0.03 px below the plane and the rest above: in front, not cut
    dip = polygon(3, translate(z=-0.03) @ rotate_y(-math.degrees(math.asin(10.0 / 100))))
    assert dip.points[:, 2].min() == pytest.approx(-0.03) and flat.split(dip).side is Side.FRONT
    cut = flat.split(polygon(4, about(rotate_x(60), (50, 50, 0))))
    assert cut.side is Side.SPLIT and cut.front.layer_id == cut.back.layer_id == "p4"
    assert cut.front.is_split and cut.back.is_split
    assert (flat.signed_distances(cut.front.points) >= -1e-9).all()
    assert (flat.signed_distances(cut.back.points) <= 1e-9).all()


# --- coplanar layers ----------------------------------------------------------------------

@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("tilt", [np.eye(4), about(rotate_y(50) @ rotate_x(-30), (60, 40, 0))])
def test_coplanar_layers_keep_paint_order(strategy, tilt, rng):
    """Overlapping layers in one plane (flat, and tilted), some turned to face the other
    way (rotateY(180deg) keeps the plane): drawn in paint order, none split."""
    layers = []
    for i in range(9):
        offset = translate(rng.uniform(0, 40), rng.uniform(0, 40))
        turn = about(rotate_y(180), (50, 40, 0)) if rng.random() < 0.4 else np.eye(4)
        layers.append(ContextLayer(i, (0, 0, 100, 80), tilt @ offset @ turn))
    result = sort_context(layers, strategy)
    assert result.layer_order() == tuple(range(9)) and result.splits == 0


def test_coplanar_layers_keep_paint_order_around_a_crossing_layer():
    """Paint order: a, b, c with a and c coplanar and b crossing them: b is cut by a's
    plane, and c still comes after a."""
    layers = [ContextLayer("a", (0, 0, 100, 100), np.eye(4)),
              ContextLayer("b", (0, 0, 100, 100), about(rotate_x(70), (50, 50, 0))),
              ContextLayer("c", (20, 20, 60, 60), np.eye(4))]
    result = sort_context(layers, SortStrategy.ONE_TREE)
    order = result.layer_order()
    assert order.index("a") < order.index("c") and result.layers_split() == ("b",)
    check_order_by_ray_cast(layers, result)


# --- random scenes ------------------------------------------------------------------------

def random_scene(rng, n, with_perspective):
    layers = []
    for i in range(n):
        w, h = rng.uniform(40, 160, 2)
        m = (translate(rng.uniform(0, 120), rng.uniform(0, 120), rng.uniform(-60, 60))
             @ about(rotate_y(rng.uniform(-70, 70)) @ rotate_x(rng.uniform(-70, 70)), (w / 2, h / 2, 0)))
        if with_perspective:
            m = perspective(rng.uniform(300, 1200), (100, 100)) @ m
        layers.append(ContextLayer(i, (0, 0, w, h), m))
    return layers


@pytest.mark.parametrize("with_perspective", [False, True])
def test_random_scenes_are_drawn_nearest_last(with_perspective, rng):
    """Seeded scenes of 7 randomly rotated, overlapping, often intersecting layers: every
    strategy draws the nearest layer last at every sample, keeps each layer's area, and
    the partitioned sort cuts no more than one tree."""
    for _ in range(6):
        layers = random_scene(rng, 7, with_perspective)
        originals = {layer.layer_id: project_layer_rect(layer.layer_id, 0, layer.rect, layer.transform)
                     for layer in layers}
        results = {s: sort_context(layers, s) for s in STRATEGIES}
        for result in results.values():
            assert result.fragments_out == result.polygons_in + result.splits
            for layer_id, area in area_by_layer(result).items():
                assert area == pytest.approx(originals[layer_id].area(), rel=1e-9)
            check_order_by_ray_cast(layers, result, grid=40, min_checked=20)
        assert results[SortStrategy.PARTITIONED].splits <= results[SortStrategy.ONE_TREE].splits


def test_a_long_chain_needs_no_recursion():
    """1,500 stacked layers painted back to front make one tree a chain 1,500 deep: built
    and walked without recursion (past Python's limit of 1,000), in order."""
    layers = [ContextLayer(i, (0, 0, 10, 10), translate(z=float(i))) for i in range(1500)]
    result = sort_context(layers, SortStrategy.ONE_TREE)
    assert result.layer_order() == tuple(range(1500))
    assert result.splitter_tests == 1500 * 1499 // 2


def test_the_bsp_tree_reports_its_work():
    polygons = [project_layer_rect(layer.layer_id, i, layer.rect, layer.transform)
                for i, layer in enumerate(crossing_pair())]
    tree = BspTree(polygons)
    assert (tree.stats.polygons_in, tree.stats.fragments_out, tree.stats.splits) == (2, 3, 1)
    assert (tree.stats.splitter_tests, tree.stats.nodes, tree.stats.depth) == (1, 3, 2)
    assert [p.layer_id for p in tree.back_to_front()] == ["b", "a", "b"]


# --- perspective and the eye plane --------------------------------------------------------

def test_a_layer_reaching_behind_the_eye_is_clipped_at_w_zero():
    """perspective(200) and a long layer tipped toward the viewer (rotateX 80deg about its
    top edge) so its far end passes the eye plane: the quad is clipped to w > 0 before the
    divide (finite points, two of them on the clip plane, far out), and the part on
    screen is sorted right against a flat layer it crosses."""
    p = perspective(200, (50, 50))
    tipped = p @ about(rotate_x(80), (50, 0, 0))
    polygon = project_layer_rect("tipped", 0, (0, 0, 100, 400), tipped)
    assert not isinstance(polygon, DropReason) and np.isfinite(polygon.points).all()
    corners = np.array([[0, 400, 0, 1], [100, 400, 0, 1]]) @ tipped.T
    assert (corners[:, 3] < 0).all(), "the far corners are behind the eye"
    layers = [ContextLayer("tipped", (0, 0, 100, 400), tipped), ContextLayer("flat", (0, 0, 100, 100), p @ translate(z=50))]
    assert len(polygon.points) == 4 and np.abs(polygon.points[:, :2]).max() > 1e5
    result = sort_context(layers)
    assert result.splits == 1
    check_order_by_ray_cast(layers, result, window=((-50, -50), (150, 150)), min_checked=500)


def test_a_layer_behind_the_eye_is_dropped():
    layers = [ContextLayer("behind", (0, 0, 50, 50), perspective(100) @ translate(z=150)),
              ContextLayer("seen", (0, 0, 50, 50), perspective(100))]
    result = sort_context(layers)
    assert result.layer_order() == ("seen",)
    assert [(d.layer_id, d.reason) for d in result.dropped] == [("behind", DropReason.BEHIND_VIEWER)]


# --- backface-visibility ------------------------------------------------------------------

@pytest.mark.parametrize(("m", "back"), [
    (np.eye(4), False), (rotate_y(180), True), (rotate_y(89), False), (rotate_y(91), True),
    (rotate_x(-120), True), (scale(-1, 1), False), (scale(1, 1, -1), True),
    (perspective(100) @ rotate_y(80), False), (perspective(100) @ rotate_y(100), True),
    (scale(0, 1), False),
])
def test_back_face_visible_as_cc(m, back):
    """cc's IsBackFaceVisible: the sign of the mapped normal's z (cofactor33 * det); a
    mirror in x or y keeps the front; a non-invertible matrix shows no back."""
    assert is_back_face_visible(m) is back


def test_back_face_agrees_with_the_polygon_normal(rng):
    """For random rotations (and perspective), a polygon faces away from the viewer
    exactly when its transform's back face is visible."""
    for _ in range(200):
        m = about(rotate_y(rng.uniform(-180, 180)) @ rotate_x(rng.uniform(-180, 180)), (20, 20, 0))
        if rng.random() < 0.5:
            m = perspective(rng.uniform(500, 900), (20, 20)) @ m
        polygon = project_layer_rect(0, 0, (0, 0, 40, 40), m)
        if isinstance(polygon, DropReason) or abs(polygon.normal[2]) < 1e-6:
            continue
        assert polygon.faces_viewer() is not is_back_face_visible(m)


def test_backface_hidden_layers_whose_back_faces_the_viewer_are_dropped():
    layers = [ContextLayer("front", (0, 0, 50, 50), np.eye(4), backface_hidden=True),
              ContextLayer("flipped", (0, 0, 50, 50), about(rotate_y(180), (25, 25, 0)), backface_hidden=True),
              ContextLayer("flipped, visible", (0, 0, 50, 50), about(rotate_y(180), (25, 25, 0)) @ translate(z=-5))]
    result = sort_context(layers)
    assert set(result.layer_order()) == {"front", "flipped, visible"}
    assert [(d.layer_id, d.reason) for d in result.dropped] == [("flipped", DropReason.BACKFACE_HIDDEN)]
    assert "not drawn: flipped (backface-visibility: hidden" in result.describe()


# --- degenerate and bad input ---------------------------------------------------------------

def test_layers_that_draw_nothing_say_why():
    assert project_layer_rect("a", 0, (0, 0, 0, 10), np.eye(4)) is DropReason.ZERO_AREA
    assert project_layer_rect("a", 0, (0, 0, 10, 10), scale(1, 0)) is DropReason.NON_INVERTIBLE
    assert project_layer_rect("a", 0, (0, 0, 10, 10), scale(1, 1, 0)) is DropReason.NON_INVERTIBLE
    edge_on = project_layer_rect("a", 0, (0, 0, 10, 10), rotate_y(90))
    assert edge_on.screen_area() == pytest.approx(0, abs=1e-9) and edge_on.area() == pytest.approx(100)


@pytest.mark.parametrize(("rect", "transform", "message"), [
    ((0, 0, -1, 10), np.eye(4), "width and height must be >= 0"),
    ((0, 0, float("nan"), 10), np.eye(4), "non-finite"),
    ((0, 0, 10), np.eye(4), "rect must be"),
    ((0, 0, 10, 10), np.eye(3), "4x4 matrix, got shape (3, 3)"),
    ((0, 0, 10, 10), np.full((4, 4), np.inf), "non-finite entries"),
    ((0, 0, 10, 10), "matrix3d(1)", "4x4 matrix"),
])
def test_bad_input_is_a_geometry_error_naming_the_layer(rect, transform, message):
    with pytest.raises(GeometryError, match=r"layer 'card'") as caught:
        project_layer_rect("card", 0, rect, transform)
    assert message in str(caught.value)


def test_describe_lists_order_splits_and_costs():
    result = sort_context(crossing_pair() + [ContextLayer("top", (0, 0, 100, 100), translate(z=90))])
    text = result.describe()
    assert "3 polygons -> 4 fragments, 1 split (layers split: b)" in text
    assert "back to front: b (1/2), a, b (2/2), top" in text
    assert "2 trees" not in text and "1 tree (largest 2 polygons), 1 splitter tests" in text
    summary = result.summary()
    assert summary["order"] == ["b", "a", "b", "top"] and summary["split_fragments"] == [True, False, True, False]
    assert (summary["polygons_in"], summary["fragments_out"], summary["splits"], summary["layers_split"]) == (
        3, 4, 1, ["b"])
    json.dumps(summary)  # plain data


def test_empty_context():
    result = sort_polygons([])
    assert result.fragments == () and "(nothing drawn)" in result.describe()


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("hidden", [False, True])
def test_a_cube_in_perspective(strategy, hidden):
    """Six faces of a 100 px cube turned (rotateX -25deg, rotateY 30deg) under
    perspective(600): faces meet at edges but none is cut (the thick plane), each sample
    draws the nearest face last; with backface-visibility: hidden the three faces turned
    away are dropped."""
    turns = [np.eye(4), rotate_y(90), rotate_y(180), rotate_y(270), rotate_x(90), rotate_x(-90)]
    view = perspective(600, (50, 50)) @ about(rotate_x(-25) @ rotate_y(30), (50, 50, 0))
    layers = [ContextLayer(f"face{k}", (0, 0, 100, 100), view @ about(turn, (50, 50, 0)) @ translate(z=50),
                           backface_hidden=hidden) for k, turn in enumerate(turns)]
    result = sort_context(layers, strategy)
    assert result.splits == 0
    assert len(result.dropped) == (3 if hidden else 0)
    if hidden:
        assert all(f.polygon.faces_viewer() for f in result.fragments)
    check_order_by_ray_cast(layers, result)


def test_groups_apart_on_screen_get_a_tree_each():
    """Two crossing pairs side by side at the same depth: the partitioned sort builds a
    tree per pair (apart in x), cuts each pair once, and draws each pair's pieces around
    its splitter; cc's one tree orders the same pixels."""
    layers = crossing_pair() + [ContextLayer(f"{layer.layer_id}2", layer.rect, translate(250) @ layer.transform)
                                for layer in crossing_pair()]
    result = sort_context(layers)
    assert (result.trees, result.largest_tree, result.splits) == (2, 2, 2)
    assert result.layer_order() == ("b", "a", "b", "b2", "a2", "b2")
    for strategy in STRATEGIES:
        check_order_by_ray_cast(layers, sort_context(layers, strategy))


@pytest.mark.parametrize("with_perspective", [False, True])
def test_a_crowded_scene_cuts_pieces_again(with_perspective):
    """30 random layers (a fixed seed) crowded into one place: pieces are cut again and
    again (some reach more than 4 vertices: the builder's padded store widens), and the
    order is still right at every sample, with every layer's area kept."""
    layers = random_scene(np.random.default_rng(30), 30, with_perspective)
    result = sort_context(layers)
    assert result.splits > 30 and max(len(f.polygon.points) for f in result.fragments) > 4
    originals = {layer.layer_id: project_layer_rect(layer.layer_id, 0, layer.rect, layer.transform) for layer in layers}
    for layer_id, area in area_by_layer(result).items():
        assert area == pytest.approx(originals[layer_id].area(), rel=1e-9)
    check_order_by_ray_cast(layers, result, grid=64)
