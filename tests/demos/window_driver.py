"""Drives one demo in a real glfw window (run under Xvfb by test_demos_window.py).

Usage: python tests/demos/window_driver.py NAME OUT_DIR [DPR]. DPR forces the window's
device pixel ratio (the runner's --dpr: on X11 its units are pixels, so the window, the
scene's frame and the panels are DPR times larger and the mouse is still in window units).
Renders a few frames, then
sends real X input through xdotool (XTEST): a Space key press with the pointer over the
window, a drag of the demo's main slider, and Ctrl+= then Ctrl+- (the UI scale). Prints
one JSON line with what happened; writes before.png, after.png and scaled.png (at the
larger UI scale), read back from the window's own framebuffer, and before-frame.png, the
scene as the runner drew it for before.png (the frame Lamina rendered, with the demo's
overlay). The line also carries what the panels showed as text (counters, the overlay's
legend and its box) and, for animation-cost, started at 1 s (the blur half-way), its
cards' label boxes and its cost table while paused.

X input reaches the window asynchronously (xdotool -> X server -> glfw's connection),
and under load a frame can take long, so after each input the driver renders frames
until its effect is seen (or a deadline passes; the test then fails on what it reports),
rather than a fixed number of frames.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import glfw
from imgui_bundle import imgui
from PIL import Image

from demos.animation_cost import VARIANTS, AnimationCost
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


DEADLINE_S = 60.0  # per input; a frame of the slowest demo takes well under a second


def frames_until(runner: Runner, done) -> bool:
    """Render frames until ``done()`` holds (at least one frame) or DEADLINE_S passes;
    whether it held."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        frames(runner, 1)
        if done() or time.monotonic() > deadline:
            return done()


def mouse_at(x: float, y: float):
    """A condition: ImGui has seen the pointer at window coordinates (x, y)."""
    return lambda: abs(imgui.get_io().mouse_pos.x - x) < 1 and abs(imgui.get_io().mouse_pos.y - y) < 1


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=30)


def main() -> None:
    name, out = sys.argv[1], Path(sys.argv[2])
    dpr = float(sys.argv[3]) if len(sys.argv) > 3 else None
    demo = DEMOS[name]()
    runner = Runner(demo, headless=False, device_scale_factor=dpr)
    x, y = glfw.get_window_pos(runner.window)
    costs = isinstance(demo, AnimationCost)
    if costs:
        runner.t = 1.0  # the blur half-way: a pause must keep showing what it costs
    # Each frame draws scene and panels into the back buffer, and frames() reads it back
    # before the swap: nothing asynchronous to wait for here.
    before = frames(runner, 4)
    Image.fromarray(before, "RGBA").save(out / "before.png")
    shown = runner.state.overlay  # what the runner draws into the scene viewport
    scene = runner.last_frame.overlay(shown) if shown else runner.last_frame.premultiplied  # as the blit shows it
    Image.fromarray(scene, "RGBA").save(out / "before-frame.png")
    # A real key press: the pointer over the scene gives the window the keyboard.
    xdotool("mousemove", "--sync", str(x + 100), str(y + 100))
    frames_until(runner, mouse_at(100, 100))
    xdotool("key", "space")
    paused = frames_until(runner, lambda: runner.paused)
    frames(runner, 3)  # paused frames: they reuse everything
    paused_table = {"caption": demo.caption, "rows": demo.shown} if costs else None
    xdotool("key", "space")
    resumed = frames_until(runner, lambda: not runner.paused)
    # A real drag of the main slider, from its left quarter to its right end.
    x0, y0, x1, y1 = demo.probe
    cy = int((y0 + y1) / 2)
    start, end = int(x0 + (x1 - x0) * 0.25), int(x1 - 2)
    value = demo.probe_value
    xdotool("mousemove", "--sync", str(x + start), str(y + cy))
    frames_until(runner, mouse_at(start, cy))
    xdotool("mousedown", "1")
    frames_until(runner, lambda: imgui.is_mouse_down(0))
    xdotool("mousemove", "--sync", str(x + end), str(y + cy))
    frames_until(runner, lambda: mouse_at(end, cy)() and demo.probe_value != value)
    xdotool("mouseup", "1")
    frames_until(runner, lambda: not imgui.is_mouse_down(0))
    after = frames(runner, 4)
    changed = demo.probe_value != value
    Image.fromarray(after, "RGBA").save(out / "after.png")
    size = list(runner.size)
    display = {"dpr": runner.device_scale_factor, "units_per_css": runner.display.units_per_css,
               "frame_shape": list(runner.last_frame.image.shape[:2]), "scene_extent": list(runner.scene_extent)}
    shown = {"counters": runner.state.shown.get("counters"), "legend": runner.state.legend,
             "legend_box": runner.state.legend_box}
    boxes = {v: runner.scene[f"{v}-label"].box for v in VARIANTS} if costs else {}
    labels = {v: [b.x, b.y, b.width, b.height] for v, b in boxes.items()} or None
    # Real Ctrl+= and Ctrl+-: the UI grows (font and panels' column, so the window), then shrinks back.
    start_scale, start_font = runner.ui_scale, runner.state.font_px
    xdotool("key", "ctrl+equal")
    scaled = frames_until(runner, lambda: runner.ui_scale > start_scale)
    scaled_picture = frames(runner, 2)
    Image.fromarray(scaled_picture, "RGBA").save(out / "scaled.png")
    scale = {"scaled": scaled, "from": start_scale, "to": runner.ui_scale, "font": [start_font, runner.state.font_px],
             "window": list(glfw.get_window_size(runner.window))}
    xdotool("key", "ctrl+minus")
    scale["back"] = frames_until(runner, lambda: runner.ui_scale == start_scale)
    # The panels' window background, as this ImGui style draws it (opaque in its style).
    panel_bg = [round(c * 255) for c in tuple(imgui.get_style().color_(imgui.Col_.window_bg))[:3]]
    runner.key("Escape")
    quit_requested = runner.state.quit
    runner.close()
    print(json.dumps({"paused": paused, "resumed": resumed, "slider_changed": changed, "size": size,
                      "slider": [value, demo.probe_value],
                      "quit": quit_requested, "scene_width": demo.scene_size[0], "panel_bg": panel_bg,
                      "shown": shown, "labels": labels, "paused_table": paused_table, "ui_scale": scale,
                      "display": display}))


if __name__ == "__main__":
    main()
