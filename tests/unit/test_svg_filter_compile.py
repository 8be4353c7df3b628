"""SVG filter graphs planned as passes of their own (lamina.filters.svg.compile): each
live primitive once, shared inputs once, pruned ones never, the combine and offset pass
kinds; what is not exact on box-sized images is refused naming the primitive. No GPU
here: tests/gl/test_svg_filters_gl.py runs these plans against the SVG reference."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.errors import UnsupportedFeatureError
from lamina.filters.plan import BlurPass, ColorPass, CombineOperator, CombinePass, OffsetPass
from lamina.filters.svg import parse_svg
from lamina.filters.svg.compile import plan_graph

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB"'


def markup(body: str, attrs: str = BOX) -> str:
    return f'<svg {NS}><filter id="f" {attrs}>{body}</filter></svg>'


def plan(body: str, attrs: str = BOX, size=(40, 30)):
    return plan_graph(parse_svg(markup(body, attrs)).filter("f"), size)


SHADOW = ("<feGaussianBlur in='SourceAlpha' stdDeviation='2' result='blur'/>"
          "<feOffset in='blur' dx='3' dy='2' result='moved'/>"
          "<feFlood flood-color='rgb(0 0 255)' flood-opacity='.5' result='ink'/>"
          "<feFlood flood-color='red' result='unused'/>"
          "<feComposite in='ink' in2='moved' operator='in' result='shadow'/>"
          "<feComposite in='SourceAlpha' in2='shadow' operator='arithmetic' k2='1' k3='1' result='sum'/>"
          "<feMerge><feMergeNode in='shadow'/><feMergeNode in='sum'/><feMergeNode in='SourceGraphic'/></feMerge>")


def test_a_graph_becomes_its_passes_with_shared_inputs_once_and_pruned_ones_never():
    p = plan(SHADOW)
    kinds = [type(x).__name__ for x in p.passes]
    assert kinds == ["ColorPass", "BlurPass", "BlurPass", "OffsetPass", "CombinePass", "CombinePass", "CombinePass",
                     "CombinePass", "CombinePass"]
    alpha = p.passes[0]
    assert isinstance(alpha, ColorPass) and alpha.inputs == ("source",) and "SourceAlpha" in alpha.describe()
    readers = [x for x in p.passes if alpha.output in x.inputs]
    assert len(readers) == 2, "SourceAlpha is planned once and read by the blur and the arithmetic composite"
    flood = p.passes[4]
    assert isinstance(flood, CombinePass) and flood.operator is CombineOperator.ARITHMETIC
    assert flood.k4 == (0.0, 0.0, 0.5, 0.5), "the flood colour, premultiplied"
    assert all(x.k4 != (1.0, 0.0, 0.0, 1.0) for x in p.passes if isinstance(x, CombinePass)), "unused flood pruned"
    assert isinstance(p.passes[3], OffsetPass) and p.passes[3].offset == (3, 2)
    merge = p.passes[-2:]
    assert all(x.operator is CombineOperator.OVER for x in merge) and merge[1].inputs[0] == "source"
    assert p.output == merge[1].output and p.outsets == (0, 0, 0, 0)
    assert "combine" in str(p) and "offset  by (3, 2) px" in str(p)
    text = str(p)  # the plan says which graph it came from, primitive by primitive
    assert 'note: SVG graph [3] <feFlood result="unused"> reads nothing  (pruned' in text
    assert 'note: SVG graph [6] <feMerge> reads [4], [5], SourceGraphic -> output' in text


def test_bounding_box_units_and_blur_sizes():
    p = plan("<feOffset dx='.25' dy='.1'/><feGaussianBlur stdDeviation='.1'/>",
             BOX + ' primitiveUnits="objectBoundingBox"', size=(40, 40))
    assert p.passes[0].offset == (10, 4)
    assert any(isinstance(x, BlurPass) for x in p.passes)


def test_a_tile_without_subregions_is_its_input():
    p = plan("<feOffset dx='2'/><feTile/>")
    assert [type(x) for x in p.passes] == [OffsetPass] and p.output == p.passes[0].output


def test_merge_of_nothing_is_transparent_and_of_one_is_its_input():
    empty = plan("<feMerge/>")
    assert len(empty.passes) == 1 and empty.passes[0].k4 == (0, 0, 0, 0) and empty.passes[0].k == (0, 0, 0)
    single = plan("<feMerge><feMergeNode in='SourceGraphic'/></feMerge>")
    assert single.passes == () and single.output == "source"


@pytest.mark.parametrize("body, attrs, why", [
    ("<feOffset dx='1'/>", 'color-interpolation-filters="sRGB"', "a filter region other than the element's box"),
    ("<feGaussianBlur stdDeviation='1'/>", 'x="0" y="0" width="1" height="1"', "linearRGB"),
    ("<feOffset dx='1.5'/>", 'x="0" y="0" width="1" height="1"', "a fractional feOffset in linearRGB"),
    ("<feDropShadow/>", 'x="0" y="0" width="1" height="1"', "linearRGB"),
    ("<feBlend in2='SourceAlpha' mode='multiply'/>", BOX, "blend mode multiply"),
    ("<feDiffuseLighting><feDistantLight/></feDiffuseLighting>", BOX, "does not compile to GPU passes yet"),
    ("<feGaussianBlur stdDeviation='200' edgeMode='wrap'/>", BOX, "a kernel of 1601 taps"),
    ("<feComponentTransfer>" + "".join(f"<feFunc{c} type='table' tableValues='{'0 ' * 300}'/>" for c in "RGBA")
     + "</feComponentTransfer>", BOX, "transfer tables of 1200 values"),
    ("", BOX, "no primitives"),
])
def test_what_does_not_compile_is_refused_naming_the_primitive(body, attrs, why):
    with pytest.raises(UnsupportedFeatureError, match="compile") as info:
        plan(body, attrs)
    assert why in str(info.value), str(info.value)


def test_filters_apply_plans_a_url_alone_as_a_graph_and_refuses_before_any_gpu_work():
    img = np.zeros((6, 6, 4), np.uint8)
    turbulent = markup("<feSpecularLighting><feDistantLight/></feSpecularLighting><feComposite in2='SourceGraphic'/>")
    with pytest.raises(UnsupportedFeatureError, match="<feSpecularLighting>: this primitive does not compile"):
        filters.apply(img, "url(#f)", "gl", svg=turbulent)
    # With CSS functions around it, a url() that does not lower runs as its graph on its
    # region inside the image (filters.svg.route), refused the same way when it cannot.
    with pytest.raises(UnsupportedFeatureError, match="<feSpecularLighting>: this primitive does not compile"):
        filters.apply(img, "url(#f) blur(1px)", "gl", svg=turbulent)
    plan = filters.parse("url(#f) blur(1px)").resolved_svg(parse_svg(markup(SHADOW))).plan(size=(6, 6))
    assert [p.kind for p in plan.passes][-2:] == ["blur", "blur"] and plan.outsets == (0, 0, 0, 0)
