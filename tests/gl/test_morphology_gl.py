"""feMorphology's passes on GL (shaders/filters/morphology.frag) and on OpenCL (the
filter_morphology kernel) against its float64 reference (filters.ops.Morphology), on
seeded random images with random alpha, premultiplied and straight, through
``filters.apply``. A min or max of 8-bit texels rounds nothing, so the executors should
match exactly; the bar is the filters' usual 1 level."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.filters.ops import Morphology

from .test_filters_gl import random_image


@pytest.fixture(params=["gl", "opencl"])
def backend(request):
    return request.param


@pytest.mark.parametrize("operator", ["dilate", "erode"])
@pytest.mark.parametrize("rx, ry", [(2, 1), (1, 4), (0, 3), (5, 0), (20, 2)])
@pytest.mark.parametrize("premultiplied", [True, False])
def test_morphology_matches_the_reference(gl, rng, backend, operator, rx, ry, premultiplied):
    img = random_image(rng, 23, 31)
    chain = filters.FilterChain((Morphology(operator, rx, ry),))
    out = filters.apply(img, chain, backend, premultiplied=premultiplied).astype(int)
    ref = filters.apply(img, chain, "reference", premultiplied=premultiplied).astype(int)
    assert out.shape == img.shape
    assert np.abs(out - ref).max() <= 1, f"{chain!r} on {backend}"


def test_morphology_in_a_chain_with_colour_ops_and_grown(gl, rng, backend):
    img = random_image(rng, 19, 27, transparent_border=3)
    chain = filters.FilterChain((Morphology("dilate", 3, 2), filters.Sepia(0.6), Morphology("erode", 1, 2),
                                 filters.Opacity(0.8)))
    out = filters.apply(img, chain, backend, premultiplied=True, grow=True)
    ref = filters.apply(img, chain, "reference", premultiplied=True, grow=True)
    assert out.offset == ref.offset == (-3, -2)
    assert np.abs(out.image.astype(int) - ref.image).max() <= 1
