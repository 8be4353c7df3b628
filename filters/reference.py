"""The reference: filter chains in float64 numpy, written from the spec's formulas.

This is the oracle Lamina's GPU (and OpenCL) filter passes are tested against. Each op's
reference is part of its record (``FilterOp.reference`` in ``filters.ops``); this module
runs a chain through them and quantises as the GPU path does. They favour being
obviously right over being fast:

* colour ops un-premultiply, apply the op's 4x5 matrix (filters.ops, the spec's
  numbers), clamp to [0, 1] after each op, re-premultiply (Filter Effects 1 §9);
* blur convolves the premultiplied image with a sampled Gaussian of standard deviation
  sigma out to 4 sigma (0.006% of its mass lies beyond), normalised, separably;
  outside the image is transparent black (edge mode none);
* drop-shadow blurs the input's alpha the same way, shifts it by the offset (bilinear
  for fractional offsets), multiplies by the premultiplied colour and composites the
  input over it;
* sigma is capped at 100 px as the planner caps it.

Inputs and outputs are (H, W, 4) arrays; see ``apply_premultiplied`` for float64
premultiplied data and ``apply`` for the uint8 straight RGBA of ``filters.apply``.
"""

from __future__ import annotations

import numpy as np

from ..images import premultiply, unpremultiply
from ..css.values import RGBA

from .chain import FilterChain
from .ops import color_op, gaussian_blur, gaussian_kernel

__all__ = ["apply", "apply_premultiplied", "color_op", "gaussian_blur", "gaussian_kernel"]

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)


def apply_premultiplied(premult: np.ndarray, chain: FilterChain, current_color: RGBA = BLACK) -> np.ndarray:
    """Apply ``chain`` to float64 premultiplied RGBA in [0, 1]; same size out."""
    out = np.asarray(premult, dtype=np.float64)
    for op in chain:
        out = op.resolved(current_color).reference(out)  # each op's own reference (filters.ops)
    return out


def apply(image: np.ndarray, chain: FilterChain, *, premultiplied: bool = False, current_color: RGBA = BLACK) -> np.ndarray:
    """uint8 RGBA in and out, quantised like the GPU path: the input premultiplied to
    8 bits first, the result rounded to 8 bits premultiplied (then un-premultiplied
    unless ``premultiplied``)."""
    src = image if premultiplied else premultiply(image)
    out = apply_premultiplied(src.astype(np.float64) / 255.0, chain, current_color)
    result = np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)
    return result if premultiplied else unpremultiply(result)
