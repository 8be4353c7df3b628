"""Lamina's own golden suite: every scene under tests/scenes matches its golden PNG.

Accept a changed rendering with
    python -m pytest tests/gl/test_golden_scenes.py --golden-update=changed
and review the PNGs in git before committing (``lamina check tests/scenes`` does the same
without pytest).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lamina import load_scene
from lamina.golden.check import render_scene_for_golden, scene_tolerance
from lamina.golden.store import golden_name
from lamina.fuzzy import Tolerance

SCENES = Path(__file__).resolve().parents[1] / "scenes"
GOLDENS = SCENES / "goldens"


@pytest.mark.golden(dir=GOLDENS)
@pytest.mark.parametrize("path", sorted(SCENES.glob("*.json")), ids=lambda p: p.stem)
def test_scene_matches_its_golden(gl, golden, path):
    scene = load_scene(path)
    frame = render_scene_for_golden(scene, gl)
    tolerance = scene_tolerance(scene, Tolerance())
    golden.check(frame, path.stem, max_diff=tolerance.max_diff, max_pixels=tolerance.max_pixels,
                 max_alpha_diff=tolerance.max_alpha_diff)


# The same scenes at device pixel ratio 2 (lamina.device_scale), a few of each kind: their
# goldens (NAME.2x.png in goldens-2x/, each recording its DPR) are only compared with
# frames at DPR 2 -- like with like.
DPR2 = ("border-with-radius", "box-shadow-basic", "backdrop-filter-blur", "clip-path-transform-opacity",
        "filter-blur-small", "filter-drop-shadow", "gradient-radial", "image-size-position-repeat",
        "mask-gradient", "overflow-rounded-clip", "scroll-sticky", "text-paragraphs", "text-shadow",
        "tiles-rotated", "transform-rotate-scale", "raster-scale-text", "raster-scale-rotate-skew", "svg-filter-subregions",
        "svg-filter-mixed-regions", "svg-filter-lighting-subregion")


@pytest.mark.golden(dir=SCENES / "goldens-2x")
@pytest.mark.parametrize("name", DPR2)
def test_scene_at_dpr2_matches_its_dpr2_golden(gl, golden, name):
    scene = load_scene(SCENES / f"{name}.json")
    scene.device_scale_factor = 2
    frame = render_scene_for_golden(scene, gl)
    assert frame.image.shape[:2] == (scene.height * 2, scene.width * 2)
    tolerance = scene_tolerance(scene, Tolerance())
    golden.check(frame, golden_name(name, 2), max_diff=tolerance.max_diff, max_pixels=tolerance.max_pixels,
                 max_alpha_diff=tolerance.max_alpha_diff)
