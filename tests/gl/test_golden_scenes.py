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
