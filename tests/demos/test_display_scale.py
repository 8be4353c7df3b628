"""The demos' three units (demos.ui.display_scale), without a GPU or a window: the frames'
device pixel ratio, window units and framebuffer px on a Retina Mac, a HiDPI X11 screen, a
plain one and a forced --dpr; bad ratios are refused naming where they came from."""

from __future__ import annotations

import argparse
import math

import pytest

from demos.options import device_scale
from demos.ui.display_scale import DisplayScale
from lamina.errors import GeometryError


@pytest.mark.parametrize("content, window, framebuffer, forced, expected", [
    (2.0, (1340, 720), (2680, 1440), None, (2.0, 2.0, 1.0)),   # macOS / Wayland: points, 2 px each
    (2.0, (2680, 1440), (2680, 1440), None, (2.0, 1.0, 2.0)),  # X11 / Windows at 200 %: pixels
    (1.25, (1675, 900), (1675, 900), None, (1.25, 1.0, 1.25)),  # Windows at 125 %
    (1.0, (1340, 720), (1340, 720), None, (1.0, 1.0, 1.0)),
    (0.8, (1340, 720), (1340, 720), None, (1.0, 1.0, 1.0)),    # never below 1 unless forced
    (1.0, (1340, 720), (1340, 720), 2.0, (2.0, 1.0, 2.0)),     # --dpr 2 in a window under Xvfb
    (2.0, (1340, 720), (2680, 1440), 1.0, (1.0, 2.0, 0.5)),    # --dpr 1 on a Retina Mac
])
def test_window_scale(content, window, framebuffer, forced, expected):
    d = DisplayScale.of_window(content, window, framebuffer, forced)
    assert (d.device_scale_factor, d.pixel_ratio, d.units_per_css) == expected
    # The scene's viewport in framebuffer px is its frame's size at the ratio: drawn 1:1.
    assert d.pixels(d.units((860, 720))) == (round(860 * d.device_scale_factor), round(720 * d.device_scale_factor))


def test_headless_pretends_a_retina_framebuffer():
    d = DisplayScale.headless(2)
    assert (d.device_scale_factor, d.pixel_ratio, d.units_per_css) == (2.0, 2.0, 1.0)
    assert DisplayScale.headless(None) == DisplayScale(1.0, 1.0)


@pytest.mark.parametrize("d", [DisplayScale(2.0, 1.0), DisplayScale(2.0, 2.0), DisplayScale(1.5, 1.0)])
def test_points_map_between_units(d):
    # The mouse at a window point is at that point / units_per_css in the scene (CSS px) ...
    x, y = d.units((100.0, 40.0))
    assert d.css_from_units(x, y) == pytest.approx((100.0, 40.0))
    # ... and a frame (device px) corner is where ImGui draws it over the frame.
    assert d.units_from_device(100.0 * d.device_scale_factor, 0.0) == pytest.approx((x, 0.0))


@pytest.mark.parametrize("bad", [math.nan, math.inf, 0.0, -1.0, 9.0, True, "2"])
def test_bad_ratios_are_refused_naming_the_option(bad):
    with pytest.raises(GeometryError, match="--dpr"):
        DisplayScale.headless(bad)
    with pytest.raises(GeometryError, match="--dpr"):
        DisplayScale.of_window(1.0, (10, 10), (10, 10), bad)


@pytest.mark.parametrize("text", ["nan", "inf", "0", "-2", "8.5", "two"])
def test_dpr_option_refuses_bad_values(text):
    with pytest.raises(argparse.ArgumentTypeError):
        device_scale(text)
    assert device_scale("1.5") == 1.5
