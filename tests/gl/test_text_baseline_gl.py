"""Rendered baselines against Chromium's: every device-scale-1 case of
tests/unit/fixtures/chromium_text_baselines.json (measured by tests/chromium/text_baselines.py
from Chromium 156's screenshots) drawn by Lamina — layout, raster snapping and the GL
draw together — and measured the same way (one below each H's last inked row) lands on
Chromium's pixel row. The cases are drawn many to a scene, each moved to a grid cell by
whole pixels so a fractional top keeps its fraction."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from lamina import Layer, Scene
from tests.chromium.text_baselines import fixture_cases, measure

pytestmark = pytest.mark.gl

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "fixtures" / "chromium_text_baselines.json"
DATA = json.loads(FIXTURE.read_text())
CELL_W, CELL_H, COLUMNS, ROWS = 200, 200, 8, 6  # 48 cases per scene


def _style(case: dict) -> str:
    return (f"font-family: '{case['family']}'; font-weight: {case['weight']}; font-size: {case['size']}px; "
            f"line-height: {case['line_height']}; white-space: pre; color: black")


def _batches():
    cases = [c for c in fixture_cases(DATA) if c["scale"] == 1]
    per = COLUMNS * ROWS
    return [cases[i:i + per] for i in range(0, len(cases), per)]


@pytest.mark.parametrize("batch", range(len(_batches())))
def test_lamina_draws_each_baseline_on_chromiums_row(gl, batch):
    cases = _batches()[batch]
    scene = Scene(CELL_W * COLUMNS, CELL_H * ROWS, background="transparent")
    placed = []
    for i, case in enumerate(cases):
        col, row = i % COLUMNS, i // COLUMNS
        x0, y0 = col * CELL_W, row * CELL_H
        frac = case["top"] - math.floor(case["top"])
        top = y0 + 20 + frac  # ink may rise above the box (line-height 0.8): keep 20px over it
        scene.root.add(Layer(f"c{i}", (x0 + 4, top, CELL_W - 8, CELL_H - 22), _style(case), text=DATA["text"]))
        shift = y0 + 20 - math.floor(case["top"])
        placed.append((case, (x0 + 2, y0, x0 + CELL_W - 2, y0 + CELL_H), shift))
    alpha = scene.render(gl).image[..., 3]
    wrong = []
    for case, region, shift in placed:
        ours = measure(alpha, region, 1)
        theirs = [b + shift for b in case["baselines"]]
        if ours != theirs:
            wrong.append((case["family"], case["weight"], case["size"], case["line_height"], case["top"], ours, theirs))
    assert not wrong, f"{len(wrong)} of {len(cases)} cases off Chromium's rows: {wrong[:5]}"
