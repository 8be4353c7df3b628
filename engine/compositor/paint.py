"""What a layer paints, resolved to pixels: ComputedStyle -> LayerPaint (plain data).

Backgrounds follow CSS Backgrounds 3: the background colour and image are clipped to the
background painting area (``background-clip``: the border box, or the padding box inside
the border with the inner radii); the image is sized and positioned in the background
positioning area (``background-origin``: the padding box, or the border box) and tiled
from there. Boxes have no padding, so the content box is the padding box.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import StyleError
from .dashes import border_pattern
from .paint_data import FillKind, GradientPaint, ImagePaint, LayerPaint
from .shadows import shadow_paints
from ..errors import TextureTooLargeError
from ..images import ImageStore
from ..limits import MAX_GRADIENT_STOPS
from ..style import ComputedStyle
from ..text.paint import text_paint
from ..style.gradients import (
    CONIC_TURN,
    ResolvedStop,
    conic_gradient_center,
    linear_gradient_line,
    radial_gradient_radii,
    resolve_stops,
)
from ..css.values import ConicGradient, ImageRef, LinearGradient, RadialGradient, Radii

__all__ = ["layer_paint", "used_radii", "border_widths"]


_HUGE = 1.0e7


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


def layer_paint(
    node,
    images: ImageStore,
    base_dir: Path | None,
    offset: tuple[float, float] = (0.0, 0.0),
    max_texture_size: int | None = None,
) -> LayerPaint:
    """Resolve a LayerNode's background, image, border and radii to a LayerPaint.

    ``offset`` is where the box lies inside its texture: its sub-pixel position, plus
    the ink overflow of outer box shadows (see the planner)."""
    s: ComputedStyle = node.style
    w, h = node.width, node.height
    top, right, bottom, left = border_widths(s)
    padding_box = (left, top, max(w - left - right, 0.0), max(h - top - bottom, 0.0))
    # The background positioning area: what positions, sizes and percentages resolve in.
    area = padding_box if s.background_origin.inside_border else (0.0, 0.0, w, h)
    # The painting area, as insets from the border box (top, right, bottom, left).
    clip = (top, right, bottom, left) if s.background_clip.inside_border else (0.0, 0.0, 0.0, 0.0)
    image = None
    tile = (0.0, 0.0, max(w, 1.0), max(h, 1.0))
    src = s.background_image
    if src is not None:
        natural = None
        if isinstance(src, ImageRef):
            key, pixels = images.get(src, base_dir, node.id)
            natural = (pixels.shape[1], pixels.shape[0])
            if max_texture_size is not None and max(natural) > max_texture_size:
                raise TextureTooLargeError(
                    f"layer {node.id!r}: its {natural[0]}x{natural[1]} image is larger than this "
                    f"GPU's maximum texture size {max_texture_size} (GL_MAX_TEXTURE_SIZE); scale it down"
                )
        # Tiles beyond any screen are clamped so the shader's float32 stays finite.
        if natural is not None and s.device_scale != 1.0:
            # An image px is a CSS px: device_scale device px (lamina.device_scale).
            natural = (natural[0] * s.device_scale, natural[1] * s.device_scale)
        tw, th = (min(v, _HUGE) for v in _tile_size(s, area[2], area[3], natural))
        tx = area[0] + s.background_position[0].resolve(area[2] - tw)
        ty = area[1] + s.background_position[1].resolve(area[3] - th)
        tile = (min(max(tx, -_HUGE), _HUGE), min(max(ty, -_HUGE), _HUGE), tw, th)
        if tw > 0 and th > 0:
            if isinstance(src, ImageRef):
                image = ImagePaint(key=key, ref=src, width=natural[0], height=natural[1],
                                   nearest=s.image_rendering.nearest)
            else:
                image = _gradient_paint(src, tw, th, s)
    return LayerPaint(
        width=w,
        height=h,
        background=s.used_background_color.premultiplied(),
        image=image,
        tile=tile,
        repeat=s.background_repeat,
        image_wrap=_visible_repeat(s.background_repeat, tile, clip, w, h),
        background_clip=clip,
        border_pattern=_border_pattern(s, (top, right, bottom, left), w, h),
        radii=used_radii(s, w, h),
        border_widths=(top, right, bottom, left),
        border_color=s.used_border_color.premultiplied(),
        offset=offset,
        shadows=shadow_paints(s.box_shadow, s.color, (w, h), used_radii(s, w, h), (top, right, bottom, left)),
        text=text_paint(s, padding_box, offset, node.id),
    )


def _border_pattern(s: ComputedStyle, widths, w: float, h: float):
    """The dash / dot layout of a dashed or dotted border (None: solid or no border)."""
    if s.border_style not in ("dashed", "dotted") or not any(v > 0 for v in widths):
        return None
    return border_pattern(s.border_style, widths, used_radii(s, w, h), w, h)


def _visible_repeat(repeat: tuple[bool, bool], tile, clip, w: float, h: float) -> tuple[bool, bool]:
    """Whether an image's sampler wraps, per axis: only where a second tile shows in the
    painting area (the border box less the ``clip`` insets). A single tile covering it
    (``cover``, ``100% 100%``) is sampled as one image, as Blink draws it: wrapped sampling
    would blend its last pixels with the opposite edge. (The tiling itself is unchanged,
    so the tile's edges add no anti-aliasing of their own.)"""
    x, y, tw, th = tile
    top, right, bottom, left = clip
    return (
        repeat[0] and not (x <= left and x + tw >= w - right),
        repeat[1] and not (y <= top and y + th >= h - bottom),
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
        paint = GradientPaint(FillKind.LINEAR, stops, g.repeating, start=start, direction=direction, length=length)
        return _degenerate_repeating(paint)
    if isinstance(g, ConicGradient):
        # Positions are fractions of a turn, starting at `from` (CSS Images 4 §3.3).
        stops = tuple(resolve_stops(g.stops, CONIC_TURN, s.color))
        paint = GradientPaint(FillKind.CONIC, stops, g.repeating, center=conic_gradient_center(g, tw, th), angle=g.angle)
        return _degenerate_repeating(paint)
    assert isinstance(g, RadialGradient)
    center, (rx, ry) = radial_gradient_radii(g, tw, th)
    # Degenerate ending shapes, CSS Images 3 §3.2.3.
    if g.shape == "ellipse" and rx <= 0:
        # Zero width: a horizontal gradient mirrored at the centre, percentages -> 0px.
        stops = tuple(resolve_stops(g.stops, 1.0, s.color, percent_basis=0.0))
        return _degenerate_repeating(GradientPaint(FillKind.RADIAL, stops, g.repeating, center=center, radii=(1.0, 1e9)))
    # The gradient ray runs from the centre to the ending shape along x (CSS Images 3 §3.2).
    stops = tuple(resolve_stops(g.stops, max(rx, 1e-6), s.color))
    paint = _degenerate_repeating(GradientPaint(FillKind.RADIAL, stops, g.repeating, center=center, radii=(rx, ry)))
    if g.shape == "ellipse" and ry <= 0:
        # Zero height: the last stop's colour (the average if repeating, done above).
        return _solid(paint.stops[-1].color)
    return paint


def _solid(color) -> GradientPaint:
    stops = (ResolvedStop(0.0, color), ResolvedStop(1.0, color))
    return GradientPaint(FillKind.LINEAR, stops, False, length=1.0)


def _degenerate_repeating(paint: GradientPaint) -> GradientPaint:
    """A repeating gradient whose first and last stops coincide paints its average colour
    (the gradient with those stops spread evenly), CSS Images 3 §3.4."""
    stops = paint.stops
    if not paint.repeating or stops[-1].position - stops[0].position > 1e-9:
        return paint
    segments = [(a.color, b.color) for a, b in zip(stops, stops[1:])]
    avg = tuple(sum((p[i] + q[i]) / 2 for p, q in segments) / len(segments) for i in range(4))
    return _solid(avg)
