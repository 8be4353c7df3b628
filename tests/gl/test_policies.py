"""Compositing policies render the same pixels; they differ in what they keep and redo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lamina import Layer, Scene, load_scene
from lamina.cli import main
from lamina.errors import InvalidValueError

ROOT = Path(__file__).resolve().parents[2]
SCENES = sorted((ROOT / "demos").glob("*/*.json"))



@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.stem)
def test_policies_render_the_same_pixels(fresh, path):
    scene = load_scene(path)
    a = scene.render(fresh, policy="all").premultiplied.astype(int)
    again = scene.render(fresh, policy="all").premultiplied.astype(int)  # from reused rasters
    b = scene.render(fresh, policy="none").premultiplied.astype(int)
    assert np.abs(a - b).max() <= 1
    assert np.abs(a - again).max() <= 1


def test_policies_on_random_scenes(fresh, rng):
    for _ in range(4):
        scene = Scene(64, 48, "white")
        for i in range(int(rng.integers(3, 10))):
            x, y = (float(v) for v in rng.integers(-10, 60, 2))
            style = f"background: rgb({rng.integers(0, 256)} {rng.integers(0, 256)} {rng.integers(0, 256)} / {rng.uniform(0.2, 1):.3f})"
            if rng.random() < 0.3:
                style += f"; transform: rotate({rng.integers(0, 90)}deg)"
            if rng.random() < 0.2:
                style += f"; filter: blur({rng.uniform(0.5, 3):.2f}px)"
            scene.root.add(Layer(f"l{i}", (x, y, float(rng.integers(4, 30)), float(rng.integers(4, 30))), style))
        a = scene.render(fresh, policy="all").premultiplied.astype(int)
        b = scene.render(fresh, policy="none").premultiplied.astype(int)
        assert np.abs(a - b).max() <= 1


def test_none_rasters_everything_every_frame_all_reuses(fresh):
    scene = load_scene(ROOT / "demos" / "showcase" / "showcase.json")
    drawing = len(scene.render(fresh, policy="none").graph.raster_passes())
    assert drawing == 11
    assert len(scene.render(fresh, policy="none").graph.raster_passes()) == drawing
    scene.render(fresh, policy="all")
    frame = scene.render(fresh, policy="all")
    assert frame.graph.raster_passes() == [] and len(frame.graph.reused) >= drawing


def test_unknown_policy_is_a_typed_error(gl):
    with pytest.raises(InvalidValueError, match="policy"):
        Scene(4, 4).render(gl, policy="browser-ish")


def test_layer_table_in_report_and_text(gl, capsys):
    path = ROOT / "demos" / "showcase" / "showcase.json"
    assert main(["explain", str(path), "--json", "--policy", "none"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["layer"]: r for r in report["graph"]["layers"]}
    assert rows["photo"]["drawn_into"] == "surface:photo" and rows["hero"]["drawn_into"] == "frame"
    assert rows["hero"]["bytes"] == 340 * 200 * 4 and rows["hero"]["this_frame"] == "rastered"
    assert rows["clipped-bar"]["clipped_by"] == ["window"]
    assert main(["explain", str(path), "--policy", "all"]) == 0
    text = capsys.readouterr().out
    assert "each drawing layer has a texture of its own" in text and "surface:glass" in text
    assert main(["explain", str(path)]) == 0  # the default policy: browser
    text = capsys.readouterr().out
    assert "policy browser: promoted layers have backings" in text and "painted into" in text


def test_page_backing_starts_as_the_page_background(fresh, rng):
    # Translucent layers stacked in the page's backing blend over the page colour there,
    # with the same 8-bit roundings as when drawn straight into the frame ("none"):
    # the pictures are identical, not merely within a level (they were 2 apart before).
    scene = Scene(96, 64, "#f4f1ea")
    for i in range(5):
        x, y = (float(v) for v in rng.integers(0, 50, 2))
        a, b = (f"rgb({rng.integers(0, 256)} {rng.integers(0, 256)} {rng.integers(0, 256)} / {rng.uniform(0.3, 0.9):.3f})" for _ in range(2))
        scene.root.add(Layer(f"l{i}", (x, y, 40, 30), f"background: linear-gradient({rng.integers(0, 360)}deg, {a}, {b}); border-radius: 9px"))
    scene.root.add(Layer("promoted", (70, 40, 20, 20), "background: red; will-change: transform"))
    browser = scene.render(fresh, policy="browser")
    (paint,) = [p for p in browser.graph.composite_passes() if p.name == "paint:root-base"]
    assert paint.clear == pytest.approx((0xF4 / 255, 0xF1 / 255, 0xEA / 255, 1.0))
    assert np.array_equal(browser.premultiplied, scene.render(fresh, policy="none").premultiplied)
    scene.root.style["background-color"] = "navy"  # a new page colour repaints the backing
    assert np.array_equal(scene.render(fresh, policy="browser").premultiplied, scene.render(fresh, policy="none").premultiplied)
