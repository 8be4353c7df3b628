"""Region arithmetic of SVG filters, without a GPU (issue 27 item 3): primitive
subregions with the spec's defaults (Filter Effects 1 §"filter primitive subregion") in
both primitiveUnits, the region passes a graph plans only where a subregion can clip,
and the image a chain mixing SVG filters with CSS functions runs on (the hull of its
stages' reach, each filter region of the element's box)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import UnsupportedFeatureError
from lamina import filters
from lamina.filters import parse
from lamina.filters.plan import RegionPass
from lamina.filters.svg import build_graph, parse_svg
from lamina.filters.svg.compile import plan_graph
from lamina.filters.svg.reference import make_canvas, subregion

NS = 'xmlns="http://www.w3.org/2000/svg"'
SRGB = 'color-interpolation-filters="sRGB"'
BOX = 'x="0" y="0" width="1" height="1"'


def _markup(attrs: str, body: str, region: str = BOX) -> str:
    return f'<svg {NS}><filter id="f" {SRGB} {region} {attrs}>{body}</filter></svg>'


def rects(attrs: str, body: str, bbox=(10.0, 20.0, 40.0, 30.0), region: str = "") -> list[tuple[float, ...]]:
    """Each primitive's subregion (user units), in document order."""
    element = parse_svg(f'<svg {NS}><filter id="f" {region} {attrs}>{body}</filter></svg>').filter("f")
    canvas = make_canvas(element, bbox)
    out: list = []
    for node in build_graph(element).nodes:
        out.append(subregion(node.primitive, element, canvas,
                             [out[i] if isinstance(i, int) else None for i in node.inputs]))
    return out


def test_subregion_defaults_follow_the_spec():
    # default filter region of bbox (10, 20, 40, 30): -10% / 120% -> (6, 17, 54, 53)
    got = rects("", "<feFlood x='12' width='8' result='a'/><feOffset in='a' y='25'/><feMerge><feMergeNode in='a'/>"
                    "<feMergeNode/></feMerge><feTile in='a'/><feGaussianBlur in='SourceGraphic'/>")
    flood, offset, merge, tile, blur = got
    assert flood == (12, 17, 20, 53), "x, width written; y, height of the filter region (no input)"
    assert offset == (12, 25, 20, 53), "y written; x, width, height from its input's, clipped to the region"
    assert merge == (12, 17, 20, 53), "the union of its inputs' subregions"
    assert tile == (6, 17, 54, 53), "feTile defaults to the filter region, not its input's"
    assert blur == (6, 17, 54, 53), "a keyword input: the filter region"


def test_object_bounding_box_units_are_fractions_or_percentages_of_the_box():
    (flood,) = rects('primitiveUnits="objectBoundingBox"', "<feFlood x='.25' y='50%' width='.5' height='10%'/>")
    assert flood == pytest.approx((20, 35, 40, 38))


def test_a_percentage_in_user_space_is_refused_naming_the_primitive():
    with pytest.raises(UnsupportedFeatureError, match="<feFlood>: a percentage x"):
        rects("", "<feFlood x='10%'/>")


def test_a_subregion_changes_what_the_graph_draws(rng):
    """The reference (what the tests hold the passes to) really clips: the same graph
    without the subregion differs outside it, and is transparent there with it."""
    img = rng.integers(0, 256, (23, 31, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    clipped = _markup("", "<feFlood flood-color='teal' x='4' y='3' width='13' height='9'/>")
    whole = _markup("", "<feFlood flood-color='teal'/>")
    a = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=clipped)
    b = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=whole)
    assert a[3:12, 4:17, 3].min() == b[3:12, 4:17, 3].min() == 255
    outside = np.ones(a.shape[:2], bool)
    outside[3:12, 4:17] = False
    assert a[outside][:, 3].max() == 0 and b[outside][:, 3].min() == 255


def regions(body: str) -> list[RegionPass]:
    plan = plan_graph(parse_svg(_markup("", body)).filter("f"), (40, 30))
    return [p for p in plan.passes if isinstance(p, RegionPass)]


def test_region_passes_only_where_a_subregion_can_clip():
    """A clip after a primitive whose subregion is smaller than the image; none where it
    is the whole image, nor after a merge of inputs already inside its subregion."""
    assert regions("<feOffset dx='2'/>") == []
    assert regions("<feOffset dx='2' width='100' height='100'/>") == [], "clipped to the filter region: the image"
    (clip,) = regions("<feOffset dx='2' x='3.5' y='2' width='10' height='20.2'/>")
    assert clip.rect == (3, 2, 14, 23) and clip.tile is None, "rounded out to whole pixels"
    merged = regions("<feOffset dx='2' x='3' width='10' result='a'/><feFlood x='5' width='4' result='b'/>"
                     "<feMerge><feMergeNode in='a'/><feMergeNode in='b'/></feMerge>")
    assert [p.rect for p in merged] == [(3, 0, 13, 30), (5, 0, 9, 30)], "the merge inside their union is not clipped"
    (tile,) = regions("<feOffset x='4' y='5' width='6' height='7'/><feTile/>")[1:]
    assert tile.tile == (4, 5, 10, 12) and tile.rect == (0, 0, 40, 30)




