"""Texture captures rendered (capture_textures=True, ``lamina render --dump-textures``):
what each layer raster, backing and render surface holds, read back straight, top row
first, checked against values computed here from the styles; the frame itself is the
same with captures or without; kept textures drawn again are captured on later frames."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from PIL import Image

from lamina import FrameRequest, Layer, Scene
from lamina.cli import main
from lamina.framegraph import TaskKind, TextureRole
from tests.trace_check import check_trace, work_events


def _by_source(frame) -> dict[str, np.ndarray]:
    """The frame's captures by texture name (the labels say whose in words)."""
    labels = {p.label: p.source.name for p in frame.graph.passes if p.kind is TaskKind.CAPTURE}
    assert set(labels) == set(frame.textures), "one capture per capture pass, by its label"
    return {labels[label]: pixels for label, pixels in frame.textures.items()}


def _one(textures: dict[str, np.ndarray], prefix: str) -> np.ndarray:
    (found,) = [v for k, v in textures.items() if k.startswith(prefix)]
    return found


def test_solid_layers_hold_their_colour_over_their_box(fresh):
    scene = Scene(120, 90, "white")
    scene.root.add(Layer("red", (10, 10, 40, 30), "background: rgb(200, 30, 60)"))
    scene.root.add(Layer("half", (60, 20, 50, 40), "background: rgba(0, 0, 255, 0.5); will-change: transform"))
    frame = scene.render(fresh, capture_textures=True)
    textures = _by_source(frame)
    red, half = _one(textures, "layer:red"), _one(textures, "layer:half")
    assert red.shape == (30, 40, 4) and red.dtype == np.uint8
    assert np.all(red == (200, 30, 60, 255)), "opaque: the colour, exactly, over the whole box"
    assert half.shape == (40, 50, 4)
    # Straight alpha, as frame.image: the colour stays itself and alpha is 0.5 of 255.
    assert np.all(half[..., :3] == (0, 0, 255)) and np.all(np.abs(half[..., 3].astype(int) - 128) <= 1)
    # The frame shows the same colour where the layer is.
    assert np.all(frame.image[10:40, 10:50] == (200, 30, 60, 255))


def test_rows_come_top_row_first():
    scene = Scene(60, 80, "white")
    scene.root.add(Layer("grad", (0, 0, 40, 64), "background: linear-gradient(rgb(255, 0, 0), rgb(0, 0, 255))"))
    frame = scene.render(capture_textures=True)
    grad = _one(_by_source(frame), "layer:grad")
    assert grad[0, :, 0].min() > 240 and grad[0, :, 2].max() < 15, "row 0 is the top: red"
    assert grad[-1, :, 2].min() > 240 and grad[-1, :, 0].max() < 15, "the last row is the bottom: blue"
    np.testing.assert_array_equal(grad, frame.image[0:64, 0:40], "as the frame shows it, opaque and unmoved")


def test_a_filter_surface_holds_the_input_and_the_result_the_filtered_pixels(fresh):
    scene = Scene(100, 80, "white")
    scene.root.add(Layer("f", (10, 10, 50, 40), "background: rgb(200, 50, 10); filter: invert(1)"))
    frame = scene.render(fresh, capture_textures=True)
    surfaces = [p for p in frame.graph.passes if p.kind is TaskKind.CAPTURE and p.source.role is TextureRole.RENDER_SURFACE]
    results = [p for p in frame.graph.passes if p.kind is TaskKind.CAPTURE and p.source.role is TextureRole.FILTER_OUTPUT]
    assert len(surfaces) == len(results) == 1 and surfaces[0].layer_id == results[0].layer_id == "f"
    surface, result = frame.textures[surfaces[0].label], frame.textures[results[0].label]
    # The surface holds the layer before the filter; the result, each channel inverted.
    assert np.all(surface == (200, 50, 10, 255))
    assert np.all(result == (255 - 200, 255 - 50, 255 - 10, 255))
    assert np.all(frame.image[10:50, 10:60] == (55, 205, 245, 255))


