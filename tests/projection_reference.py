"""A float64 model of a flat layer drawn with a 3D transform, for pixel tests: the 4x4
matrices of CSS Transforms 2 written out in numpy (independent of lamina.matrix4), the
quad clipped in homogeneous space where it reaches behind the eye (w <= eps), each
pixel's coverage by the clipped, projected polygon (tests.coverage_reference), and
perspective-correct bilinear sampling of the layer's image at each pixel centre (the
centre mapped back through the inverse homography).

It knows nothing of the engine; what it models is what a browser draws: the image
premultiplied, sampled bilinearly with its edge texels clamped, scaled by coverage,
composited over an opaque background.
"""

from __future__ import annotations

import math

import numpy as np

from tests import coverage_reference

EPS_W = 1e-5


def translate(x: float, y: float, z: float = 0.0) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def perspective(d: float) -> np.ndarray:
    m = np.eye(4)
    m[3, 2] = -1.0 / max(d, 1.0)
    return m


def rotate(axis: tuple[float, float, float], degrees: float) -> np.ndarray:
    """Rodrigues' formula: the right-handed rotation about ``axis`` that CSS uses with
    y down (rotateZ(a) turns x toward y; rotateY(a) turns z toward x)."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    a = math.radians(degrees)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    r = np.eye(3) + math.sin(a) * kx + (1 - math.cos(a)) * kx @ kx
    m = np.eye(4)
    m[:3, :3] = r
    return m


def flatten(m: np.ndarray) -> np.ndarray:
    """The homography of the plane z = 0: rows and columns x, y, w."""
    return m[np.ix_([0, 1, 3], [0, 1, 3])]


def clipped_polygon(h: np.ndarray, w: float, hgt: float) -> list[tuple[float, float]]:
    """The quad (0,0)-(w,hgt) through ``h``, cut where w < EPS_W, then divided."""
    corners = [np.array([x, y, 1.0]) for x, y in ((0, 0), (w, 0), (w, hgt), (0, hgt))]
    hs = [h @ c for c in corners]
    out = []
    for p, q in zip(hs, hs[1:] + hs[:1]):
        if p[2] >= EPS_W:
            out.append((p[0] / p[2], p[1] / p[2]))
        if (p[2] >= EPS_W) != (q[2] >= EPS_W):
            t = (EPS_W - p[2]) / (q[2] - p[2])
            r = p + t * (q - p)
            out.append((r[0] / r[2], r[1] / r[2]))
    return out


def bilinear(image: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Sample (H, W, C) float ``image`` at texel-space (u, v) (texel centres at +0.5),
    edges clamped, as GL's LINEAR filter with CLAMP_TO_EDGE does."""
    hh, ww = image.shape[:2]
    x, y = u - 0.5, v - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    xi0, xi1 = np.clip(x0, 0, ww - 1).astype(int), np.clip(x0 + 1, 0, ww - 1).astype(int)
    yi0, yi1 = np.clip(y0, 0, hh - 1).astype(int), np.clip(y0 + 1, 0, hh - 1).astype(int)
    top = image[yi0, xi0] * (1 - fx) + image[yi0, xi1] * fx
    bottom = image[yi1, xi0] * (1 - fx) + image[yi1, xi1] * fx
    return top * (1 - fy) + bottom * fy


def draw(size: tuple[int, int], h: np.ndarray, image: np.ndarray,
         background=(255, 255, 255)) -> tuple[np.ndarray, np.ndarray]:
    """(expected straight RGB as float64 (H, W, 3), coverage (H, W)) of ``image``
    (straight RGBA uint8, the layer's size) drawn with homography ``h`` (layer px ->
    frame px) over an opaque ``background``."""
    fw, fh = size
    ih, iw = image.shape[:2]
    poly = clipped_polygon(h, iw, ih)
    cov = coverage_reference.polygon(fw, fh, poly) if len(poly) >= 3 else np.zeros((fh, fw))
    rgba = image.astype(np.float64) / 255.0
    premul = np.concatenate([rgba[..., :3] * rgba[..., 3:], rgba[..., 3:]], axis=2)
    ys, xs = np.mgrid[0:fh, 0:fw] + 0.5
    inv = np.linalg.inv(h)
    src = np.einsum("ij,jyx->iyx", inv, np.stack([xs, ys, np.ones_like(xs)]))
    u, v = src[0] / src[2], src[1] / src[2]
    colour = bilinear(premul, u, v) * cov[..., None]
    bg = np.asarray(background, float) / 255.0
    out = colour[..., :3] + bg * (1 - colour[..., 3:])
    return out * 255.0, cov


def draw_context(size: tuple[int, int], planes: list[tuple[np.ndarray, np.ndarray]],
                 background=(255, 255, 255)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 3D rendering context of opaque layers as a depth buffer sees it: per pixel
    centre, the layer whose plane is nearest the viewer there (largest z after the
    perspective divide; z toward the viewer) among those covering it, sampled
    perspective-correctly. ``planes``: (full 4x4 layer px -> frame px, straight RGBA
    uint8 image of the layer's size). Returns (expected straight RGB float64 (H, W, 3),
    which layer is shown (H, W; -1: none), how many layers cover (H, W)). Pixel centres
    only (no edge coverage): tests compare away from edges and from where the nearest
    layer changes."""
    fw, fh = size
    ys, xs = np.mgrid[0:fh, 0:fw] + 0.5
    best_z = np.full((fh, fw), -np.inf)
    shown = np.full((fh, fw), -1)
    covers = np.zeros((fh, fw), int)
    colour = np.zeros((fh, fw, 3))
    bg = np.asarray(background, float)
    for k, (m, image) in enumerate(planes):
        ih, iw = image.shape[:2]
        h = flatten(m)
        src = np.einsum("ij,jyx->iyx", np.linalg.inv(h), np.stack([xs, ys, np.ones_like(xs)]))
        u, v = src[0] / src[2], src[1] / src[2]
        # The eye side only: the homogeneous w of the point on the layer must be positive.
        w_layer = m[3, 0] * u + m[3, 1] * v + m[3, 3]
        inside = (src[2] > 0) & (w_layer > EPS_W) & (u >= 0) & (u < iw) & (v >= 0) & (v < ih)
        z = (m[2, 0] * u + m[2, 1] * v + m[2, 3]) / w_layer
        nearer = inside & (z > best_z)
        covers += inside
        rgba = image.astype(np.float64) / 255.0
        sample = bilinear(rgba, u, v)[..., :3] * 255.0
        colour[nearer] = sample[nearer]
        best_z[nearer] = z[nearer]
        shown[nearer] = k
    colour[shown < 0] = bg
    return colour, shown, covers
