"""Frame graph structure from ``scene.plan()`` (no GPU involved), under the "none" policy:
nothing is kept, each drawing layer is rastered for the frame and drawn from that raster —
the per-layer structure these tests read."""

from __future__ import annotations

import threading

import json
import math

import pytest

from lamina import Layer, Scene
from lamina.errors import TextureTooLargeError, UnsupportedFeatureError
from lamina.tiling import Tiling
from lamina.framegraph import (
    CompositePass,
    Draw,
    FrameGraph,
    SurfaceReason,
    TextureDesc,
    TextureRole,
)
from lamina.geometry import Affine
from lamina.limits import MAX_CLIPS_PER_DRAW, Limits

RED = "background-color: red"


def frame_pass(graph: FrameGraph) -> CompositePass:
    last = graph.passes[-1]
    assert isinstance(last, CompositePass) and last.reason is SurfaceReason.ROOT
    assert last.target is graph.output and graph.output.role is TextureRole.FRAME
    return last


def frame_draws(graph: FrameGraph) -> list[str]:
    return [d.layer_id for d in frame_pass(graph).draws]


def decisions(graph: FrameGraph) -> dict[str, str]:
    return {d.layer_id: d.text for d in graph.decisions}


def draw_of(graph: FrameGraph, layer_id: str) -> Draw:
    found = [d for p in graph.composite_passes() for d in p.draws if d.layer_id == layer_id]
    assert len(found) == 1, f"{layer_id}: {len(found)} draws"
    return found[0]


def layer_matrix(graph: FrameGraph, layer_id: str) -> Affine:
    """Layer px -> frame px of a layer's one draw: its raster is at its raster scale s
    (compositor.raster_scale), so the draw maps s raster px to one layer px."""
    s = graph.raster_scales[layer_id].scale
    return draw_of(graph, layer_id).transform @ Affine.scale(s, s)


def close(m: Affine, expected: Affine, tol: float = 1e-9) -> bool:
    return m.almost_equal(expected, tol)


# -- the root and raster passes -----------------------------------------------------------------


def test_plain_root_background_becomes_the_clear_colour():
    scene = Scene(64, 32, "rgba(255, 0, 0, 0.5)")
    graph = scene.plan(policy="none")
    assert graph.raster_passes() == []
    assert len(graph.passes) == 1
    fp = frame_pass(graph)
    assert fp.clear == pytest.approx((0.5, 0.0, 0.0, 0.5))  # premultiplied
    assert fp.draws == ()
    assert (graph.width, graph.height) == (64, 32)
    assert (fp.target.width, fp.target.height) == (64, 32)
    assert "clear colour" in decisions(graph)["root"]


@pytest.mark.parametrize(
    "root_css",
    ["background-image: linear-gradient(red, blue)", "border: 2px solid black", "border-radius: 8px",
     "opacity: 0.5"],
)
def test_non_plain_root_is_rastered(root_css):
    scene = Scene(40, 30, "white")
    scene.root.style.update_css(root_css)
    scene.root.add(Layer("a", (1, 1, 5, 5), RED))
    graph = scene.plan(policy="none")
    assert "root" in [p.layer_id for p in graph.raster_passes()]
    assert frame_pass(graph).clear == (0.0, 0.0, 0.0, 0.0)
    if "opacity" not in root_css:
        assert frame_draws(graph) == ["root", "a"]


def test_one_raster_pass_per_drawing_layer(rng):
    # Large enough that nested offsets never leave the viewport (off-screen layers are culled).
    scene = Scene(8000, 8000, "white")
    nodes = [scene.root]
    drawing = set()
    for i in range(40):
        parent = nodes[int(rng.integers(len(nodes)))]
        w, h = (int(v) for v in rng.integers(0, 30, 2))
        kind = int(rng.integers(5))
        css = ["", RED, "background-color: transparent", "border: 1px solid blue",
               "background-color: rgba(0, 0, 255, 0.3)"][kind]
        layer = parent.add(Layer(f"L{i}", (int(rng.integers(0, 150)), int(rng.integers(0, 150)), w, h), css))
        nodes.append(layer)
        if kind in (1, 3, 4) and w > 0 and h > 0:
            drawing.add(layer.id)
    graph = scene.plan(policy="none")
    rasters = graph.raster_passes()
    assert sorted(p.layer_id for p in rasters) == sorted(drawing)
    assert len({p.target.name for p in rasters}) == len(rasters)
    for p in rasters:
        box = scene[p.layer_id].box
        assert (p.target.width, p.target.height) == (math.ceil(box.width), math.ceil(box.height))
        assert p.target.role is TextureRole.LAYER_CONTENT
    # Without opacity every drawing layer is drawn straight into the frame, in tree order.
    assert frame_draws(graph) == [n.id for n in scene.layers() if n.id in drawing]
    graph.validate()


