"""Blurs whose result the next primitive amplifies stay in floats (issue 27,
lamina.filters.svg.compile_linear HeldFor): the plans. A gooey colour matrix (alpha x18)
joins the float blur's pass back to 8-bit in either space; lighting reads the float blur;
colour work that does not amplify, a blur with other readers or one clipped to a
subregion stay 8-bit. No GPU here: tests/gl/test_svg_amplified_gl.py runs these plans
against the SVG reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina.filters.plan import (BlurPass, ImageFormat, LightingPass, SpacePass, SvgColorPass, identity_table,
                                 image_format, input_format)
from lamina.filters.svg import parse_svg
from lamina.filters.svg import model as m
from lamina.filters.svg.compile import plan_graph
from lamina.filters.svg.compile_color import AMPLIFYING_GAIN, colour_gain

NS = 'xmlns="http://www.w3.org/2000/svg"'
ALPHA_X18 = '<feColorMatrix in="b" type="matrix" values="1 0 0 0 0  0 1 0 0 0  0 0 1 0 0  0 0 0 18 -7"/>'
DIFFUSE = "<feDiffuseLighting in='b' surfaceScale='4'><feDistantLight azimuth='60' elevation='30'/></feDiffuseLighting>"


def plan(body: str, space: str = "sRGB", size=(64, 48)):
    markup = (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="{space}">'
              f"{body}</filter></svg>")
    return plan_graph(parse_svg(markup).filter("f"), size)


def primitive(body: str):
    return parse_svg(f'<svg {NS}><filter id="f">{body}</filter></svg>').filter("f").primitives[0]


@pytest.mark.parametrize("space", ["sRGB", "linearRGB"])
def test_an_amplifying_matrix_after_a_blur_runs_in_float_in_the_pass_back(space):
    p = plan('<feGaussianBlur stdDeviation="3" result="b"/>' + ALPHA_X18, space)
    first, *blur, last = p.passes
    assert isinstance(first, SpacePass) and first.to_linear and first.linear is (space == "linearRGB")
    # at full size to 4 sigma, as the reference's kernel: halvings' shape error x18 is levels
    assert [(b.axis.value, b.radius, b.scale, b.held) for b in blur] == [
        ("x", 12, 1, ImageFormat.RGBA32F), ("y", 12, 1, ImageFormat.RGBA32F)]
    assert isinstance(last, SpacePass) and not last.to_linear and p.output == last.output
    assert [st.matrix[15:] for st in last.steps] == [(0.0, 0.0, 0.0, 18.0, -7.0)]
    assert not any(isinstance(x, SvgColorPass) for x in p.passes)  # no 8-bit image before the matrix
    assert image_format(last) is ImageFormat.RGBA8 and input_format(last) is ImageFormat.RGBA32F


def test_colour_primitives_after_the_amplifying_one_fuse_into_the_same_pass_back():
    p = plan('<feGaussianBlur stdDeviation="3" result="b"/>' + ALPHA_X18.replace('in="b" ', 'in="b" result="g" ') +
             '<feColorMatrix in="g" type="saturate" values="0.3"/>')
    assert isinstance(p.passes[-1], SpacePass) and len(p.passes[-1].steps) == 2


@pytest.mark.parametrize("reader", ['<feColorMatrix in="b" type="saturate" values="0.4"/>',
                                    '<feComponentTransfer in="b"><feFuncA type="linear" slope="1.5"/></feComponentTransfer>'])
def test_colour_work_that_does_not_amplify_keeps_the_8_bit_blur(reader):
    p = plan('<feGaussianBlur stdDeviation="3" result="b"/>' + reader)
    assert not any(isinstance(x, SpacePass) for x in p.passes)
    assert all(image_format(x) is ImageFormat.RGBA8 for x in p.passes)


def test_a_blur_with_another_reader_stays_8_bit():
    p = plan('<feGaussianBlur stdDeviation="3" result="b"/>' + ALPHA_X18.replace("/>", ' result="g"/>') +
             '<feComposite in="b" in2="g" operator="over"/>')
    assert all(image_format(x) is ImageFormat.RGBA8 for x in p.passes)


@pytest.mark.parametrize("space", ["sRGB", "linearRGB"])
def test_lighting_of_a_blurred_alpha_reads_the_float_blur(space):
    p = plan("<feGaussianBlur in='SourceAlpha' stdDeviation='2' result='b'/>" + DIFFUSE, space)
    light = p.passes[-1]
    assert isinstance(light, LightingPass) and light.reads is ImageFormat.RGBA32F
    writer = next(x for x in p.passes if x.output == light.inputs[0])
    assert isinstance(writer, BlurPass) and writer.held is ImageFormat.RGBA32F  # no pass back to 8 bits
    assert [x for x in p.passes if isinstance(x, SpacePass)] == [p.passes[1]]  # after SourceAlpha's colour pass
    assert not p.passes[1].linear  # alpha alone: the format changes, not the space
    assert "input in floats" in light.describe()


def test_lighting_of_a_blur_clipped_to_a_subregion_reads_8_bits():
    p = plan("<feGaussianBlur in='SourceAlpha' stdDeviation='2' x='6' y='5' width='30' height='20' "
             "result='b'/>" + DIFFUSE)
    light = next(x for x in p.passes if isinstance(x, LightingPass))
    assert isinstance(light, LightingPass) and light.reads is ImageFormat.RGBA8
    assert not any(isinstance(x, SpacePass) for x in p.passes)


@pytest.mark.parametrize("body, gain", [
    ('<feColorMatrix type="matrix" values="1 0 0 0 0  0 1 0 0 0  0 0 1 0 0  0 0 0 18 -7"/>', 18.0),
    ('<feColorMatrix type="saturate" values="1"/>', 1.0),
    ('<feComponentTransfer><feFuncA type="linear" slope="-3"/></feComponentTransfer>', 3.0),
    ('<feComponentTransfer><feFuncR type="table" tableValues="0 1 0"/></feComponentTransfer>', 2.0),
    ('<feComponentTransfer><feFuncG type="gamma" amplitude="2" exponent="3"/></feComponentTransfer>', 6.0),
    ('<feComponentTransfer><feFuncG type="gamma" exponent="0.5"/></feComponentTransfer>', math.inf),
    ('<feComponentTransfer><feFuncB type="discrete" tableValues="0 1"/></feComponentTransfer>', math.inf),
])
def test_colour_gain_is_the_steepest_slope(body, gain):
    prim = primitive(body)
    assert isinstance(prim, (m.ColorMatrix, m.ComponentTransfer))
    assert colour_gain(prim) == pytest.approx(gain)
    assert AMPLIFYING_GAIN < 18.0


def test_the_opencl_calls_of_a_format_only_space_pass_are_the_identity():
    to_float = SpacePass(("source",), "f", True, linear=False).cl()
    table = np.asarray(to_float.args[-1].value)
    assert np.array_equal(table, identity_table())
    assert np.allclose(table.reshape(256, 256), np.arange(256) / 255.0)  # every alpha row: p / 255
    back = SpacePass(("f",), "out", False, linear=False).cl()
    assert back.kernel == "to_srgb" and np.allclose(np.asarray(back.args[4].value), np.linspace(0, 1, len(back.args[4].value)))
    assert [a.name for a in back.args[5:]] == ["steps", "n_steps", "step_table"]
