"""Each demo in a real glfw window on an X server (Xvfb, started and stopped here): a
real key press pauses it, a real drag of its main slider changes the rendered scene,
the picture read back from the window shows the scene and the panels, and real Ctrl+=
and Ctrl+- scale the UI. animation-cost's window shows its cards' labels, the paint
overlay's legend, and keeps its blur's cost while paused. The driver runs once per demo
(window_driver.py); the tests read what it reported and wrote."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from demos.animation_cost import VARIANT_COLOURS
from demos.registry import DEMOS
from demos.ui.runner import PANEL_WIDTH
from lamina.overlays import LEGENDS

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("window_driver.py")

pytestmark = [pytest.mark.slow, pytest.mark.gl]


@pytest.fixture(scope="module")
def display():
    """A private X server (large enough for a window at DPR 1.5); its display name."""
    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        pytest.fail("Xvfb and xdotool are needed (.ci/setup installs Debian's xvfb and xdotool)")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "2400x1300x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    assert number, "Xvfb did not start"
    yield f":{number}"
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture(scope="module")
def driven(display, tmp_path_factory):
    """Runs the driver on a demo once (later tests of the same demo read the same run):
    (what it reported, the folder of its pictures)."""
    runs: dict[tuple[str, float | None], tuple[dict, Path]] = {}

    def drive(name: str, dpr: float | None = None) -> tuple[dict, Path]:
        if (name, dpr) not in runs:
            out = tmp_path_factory.mktemp(f"window-{name}")
            env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
            proc = subprocess.run([sys.executable, str(DRIVER), name, str(out), *([str(dpr)] if dpr else [])],
                                  cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
            runs[name, dpr] = json.loads(proc.stdout.strip().splitlines()[-1]), out
        return runs[name, dpr]

    return drive


# The OpenCL demo runs in a subprocess, where no OpenCLUnavailableError reaches the gate.
NAMES = [pytest.param(n, marks=pytest.mark.opencl) if "opencl" in n else n for n in sorted(DEMOS)]


@pytest.mark.parametrize("name", NAMES)
def test_demo_in_a_real_window(driven, name):
    result, tmp_path = driven(name)
    assert result["paused"] and result["resumed"], "Space pauses and resumes"
    assert result["slider_changed"], f"dragging the slider changed nothing: {result['slider']}"
    assert result["quit"]
    before = np.asarray(Image.open(tmp_path / "before.png"))
    after = np.asarray(Image.open(tmp_path / "after.png"))
    w = result["scene_width"]
    assert before.shape[:2] == (result["size"][1], result["size"][0])
    assert len(np.unique(before[:, :w, :3].reshape(-1, 3), axis=0)) > 50, "the scene shows in the window"
    # ... as the very frame Lamina rendered, upright.
    frame = np.asarray(Image.open(tmp_path / "before-frame.png"))
    drift = np.abs(before[: frame.shape[0], :w, :3].astype(int) - frame[:, :w, :3].astype(int)).max(axis=-1)
    if result["shown"]["legend_box"]:  # the overlay's legend is drawn over the frame, as meant
        x0, y0, x1, y1 = (int(v) for v in result["shown"]["legend_box"])
        drift[max(y0 - 1, 0):y1 + 1, max(x0 - 1, 0):x1 + 1] = 0
    assert drift.max() <= 2, "the window shows the frame rendered"
    assert len(np.unique(before[:, w:, :3].reshape(-1, 3), axis=0)) > 10, "the panels show in the window"
    # ... ImGui's window itself: a read of another framebuffer (once, a Lamina texture
    # narrower than the window) showed stale memory there, often with > 10 colours too.
    panel_bg = np.abs(before[:, w:, :3].astype(int) - result["panel_bg"]).max(axis=-1) <= 1
    assert panel_bg.mean() > 0.3, "ImGui's window (its background) fills the panels' column"
    assert np.abs(before[:, :w].astype(int) - after[:, :w].astype(int)).max() > 3, "the scene changed"


@pytest.mark.parametrize("name", NAMES)
def test_ui_scale_keys_in_a_real_window(driven, name):
    """Ctrl+= makes the font and the panels' column larger (the window widens to fit);
    Ctrl+- goes back; a window's counters show FPS."""
    result, tmp_path = driven(name)
    scale = result["ui_scale"]
    assert scale["scaled"] and scale["to"] > scale["from"] == 1.0, scale
    assert scale["font"][1] > scale["font"][0], "the font grew"
    w, h = result["size"]
    scene_w = result["scene_width"]
    assert scale["window"] == [scene_w + round(PANEL_WIDTH * scale["to"]), h], "the panels' column widened"
    scaled = np.asarray(Image.open(tmp_path / "scaled.png"))
    assert scaled.shape[1] == scale["window"][0] > w, "the picture read back is the wider window"
    assert scale["back"], "Ctrl+- returned to the starting size"
    assert result["shown"]["counters"].startswith("FPS"), "a window shows its frame rate"