def test_fractional_sizes_round_up():
    scene = Scene(50, 50)
    scene.root.add(Layer("f", (0.25, 0.5, 10.2, 3.0001), RED))
    (raster,) = scene.plan(policy="none").raster_passes()
    assert (raster.target.width, raster.target.height) == (11, 4)
    assert raster.paint.width == pytest.approx(10.2)


# -- opacity ---------------------------------------------------------------------------------


def test_opacity_over_two_drawing_layers_makes_one_surface():
    scene = Scene(200, 100)
    g = scene.root.add(Layer("g", (10, 20, 100, 50), "opacity: 0.5"))
    g.add(Layer("g1", (0, 0, 20, 20), RED))
    g.add(Layer("g2", (30, 5, 20, 20), RED))
    graph = scene.plan(policy="none")
    surfaces = [p for p in graph.composite_passes() if p.reason is SurfaceReason.OPACITY_GROUP]
    assert len(surfaces) == 1
    s = surfaces[0]
    assert [d.layer_id for d in s.draws] == ["g1", "g2"]
    assert all(d.opacity == 1.0 for d in s.draws)
    assert s.target.role is TextureRole.RENDER_SURFACE
    # The surface covers the union of the two layers, in screen px.
    assert s.origin == (10, 20)
    assert (s.target.width, s.target.height) == (50, 25)
    assert s.clear == (0.0, 0.0, 0.0, 0.0)
    assert close(s.draws[0].transform, Affine())
    assert close(s.draws[1].transform, Affine.translate(30, 5))
    (surface_draw,) = frame_pass(graph).draws
    assert surface_draw.layer_id == "g" and surface_draw.source is s.target
    assert surface_draw.opacity == 0.5
    assert close(surface_draw.transform, Affine.translate(10, 20))
    assert graph.passes.index(s) < graph.passes.index(frame_pass(graph))
    assert "0.5" in s.detail and "2 drawing layers" in s.detail


def test_opacity_group_counts_its_own_content():
    scene = Scene(100, 100)
    g = scene.root.add(Layer("g", (0, 0, 40, 40), "opacity: 0.25; " + RED))
    g.add(Layer("c", (5, 5, 10, 10), RED))
    graph = scene.plan(policy="none")
    (surface,) = [p for p in graph.composite_passes() if p.reason is SurfaceReason.OPACITY_GROUP]
    assert [d.layer_id for d in surface.draws] == ["g", "c"]
    assert surface.draws[0].source.role is TextureRole.LAYER_CONTENT
    (surface_draw,) = frame_pass(graph).draws
    assert surface_draw.layer_id == "g" and surface_draw.source is surface.target
    assert surface_draw.opacity == 0.25


def test_opacity_over_one_drawing_layer_is_folded_into_the_draw():
    scene = Scene(100, 100)
    g = scene.root.add(Layer("g", (0, 0, 50, 50), "opacity: 0.3"))
    g.add(Layer("empty", (0, 0, 10, 10)))
    g.add(Layer("only", (5, 5, 10, 10), RED))
    graph = scene.plan(policy="none")
    assert all(p.reason is SurfaceReason.ROOT for p in graph.composite_passes())
    (d,) = frame_pass(graph).draws
    assert d.layer_id == "only" and d.opacity == pytest.approx(0.3)
    text = decisions(graph)["g"]
    assert "0.3" in text and "'only'" in text and "no surface" in text


def test_nested_single_layer_opacity_multiplies():
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a", (0, 0, 50, 50), "opacity: 0.5"))
    b = a.add(Layer("b", (0, 0, 50, 50), "opacity: 0.4"))
    c = b.add(Layer("c", (0, 0, 50, 50), "opacity: 0.5"))
    c.add(Layer("leaf", (1, 1, 5, 5), RED))
    graph = scene.plan(policy="none")
    assert draw_of(graph, "leaf").opacity == pytest.approx(0.1)
    assert set(decisions(graph)) >= {"a", "b", "c"}
    assert len(graph.composite_passes()) == 1


