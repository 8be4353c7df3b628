"""SVG filters on scene layers, planned without a GPU (issue 27 item 5): ``url(#id)`` in
``filter`` and ``backdrop-filter`` becomes frame-graph filter passes, ``lamina explain``
says which primitive graph each is and the passes it became, and what cannot be planned
is a typed error raised by ``scene.plan()`` before any GPU work: a dangling id an
SvgFilterError naming layer, property and id; a primitive not compiled yet an
UnsupportedFeatureError naming it."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene
from lamina.filters import parse
from lamina.filters.svg import parse_svg
from lamina.errors import SvgFilterError, UnsupportedFeatureError

NS = 'xmlns="http://www.w3.org/2000/svg"'
SRGB_BOX = 'color-interpolation-filters="sRGB" x="0" y="0" width="1" height="1"'
MARKUP = (f"<svg {NS}><filter id='shadow' {SRGB_BOX}><feOffset dx='3' dy='2' result='o'/>"
          "<feFlood flood-color='navy'/><feComposite in2='o' operator='in'/>"
          "<feMerge><feMergeNode/><feMergeNode in='SourceGraphic'/></feMerge></filter>"
          "<filter id='dup' color-interpolation-filters='sRGB'><feColorMatrix type='saturate' values='.3'/></filter>"
          "<filter id='picture' color-interpolation-filters='sRGB'><feImage href='x.png'/></filter>"
          "<filter id='linear'><feGaussianBlur stdDeviation='2'/></filter>"
          "<filter id='clipped-light'><feOffset x='1' y='1' width='2' height='2' result='o'/>"
          "<feDiffuseLighting in='o'><feDistantLight/></feDiffuseLighting></filter>"
          "<filter id='wide-table'><feComponentTransfer><feFuncR type='table' tableValues='" + " 1" * 600 + "'/>"
          "<feFuncG type='table' tableValues='" + " 1" * 600 + "'/></feComponentTransfer></filter></svg>")


def scene(style: str, backdrop: str | None = None) -> Scene:
    s = Scene(60, 40)
    s.add_svg(MARKUP)
    s.root.add(Layer("card", (10, 10, 30, 20), f"background: teal; {style}"))
    if backdrop is not None:
        s.root.add(Layer("glass", (5, 5, 40, 30), f"backdrop-filter: {backdrop}"))
    return s


def kinds(graph, layer: str) -> list[str]:
    return [p.step.kind for p in graph.filter_passes() if p.name.split(":")[1] == layer]


def test_a_graph_alone_becomes_its_offset_and_combine_passes_and_explains_itself():
    graph = scene("filter: url(#shadow)").plan()
    assert kinds(graph, "card") == ["offset", "combine", "combine", "combine"]
    said = [d.text for d in graph.decisions if d.layer_id == "card" and "url(#shadow)" in d.text]
    assert len(said) == 1
    for words in ("<feOffset result=\"o\"> reads SourceGraphic", "<feMerge> reads [2], SourceGraphic -> output",
                  "4 filter pass(es): 1 offset, 3 combine"):
        assert words in said[0], said[0]


def test_a_url_that_lowers_fuses_with_the_css_functions_around_it():
    graph = scene("filter: sepia(.5) url(#dup) blur(2px)").plan()
    assert kinds(graph, "card") == ["color", "blur", "blur"]  # sepia and #dup in one colour pass
    surface = next(d for d in graph.decisions if d.layer_id == "card" and "url(#dup) is the SVG filter graph" in d.text)
    assert "<feColorMatrix> reads SourceGraphic -> output" in surface.text


def test_backdrop_filter_url_plans_and_explains():
    graph = scene("", backdrop="url(#shadow)").plan()
    assert kinds(graph, "glass") == ["offset", "combine", "combine", "combine"]
    assert any(d.layer_id == "glass" and d.text.startswith("backdrop-filter: url(#shadow) is the SVG filter graph")
               for d in graph.decisions)


@pytest.mark.parametrize("style, backdrop, prop", [("filter: url(#nope)", None, "filter"),
                                                     ("filter: blur(1px)", "url(#nope) blur(2px)", "backdrop-filter")])
def test_a_url_naming_no_filter_is_an_svg_filter_error_naming_layer_property_and_id(style, backdrop, prop):
    s = scene(style, backdrop)
    with pytest.raises(SvgFilterError) as info:
        s.plan()
    err = info.value
    layer = "card" if backdrop is None else "glass"
    assert err.layer == layer and err.property == prop and err.value == "url(#nope)"
    assert f"layer {layer!r}: {prop}: url(#nope) names no <filter>" in str(err) and "#shadow" in str(err)


@pytest.mark.parametrize("style, words", [
    # (every primitive compiles, and blurs are capped at 100 px: a refusal that remains is
    # transfer tables past what one svg colour pass holds)
    ("filter: url(#wide-table)", "<feComponentTransfer"),
])
def test_what_does_not_plan_is_an_unsupported_feature_error_naming_the_primitive(style, words):
    with pytest.raises(UnsupportedFeatureError) as info:
        scene(style).plan()
    assert words in str(info.value), str(info.value)


def test_lighting_an_input_clipped_to_a_subregion_plans_a_lighting_pass_in_a_scene():
    """Its edge kernels start at the input's subregion (the pass carries its pixels), so it
    plans: the offset (dx 0, no pass of its own) cut to its subregion, the lighting pass, and
    the lighting's own clip."""
    assert kinds(scene("filter: url(#clipped-light)").plan(), "card") == ["region", "lighting", "region"]


