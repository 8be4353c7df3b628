"""The float64 oracle of ``box-shadow``: the spec's definition computed the slow way.

CSS Backgrounds 3 §7.1: a shadow is its shape's alpha mask blurred with a Gaussian of
standard deviation blur / 2. Here the mask is rasterized on a grid ``ss`` times finer
than the pixels (each fine cell holds the exact share of it inside the shape along x,
and along y on straight edges) and convolved directly, cell by cell, with the Gaussian
and the pixel's area (Lamina rasters by area): separably, by matrix products — the 2D
kernel is the product of two 1D ones, so this *is* the 2D convolution — each cell
weighted by the kernel's exact (float64 erf) integral over it. That is the area-sampled
blurred mask, which the raster shader computes in closed form along one axis and by a
few samples along the other. Nothing here shares code with the shader. The clips around the shadows (outer shadows outside the border box,
inset ones inside the padding box) use Lamina's edge coverage rule (shaders/common/
rrect.glsl, ported to numpy below), so tests compare the shadow maths, not two ways of
anti-aliasing a curve.

Slow by design (seconds for a few hundred px); for tests, not for rendering.
"""

from __future__ import annotations

import math

import numpy as np

from .shadows import ShadowPaint

__all__ = ["shadow_alpha", "rrect_coverage", "reference_layer"]