def test_opacity_inside_a_surface_is_not_applied_twice():
    scene = Scene(100, 100)
    outer = scene.root.add(Layer("outer", (0, 0, 60, 60), "opacity: 0.5"))
    outer.add(Layer("o1", (0, 0, 10, 10), RED))
    inner = outer.add(Layer("inner", (20, 20, 30, 30), "opacity: 0.4"))
    inner.add(Layer("i1", (0, 0, 10, 10), RED))
    graph = scene.plan(policy="none")
    assert draw_of(graph, "outer").opacity == 0.5
    assert draw_of(graph, "o1").opacity == 1.0
    assert draw_of(graph, "i1").opacity == pytest.approx(0.4)


def test_nested_surfaces_are_positioned_relative_to_their_parent_surface():
    scene = Scene(200, 200)
    outer = scene.root.add(Layer("outer", (10, 10, 150, 150), "opacity: 0.5"))
    outer.add(Layer("o1", (0, 0, 10, 10), RED))
    inner = outer.add(Layer("inner", (40, 50, 100, 100), "opacity: 0.5"))
    inner.add(Layer("i1", (0, 0, 10, 10), RED))
    inner.add(Layer("i2", (20, 30, 10, 10), RED))
    graph = scene.plan(policy="none")
    graph.validate()
    by_layer = {p.name: p for p in graph.composite_passes()}
    inner_pass, outer_pass = by_layer["composite:inner"], by_layer["composite:outer"]
    assert inner_pass.origin == (50, 60) and (inner_pass.target.width, inner_pass.target.height) == (30, 40)
    assert outer_pass.origin == (10, 10) and (outer_pass.target.width, outer_pass.target.height) == (70, 90)
    inner_draw = draw_of(graph, "inner")
    assert inner_draw.source is inner_pass.target
    assert close(inner_draw.transform, Affine.translate(40, 50))
    assert close(draw_of(graph, "i2").transform, Affine.translate(20, 30))
    assert graph.passes.index(inner_pass) < graph.passes.index(outer_pass)


def test_opacity_zero_draws_nothing_and_says_so():
    scene = Scene(100, 100)
    z = scene.root.add(Layer("z", (0, 0, 50, 50), "opacity: 0; " + RED))
    z.add(Layer("zc", (0, 0, 10, 10), RED + "; opacity: 1"))
    scene.root.add(Layer("kept", (0, 0, 5, 5), RED))
    graph = scene.plan(policy="none")
    assert [p.layer_id for p in graph.raster_passes()] == ["kept"]
    assert frame_draws(graph) == ["kept"]
    assert "opacity 0" in decisions(graph)["z"]


def test_visibility_hidden_hides_own_content_only():
    scene = Scene(100, 100)
    h = scene.root.add(Layer("h", (10, 10, 50, 50), "visibility: hidden; " + RED))
    h.add(Layer("shown", (1, 2, 10, 10), "visibility: visible; " + RED))
    h.add(Layer("inherits", (0, 0, 10, 10), RED))
    graph = scene.plan(policy="none")
    assert frame_draws(graph) == ["shown"]
    assert close(draw_of(graph, "shown").transform, Affine.translate(11, 12))
    d = decisions(graph)
    assert "visibility hidden" in d["h"] and "visibility hidden" in d["inherits"]


def test_non_invertible_transform_is_not_drawn():
    scene = Scene(100, 100)
    scene.root.add(Layer("flat", (0, 0, 10, 10), "transform: scale(0, 1); " + RED))
    graph = scene.plan(policy="none")
    assert frame_draws(graph) == []
    assert "not invertible" in decisions(graph)["flat"]


# -- stacking order ---------------------------------------------------------------------------


def test_z_index_negative_auto_positive():
    scene = Scene(100, 100)
    for id_, z in [("p3", 3), ("auto1", None), ("n1", -1), ("zero", 0), ("p1", 1), ("n5", -5), ("auto2", None),
                   ("p1b", 1)]:
        css = RED + (f"; z-index: {z}" if z is not None else "; z-index: auto")
        scene.root.add(Layer(id_, (0, 0, 5, 5), css))
    assert frame_draws(scene.plan(policy="none")) == ["n5", "n1", "auto1", "zero", "auto2", "p1", "p1b", "p3"]


def test_z_index_hoists_out_of_non_stacking_context_parents():
    scene = Scene(100, 100)
    p = scene.root.add(Layer("p", (10, 10, 80, 80), RED))
    q = p.add(Layer("q", (0, 0, 40, 40), RED))
    q.add(Layer("deep-neg", (0, 0, 5, 5), RED + "; z-index: -1"))
    p.add(Layer("pos", (0, 0, 5, 5), RED + "; z-index: 2"))
    p.add(Layer("flat", (0, 0, 5, 5), RED))
    scene.root.add(Layer("sib", (0, 0, 5, 5), RED + "; z-index: 1"))
    scene.root.add(Layer("last", (0, 0, 5, 5), RED))
    # deep-neg goes below p (the root context's negative layer); pos goes above sib.
    assert frame_draws(scene.plan(policy="none")) == ["deep-neg", "p", "q", "flat", "last", "sib", "pos"]


