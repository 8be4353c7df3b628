"""SVG filter graphs planned as passes of their own (lamina.filters.svg.compile): each
live primitive once, shared inputs once, pruned ones never, the combine and offset pass
kinds; what is not exact on box-sized images is refused naming the primitive. No GPU
here: tests/gl/test_svg_filters_gl.py runs these plans against the SVG reference."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.errors import UnsupportedFeatureError
from lamina.filters.ops import gaussian_kernel
from lamina.filters.plan import (BlurPass, ColorPass, CombineOperator, CombinePass, ConvolvePass, LightingPass, LightKind,
                                 OffsetPass)
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
    ("<feComponentTransfer>" + "".join(f"<feFunc{c} type='table' tableValues='{'0 ' * 300}'/>" for c in "RGBA")
     + "</feComponentTransfer>", BOX, "transfer tables of 1200 values"),
    ("", BOX, "no primitives"),
])
def test_what_does_not_compile_is_refused_naming_the_primitive(body, attrs, why):
    with pytest.raises(UnsupportedFeatureError, match="compile") as info:
        plan(body, attrs)
    assert why in str(info.value), str(info.value)


@pytest.mark.parametrize("attrs, edge, kind", [
    (BOX, "none", BlurPass),  # sRGB: the downscaled blur passes
    ('x="0" y="0" width="1" height="1"', "none", BlurPass),  # linearRGB on colour: blurs of a float linear image
    ('x="0" y="0" width="1" height="1"', "duplicate", ConvolvePass),  # linearRGB, an edge mode: converting taps
    (BOX, "wrap", ConvolvePass),  # an edge mode: convolve passes
])
def test_a_blur_past_the_cap_plans_capped_on_every_path_and_says_so(attrs, edge, kind):
    """stdDeviation 200 is capped at BLUR_SIGMA_CAP (100 px) on every path, as the
    reference caps it (the sRGB path capped silently, the convolve paths refused it:
    a kernel of 1601 taps, and the reference blurred by 200: 14-37 levels off)."""
    p = plan(f"<feGaussianBlur stdDeviation='200 3' edgeMode='{edge}'/>", attrs, size=(40, 30))
    passes = [x for x in p.passes if isinstance(x, kind)]
    assert passes and any("stdDeviation capped at 100px" in n for n in p.notes)
    if kind is ConvolvePass:
        assert max(x.order[0] for x in passes) == len(gaussian_kernel(100.0))


def test_filters_apply_plans_a_url_alone_as_a_graph_and_refuses_before_any_gpu_work():
    img = np.zeros((6, 6, 4), np.uint8)
    # (every primitive compiles now, blurs capped at 100 px: a refusal that remains is transfer
    # tables past what one svg colour pass holds)
    table = " ".join(["1"] * 600)
    refused = markup(f"<feOffset dx='1' result='o'/><feComponentTransfer in='o'><feFuncR type='table' "
                     f"tableValues='{table}'/><feFuncG type='table' tableValues='{table}'/></feComponentTransfer>")
    with pytest.raises(UnsupportedFeatureError, match="<feComponentTransfer.*transfer tables of 1200 values"):
        filters.apply(img, "url(#f)", "gl", svg=refused)
    # With CSS functions around it, a url() that does not lower runs as its graph on its
    # region inside the image (filters.svg.route), refused the same way when it cannot.
    with pytest.raises(UnsupportedFeatureError, match="<feComponentTransfer.*transfer tables of 1200 values"):
        filters.apply(img, "url(#f) blur(1px)", "gl", svg=refused)
    plan = filters.parse("url(#f) blur(1px)").resolved_svg(parse_svg(markup(SHADOW))).plan(size=(6, 6))
    assert [p.kind for p in plan.passes][-2:] == ["blur", "blur"] and plan.outsets == (0, 0, 0, 0)


def test_lighting_plans_one_pass_with_its_light_in_the_images_pixels():
    """A point light in objectBoundingBox units at scale 2 on a filter region past the
    box: x, y fractions of the box, z of its normalised diagonal, all in pixels, moved by
    the region's origin (here 10% of a 40 x 30 box: 4 and 3 user units, 8 and 6 px)."""
    body = ("<feSpecularLighting in='SourceAlpha' surfaceScale='3' specularConstant='.5' specularExponent='9' "
            "lighting-color='rgb(255 0 0)'><fePointLight x='.25' y='.5' z='.2'/></feSpecularLighting>")
    element = parse_svg(markup(body, "primitiveUnits='objectBoundingBox'")).filter("f")
    p = plan_graph(element, (96, 72), 2.0, box=(40.0, 30.0))
    (alpha, lit) = p.passes
    assert isinstance(lit, LightingPass) and lit.inputs == (alpha.output,) and p.output == lit.output
    diagonal = np.sqrt((40.0 ** 2 + 30.0 ** 2) / 2)
    assert lit.light_kind is LightKind.POINT and lit.specular and lit.linear
    np.testing.assert_allclose(lit.light, (.25 * 40 * 2 + 8, .5 * 30 * 2 + 6, .2 * diagonal * 2))
    assert (lit.constant, lit.exponent, lit.surface_scale, lit.color) == (.5, 9.0, 3.0, (1.0, 0.0, 0.0))
    assert "specular ks 0.5 exponent 9" in lit.describe() and "point light at (28, 36, 14.14) px" in lit.describe()


