"""Raster scale (lamina.compositor.raster_scale and the planner's use of it): the ideal
scale per axis as cc's ComputeTransform2dScaleComponents measures it (rotation, skew,
a 4x4 fed as it is), the policy (animation held at its maximum, settle, will-change,
threshold, memory cap), and what the plan does with it (texture size = bounds x scale,
the draw divided by it, the report) -- without a GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.cli import main
from lamina.compositor.raster_scale import (
    ANIMATION_ADJUST_RATIO,
    KEEP_RATIO,
    MIN_VIEWPORT_DIMENSION,
    RasterScale,
    RasterScaleReason,
    ScaleInputs,
    carried,
    decide,
    memory_cap,
    scale_components,
    scale_key,
)
from lamina.geometry import Affine

VIEW = (800, 600)


def _close(a, b, tol=1e-9):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_scale_components_per_axis_of_a_scale_and_its_product():
    assert _close(scale_components(Affine.scale(3, 0.5)), (3.0, 0.5))
    m = Affine.translate(7, -2) @ Affine.scale(2, 2) @ Affine.scale(1.5, 4)
    assert _close(scale_components(m), (3.0, 8.0))


@pytest.mark.parametrize("degrees", [0, 17, 45, 90, 210])
def test_rotation_keeps_each_axis_scale(degrees):
    """A rotation maps unit vectors to unit vectors: rotate+scale(2, 3) is (2, 3)."""
    m = Affine.rotate(degrees) @ Affine.scale(2, 3)
    assert _close(scale_components(m), (2.0, 3.0))


def test_skew_lengthens_the_y_axis_by_its_secant():
    """skewX(a) maps (0, 1) to (tan a, 1): length 1/cos a; (1, 0) stays a unit."""
    sx, sy = scale_components(Affine.skew(30, 0))
    assert _close((sx, sy), (1.0, 1.0 / math.cos(math.radians(30))))


def test_a_4x4_without_perspective_is_measured_by_its_columns_and_with_it_falls_back():
    rng = np.random.default_rng(25)
    a = rng.normal(size=(3, 3))
    m4 = np.eye(4)
    m4[:3, :3] = a
    m4[:3, 3] = (5, 6, 7)
    expect = (np.linalg.norm(a[:, 0]), np.linalg.norm(a[:, 1]))
    assert _close(scale_components(m4), expect, 1e-12)
    m3 = [[2, 0, 9], [0, 5, 1], [0, 0, 1]]
    assert _close(scale_components(m3), (2.0, 5.0))
    m4[3, 2] = -0.01  # perspective
    assert scale_components(m4, fallback=1.0) == (1.0, 1.0)
    with pytest.raises(ValueError):
        scale_components([[1, 0], [0, 1]])


def test_scale_key_is_the_larger_axis_held_in_range():
    assert scale_key((3.0, 0.5)) == 3.0
    assert scale_key((0.0, 0.0)) == 1 / 16
    assert scale_key((float("nan"), 1.0)) == 1.0
    assert scale_key((1e9, 1.0)) == 10000.0


def _inputs(ideal, **kw):
    return ScaleInputs((ideal, ideal), kw.pop("size", (100.0, 50.0)), VIEW, **kw)


def test_a_static_layer_is_rastered_at_its_ideal_scale_with_dpr_in_the_report():
    d = decide(_inputs(3.0), None, device_scale=2.0)
    assert d.scale == 3.0 and d.reason is RasterScaleReason.IDEAL
    assert d.contents_scale == 6.0 and str(d) == "ideal 6.0"


def test_an_animation_fixes_the_scale_at_its_maximum_and_keeps_it_when_it_ends_there():
    """1 -> 3: held at 3 throughout; at rest the ideal is the held 3 (as float noise
    leaves it, 2.999998 or 3.0), so nothing is re-rastered and nothing says "settled"."""
    first = decide(_inputs(1.0, animating=True, animation_max=2.999998), None)
    assert first.scale == 2.999998 and first.reason is RasterScaleReason.ANIMATING
    assert str(first).startswith("animating: fixed at 3.0")
    held = first
    for ideal in np.linspace(1.0, 3.0, 20):
        held = decide(_inputs(float(ideal), animating=True, animation_max=2.999998), held)
        assert held.scale == 2.999998
    rest = decide(_inputs(3.0), held)
    assert rest.scale == 2.999998 and rest.reason is RasterScaleReason.IDEAL and str(rest) == "ideal 3.0"
    after = decide(_inputs(3.0), rest)
    assert after.scale == rest.scale and after.reason is RasterScaleReason.IDEAL


def test_an_animation_settles_once_when_its_rest_differs_from_the_held_maximum():
    """1 -> 3 -> 2: held at 3; at rest 2 is re-rastered once ("settled"), and the frames
    after it say "ideal 2.0", never "settled" again."""
    held = decide(_inputs(1.0, animating=True, animation_max=3.0), None)
    for ideal in (1.5, 3.0, 2.5, 2.0):
        held = decide(_inputs(ideal, animating=True, animation_max=3.0), held)
    settled = decide(_inputs(2.0), held)
    assert settled.scale == 2.0 and settled.reason is RasterScaleReason.SETTLED
    assert str(settled) == "settled: re-rastered at 2.0"
    later = settled
    for _ in range(3):
        later = decide(_inputs(2.0), later)
        assert later.scale == 2.0 and str(later) == "ideal 2.0"


@pytest.mark.parametrize("rest", [1.01, 1.0 * KEEP_RATIO * 0.999, 1.0 / KEEP_RATIO * 1.001])
def test_a_settle_within_the_keep_ratio_keeps_the_held_raster(rest):
    """An animation held at 1 ending within 2% of it (1 -> 1.01) keeps its raster: the
    settle obeys the same threshold as a static change."""
    held = decide(_inputs(1.0, animating=True, animation_max=1.0), None)
    held = decide(_inputs(rest, animating=True, animation_max=1.0), held)
    kept = decide(_inputs(rest), held)
    assert kept.scale == 1.0 and kept.reason is RasterScaleReason.KEPT


def test_a_carried_decision_is_no_longer_a_settle():
    """A frame that re-made nothing (fast path, scroll) carries last frame's decisions:
    a settle there is the layer's ideal, other reasons stand."""
    held = decide(_inputs(3.0, animating=True, animation_max=3.0), None)
    settled = decide(_inputs(2.0), held)
    assert carried(settled).reason is RasterScaleReason.IDEAL and carried(settled).scale == 2.0
    assert carried(held) is held


