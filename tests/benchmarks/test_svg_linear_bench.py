"""Benchmark: feGaussianBlur stdDeviation 4 at 1920x1080 in linearRGB (the SVG default:
converted once into a float linear image, blurred there by the blur passes, converted
back: filters.svg.compile_linear) against the same blur in sRGB (the blur passes on the
8-bit image), on GL and OpenCL, in one run. The linear blur's error against the float64
reference is checked on a small image in the same run. In the normal suite (benchmarks
disabled) it runs once on a 192x108 image, a smoke test of the error check.

    .venv/bin/python -m pytest tests/benchmarks/test_svg_linear_bench.py --benchmark-enable -s
"""

from __future__ import annotations


import numpy as np
import pytest

from lamina import filters

from .test_filters_bench import make_image
from .test_svg_filters_bench import median_ms

NS = 'xmlns="http://www.w3.org/2000/svg"'


def markup(space: str) -> str:
    return (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="{space}">'
            '<feGaussianBlur stdDeviation="4"/></filter></svg>')


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_linear_rgb_blur_cost_against_the_srgb_blur(gl, benchmark, backend):
    image = make_image()[:108, :192].copy() if benchmark.disabled else make_image()
    rounds = 1 if benchmark.disabled else 3
    linear = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=markup("linearRGB")),
                        rounds)
    srgb = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=markup("sRGB")), rounds)
    rng = np.random.default_rng(27)
    small = (rng.random((64, 64, 4)) * 255).astype(np.uint8)
    small[..., :3] = np.minimum(small[..., :3], small[..., 3:4])
    ref = filters.apply(small, "url(#f)", "reference", premultiplied=True, svg=markup("linearRGB")).astype(int)
    error = np.abs(filters.apply(small, "url(#f)", backend, premultiplied=True, svg=markup("linearRGB")).astype(int)
                   - ref).max()
    print(f"\n{backend} {image.shape[1]}x{image.shape[0]} feGaussianBlur stdDeviation 4: linearRGB {linear:.0f} ms "
          f"(max error {error}), "
          f"sRGB {srgb:.0f} ms ({linear / srgb:.1f}x)")
    assert error <= 2, "the linear blur is within issue 27's bar of the reference"
    # Measured before the float image (convolve passes converting each of 2 x 25 taps a
    # pixel): GL 2449 ms linearRGB / 241 ms sRGB (10x), OpenCL 9767 / 98 ms (100x). With it
    # (2 shared cores under load 7-11, see the report of branch svg-linearf): about 1.1-1.5x
    # on GL (two conversion passes, and float fetches) and 1.0-1.2x on OpenCL (its
    # blur kernels read floats as fast as bytes; the conversions read tables); max
    # error 1 on both. Issue 27's target is 1.5x.
    if benchmark.disabled:
        return  # the smoke run's small image says nothing about cost
    assert linear < 2.0 * srgb, "a linear blur costs two conversion passes more than an sRGB one, not a conversion a tap"
