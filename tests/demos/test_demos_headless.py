"""Every demo runs headless for a few frames: its pictures are not blank, change where
the lesson animates, show the panels, and the panels' numbers are the frame's own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from imgui_bundle import imgui
from PIL import Image

from demos.registry import DEMOS
from demos.ui.panels import counters, highlight_quads
from demos.ui.runner import PANEL_WIDTH, Runner

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.gl


@pytest.fixture
def headless(gl):
    """A demo runner on its own headless context; the shared one is current again after."""
    runners = []

    def make(name: str) -> Runner:
        runner = Runner(DEMOS[name](), headless=True)
        runners.append(runner)
        return runner

    yield make
    for runner in runners:
        runner.close()
    gl.gpu.activate()


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_demo_renders_its_lesson_headless(headless, tmp_path, name):
    runner = headless(name)
    paths = runner.run_headless(16, tmp_path, gif=True)
    pictures = [np.asarray(Image.open(p).convert("RGBA")) for p in paths if p.suffix == ".png"]
    assert len(pictures) == 16 and (tmp_path / f"{name}.gif").is_file()
    scene_w, scene_h = runner.demo.scene_size
    first, last = pictures[0], pictures[-1]
    assert first.shape == (scene_h, scene_w + PANEL_WIDTH, 4)
    for picture in (first, last):
        scene = picture[:, :scene_w, :3].reshape(-1, 3)
        panels = picture[:, scene_w:, :3].reshape(-1, 3)
        assert len(np.unique(scene, axis=0)) > 50, "the scene is blank"
        assert len(np.unique(panels, axis=0)) > 10, "the panels are missing"
    # Every demo animates its scene (by more than rounding noise) ...
    assert np.abs(first[:, :scene_w].astype(int) - last[:, :scene_w].astype(int)).max() > 3
    # ... and its panels follow the frames (times, counters, the scripted controls).
    assert np.abs(first[:, scene_w:].astype(int) - last[:, scene_w:].astype(int)).max() > 40


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_panel_numbers_are_the_frames_own(headless, name):
    runner = headless(name)
    frame = runner.render_frame(0.0)
    numbers = counters(frame)
    graph = frame.graph
    assert numbers["layers rastered"] == len(graph.raster_passes())
    assert numbers["passes"] == len(graph.passes)
    assert numbers["texture bytes"] == sum(t.bytes for t in graph.textures())
    assert numbers["shader compiles"] == frame.stats.compiles


def test_standard_keys(headless):
    runner = headless(sorted(DEMOS)[0])
    runner.render_frame(0.1)
    runner.key("Space")
    t = runner.t
    runner.render_frame(0.1)
    assert runner.t == t, "paused"
    runner.key("Right")
    runner.render_frame(0.1)
    assert runner.t == pytest.approx(t + 0.1), "stepped one frame"
    runner.key("R")
    assert runner.t == 0.0
    runner.key("H")
    assert runner.state.show_help
    runner.key("Escape")
    assert runner.state.quit


def run_demos(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "demos", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.slow
def test_launcher_lists_and_refuses():
    listed = run_demos()
    assert listed.returncode == 0 and all(name in listed.stdout for name in DEMOS)
    unknown = run_demos("no-such-demo")
    assert unknown.returncode == 2 and "unknown demo 'no-such-demo'" in unknown.stderr
    assert all(name in unknown.stderr for name in DEMOS)


@pytest.mark.slow
def test_headless_recording_writes_a_gif_and_an_mp4(tmp_path):
    import imageio_ffmpeg
    from PIL import Image

    proc = run_demos("blend-backdrop", "--headless", "--frames", "3", "--out", str(tmp_path), "--gif", "--mp4")
    assert proc.returncode == 0, proc.stderr
    pngs = sorted(tmp_path.glob("blend-backdrop-*.png"))
    width, height = Image.open(pngs[0]).size
    gif = Image.open(tmp_path / "blend-backdrop.gif")
    assert gif.n_frames == len(pngs) and gif.size == (width, height)
    reader = imageio_ffmpeg.read_frames(str(tmp_path / "blend-backdrop.mp4"))
    meta = next(reader)
    frames = [np.frombuffer(f, np.uint8) for f in reader]
    assert len(frames) == len(pngs) and meta["size"] == (width + width % 2, height + height % 2)
    # The first frame survives the encoder: mean error of a few levels at most (H.264 is lossy).
    first = frames[0].reshape(meta["size"][1], meta["size"][0], 3)[:height, :width].astype(int)
    assert np.abs(first - np.asarray(Image.open(pngs[0]).convert("RGB")).astype(int)).mean() < 6
    refused = run_demos("blend-backdrop", "--mp4")
    assert refused.returncode == 2 and "--headless" in refused.stderr


@pytest.mark.slow
def test_no_display_is_one_clear_line():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = run_demos(sorted(DEMOS)[0], env=env)
    assert proc.returncode == 1
    assert "--headless" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_selected_layer_lights_up(headless):
    runner = headless("animation-cost")
    runner.render_frame(0.0)
    plain = runner.snapshot()
    runner.state.selected = "opacity-card"
    runner.render_frame(0.0)
    lit = runner.snapshot()
    yellow = (lit[..., 0] == 255) & (lit[..., 1] == 210) & (lit[..., 2] == 0)
    ys, xs = np.nonzero(yellow)
    assert len(xs) > 100 and not ((plain[..., 0] == 255) & (plain[..., 1] == 210) & (plain[..., 2] == 0)).any()
    card = runner.scene["opacity-card"].box  # the outline hugs the card (it is not rotated)
    assert abs(xs.min() - card.x) <= 2 and abs(xs.max() - (card.x + card.width)) <= 2
    assert abs(ys.min() - card.y) <= 2 and abs(ys.max() - (card.y + card.height)) <= 2


def _shown_at(gl, dpr: float | None) -> dict:
    """One frame of layer-promotion headless at ``dpr`` (None: 1), without its overlay: the
    picture, the frame presented, the selected card's outline and the panels' sizes."""
    runner = Runner(DEMOS["layer-promotion"](), headless=True, device_scale_factor=dpr)
    try:
        runner.state.overlay = None
        frame = runner.render_frame(0.0)
        picture = runner.snapshot()
        runner.state.selected = "card0"
        return {"picture": picture, "frame": frame.premultiplied.copy(), "quads": highlight_quads(runner, frame, "card0"),
                "font": runner.state.font_px, "size": runner.size, "extent": runner.scene_extent,
                "framebuffer_scale": tuple(imgui.get_io().display_framebuffer_scale)}
    finally:
        runner.close()
        gl.gpu.activate()


def test_headless_dpr2_renders_the_scene_at_2_and_the_panels_at_retina_density(gl):
    """--dpr 2 headless pretends a Retina framebuffer: the same window (units) with twice the
    px; the scene is rendered at device_scale_factor 2 and drawn 1:1; overlays drawn over
    the scene (the selected layer's outline) land where they do at 1, in window units; the
    panels keep their layout and ImGui rasterizes its font at density 2 (its text edges are
    as sharp as at 1, on twice the rows, not the picture at 1 enlarged)."""
    at1, at2 = _shown_at(gl, None), _shown_at(gl, 2)
    scene_w, scene_h = DEMOS["layer-promotion"]().scene_size
    assert at2["size"] == at1["size"] and at2["extent"] == at1["extent"] == (scene_w, scene_h)
    assert at2["picture"].shape[:2] == (2 * at1["picture"].shape[0], 2 * at1["picture"].shape[1])
    assert at2["frame"].shape[:2] == (2 * scene_h, 2 * scene_w), "the frame is rendered at DPR 2"
    shown = np.abs(at2["picture"][:2 * scene_h, :2 * scene_w, :3].astype(int) - at2["frame"][..., :3]).max()
    assert shown <= 2, "the frame is drawn 1:1 into the framebuffer"
    assert at2["quads"] == at1["quads"] and at1["quads"], "the outline is in window units either way"
    assert at2["font"] == at1["font"] and at2["framebuffer_scale"] == (2.0, 2.0)

    def strong_edges(picture, k):  # the panels' title and lesson text: static from frame to frame
        text = picture[: 60 * k, scene_w * k:, :3].astype(float).mean(axis=-1)
        return int((np.abs(np.diff(text, axis=1)) > 100).sum())

    # At 1: ~2500 such edges; at 2 twice as many (sharp on twice the rows); the picture at 1
    # enlarged bilinearly has fewer than at 1 (each edge spread over two px).
    assert strong_edges(at2["picture"], 2) >= 1.6 * strong_edges(at1["picture"], 1)
