"""Benchmark: feGaussianBlur with two stdDeviation values (filters.plan.blur_levels_axes)
at 1920x1080 on GL and OpenCL, against the alternative it was chosen over, in one run.

The blur passes halve both axes together, so a per-axis blur shares its halvings. Chosen:
halve as the smaller sigma needs (its axis exact; the larger axis takes more taps at that
level). Alternative: halve as the larger sigma needs (fewest taps) and give the smaller
axis what variance is left, which is none once the halvings alone spread it more than its
sigma (stdDeviation "2 8": the halvings' spread is ~1.4 px per axis at 1/4 size, so x
blurs by ~2.2 instead of 2; "0 8" would blur x that must stay sharp). The test measures the
cost of the chosen plan against the alternative and against the isotropic blur of the
larger sigma, and the alternative's error against the float64 reference (on a small image).

    .venv/bin/python -m pytest tests/benchmarks/test_svg_blur_axes_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.filters import plan as filter_plan

from .test_filters_bench import make_image
from .test_svg_filters_bench import median_ms

NS = 'xmlns="http://www.w3.org/2000/svg"'


def markup(std: str) -> str:
    return (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">'
            f'<feGaussianBlur stdDeviation="{std}"/></filter></svg>')


def _by_larger(sigmas, pixels=None):
    k, _ = filter_plan.blur_levels(max(sigmas), pixels)
    return k, tuple(filter_plan.level_sigma(s, k) for s in sigmas)


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_per_axis_blur_cost_against_halving_by_the_larger_sigma(gl, monkeypatch, benchmark, backend):
    # The suite's smoke run (benchmarks disabled): a crop, once each, and no timing asserted.
    image = make_image()[:108, :192].copy() if benchmark.disabled else make_image()
    rounds = 1 if benchmark.disabled else 3
    chosen = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=markup("2 8")), rounds)
    isotropic = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=markup("8")), rounds)
    rng = np.random.default_rng(27)
    small = (rng.random((64, 64, 4)) * 255).astype(np.uint8)
    small[..., :3] = np.minimum(small[..., :3], small[..., 3:4])
    ref = filters.apply(small, "url(#f)", "reference", premultiplied=True, svg=markup("2 8")).astype(int)
    chosen_error = np.abs(filters.apply(small, "url(#f)", backend, premultiplied=True, svg=markup("2 8")).astype(int)
                          - ref).max()
    monkeypatch.setattr(filter_plan, "blur_levels_axes", _by_larger)
    by_larger = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=markup("2 8")), rounds)
    larger_error = np.abs(filters.apply(small, "url(#f)", backend, premultiplied=True, svg=markup("2 8")).astype(int)
                          - ref).max()
    print(f"\n{backend} 1080p stdDeviation '2 8': by the smaller sigma {chosen:.0f} ms (max error {chosen_error}), "
          f"by the larger {by_larger:.0f} ms (max error {larger_error}); isotropic '8' {isotropic:.0f} ms")
    assert chosen_error <= 2 < larger_error, "halving by the larger sigma misses the reference; the chosen plan does not"
    # Measured (2 shared cores under load): GL 1046 ms chosen / 176 ms by the larger / 143 ms
    # isotropic '8' (the y pass's 49 taps at full size on llvmpipe); OpenCL 234 / 60 / 65 ms;
    # max errors 1 (chosen) and 4 (by the larger) on both. Halving each axis on its own
    # (anisotropic resample passes) would bring the chosen plan near the isotropic cost.
    if not benchmark.disabled:
        assert by_larger < chosen, "what the chosen plan pays for its accuracy: taps at full size"