def test_a_colour_primitive_that_keeps_transparent_clips_its_input_and_still_fuses():
    plan = plan_graph(parse_svg(_markup("", "<feColorMatrix type='saturate' values='.2' x='5' width='12'/>"
                                            "<feColorMatrix type='hueRotate' values='30'/>")).filter("f"), (40, 30))
    assert [p.kind for p in plan.passes] == ["region", "svg-color"] and len(plan.passes[1].steps) == 2
    alpha_from_nothing = plan_graph(parse_svg(_markup("", "<feColorMatrix values='1 0 0 0 0  0 1 0 0 0  0 0 1 0 0  "
                                                          "0 0 0 1 .2' x='5' width='12'/>")).filter("f"), (40, 30))
    assert [p.kind for p in alpha_from_nothing.passes] == ["svg-color", "region"], "transparent turns visible: after"


MIXED = (f"<svg {NS}><filter id='inset' {SRGB} x='.1' y='.15' width='.7' height='.6'><feOffset dx='-1.5'/></filter>"
         f"<filter id='wide' {SRGB} x='-.5' y='0' width='2' height='1'><feFlood flood-color='red'/></filter></svg>")


@pytest.mark.parametrize("css, outsets", [
    ("url(#inset) blur(2px)", (3, 0, 1, 2)),  # the region (4..32 x 3..15) grown by the blur's 6 px
    ("url(#wide) blur(1px)", (3, 23, 3, 23)),  # the region (20 px each side) then the blur's 3
    ("blur(5px) url(#inset)", (15, 15, 15, 15)),  # the blur's stage is held, though #inset cuts it after
])
def test_a_mixed_chain_grows_a_layer_by_the_hull_of_its_stages(css, outsets):
    plan = parse(css).resolved_svg(parse_svg(MIXED)).plan(box=(40.0, 20.0))
    assert plan.outsets == outsets and plan.region


def test_filters_apply_plans_a_mixed_region_past_the_image_on_the_regions_cutting_each_stage_to_the_image():
    plan = parse("url(#wide) blur(1px) sepia(.5) blur(2px)").resolved_svg(parse_svg(MIXED)).plan(size=(40, 20))
    assert plan.outsets == (0, 20, 0, 20) and plan.region, "the image padded to #wide's region, not the blurs' reach"
    cuts = [p.rect for p in plan.passes if p.kind == "region" and p.source == "the image"]
    assert cuts == [(20, 0, 60, 20)] * 3, "after the graph and after each blur (sepia stays with the first)"
    assert parse("url(#inset) blur(1px)").resolved_svg(parse_svg(MIXED)).plan(size=(40, 20)).outsets == (0, 0, 0, 0)


def test_filters_apply_refuses_drop_shadow_beside_a_region_past_the_image_before_any_pass():
    with pytest.raises(UnsupportedFeatureError, match="drop-shadow.*wide.*reaches past the image") as info:
        parse("url(#wide) drop-shadow(2px 2px 1px red)").resolved_svg(parse_svg(MIXED)).plan(size=(40, 20))
    assert info.value.element == '<filter id="wide">'


def test_a_lone_url_planned_without_a_box_takes_its_input_as_the_element():
    """FilterChain.plan() with no box (the module docstring's ``print(chain.plan())``) or
    with only the input's size plans the graph on its filter region around the input, as
    filters.apply does; it raised 'a filter region other than the element's box'."""
    from lamina import filters
    from lamina.filters.svg import parse_svg
    markup = ('<svg xmlns="http://www.w3.org/2000/svg"><filter id="f"><feOffset dx="2"/></filter>'
              '<filter id="g" x=".2" y=".2" width=".5" height=".5"><feFlood flood-color="red"/></filter></svg>')
    chain = filters.parse("url(#f)").resolved_svg(parse_svg(markup))
    assert [p.kind for p in chain.plan().passes] == ["offset"]
    assert chain.plan(size=(40, 30)).outsets == (3, 4, 3, 4)  # -10% / 120% of a 40 x 30 input, rounded out
    inside = filters.parse("url(#g)").resolved_svg(parse_svg(markup)).plan(size=(40, 30))
    assert inside.outsets == (0, 0, 0, 0) and inside.passes[-1].kind == "region"  # cut to (8, 6, 28, 21)
