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
premultiplied data and ``apply`` for the uint8 straight RGBA of ``filters.apply``, where
the image is the element (an SVG filter's region is cut to it). ``apply_on_element``
runs a chain on an image that holds an element's box somewhere inside it, as a layer's
filter sees it: each ``url(#id)`` runs its graph on its filter region of that box
(``filters.svg.reference.run_filter``), reading what the chain made so far, and writes
its region, transparent around it; the CSS functions run on the whole image.
"""

from __future__ import annotations

import numpy as np

from ..images import premultiply, unpremultiply
from ..css.values import RGBA

from .chain import FilterChain
from .ops import color_op, gaussian_blur, gaussian_kernel
from .svg.op import SvgFilterRef
from .svg.reference import run_filter

__all__ = ["apply", "apply_premultiplied", "apply_on_element", "color_op", "gaussian_blur", "gaussian_kernel"]

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)


def apply_premultiplied(premult: np.ndarray, chain: FilterChain, current_color: RGBA = BLACK) -> np.ndarray:
    """Apply ``chain`` to float64 premultiplied RGBA in [0, 1]; same size out."""
    out = np.asarray(premult, dtype=np.float64)
    for op in chain:
        out = op.resolved(current_color).reference(out)  # each op's own reference (filters.ops)
    return out


def apply_on_element(premult: np.ndarray, chain: FilterChain, box: tuple[float, float, float, float], *,
                     scale: float = 1.0, current_color: RGBA = BLACK, backdrop: bool = False) -> np.ndarray:
    """Apply ``chain`` to float64 premultiplied RGBA whose element box is ``box`` (x, y,
    width, height in pixels of the image, x and y whole; ``scale`` pixels per CSS px);
    same size out. User space (feTurbulence's, subregions') has its origin at the box's
    corner, as for any CSS box (Filter Effects 1).
    The image must hold what the chain reaches (past it counts as transparent).
    ``backdrop``: the image is a backdrop, whose pixels taint SVG graphs (an
    feDisplacementMap reading it as its map passes its input through: ``run_filter``)."""
    out = np.asarray(premult, dtype=np.float64)
    h, w = out.shape[:2]
    x, y, bw, bh = box  # the box's corner in whole pixels: the element's user-space origin
    for op in chain:
        if not isinstance(op, SvgFilterRef):
            out = op.resolved(current_color).reference(out)
            continue
        if op.element is None:
            out = op.reference(out)  # the typed error of an unresolved url()
        result, canvas = run_filter(op.element, out, bbox=(0.0, 0.0, bw / scale, bh / scale), scale=scale,
                                    source_origin=(-int(x), -int(y)), source_tainted=backdrop)
        placed = np.zeros_like(out)
        ox, oy = canvas.origin[0] + int(x), canvas.origin[1] + int(y)  # in the image's pixels
        x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + canvas.size[0], w), min(oy + canvas.size[1], h)
        if x1 > x0 and y1 > y0:
            placed[y0:y1, x0:x1] = result[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
        out = placed
    return out


def apply(image: np.ndarray, chain: FilterChain, *, premultiplied: bool = False, current_color: RGBA = BLACK) -> np.ndarray:
    """uint8 RGBA in and out, quantised like the GPU path: the input premultiplied to
    8 bits first, the result rounded to 8 bits premultiplied (then un-premultiplied
    unless ``premultiplied``)."""
    src = image if premultiplied else premultiply(image)
    out = apply_premultiplied(src.astype(np.float64) / 255.0, chain, current_color)
    result = np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)
    return result if premultiplied else unpremultiply(result)
