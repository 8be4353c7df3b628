"""What a layer paints, resolved to pixels: ComputedStyle -> LayerPaint (plain data).

Backgrounds follow CSS Backgrounds 3: the background colour and image are clipped to the
border box; the image is sized and positioned in the padding box and tiled from there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import LaminaError, StyleError
from ..framegraph import GradientPaint, ImagePaint, LayerPaint
from ..images import load_image, resolve_path
from ..limits import MAX_GRADIENT_STOPS
from ..style import ComputedStyle
from ..style.gradients import linear_gradient_line, radial_gradient_radii, resolve_stops
from ..style.values import ImageRef, LinearGradient, RadialGradient, Radii

__all__ = ["ImageStore", "layer_paint", "used_radii", "border_widths"]


class ImageStore:
    """Decoded images (straight RGBA8) keyed by their source, shared across frames.

    Files are keyed by resolved path and modification time, so editing an image on disk
    is picked up; in-memory arrays by identity."""

    def __init__(self) -> None:
        self._cache: dict[Any, np.ndarray] = {}

    def key(self, ref: ImageRef, base_dir: Path | None) -> Any:
        if ref.data is not None:
            return ("data", id(ref.data))
        url = ref.url or ""
        if url.startswith("data:"):
            return ("url", url)
        path = resolve_path(url, base_dir)
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            mtime = None
        return ("file", str(path), mtime)

    def get(self, ref: ImageRef, base_dir: Path | None, layer: str) -> tuple[Any, np.ndarray]:
        key = self.key(ref, base_dir)
        pixels = self._cache.get(key)
        if pixels is None or key[0] == "data":
            # In-memory arrays can be mutated in place by the caller: always re-read them.
            pixels = load_image(ref, base_dir, layer=layer)
            self._cache[key] = pixels
        return key, pixels


def border_widths(s: ComputedStyle) -> tuple[float, float, float, float]:
    if s.border_style in ("none", "hidden"):
        return (0.0, 0.0, 0.0, 0.0)
    return (s.border_top_width, s.border_right_width, s.border_bottom_width, s.border_left_width)


def used_radii(s: ComputedStyle, width: float, height: float) -> tuple[tuple[float, float], ...]:
    radii = Radii(s.radius_top_left, s.radius_top_right, s.radius_bottom_right, s.radius_bottom_left)
    return radii.resolve(width, height)


def _tile_size(s: ComputedStyle, area_w: float, area_h: float, natural: tuple[int, int] | None):
    size = s.background_size
    if size.keyword in ("cover", "contain"):
        if natural is None:
            return area_w, area_h
        iw, ih = natural
        pick = max if size.keyword == "cover" else min
        k = pick(area_w / iw, area_h / ih)
        return iw * k, ih * k
    if size.keyword == "auto":
        return (float(natural[0]), float(natural[1])) if natural else (area_w, area_h)
    w = size.width.resolve(area_w) if size.width is not None else None
    h = size.height.resolve(area_h) if size.height is not None else None
    if natural is not None:
        iw, ih = natural
        if w is None:
            w = h * iw / ih
        elif h is None:
            h = w * ih / iw
    return (w if w is not None else area_w), (h if h is not None else area_h)


def layer_paint(node, images: ImageStore, base_dir: Path | None, offset: tuple[float, float] = (0.0, 0.0)) -> LayerPaint:
    """Resolve a LayerNode's background, image, border and radii to a LayerPaint.

    ``offset`` is the box's sub-pixel position inside its texture (see the planner)."""
    s: ComputedStyle = node.style
    w, h = node.width, node.height
    top, right, bottom, left = border_widths(s)
    area = (left, top, max(w - left - right, 0.0), max(h - top - bottom, 0.0))
    image = None
    tile = (0.0, 0.0, max(w, 1.0), max(h, 1.0))
    src = s.background_image
    try:
        if src is not None:
            natural = None
            if isinstance(src, ImageRef):
                key, pixels = images.get(src, base_dir, node.id)
                natural = (pixels.shape[1], pixels.shape[0])
            tw, th = _tile_size(s, area[2], area[3], natural)
            tx = area[0] + s.background_position[0].resolve(area[2] - tw)
            ty = area[1] + s.background_position[1].resolve(area[3] - th)
            tile = (tx, ty, tw, th)
            if tw > 0 and th > 0:
                if isinstance(src, ImageRef):
                    image = ImagePaint(key=key, ref=src, width=natural[0], height=natural[1])
                else:
                    image = _gradient_paint(src, tw, th, s)
    except LaminaError:
        raise
    except (ValueError, ZeroDivisionError) as exc:  # degenerate geometry
        raise StyleError(f"cannot paint background: {exc}", property="background", layer=node.id) from None
    return LayerPaint(
        width=w,
        height=h,
        background=s.used_background_color.premultiplied(),
        image=image,
        tile=tile,
        repeat=s.background_repeat,
        radii=used_radii(s, w, h),
        border_widths=(top, right, bottom, left),
        border_color=s.used_border_color.premultiplied(),
        offset=offset,
    )


def _gradient_paint(g, tw: float, th: float, s: ComputedStyle) -> GradientPaint:
    if len(g.stops) > MAX_GRADIENT_STOPS:
        raise StyleError(
            f"gradients are limited to {MAX_GRADIENT_STOPS} colour stops, got {len(g.stops)}",
            property="background-image",
        )
    if isinstance(g, LinearGradient):
        start, direction, length = linear_gradient_line(g, tw, th)
        stops = tuple(resolve_stops(g.stops, length, s.color))
        return GradientPaint("linear", stops, g.repeating, start=start, direction=direction, length=length)
    assert isinstance(g, RadialGradient)
    center, radii = radial_gradient_radii(g, tw, th)
    # The gradient ray runs from the centre to the ending shape along x (CSS Images 3 §3.2).
    stops = tuple(resolve_stops(g.stops, max(radii[0], 1e-6), s.color))
    return GradientPaint("radial", stops, g.repeating, center=center, radii=radii)
