"""Lamina's SVG filter scenes against Chromium (tests/chromium/compare_svg.py, issue 27 item 6):
the comparison stays under the bounds measured with Debian's Chromium 156 on two scenes of
primitives, per layer (box + 4 px). Measured (mean / % over 24 / max): svg-filter-color's
layers 0.06-0.21 / 0 / 2-8 but #discrete 0.96 / 1.66 / 203 (Chromium dithers the gradient
under it, so its step edges are dotted); svg-filter-composite's operators, erode and dilate 0-0.14
/ 0 / 0-2, #turbulence 5.20 / 0.88 / 41 (Chromium samples the spec's noise half a pixel
further down-right). Skipped without chromium (conftest)."""

from __future__ import annotations

import pytest

from tests.chromium.compare_svg import Row, compare_scene, layer_areas, svg_scenes

# (mean, % over 24, max) per layer: the measured values with room for Chromium's dithering noise.
BOUNDS = {
    "svg-filter-color": {"table": (0.5, 0.1, 10), "discrete": (1.5, 3.0, 255), "gamma": (0.5, 0.1, 10),
                         "hue": (0.5, 0.1, 12), "hue-srgb": (0.5, 0.1, 6), "luminance": (0.5, 0.1, 6)},
    "svg-filter-composite": {"over": (0.3, 0.1, 4), "atop": (0.3, 0.1, 4), "xor": (0.3, 0.1, 4),
                             "lighter": (0.3, 0.1, 4), "arithmetic": (0.3, 0.1, 4), "erode": (0.2, 0.1, 4),
                             "turbulence": (7.0, 2.0, 64), "turbulence-linear": (1.5, 0.5, 48),
                             "in": (0.2, 0.1, 4), "out": (0.2, 0.1, 4), "dilate": (0.3, 0.1, 4)},
}


def test_every_svg_scene_is_compared_and_each_layer_has_a_row():
    names = [p.stem for p in svg_scenes()]
    assert {"svg-filter-color", "svg-filter-composite", "svg-filter-spatial", "svg-filter-subregions"} <= set(names)
    assert all(n.startswith("svg-") for n in names)
    areas = layer_areas(svg_scenes("composite")[0], 4)
    assert areas["over"] == (6, 6, 84, 64)  # box (10, 10, 70, 50) grown by 4 px
    assert Row("s", "l", 0.123, 1.0, 41.0).markdown() == "| s | l | 0.12 | 1.00 | 41 |"


@pytest.mark.gl
@pytest.mark.slow
@pytest.mark.parametrize("scene", sorted(BOUNDS))
def test_the_scene_stays_within_its_measured_chromium_bounds(chromium, tmp_path, scene):
    (path,) = [p for p in svg_scenes(scene) if p.stem == scene]
    rows = {row.layer: row for row in compare_scene(path, tmp_path, chromium)}
    assert set(BOUNDS[scene]) == set(rows) - {"all"}
    for layer, (mean, over, most) in BOUNDS[scene].items():
        row = rows[layer]
        assert row.mean <= mean and row.percent_over_24 <= over and row.max <= most, f"{scene} {layer}: {row}"