def test_stacking_context_keeps_its_children_together():
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a", (0, 0, 50, 50), RED + "; z-index: 1"))
    a.add(Layer("a-top", (0, 0, 5, 5), RED + "; z-index: 100"))
    a.add(Layer("a-neg", (0, 0, 5, 5), RED + "; z-index: -100"))
    b = scene.root.add(Layer("b", (0, 0, 50, 50), RED + "; z-index: 2"))
    b.add(Layer("b1", (0, 0, 5, 5), RED))
    scene.root.add(Layer("c", (0, 0, 5, 5), RED + "; z-index: -3"))
    # a's children stay inside a (between a and b), whatever their z-index; inside a
    # context the root's own content paints first, then negative, then positive children.
    assert frame_draws(scene.plan(policy="none")) == ["c", "a", "a-neg", "a-top", "b", "b1"]


@pytest.mark.parametrize("maker", ["transform: rotate(0deg)", "opacity: 0.999", "will-change: transform"])
def test_other_stacking_context_triggers_also_contain_z_index(maker):
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a", (0, 0, 50, 50), RED + "; " + maker))
    a.add(Layer("a1", (0, 0, 5, 5), RED + "; z-index: -1"))
    a.add(Layer("a2", (0, 0, 5, 5), RED))
    scene.root.add(Layer("b", (0, 0, 5, 5), RED))
    graph = scene.plan(policy="none")
    order = [d.layer_id for p in graph.composite_passes() for d in p.draws if not d.note]
    assert order == ["a", "a1", "a2", "b"]


# -- clips ---------------------------------------------------------------------------------------


def test_overflow_hidden_clips_descendants_with_padding_box_and_inner_radii():
    scene = Scene(300, 300)
    o = scene.root.add(Layer("o", (10, 20, 100, 80),
                             RED + "; overflow: hidden; border-style: solid; border-width: 3px 4px 5px 6px; "
                             "border-radius: 10px 20px 30px 8px"))
    k = o.add(Layer("k", (5, 5, 200, 200), RED))
    k.add(Layer("kk", (5, 5, 20, 20), RED))
    graph = scene.plan(policy="none")
    assert draw_of(graph, "o").clips == ()  # a layer does not clip its own content
    for lid in ("k", "kk"):
        (clip,) = draw_of(graph, lid).clips
        assert clip.layer_id == "o"
        # padding box: border widths top 3, right 4, bottom 5, left 6
        assert clip.rect == pytest.approx((6, 3, 100 - 6 - 4, 80 - 3 - 5))
        # inner radii: outer minus the adjacent border widths, floored at 0
        expected = ((10 - 6, 10 - 3), (20 - 4, 20 - 3), (30 - 4, 30 - 5), (8 - 6, 8 - 5))
        assert [tuple(r) for r in clip.radii] == [pytest.approx(r) for r in expected]
        assert close(clip.to_local, Affine.translate(-10, -20))
        assert clip.px_per_target_px == pytest.approx((1.0, 1.0))


def test_clip_without_border_and_radii_larger_than_border():
    scene = Scene(100, 100)
    o = scene.root.add(Layer("o", (0, 0, 50, 40), "overflow: hidden; border: 12px solid black; border-radius: 5px"))
    o.add(Layer("c", (0, 0, 60, 60), RED))
    o2 = scene.root.add(Layer("o2", (0, 0, 50, 40), "overflow: hidden; border: 12px none black"))
    o2.add(Layer("c2", (0, 0, 60, 60), RED))
    graph = scene.plan(policy="none")
    (clip,) = draw_of(graph, "c").clips
    assert clip.rect == pytest.approx((12, 12, 26, 16))
    assert clip.radii == ((0.0, 0.0),) * 4
    (clip2,) = draw_of(graph, "c2").clips
    assert clip2.rect == pytest.approx((0, 0, 50, 40))  # border-style none: no border


