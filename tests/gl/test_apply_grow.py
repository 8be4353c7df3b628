"""``filters.apply(..., grow=True)`` returns what a blur or a shadow spreads past the
image's edges (the plan's outsets), with its offset; the default keeps the size."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters


@pytest.mark.parametrize("backend", ["gl", "reference"])
def test_a_drop_shadow_grown_keeps_what_the_plan_says_it_reaches(gl, backend):
    image = np.zeros((20, 30, 4), np.uint8)
    image[5:15, 5:25] = (255, 0, 0, 255)
    chain = filters.parse("drop-shadow(12px 9px 0px black)")
    top, right, bottom, left = chain.plan().outsets
    assert (top, right, bottom, left) == (0, 12, 9, 0)
    grown = filters.apply(image, chain, backend, grow=True, **({"renderer": gl} if backend == "gl" else {}))
    assert grown.offset == (0, 0) and grown.image.shape == (29, 42, 4)
    # The shadow is the red square moved by (12, 9), black, under the square.
    assert tuple(grown.image[20, 30]) == (0, 0, 0, 255)
    assert tuple(grown.image[10, 10]) == (255, 0, 0, 255)
    assert tuple(grown.image[2, 40]) == (0, 0, 0, 0)
    same = filters.apply(image, chain, backend, **({"renderer": gl} if backend == "gl" else {}))
    assert same.shape == image.shape
    assert np.array_equal(grown.image[:20, :30], same), "the default is the grown result cut to the input"


def test_a_blur_grows_on_every_side_with_a_negative_offset(gl):
    image = np.full((8, 8, 4), 255, np.uint8)
    grown = filters.apply(image, "blur(2px)", renderer=gl, grow=True)
    assert grown.offset == (-6, -6) and grown.image.shape == (20, 20, 4)
    assert grown.image[0, 0, 3] <= 1 and grown.image[3, 10, 3] > 0  # it fades out past the old edge
