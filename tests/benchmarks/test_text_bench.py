"""Benchmarks: text. A 1280x720 page of paragraphs (a heading with a text-shadow, two
columns of wrapped 15px DejaVu Sans, a mono caption; about 4 000 characters): the
first frame from scratch (fonts found, nothing shaped, no glyph cached), the first
frame with warm glyph and layout caches (what a new page in a running process costs),
and an animation frame in which a text card moves and fades: it must re-raster nothing.
Also the measurement behind the choice of text libraries: the same paragraphs shaped,
broken into lines and rasterized into one coverage mask by Lamina (HarfBuzz + FreeType)
and by Pillow's FreeType with raqm layout.

    .venv/bin/python -m pytest tests/benchmarks/test_text_bench.py --benchmark-enable --benchmark-only

``extra_info`` holds the frame's raster time (the raster passes, text drawing
included), its planning time (which includes layout) and the glyph count.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont, features

from lamina import Layer, Scene
from lamina.style.text import FontFamily, FontStyle, LineHeight
from lamina.text import clear_caches, resolve_families
from lamina.text.layout import TextSpec, clear_layout_cache, lay_out
from lamina.text.raster import coverage

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "10"))
pytestmark = pytest.mark.gl

_WORDS = ("compositing layers raster texture surface filter shadow pixel browser engine frame graph "
          "pass shader premultiplied alpha blend opacity transform glyph line paragraph wraps inside "
          "the box width and every word is shaped by HarfBuzz then drawn as coverage").split()


def _paragraph(rng: np.random.Generator, words: int) -> str:
    text = " ".join(rng.choice(_WORDS, words))
    return text[0].upper() + text[1:] + "."


def text_page() -> Scene:
    rng = np.random.default_rng(7)
    scene = Scene(1280, 720, background="#fbfbf8")
    scene.root.style.update_css("font-family: 'DejaVu Sans', sans-serif; color: #222")
    scene.root.add(Layer("heading", (40, 24, 860, 56),
                         "font-size: 36px; font-weight: bold; color: #123; text-shadow: 0 2px 4px rgb(0 0 0 / 30%)",
                         text="A page of paragraphs, rastered by Lamina"))
    for column in range(2):
        for row in range(4):
            scene.root.add(Layer(f"p{column}{row}", (40 + column * 610, 100 + row * 145, 580, 140),
                                 "font-size: 15px; line-height: 1.5; text-align: justify",
                                 text=_paragraph(rng, 64)))
    scene.root.add(Layer("caption", (40, 690, 1200, 24), "font-family: 'DejaVu Sans Mono'; font-size: 12px; color: #666",
                         text="tests/benchmarks/test_text_bench.py: 1280x720, about 4000 characters"))
    card = scene.root.add(Layer("card", (930, 28, 300, 50), "background: #246; color: white; font-size: 18px;"
                                " border-radius: 8px; will-change: transform, opacity", text="This card moves and fades"))
    # Whole-pixel steps (t in hundredths): a sub-pixel offset is new content for any layer.
    card.animate({"from": {"transform": "translate(0px, 0px)", "opacity": "1"},
                  "to": {"transform": "translate(-100px, 600px)", "opacity": "0.5"}}, duration=1.0, iterations="infinite")
    return scene


def _info(benchmark, frame) -> None:
    benchmark.extra_info["raster_ms"] = round(frame.stats.raster_ms, 3)
    benchmark.extra_info["plan_ms"] = round(frame.stats.plan_ms, 3)
    benchmark.extra_info["rastered"] = len(frame.graph.raster_passes())
    benchmark.extra_info["glyphs"] = sum(p.paint.text.layout.glyph_count for p in frame.graph.raster_passes()
                                         if p.paint.text is not None)


def test_text_page_first_frame_cold(benchmark, gl):
    scene = text_page()
    benchmark.group = "text: 1280x720 page of paragraphs, first frame"
    scene.render(gl, policy="all")  # programs compiled, fonts found

    def first():
        gl.drop_caches()
        clear_caches()
        return scene.render(gl, t=0.0, policy="all")

    frame = benchmark.pedantic(first, rounds=ROUNDS, warmup_rounds=1)
    _info(benchmark, frame)
    assert benchmark.extra_info["glyphs"] > 3000


def _layouts(frame) -> list:
    """The text layouts the frame's raster passes drew, in pass order."""
    return [p.paint.text.layout for p in frame.graph.raster_passes() if p.paint.text is not None]


def test_text_page_first_frame_warm_glyphs(benchmark, gl):
    scene = text_page()
    benchmark.group = "text: 1280x720 page of paragraphs, first frame"
    gl.drop_caches()  # rastered here, so the layouts this frame shaped are in its graph
    warm = scene.render(gl, policy="all")

    def first():
        gl.drop_caches()  # rasters and masks go; shaped layouts and glyph bitmaps stay
        return scene.render(gl, t=0.0, policy="all")

    frame = benchmark.pedantic(first, rounds=ROUNDS, warmup_rounds=1)
    _info(benchmark, frame)
    assert benchmark.extra_info["rastered"] == len(scene.layers()) - 1, "a first frame: every layer rastered again"
    assert benchmark.extra_info["glyphs"] > 3000
    layouts, kept = _layouts(frame), _layouts(warm)
    assert len(layouts) == len(kept) and all(a is b for a, b in zip(layouts, kept)), "no text shaped again"


