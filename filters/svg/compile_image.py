"""feImage -> an ImagePass (``filters.svg.compile`` registers it): the picture read under
the scene's file policy (``filters.svg.images``, before any GPU work), placed by
preserveAspectRatio in the primitive's subregion (its x, y, width, height: where the
picture goes, so feImage takes them, while other primitives' subregions are not planned
yet) as the reference places it (``filters.svg.reference.fit_image``): each output
pixel's centre mapped to picture coordinates, an affine map per axis, and the result
transparent outside the subregion."""

from __future__ import annotations

from ..plan import CombineOperator, CombinePass, ImagePass, _Builder
from . import model as m
from .images import image_pixels
from .reference import fit_image, make_canvas, subregion

__all__ = ["plan_image"]


def plan_image(b: _Builder, prim: m.Image, element: m.FilterElement, box: tuple[float, float], scale: float,
               tiled: bool = False) -> str:
    """The pass of ``prim`` on the image of ``element``'s filter region around ``box``
    (CSS px at ``scale`` pixels each; the plan's image pixel (0, 0) is the region's
    first pixel, as the reference's canvas); the image it writes. ``tiled``: an feTile
    of it, its subregion's pixels repeated over the whole image (as the reference's
    feTile repeats its input's rect)."""
    picture = image_pixels(prim)
    ih, iw = picture.pixels.shape[:2]
    canvas = make_canvas(element, (0.0, 0.0, box[0], box[1]), scale)
    rect = subregion(prim, element, canvas, [])
    clip = canvas.pixel_rect(rect)
    align, mode = prim.preserve_aspect_ratio.split(" ")
    x0, y0, x1, y1 = fit_image(align, mode, rect, iw, ih)
    out = b.name("image")
    if clip[2] <= clip[0] or clip[3] <= clip[1] or x1 <= x0 or y1 <= y0:  # nothing shows: transparent
        b.passes.append(CombinePass(("source", "source"), out, CombineOperator.ARITHMETIC, source=prim.tag))
        return out
    ox, oy = canvas.origin
    # Picture coordinate of output pixel i: ((ox + i + 0.5) / scale - x0) / (x1 - x0) * iw - 0.5.
    sx, sy = iw / ((x1 - x0) * scale), ih / ((y1 - y0) * scale)
    origin = (((ox + 0.5) / scale - x0) * iw / (x1 - x0) - 0.5, ((oy + 0.5) / scale - y0) * ih / (y1 - y0) - 0.5)
    b.passes.append(ImagePass(("source",), out, picture.key, picture.pixels, (sx, sy), origin, clip,
                              f"{prim.describe()} tiled" if tiled else prim.describe(), tiled=tiled))
    return out
