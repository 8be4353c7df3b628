"""Debug overlays drawn from the frame graph."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene
from lamina.cli import main
from lamina.errors import InvalidValueError
from lamina.overlays import LEGENDS, OVERLAYS, overdraw_counts



def two_boxes() -> Scene:
    scene = Scene(100, 80, "white")
    scene.root.add(Layer("a", (10, 10, 40, 40), "background: red"))
    scene.root.add(Layer("b", (30, 30, 40, 40), "background: blue"))
    return scene


def test_overdraw_counts_draws_per_pixel(fresh):
    counts = overdraw_counts(two_boxes().render(fresh, policy="all").graph)
    assert counts[40, 40] == 2 and counts[15, 15] == 1 and counts[65, 65] == 1 and counts[5, 5] == 0
    img = two_boxes().render(fresh, policy="all").overlay("overdraw")
    assert not np.array_equal(img[40, 40], img[15, 15]), "two draws are hotter than one"


def test_paint_flashing_shows_only_what_was_rastered(fresh):
    scene = two_boxes()
    first = scene.render(fresh, policy="all").overlay("paint")
    assert first[15, 15, 1] > first[15, 15, 2] + 60, "first frame: everything flashes green"
    scene["b"].style["background-color"] = "black"
    frame = scene.render(fresh, policy="all")
    img = frame.overlay("paint")
    assert np.array_equal(img[15, 15], frame.image[15, 15]), "a was reused: no flash"
    assert tuple(img[65, 30, :3]) == (0, 255, 0), "b was rastered again: it is outlined in the flash colour"
    # ... and tinted lightly, so what it shows stays visible: 3/4 of b's own colour.
    assert tuple(img[65, 65, :3]) == (0, 63, 0) and tuple(frame.image[65, 65, :3]) == (0, 0, 0)


def test_paint_flashing_keeps_the_content_visible(fresh):
    """A repainted red card stays red under the flash (at half and half it read as solid
    green, hiding a colour animation)."""
    frame = two_boxes().render(fresh, policy="all")
    img = frame.overlay("paint")
    r, g, b = (int(c) for c in img[15, 15, :3])
    assert (r, g, b) == (191, 63, 0) and r > g, "red stays the main colour of a painted red box"
    # Under the browser policy box a is rastered, then its backing painted: two painted
    # quads over one pixel still tint it once.
    frame = two_boxes().render(fresh)
    assert {p.kind for p in frame.graph.passes} >= {"raster", "composite"}
    assert tuple(frame.overlay("paint")[15, 15, :3]) == (191, 63, 0)


def test_every_overlay_has_a_legend():
    assert set(LEGENDS) == set(OVERLAYS)
    assert any("repainted this frame" in text for _, text in LEGENDS["paint"])
    for kind, entries in LEGENDS.items():
        assert entries and all(len(colour) == 3 and ":" in text for colour, text in entries), kind


def test_borders_outline_layers_and_surfaces(fresh):
    scene = two_boxes()
    group = scene.root.add(Layer("g", (0, 0, 100, 80), "opacity: .5"))
    group.add(Layer("c", (75, 5, 20, 20), "background: red"))
    group.add(Layer("d", (80, 10, 10, 10), "background: blue"))
    frame = scene.render(fresh)
    borders = frame.overlay("borders")
    assert tuple(borders[30, 10, :3]) == (0, 200, 0), "layer a's left edge"
    surfaces = frame.overlay("surfaces")
    assert tuple(surfaces[5, 75, :3]) == (40, 110, 255), "the opacity group's surface"
    assert np.array_equal(surfaces[40, 40], frame.image[40, 40]), "no surface there"


def test_unknown_overlay_is_a_typed_error(fresh):
    with pytest.raises(InvalidValueError):
        two_boxes().render(fresh).overlay("xray")


def test_cli_overlay(tmp_path, gl):
    import json

    scene = tmp_path / "s.json"
    scene.write_text(json.dumps({"width": 40, "height": 30, "layers": [{"id": "a", "box": [5, 5, 20, 10], "style": "background: red"}]}))
    out = tmp_path / "o.png"
    assert main(["render", str(scene), "-o", str(out), "--overlay", "borders"]) == 0
    img = np.asarray(Image.open(out).convert("RGBA"))
    assert tuple(img[10, 5, :3]) == (0, 200, 0)


def test_raster_scale_overlay_outlines_scaled_layers_by_why_and_labels_their_scale(fresh):
    """A layer under scale(3) is outlined green (ideal) with "3x" written at its corner;
    an animated one, yellow (its scale fixed); an unscaled layer is not outlined."""
    scene = Scene(200, 120, "white")
    scene.root.add(Layer("still", (10, 10, 20, 10), "background: #ddd; transform-origin: 0 0; transform: scale(3)"))
    moving = scene.root.add(Layer("moving", (110, 10, 20, 10), "background: #ddd; transform-origin: 0 0"))
    moving.animate({"from": {"transform": "scale(1)"}, "to": {"transform": "scale(2)"}}, duration=1)
    scene.root.add(Layer("plain", (10, 80, 40, 20), "background: #ddd"))
    frame = scene.render(fresh, t=0.5)
    img = frame.overlay("raster-scale")
    assert tuple(img[10, 40, :3]) == (0, 200, 0), "the static scaled layer's top edge is green"
    label = img[12:24, 12:30, :3].astype(int)
    assert ((label[..., 1] > label[..., 0] + 60) & (label[..., 1] > label[..., 2] + 60)).sum() > 5, \
        "its label is written in green"
    assert (img[12:40, 112:150, :3] == (230, 190, 0)).all(-1).any(), "the animated one is outlined yellow"
    assert np.array_equal(img[80:100, 10:50], frame.image[80:100, 10:50]), "an unscaled layer is left alone"


def test_raster_scale_overlay_outlines_scaled_layers_on_frames_that_reuse_their_rasters(fresh):
    """On a frame that re-rasters nothing (its rasters and backings kept), every scaled
    layer is still outlined, where it is on that frame: a static one painted into the
    page's kept backing (this frame draws only the backing), and one whose transform
    animation moves it at the position of that frame."""
    scene = Scene(200, 120, "white")
    scene.root.add(Layer("still", (10, 10, 20, 10), "background: #ddd; transform-origin: 0 0; transform: scale(3)"))
    scene.root.add(Layer("plain", (10, 80, 40, 20), "background: #ddd"))  # shares the page's backing
    moving = scene.root.add(Layer("moving", (100, 60, 20, 10), "background: #ddd; transform-origin: 0 0"))
    moving.animate({"from": {"transform": "translate(0px, 0px) scale(2)"},
                    "to": {"transform": "translate(40px, 0px) scale(2)"}}, duration=1)
    scene.render(fresh, t=0.0)
    frame = scene.render(fresh, t=0.5)
    assert not [p for p in frame.graph.raster_passes() if p.layer_id in ("still", "moving")], "both rasters kept"
    assert [p.name for p in frame.graph.passes] == ["composite:frame"], "the page's backing is kept"
    img = frame.overlay("raster-scale")
    assert tuple(img[10, 40, :3]) == (0, 200, 0), "the static scaled layer's top edge is green"
    # At t=0.5 the moving layer's box is 40x20 at (120, 60): its top edge is yellow there.
    assert tuple(img[60, 140, :3]) == (230, 190, 0), "the moving one is outlined where it is now"
    assert tuple(img[60, 105, :3]) != (230, 190, 0), "not where it was when rastered"
