"""An independent numpy model of what Lamina should draw, for pixel tests.

It knows nothing of the engine's code: axis-aligned boxes are painted with exact
coverage and premultiplied source-over in float64, then quantised like the GPU does.
"""

from __future__ import annotations

import numpy as np


def blank(width: int, height: int, rgba=(1.0, 1.0, 1.0, 1.0)) -> np.ndarray:
    """A premultiplied float64 canvas filled with a straight colour."""
    r, g, b, a = rgba
    out = np.empty((height, width, 4))
    out[...] = (r * a, g * a, b * a, a)
    return out


def box_coverage(width: int, height: int, x: float, y: float, w: float, h: float) -> np.ndarray:
    """Exact area coverage of each pixel by the rectangle [x, x+w) x [y, y+h)."""
    xs = np.arange(width, dtype=np.float64)
    ys = np.arange(height, dtype=np.float64)
    cx = np.clip(np.minimum(xs + 1, x + w) - np.maximum(xs, x), 0, 1)
    cy = np.clip(np.minimum(ys + 1, y + h) - np.maximum(ys, y), 0, 1)
    return cy[:, None] * cx[None, :]


def over(canvas: np.ndarray, rgba, coverage: np.ndarray, opacity: float = 1.0) -> np.ndarray:
    """canvas := (colour * coverage * opacity) over canvas, premultiplied."""
    r, g, b, a = rgba
    k = coverage * opacity * a
    src = np.stack([r * k, g * k, b * k, k], axis=-1)
    return src + canvas * (1.0 - src[..., 3:4])


def to_straight_u8(canvas: np.ndarray) -> np.ndarray:
    """Quantise like the pipeline: premultiplied 8-bit, then un-premultiply."""
    p = np.clip(np.rint(canvas * 255.0), 0, 255)
    a = p[..., 3:4]
    rgb = np.where(a > 0, np.clip(np.rint(p[..., :3] * 255.0 / np.maximum(a, 1)), 0, 255), 0)
    return np.concatenate([rgb, a], axis=-1).astype(np.uint8)