def test_a_blur_result_is_what_the_frame_draws():
    scene = Scene(120, 100, "rgb(255, 255, 255)")
    scene.root.add(Layer("b", (30, 30, 40, 30), "background: rgb(0, 128, 0); filter: blur(4px)"))
    frame = scene.render(capture_textures=True)
    (result,) = [p for p in frame.graph.passes if p.kind is TaskKind.CAPTURE and p.source.role is TextureRole.FILTER_OUTPUT]
    pixels = frame.textures[result.label].astype(float) / 255
    (draw,) = [d for p in frame.graph.composite_passes() if p.target.name == "frame" for d in p.draws]
    assert draw.transform.is_translation()
    x, y = int(draw.transform.e), int(draw.transform.f)
    h, w = pixels.shape[:2]
    # Straight RGBA over the white page, source-over: what the frame shows there.
    over = pixels[..., :3] * pixels[..., 3:] + (1 - pixels[..., 3:])
    shown = frame.image[y:y + h, x:x + w, :3].astype(float) / 255
    assert np.abs(over - shown).max() <= 2 / 255
    alpha = pixels[..., 3]
    assert alpha[h // 2, w // 2] == 1.0 and alpha[h // 2, 0] < 0.05, "blurred: solid inside, next to nothing at the edge"
    assert np.any((alpha > 0.2) & (alpha < 0.8)), "and a ramp between"


def test_an_opacity_group_surface_holds_its_layers_unfaded(fresh):
    scene = Scene(140, 100, "white")
    g = scene.root.add(Layer("g", (20, 20, 100, 60), "background: rgb(0, 255, 0); opacity: .5"))
    g.add(Layer("g1", (10, 10, 20, 20), "background: rgb(0, 0, 255)"))
    frame = scene.render(fresh, policy="all", capture_textures=True)
    (surface,) = [p for p in frame.graph.passes if p.kind is TaskKind.CAPTURE and p.source.role is TextureRole.RENDER_SURFACE]
    assert surface.layer_id == "g"
    pixels = frame.textures[surface.label]
    assert pixels.shape == (60, 100, 4)
    assert np.all(pixels[10:30, 10:30] == (0, 0, 255, 255)), "the child over its parent, flattened"
    assert np.all(pixels[40:, :] == (0, 255, 0, 255)) and np.all(pixels[:, 40:] == (0, 255, 0, 255))
    # The fade is the surface's draw: the frame shows half of it over white.
    assert np.all(np.abs(frame.image[70, 100, :3].astype(int) - (128, 255, 128)) <= 1)


def test_kept_textures_drawn_again_are_captured_on_later_frames(fresh):
    scene = Scene(120, 80, "white")
    scene.root.add(Layer("still", (10, 10, 30, 30), "background: rgb(10, 20, 30)"))
    mover = scene.root.add(Layer("mover", (50, 10, 30, 30), "background: rgb(250, 200, 0); will-change: transform"))
    first = scene.render(fresh)  # nothing captured: kept textures come from a frame without captures
    assert first.textures == {}
    mover.style["transform"] = "translate(20px, 20px)"
    second = scene.render(fresh, capture_textures=True)
    captured = {p.source.name: p for p in second.graph.passes if p.kind is TaskKind.CAPTURE}
    rastered = {p.target.name for p in second.graph.raster_passes()}
    kept = [name for name in captured if name in second.graph.reused and name not in rastered]
    assert kept, "this frame draws textures it reuses, and captures them"
    for name in kept:
        colour = (250, 200, 0, 255) if captured[name].layer_id == "mover" else (10, 20, 30, 255)
        assert np.all(second.textures[captured[name].label] == colour)
    # The frame is the same as one rendered without captures.
    mover.style["transform"] = "translate(21px, 20px)"
    third = scene.render(fresh, capture_textures=True)
    fourth = scene.render(fresh)
    np.testing.assert_array_equal(third.image, fourth.image)
    assert fourth.textures == {}


def test_captures_change_no_pixel_and_plan_as_they_render(fresh):
    scene = Scene(160, 120, "white")
    scene.root.add(Layer("a", (10, 10, 60, 40), "background: red; filter: blur(3px) sepia(.5)"))
    scene.root.add(Layer("b", (30, 30, 60, 40), "background: blue; opacity: .5; mix-blend-mode: multiply"))
    scene.root.add(Layer("c", (90, 60, 40, 30), "background: #fff; box-shadow: 0 4px 8px rgb(0 0 0 / 50%); "
                                                "clip-path: polygon(0 0, 40px 0, 0 30px)"))
    request = FrameRequest(capture_textures=True)
    planned = scene.plan(fresh, request)
    frame = scene.render(fresh, request)
    assert planned.to_dict() == frame.graph.to_dict() and planned.describe() == frame.graph.describe()
    fresh.drop_caches()
    plain = scene.render(fresh)
    np.testing.assert_array_equal(frame.image, plain.image)
    assert len(frame.textures) == sum(p.kind is TaskKind.CAPTURE for p in frame.graph.passes) > 4
    trace = frame.trace()
    check_trace(trace)
    lanes = {e["name"]: e["tid"] for e in work_events(trace)}
    assert all(lanes[p.name] == lanes["readback"] for p in frame.graph.passes if p.kind is TaskKind.CAPTURE)
    assert "capture   " in frame.explain()


SCENE = {"width": 120, "height": 80, "background": "white",
         "layers": [{"id": "a", "box": [10, 10, 40, 30], "style": "background: rgb(255, 0, 0); filter: blur(2px)"},
                    {"id": "b", "box": [60, 20, 40, 30], "style": "background: rgb(0, 0, 255); will-change: transform"}]}


def test_cli_dumps_one_png_per_texture(gl, tmp_path, capsys):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(SCENE))
    folder = tmp_path / "textures"
    folder.mkdir()
    out = tmp_path / "out.png"
    assert main(["render", str(path), "-o", str(out), "--dump-textures", str(folder)]) == 0
    assert "wrote 4 texture(s)" in capsys.readouterr().out
    names = sorted(p.name for p in folder.iterdir())
    # (kept textures are numbered by the renderer: the numbers depend on earlier frames)
    patterns = [r"01-layer_a_\d+_layer_content_of_a\.png", r"02-surface_a_render_surface_of_a\.png",
                r"03-filter_a_\d+_filter_output_of_a\.png", r"04-layer_b_\d+_layer_content_of_b\.png"]
    assert len(names) == 4 and all(re.fullmatch(p, n) for p, n in zip(patterns, names)), names
    layer_b = np.asarray(Image.open(folder / names[3]).convert("RGBA"))
    assert layer_b.shape == (30, 40, 4) and np.all(layer_b == (0, 0, 255, 255))
    assert np.all(np.asarray(Image.open(folder / names[0]).convert("RGBA")) == (255, 0, 0, 255))
    assert Image.open(out).size == (120, 80)
    # Without the flag nothing is captured: the graph has no capture pass.
    assert main(["render", str(path), "-o", str(out), "--explain"]) == 0
    assert "capture   " not in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["missing", "file.png"])
def test_cli_refuses_a_bad_texture_folder(gl, tmp_path, capsys, bad):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(SCENE))
    (tmp_path / "file.png").write_bytes(b"")
    out = tmp_path / "out.png"
    assert main(["render", str(path), "-o", str(out), "--dump-textures", str(tmp_path / bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lamina: error: cannot write textures into") and "Traceback" not in err
    assert ("folder does not exist" if bad == "missing" else "it is not a folder") in err
    assert not out.exists(), "refused before rendering"


def test_save_textures_writes_whole_files(fresh, tmp_path):
    scene = Scene(40, 30, "white")
    scene.root.add(Layer("x", (5, 5, 10, 10), "background: rgb(1, 2, 3)"))
    frame = scene.render(fresh, capture_textures=True)
    (path,) = frame.save_textures(tmp_path)
    assert re.fullmatch(r"01-layer_x(_\d+)?_layer_content_of_x\.png", path.name), path.name
    assert [p.name for p in tmp_path.iterdir()] == [path.name], "no part file left behind"
    assert np.all(np.asarray(Image.open(path).convert("RGBA")) == (1, 2, 3, 255))
