"""Benchmarks of long pages and composited scrolling (1280x720 viewport):

* the first frame over a 1280x20000 page of cards against the same viewport over a
  720 px page (target: at most 1.5x — only tiles near the viewport are rastered);
* a 100 px scroll frame against that first frame (target: at most 0.3x — it moves kept
  tiles and rasters only the row it exposes), for tile sizes 256, 512 and 1024;
* what is kept: the same number of textures for a 20,000 px and a 100,000 px page;
* a 100 px scroll frame of the same page cut into 20 sections, each with a sticky
  header (position: sticky; top: 0), against the page without them: the headers are
  promoted, so a scroll moves their kept textures: each is rastered once, when it first
  comes near the viewport (asserted).

    .venv/bin/python -m pytest tests/benchmarks/test_scroll_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import os

import pytest

from lamina import Layer, Scene
from lamina.framegraph import TextureRole
from lamina.tiling import Tiling

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl
CARD = "background: linear-gradient(#f06, #48f); border-radius: 12px; border: 2px solid #234"


def long_page(height: int, sticky_sections: int = 0) -> Scene:
    scene = Scene(1280, 720, "#eee")
    scene.root.style["overflow"] = "auto"
    n = 0
    for y in range(20, max(height - 200, 21), 220):
        for x in range(20, 1280 - 300, 310):
            scene.root.add(Layer(f"c{n}", (x, y, 290, 200), CARD))
            n += 1
    span = height / max(sticky_sections, 1)
    for i in range(sticky_sections):  # transparent sections over the cards, each with a header
        section = scene.root.add(Layer(f"section{i}", (0, i * span, 1280, span)))
        section.add(Layer(f"head{i}", (0, 0, 1280, 48), "position: sticky; top: 0; z-index: 1; "
                                                         "background: rgba(20, 30, 60, 0.85)"))
    return scene


@pytest.mark.parametrize("height", [720, 20000], ids=["720 px page", "20000 px page"])
def test_first_frame(benchmark, gl, height):
    benchmark.group = "long page: first frame, 1280x720 viewport"

    def fresh():
        gl.drop_caches()
        return (long_page(height),), {}

    frame = benchmark.pedantic(lambda scene: scene.render(gl), setup=fresh, rounds=ROUNDS, warmup_rounds=1)
    if height > 720:
        (tiles,) = frame.graph.tiles
        assert tiles.kept <= 9 < tiles.grid[0] * tiles.grid[1], "only tiles near the viewport are rastered"


@pytest.mark.parametrize("tile_size", [256, 512, 1024])
def test_scroll_frame(benchmark, gl, tile_size):
    benchmark.group = "long page: a 100 px scroll frame (20000 px page)"
    tiling = Tiling(tile_size=tile_size, threshold=max(2048, tile_size))
    scene = long_page(20000)
    gl.drop_caches()
    scene.render(gl, tiling=tiling)
    offsets = itertools.count(100, 100)
    frames = []

    def scroll():
        scene.root.scroll_to(y=next(offsets))
        frame = scene.render(gl, tiling=tiling)
        frames.append(frame)
        return frame

    benchmark.pedantic(scroll, rounds=ROUNDS, warmup_rounds=1)
    for frame in frames:
        (tiles,) = frame.graph.tiles
        # 100 px exposes at most one new row of tiles: a row is 1280 px wide.
        assert tiles.rastered <= -(-1280 // tile_size) + 1, "a scroll rasters only the tiles it exposes"
        painted = [p for p in frame.graph.composite_passes() if p.target.role is TextureRole.TILE]
        assert len(painted) == tiles.rastered


def test_textures_kept_do_not_grow_with_the_page(gl):
    kept = {}
    for height in (20000, 100000):
        scene = long_page(height)
        gl.drop_caches()
        scene.render(gl)
        scene.root.scroll_to(y=height // 2)
        frame = scene.render(gl)
        kept[height] = (len(gl.executor.retained_sizes()), frame.graph.totals()["tile_bytes"])
    assert kept[20000] == kept[100000]


@pytest.mark.parametrize("sections", [0, 20], ids=["no sticky headers", "20 sticky headers"])
def test_scroll_frame_with_sticky_headers(benchmark, gl, sections):
    benchmark.group = "long page: a 100 px scroll frame, sticky section headers"
    scene = long_page(20000, sticky_sections=sections)
    gl.drop_caches()
    first = scene.render(gl)
    offsets = itertools.count(100, 100)
    frames = []

    def scroll():
        scene.root.scroll_to(y=next(offsets))
        frame = scene.render(gl)
        frames.append(frame)
        return frame

    benchmark.pedantic(scroll, rounds=ROUNDS, warmup_rounds=1)
    seen: list[str] = [p.layer_id for p in first.graph.raster_passes() if p.layer_id.startswith("head")]
    for frame in frames:
        seen += [p.layer_id for p in frame.graph.raster_passes() if p.layer_id.startswith("head")]
        if sections:
            shown = [lid for lid in frame.graph.layer_info if lid.startswith("head")]
            assert shown and all(frame.graph.layer_info[lid].reasons == ("sticky position in a composited scroller",)
                                 for lid in shown)
    # A header is rastered once, when it first comes near the viewport; scrolling moves it.
    assert len(seen) == len(set(seen)), f"sticky headers rastered again: {sorted(seen)}"
