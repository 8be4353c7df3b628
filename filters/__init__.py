"""Lamina filters: CSS ``filter`` chains -> typed ops -> a plan of passes, with a float64
numpy reference as the oracle. No GL here: Lamina's executors run the plans (GLSL and
OpenCL, lamina.gpu), reached through the seam in ``filters.runners``.

    from lamina import filters
    chain = filters.parse("drop-shadow(2px 2px 3px rgba(0,0,0,.5)) hue-rotate(90deg)")
    print(chain.plan())                       # the passes, in plain words
    out = filters.apply(image_rgba_uint8, chain, backend="gl")   # or "opencl", "reference"
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import FilterSyntaxError, LaminaInputError, SvgFilterError, TextureTooLargeError, UnsupportedFeatureError
from ..css.values import RGBA
from ..file_access import FileAccess

from .chain import FilterChain
from .ops import (
    Blur,
    Brightness,
    ColorOp,
    Contrast,
    DropShadow,
    FilterOp,
    Grayscale,
    HueRotate,
    Invert,
    Opacity,
    Saturate,
    Sepia,
)
from . import reference
from .parse import parse
from .plan import FilterPlan
from .backend import APPLY_BACKENDS, FilterBackend
from .runners import ApplyBackend, plan_runner
from .svg import SvgDocument, parse_svg
from .svg.images import folder_access, svg_files
from .svg.lower import lower_filter
from .svg.op import SvgFilterRef

__all__ = [
    "parse",
    "apply",
    "Grown",
    "reference",
    "FilterChain",
    "FilterPlan",
    "FilterOp",
    "ColorOp",
    "FilterSyntaxError",
    "Grayscale",
    "Sepia",
    "Saturate",
    "HueRotate",
    "Invert",
    "Opacity",
    "Brightness",
    "Contrast",
    "Blur",
    "DropShadow",
    "BACKENDS",
    "FilterBackend",
    "ApplyBackend",
    "SvgFilterRef",
    "SvgDocument",
    "parse_svg",
]

BACKENDS = tuple(b.value for b in APPLY_BACKENDS)  # what filters.apply's backend= takes
BLACK = RGBA(0.0, 0.0, 0.0, 1.0)


def _check_image(image) -> np.ndarray:
    try:
        arr = np.asarray(image)
    except (ValueError, TypeError) as exc:
        raise LaminaInputError(f"filters.apply needs an (H, W, 4) uint8 RGBA array ({exc})") from None
    if arr.ndim != 3 or arr.shape[2] != 4 or arr.dtype != np.uint8:
        raise LaminaInputError(f"filters.apply needs an (H, W, 4) uint8 RGBA array, got shape {arr.shape} {arr.dtype}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise LaminaInputError(f"filters.apply got an empty image {arr.shape[1]}x{arr.shape[0]}")
    return np.ascontiguousarray(arr)


class Grown(NamedTuple):
    """``filters.apply(..., grow=True)``: the whole result, grown by the filter's reach
    (a blur's 3σ, a shadow's offset and blur), and where its pixel (0, 0) lies in the
    input's pixels (``offset`` = (-left, -top) of the growth)."""

    image: np.ndarray
    offset: tuple[int, int]


def apply(
    image,
    chain: FilterChain | str,
    backend: FilterBackend | str = FilterBackend.GL,
    *,
    premultiplied: bool = False,
    current_color: RGBA = BLACK,
    renderer: object | None = None,
    device: object | None = None,
    grow: bool = False,
    svg: str | SvgDocument | None = None,
    files: FileAccess | str | Path | None = None,
) -> np.ndarray | Grown:
    """Filter an (H, W, 4) uint8 RGBA image; same size out, transparent outside it —
    or, with ``grow``, the whole result (what a blur or shadow spreads past the input's
    edges, as a layer's filter shows it) as a ``Grown(image, offset)``.

    RGBA is straight unless ``premultiplied``. ``current_color`` is drop-shadow's
    default colour. ``backend`` "gl" runs the GLSL passes (on ``renderer``, a
    lamina.Renderer, else the process's default one), "opencl" the same plan as
    OpenCL kernels (on ``device``, a pyopencl Device, else ``lamina.gpu.opencl.select_device``),
    both as a one-source frame graph on the renderer's executor (``filters.runners``);
    "reference" the float64 oracle (all quantise the input to premultiplied 8 bits
    first, as a layer texture is). On a GPU backend, straight pixels go up as they are
    and the passes convert them where they read and write (no host-side pass over the
    image), with the reference's rounding. ``files`` is where an SVG filter's feImage
    reads its pictures: a folder (confined to it, as a scene file's folder is) or a
    lamina.file_access.FileAccess; without it an feImage is an SvgImageError (a data:
    URL needs none).

    An SVG filter (``url(#id)`` with ``svg=``) takes the image as the element's box and
    runs on its filter region of it (default -10%/-10%/120%/120%), as on a layer: the
    part of the region past the image is computed (a feFlood fills it, a feOffset or
    feTile brings it in), and the output is then cut to the image, keeping its size as
    for CSS functions (``grow`` is refused with a url()); what lies outside the region
    (a region inside the image, or a userSpaceOnUse one cutting it) is transparent. Mixed
    with CSS functions, each function and graph acts on the image alone (its result cut
    to the image before the next reads it)."""
    with svg_files(folder_access(files)):
        return _apply(image, chain, backend, premultiplied=premultiplied, current_color=current_color,
                      renderer=renderer, device=device, grow=grow, svg=svg)


