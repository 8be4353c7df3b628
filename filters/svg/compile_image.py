"""feImage -> an ImagePass (``filters.svg.compile`` registers it): the picture read under
the scene's file policy (``filters.svg.images``, before any GPU work), placed by
preserveAspectRatio in the primitive's subregion (its x, y, width, height) as the
reference places it (``filters.svg.reference.fit_image``): each output pixel's centre
mapped to picture coordinates, an affine map per axis, and the result transparent
outside the subregion (the pass clips itself: no region pass after it)."""

from __future__ import annotations

from ..plan import CombineOperator, CombinePass, ImagePass, _Builder
from . import model as m
from .images import image_pixels
from .reference import Canvas, fit_image, subregion

__all__ = ["plan_image"]


def plan_image(b: _Builder, prim: m.Image, element: m.FilterElement, canvas: Canvas) -> str:
    """The pass of ``prim`` on the plan's images, which lie where ``canvas`` says (the
    reference's canvas of the graph); the image it writes."""
    picture = image_pixels(prim)
    ih, iw = picture.pixels.shape[:2]
    rect = subregion(prim, element, canvas, [])
    clip = canvas.pixel_rect(rect)
    align, mode = prim.preserve_aspect_ratio.split(" ")
    x0, y0, x1, y1 = fit_image(align, mode, rect, iw, ih)
    out = b.name("image")
    if clip[2] <= clip[0] or clip[3] <= clip[1] or x1 <= x0 or y1 <= y0:  # nothing shows: transparent
        b.passes.append(CombinePass(("source", "source"), out, CombineOperator.ARITHMETIC, source=prim.tag))
        return out
    ox, oy = canvas.origin
    scale = canvas.scale
    # Picture coordinate of output pixel i: ((ox + i + 0.5) / scale - x0) / (x1 - x0) * iw - 0.5.
    sx, sy = iw / ((x1 - x0) * scale), ih / ((y1 - y0) * scale)
    origin = (((ox + 0.5) / scale - x0) * iw / (x1 - x0) - 0.5, ((oy + 0.5) / scale - y0) * ih / (y1 - y0) - 0.5)
    b.passes.append(ImagePass(("source",), out, picture.key, picture.pixels, (sx, sy), origin, clip, prim.describe()))
    return out
