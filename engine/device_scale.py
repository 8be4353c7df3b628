"""The device pixel ratio: CSS px -> device px, the root of every screen-space mapping.

A scene is written in CSS px; a frame at ``device_scale_factor`` s is s times as many
device px on each side. Chromium (since "zoom for DSF", now its only mode) applies the
device scale in Blink's layout: the page is laid out and painted as if zoomed by s, so
every CSS length -- boxes, borders, radii, transforms' translations, blur sigmas, shadow
offsets and blurs, font sizes, scroll offsets -- is s times longer in device px, and
cc then rasters each layer at contents scale = device scale x its ideal scale (item 2:
the ideal scale of a layer's own transforms, 1 until then).

Lamina does the same at the one place where a frame reads the layer tree: the property
trees (lamina.compositor.tree / property_trees) resolve every layer's box and style
*through* a ``DeviceScale`` (``box`` and ``style`` below), so everything downstream --
paint, rasters, surfaces, filters, tiles, the interest rect, damage -- is in device px
with no per-effect code. The scale is carried on the resolved style
(``ComputedStyle.device_scale``) for what must know it beyond lengths: Blink's text
baseline rule (lamina.text.baseline takes the device scale: subpixel positioning above 1,
metrics rounded in device px) and an image's natural size (1 image px = 1 CSS px).

The planner makes the DeviceScale of a frame current (``in_force``) while it plans:
the trees, the sweep and the scroll code read it from there.
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields, is_dataclass, replace
from typing import Any, Iterator

from .errors import GeometryError, TextureTooLargeError

__all__ = ["MIN_DEVICE_SCALE", "MAX_DEVICE_SCALE", "DeviceScale", "parse_device_scale", "check_frame_fits", "current", "in_force",
           "zoomed_style"]

# Documented range: [0.25, 8]. Chromium accepts --force-device-scale-factor up to about
# that (phones ship 4); beyond it a 1920 px wide scene would exceed GL_MAX_TEXTURE_SIZE
# anyway. Its flag parses any positive number; the lower bound is Chromium's smallest page
# zoom (25%, blink's kMinimumPageZoomFactor), the smallest factor a page is shown at --
# below it a frame is a handful of px (1e-9 would make any scene one px).
MIN_DEVICE_SCALE = 0.25
MAX_DEVICE_SCALE = 8.0


def parse_device_scale(value: Any, where: str = "device_scale_factor") -> float:
    """``value`` as a device scale factor: a finite real number in [0.25, 8]; else a
    GeometryError naming ``where`` and the value."""
    span = f"[{MIN_DEVICE_SCALE:g}, {MAX_DEVICE_SCALE:g}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise GeometryError(f"{where} must be a number in {span}, got {value!r}"[:200])
    v = float(value)
    if not math.isfinite(v) or not MIN_DEVICE_SCALE <= v <= MAX_DEVICE_SCALE:
        raise GeometryError(f"{where} must be a finite number in {span} (lamina.device_scale."
                            f"MIN_DEVICE_SCALE, MAX_DEVICE_SCALE), got {value!r}"[:200])
    return v


def device_size(width: int, height: int, scale: float) -> tuple[int, int]:
    """The frame of a ``width`` x ``height`` CSS px viewport in device px (rounded, as
    Chromium sizes its compositor frame: gfx::ScaleToRoundedSize)."""
    return (max(1, int(math.floor(width * scale + 0.5))), max(1, int(math.floor(height * scale + 0.5))))


def check_frame_fits(width: int, height: int, scale: float, max_size: int, where: str = "device_scale_factor") -> None:
    """A TextureTooLargeError naming ``where`` when the frame at ``scale`` would exceed
    ``max_size`` px on a side (the frame is one texture: it is not tiled)."""
    w, h = device_size(width, height, scale)
    if max(w, h) > max_size:
        raise TextureTooLargeError(
            f"{where} {scale:g} makes the {width}x{height} CSS px frame {w}x{h} device px, more than the "
            f"{max_size} px a texture may have on a side (the frame is one texture, not tiled): use a smaller "
            f"{where} or viewport")


class DeviceScale:
    """CSS px -> device px by one factor ``s`` (uniform on both axes)."""

    __slots__ = ("s", "_styles")

    def __init__(self, s: float = 1.0) -> None:
        self.s = parse_device_scale(s)
        self._styles: dict[int, tuple[Any, Any]] = {}

    def __repr__(self) -> str:
        return f"DeviceScale({self.s:g})"

    @classmethod
    def of(cls, s: float) -> "DeviceScale":
        """The shared DeviceScale of factor ``s`` (its style memo lasts between frames, so
        an unchanged style zooms to the very same object and the trees see no change)."""
        s = parse_device_scale(s)
        scale = _SHARED.get(s)
        if scale is None:
            if len(_SHARED) > 16:
                _SHARED.clear()
            scale = _SHARED[s] = cls(s)
        return scale

    @property
    def identity(self) -> bool:
        return self.s == 1.0

    def box(self, rect):
        """A layer's box in device px (``Rect`` in, ``Rect`` out)."""
        if self.s == 1.0:
            return rect
        s = self.s
        return type(rect)(rect.x * s, rect.y * s, rect.width * s, rect.height * s)

    def style(self, style):
        """A resolved ComputedStyle with every CSS length in device px (memoised per
        style object, so an unchanged style gives the very same zoomed object)."""
        if self.s == 1.0:
            return style
        hit = self._styles.get(id(style))
        if hit is not None and hit[0] is style:
            return hit[1]
        zoomed = _zoom_style(style, self.s)
        if len(self._styles) > 4096:
            self._styles.clear()
        self._styles[id(style)] = (style, zoomed)
        return zoomed


