"""Text on the GPU: pixels of rendered text checked against independently computed
places (FreeType's metrics of the glyph, CSS's line-box rule), shadows against the
Gaussian they must be (mass kept, centroid moved by the offset, variance grown by
sigma² with sigma = blur / 2), and the frame graph: moving or fading text re-rasters
nothing, new text or a new colour re-rasters that layer only."""

from __future__ import annotations

import freetype
import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.cli import main
from lamina.tiling import Tiling
from lamina.style.text import FontFamily, FontStyle
from lamina.text.fonts import resolve_families

pytestmark = pytest.mark.gl

SANS = "font-family: 'DejaVu Sans'"



def rastered(frame) -> list[str]:
    return sorted(p.layer_id for p in frame.graph.raster_passes())


def glyph_box(char: str, size: float, line_height: float) -> tuple[float, float, float, float]:
    """(x, y, w, h) of ``char``'s ink in its layer's content box, from FreeType's
    unhinted metrics and Blink's line-box rule (baseline = the half-leading floored to a
    whole px + the rounded ascent)."""
    path = resolve_families((FontFamily("DejaVu Sans"),), 400.0, FontStyle()).primary.file.path
    face = freetype.Face(path)
    face.set_char_size(int(size * 64))
    face.load_char(char, freetype.FT_LOAD_NO_HINTING)
    m = face.glyph.metrics
    k = size / face.units_per_EM
    ascent, descent = round(face.ascender * k), round(-face.descender * k)
    baseline = (line_height - ascent - descent) // 2 + ascent
    return (m.horiBearingX / 64, baseline - m.horiBearingY / 64, m.width / 64, m.height / 64)


def letter_i_scene(style: str = "", *, background: str = "white") -> tuple[Scene, tuple[int, int]]:
    scene = Scene(160, 120, background=background)
    scene.root.add(Layer("t", (20, 10, 120, 100), f"{SANS}; font-size: 80px; line-height: 100px; {style}", text="I"))
    x, y, w, h = glyph_box("I", 80.0, 100.0)
    return scene, (int(20 + x + w / 2), int(10 + y + h / 2))


def test_text_colour_fills_the_glyph_and_nothing_else(gl):
    scene, (cx, cy) = letter_i_scene("color: rgb(20, 120, 200)")
    image = scene.render(gl).image
    assert tuple(image[cy, cx]) == (20, 120, 200, 255), "the stem of the I"
    x, y, w, h = glyph_box("I", 80.0, 100.0)
    left = int(20 + x) - 4
    assert tuple(image[cy, left]) == (255, 255, 255, 255), "left of the stem"
    assert tuple(image[int(10 + y) - 4, cx]) == (255, 255, 255, 255), "above the stem"
    ink = np.argwhere((image[:, :, :3] != 255).any(axis=2))
    (y0, x0), (y1, x1) = ink.min(axis=0), ink.max(axis=0)
    # The ink lies within a pixel of FreeType's box (anti-aliased edges, light hinting).
    assert abs(x0 - (20 + x)) <= 1.5 and abs(x1 + 1 - (20 + x + w)) <= 1.5
    assert abs(y0 - (10 + y)) <= 1.5 and abs(y1 + 1 - (10 + y + h)) <= 1.5


def test_translucent_text_is_premultiplied_over_the_background(gl):
    scene, (cx, cy) = letter_i_scene("color: rgba(0, 0, 255, 0.5); background: rgb(255, 255, 0)")
    r, g, b, a = (int(v) for v in scene.render(gl).image[cy, cx])
    # co = cs + cb (1 - as) with cs = (0, 0, 0.5), cb = (1, 1, 0), as = 0.5
    assert a == 255 and abs(r - 128) <= 1 and abs(g - 128) <= 1 and abs(b - 128) <= 1