def test_animation_cost_in_a_real_window_labels_legend_and_paused_costs(driven):
    result, tmp_path = driven("animation-cost")
    before = np.asarray(Image.open(tmp_path / "before.png"))[..., :3].astype(int)
    # Each card's label: its row's colour and white text (the name) inside its box.
    for variant, (x, y, w, h) in result["labels"].items():
        box = before[int(y):int(y + h), int(x):int(x + w)]
        colour = (np.abs(box - VARIANT_COLOURS[variant]).max(axis=-1) <= 2).sum()
        white = (box.min(axis=-1) >= 245).sum()
        assert colour > 0.4 * w * h and white > 150, f"{variant}'s label ({colour} px of its colour, {white} white)"
    # The paint overlay's legend, drawn on the canvas: its swatch and its words.
    assert result["shown"]["legend"] == ["paint overlay", *(text for _, text in LEGENDS["paint"])]
    x0, y0, x1, y1 = (int(v) for v in result["shown"]["legend_box"])
    assert 0 <= x0 < x1 <= result["scene_width"], "on the scene, not in the panels"
    legend = before[y0:y1, x0:x1]
    assert (np.abs(legend - LEGENDS["paint"][0][0]).max(axis=-1) == 0).sum() >= 49, "the green swatch"
    assert (legend.min(axis=-1) >= 200).sum() > 50, "the legend's text"
    # Paused on the blur, the table still shows what the blur costs.
    table = result["paused_table"]
    assert table["caption"].startswith("paused")
    assert table["rows"]["filter"]["filter passes"] >= 2 and table["rows"]["filter"]["ms"] > 0, table


def test_window_at_dpr_1_5_renders_frames_at_it_and_maps_the_mouse(driven):
    """A window forced to DPR 1.5 on X (window units are pixels, as on a 150 % HiDPI X11 or
    Windows screen): it is 1.5 times as large, the scene's frame is rendered at
    device_scale_factor 1.5 and drawn 1:1 (the window shows that very frame, not one at 1
    stretched), the panels' font and column are 1.5 times as large, and real X mouse events
    (window pixels) still drag the slider ImGui laid out there."""
    at1, _ = driven("layer-promotion")
    result, tmp_path = driven("layer-promotion", 1.5)
    display = result["display"]
    assert display["dpr"] == 1.5 and display["units_per_css"] == 1.5
    w1, h1 = at1["size"]
    scene_w, scene_h = (round(v) for v in display["scene_extent"])
    assert [scene_w, scene_h] == [round(1.5 * at1["scene_width"]), round(1.5 * h1)]
    assert result["size"] == [scene_w + round(1.5 * PANEL_WIDTH), scene_h], "the window is 1.5 times the size"
    assert display["frame_shape"] == [scene_h, scene_w], "the frame has the viewport's pixels"
    before = np.asarray(Image.open(tmp_path / "before.png"))
    assert before.shape[:2] == (scene_h, result["size"][0])
    frame = np.asarray(Image.open(tmp_path / "before-frame.png"))
    assert frame.shape[:2] == (scene_h, scene_w)
    drift = np.abs(before[:scene_h, :scene_w, :3].astype(int) - frame[..., :3].astype(int)).max(axis=-1)
    if result["shown"]["legend_box"]:  # the legend is drawn over the frame, in window units
        x0, y0, x1, y1 = (int(v) for v in result["shown"]["legend_box"])
        assert x1 <= scene_w and scene_h - 40 < y1 <= scene_h, "the legend sits on the scene's bottom-left"
        drift[max(y0 - 1, 0):y1 + 1, max(x0 - 1, 0):x1 + 1] = 0
    assert drift.max() <= 2, "the window shows the DPR-1.5 frame, 1:1"
    # ImGui sizes its font in whole units: 13 px x 1.5 is drawn at 20.
    assert abs(result["ui_scale"]["font"][0] - 1.5 * at1["ui_scale"]["font"][0]) <= 0.5, "the font is 1.5x"
    assert result["slider_changed"] and result["paused"] and result["resumed"], result
    assert result["ui_scale"]["window"] == [scene_w + round(1.5 * PANEL_WIDTH * result["ui_scale"]["to"]), scene_h]