_SHARED: dict[float, DeviceScale] = {}
_CURRENT: ContextVar[DeviceScale] = ContextVar("lamina_device_scale", default=DeviceScale(1.0))


def current() -> DeviceScale:
    """The DeviceScale of the frame being planned (scale 1 outside planning)."""
    return _CURRENT.get()


@contextmanager
def in_force(scale: DeviceScale) -> Iterator[DeviceScale]:
    token = _CURRENT.set(scale)
    try:
        yield scale
    finally:
        _CURRENT.reset(token)


# -- zooming typed values ----------------------------------------------------------------
# Bare float fields that are CSS lengths, per type name (a LengthPercentage anywhere is
# zoomed by the generic walk; these are the px lengths held as plain floats).
_STYLE_LENGTHS = ("border_top_width", "border_right_width", "border_bottom_width", "border_left_width",
                  "scroll_left", "scroll_top", "font_size", "letter_spacing")
_FLOAT_LENGTHS = {
    "BoxShadow": ("x", "y", "blur", "spread"),
    "TextShadow": ("x", "y", "blur"),
    "Blur": ("sigma",),
    "DropShadow": ("dx", "dy", "sigma"),
    "Morphology": ("rx", "ry"),
}


def _zoom(value: Any, s: float) -> Any:
    from_name = type(value).__name__
    if from_name == "LengthPercentage":
        return replace(value, px=value.px * s) if value.px else value
    if isinstance(value, tuple):
        out = tuple(_zoom(v, s) for v in value)
        return out if any(a is not b for a, b in zip(out, value)) else value
    if from_name == "TransformFunction":
        args = value.args
        if value.name == "matrix":  # e, f are px
            return replace(value, args=args[:4] + (args[4] * s, args[5] * s))
        if value.name == "translate3d":  # z is a bare px length
            return replace(value, args=(_zoom(args[0], s), _zoom(args[1], s), args[2] * s))
        if value.name == "perspective":  # a depth in px (None: perspective(none))
            return value if args[0] is None else replace(value, args=(args[0] * s,))
        if value.name == "matrix3d":
            # S M S^-1 with S = diag(s, s, s, 1): the translation column (a4 b4 c4) grows
            # by s, the perspective row (d1 d2 d3) shrinks by it (column-major order).
            out = list(args)
            for k in (12, 13, 14):
                out[k] = args[k] * s
            for k in (3, 7, 11):
                out[k] = args[k] / s
            return replace(value, args=tuple(out))
        if value.name in ("rotate3d", "scale3d"):
            return value
        return replace(value, args=_zoom(args, s))
    if from_name == "FilterChain":
        ops = _zoom(value.ops, s)
        return value if ops is value.ops else replace(value, ops=ops)
    if from_name == "LineHeight":
        return replace(value, value=value.value * s) if value.kind == "px" else value
    if from_name == "ImageRef" or not is_dataclass(value) or isinstance(value, type):
        return value
    floats = _FLOAT_LENGTHS.get(from_name, ())
    changes = {}
    for f in fields(value):
        if not f.init:
            continue
        v = getattr(value, f.name)
        if f.name in floats and v is not None:
            changes[f.name] = v * s
            continue
        z = _zoom(v, s)
        if z is not v:
            changes[f.name] = z
    return replace(value, **changes) if changes else value


_ZOOMED_FIELDS = ("background_size", "background_position", "radius_top_left", "radius_top_right",
                  "radius_bottom_right", "radius_bottom_left", "transform", "transform_origin", "perspective",
                  "perspective_origin", "inset_top",
                  "inset_right", "inset_bottom", "inset_left", "filter", "backdrop_filter", "line_height",
                  "text_shadow", "box_shadow", "clip_path", "mask_position", "mask_size", "background_image",
                  "mask_image")


def zoomed_style(style, s: float):
    """``style`` (a resolved ComputedStyle) with every length ``s`` times longer and its
    device scale ``s`` times larger: a layer rastered at raster scale ``s``
    (lamina.compositor.raster_scale) is painted from it, by the same path as the device
    scale, so text, borders, radii, shadows and images are drawn at that size. ``s`` is
    not range-checked here (the raster-scale policy bounds it)."""
    return style if s == 1.0 else _zoom_style(style, s)


def _zoom_style(style, s: float):
    changes: dict[str, Any] = {"device_scale": style.device_scale * s}
    for name in _STYLE_LENGTHS:
        changes[name] = getattr(style, name) * s
    for name in _ZOOMED_FIELDS:
        v = getattr(style, name)
        z = _zoom(v, s)
        if z is not v:
            changes[name] = z
    return replace(style, **changes)
