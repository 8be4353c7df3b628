"""Each demo in a real glfw window on an X server (Xvfb, started and stopped here): a
real key press pauses it, a real drag of its main slider changes the rendered scene,
and the picture read back from the window shows the scene and the panels."""

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

from demos.registry import DEMOS

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("window_driver.py")

pytestmark = [pytest.mark.slow, pytest.mark.gl]


@pytest.fixture(scope="module")
def display():
    """A private X server; its display name."""
    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        pytest.fail("Xvfb and xdotool are needed (.ci/setup installs Debian's xvfb and xdotool)")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x900x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    assert number, "Xvfb did not start"
    yield f":{number}"
    server.terminate()
    server.wait(timeout=30)


# The OpenCL demo runs in a subprocess, where no OpenCLUnavailableError reaches the gate.
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.opencl) if "opencl" in n else n
                                  for n in sorted(DEMOS)])
def test_demo_in_a_real_window(display, tmp_path, name):
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(DRIVER), name, str(tmp_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
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
    assert np.abs(before[: frame.shape[0], :w, :3].astype(int) - frame[:, :w, :3].astype(int)).max() <= 2, \
        "the window shows the frame rendered"
    assert len(np.unique(before[:, w:, :3].reshape(-1, 3), axis=0)) > 10, "the panels show in the window"
    # ... ImGui's window itself: a read of another framebuffer (once, a Lamina texture
    # narrower than the window) showed stale memory there, often with > 10 colours too.
    panel_bg = np.abs(before[:, w:, :3].astype(int) - result["panel_bg"]).max(axis=-1) <= 1
    assert panel_bg.mean() > 0.3, "ImGui's window (its background) fills the panels' column"
    assert np.abs(before[:, :w].astype(int) - after[:, :w].astype(int)).max() > 3, "the scene changed"
