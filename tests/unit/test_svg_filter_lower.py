"""SVG filter graphs lowered to the ops Lamina plans (lamina.filters.svg.lower): exact
only for chains in sRGB without subregions whose region holds the box; everything else
is an UnsupportedFeatureError naming the primitive and why, raised before any GPU work.
No GPU here: tests/gl/test_svg_filters_gl.py runs the lowered plans against the SVG
reference."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.errors import UnsupportedFeatureError
from lamina.filters.ops import Blur, DropShadow, Morphology
from lamina.filters.svg import parse_svg
from lamina.filters.svg.lower import SvgColorMatrix, lower_filter
from lamina.filters.svg.reference import apply_filter

NS = 'xmlns="http://www.w3.org/2000/svg"'
SRGB = 'color-interpolation-filters="sRGB"'
BOX = 'x="0" y="0" width="1" height="1"'


def lower(body: str, attrs: str = SRGB, size=(40, 30)):
    return lower_filter(parse_svg(f'<svg {NS}><filter id="f" {attrs}>{body}</filter></svg>').filter("f"), size)


def test_a_chain_lowers_to_ops_that_fuse_and_plan():
    ops = lower("<feColorMatrix type='saturate' values='.5'/><feGaussianBlur stdDeviation='2'/>"
                "<feComponentTransfer><feFuncG type='linear' slope='.5' intercept='.2'/></feComponentTransfer>"
                "<feMorphology radius='1 2' operator='dilate'/><feMorphology radius='0'/>", f"{SRGB} {BOX}")
    assert [type(op) for op in ops] == [SvgColorMatrix, Blur, SvgColorMatrix, Morphology] and ops[1].sigma == 2
    assert np.allclose(ops[0].matrix(), filters.Saturate(0.5).matrix())
    assert ops[2].matrix()[1].tolist() == [0, 0.5, 0, 0, 0.2] and ops[3].pixel_radii(1.0) == (1, 2)
    plan = filters.FilterChain(ops[:3] + (filters.Sepia(1.0),)).plan()
    assert [p.kind for p in plan.passes] == ["color", "blur", "blur", "color"]
    assert "feComponentTransfer" in plan.passes[3].describe() and "sepia" in plan.passes[3].describe(), \
        "the transfer fuses with the CSS function after it"


def test_bounding_box_units_scale_lengths():
    ops = lower("<feDropShadow dx='.1' dy='.2' stdDeviation='.05'/>",
                f'{SRGB} {BOX} primitiveUnits="objectBoundingBox"', size=(40, 40))
    (shadow,) = ops
    assert isinstance(shadow, DropShadow) and (shadow.dx, shadow.dy) == pytest.approx((4, 8))
    assert shadow.sigma == pytest.approx(2)


@pytest.mark.parametrize("body, attrs, why", [
    ("<feTurbulence/>", SRGB, "does not compile to GPU passes yet"),
    ("<feGaussianBlur stdDeviation='2'/>", "", "linearRGB"),
    ("<feGaussianBlur stdDeviation='2' color-interpolation-filters='linearRGB'/>", SRGB, "linearRGB"),
    ("<feGaussianBlur stdDeviation='2 3'/>", SRGB, "two standard deviations"),
    ("<feGaussianBlur stdDeviation='2' edgeMode='wrap'/>", SRGB, "edgeMode wrap"),
    ("<feGaussianBlur stdDeviation='2' x='3'/>", SRGB, "subregion"),
    ("<feColorMatrix type='luminanceToAlpha'/>", SRGB, "luminanceToAlpha"),
    ("<feColorMatrix values='1 0 0 .5 0  0 1 0 0 0  0 0 1 0 0  0 0 0 1 0'/>", SRGB, "colour reads alpha"),
    ("<feComponentTransfer><feFuncA type='linear' intercept='.1'/></feComponentTransfer>", SRGB, "alpha is not"),
    ("<feComponentTransfer><feFuncR type='gamma'/></feComponentTransfer>", SRGB, "a gamma transfer"),
    ("<feFlood result='a'/><feBlend in2='a'/>", SRGB, "does not compile"),
    ("<feGaussianBlur stdDeviation='1'/><feMorphology radius='1'/>", SRGB, "a second spatial primitive"),
    ("<feDropShadow/>", SRGB, "feDropShadow with a filter region larger"),
    ("<feGaussianBlur stdDeviation='1'/>", f'{SRGB} x="0.1"', "does not hold the element's box"),
    ("", SRGB, "has no primitives"),
])
def test_what_does_not_lower_is_refused_naming_the_primitive(body, attrs, why):
    with pytest.raises(UnsupportedFeatureError, match="compile") as info:
        lower(body, attrs)
    assert why in str(info.value), str(info.value)


def test_two_spatial_primitives_lower_when_the_region_is_the_box():
    ops = lower("<feGaussianBlur stdDeviation='1'/><feMorphology radius='1'/>", f"{SRGB} {BOX}")
    assert [type(op) for op in ops] == [Blur, Morphology]


def test_lowered_ops_run_on_the_css_reference_as_the_svg_reference_does():
    """The lowering's premise, without a GPU: the ops' own float64 references give what
    the SVG reference gives for the graph (blurs differ only past 4 sigma)."""
    rng = np.random.default_rng(4)
    src = rng.random((20, 26, 4))
    src[..., :3] *= src[..., 3:4]
    body = ("<feColorMatrix type='hueRotate' values='70'/><feGaussianBlur stdDeviation='1.5'/>"
            "<feComponentTransfer><feFuncB type='linear' slope='1.5' intercept='-.1'/></feComponentTransfer>")
    element = parse_svg(f'<svg {NS}><filter id="f" {SRGB}>{body}</filter></svg>').filter("f")
    via_ops = src
    for op in lower_filter(element, (26, 20)):
        via_ops = op.reference(via_ops)
    via_svg, _ = apply_filter(element, src)
    assert np.abs(via_ops - via_svg).max() < 1e-9


def test_a_chain_from_source_alpha_starts_with_a_colour_op_that_blackens():
    ops = lower("<feGaussianBlur in='SourceAlpha' stdDeviation='2'/><feColorMatrix type='saturate' values='.5'/>")
    assert [type(op) for op in ops] == [SvgColorMatrix, Blur, SvgColorMatrix]
    assert ops[0].matrix()[:3].tolist() == [[0.0] * 5] * 3 and ops[0].matrix()[3, 3] == 1