def test_clip_of_a_transformed_layer_maps_target_px_to_its_local_px():
    scene = Scene(100, 100)
    o = scene.root.add(Layer("o", (10, 10, 40, 40), "overflow: hidden; transform: scale(2); transform-origin: 0 0"))
    o.add(Layer("c", (0, 0, 60, 60), RED))
    (clip,) = draw_of(scene.plan(policy="none"), "c").clips
    assert close(clip.to_local, Affine(0.5, 0, 0, 0.5, -5, -5))
    assert clip.px_per_target_px == pytest.approx((0.5, 0.5))


def test_clip_above_an_opacity_group_is_applied_to_the_surface_draw():
    scene = Scene(100, 100)
    o = scene.root.add(Layer("o", (10, 10, 50, 50), "overflow: hidden"))
    g = o.add(Layer("g", (0, 0, 80, 80), "opacity: 0.5"))
    g.add(Layer("g1", (0, 0, 80, 10), RED))
    g.add(Layer("g2", (0, 20, 10, 10), RED))
    graph = scene.plan(policy="none")
    assert draw_of(graph, "g1").clips == () and draw_of(graph, "g2").clips == ()
    (clip,) = draw_of(graph, "g").clips
    assert clip.layer_id == "o"
    assert close(clip.to_local, Affine.translate(-10, -10))


def test_clip_inside_a_surface_is_in_surface_space():
    scene = Scene(100, 100)
    g = scene.root.add(Layer("g", (20, 30, 50, 50), "opacity: 0.5; overflow: hidden"))
    g.add(Layer("g1", (0, 0, 10, 10), RED))
    g.add(Layer("g2", (5, 5, 10, 10), RED))
    graph = scene.plan(policy="none")
    surface = next(p for p in graph.composite_passes() if p.reason is SurfaceReason.OPACITY_GROUP)
    assert surface.origin == (20, 30)
    (clip,) = draw_of(graph, "g2").clips
    assert close(clip.to_local, Affine())  # surface px == g's local px here


@pytest.mark.parametrize("depth, ok", [(MAX_CLIPS_PER_DRAW, True), (MAX_CLIPS_PER_DRAW + 1, False)])
def test_nested_clip_limit(depth, ok):
    scene = Scene(100, 100)
    node = scene.root
    for i in range(depth):
        node = node.add(Layer(f"clip{i}", (1, 1, 90 - i, 90 - i), "overflow: hidden"))
    node.add(Layer("leaf", (0, 0, 10, 10), RED))
    if ok:
        assert len(draw_of(scene.plan(policy="none"), "leaf").clips) == depth
    else:
        with pytest.raises(UnsupportedFeatureError) as info:
            scene.plan(policy="none")
        assert info.value.layer == "leaf" and info.value.property == "overflow"
        assert str(MAX_CLIPS_PER_DRAW) in str(info.value)


def test_empty_clip_hides_descendants():
    scene = Scene(100, 100)
    o = scene.root.add(Layer("o", (0, 0, 0, 50), "overflow: hidden"))
    o.add(Layer("c", (0, 0, 10, 10), RED))
    graph = scene.plan(policy="none")
    assert frame_draws(graph) == [] and graph.raster_passes() == []
    assert "clip" in decisions(graph)["c"]


# -- limits ---------------------------------------------------------------------------------------


def test_layer_larger_than_max_texture_size():
    scene = Scene(50, 50)
    scene.root.add(Layer("wide", (0, 0, 65, 10), RED))
    with pytest.raises(TextureTooLargeError) as info:
        scene.plan(policy="none", limits=Limits(max_texture_size=64))
    assert "'wide'" in str(info.value) and "65x10" in str(info.value) and "64" in str(info.value)
    scene.plan(policy="none", limits=Limits(max_texture_size=65))
    scene["wide"].box = (0, 0, 64.5, 10)  # rounds up to 65
    with pytest.raises(TextureTooLargeError):
        scene.plan(policy="none", limits=Limits(max_texture_size=64))


def test_frame_larger_than_max_texture_size():
    with pytest.raises(TextureTooLargeError, match="frame"):
        Scene(100, 40).plan(policy="none", limits=Limits(max_texture_size=64))


def test_plan_uses_default_limits_without_a_renderer(monkeypatch):
    import lamina.renderer

    # GL tests earlier in the session may have created the shared renderer (whose limit
    # is the GPU's); without one, plan() must use the defaults.
    monkeypatch.setattr(lamina.renderer, "_defaults", threading.local())
    assert Limits().max_texture_size == 16384
    scene = Scene(100, 100)
    scene.root.add(Layer("big", (0, 0, 16384, 1), RED))
    # One texture up to the limit (the tiling threshold raised to it), tiles above it.
    tiling = Tiling(threshold=16384)
    assert not scene.plan(policy="none", tiling=tiling).tiles
    scene["big"].box = (0, 0, 16385, 1)
    (tiles,) = scene.plan(policy="none", tiling=tiling).tiles
    assert tiles.owner == "big" and tiles.content == (16385, 1)


