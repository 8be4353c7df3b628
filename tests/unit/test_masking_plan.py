"""clip-path and mask-image in the frame graph (``scene.plan()``: no GPU): a rounded
clip-path is a clip in the clip chain (no surface), a polygon or a mask-image is a mask
(a surface with reason "mask" drawn through a DrawMask, or the mask in the single
layer's own draw), a filter's result is clipped and masked, and the report says so."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene
from lamina.compositor.mask_paint import MASK_PAD, PolygonPaint
from lamina.compositor.paint_data import LayerPaint
from lamina.framegraph import CompositePass, Draw, FrameGraph, SurfaceReason, TextureRole
from lamina.geometry import Affine
from lamina.graph import build_frame_graph
from lamina.graph.state import FrameState
from lamina.graph.targets import ExecutorFacts
from lamina.images import ImageStore
from lamina.limits import Limits
from lamina.request import FrameRequest
from tests.kept import EVERY_TEXTURE

GRADIENT = "linear-gradient(to right, black, transparent)"


def draws_of(graph: FrameGraph, layer_id: str) -> list[Draw]:
    return [d for p in graph.composite_passes() for d in p.draws if d.layer_id == layer_id]


def surfaces(graph: FrameGraph, reason: SurfaceReason) -> list[CompositePass]:
    return [p for p in graph.composite_passes() if p.reason is reason and not p.continues]


def texts(graph: FrameGraph, layer_id: str) -> list[str]:
    return [d.text for d in graph.decisions if d.layer_id == layer_id]


def card(style: str, child: bool = True) -> Scene:
    scene = Scene(200, 150, "white")
    box = scene.root.add(Layer("card", (20.0, 30.0, 100, 80), "background: #36c; " + style))
    if child:
        box.add(Layer("child", (60, 40, 80, 60), "background: orange"))  # overflows the box
    return scene


@pytest.mark.parametrize("policy", ["none", "all", "browser"])
def test_rounded_clip_path_is_a_clip_in_the_chain_not_a_surface(policy):
    graph = card("clip-path: circle(40px at 50% 50%)").plan(policy=policy)
    assert not surfaces(graph, SurfaceReason.MASK)
    for layer in ("card", "child"):
        clips = [c for d in draws_of(graph, layer) for c in d.clips] or [
            c for p in graph.composite_passes() for d in p.draws for c in d.clips]
        assert any(c.kind == "clip-path" and c.layer_id == "card" for c in clips), layer
    shape = next(c for d in graph.composite_passes()[0].draws for c in d.clips if c.kind == "clip-path")
    assert shape.rect == (10.0, 0.0, 80.0, 80.0)  # in the card's own px: centre (50, 40), r 40
    assert shape.radii == ((40.0, 40.0),) * 4
    assert any("is a rounded rect" in t and "no surface" in t for t in texts(graph, "card"))


def test_clip_path_moves_with_the_layer_in_its_own_space():
    graph = card("clip-path: inset(10px 20% round 5px); transform: rotate(30deg)", child=False).plan(policy="none")
    (draw,) = draws_of(graph, "card")
    (clip,) = draw.clips
    assert clip.kind == "clip-path" and clip.rect == (20.0, 10.0, 60.0, 60.0)
    assert clip.radii == ((5.0, 5.0),) * 4
    # to_local maps target px to the card's px: through the card's rotation.
    node_to_screen = draw.transform  # raster px -> frame px (the raster is the card's px)
    assert clip.to_local.almost_equal(node_to_screen.inverse(), 1e-6)


def test_padding_box_and_bare_reference_boxes():
    scene = card("border: 10px solid black; border-radius: 30px; clip-path: padding-box", child=False)
    (clip,) = draws_of(scene.plan(policy="none"), "card")[0].clips
    assert clip.rect == (10.0, 10.0, 80.0, 60.0) and clip.radii == ((20.0, 20.0),) * 4
    scene = card("border: 10px solid black; clip-path: padding-box circle(closest-side)", child=False)
    (clip,) = draws_of(scene.plan(policy="none"), "card")[0].clips
    assert clip.rect == (20.0, 10.0, 60.0, 60.0)  # padding box 80x60 at 10,10: centre (50, 40), r 30


def test_polygon_is_a_mask_surface_with_its_coverage_rastered():
    graph = card("clip-path: polygon(evenodd, 0 0, 100% 0, 50% 150%)").plan(policy="none")
    (surface,) = surfaces(graph, SurfaceReason.MASK)
    assert surface.target.role is TextureRole.RENDER_SURFACE
    assert "clip-path: polygon(evenodd" in surface.detail
    (draw,) = [d for d in graph.passes[-1].draws if d.source is surface.target]
    (mask,) = draw.masks
    assert (mask.what, mask.layer_id, mask.luminance) == ("clip-path", "card", False)
    (raster,) = [p for p in graph.raster_passes() if p.target is mask.texture]
    assert isinstance(raster.paint, PolygonPaint) and raster.paint.evenodd
    assert mask.texture.role is TextureRole.MASK
    # The texture covers the polygon (down to y = 120) where the card and its child paint
    # (the child overflows the box, down to y = 100): 100 x 100, and the padding.
    assert (mask.texture.width, mask.texture.height) == (100 + 2 * MASK_PAD, 100 + 2 * MASK_PAD)
    assert raster.paint.points[0] == (MASK_PAD, MASK_PAD)
    # Target px -> mask texel: the card sits at (20, 30) in the frame.
    assert mask.to_texel == Affine.translate(-20 + MASK_PAD, -30 + MASK_PAD)
    assert any("render surface (reason mask)" in t for t in texts(graph, "card"))


def test_mask_image_is_a_mask_surface_rastered_like_a_background():
    graph = card(f"mask: {GRADIENT} luminance").plan(policy="none")
    (surface,) = surfaces(graph, SurfaceReason.MASK)
    (draw,) = [d for d in graph.passes[-1].draws if d.source is surface.target]
    (mask,) = draw.masks
    assert (mask.what, mask.luminance) == ("mask-image", True)
    (raster,) = [p for p in graph.raster_passes() if p.target is mask.texture]
    paint = raster.paint
    assert isinstance(paint, LayerPaint) and paint.shader_variant == "linear"
    assert paint.background == (0.0, 0.0, 0.0, 0.0) and paint.border_widths == (0.0,) * 4
    assert paint.offset == (MASK_PAD, MASK_PAD) and paint.tile == (0.0, 0.0, 100.0, 80.0)
    assert (mask.texture.width, mask.texture.height) == (102, 82)


def test_a_scaled_layers_masks_are_rastered_at_its_raster_scale():
    """Under scale(2) the card is rastered at 2 (graph.scaled) and so are its masks: every
    length of the mask and the polygon twice as long, the textures twice the size, read
    texel for texel (the surface is drawn untransformed, as the card's own raster is)."""
    graph = card(f"mask-image: {GRADIENT}; clip-path: polygon(evenodd, 0 0, 100% 0, 50% 150%); "
                 "transform-origin: 0 0; transform: scale(2)").plan(policy="none")
    assert graph.raster_scales["card"].scale == 2.0
    (surface,) = surfaces(graph, SurfaceReason.MASK)
    (draw,) = [d for d in graph.passes[-1].draws if d.source is surface.target]
    image, polygon = sorted(draw.masks, key=lambda m: m.what, reverse=True)
    assert (image.what, polygon.what) == ("mask-image", "clip-path")
    painted = {p.target.name: p.paint for p in graph.raster_passes()}
    assert painted[image.texture.name].tile == (0.0, 0.0, 200.0, 160.0)
    assert (image.texture.width, image.texture.height) == (200 + 2 * MASK_PAD, 160 + 2 * MASK_PAD)
    # The polygon where the card and its child paint (100 x 100 layer px), at 2.
    assert (polygon.texture.width, polygon.texture.height) == (200 + 2 * MASK_PAD, 200 + 2 * MASK_PAD)
    assert painted[polygon.texture.name].points[:2] == ((MASK_PAD, MASK_PAD), (200 + MASK_PAD, MASK_PAD))
    for mask in (image, polygon):
        assert mask.to_texel == Affine.translate(-20 + MASK_PAD, -30 + MASK_PAD)


def test_a_scaled_polygon_too_large_for_a_texture_is_rastered_at_a_lower_scale():
    """A polygon around an overflowing child can outgrow the largest texture at the
    layer's raster scale (which the layer's own box bounds): its mask is then rastered
    at the largest scale that fits (here 509 / 300 texels per px), not refused."""
    scene = Scene(200, 150, "white")
    box = scene.root.add(Layer("card", (0, 0, 20, 20), "background: #36c; clip-path: polygon(0 0, 300px 0, 0 300px); "
                                                         "transform-origin: 0 0; transform: scale(4)"))
    box.add(Layer("child", (0, 0, 300, 300), "background: orange"))
    graph = scene.plan(policy="none", limits=Limits(max_texture_size=512))
    assert graph.raster_scales["card"].scale == 4.0
    (surface,) = surfaces(graph, SurfaceReason.MASK)
    (draw,) = [d for d in graph.passes[-1].draws if d.source is surface.target]
    (mask,) = draw.masks
    assert 509 + 2 * MASK_PAD <= mask.texture.width == mask.texture.height <= 512
    assert mask.to_texel.a == pytest.approx(509 / 300 / 4)


def test_one_drawing_layer_takes_the_mask_in_its_own_draw():
    graph = card(f"mask-image: {GRADIENT}; clip-path: polygon(0 0, 100% 0, 0 100%); opacity: .5",
                 child=False).plan(policy="none")
    assert not surfaces(graph, SurfaceReason.MASK)
    (draw,) = draws_of(graph, "card")
    assert draw.source.role is TextureRole.LAYER_CONTENT and draw.opacity == 0.5
    assert sorted(m.what for m in draw.masks) == ["clip-path", "mask-image"]
    assert any("needs no surface" in t for t in texts(graph, "card"))


def test_fractional_position_is_rastered_at_its_offset_and_read_texel_for_texel():
    scene = Scene(100, 100, "white")
    scene.root.add(Layer("m", (10.25, 20.5, 30, 30), f"background: red; mask-image: {GRADIENT}"))
    (draw,) = draws_of(scene.plan(policy="none"), "m")
    (mask,) = draw.masks
    assert mask.to_texel == Affine.translate(-10 + MASK_PAD, -20 + MASK_PAD)
    assert (mask.texture.width, mask.texture.height) == (31 + 2 * MASK_PAD, 31 + 2 * MASK_PAD)


def test_filter_then_clip_then_mask_on_the_filtered_result():
    graph = card("filter: blur(4px); clip-path: inset(0)").plan(policy="none")
    (filter_surface,) = surfaces(graph, SurfaceReason.FILTER)
    inside = [c for d in filter_surface.draws for c in d.clips]
    assert not [c for c in inside if c.kind == "clip-path"], "the filter's input is not clipped"
    (result,) = [d for d in graph.passes[-1].draws if d.layer_id == "card"]
    assert [c.kind for c in result.clips] == ["clip-path"], "the filtered result is"
    assert any("to the filtered result" in t for t in texts(graph, "card"))
    graph = card("filter: blur(4px); clip-path: polygon(0 0, 100% 0, 50% 150%)").plan(policy="none")
    assert not surfaces(graph, SurfaceReason.MASK), "the filter's surface is the one drawn through the mask"
    (result,) = [d for d in graph.passes[-1].draws if d.layer_id == "card"]
    assert result.source.role is TextureRole.FILTER_OUTPUT and [m.what for m in result.masks] == ["clip-path"]
    # The mask texture reaches as far as the blur does: 3 sigma = 12 px below the child.
    assert result.masks[0].texture.height == 100 + 12 + 2 * MASK_PAD


def test_a_masked_group_isolates_a_blending_child():
    scene = card(f"mask-image: {GRADIENT}", child=False)
    scene["card"].add(Layer("blender", (10, 10, 40, 40), "background: red; mix-blend-mode: multiply"))
    graph = scene.plan(policy="none")
    (surface,) = surfaces(graph, SurfaceReason.MASK)
    reads = [p for p in graph.backdrop_passes() if p.layer_id == "blender"]
    assert len(reads) == 1 and reads[0].source is surface.target, "the blend reads the masked group's surface"


def test_a_masked_element_that_blends_reads_its_backdrop_and_keeps_its_mask():
    graph = card(f"mask-image: {GRADIENT}; mix-blend-mode: multiply", child=False).plan(policy="none")
    (draw,) = draws_of(graph, "card")
    assert draw.blend.value == "multiply" and draw.backdrop is not None and len(draw.masks) == 1


def test_masking_creates_a_stacking_context_and_a_backdrop_root():
    scene = card("clip-path: circle()", child=False)
    scene["card"].add(Layer("frost", (0, 0, 50, 50), "backdrop-filter: blur(2px)"))
    graph = scene.plan(policy="none")
    assert surfaces(graph, SurfaceReason.BACKDROP_ROOT), "a clip-path element is a backdrop root"


def test_report_and_json_name_the_masks():
    graph = card(f"mask-image: {GRADIENT}").plan(policy="none")
    text = graph.describe()
    assert "mask" in text and "masked by" in text and "mask-image of card, alpha" in text
    frame_draw = next(d for d in graph.to_dict()["passes"][-1]["draws"] if d["layer"] == "card")
    assert frame_draw["masks"][0]["what"] == "mask-image" and frame_draw["masks"][0]["mode"] == "alpha"
    assert any(p["reason"] == "mask" for p in graph.to_dict()["passes"])
    graph.validate()


def test_an_empty_clip_path_draws_nothing():
    graph = card("clip-path: inset(60%)").plan(policy="none")
    assert not draws_of(graph, "card") and not draws_of(graph, "child")
    graph = card("clip-path: polygon(-10px -10px, -5px -10px, -5px -5px)", child=False).plan(policy="none")
    assert not draws_of(graph, "card")
    assert any("covers nothing" in t for t in texts(graph, "card"))


def test_backdrop_filter_with_a_mask_masks_both_together():
    graph = card(f"backdrop-filter: blur(2px); mask-image: {GRADIENT}", child=False).plan(policy="none")
    assert graph.routes["card"].applies == ("mask-image",)
    frame_draw = next(d for d in graph.to_dict()["passes"][-1]["draws"] if d["layer"] == "card")
    assert frame_draw["masks"][0]["what"] == "mask-image", "the mask is on the draw of T' (backdrop and element)"


@pytest.mark.parametrize("policy, promoted", [("browser", True), ("all", False)])
@pytest.mark.parametrize("style", [f"mask-image: {GRADIENT}", "clip-path: polygon(0 0, 100% 0, 0 100%)",
                                   "clip-path: circle()", f"mask-image: {GRADIENT}; clip-path: polygon(0 0, 100% 0, 0 90%)"])
@pytest.mark.parametrize("how", ["transform", "box"])
def test_moving_a_masked_or_clipped_layer_rasters_nothing(style, how, policy, promoted):
    """As for any layer: a composited one (will-change: transform under the browser
    policy; every layer under "all") is moved, not painted again — nor are its masks."""
    scene = card(style + ("; will-change: transform" if promoted else ""))
    state, kept = FrameState(), ExecutorFacts(retained=EVERY_TEXTURE)
    request = FrameRequest(policy=policy)
    first = build_frame_graph(scene, request, Limits(), ImageStore(), state, kept)
    masks = [p for p in first.raster_passes() if p.target.role is TextureRole.MASK]
    assert len(masks) == style.count("mask-image") + style.count("polygon")
    if how == "transform":
        scene["card"].style["transform"] = "translate(13px, -4px)"
    else:
        scene["card"].box = (33, 26, 100, 80)
    second = build_frame_graph(scene, request, Limits(), ImageStore(), state, kept)
    assert second.raster_passes() == [], "moving the masked layer rasters nothing, its masks included"
    assert {p.target.name for p in masks} <= set(second.reused)


def test_a_fixed_descendant_escapes_overflow_clips_but_not_clip_paths():
    """A fixed layer is not clipped by an overflow: hidden ancestor (that box is not its
    containing block) but is by an ancestor's clip-path: it paints inside that stacking
    context, and browsers clip it — where the clip-path is as the page scrolls."""
    scene = Scene(200, 150, "white")
    scene.root.style["overflow"] = "auto"
    scene.root.add(Layer("tall", (0, 0, 10, 600), "background: #eee"))
    outer = scene.root.add(Layer("outer", (10, 10, 150, 120), "clip-path: inset(5px)"))
    inner = outer.add(Layer("inner", (10, 10, 100, 80), "overflow: hidden"))
    inner.add(Layer("fixed", (0, 0, 190, 140), "position: fixed; background: red"))
    state = FrameState()
    graph = build_frame_graph(scene, FrameRequest(policy="none"), Limits(), ImageStore(), state)
    (draw,) = draws_of(graph, "fixed")
    assert [(c.layer_id, c.kind) for c in draw.clips] == [("root", "overflow"), ("outer", "clip-path")]
    scene.root.scroll_to(y=30)  # updated in place: the page (and the clip-path) move, the fixed layer not
    graph = build_frame_graph(scene, FrameRequest(policy="none"), Limits(), ImageStore(), state)
    assert state.trees.rebuilds == 1
    (draw,) = draws_of(graph, "fixed")
    assert draw.transform == Affine.translate(0, 0)
    assert draw.clips[1].to_local.f == 20.0, "target y 0 is the outer layer's y 20 once scrolled by 30"
    assert draw.clips == draws_of(scene.plan(policy="none"), "fixed")[0].clips, "as a plan from scratch"
