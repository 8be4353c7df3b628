"""Benchmark: feGaussianBlur stdDeviation 4 at 1920x1080 in linearRGB (the SVG default:
converted once into a float linear image, blurred there by the blur passes, converted
back: filters.svg.compile_linear) against the same blur in sRGB (the blur passes on the
8-bit image), on GL and OpenCL, in one run. The linear blur's error against the float64
reference is checked on a small image in the same run. In the normal suite (benchmarks
disabled) it runs once on a 192x108 image, a smoke test of the error check.

    .venv/bin/python -m pytest tests/benchmarks/test_svg_linear_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest

from lamina import filters

from .test_filters_bench import make_image

NS = 'xmlns="http://www.w3.org/2000/svg"'


def markup(space: str) -> str:
    return (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="{space}">'
            '<feGaussianBlur stdDeviation="4"/></filter></svg>')


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_linear_rgb_blur_cost_against_the_srgb_blur(gl, benchmark, backend):
    image = make_image()[:108, :192].copy() if benchmark.disabled else make_image()
    rounds = 1 if benchmark.disabled else 5
    # One round of each in turn, so both see the same load on the shared cores (timed one
    # after the other, three rounds each, the ratio swung between 1.1x and 2.1x).
    runs = {space: lambda space=space: filters.apply(image, "url(#f)", backend, premultiplied=True,
                                                     svg=markup(space)) for space in ("linearRGB", "sRGB")}
    times: dict[str, list[float]] = {space: [] for space in runs}
    for space, run in runs.items():
        run()  # compile, allocate
    for _ in range(rounds):
        for space, run in runs.items():
            t = time.perf_counter()
            run()
            times[space].append((time.perf_counter() - t) * 1e3)
    linear, srgb = statistics.median(times["linearRGB"]), statistics.median(times["sRGB"])
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
    # (2 shared cores, load 5-6, rounds in turn, medians of 5): GL 703-996 / 506-708 ms
    # (1.2-1.6x: two conversion passes, and float fetches a little dearer than bytes),
    # OpenCL 196-400 / 215-372 ms (0.9-1.1x: PoCL's blur reads float4 faster than uchar4,
    # the conversions read tables); max error 1 on both. Issue 27's target is 1.5x.
    if benchmark.disabled:
        return  # the smoke run's small image says nothing about cost
    assert linear < 2.0 * srgb, "a linear blur costs two conversion passes more than an sRGB one, not a conversion a tap"
