"""Text layout: white-space processing, line breaking, alignment, baselines, fonts.

Expected positions are computed independently of the layout code: from synthetic
advances for the pure line breaker, and from FreeType's unscaled advances and the
font's vertical metrics (read with FreeType, while the layout shapes with HarfBuzz)
for DejaVu Sans Mono, whose every glyph has the same advance. Needs fontconfig and
the DejaVu fonts (``.ci/setup`` installs them); no GPU."""

from __future__ import annotations

import freetype
import numpy as np
import pytest

from lamina import Layer, Scene, load_scene
from lamina.errors import FontUnavailableError, LaminaEnvironmentError, SceneFileError, UnsupportedFeatureError
from lamina.style.text import FontFamily, FontStyle, LineHeight
from lamina.text import fonts as text_fonts
from lamina.text.layout import TextSpec, align_offset, break_lines, lay_out, process_white_space

MONO = (FontFamily("DejaVu Sans Mono"),)


def mono_file() -> str:
    return text_fonts.resolve_families(MONO, 400.0, FontStyle()).primary.file.path


def mono_advance(size: float) -> float:
    """One character's advance in px, from FreeType's unscaled horizontal metrics."""
    face = freetype.Face(mono_file())
    face.load_char("M", freetype.FT_LOAD_NO_SCALE)
    return face.glyph.advance.x * size / face.units_per_EM


def mono_metrics(size: float) -> tuple[float, float]:
    face = freetype.Face(mono_file())
    k = size / face.units_per_EM
    return float(round(face.ascender * k)), float(round(-face.descender * k))


def spec(text: str, width: float, *, size: float = 20.0, align: str = "start", spacing: float = 0.0,
         white_space: str = "normal", line_height: LineHeight = LineHeight("px", 30.0),
         families=MONO) -> TextSpec:
    return TextSpec(text, families, size, 400.0, FontStyle(), line_height, align, spacing, white_space, width)


# -- white space -----------------------------------------------------------------------


@pytest.mark.parametrize("mode, text, paragraphs", [
    ("normal", "  a   b\n\tc  ", ["a b c "]),
    ("normal", " \n\t ", []),
    ("nowrap", "a \n b", ["a b"]),
    ("pre-line", "  a   b \n  c\n\nd", ["a b", "c", "", "d"]),
    ("pre", "  a\tb \n c", ["  a\tb ", " c"]),
    ("pre-wrap", "a\r\nb\rc", ["a", "b", "c"]),
    ("pre", "", [""]),
])
def test_white_space_processing(mode, text, paragraphs):
    assert process_white_space(text, mode) == paragraphs


# -- line breaking and alignment (pure) ------------------------------------------------


@pytest.mark.parametrize("text, available, lines", [
    ("aa bb cc", 50.0, [(0, 6), (6, 8)]),  # "aa bb" ends at 50: fits exactly
    ("aa bb cc", 49.0, [(0, 3), (3, 6), (6, 8)]),
    ("aa bb cc", 80.0, [(0, 8)]),
    ("aaaaaaa b", 30.0, [(0, 8), (8, 9)]),  # a word longer than the line overflows it
    ("aa   bb", 20.0, [(0, 5), (5, 7)]),  # trailing spaces hang: they never force a break
    ("a\u200bbbbb", 20.0, [(0, 2), (2, 6)]),  # a zero-width space is a break opportunity
    ("", 10.0, [(0, 0)]),
])
def test_break_lines_greedy(text, available, lines):
    advances = [0.0 if ch == "\u200b" else 10.0 for ch in text]
    assert break_lines(text, advances, available, wrap=True) == lines


def test_no_wrap_is_one_line():
    assert break_lines("aa bb cc", [10.0] * 8, 5.0, wrap=False) == [(0, 8)]


@pytest.mark.parametrize("align, expected", [
    ("start", 0.0), ("left", 0.0), ("justify", 0.0), ("end", 60.0), ("right", 60.0), ("center", 30.0),
])
def test_align_offset(align, expected):
    assert align_offset(align, 100.0, 40.0) == expected


@pytest.mark.parametrize("align", ["right", "center", "end"])
def test_a_line_too_long_is_start_aligned(align):
    assert align_offset(align, 100.0, 140.0) == 0.0


# -- the layout with a real font -------------------------------------------------------