@pytest.mark.parametrize("policy", ["browser", "all"])
def test_text_animation_frame_re_rasters_nothing(benchmark, gl, policy):
    scene = text_page()
    benchmark.group = "text: 1280x720 page of paragraphs, animation frame"
    gl.drop_caches()
    scene.render(gl, t=0.0, policy=policy)
    times = iter([k / 100 for k in range(1, 100000)])

    def frame():
        return scene.render(gl, t=next(times), policy=policy)

    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    _info(benchmark, result)
    assert result.graph.raster_passes() == [], "moving and fading text re-rasters nothing"


# -- the choice of libraries: HarfBuzz + FreeType against Pillow + raqm -----------------

_MASK_W, _MASK_H, _SIZE, _LINE = 1240, 720, 16, 24


def _paragraphs() -> list[str]:
    rng = np.random.default_rng(1)
    return [_paragraph(rng, 110) for _ in range(5)]


def _spec() -> TextSpec:
    """The paragraphs as Lamina lays them out: one per line of text, wrapped to the mask."""
    return TextSpec("\n".join(_paragraphs()), (FontFamily("DejaVu Sans"),), float(_SIZE), 400.0, FontStyle(),
                    LineHeight("px", _LINE), "start", 0.0, "pre-line", float(_MASK_W))


def _fits_the_mask(lines: int) -> bool:
    """Wrapped (more lines than paragraphs) and all on the mask."""
    return 5 < lines and lines * _LINE <= _MASK_H


def test_shape_and_raster_harfbuzz_freetype(benchmark):
    """Lamina's path: shape each paragraph once, break lines from the advances, composite
    cached glyph bitmaps at quarter-pixel phases (the layout cache is emptied every round)."""
    benchmark.group = "text: shape, break and raster 5 paragraphs into a 1240x720 mask"
    spec = _spec()

    def run():
        clear_layout_cache()
        layout = lay_out(spec)
        return layout, coverage(layout, (0.3, 0.0), (_MASK_H, _MASK_W))

    layout, mask = benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    benchmark.extra_info["lines"] = len(layout.lines)
    benchmark.extra_info["ink"] = int(mask.sum()) // 255
    assert [w for line in layout.lines for w in line.text.split()] == spec.text.split(), "every word, in order"
    assert _fits_the_mask(len(layout.lines)) and max(line.width for line in layout.lines) <= _MASK_W
    assert mask.shape == (_MASK_H, _MASK_W) and benchmark.extra_info["ink"] > 0


@pytest.mark.skipif(not features.check("raqm"), reason="Pillow was built without raqm (libraqm)")
def test_shape_and_raster_pillow_raqm(benchmark):
    """Pillow: measure words with raqm (getlength, cached per word), break greedily, draw
    each line with ImageDraw.text. Pillow exposes no glyph positions, so letter-spacing
    and justification would need a draw per character."""
    benchmark.group = "text: shape, break and raster 5 paragraphs into a 1240x720 mask"
    path = resolve_families((FontFamily("DejaVu Sans"),), 400.0, FontStyle()).primary.file.path
    paragraphs = _paragraphs()

    def run():
        font = ImageFont.truetype(path, _SIZE, layout_engine=ImageFont.Layout.RAQM)
        image = Image.new("L", (_MASK_W, _MASK_H))
        draw = ImageDraw.Draw(image)
        space, widths, y, lines = font.getlength(" "), {}, 0, 0
        for para in paragraphs:
            line, width = [], 0.0
            for word in para.split(" "):
                w = widths.get(word)
                if w is None:
                    w = widths[word] = font.getlength(word)
                if line and width + space + w > _MASK_W:
                    draw.text((0.3, y), " ".join(line), fill=255, font=font)
                    y, lines, line, width = y + _LINE, lines + 1, [word], w
                else:
                    width += (space if line else 0.0) + w
                    line.append(word)
            draw.text((0.3, y), " ".join(line), fill=255, font=font)
            y, lines = y + _LINE, lines + 1
        return lines, np.asarray(image)

    lines, mask = benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    benchmark.extra_info["lines"] = lines
    benchmark.extra_info["ink"] = int(mask.astype(np.int64).sum()) // 255
    # The same work as Lamina's path: the same paragraphs broken into as many lines (a
    # word's kerning may move one break) and about as much ink (hinting and
    # anti-aliasing differ, the glyphs do not).
    lamina = lay_out(_spec())
    lamina_ink = int(coverage(lamina, (0.3, 0.0), (_MASK_H, _MASK_W)).astype(np.int64).sum()) // 255
    assert _fits_the_mask(lines) and abs(lines - len(lamina.lines)) <= 1
    assert abs(benchmark.extra_info["ink"] - lamina_ink) <= 0.2 * lamina_ink