def test_a_linear_rgb_blur_plans_through_a_float_linear_image_in_a_scene():
    graph = scene("filter: url(#linear)").plan()
    assert kinds(graph, "card") == ["space", "blur", "blur", "space"], "converted once, blurred, converted back"
    formats = [p.target.format for p in graph.filter_passes() if p.name.split(":")[1] == "card"]
    assert formats == ["rgba32f", "rgba32f", "rgba32f", "rgba8"], "the linear images are float textures"


@pytest.mark.parametrize("style, kinds_planned", [
    # #shadow's region is the box: its offset and flood are cut to it before the blur grows the layer
    ("filter: url(#shadow) blur(2px)", ["offset", "region", "combine", "region", "combine", "combine", "blur", "blur"]),
    # #dup's default region (-10%, 120%) cuts the blur's reach (6 px) around the box
    ("filter: blur(2px) url(#dup)", ["blur", "blur", "region", "svg-color"]),
    # #dup reads #shadow's result, which lies inside its region: no cut before it
    ("filter: blur(2px) url(#shadow) url(#dup)",
     ["blur", "blur", "region", "offset", "region", "combine", "region", "combine", "combine", "svg-color"]),
])
def test_a_spatial_url_mixed_with_functions_plans_each_graph_on_its_region(style, kinds_planned):
    """Each graph reads the chain's image so far cut to its filter region (a region pass
    where something may lie past it); the layer grows by the hull of the stages (the
    blur's 3 sigma here, which holds every region)."""
    assert kinds(scene(style).plan(), "card") == kinds_planned
    chain = parse(style.split(":", 1)[1]).resolved_svg(parse_svg(MARKUP))
    plan = chain.plan(box=(30.0, 20.0))
    assert plan.outsets == (6, 6, 6, 6) and plan.region


def _backdrop_copy(graph, layer: str):
    return next(p for p in graph.passes if type(p).__name__ == "BackdropPass" and p.layer_id == layer)


