"""feGaussianBlur in linearRGB through a float linear image (issue 27,
lamina.filters.svg.compile_linear) on GL and on OpenCL against the SVG float64 reference
(lamina.filters.svg.reference), through ``filters.apply`` on seeded random premultiplied
images: within 2 levels, issue 27's bar for blurs. Dark gradients are where an 8-bit
linear image would band (checked: it misses the bar there); per-axis sigmas, downscaled
sigmas, subregions and straight input are covered; a plan placed alternately on GL and
OpenCL copies its float images between them and gives the same pixels."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.filter_costs import Placement
from lamina.filters.plan import ImageFormat, SpacePass, image_format
from lamina.filters.svg import parse_svg, reference
from lamina.filters.svg.compile import plan_graph
from lamina.framegraph import Executor, FrameGraph, NoPolicy, TextureDesc, TextureRole, UploadPass
from lamina.gpu import opencl as cl_filters
from lamina.images import premultiply, unpremultiply
from lamina.graph.filter_tasks import filter_tasks

from .test_filters_gl import backend, random_image  # noqa: F401  (backend: the GL / OpenCL fixture)

NS = 'xmlns="http://www.w3.org/2000/svg"'


def markup(body: str, space: str = "linearRGB") -> str:
    return (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="{space}">'
            f"{body}</filter></svg>")


def off(img: np.ndarray, body: str, backend: str, premultiplied: bool = True) -> int:
    svg = markup(body)
    out = filters.apply(img, "url(#f)", backend, premultiplied=premultiplied, svg=svg).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=premultiplied, svg=svg).astype(int)
    return int(np.abs(out - ref).max())


def dark_gradient(h: int, w: int) -> np.ndarray:
    """Premultiplied colour 0..12 of 255 across, opaque and half transparent rows: sRGB
    levels whose linear values lie under 8-bit linear's first steps."""
    img = np.zeros((h, w, 4), np.uint8)
    ramp = np.round(np.linspace(0, 12, w)).astype(np.uint8)
    img[..., 0] = ramp
    img[..., 1] = ramp[::-1]
    img[..., 2] = ramp // 2
    img[..., 3] = 255
    img[h // 2:, :, 3] = 128
    img[h // 2:, :, :3] = (img[h // 2:, :, :3].astype(int) * 128 // 255).astype(np.uint8)
    return img


BLURS = {
    "sigma-4": "<feGaussianBlur stdDeviation='4'/>",
    "small": "<feGaussianBlur stdDeviation='0.8'/>",
    "two-sigmas": "<feGaussianBlur stdDeviation='6 1.5'/>",
    "y-only": "<feGaussianBlur stdDeviation='0 3'/>",
    "downscaled": "<feGaussianBlur stdDeviation='11'/>",
    "subregion": "<feGaussianBlur stdDeviation='2.5' x='6' y='4' width='20' height='14'/>",
    "then-colour": "<feGaussianBlur stdDeviation='2'/><feColorMatrix type='saturate' values='.3'/>",
}


@pytest.mark.parametrize("name", BLURS)
def test_linear_blurs_on_a_float_image_match_the_svg_reference(gl, rng, backend, name):
    plan = plan_graph(parse_svg(markup(BLURS[name])).filter("f"), (41, 29))
    assert any(isinstance(p, SpacePass) for p in plan.passes), "the float path, not convolve passes"
    assert off(random_image(rng, 29, 41), BLURS[name], backend) <= 2, f"{name} on {backend}"


def test_dark_gradients_do_not_band_where_an_8_bit_linear_image_would(gl, backend):
    img = dark_gradient(24, 96)
    body = "<feGaussianBlur stdDeviation='3 0'/>"
    assert off(img, body, backend) <= 2
    # What an 8-bit linear intermediate would give: the input converted, rounded to 8 bits,
    # blurred (float64) and converted back. It misses the bar: the float image is needed.
    linear = reference.convert(img / 255.0, reference.m.ColorSpace.SRGB, reference.m.ColorSpace.LINEAR_RGB)
    banded = np.round(linear * 255.0) / 255.0
    k = np.exp(-np.arange(-9, 10) ** 2 / 18.0)
    k /= k.sum()
    blurred = np.stack([np.stack([np.convolve(banded[y, :, c], k, mode="same") for c in range(4)], -1)
                        for y in range(banded.shape[0])])
    srgb = reference.convert(blurred, reference.m.ColorSpace.LINEAR_RGB, reference.m.ColorSpace.SRGB)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup(body)).astype(int)
    assert np.abs(np.round(srgb * 255).astype(int) - ref).max() > 2, "8-bit linear bands these darks"


def test_straight_input_is_converted_where_the_passes_read_and_write_it(gl, rng, backend):
    """The conversions fused into the space passes (premultiply as the first reads,
    un-premultiply as the last writes) round as lamina.images does on the host."""
    img = rng.integers(0, 256, (21, 33, 4), dtype=np.uint8)
    svg = markup("<feGaussianBlur stdDeviation='2 3'/>")
    straight = filters.apply(img, "url(#f)", backend, svg=svg)
    premultiplied = filters.apply(premultiply(img), "url(#f)", backend, premultiplied=True, svg=svg)
    assert np.array_equal(straight, unpremultiply(premultiplied))
    assert off(premultiply(img), "<feGaussianBlur stdDeviation='2 3'/>", backend) <= 2


def test_a_plan_placed_on_gl_and_opencl_by_turns_copies_floats_between_them(gl, rng):
    body = "<feGaussianBlur stdDeviation='14 6'/>"  # downscaled: down, blur x, blur y, up between the conversions
    img = random_image(rng, 40, 52)
    plan = plan_graph(parse_svg(markup(body)).filter("f"), (52, 40))
    n = len(plan.passes)
    assert n >= 5 and sum(image_format(p) is ImageFormat.RGBA32F for p in plan.passes) >= 4
    outs = []
    for first in (Executor.GL, Executor.OPENCL):
        other = Executor.OPENCL if first is Executor.GL else Executor.GL
        executors = tuple(first if i % 2 == 0 else other for i in range(n))
        source = TextureDesc("apply:source", 52, 40, TextureRole.UPLOAD)
        tasks = filter_tasks(plan, source, Placement(executors, ("test",) * n, "by turns"), "apply")
        copies = [t for t in tasks.passes if t.kind == "transfer"]
        assert any(c.source.format == ImageFormat.RGBA32F for c in copies), "floats cross between the two"
        graph = FrameGraph(52, 40, [UploadPass("upload:apply", "apply", source, img), *tasks.passes], tasks.result,
                           policy=NoPolicy("test"))
        gl.gpu.activate()
        out, _ = gl.executor.execute(graph, opencl=cl_filters.default_runner(), timed=False)
        outs.append(out.astype(int))
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup(body)).astype(int)
    single = filters.apply(img, "url(#f)", "gl", premultiplied=True, svg=markup(body)).astype(int)
    for out in outs:
        assert np.abs(out - ref).max() <= 2 and np.abs(out - single).max() <= 1


def test_the_float_images_go_back_to_their_pools(gl, rng):
    """Float textures and buffers are pooled by format and size, and released after their
    last reader as the 8-bit ones are: a second run allocates nothing new."""
    img = random_image(rng, 30, 40)
    svg = markup("<feGaussianBlur stdDeviation='2'/>")
    pool, cl = gl.executor.pool, cl_filters.default_runner()
    for backend in ("gl", "opencl"):
        filters.apply(img, "url(#f)", backend, premultiplied=True, svg=svg)
        before = (pool.in_use, pool.allocations, cl.allocations)
        filters.apply(img, "url(#f)", backend, premultiplied=True, svg=svg)
        assert (pool.in_use, pool.allocations, cl.allocations) == before, backend