def test_text_paints_over_the_background_and_border_inside_the_border(gl):
    scene = Scene(220, 200, background="white")
    scene.root.add(Layer("t", (10, 10, 200, 180), f"{SANS}; font-size: 80px; line-height: 100px; color: black;"
                         " background: red; border: 30px solid blue", text="I"))
    x, y, w, h = glyph_box("I", 80.0, 100.0)
    image = scene.render(gl).image
    cx, cy = int(10 + 30 + x + w / 2), int(10 + 30 + y + h / 2)  # the content box starts inside the border
    assert tuple(image[cy, cx]) == (0, 0, 0, 255)
    assert tuple(image[cy, int(10 + 30 + x) - 3]) == (255, 0, 0, 255)


def test_text_overflowing_its_box_is_clipped_to_the_box(gl):
    scene = Scene(200, 80, background="white")
    scene.root.add(Layer("t", (40, 20, 60, 30), f"{SANS}; font-size: 24px; white-space: nowrap; color: black",
                         text="A line much longer than its box, and more"))
    image = scene.render(gl).image
    inside = np.zeros(image.shape[:2], bool)
    inside[20:50, 40:100] = True
    assert (image[inside][:, :3] != 255).any(), "some text is drawn"
    assert (image[~inside] == 255).all(), "nothing outside the box"


def test_text_shadow_is_offset_and_under_the_text(gl):
    scene, (cx, cy) = letter_i_scene("color: black; text-shadow: rgb(255, 0, 0) 30px 0")
    image = scene.render(gl).image
    assert tuple(image[cy, cx]) == (0, 0, 0, 255)
    assert tuple(image[cy, cx + 30]) == (255, 0, 0, 255)
    both, _ = letter_i_scene("color: black; text-shadow: rgb(255, 0, 0) 2px 0, rgb(0, 255, 0) 2px 0")
    # The first shadow paints on top of the second; the text on top of both.
    assert tuple(both.render(gl).image[cy, cx + 2]) == (0, 0, 0, 255)
    (x, y, w, h) = glyph_box("I", 80.0, 100.0)
    edge = int(20 + x + w) + 1
    assert tuple(both.render(gl).image[cy, edge]) == (255, 0, 0, 255)


def _moments(alpha: np.ndarray) -> tuple[float, float, float, float]:
    a = alpha.astype(np.float64) / 255.0
    ys, xs = np.indices(a.shape)
    mass = a.sum()
    mx, my = (a * xs).sum() / mass, (a * ys).sum() / mass
    return mass, mx, my, (a * (xs - mx) ** 2).sum() / mass


def test_blurred_shadow_is_a_gaussian_of_half_the_blur_radius(gl):
    sharp, _ = letter_i_scene("color: transparent; text-shadow: black 0 0", background="transparent")
    soft, _ = letter_i_scene("color: transparent; text-shadow: black 5px 3px 8px", background="transparent")
    m0, x0, y0, v0 = _moments(sharp.render(gl).image[:, :, 3])
    m1, x1, y1, v1 = _moments(soft.render(gl).image[:, :, 3])
    assert m1 == pytest.approx(m0, rel=0.03), "a blur keeps the mass"
    assert (x1 - x0, y1 - y0) == (pytest.approx(5.0, abs=0.3), pytest.approx(3.0, abs=0.3))
    assert v1 - v0 == pytest.approx(4.0**2, rel=0.12), "sigma = blur radius / 2"


def test_moving_or_fading_text_re_rasters_nothing(fresh):
    scene = Scene(300, 200, background="white")
    card = scene.root.add(Layer("card", (10, 10, 200, 80), f"background: #eef; {SANS}; color: #333; font-size: 15px",
                                text="Moving text is composited, not painted again."))
    card.animate({"from": {"transform": "translate(0px, 0px)", "opacity": "1"},
                  "to": {"transform": "translate(60px, 90px)", "opacity": "0.4"}}, duration=2.0)
    first = scene.render(fresh, t=0.0)
    assert "card" in rastered(first)
    images = [first.image.copy()]
    for i in range(1, 6):
        frame = scene.render(fresh, t=i / 5)
        assert rastered(frame) == [], f"frame {i} re-rastered {rastered(frame)}"
        images.append(frame.image.copy())
    assert not np.array_equal(images[0], images[-1])