# -- lifetimes, memory, validation ---------------------------------------------------------------


def _two_groups() -> Scene:
    scene = Scene(100, 50)
    for name, x in (("A", 0), ("B", 50)):
        g = scene.root.add(Layer(name, (x, 0, 50, 50), "opacity: 0.5"))
        g.add(Layer(f"{name}1", (0, 0, 10, 10), RED))
        g.add(Layer(f"{name}2", (0, 10, 20, 20), RED))
    return scene


def test_lifetimes_and_peak_memory():
    graph = _two_groups().plan(policy="none")
    assert [p.name for p in graph.passes] == [
        "raster:A1", "raster:A2", "composite:A", "raster:B1", "raster:B2", "composite:B", "composite:frame",
    ]
    assert graph.lifetimes() == {
        "layer:A1": (0, 2), "layer:A2": (1, 2), "surface:A": (2, 6),
        "layer:B1": (3, 5), "layer:B2": (4, 5), "surface:B": (5, 6), "frame": (6, 6),
    }
    sizes = {t.name: t.bytes for t in graph.textures()}
    assert sizes == {
        "layer:A1": 400, "layer:A2": 1600, "surface:A": 20 * 30 * 4,
        "layer:B1": 400, "layer:B2": 1600, "surface:B": 20 * 30 * 4, "frame": 100 * 50 * 4,
    }
    # Alive at pass 5: surface A, B1, B2, surface B; at pass 6: both surfaces and the frame.
    expected = max(2400 + 400 + 1600 + 2400, 2400 + 2400 + 20000, 400 + 1600 + 2400)
    assert graph.peak_texture_bytes() == expected
    assert expected < sum(sizes.values())
    graph.validate()


def test_validate_rejects_read_before_write_and_missing_output():
    tex = TextureDesc("layer:x", 4, 4, TextureRole.LAYER_CONTENT)
    frame = TextureDesc("frame", 4, 4, TextureRole.FRAME)
    draw = Draw(tex, "x", Affine(), 1.0)
    bad = FrameGraph(4, 4, [CompositePass("composite:frame", frame, (0, 0), (0, 0, 0, 0), (draw,),
                                          SurfaceReason.ROOT)], frame)
    with pytest.raises(AssertionError, match="layer:x"):
        bad.validate()
    other = TextureDesc("other", 4, 4, TextureRole.RENDER_SURFACE)
    no_output = FrameGraph(4, 4, [CompositePass("c", other, (0, 0), (0, 0, 0, 0), (), SurfaceReason.ROOT)], frame)
    with pytest.raises(AssertionError, match="frame"):
        no_output.validate()


def test_every_planned_graph_validates(rng):
    for _ in range(10):
        scene = Scene(120, 120)
        nodes = [scene.root]
        for i in range(25):
            parent = nodes[int(rng.integers(len(nodes)))]
            css = [RED]
            if rng.random() < 0.3:
                css.append(f"opacity: {rng.uniform(0.1, 0.9):.2f}")
            if rng.random() < 0.3:
                css.append(f"z-index: {int(rng.integers(-2, 3))}")
            if rng.random() < 0.2:
                css.append("overflow: hidden")
            if rng.random() < 0.2:
                css.append(f"transform: rotate({int(rng.integers(0, 360))}deg)")
            box = (int(rng.integers(-20, 100)), int(rng.integers(-20, 100)), int(rng.integers(1, 60)),
                   int(rng.integers(1, 60)))
            nodes.append(parent.add(Layer(f"n{i}", box, "; ".join(css))))
        graph = scene.plan(policy="none")
        graph.validate()
        lifetimes = graph.lifetimes()
        assert set(lifetimes) == {t.name for t in graph.textures()}
        for first, last in lifetimes.values():
            assert 0 <= first <= last < len(graph.passes)
        assert graph.peak_texture_bytes() <= sum(t.bytes for t in graph.textures())
        json.dumps(graph.to_dict())


# -- presentation ------------------------------------------------------------------------------


