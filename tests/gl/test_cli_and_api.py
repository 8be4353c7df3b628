"""The CLI end to end and the user-facing API: Frame outputs, incremental changes,
the showcase scene."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene, load_scene
from lamina.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHOWCASE = ROOT / "demos" / "showcase" / "showcase.json"


def test_render_showcase_cli(gl, tmp_path, capsys):
    out = tmp_path / "showcase.png"
    assert main(["render", str(SHOWCASE), "-o", str(out), "--explain", "--report", str(tmp_path / "r.json")]) == 0
    printed = capsys.readouterr().out
    assert "Render surfaces" in printed and "opacity" in printed and "Passes, in execution order" in printed
    image = np.asarray(Image.open(out).convert("RGBA"))
    assert image.shape == (500, 800, 4)
    assert len(np.unique(image.reshape(-1, 4), axis=0)) > 1000, "a real picture, not a blank"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["graph"]["size"] == [800, 500]
    assert report["renderer"]["GL_RENDERER"] == gl.info.renderer


def test_showcase_picture_is_right(gl):
    gl.drop_caches()  # a first frame: every surface is planned, none reused
    frame = load_scene(SHOWCASE).render(gl)
    img = frame.image.astype(int)
    assert tuple(img[10, 10]) == (0xF4, 0xF1, 0xEA, 255), "page background"
    # The glass group: the two discs overlap inside a 0.6 opacity group, so their
    # overlap shows the blue disc only (flattened, then faded) over the page.
    page = np.array([0xF4, 0xF1, 0xEA])
    blue = np.array([0x1E, 0x88, 0xE5])
    expected = np.rint(0.6 * blue + 0.4 * page)
    assert np.all(np.abs(img[300 + 20, 440 + 140, :3] - expected) <= 1)
    # The clipped bar inside "window" never leaves the window's rounded box.
    assert tuple(img[268, 230]) == (0xF4, 0xF1, 0xEA, 255)
    from lamina.framegraph import TextureRole

    surfaces = {
        p.target.name: p.reason.value for p in frame.graph.composite_passes() if p.target.role == TextureRole.RENDER_SURFACE
    }
    assert surfaces == {"surface:photo": "filter", "surface:glass": "opacity < 1 over two or more drawing layers"}
    # The photo's drop shadow falls below it (in the page colour's darker shade).
    assert img[262, 600, 0] < 0xF4 and img[262, 600, 3] == 255


def test_info_cli(gl, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert gl.info.renderer in out and "GL_MAX_TEXTURE_SIZE" in out
    assert main(["info", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["renderer"] == gl.info.renderer


def test_explain_cli_json(gl, capsys):
    assert main(["explain", str(SHOWCASE), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    reasons = {p["reason"] for p in report["graph"]["passes"]}
    assert "opacity < 1 over two or more drawing layers" in reasons


def test_bad_style_exits_2_with_one_line(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"width": 10, "height": 10, "layers": [{"id": "a", "style": "opacity: red"}]}))
    assert main(["render", str(path), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "$.layers[0].style" in err and "column 10" in err and "opacity" in err
    assert not (tmp_path / "x.png").exists(), "nothing half-rendered is written"


def test_missing_image_exits_2(gl, tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"width": 10, "height": 10, "layers": [{"id": "pic", "box": [0, 0, 5, 5], "style": "background: url(gone.png)"}]}))
    assert main(["render", str(path)]) == 2
    err = capsys.readouterr().err
    assert "pic" in err and "gone.png" in err and "Traceback" not in err


def test_internal_error_exits_1_with_traceback(monkeypatch, tmp_path, capsys):
    import lamina.scene

    def boom(self, renderer=None, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(lamina.scene.Scene, "render", boom)
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"width": 10, "height": 10}))
    assert main(["render", str(path)]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" in err and "simulated bug" in err


def test_frame_outputs(gl, tmp_path):
    scene = Scene(30, 20, "rgb(0 0 255 / 50%)")
    frame = scene.render(gl)
    assert tuple(frame.image[0, 0]) == (0, 0, 255, 128)
    assert tuple(frame.premultiplied[0, 0]) == (0, 0, 128, 128)
    pil = frame.to_pil()
    assert pil.size == (30, 20) and pil.mode == "RGBA"
    path = frame.save(tmp_path / "f.png")
    assert np.array_equal(np.asarray(Image.open(path)), frame.image)
    assert "Frame 30x20" in frame.explain()


def test_incremental_changes_render_new_frames(gl):
    scene = Scene(100, 100, "white")
    card = scene.root.add(Layer("card", (25, 25, 50, 50), "background: black"))
    first = scene.render(gl).image.copy()
    card.style["transform"] = "rotate(45deg)"
    second = scene.render(gl).image
    assert tuple(second[27, 27]) == (255, 255, 255, 255) and tuple(first[27, 27]) == (0, 0, 0, 255)
    card.style["background-color"] = "red"
    card.style["background"] = "lime"  # the shorthand written last wins
    assert tuple(scene.render(gl).image[50, 50]) == (0, 255, 0, 255)
    card.box = (0, 0, 10, 10)
    img = scene.render(gl).image
    assert tuple(img[50, 50]) == (255, 255, 255, 255)


def test_root_with_gradient_background_rasters_a_pass(gl):
    scene = Scene(10, 10, "white")
    scene.root.style["background"] = "linear-gradient(black, black)"
    frame = scene.render(gl)
    assert [p.layer_id for p in frame.graph.raster_passes()] == ["root"]
    assert np.all(frame.image[..., :3] == 0)


def test_no_new_programs_after_warm_up(gl):
    scene = Scene(64, 64, "white")
    a = scene.root.add(Layer("a", (0, 0, 40, 40), "background: linear-gradient(red, blue); opacity: .5"))
    a.add(Layer("b", (10, 10, 20, 20), "background: radial-gradient(red, blue); overflow: hidden"))
    scene.render(gl)
    before = gl.compiles
    for i in range(10):
        a.style["transform"] = f"rotate({i * 7}deg)"
        a.style["opacity"] = str(0.1 + i / 20)
        scene.render(gl)
    assert gl.compiles == before, "animating parameters must not compile programs"


def test_texture_pool_reuses_across_frames(gl):
    scene = Scene(64, 64, "white")
    group = scene.root.add(Layer("g", (0, 0, 64, 64), "opacity: .5"))
    group.add(Layer("a", (0, 0, 32, 32), "background: red"))
    group.add(Layer("b", (16, 16, 32, 32), "background: blue"))
    scene.render(gl, policy="all")
    frame = scene.render(gl, policy="all")
    assert frame.stats.textures_allocated == 0, "the second frame allocates nothing"
    assert frame.graph.raster_passes() == [], "layer rasters are kept"
    assert len([n for n in frame.graph.reused if n.startswith("layer:")]) == 2 and "frame" in frame.graph.reused
    # The opacity group's surface is remade each frame (from the pool), but the frame's
    # draws did not change: it is not redrawn, so the surface is not needed at all.
    (frame_pass,) = [p for p in frame.graph.composite_passes() if p.target.name == "frame"]
    assert frame_pass.damage is not None


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_internal_error(tmp_path):
    import subprocess
    import sys

    scene = Path(__file__).resolve().parents[2] / "demos" / "showcase" / "showcase.json"
    proc = subprocess.Popen([sys.executable, "-m", "lamina", "explain", str(scene)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path)
    proc.stdout.close()  # the reader is gone before Lamina writes (as `| head` after its lines)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and "internal error" not in err and "Traceback" not in err


def test_frame_shows_inline_in_notebooks(gl):
    scene = Scene(6, 4, background="white")
    scene.root.add(Layer("a", box=(0, 0, 3, 4), style="background: rgb(255 0 0 / 50%)"))
    frame = scene.render(gl)
    with Image.open(io.BytesIO(frame._repr_png_())) as png:
        assert np.array_equal(np.asarray(png.convert("RGBA")), frame.image)
