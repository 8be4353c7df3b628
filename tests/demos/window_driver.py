"""Drives one demo in a real glfw window (run under Xvfb by test_demos_window.py).

Usage: python tests/demos/window_driver.py NAME OUT_DIR. Renders a few frames, then
sends real X input through xdotool (XTEST): a Space key press with the pointer over the
window, and a drag of the demo's main slider. Prints one JSON line with what happened;
writes before.png and after.png, read back from the window's own framebuffer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import glfw
from PIL import Image

from demos.registry import DEMOS
from demos.ui.runner import Runner


def frames(runner: Runner, n: int):
    """Render ``n`` frames; the last one's picture, read before the buffers swap."""
    picture = None
    for _ in range(n):
        glfw.poll_events()
        runner.render_frame(1 / 30)
        picture = runner.snapshot()
        glfw.swap_buffers(runner.window)
    return picture


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=30)


def main() -> None:
    name, out = sys.argv[1], Path(sys.argv[2])
    demo = DEMOS[name]()
    runner = Runner(demo, headless=False)
    x, y = glfw.get_window_pos(runner.window)
    before = frames(runner, 4)
    Image.fromarray(before, "RGBA").save(out / "before.png")
    # A real key press: the pointer over the scene gives the window the keyboard.
    xdotool("mousemove", "--sync", str(x + 100), str(y + 100))
    frames(runner, 2)
    xdotool("key", "space")
    frames(runner, 3)
    paused = runner.paused
    xdotool("key", "space")
    frames(runner, 3)
    resumed = not runner.paused
    # A real drag of the main slider, from its left quarter to its right end.
    x0, y0, x1, y1 = demo.probe
    cy = int(y + (y0 + y1) / 2)
    value = demo.probe_value
    xdotool("mousemove", "--sync", str(int(x + x0 + (x1 - x0) * 0.25)), str(cy))
    frames(runner, 2)
    xdotool("mousedown", "1")
    frames(runner, 2)
    xdotool("mousemove", "--sync", str(int(x + x1 - 2)), str(cy))
    frames(runner, 2)
    xdotool("mouseup", "1")
    after = frames(runner, 4)
    changed = demo.probe_value != value
    Image.fromarray(after, "RGBA").save(out / "after.png")
    size = list(runner.size)
    runner.key("Escape")
    quit_requested = runner.state.quit
    runner.close()
    print(json.dumps({"paused": paused, "resumed": resumed, "slider_changed": changed, "size": size,
                      "slider": [value, demo.probe_value],
                      "quit": quit_requested, "scene_width": demo.scene_size[0]}))


if __name__ == "__main__":
    main()
