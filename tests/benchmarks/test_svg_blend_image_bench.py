"""Benchmarks: feBlend (every mode is one combine pass), feColorMatrix luminanceToAlpha
(an svg colour pass) and feImage (an image pass sampling an uploaded picture) at
1920x1080 through ``filters.apply``, GL and OpenCL, in the same run; each round runs the
whole graph (upload, its passes, read-back), as tests/benchmarks/test_svg_filters_bench.py
does. (feTile without subregions plans no pass: its input is its tile.) The ratio test
measures what a blend mode costs over plain source-over, one combine pass each.

    .venv/bin/python -m pytest tests/benchmarks/test_svg_blend_image_bench.py --benchmark-enable --benchmark-only -s
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lamina import filters

from .test_filters_bench import ROUNDS, make_image
from .test_svg_filters_bench import median_ms, markup

MOVED = "<feOffset dx='3' dy='2' result='o'/>"  # in2 for the blends: a second image (one whole-pixel offset pass)
GRAPHS = {
    "feBlend normal (sRGB)": f"{MOVED}<feBlend in='SourceGraphic' in2='o' color-interpolation-filters='sRGB'/>",
    "feBlend multiply (sRGB)": f"{MOVED}<feBlend in='SourceGraphic' in2='o' mode='multiply' "
                               "color-interpolation-filters='sRGB'/>",
    "feBlend soft-light (linearRGB)": f"{MOVED}<feBlend in='SourceGraphic' in2='o' mode='soft-light'/>",
    "feBlend hue (linearRGB)": f"{MOVED}<feBlend in='SourceGraphic' in2='o' mode='hue'/>",
    "feBlend hue (sRGB)": f"{MOVED}<feBlend in='SourceGraphic' in2='o' mode='hue' color-interpolation-filters='sRGB'/>",
    "luminanceToAlpha (sRGB)": "<feColorMatrix type='luminanceToAlpha' color-interpolation-filters='sRGB'/>",
    "feImage 640x360 picture stretched": "<feImage href='picture.png' preserveAspectRatio='none'/>",
    "feImage 1920x1080 picture": "<feImage href='picture-1080.png'/>",
}


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pictures")
    rng = np.random.default_rng(7)
    for name, (w, h) in {"picture.png": (640, 360), "picture-1080.png": (1920, 1080)}.items():
        Image.fromarray(rng.integers(0, 256, (h, w, 4), dtype=np.uint8), "RGBA").save(folder / name)
    return folder


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_svg_blend_image_primitive_1080p(benchmark, gl, pictures, name, backend):
    benchmark.group = f"SVG filter 1080p: {name}"
    image, svg = make_image(), markup(GRAPHS[name])
    run = lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg, files=pictures)  # noqa: E731
    out = benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    assert out.shape == image.shape and out.any(), "the graph ran and drew something"


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_a_blend_mode_costs_about_what_source_over_does(gl, backend):
    """Every mode is one combine pass of a few dozen flops a pixel: with the upload, the
    offset pass and the read-back around it, the costliest mode (hue: un-premultiply,
    SetSat, SetLum and its clip) stays within 2.5x of feBlend normal, both in sRGB (measured
    0.8-1.7x: the margin is for the shared machine). (In
    linearRGB the conversions cost more than any mode on OpenCL: PoCL's exp2 / log2,
    as test_svg_filters_bench.py measures for colour primitives.) Measured here (1080p,
    median): see the README's SVG filter numbers."""
    image = make_image()
    rounds = max(3, ROUNDS // 3)
    times = {}
    for name in ("feBlend normal (sRGB)", "feBlend hue (sRGB)"):
        svg = markup(GRAPHS[name])
        times[name] = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg), rounds)
    normal, hue = times.values()
    print(f"\n{backend}: feBlend 1080p normal {normal:.1f} ms, hue {hue:.1f} ms ({hue / normal:.2f}x), sRGB")
    assert hue <= 2.5 * normal, times