def test_monospace_wrapping_positions_and_baselines():
    adv = mono_advance(20.0)
    width = 5.5 * adv
    layout = lay_out(spec("ab cd ef", width))
    assert [line.text for line in layout.lines] == ["ab cd", "ef"]
    ascent, descent = mono_metrics(20.0)
    for i, line in enumerate(layout.lines):
        assert line.x.tolist() == pytest.approx([k * adv for k in range(len(line.text))], abs=1e-6)
        assert line.baseline == pytest.approx(i * 30.0 + (30.0 - ascent - descent) // 2 + ascent)
        assert line.width == pytest.approx(len(line.text) * adv)
    assert layout.height == 60.0


@pytest.mark.parametrize("align", ["center", "right", "end"])
def test_monospace_alignment(align):
    adv = mono_advance(20.0)
    width = 200.0
    layout = lay_out(spec("abc", width, align=align))
    (line,) = layout.lines
    free = width - 3 * adv
    left = free / 2 if align == "center" else free
    assert line.left == pytest.approx(left)
    assert line.x.tolist() == pytest.approx([left + k * adv for k in range(3)])


def test_letter_spacing_follows_every_character():
    adv, spacing = mono_advance(20.0), 3.0
    layout = lay_out(spec("abcd", 500.0, spacing=spacing, align="right"))
    (line,) = layout.lines
    assert line.width == pytest.approx(4 * (adv + spacing))  # the last one too, as Blink does
    assert line.x.tolist() == pytest.approx([500.0 - 4 * (adv + spacing) + k * (adv + spacing) for k in range(4)])


def test_justify_widens_the_spaces_of_every_line_but_the_last():
    adv = mono_advance(20.0)
    width = 9.5 * adv
    layout = lay_out(spec("ab cd ef gh", width, align="justify"))
    first, last = layout.lines
    assert first.text == "ab cd ef" and last.text == "gh"
    extra = (width - 8 * adv) / 2  # two spaces share what is left
    expected = [0, adv, 2 * adv, 3 * adv + extra, 4 * adv + extra, 5 * adv + extra, 6 * adv + 2 * extra,
                7 * adv + 2 * extra]
    assert first.x.tolist() == pytest.approx(expected)
    assert last.x.tolist() == pytest.approx([0.0, adv])


def test_pre_keeps_spaces_newlines_and_tab_stops():
    adv = mono_advance(20.0)
    layout = lay_out(spec("a\tb\n  c", 10.0, white_space="pre"))
    first, second = layout.lines
    assert first.x.tolist() == pytest.approx([0.0, adv, 8 * adv])  # the tab runs to the 8-space stop
    assert second.x.tolist() == pytest.approx([0.0, adv, 2 * adv])
    assert second.width == pytest.approx(3 * adv)


def test_nowrap_overflows_on_one_line():
    layout = lay_out(spec("a b c d e f", 10.0, white_space="nowrap"))
    assert [line.text for line in layout.lines] == ["a b c d e f"]


def test_pre_wrap_wraps_and_its_trailing_spaces_hang():
    adv = mono_advance(20.0)
    layout = lay_out(spec("ab   cd", 4 * adv, white_space="pre-wrap", align="right"))
    first, second = layout.lines
    assert first.text == "ab" and first.left == pytest.approx(2 * adv)  # the spaces do not push it left
    assert second.text == "cd"


def test_line_height_normal_is_ascent_plus_descent_plus_gap():
    ascent, descent = mono_metrics(20.0)
    layout = lay_out(spec("a", 100.0, line_height=LineHeight()))
    assert layout.line_height == ascent + descent  # DejaVu's line gap is 0
    assert layout.lines[0].baseline == ascent


def test_number_line_height_scales_with_the_size():
    layout = lay_out(spec("a\nb", 100.0, line_height=LineHeight("number", 1.5), white_space="pre"))
    assert layout.line_height == 30.0 and len(layout.lines) == 2


def test_letter_spacing_turns_ligatures_off():
    sans = (FontFamily("DejaVu Sans"),)
    plain = lay_out(spec("ffi", 500.0, families=sans))
    spaced = lay_out(spec("ffi", 500.0, families=sans, spacing=1.0))
    assert len(plain.lines[0].glyphs) == 1, "DejaVu Sans has an ffi ligature"
    assert len(spaced.lines[0].glyphs) == 3


def test_characters_the_face_lacks_fall_back_to_the_next_family():
    families = (FontFamily("DejaVu Sans Mono"), FontFamily("DejaVu Sans"))
    layout = lay_out(spec("a\u01c4", 500.0, families=families))  # Ǆ: in DejaVu Sans only
    faces = [layout.fonts[i].file.families for i in layout.lines[0].faces]
    assert "DejaVu Sans Mono" in faces[0] and "DejaVu Sans" in faces[1] and "DejaVu Sans Mono" not in faces[1]


def test_synthesized_bold_and_slant_only_where_the_face_lacks_them():
    layout = lay_out(TextSpec("a", MONO, 20.0, 700.0, FontStyle("italic", 14.0), LineHeight(), "start", 0.0,
                              "normal", 100.0))
    file = layout.fonts[0].file
    assert file.weight >= 200 and file.slant > 0, "fonts-dejavu-extra has DejaVu Sans Mono Bold Oblique"
    assert layout.synthetic[0] == (False, 0.0)
    oblique = lay_out(TextSpec("a", MONO, 20.0, 400.0, FontStyle("oblique", 20.0), LineHeight(), "start", 0.0,
                               "normal", 100.0))
    assert oblique.synthetic[0][0] is False


def test_right_to_left_text_is_unsupported():
    with pytest.raises(UnsupportedFeatureError) as info:
        lay_out(spec("\u05e9\u05dc\u05d5\u05dd", 100.0), layer="hebrew")
    assert info.value.layer == "hebrew" and info.value.property == "text"


# -- fonts that are not there ----------------------------------------------------------


def test_a_missing_family_without_fallback_names_what_to_install():
    families = (FontFamily("No Such Family Lamina"), FontFamily("Another Missing One"))
    with pytest.raises(FontUnavailableError) as info:
        text_fonts.resolve_families(families, 400.0, FontStyle(), layer="title")
    err = info.value
    assert isinstance(err, LaminaEnvironmentError)
    assert (err.layer, err.property) == ("title", "font-family")
    assert err.value == '"No Such Family Lamina", "Another Missing One"'
    assert "install" in str(err) and "sans-serif" in str(err)


def test_a_missing_family_falls_back_to_the_next_and_to_generics():
    chain = text_fonts.resolve_families((FontFamily("No Such Family Lamina"), FontFamily("DejaVu Sans Mono")),
                                        400.0, FontStyle())
    assert "DejaVu Sans Mono" in chain.primary.file.families
    generic = text_fonts.resolve_families((FontFamily("No Such Family Lamina"), FontFamily("monospace", True)),
                                          400.0, FontStyle())
    assert generic.primary.file.path


def test_no_fontconfig_says_what_to_install(monkeypatch):
    def missing(*args, **kwargs):
        raise FileNotFoundError("fc-match")

    text_fonts._fc_match.cache_clear()
    text_fonts._chain.cache_clear()
    monkeypatch.setattr(text_fonts.subprocess, "run", missing)
    try:
        with pytest.raises(FontUnavailableError) as info:
            text_fonts.resolve_families((FontFamily("serif", True),), 400.0, FontStyle(), layer="x")
        assert "apt-get install fontconfig fonts-dejavu-core" in str(info.value)
        assert info.value.layer == "x"
    finally:
        monkeypatch.undo()
        text_fonts._fc_match.cache_clear()
        text_fonts._chain.cache_clear()


def test_a_scene_files_font_error_names_file_json_path_and_layer(tmp_path):
    path = tmp_path / "scene.json"
    path.write_text('{"width": 50, "height": 20, "layers": [{"id": "t", "box": [0, 0, 50, 20], '
                    '"style": "font-family: No Such Family Lamina", "text": "hi"}]}')
    with pytest.raises(FontUnavailableError) as info:
        load_scene(path).plan()
    err = info.value
    assert (err.file, err.path, err.layer) == (str(path), "$.layers[0]", "t")
    assert str(err).startswith(f"{path}: $.layers[0]: layer 't', property 'font-family'")


def test_scene_file_text_round_trips_and_is_checked(tmp_path):
    scene = Scene(60, 30)
    scene.root.add(Layer("t", (0, 0, 60, 30), "font-size: 12px", text="two\nlines"))
    data = scene.to_dict()
    assert data["layers"][0]["text"] == "two\nlines"
    path = tmp_path / "s.json"
    path.write_text(scene.to_json())
    assert load_scene(path)["t"].text == "two\nlines"
    path.write_text('{"width": 10, "height": 10, "layers": [{"id": "t", "text": 5}]}')
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    assert info.value.path == "$.layers[0].text"


PARAGRAPH = ("Crisp text under a raster scale keeps the lines, baselines and pen positions "
             "its layout has at the device scale, only further apart.")


@pytest.mark.parametrize("dpr", [1.0, 2.0])
@pytest.mark.parametrize("raster_scale", [3.0, 4.0])
@pytest.mark.parametrize("css", [
    "font-family: 'DejaVu Sans'; font-size: 10px",
    "font-family: 'DejaVu Sans'; font-size: 15px",
    "font-family: 'DejaVu Serif'; font-weight: bold; font-size: 13px; line-height: 17px",
    "font-family: 'DejaVu Sans Mono'; font-size: 16px; line-height: 20.5px; letter-spacing: 0.3px",
    "font-family: 'DejaVu Sans'; font-size: 11px; line-height: 1.3",
])
def test_text_under_a_raster_scale_is_the_device_scale_layout_multiplied(dpr, raster_scale, css):
    """A layer rastered at r (its style zoomed, as lamina.graph.scaled paints it) lays its
    text out as Chromium does: at the device scale d, the raster scale only multiplying
    the recording. Each line's baseline, start, width and pen positions are r times those
    of the same paragraph's layout at DPR d unscaled, with the same line breaks — not a
    layout at d x r, whose rounded metrics put line 11 of a 15 px paragraph 21 raster px
    off."""
    from lamina.device_scale import DeviceScale, in_force, zoomed_style
    from lamina.text.paint import text_paint
    style = Layer("t", (0, 0, 120, 400), f"{css}; color: #000", text=PARAGRAPH).computed_style()
    with in_force(DeviceScale(dpr)):
        device = DeviceScale(dpr).style(style)
        plain = text_paint(device, (0, 0, 120 * dpr, 400 * dpr), (0, 0))
        scaled = text_paint(zoomed_style(device, raster_scale), (0, 0, 120 * dpr * raster_scale, 400), (0, 0))
    base, big = plain.layout, scaled.layout
    assert len(base.lines) >= 4  # a real paragraph: several lines
    assert [line.text for line in big.lines] == [line.text for line in base.lines]
    for a, b in zip(base.lines, big.lines):
        assert b.baseline == pytest.approx(raster_scale * a.baseline, abs=1e-9)
        assert (b.left, b.width) == pytest.approx((raster_scale * a.left, raster_scale * a.width), abs=1e-9)
        np.testing.assert_allclose(b.x, raster_scale * a.x, atol=1e-9)
        np.testing.assert_array_equal(b.glyphs, a.glyphs)
    assert big.line_height == pytest.approx(raster_scale * base.line_height)
    # The glyphs are drawn at the raster size, the hinting the device's.
    assert scaled.spec.size == pytest.approx(plain.spec.size * raster_scale)
    assert scaled.spec.hinted is plain.spec.hinted


def test_a_layout_at_device_times_raster_scale_would_differ():
    """What the test above guards against is real: laying a 15 px paragraph out at 1 x 3
    rounds its line spacing at 3x, 53 raster px a line instead of 3 x 18 = 54, so line 11
    sits 11 raster px too high."""
    from dataclasses import replace
    plain = TextSpec(text=PARAGRAPH * 2, families=(FontFamily("DejaVu Sans"),), size=15.0, weight=400.0,
                     style=FontStyle(), line_height=LineHeight("normal"), align="start", letter_spacing=0.0,
                     white_space="normal", width=120.0)
    zoomed = replace(plain, size=45.0, width=360.0, zoom=3.0)
    at_product = replace(plain, size=45.0, width=360.0, scale=3.0)  # the old, wrong layout
    base, big, wrong = lay_out(plain), lay_out(zoomed), lay_out(at_product)
    assert len(base.lines) > 11
    assert big.lines[11].baseline == pytest.approx(3.0 * base.lines[11].baseline)
    assert big.lines[11].baseline - wrong.lines[11].baseline == 11.0