def test_describe_and_to_dict_mention_surfaces_reasons_and_decisions():
    scene = _two_groups()
    scene.root.add(Layer("gone", (0, 0, 5, 5), RED + "; opacity: 0"))
    graph = scene.plan(policy="none")
    text = graph.describe()
    assert "surface:A" in text and "surface:B" in text
    assert SurfaceReason.OPACITY_GROUP.value in text
    assert "render surface" in text
    assert "Decisions:" in text and "gone" in text and "opacity 0" in text
    assert "clear colour" in text
    assert text.splitlines()[0].startswith("Frame 100x50: 4 raster passes, 0 filter passes, 3 composite passes")
    d = graph.to_dict()
    json.dumps(d)
    assert d["size"] == [100, 50] and d["output"] == "frame"
    reasons = {p["name"]: p["reason"] for p in d["passes"]}
    assert reasons["composite:A"] == SurfaceReason.OPACITY_GROUP.value
    assert reasons["composite:frame"] == SurfaceReason.ROOT.value
    assert reasons["raster:A1"] == "layer content"
    assert {"layer": "gone", "text": "not drawn: opacity 0 (with all its descendants)"} in d["decisions"]
    surface_draws = [x for x in next(p for p in d["passes"] if p["name"] == "composite:frame")["draws"]]
    assert [x["source"] for x in surface_draws] == ["surface:A", "surface:B"]
    assert all(x["note"] == "render surface" and x["opacity"] == 0.5 for x in surface_draws)
    assert d["peak_texture_bytes"] == graph.peak_texture_bytes()
    roles = {t["name"]: t["role"] for t in d["textures"]}
    assert roles["surface:A"] == "render surface" and roles["frame"] == "frame"


def test_describe_timings_and_draw_annotations():
    scene = Scene(100, 100)
    o = scene.root.add(Layer("o", (0, 0, 50, 50), "overflow: hidden"))
    o.add(Layer("t", (0, 0, 10, 10), RED + "; transform: rotate(10deg); opacity: 0.5"))
    graph = scene.plan(policy="none")
    text = graph.describe({"raster:t": 1.234})
    assert "1.23 ms" in text
    assert "opacity 0.5" in text and "transformed" in text and "clipped by o" in text


# -- transforms ------------------------------------------------------------------------------------


def test_translate_and_scale_with_origin_at_top_left():
    scene = Scene(100, 100)
    scene.root.add(Layer("t", (5, 7, 10, 10), RED + "; transform: translate(10px, 20px) scale(2); "
                         "transform-origin: 0 0"))
    assert close(layer_matrix(scene.plan(policy="none"), "t"), Affine(2, 0, 0, 2, 15, 27))


def test_rotate_90_about_the_centre():
    scene = Scene(100, 100)
    scene.root.add(Layer("r", (30, 40, 10, 20), RED + "; transform: rotate(90deg)"))
    # (x, y) -> (45 - y, x + 45): rotate about (5, 10) then move by (30, 40)
    m = layer_matrix(scene.plan(policy="none"), "r")
    assert m.values() == (0.0, 1.0, -1.0, 0.0, 45.0, 45.0)


def test_rotate_30_degrees_about_the_default_origin():
    scene = Scene(100, 100)
    scene.root.add(Layer("r", (10, 10, 40, 20), RED + "; transform: rotate(30deg)"))
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    ox, oy = 20, 10
    e = ox - (c * ox - s * oy) + 10
    f = oy - (s * ox + c * oy) + 10
    assert close(layer_matrix(scene.plan(policy="none"), "r"), Affine(c, s, -s, c, e, f))


def test_percentage_translate_and_matrix():
    scene = Scene(100, 100)
    scene.root.add(Layer("p", (0, 0, 40, 20), RED + "; transform: translate(50%, 25%)"))
    scene.root.add(Layer("m", (3, 4, 10, 10), RED + "; transform: matrix(1, 2, 3, 4, 5, 6); transform-origin: 0 0"))
    graph = scene.plan(policy="none")
    assert close(layer_matrix(graph, "p"), Affine.translate(20, 5))
    assert close(layer_matrix(graph, "m"), Affine(1, 2, 3, 4, 8, 10))


def test_parent_transform_composes_with_child_offset():
    scene = Scene(200, 200)
    p = scene.root.add(Layer("p", (10, 0, 50, 50), "transform: scale(2); transform-origin: 0 0"))
    p.add(Layer("c", (5, 5, 10, 10), RED))
    p.add(Layer("cr", (0, 0, 10, 10), RED + "; transform: rotate(90deg); transform-origin: 0 0"))
    graph = scene.plan(policy="none")
    assert close(layer_matrix(graph, "c"), Affine(2, 0, 0, 2, 20, 10))
    assert close(layer_matrix(graph, "cr"), Affine(0, 2, -2, 0, 10, 0))


