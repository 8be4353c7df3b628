"""How a demo's window maps its three units: scene CSS px, window units and framebuffer px.

A HiDPI screen gives a window more framebuffer pixels than CSS px, in one of two ways,
and glfw reports both through the same two numbers:

* macOS and Wayland (glfw 3.4): window units are points; the framebuffer has 2 px per
  point (``glfw.get_framebuffer_size`` / ``glfw.get_window_size`` = 2) and the content
  scale is 2 too.
* X11 and Windows: window units are pixels (framebuffer / window = 1); the content scale
  (the monitor's DPI / 96) says how much larger the UI should be, and the window is made
  that many times larger (``SCALE_TO_MONITOR``).

Either way the page's device pixel ratio is the content scale, as a browser takes it
(``window.devicePixelRatio``): the scene is rendered with ``device_scale_factor`` = the
content scale, so its frame has exactly as many px as the framebuffer gives the scene's
viewport, and it is drawn 1:1 (no stretching, nothing blurred). One CSS px is
``units_per_css`` = device_scale_factor / pixel_ratio window units: that is where the
panels are laid out, where the selected layer's outline and the overlay's legend go, and
what the mouse (glfw's cursor, in window units) is measured in.

A ratio can be forced (``--dpr 2``): headless it pretends a Retina framebuffer (window
units = CSS px, 2 framebuffer px per unit), so the HiDPI path runs under EGL and Xvfb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lamina.device_scale import parse_device_scale

__all__ = ["DisplayScale"]


@dataclass(frozen=True)
class DisplayScale:
    """``device_scale_factor``: framebuffer px per scene CSS px (the frames' DPR);
    ``pixel_ratio``: framebuffer px per window unit."""

    device_scale_factor: float = 1.0
    pixel_ratio: float = 1.0

    def __post_init__(self) -> None:
        parse_device_scale(self.device_scale_factor, "device_scale_factor")
        if not (math.isfinite(self.pixel_ratio) and self.pixel_ratio > 0):
            raise ValueError(f"pixel_ratio must be a positive number, got {self.pixel_ratio!r}")

    @classmethod
    def headless(cls, device_scale_factor: float | None = None) -> "DisplayScale":
        """A headless picture at ``device_scale_factor`` (1 when None): a Retina-like
        framebuffer, window units = CSS px."""
        dpr = parse_device_scale(1.0 if device_scale_factor is None else device_scale_factor, "--dpr")
        return cls(dpr, dpr)

    @classmethod
    def of_window(cls, content_scale: float, window_size: tuple[int, int], framebuffer_size: tuple[int, int],
                  device_scale_factor: float | None = None) -> "DisplayScale":
        """A window's: glfw's content scale (x) and its window and framebuffer sizes;
        ``device_scale_factor`` forces the ratio (None: the content scale, at least the
        framebuffer's own ratio and 1)."""
        pixel_ratio = framebuffer_size[0] / window_size[0] if window_size[0] > 0 else 1.0
        pixel_ratio = pixel_ratio if math.isfinite(pixel_ratio) and pixel_ratio > 0 else 1.0
        if device_scale_factor is None:
            dpr = max(float(content_scale), pixel_ratio, 1.0)
        else:
            dpr = parse_device_scale(device_scale_factor, "--dpr")
        return cls(dpr, pixel_ratio)

    @property
    def units_per_css(self) -> float:
        """Window units per CSS px (2 on X11 at DPR 2, 1 on a Retina Mac)."""
        return self.device_scale_factor / self.pixel_ratio

    def units(self, css: tuple[float, float]) -> tuple[float, float]:
        """A CSS px size or point in window units."""
        return css[0] * self.units_per_css, css[1] * self.units_per_css

    def css_from_units(self, x: float, y: float) -> tuple[float, float]:
        """A window point (the mouse's, say) in the scene's CSS px."""
        return x / self.units_per_css, y / self.units_per_css

    def units_from_device(self, x: float, y: float) -> tuple[float, float]:
        """A frame (device px) point in window units: where ImGui draws over it."""
        return x / self.pixel_ratio, y / self.pixel_ratio

    def pixels(self, units: tuple[float, float]) -> tuple[int, int]:
        """A window-unit size in framebuffer px (rounded)."""
        return round(units[0] * self.pixel_ratio), round(units[1] * self.pixel_ratio)