def _check_region_size(run, chain: FilterChain, size: tuple[int, int], *, renderer, device) -> None:
    """Refuse, naming the ``<filter>``s and their regions, an image grown to the filter
    regions that the backend cannot hold (before the padded image is made)."""
    try:
        run.check_size(*size, renderer=renderer, device=device)
    except LaminaInputError as err:
        elements = ", ".join(dict.fromkeys(op.element.describe() for op in chain if isinstance(op, SvgFilterRef)))
        why = (f"{chain.css()}: the filter region of {elements} (x, y, width and height) needs a "
               f"{size[0]}x{size[1]} image: {err}")
        if isinstance(err, TextureTooLargeError):
            raise TextureTooLargeError(why, element=elements, attribute="x, y, width, height") from err
        raise LaminaInputError(why) from err


def _apply(image, chain, backend, *, premultiplied, current_color, renderer, device, grow, svg) -> np.ndarray | Grown:
    if isinstance(chain, str):
        chain = parse(chain)
    if not isinstance(chain, FilterChain):
        raise LaminaInputError(f"chain must be a FilterChain or CSS text, got {type(chain).__name__}")
    backend = FilterBackend.parse(backend, APPLY_BACKENDS)
    if device is not None and backend is not FilterBackend.OPENCL:
        raise LaminaInputError(f"device= chooses an OpenCL device; it does nothing with backend {backend.value!r}")
    if renderer is not None and backend is not FilterBackend.GL:
        raise LaminaInputError(f"renderer= chooses the GL renderer; it does nothing with backend {backend.value!r}")
    if svg is not None:
        document = svg if isinstance(svg, SvgDocument) else parse_svg(svg)
        chain = chain.resolved_svg(document)
    elif chain.svg_ids():
        # Named before any pixel work: a url() with nothing to resolve it in.
        raise SvgFilterError(f"url(#{chain.svg_ids()[0]}) names an SVG filter: give its markup (svg=)",
                             attribute="filter", value=chain.css())
    image = _check_image(image)
    if not isinstance(current_color, RGBA):
        raise LaminaInputError(f"current_color must be an lamina.style.RGBA, got {current_color!r}")
    if grow and chain.svg_ids():
        raise UnsupportedFeatureError("filters.apply(grow=True) with a url() filter is not supported yet: the "
                                      "filter region's growth is not planned", property="filter", value=chain.css())
    if grow:
        # The input is transparent outside its edges, so filtering it padded with
        # transparent pixels by the plan's reach gives exactly the grown result.
        top, right, bottom, left = chain.plan(current_color=current_color).outsets
        padded = np.pad(image, ((top, bottom), (left, right), (0, 0)))
        out = _apply(padded, chain, backend, premultiplied=premultiplied, current_color=current_color,
                     renderer=renderer, device=device, grow=False, svg=None)
        return Grown(out, (-left, -top))
    if backend is FilterBackend.REFERENCE:
        return reference.apply(image, chain, premultiplied=premultiplied, current_color=current_color)
    h, w = image.shape[:2]
    plan = None
    if chain.svg_ids():
        # SVG graphs reach the GPU as the ops they are when that is exact for an image
        # that is the whole element (filters.svg.lower); a url() alone, as its own passes
        # on its filter region of the image, the element's box (filters.svg.route, as a
        # layer's filter: the plan's image is the box grown by the region's outsets);
        # mixed with functions, each graph on its filter region, each stage cut to the
        # image (filters.svg.route); otherwise a typed error, now.
        try:
            chain = FilterChain(tuple(lowered for op in chain for lowered in
                                      (lower_filter(op.element, (w, h)) if isinstance(op, SvgFilterRef) else (op,))))
        except UnsupportedFeatureError:
            plan = chain.plan(current_color=current_color, box=(w, h)) if len(chain) == 1 else chain.plan(
                current_color=current_color, size=(w, h))
    run = plan_runner(backend)
    if plan is None:
        plan = chain.plan(current_color=current_color, size=(w, h))
    if not plan.region or not any(plan.outsets):
        return run(image, plan, renderer=renderer, device=device, straight=not premultiplied)
    # The filter region reaches past the image: the graph runs on the image padded with
    # transparent pixels to the region, and the result is cut back to the image.
    top, right, bottom, left = plan.outsets
    _check_region_size(run, chain, (w + left + right, h + top + bottom), renderer=renderer, device=device)
    padded = np.pad(image, ((top, bottom), (left, right), (0, 0)))
    out = run(padded, plan, renderer=renderer, device=device, straight=not premultiplied)
    return np.ascontiguousarray(out[top:top + h, left:left + w])