def test_an_animation_of_unknown_maximum_keeps_the_start_scale_until_ideal_outgrows_it_by_the_ratio():
    first = decide(_inputs(1.0, animating=True), None)
    assert first.scale == 1.0
    kept = decide(_inputs(ANIMATION_ADJUST_RATIO * 0.99, animating=True), first)
    assert kept.scale == 1.0
    grown = decide(_inputs(ANIMATION_ADJUST_RATIO * 1.01, animating=True), kept)
    assert grown.scale == pytest.approx(ANIMATION_ADJUST_RATIO * 1.01)


def test_will_change_keeps_its_first_scale_and_settles_when_the_hint_goes():
    first = decide(_inputs(2.0, will_change=True), None)
    assert first.scale == 2.0
    for ideal in (1.2, 3.0, 5.0):
        first = decide(_inputs(ideal, will_change=True), first)
        assert first.scale == 2.0 and first.reason is RasterScaleReason.WILL_CHANGE
    settled = decide(_inputs(5.0), first)
    assert settled.scale == 5.0 and settled.reason is RasterScaleReason.SETTLED


def test_a_small_change_keeps_the_raster_and_a_larger_one_does_not():
    at2 = decide(_inputs(2.0), None)
    kept = decide(_inputs(2.0 * (KEEP_RATIO - 0.005)), at2)
    assert kept.scale == 2.0 and kept.reason is RasterScaleReason.KEPT
    moved = decide(_inputs(2.0 * (KEEP_RATIO + 0.01)), kept)
    assert moved.scale == pytest.approx(2.0 * (KEEP_RATIO + 0.01)) and moved.reason is RasterScaleReason.IDEAL


