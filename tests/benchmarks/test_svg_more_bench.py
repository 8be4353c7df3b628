"""Benchmarks: the SVG primitives the other SVG benchmark files leave out (feMorphology,
feFlood, feDropShadow, feComposite, feMerge, feTile, feOffset, feComponentTransfer in
sRGB), each at 1920x1080 through ``filters.apply`` on GL and OpenCL in the same run; each
round runs the whole graph (upload, its passes, read-back), as
tests/benchmarks/test_svg_filters_bench.py does. With benchmarks disabled (the normal
suite) each graph runs once on a 320x180 crop, as a smoke test that it plans and draws.

    .venv/bin/python -m pytest tests/benchmarks/test_svg_more_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import pytest

from lamina import filters

from .test_filters_bench import ROUNDS, make_image
from .test_svg_filters_bench import markup

SRGB = "color-interpolation-filters='sRGB'"
MOVED = "<feOffset dx='3' dy='2' result='o'/>"  # a second input: one whole-pixel offset pass
GRAPHS = {
    "feMorphology erode radius 3 (sRGB)": f"<feMorphology operator='erode' radius='3' {SRGB}/>",
    "feMorphology dilate radius 3 2 (linearRGB)": "<feMorphology operator='dilate' radius='3 2'/>",
    "feFlood": "<feFlood flood-color='#3a7' flood-opacity='.6'/>",
    "feDropShadow (sRGB)": f"<feDropShadow dx='4' dy='4' stdDeviation='3' flood-color='#203' {SRGB}/>",
    "feDropShadow (linearRGB)": "<feDropShadow dx='4' dy='4' stdDeviation='3' flood-color='#203'/>",
    "feComposite over": f"{MOVED}<feComposite in='SourceGraphic' in2='o' operator='over'/>",
    "feComposite xor": f"{MOVED}<feComposite in='SourceGraphic' in2='o' operator='xor'/>",
    "feMerge of three": f"{MOVED}<feOffset dx='-2' result='p'/><feMerge><feMergeNode in='o'/><feMergeNode in='p'/>"
                        "<feMergeNode in='SourceGraphic'/></feMerge>",
    "feTile of a 64x48 subregion": "<feOffset x='{cx}' y='{cy}' width='64' height='48' result='t'/><feTile in='t'/>",
    "feOffset whole pixels": "<feOffset dx='7' dy='-5'/>",
    "feOffset fractional (sRGB)": f"<feOffset dx='2.5' dy='1.25' {SRGB}/>",
    "feOffset fractional (linearRGB)": "<feOffset dx='2.5' dy='1.25'/>",
    "feComponentTransfer linear+discrete (sRGB)": (
        f"<feComponentTransfer {SRGB}><feFuncR type='linear' slope='1.2' intercept='-.1'/>"
        "<feFuncB type='discrete' tableValues='0 .5 1'/></feComponentTransfer>"),
}


@pytest.fixture(scope="module")
def image():
    return make_image()


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_svg_more_primitive_1080p(benchmark, gl, image, name, backend):
    benchmark.group = f"SVG filter 1080p: {name}"
    svg = markup(GRAPHS[name]).replace("<filter ", "<filter primitiveUnits='userSpaceOnUse' ")
    rounds = ROUNDS
    if benchmark.disabled:
        image, rounds = image[:180, 200:520].copy(), 1
    h, w = image.shape[:2]
    svg = svg.replace("{cx}", str(w // 2)).replace("{cy}", str(h // 2))  # a tile from the image's middle
    run = lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg)  # noqa: E731
    out = benchmark.pedantic(run, rounds=rounds, warmup_rounds=0 if benchmark.disabled else 1)
    assert out.shape == image.shape and out.any(), "the graph ran and drew something"