def _row_spans(rect, radii, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right edge of the rounded rect on rows at ``y`` (inside [y0, y1])."""
    x0, y0, x1, y1 = rect
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = radii

    def inset(rx: float, ry: float, d: np.ndarray) -> np.ndarray:
        # d: how far the row is into the corner band (0 at its inner end, ry at the edge)
        if rx <= 0.0 or ry <= 0.0:
            return np.zeros_like(d)
        t = np.clip(d / ry, 0.0, 1.0)
        return rx * (1.0 - np.sqrt(1.0 - t * t))

    left = np.maximum(inset(tlx, tly, (y0 + tly) - y), inset(blx, bly, y - (y1 - bly)))
    right = np.maximum(inset(trx, try_, (y0 + try_) - y), inset(brx, bry, y - (y1 - bry)))
    return x0 + left, x1 - right


def _fine_mask(rect, radii, x_edges: np.ndarray, y_edges: np.ndarray) -> np.ndarray:
    """Share of each fine cell inside the shape: exact along x; along y exact for the
    straight edges (the row's overlap with [y0, y1]), the span taken at the middle of
    the part of the row that is inside."""
    x0, y0, x1, y1 = rect
    if x1 <= x0 or y1 <= y0:
        return np.zeros((len(y_edges) - 1, len(x_edges) - 1))
    ya, yb = y_edges[:-1], y_edges[1:]
    lo, hi = np.maximum(ya, y0), np.minimum(yb, y1)
    share = np.clip(hi - lo, 0.0, None) / (yb - ya)
    left, right = _row_spans(rect, radii, np.clip((lo + hi) / 2.0, y0, y1))
    xa, xb = x_edges[:-1], x_edges[1:]
    inside = np.clip(np.minimum(right[:, None], xb[None, :]) - np.maximum(left[:, None], xa[None, :]), 0.0, None)
    return inside / (xb - xa)[None, :] * share[:, None]


def _kernel_cdf(u: np.ndarray, sigma: float) -> np.ndarray:
    """How much of the kernel (a 1 px box, the pixel, blurred by N(0, sigma)) lies left
    of ``u``: the integral of the box's blurred edge, v Phi(v / sigma) + sigma phi(v / sigma),
    across the box. float64 erf; sigma 0 is the box alone."""
    def ramp(v: np.ndarray) -> np.ndarray:
        if sigma <= 0.0:
            return np.maximum(v, 0.0)
        z = v / sigma
        cdf = 0.5 * (1.0 + np.array([math.erf(t / math.sqrt(2.0)) for t in z.ravel()]).reshape(z.shape))
        return v * cdf + sigma * np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)

    return ramp(u + 0.5) - ramp(u - 0.5)


def _axis_matrix(n: int, ss: int, pad: int, sigma: float) -> np.ndarray:
    """(n pixels, n * ss + 2 pad fine cells): the kernel's integral over each fine cell,
    seen from each pixel's centre. Centre minus cell edge is a multiple of 1 / ss, so one
    table of the kernel's integral serves the whole matrix."""
    cells = n * ss + 2 * pad
    p = np.arange(n)[:, None]
    j = np.arange(cells)[None, :]
    k = p * ss + ss // 2 + pad - j  # (centre - the cell's left edge) * ss
    lo = int(k.min()) - 1
    table = _kernel_cdf(np.arange(lo, int(k.max()) + 1) / ss, sigma)
    return table[k - lo] - table[k - 1 - lo]


def shadow_alpha(rect, radii, sigma: float, origin: tuple[float, float], size: tuple[int, int],
                 ss: int | None = None) -> np.ndarray:
    """(H, W) float64: the shape (x0, y0, x1, y1 with (rx, ry) radii tl, tr, br, bl)
    blurred by a Gaussian of ``sigma`` px, averaged over each pixel. Pixel (0, 0)
    covers [origin, origin + 1) in the shape's px.

    The mask is held ``ss`` x ``ss`` cells per pixel (16; 32 under sigma 2, where less
    blur hides less of the grid); the convolution with the Gaussian and the pixel's box
    is a product with the exact integral of that kernel over each cell, per axis (both
    are separable), a few hundred fine rows at a time."""
    w, h = size
    ss = ss or (32 if sigma < 2.0 else 16)
    pad = math.ceil((5.0 * sigma + 1.0) * ss)
    ox, oy = origin
    ax = _axis_matrix(w, ss, pad, sigma)
    ay = _axis_matrix(h, ss, pad, sigma)
    x_edges = ox + (np.arange(w * ss + 2 * pad + 1) - pad) / ss
    y_edges = oy + (np.arange(h * ss + 2 * pad + 1) - pad) / ss
    out = np.zeros((h, w))
    chunk = 256
    x0, y0, x1, y1 = rect
    for start in range(0, len(y_edges) - 1, chunk):
        stop = min(start + chunk, len(y_edges) - 1)
        if y_edges[stop] <= y0 or y_edges[start] >= y1:
            continue  # rows outside the shape hold nothing
        mask = _fine_mask(rect, radii, x_edges, y_edges[start:stop + 1])
        out += ay[:, start:stop] @ (mask @ ax.T)
    return out


def rrect_coverage(rect, radii, size: tuple[int, int], origin: tuple[float, float]) -> np.ndarray:
    """Lamina's edge coverage of a rounded rect at pixel centres (rrect.glsl's rule:
    exact area along straight edges, a one-pixel ramp across curved corners)."""
    w, h = size
    px = origin[0] + np.arange(w) + 0.5
    py = origin[1] + np.arange(h) + 0.5
    x, y = np.meshgrid(px, py)
    x0, y0, x1, y1 = rect

    def span(p, lo, hi):
        return np.clip((np.minimum(0.5, hi - p) + np.minimum(0.5, p - lo)), 0.0, 1.0)

    cov = span(x, x0, x1) * span(y, y0, y1)
    d = np.full(x.shape, -1e9)
    centres = [(x0 + radii[0][0], y0 + radii[0][1], -1, -1), (x1 - radii[1][0], y0 + radii[1][1], 1, -1),
               (x1 - radii[2][0], y1 - radii[2][1], 1, 1), (x0 + radii[3][0], y1 - radii[3][1], -1, 1)]
    for (rx, ry), (cx, cy, sx, sy) in zip(radii, centres):
        if rx <= 0.0 or ry <= 0.0:
            continue
        inside = ((x - cx) * sx > 0) & ((y - cy) * sy > 0)
        qx, qy = x - cx, y - cy
        k = np.hypot(qx / rx, qy / ry)
        g = np.hypot(qx / (rx * rx), qy / (ry * ry))
        dist = np.where(g > 0, (k - 1.0) * k / np.where(g > 0, g, 1.0), -min(rx, ry))
        d = np.where(inside, np.maximum(d, dist), d)
    return cov * np.clip(0.5 - d, 0.0, 1.0)


def _over(top: np.ndarray, under: np.ndarray) -> np.ndarray:
    return top + under * (1.0 - top[..., 3:4])


def reference_layer(size: tuple[float, float], radii, borders, background, border_color,
                    shadows: tuple[ShadowPaint, ...], out_size: tuple[int, int],
                    origin: tuple[float, float]) -> np.ndarray:
    """(H, W, 4) premultiplied float64: a layer's background, inset shadows, border and
    outer shadows as CSS paints them, pixel (0, 0) at ``origin`` in layer px."""
    w, h = size
    top, right, bottom, left = borders
    outer = rrect_coverage((0.0, 0.0, w, h), radii, out_size, origin)
    padding = (left, top, w - right, h - bottom)
    inner_radii = ((max(radii[0][0] - left, 0), max(radii[0][1] - top, 0)),
                   (max(radii[1][0] - right, 0), max(radii[1][1] - top, 0)),
                   (max(radii[2][0] - right, 0), max(radii[2][1] - bottom, 0)),
                   (max(radii[3][0] - left, 0), max(radii[3][1] - bottom, 0)))
    inner = rrect_coverage(padding, inner_radii, out_size, origin)
    zero = np.zeros((out_size[1], out_size[0], 4))
    outer_ink, inset_ink = zero.copy(), zero.copy()
    for s in reversed(shadows):  # the first shadow is on top
        if s.inset:
            hole = np.zeros(outer.shape) if s.empty else shadow_alpha(s.rect, s.radii, s.sigma, origin, out_size)
            inset_ink = _over(np.asarray(s.color) * (1.0 - hole)[..., None], inset_ink)
        elif not s.empty:
            outer_ink = _over(np.asarray(s.color) * shadow_alpha(s.rect, s.radii, s.sigma, origin, out_size)[..., None],
                              outer_ink)
    color = np.asarray(background, dtype=float) * outer[..., None]
    color = _over(inset_ink * inner[..., None], color)
    if any(b > 0 for b in borders):
        color = _over(np.asarray(border_color, dtype=float) * np.clip(outer - inner, 0.0, None)[..., None], color)
    return _over(color, outer_ink * (1.0 - outer)[..., None])
