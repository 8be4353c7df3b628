"""feGaussianBlur in linearRGB through a float linear image (issue 27,
lamina.filters.svg.compile_linear): the plan converts once, blurs with the downscaled
passes on RGBA32F images and converts back; the frame graph holds those images as
RGBA32F textures; the scheduler prices their copies at 16 bytes a pixel; the OpenCL
conversions' tables are the float64 transfer function. No GPU here:
tests/gl/test_svg_linear_float_gl.py runs these plans against the SVG reference."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.filter_costs import _image_bytes
from lamina.filters.plan import (SRGB_TABLE_STEPS, BlurPass, ConvolvePass, ImageFormat, PassKind, ResamplePass,
                                 SpacePass, image_format, linear_table, srgb_table)
from lamina.filters.svg import parse_svg, reference
from lamina.filters.svg.compile import plan_graph
from lamina.framegraph import Executor, TextureDesc, TextureRole
from lamina.filter_costs import place
from lamina.graph.filter_tasks import filter_tasks

NS = 'xmlns="http://www.w3.org/2000/svg"'


def plan(attrs: str, space: str = "linearRGB", size=(64, 48), body: str = ""):
    body = body or f"<feGaussianBlur {attrs}/>"
    markup = (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="{space}">'
              f"{body}</filter></svg>")
    return plan_graph(parse_svg(markup).filter("f"), size)


@pytest.mark.parametrize("attrs", ["stdDeviation='4'", "stdDeviation='9 2'", "stdDeviation='0 3'",
                                   "stdDeviation='30'"])
def test_a_linear_blur_converts_once_blurs_floats_and_converts_back(attrs):
    p = plan(attrs)
    first, *blur, last = p.passes
    assert isinstance(first, SpacePass) and first.to_linear and first.inputs == ("source",)
    assert isinstance(last, SpacePass) and not last.to_linear and p.output == last.output
    assert blur and all(isinstance(b, (BlurPass, ResamplePass)) and b.held is ImageFormat.RGBA32F for b in blur)
    assert [image_format(x) for x in p.passes] == [ImageFormat.RGBA32F] * (len(p.passes) - 1) + [ImageFormat.RGBA8]
    assert {x.pass_kind for x in p.passes} >= {PassKind.SPACE, PassKind.BLUR}


def test_what_the_float_path_cannot_do_stays_convolve_passes_and_srgb_stays_as_it_was():
    for edge in ("duplicate", "wrap"):  # the downscaled blur passes know transparent edges only
        p = plan(f"stdDeviation='2' edgeMode='{edge}'")
        assert [type(x) for x in p.passes] == [ConvolvePass, ConvolvePass] and all(x.linear for x in p.passes)
    srgb = plan("stdDeviation='4'", space="sRGB")
    assert all(isinstance(x, BlurPass) and x.held is ImageFormat.RGBA8 for x in srgb.passes)
    # an alpha-only image blurs alike in either space: no conversion
    alpha = plan("", body="<feGaussianBlur in='SourceAlpha' stdDeviation='3'/>")
    assert not any(isinstance(x, SpacePass) for x in alpha.passes)
    # a fractional feOffset reads 4 taps a pixel: still converted per tap in one pass
    offset = plan("", body="<feOffset dx='1.5' dy='.5'/>")
    assert [type(x) for x in offset.passes] == [ConvolvePass]


def test_the_frame_graph_holds_the_linear_images_as_float_textures_and_copies_them_so():
    p = plan("stdDeviation='4'")
    source = TextureDesc("apply:source", 64, 48, TextureRole.UPLOAD)
    executors = tuple(Executor.GL if i % 2 == 0 else Executor.OPENCL for i in range(len(p.passes)))
    placed = place(p, 64, 48, "gl")
    placed = type(placed)(executors, ("test",) * len(executors), "alternating")
    tasks = filter_tasks(p, source, placed, "apply")
    textures = {t.name: t for task in tasks.passes for t in (task.target,)}
    floats = [t for t in textures.values() if t.format == ImageFormat.RGBA32F]
    assert floats and all(t.bytes == t.width * t.height * 16 for t in floats)
    copies = [task for task in tasks.passes if task.kind == "transfer"]
    assert copies and all(c.target.format == c.source.format for c in copies), "a copy keeps its image's format"
    assert any(c.target.format == ImageFormat.RGBA32F for c in copies)
    assert tasks.result.format == ImageFormat.RGBA8
    sizes = _image_bytes(p, 64, 48)
    assert sizes["source"] == 64 * 48 * 4 and sizes[p.passes[0].output] == 64 * 48 * 16
    assert sizes[p.output] == 64 * 48 * 4


def test_the_opencl_conversion_tables_are_the_float64_transfer_function():
    table = linear_table().reshape(256, 256)  # [alpha, premultiplied value]
    a = np.arange(1, 256)[:, None]
    p = np.arange(256)[None, :]
    img = np.zeros((255, 256, 4))
    img[..., 0] = np.broadcast_to(p / 255.0, (255, 256))
    img[..., 3] = np.broadcast_to(a / 255.0, (255, 256))
    expected = reference.convert(img, reference.m.ColorSpace.SRGB, reference.m.ColorSpace.LINEAR_RGB)[..., 0]
    assert np.abs(table[1:] - expected).max() < 1e-7 and not table[0].any()
    # between its entries the sRGB table is within 0.01 of a level of the curve
    c = np.random.default_rng(27).random(100_000)
    q = c * SRGB_TABLE_STEPS
    i = np.minimum(q.astype(int), SRGB_TABLE_STEPS - 1)
    t = srgb_table().astype(np.float64)
    between = t[i] + (t[i + 1] - t[i]) * (q - i)
    assert np.abs(between - reference.linear_to_srgb(c)).max() * 255 < 0.01