def test_transformed_layer_in_a_surface_is_offset_by_the_surface_origin():
    scene = Scene(200, 200)
    g = scene.root.add(Layer("g", (0, 0, 200, 200), "opacity: 0.5"))
    g.add(Layer("a", (50, 60, 10, 10), RED))
    g.add(Layer("r", (100, 100, 20, 10), RED + "; transform: rotate(90deg)"))
    graph = scene.plan(policy="none")
    surface = next(p for p in graph.composite_passes() if p.reason is SurfaceReason.OPACITY_GROUP)
    # r rotates about its centre (10, 5): its screen bounds are (105, 95)-(115, 115)
    assert surface.origin == (50, 60)
    assert (surface.target.width, surface.target.height) == (65, 55)
    # screen matrix of r: (x, y) -> (115 - y, x + 95); minus the surface origin
    assert close(layer_matrix(graph, "r"), Affine(0, 1, -1, 0, 65, 35))
    assert close(layer_matrix(graph, "a"), Affine())


def test_surface_is_cut_to_the_viewport():
    scene = Scene(100, 100)
    g = scene.root.add(Layer("g", (-30, 80, 10, 10), "opacity: 0.5"))
    g.add(Layer("a", (0, 0, 50, 50), RED))
    g.add(Layer("b", (10, 0, 200, 5), RED))
    graph = scene.plan(policy="none")
    surface = next(p for p in graph.composite_passes() if p.reason is SurfaceReason.OPACITY_GROUP)
    assert surface.origin == (0, 80)
    assert (surface.target.width, surface.target.height) == (100, 20)
    assert close(layer_matrix(graph, "a"), Affine.translate(-30, 0))


def test_group_entirely_outside_the_viewport_is_not_drawn():
    scene = Scene(100, 100)
    g = scene.root.add(Layer("g", (500, 500, 10, 10), "opacity: 0.5"))
    g.add(Layer("a", (0, 0, 5, 5), RED))
    g.add(Layer("b", (5, 5, 5, 5), RED))
    graph = scene.plan(policy="none")
    assert frame_draws(graph) == []
    assert "outside the viewport" in decisions(graph)["g"]


def test_offscreen_and_clipped_away_layers_are_not_rastered():
    scene = Scene(64, 64)
    scene.root.add(Layer("far", (5000, 5000, 4000, 4000), RED))
    box = scene.root.add(Layer("box", (0, 0, 10, 10), "overflow: hidden"))
    box.add(Layer("hidden-part", (20, 20, 3000, 3000), RED))
    box.add(Layer("shown", (-5, -5, 3000, 3000), RED))
    graph = scene.plan(policy="none")
    assert [p.layer_id for p in graph.raster_passes()] == ["shown"]
    notes = decisions(graph)
    assert "outside the viewport" in notes["far"] and "clips" in notes["hidden-part"]


def test_surface_bounds_follow_clips():
    scene = Scene(1000, 1000)
    clip = scene.root.add(Layer("clip", (100, 100, 20, 20), "overflow: hidden"))
    group = clip.add(Layer("group", (0, 0, 2000, 2000), "opacity: 0.5"))
    group.add(Layer("a", (0, 0, 2000, 2000), RED))
    group.add(Layer("b", (10, 10, 2000, 2000), RED))
    graph = scene.plan(policy="none")
    (surface,) = [p for p in graph.composite_passes() if p.target.name == "surface:group"]
    assert (surface.target.width, surface.target.height) == (20, 20)
    assert surface.origin == (100, 100)


def test_frame_graph_as_dot_is_well_formed():
    import re

    scene = Scene(100, 100, "white")
    group = scene.root.add(Layer("g", (0, 0, 100, 100), "opacity: .5"))
    group.add(Layer("a", (0, 0, 50, 50), RED))
    group.add(Layer("b", (25, 25, 50, 50), RED + "; filter: blur(2px)"))
    graph = scene.plan(policy="none")
    dot = graph.to_dot()
    assert dot.startswith("digraph frame {") and dot.rstrip().endswith("}")
    nodes = set(re.findall(r'^\s+("[^"]+") \[', dot, re.M))
    edges = re.findall(r'^\s+("[^"]+") -> ("[^"]+");$', dot, re.M)
    assert len(nodes) == len(graph.passes) + len(graph.textures())
    assert edges and all(a in nodes and b in nodes for a, b in edges)
    # every pass writes its target and reads its inputs
    assert len(edges) == sum(1 + len(p.reads()) for p in graph.passes)
    assert '"pass:composite:g"' in dot and "blur-x" in dot