def test_a_spot_light_plans_its_direction_and_cone_and_a_distant_light_its_unit_vector():
    spot = plan("<feDiffuseLighting diffuseConstant='2'><feSpotLight x='10' y='0' z='10' pointsAtX='10' pointsAtY='10' "
                "pointsAtZ='0' limitingConeAngle='-60' specularExponent='4'/></feDiffuseLighting>").passes[0]
    assert spot.light_kind is LightKind.SPOT and not spot.specular and spot.constant == 2.0
    np.testing.assert_allclose(spot.spot, (0.0, np.sqrt(.5), -np.sqrt(.5)))
    assert spot.cone_cos == pytest.approx(.5) and spot.spot_exponent == 4.0
    distant = plan("<feDiffuseLighting><feDistantLight azimuth='90' elevation='60'/></feDiffuseLighting>").passes[0]
    np.testing.assert_allclose(distant.light, (0.0, .5, np.sqrt(.75)), atol=1e-12)
    assert distant.cone_cos == -2.0  # no cone


def test_kernel_unit_length_is_planned_in_pixels():
    """kernelUnitLength in objectBoundingBox units: fractions of the box's width and
    height, at the scale, as the pass's kernel step."""
    body = "<feDiffuseLighting kernelUnitLength='.05 .1'><feDistantLight/></feDiffuseLighting>"
    element = parse_svg(markup(body, BOX + " primitiveUnits='objectBoundingBox'")).filter("f")
    (lit,) = plan_graph(element, (80, 60), 2.0).passes
    assert lit.unit == pytest.approx((.05 * 40 * 2, .1 * 30 * 2)) and "kernel unit 4 x 6 px" in lit.describe()
    assert plan("<feDiffuseLighting><feDistantLight/></feDiffuseLighting>").passes[0].unit == (1.0, 1.0)


def test_lighting_an_input_with_a_subregion_plans_the_inputs_pixels():
    """The spec's edge kernels start at the input's subregion (its "input image"): the
    pass carries that rect in pixels, rounded out, at the device scale and in
    objectBoundingBox units; an input that is the whole image carries none."""
    body = ("<feOffset dx='1' x='5' y='5.5' width='10' height='10' result='o'/>"
            "<feDiffuseLighting in='o'><feDistantLight/></feDiffuseLighting>")
    (lit,) = [x for x in plan(body).passes if isinstance(x, LightingPass)]  # then clipped to its own subregion
    assert lit.rect == (5, 5, 15, 16)
    assert "edges of the input's (5, 5, 15, 16)" in lit.describe()
    element = parse_svg(markup(body.replace("x='5' y='5.5' width='10' height='10'",
                                            "x='.25' y='.1' width='.5' height='.5'"),
                               BOX + " primitiveUnits='objectBoundingBox'")).filter("f")
    (lit,) = [x for x in plan_graph(element, (80, 60), 2.0).passes if isinstance(x, LightingPass)]
    assert lit.rect == (20, 6, 60, 36), "a quarter and a tenth of the 40 x 30 box, at scale 2"
    assert plan("<feDiffuseLighting><feDistantLight/></feDiffuseLighting>").passes[0].rect is None