def test_new_text_or_colour_re_rasters_only_that_layer(fresh):
    scene = Scene(200, 100, background="white")
    scene.root.add(Layer("a", (0, 0, 100, 50), f"{SANS}; background: #fee", text="a"))
    b = scene.root.add(Layer("b", (100, 0, 100, 50), f"{SANS}; background: #efe", text="b"))
    scene.render(fresh, policy="all")
    b.text = "bee"
    assert rastered(scene.render(fresh, policy="all")) == ["b"]
    b.style["color"] = "red"
    assert rastered(scene.render(fresh, policy="all")) == ["b"]
    assert rastered(scene.render(fresh, policy="all")) == []


def test_inherited_text_style_renders_like_the_same_style_written_on_the_layer(gl):
    style = f"{SANS}; color: rgb(200, 30, 30); font-size: 19px; font-weight: bold; line-height: 1.4; text-align: center"
    text = "Inherited, or written on the layer: the same pixels."
    inherited = Scene(240, 120, background="white")
    parent = inherited.root.add(Layer("p", (0, 0, 240, 120), style))
    parent.add(Layer("t", (10, 10, 220, 100), text=text))
    written = Scene(240, 120, background="white")
    written.root.add(Layer("p", (0, 0, 240, 120)))
    written["p"].add(Layer("t", (10, 10, 220, 100), style, text=text))
    a, b = inherited.render(gl).image, written.render(gl).image
    assert (a[:, :, :3] != 255).any()
    np.testing.assert_array_equal(a, b)


def test_a_colour_change_reuses_the_coverage_mask(fresh):
    scene = Scene(120, 60, background="white")
    layer = scene.root.add(Layer("t", (0, 0, 120, 60), SANS, text="mask"))
    scene.render(fresh)
    made = fresh.executor.text.masks_made
    layer.style["color"] = "blue"
    scene.render(fresh)
    assert fresh.executor.text.masks_made == made


def test_cli_missing_font_exits_1_with_one_line_naming_where(tmp_path, capsys):
    path = tmp_path / "scene.json"
    path.write_text('{"width": 50, "height": 20, "layers": [{"id": "t", "box": [0, 0, 50, 20], '
                    '"style": "font-family: No Such Family Lamina", "text": "hi"}]}')
    assert main(["render", str(path), "-o", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "$.layers[0]" in err and "layer 't'" in err and "font-family" in err and "install" in err
    assert not (tmp_path / "x.png").exists()


def test_a_tiled_text_layer_matches_the_untiled_one(fresh):
    """Each tile rasters its own part of the text (and of the shadows' reach)."""
    scene = Scene(300, 400, background="white")
    scene.root.add(Layer("t", (7, 5, 280, 390), f"{SANS}; font-size: 17px; line-height: 1.4; color: #124;"
                         " text-shadow: 3px 2px 2px rgb(200 0 0 / 60%), -2px 0 #0a0; background: #ffe",
                         text=" ".join(["Tiles raster their own part of a text layer."] * 30)))
    whole = scene.render(fresh, policy="all").image.astype(int)
    fresh.drop_caches()
    tiled_frame = scene.render(fresh, policy="all", tiling=Tiling(tile_size=64, threshold=128))
    assert any(p.origin != (0, 0) for p in tiled_frame.graph.raster_passes()), "the layer is tiled"
    tiled = tiled_frame.image.astype(int)
    assert np.abs(whole - tiled).max() <= 2


def test_text_moving_by_fractions_of_a_pixel_re_rasters_nothing(gl):
    # A running transform animation moves the layer: it is sampled, not rastered anew
    # at each sub-pixel phase (graph.planner Planner._moving).
    from lamina import Layer, Scene

    scene = Scene(320, 120, "white")
    card = scene.root.add(Layer("words", (10.25, 20.5, 280, 60), "font-size: 18px; color: #123",
                                text="Sampled while it moves, rastered once."))
    card.animate({"from": {"transform": "translateX(0px)"}, "to": {"transform": "translateX(37px)"}}, duration=1)
    scene.render(gl, t=0.0)
    for t in (0.013, 0.27, 0.5, 0.731):
        frame = scene.render(gl, t=t)
        assert frame.graph.raster_passes() == [], t
