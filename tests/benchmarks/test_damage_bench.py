"""Benchmark: a paint change made through the API costs its damage rect, all the way out.

The page: 1920x1080, 60 cards (rounded, bordered, a line of text each) in a 10 x 6 grid.
Each round sets one card's ``background-color`` and times ``renderer.render(scene)`` +
``frame.image``, as a script or a demo's colour picker makes a frame. Only that card is
rastered; the frame is composited, read back and un-premultiplied over the card's rect
alone (asserted from each frame's stats, against the card's box). The medians are
compared with the same run's first frames of the page:

* cold: the first frame on a new renderer (its shaders compiled in it);
* warm: the page drawn from scratch on a renderer whose shaders are compiled (its kept
  textures and plans dropped, then a new identical page: every card rastered).

Both ratios must be at most 0.2; they go to ``extra_info`` with the medians:

    .venv/bin/python -m pytest -p no:xdist tests/benchmarks/test_damage_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import os
import statistics
import time

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.renderer import Renderer
from lamina.scene_file import scene_from_dict

from ..alpha_reference import refuse_host_conversion, unpremultiply_ref

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
WARM_FIRST_FRAMES = 3
pytestmark = pytest.mark.gl
W, H = 1920, 1080
CARD_W, CARD_H = 170, 150


def card_box(i: int) -> tuple[int, int, int, int]:
    return (16 + (i % 10) * 190, 12 + (i // 10) * 175, CARD_W, CARD_H)


def cards_page(seed: int = 7) -> Scene:
    """60 cards on a page: a flat colour each, 10 px corners, a 2 px border, a title."""
    rng = np.random.default_rng(seed)
    scene = Scene(W, H, "#f4f1ea")
    for i in range(60):
        style = (f"background-color: hsl({int(rng.integers(0, 360))} 55% 72%); border-radius: 10px; "
                 "border: 2px solid rgb(0 0 0 / 18%); color: #1d1d1f; font-size: 15px; font-family: sans-serif; "
                 "text-align: center")
        scene.root.add(Layer(f"card{i}", card_box(i), style, text=f"Card {i}"))
    return scene


def _first_frame(renderer: Renderer, scene: Scene) -> tuple[float, object]:
    started = time.perf_counter()
    frame = renderer.render(scene)
    frame.image
    return (time.perf_counter() - started) * 1000, frame


def test_one_cards_colour_costs_its_rect(benchmark, monkeypatch):
    benchmark.group = "damage: 1920x1080, 60 cards, one card's colour set per frame"
    refuse_host_conversion(monkeypatch)  # every conversion on the GPU
    with Renderer() as renderer:
        scene = cards_page()
        cold_ms, first = _first_frame(renderer, scene)
        assert first.stats.compiles > 0, "the cold frame compiled its shaders"
        warm_ms = []
        for _ in range(WARM_FIRST_FRAMES):
            renderer.drop_caches()  # nothing kept: planned and drawn from scratch
            ms, warm = _first_frame(renderer, cards_page())
            assert warm.stats.compiles == 0 and len(warm.graph.raster_passes()) >= 60, "warm, and from scratch"
            warm_ms.append(ms)
        renderer.drop_caches()
        _first_frame(renderer, scene)  # the page the rounds change: its first frame again
        colours = itertools.cycle(f"hsl({h} 65% 60%)" for h in range(0, 360, 23))
        cards = itertools.cycle(range(7, 60 * 7, 7))  # every card, in a scattered order
        rounds = []  # per round: the card changed, its frame's graph and stats (frames are let go,
        # as an animation loop lets them go: keeping each one's pixels costs page faults)

        def change():
            i = next(cards) % 60
            scene[f"card{i}"].style["background-color"] = next(colours)
            frame = renderer.render(scene)
            frame.image
            rounds.append((i, frame.graph, frame.stats))
            return frame

        for _ in range(3):  # the first changes plan the card's backing; then the steady state
            change()
        rounds.clear()
        last = benchmark.pedantic(change, rounds=ROUNDS, warmup_rounds=1)

        card_area = CARD_W * CARD_H
        assert len(rounds) >= (ROUNDS if benchmark.enabled else 1)
        for i, graph, s in rounds:
            (composite,) = [p for p in graph.passes if p.target.name == graph.output.name]
            assert composite.damage == card_box(i), f"card {i}: the frame's damage is the card's box"
            assert [p.name for p in graph.raster_passes()] == [f"raster:card{i}"], "only that card rastered"
            assert s.composited_px == s.read_back_px == s.unpremultiplied_px == card_area, \
                f"card {i}: composited {s.composited_px}, read {s.read_back_px}, un-premultiplied " \
                f"{s.unpremultiplied_px} px, not the card's {card_area}"
        assert np.array_equal(last.image, unpremultiply_ref(last.premultiplied))
        renderer.drop_caches()
        again = renderer.render(scene_from_dict(scene.to_dict()))
        assert np.array_equal(last.image, again.image), "the very bytes of drawing that state from scratch"

    if benchmark.stats is not None:  # timed: the same run's medians
        change_ms = benchmark.stats.stats.median * 1000
        warm_median = statistics.median(warm_ms)
        benchmark.extra_info.update({
            "change_median_ms": round(change_ms, 3),
            "first_frame_cold_ms": round(cold_ms, 3),
            "first_frame_warm_median_ms": round(warm_median, 3),
            "change_over_cold": round(change_ms / cold_ms, 3),
            "change_over_warm": round(change_ms / warm_median, 3),
            "damage_px": card_area,
            "frame_px": W * H,
        })
        assert change_ms <= 0.2 * cold_ms, f"a colour change took {change_ms / cold_ms:.2f}x the cold first frame"
        assert change_ms <= 0.2 * warm_median, f"a colour change took {change_ms / warm_median:.2f}x the warm first frame"
