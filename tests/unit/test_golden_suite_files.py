"""The golden suite's files: every scene has a golden, no golden is orphaned, the
goldens stay small, and every scene says what it shows."""

from __future__ import annotations

import json
from pathlib import Path

SCENES = Path(__file__).resolve().parents[1] / "scenes"
GOLDENS = SCENES / "goldens"
BUDGET = 5 * 2**20


def test_there_are_enough_scenes():
    assert len(list(SCENES.glob("*.json"))) >= 30


def test_every_scene_has_a_golden_and_no_golden_is_orphaned():
    scenes = {p.stem for p in SCENES.glob("*.json")}
    goldens = {p.stem for p in GOLDENS.glob("*.png")}
    assert sorted(scenes - goldens) == [], "scenes without a golden: run pytest --golden-update=missing"
    assert sorted(goldens - scenes) == [], "goldens without a scene: delete them"
    assert {p.name for p in GOLDENS.iterdir()} <= {f"{s}.png" for s in scenes} | {"renderers.json"}


def test_goldens_fit_the_size_budget():
    total = sum(p.stat().st_size for p in GOLDENS.iterdir())
    assert total <= BUDGET, f"goldens take {total / 2**20:.2f} MB, over the 5 MB budget"


def test_every_scene_describes_itself():
    for path in SCENES.glob("*.json"):
        assert json.loads(path.read_text()).get("description"), f"{path.name} has no description"