def test_a_backdrop_filter_graph_reads_its_whole_filter_region_mirrored_past_the_box():
    """The default region (-10%/-10%/120%/120%) of a 30x20 box at (10, 8), rounded out:
    the copy holds 3 px left/right and 2 px above/below the box, mirrored from the box
    (what Chromium draws: filters.svg.route); the result is clipped to the box."""
    s = Scene(60, 40)
    s.add_svg(f"<svg {NS}><filter id='o' color-interpolation-filters='sRGB'><feOffset dx='4' dy='3'/></filter></svg>")
    s.root.add(Layer("glass", (10, 8, 30, 20), "backdrop-filter: url(#o)"))
    graph = s.plan()
    copy = _backdrop_copy(graph, "glass")
    assert (copy.target.width, copy.target.height) == (36, 24)
    assert copy.mirror == (3.0, 2.0, 33.0, 22.0)  # the box in copy texels: past it is mirrored
    assert (copy.to_source.e, copy.to_source.f) == (7, 6)
    assert kinds(graph, "glass") == ["offset"]  # the region is all of the copy: nothing to clear


def test_a_spatial_url_mixed_with_functions_in_a_backdrop_filter_plans_its_region_in_a_mirrored_copy():
    """The graph clears the mirrored input past its region (Chromium crops with decal
    there), the blur reads the graph's output mirrored at the box (as Chromium's does);
    the copy grows by the hull of the stages and again by the blur's reach, so the
    blur reads the mirror, not a transparent edge, wherever its output can show."""
    graph = scene("", backdrop="url(#shadow) blur(2px)").plan()
    assert kinds(graph, "glass") == ["region", "offset", "region", "combine", "region", "combine", "combine",
                                     "region", "blur", "blur"]  # the blur reads the graph's output mirrored at the box
    copy = _backdrop_copy(graph, "glass")
    assert (copy.target.width, copy.target.height) == (40 + 24, 30 + 24)  # 6 px of hull, 6 of reach, each side
    mirror = [p.step for p in graph.filter_passes() if p.layer_id == "glass" and getattr(p.step, "mirror", False)]
    assert [m.tile for m in mirror] == [(12, 12, 52, 42)]  # the 40x30 box in the copy's pixels


def test_a_backdrop_chain_copy_holds_what_a_moved_shadow_reads_not_only_where_it_spreads():
    """drop-shadow(5px 4px) spreads right and down but reads 5 px left and 4 px up of each
    pixel: the mirrored copy must hold that (it grew on the spreading side only, so the
    shadow at the box's left edge read a transparent edge: up to 200 levels off)."""
    s = Scene(60, 40)
    s.add_svg(f"<svg {NS}><filter id='o' x='0' y='0' width='1' height='1' color-interpolation-filters='sRGB'>"
              "<feOffset dx='1' dy='1'/></filter></svg>")
    s.root.add(Layer("glass", (10, 8, 30, 20), "backdrop-filter: drop-shadow(5px 4px 0 red) url(#o)"))
    copy = _backdrop_copy(s.plan(), "glass")
    left, top = copy.mirror[0], copy.mirror[1]  # the box's corner in copy texels: what lies left / above it
    assert (left, top) == (5.0, 4.0)


@pytest.mark.parametrize("prop", ["filter", "backdrop-filter"])
def test_a_graph_alone_whose_region_cuts_into_the_box_plans_and_clears_past_it(prop):
    """A region inside the box (x 20%, width 50%: 6 to 21 px of a 30 px box) was refused
    alone ("clipping inside the box is not planned yet") while the same graph mixed with
    any function planned: alone it now plans as a chain of one graph, whose region pass
    keeps the region and clears the rest of the box."""
    s = Scene(60, 40)
    s.add_svg(f"<svg {NS}><filter id='in' x='20%' y='10%' width='50%' height='70%' color-interpolation-filters='sRGB'>"
              "<feOffset dx='3' dy='2'/></filter></svg>")
    s.root.add(Layer("card", (10, 10, 30, 20), f"background: teal; {prop}: url(#in)"))
    graph = s.plan()
    assert "offset" in kinds(graph, "card")
    regions = [p.step for p in graph.filter_passes() if p.step.kind == "region" and p.step.tile is None]
    assert regions and all(r.rect[2] - r.rect[0] == 15 and r.rect[3] - r.rect[1] == 14 for r in regions)