def test_the_memory_cap_bounds_an_animating_raster_only():
    """Animating: at most D^2 px (D the viewport's longer side), cc's rule, and the text
    says the scale it wanted; a static layer rasters at its ideal (tiles bound its memory)."""
    d = max(*VIEW, MIN_VIEWPORT_DIMENSION)
    assert memory_cap((100.0, 50.0), VIEW) == pytest.approx(math.sqrt(d * d / 5000))
    capped = decide(_inputs(1.0, animating=True, animation_max=40.0), None)
    w, h = 100 * capped.scale, 50 * capped.scale
    assert capped.capped_from == 40.0 and w * h == pytest.approx(d * d)
    assert str(capped).endswith(f"capped by memory at {capped.scale:.3g} (wanted 40.0)")
    static = decide(_inputs(40.0), None)
    assert static.scale == 40.0 and static.capped_from is None and str(static) == "ideal 40.0"


def _card(transform: str, **style) -> Scene:
    scene = Scene(300, 200, background="#fff")
    extra = "".join(f"; {k.replace('_', '-')}: {v}" for k, v in style.items())
    scene.root.add(Layer("card", (10, 10, 40, 20), f"background: #36c; transform-origin: 0 0; transform: {transform}{extra}"))
    return scene


@pytest.mark.parametrize("transform, scale", [("scale(4)", 4.0), ("scale(2, 3)", 3.0), ("rotate(30deg) scale(2.5)", 2.5),
                                              ("none", 1.0)])
def test_the_plan_rasters_bounds_times_scale_and_draws_divided_by_it(transform, scale):
    graph = _card(transform).plan()
    (raster,) = [p for p in graph.raster_passes() if p.layer_id == "card"]
    assert (raster.target.width, raster.target.height) == (math.ceil(40 * scale), math.ceil(20 * scale))
    (draw,) = [d for c in graph.composite_passes() for d in c.draws if d.layer_id == "card"]
    # The draw maps the raster's px back: its image of the raster's corner is the box's.
    x, y = draw.transform.apply(raster.target.width, raster.target.height)
    m = Affine.translate(10, 10) @ _matrix(transform)
    ex, ey = m.apply(40, 20)
    assert abs(x - ex) < 1.0 and abs(y - ey) < 1.0
    assert graph.raster_scales["card"].scale == scale


def _matrix(transform: str) -> Affine:
    return {"scale(4)": Affine.scale(4, 4), "scale(2, 3)": Affine.scale(2, 3),
            "rotate(30deg) scale(2.5)": Affine.rotate(30) @ Affine.scale(2.5, 2.5), "none": Affine()}[transform]


def test_dpr_and_the_layer_scale_multiply_in_the_report():
    scene = _card("scale(3)")
    scene.device_scale_factor = 2
    graph = scene.plan()
    assert graph.raster_scales["card"].contents_scale == 6.0
    assert "card: ideal 6.0" in graph.describe()
    assert graph.to_dict()["raster_scales"]["card"]["raster_scale"] == 6.0
    (raster,) = [p for p in graph.raster_passes() if p.layer_id == "card"]
    assert (raster.target.width, raster.target.height) == (240, 120)


def test_an_unscaled_scene_reports_no_raster_scales():
    graph = _card("translate(3px, 4px)").plan()
    assert "Raster scales" not in graph.describe() and graph.to_dict()["raster_scales"] == {}


def test_a_large_static_scale_is_tiled_and_only_tiles_near_the_viewport_exist():
    """scale(40) of a 100x100 layer in a 1280x720 frame: rastered at 40 (a 4000 px
    raster, no memory cap for a static layer), above the tiling threshold, so it is cut
    into tiles and only those the interest rect touches are rastered."""
    scene = Scene(1280, 720, background="#fff")
    scene.root.add(Layer("big", (0, 0, 100, 100), "background: linear-gradient(#f06, #48f); transform-origin: 0 0; "
                                                  "transform: scale(40)"))
    graph = scene.plan()
    decision = graph.raster_scales["big"]
    assert decision.capped_from is None and decision.scale == 40.0
    (tiles,) = [t for t in graph.tiles if t.owner == "big"]
    assert tiles.content == (4000, 4000)
    assert tiles.kept < tiles.grid[0] * tiles.grid[1]



def test_a_translation_animation_ending_at_scale_1_is_plainly_ideal():
    held = decide(_inputs(1.0, animating=True, animation_max=1.0), None)
    assert held.reason is RasterScaleReason.ANIMATING and held.scale == 1.0
    assert decide(_inputs(1.0), held).reason is RasterScaleReason.IDEAL


