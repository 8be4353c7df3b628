"""Planning a blur with one sigma per axis (filters.plan.blur_levels_axes, _Builder.blur_axes;
SVG's stdDeviation="sx sy"): halvings chosen by the smaller sigma, each axis's level sigma
keeping its full-size variance, an axis of sigma 0 never blurred. No GPU."""

from __future__ import annotations

import math

import pytest

from lamina.filters.plan import (MAX_BLUR_RADIUS, OPENCL_MIN_LOCAL_BYTES, Axis, BlurPass, PassKind, ResamplePass, _Builder,
                                 blur_levels, blur_levels_axes)


def _pipeline_variance(k: int, level: float) -> float:
    """Full-size variance of k halvings (2-tap boxes), a level blur and the bilinear upsample."""
    four_k = 4.0**k
    return (four_k - 1.0) / 12.0 + (four_k / 6.0 if k else 0.0) + four_k * level * level


@pytest.mark.parametrize("sigmas", [(2.0, 8.0), (0.0, 5.0), (19.0, 6.0), (30.0, 12.5), (3.0, 3.0)])
def test_each_axis_keeps_its_variance_at_the_halvings_of_the_smaller_sigma(sigmas):
    k, levels = blur_levels_axes(sigmas)
    assert k == blur_levels(min(sigmas))[0]
    for sigma, level in zip(sigmas, levels):
        if sigma > 0:
            assert math.isclose(_pipeline_variance(k, level), sigma * sigma, rel_tol=1e-12)
        else:
            assert level == 0.0


def test_an_axis_of_sigma_zero_is_neither_halved_nor_blurred():
    b = _Builder()
    b.blur_axes("source", (0.0, 5.0))
    assert not any(isinstance(p, ResamplePass) for p in b.passes), "a halving would blur x"
    assert [(p.axis, p.sigma) for p in b.passes] == [(Axis.Y, 5.0)]


def test_the_larger_axis_blurs_with_more_taps_at_the_shared_level():
    b = _Builder()
    b.blur_axes("source", (19.0, 6.0))
    kinds = [p.pass_kind for p in b.passes]
    assert kinds == [PassKind.DOWNSAMPLE, PassKind.BLUR, PassKind.BLUR, PassKind.UPSAMPLE]
    x, y = (p for p in b.passes if isinstance(p, BlurPass))
    assert x.scale == y.scale == 2 and x.radius > y.radius


def test_equal_sigmas_plan_as_the_isotropic_blur():
    a, b = _Builder(), _Builder()
    a.blur("source", 9.0)
    b.blur_axes("source", (9.0, 9.0))
    assert a.passes == b.passes


def test_every_blur_pass_fits_the_local_memory_every_opencl_device_has(rng):
    """A per-axis blur's wide axis keeps up to 300 taps a side at one level (sigma 100 by
    0): its tiled blur_y kernel would need 157 KB of local memory (PoCL has 1 MiB, a GPU
    32-64 KiB, where the run was refused); such passes run the untiled blur_wide kernel,
    the same weights along the same axis."""
    for _ in range(200):
        sigmas = tuple(float(rng.choice([0.0, rng.uniform(0.01, 4.0), rng.uniform(4.0, 100.0)])) for _ in range(2))
        b = _Builder()
        b.blur_axes("source", sigmas)
        for p in (p for p in b.passes if isinstance(p, BlurPass)):
            call = p.cl()
            assert call.local_bytes <= OPENCL_MIN_LOCAL_BYTES, (sigmas, p.radius, call.kernel)
            weights = next(a.value for a in call.args if a.name == "weights")
            assert len(weights) == 2 * p.radius + 1
            if call.kernel == "blur_wide":
                axis = tuple(a.value for a in call.args if a.name in ("ax", "ay"))
                assert axis == p.axis.unit and p.radius > MAX_BLUR_RADIUS
            else:
                assert call.kernel == f"blur_{p.axis}"
