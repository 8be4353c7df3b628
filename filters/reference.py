"""The reference: filter chains in float64 numpy, written from the spec's formulas.

This is the oracle Lamina's GPU (and OpenCL) filter passes are tested against. It
favours being obviously right over being fast:

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

import math

import numpy as np

from ..images import premultiply, unpremultiply
from ..css.values import RGBA

from .chain import FilterChain
from .ops import Blur, ColorOp, DropShadow, FilterOp
from .plan import BLUR_SIGMA_CAP

__all__ = ["apply", "apply_premultiplied", "color_op", "gaussian_blur", "gaussian_kernel"]

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)


def color_op(premult: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Un-premultiply, apply a 4x5 matrix to straight RGBA, clamp, re-premultiply."""
    a = premult[..., 3:4]
    straight = np.where(a > 0, premult / np.where(a > 0, a, 1.0), 0.0)
    straight[..., 3:4] = a
    rgba1 = np.concatenate([straight, np.ones_like(a)], axis=-1)
    out = np.clip(rgba1 @ np.asarray(matrix, dtype=np.float64).T, 0.0, 1.0)
    out[..., :3] *= out[..., 3:4]
    return out


def gaussian_kernel(sigma: float) -> np.ndarray:
    radius = max(1, math.ceil(4.0 * sigma))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    k = np.exp(-(x * x) / (2.0 * sigma * sigma))
    return k / k.sum()


def _convolve_axis(img: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    radius = len(kernel) // 2
    pad = [(0, 0)] * img.ndim
    pad[axis] = (radius, radius)
    padded = np.pad(img, pad)  # zeros: transparent outside the image
    out = np.zeros_like(img)
    n = img.shape[axis]
    for i, w in enumerate(kernel):
        out += w * np.take(padded, np.arange(i, i + n), axis=axis)
    return out


def gaussian_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Separable Gaussian blur of an (H, W, C) float image, transparent edges."""
    sigma = min(sigma, BLUR_SIGMA_CAP)
    if sigma <= 0:
        return img.copy()
    k = gaussian_kernel(sigma)
    return _convolve_axis(_convolve_axis(img, k, 1), k, 0)


def _shift(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``out[y, x] = img(y - dy, x - dx)`` with bilinear interpolation, zeros outside."""
    h, w = img.shape[:2]
    ys = np.arange(h, dtype=np.float64)[:, None] - dy
    xs = np.arange(w, dtype=np.float64)[None, :] - dx
    x0 = np.floor(xs).astype(int)
    y0 = np.floor(ys).astype(int)
    fx = xs - x0
    fy = ys - y0

    def at(yi, xi):
        valid = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        vals = img[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(valid[..., None], vals, 0.0)

    return (
        at(y0, x0) * ((1 - fx) * (1 - fy))[..., None]
        + at(y0, x0 + 1) * (fx * (1 - fy))[..., None]
        + at(y0 + 1, x0) * ((1 - fx) * fy)[..., None]
        + at(y0 + 1, x0 + 1) * (fx * fy)[..., None]
    )


def _op(premult: np.ndarray, op: FilterOp, current_color: RGBA) -> np.ndarray:
    if isinstance(op, ColorOp):
        return color_op(premult, op.matrix())
    if isinstance(op, Blur):
        return gaussian_blur(premult, op.sigma)
    if isinstance(op, DropShadow):
        shadow = op.resolved(current_color)
        alpha = gaussian_blur(premult[..., 3:4], shadow.sigma)
        alpha = _shift(alpha, shadow.dx, shadow.dy)
        color = np.array(shadow.color.premultiplied(), dtype=np.float64)
        under = alpha * color
        return premult + under * (1.0 - premult[..., 3:4])
    raise AssertionError(f"no reference for {op!r}")


def apply_premultiplied(premult: np.ndarray, chain: FilterChain, current_color: RGBA = BLACK) -> np.ndarray:
    """Apply ``chain`` to float64 premultiplied RGBA in [0, 1]; same size out."""
    out = np.asarray(premult, dtype=np.float64)
    for op in chain:
        out = _op(out, op, current_color)
    return out


def apply(image: np.ndarray, chain: FilterChain, *, premultiplied: bool = False, current_color: RGBA = BLACK) -> np.ndarray:
    """uint8 RGBA in and out, quantised like the GPU path: the input premultiplied to
    8 bits first, the result rounded to 8 bits premultiplied (then un-premultiplied
    unless ``premultiplied``)."""
    src = image if premultiplied else premultiply(image)
    out = apply_premultiplied(src.astype(np.float64) / 255.0, chain, current_color)
    result = np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)
    return result if premultiplied else unpremultiply(result)