def _scene_file(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"width": 20, "height": 20}')
    return str(path)


@pytest.mark.parametrize("argv, says", [
    (["explain", "S", "--plan-only", "--from", "0", "-t", "1"], "--from renders the frames"),
    (["explain", "S", "--fps", "30"], "--fps needs --from"),
    (["explain", "S", "--from", "2", "-t", "1"], "--from 2: must be a finite time no later than -t 1"),
    (["explain", "S", "--from", "0", "-t", "1000", "--fps", "60"], "at most 10000"),
    (["render", "S", "--frames", "0:2", "--out", "D", "--dpr", "2", "--trace", "x.json"], "--trace is for one frame"),
])
def test_cli_frame_sequences_refuse_what_they_cannot_do(tmp_path, capsys, argv, says):
    """explain --from and render --frames (in order) say what is wrong, before any GPU work."""
    argv = [_scene_file(tmp_path) if a == "S" else str(tmp_path) if a == "D" else a for a in argv]
    assert main(argv) == 2
    assert says in capsys.readouterr().err


def test_cli_batch_dpr_error_does_not_ask_for_an_out_already_given(tmp_path, capsys):
    """Several scenes with --dpr: the error says what --dpr goes with, never "give --out DIR"."""
    scene = _scene_file(tmp_path)
    assert main(["render", scene, scene, "--out", str(tmp_path), "--dpr", "2"]) == 2
    err = capsys.readouterr().err
    assert "--dpr is for one frame" in err and "give --out" not in err and "one scene's --frames" in err


def _texture_bytes(graph) -> int:
    """The bytes of every texture the frame's passes write (each counted once)."""
    return sum(t.bytes for t in {p.target.name: p.target for p in graph.passes}.values())


def _shared_scaled(k: float, child: bool) -> Scene:
    """A 400x300 frame where layer "a" under scale(k) shares a backing: with a sibling,
    or (``child``) as a card with a backgrounded child."""
    scene = Scene(400, 300, background="#fff")
    a = scene.root.add(Layer("a", (0, 0, 300, 200),
                             f"background:#eef; border-radius:8px; transform-origin:0 0; transform: scale({k})"))
    if child:
        a.add(Layer("child", (10, 10, 100, 50), "background:#f00"))
    else:
        scene.root.add(Layer("b", (350, 250, 20, 20), "background:#00f"))
    return scene


@pytest.mark.parametrize("k, child", [(50, False), (20, True)])
def test_a_scaled_layer_in_a_shared_backing_rasters_only_what_the_backing_shows(k, child):
    """A statically scaled layer painted into a shared backing keeps its ideal scale (no
    blur) but its memory is bounded by the frame, not by its scale: only the part the
    backing shows is rastered (issue 25, review A: scale(50) rastered 15000x10000, 601 MB)."""
    graph = _shared_scaled(k, child).plan()
    decision = graph.raster_scales["a"]
    assert decision.scale == k and decision.capped_from is None and str(decision) == f"ideal {k}.0"
    frame_bytes = 400 * 300 * 4
    assert _texture_bytes(graph) <= 40 * frame_bytes  # was 1250x (scale 50) / 218x (scale 20)
    assert all(p.target.width <= 4096 and p.target.height <= 4096 for p in graph.passes)


def test_a_layer_capped_by_texture_size_does_not_say_ideal_at_the_capped_scale():
    """A static layer cut by the texture-size cap says only the cap and its ideal
    ("capped by texture size at 10.9 (ideal 12.0)"), never "ideal 10.9; ... (ideal 12.0)"."""
    capped = RasterScale(5.46, RasterScaleReason.IDEAL, (6.0, 6.0), 2.0, capped_from=6.0, capped_by="texture size")
    assert str(capped) == "capped by texture size at 10.9 (ideal 12.0)"
    held = RasterScale(2.0, RasterScaleReason.ANIMATING, (4.0, 4.0), 1.0, capped_from=3.0, animating=True)
    assert str(held) == "animating: fixed at 2.0 (ideal now 4.0); capped by memory at 2.0 (wanted 3.0)"
