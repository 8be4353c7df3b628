"""SVG colour primitives and linearRGB planned into passes (lamina.filters.svg.compile_color):
colour primitives become svg colour steps, fused while one alone reads another; linearRGB
marks the combine passes of composites and merges, not floods; spatial primitives run in
linearRGB only on black-coloured images. No GPU: tests/gl/test_svg_color_gl.py runs them."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import InvalidValueError, UnsupportedFeatureError
from lamina.filters.ops import gaussian_kernel
from lamina.filters.plan import (BlurPass, ChannelTransfer, CombinePass, ConvolvePass, EdgeMode, ImageFormat, MorphologyPass,
                                 ShadowPass, SpacePass, SvgColorPass, SvgColorStep, TransferKind, SHADER_CONSTANTS, TurbulencePass,
                                 svg_step_tables)
from lamina.filters.svg import parse_svg
from lamina.filters.svg.compile import plan_graph

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1"'


def plan(body: str, attrs: str = BOX):
    return plan_graph(parse_svg(f'<svg {NS}><filter id="f" {attrs}>{body}</filter></svg>').filter("f"), (40, 30))


def test_a_chain_of_colour_primitives_is_one_pass_of_steps_in_their_spaces():
    p = plan("<feColorMatrix type='hueRotate' values='40'/>"
             "<feColorMatrix type='luminanceToAlpha' color-interpolation-filters='sRGB'/>"
             "<feComponentTransfer><feFuncR type='discrete' tableValues='0 1'/><feFuncA type='gamma' exponent='2'/>"
             "</feComponentTransfer>")
    assert len(p.passes) == 1 and isinstance(p.passes[0], SvgColorPass) and p.output == p.passes[0].output
    steps = p.passes[0].steps
    assert [s.linear for s in steps] == [True, False, True]
    assert steps[1].matrix[15:18] == pytest.approx((0.2125, 0.7154, 0.0721)), "luminanceToAlpha's alpha row"
    assert steps[2].transfers[0] == ChannelTransfer(TransferKind.DISCRETE, table=(0.0, 1.0))
    assert steps[2].transfers[3] == ChannelTransfer(TransferKind.GAMMA, (1.0, 2.0, 0.0))
    assert "linearRGB" in str(p) and "transfer discrete/identity/identity/gamma" in str(p)


def test_a_colour_result_read_twice_is_not_fused_into_its_readers():
    p = plan("<feColorMatrix type='saturate' values='.2' result='s'/><feComponentTransfer in='s'>"
             "<feFuncG type='table' tableValues='1 0'/></feComponentTransfer><feComposite in2='s'/>")
    colour = [x for x in p.passes if isinstance(x, SvgColorPass)]
    assert [len(x.steps) for x in colour] == [1, 1] and colour[1].inputs == (colour[0].output,)


def test_linear_composites_and_merges_join_in_linear_light_and_floods_do_not():
    p = plan("<feGaussianBlur in='SourceAlpha' stdDeviation='2'/><feOffset dx='1.5' dy='2' result='o'/>"
             "<feFlood flood-color='navy'/><feComposite in2='o' operator='in'/>"
             "<feMerge><feMergeNode/><feMergeNode in='SourceGraphic'/></feMerge>")
    combines = [x for x in p.passes if isinstance(x, CombinePass)]
    assert [x.linear for x in combines] == [False, True, True], "flood; composite; merge"
    assert any(isinstance(x, BlurPass) for x in p.passes), "a blur of SourceAlpha: black colour, either space"
    srgb = plan("<feFlood/><feComposite in2='SourceGraphic'/>", BOX + ' color-interpolation-filters="sRGB"')
    assert not any(x.linear for x in srgb.passes if isinstance(x, CombinePass))


def test_linear_morphology_converts_each_tap_only_on_images_with_colour():
    coloured = plan("<feColorMatrix in='SourceAlpha' values='0 0 0 0 1  0 0 0 0 0  0 0 0 0 0  0 0 0 1 0'/>"
                    "<feMorphology radius='1 2'/>")  # a colour primitive's result is not black any more
    morph = [x for x in coloured.passes if isinstance(x, MorphologyPass)]
    assert [(x.axis.name, x.radius, x.linear) for x in morph] == [("X", 1, True), ("Y", 2, True)]
    alpha = plan("<feMorphology in='SourceAlpha' radius='1' operator='dilate'/>")
    assert not any(x.linear for x in alpha.passes if isinstance(x, MorphologyPass)), "black colour: either space"


def test_linear_blurs_of_coloured_images_blur_a_float_linear_image():
    p = plan("<feGaussianBlur stdDeviation='2 0'/>")  # (tests/unit/test_svg_linear_float.py has the rest)
    assert [type(x) for x in p.passes] == [SpacePass, BlurPass, SpacePass]
    assert p.passes[1].held is ImageFormat.RGBA32F and p.passes[1].axis.name == "X"
    duplicate = plan("<feGaussianBlur stdDeviation='2 0' edgeMode='duplicate'/>")
    taps = len(gaussian_kernel(2.0))
    assert [(type(x), x.linear, x.order, x.edge) for x in duplicate.passes] == [
        (ConvolvePass, True, (taps, 1), EdgeMode.DUPLICATE)], "edge modes stay convolve passes converting each tap"
    alpha = plan("<feGaussianBlur in='SourceAlpha' stdDeviation='2'/>")
    assert any(isinstance(x, BlurPass) for x in alpha.passes), "black colour: the downscaled blur, either space"


def test_linear_fractional_offsets_are_a_bilinear_convolve_pass_converting_each_tap():
    move = plan("<feOffset dx='2.25' dy='-1'/>").passes[0]
    assert isinstance(move, ConvolvePass) and move.linear and move.order == (2, 1)
    assert move.weights == (0.25, 0.75) and move.target == (3, -1), "taps at x - 3 and x - 2; y + 1"
    assert plan("<feOffset dx='2.5' dy='-1'/>", BOX + ' color-interpolation-filters="sRGB"').passes[0].kind == "offset"


def test_linear_drop_shadows_merge_in_linear_light_with_a_linear_flood_colour():
    p = plan("<feDropShadow dx='2' dy='1.5' stdDeviation='2' flood-color='rgb(255 128 0)' flood-opacity='.5'/>")
    shadow = p.passes[-1]
    assert isinstance(shadow, ShadowPass) and shadow.linear and shadow.offset == (2, 1.5)
    assert np.allclose(shadow.color, (0.5, 0.5 * ((128 / 255 + 0.055) / 1.055) ** 2.4, 0.0, 0.5)), shadow.color
    assert any(isinstance(x, BlurPass) for x in p.passes), "alpha alone is read: the downscaled blur"


def test_whole_pixel_offsets_and_srgb_blurs_plan_in_any_space():
    assert plan("<feOffset dx='2' dy='-1'/>").passes[0].offset == (2, -1)
    assert plan("<feGaussianBlur stdDeviation='1' color-interpolation-filters='sRGB'/>").passes


def test_an_svg_colour_pass_says_what_it_cannot_hold():
    n, size = SHADER_CONSTANTS["SVG_COLOR_STEPS"], SHADER_CONSTANTS["SVG_TABLE_SIZE"]
    with pytest.raises(InvalidValueError, match="steps"):
        SvgColorPass(("source",), "out", (SvgColorStep(),) * (n + 1))
    big = SvgColorStep(transfers=(ChannelTransfer(TransferKind.TABLE, table=(0.5,) * size),) * 4)
    assert SvgColorPass.fits((big,)) and not SvgColorPass.fits((big, big))
    flat, first = svg_step_tables((big,))
    assert first.tolist() == [[0, size, 2 * size, 3 * size]] and np.all(flat == 0.5)


def test_long_colour_chains_split_into_passes_of_at_most_the_step_limit():
    n = SHADER_CONSTANTS["SVG_COLOR_STEPS"]
    p = plan("<feColorMatrix type='saturate' values='.9'/>" * (n + 3))
    assert [len(x.steps) for x in p.passes] == [n, 3]


def test_colour_primitives_reading_only_a_turbulence_run_in_its_pass():
    p = plan("<feTurbulence baseFrequency='.05' result='t'/><feColorMatrix type='saturate' values='0'/>"
             "<feComponentTransfer><feFuncA type='table' tableValues='0 1 0'/></feComponentTransfer>"
             "<feComposite in2='SourceGraphic' operator='in'/>")
    assert isinstance(p.passes[0], TurbulencePass) and len(p.passes[0].steps) == 2
    assert [type(x) for x in p.passes[1:]] == [CombinePass]
    shared = plan("<feTurbulence baseFrequency='.05' result='t'/><feColorMatrix type='saturate' values='0'/>"
                  "<feComposite in2='t'/>")
    assert isinstance(shared.passes[0], TurbulencePass) and shared.passes[0].steps == (), "the noise is read twice"
