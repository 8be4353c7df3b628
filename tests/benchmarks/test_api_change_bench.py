"""Benchmarks of a style change made through the API, as a script or a demo's slider
makes it (``layer.style[...] = ...`` then the next frame): planning alone, no GPU work
(the planner is told every kept texture still exists, as an executor would say).

The page: 1280x720, N small layers in rows plus one promoted mover (will-change)
painted over them. Setting the mover's transform, opacity, filter amount or
backdrop-filter amount every frame must cost what changed, not the page: compare the
medians of N = 500 and N = 5,000 in one run. So must a colour change of one small layer
that is not composited (a repaint in place of the backing it paints into).

    .venv/bin/python -m pytest tests/benchmarks/test_api_change_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import math
import os

import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
KEPT = ExecutorFacts(retained=EVERY_TEXTURE)


def api_page(n: int, mover_style: str = "will-change: transform") -> Scene:
    """N small layers in rows of 100 over a 1280x720 page, and a promoted mover on top."""
    scene = Scene(1280, 720, "white")
    rows = (n + 99) // 100
    for i in range(n):
        x, y = (i % 100) * 12.8, (i // 100) * (720 / rows)
        scene.root.add(Layer(f"l{i}", (round(x, 1), round(y, 1), 10, 6),
                             f"background: rgb({i % 255}, {(i * 7) % 255}, 120)"))
    scene.root.add(Layer("mover", (100, 100, 200, 120), f"background: #36c; {mover_style}"))
    return scene


CHANGES = {
    "transform": ("will-change: transform", lambda k: ("transform", f"translate({k * 3 % 700}px, {k % 300}px)")),
    "opacity": ("will-change: opacity; opacity: 0.5", lambda k: ("opacity", f"{0.2 + (k % 60) / 100:g}")),
    "filter": ("will-change: filter; filter: blur(3px)", lambda k: ("filter", f"blur({2 + k % 5}px)")),
    "backdrop-filter": ("will-change: transform; background: rgb(50 100 200 / 30%); backdrop-filter: blur(3px)",
                        lambda k: ("backdrop-filter", f"blur({2 + k % 5}px) saturate({1 + k % 3})")),
}
# What a frame may run besides compositing the frame: the changed effect's own passes
# (the mover's filter surface and filter passes; its backdrop's read-back and filter passes).
EFFECT_PASSES = ("composite:mover", "filter:mover:", "backdrop:mover", "composite:frame+")


@pytest.mark.parametrize("n", [500, 5000])
@pytest.mark.parametrize("what", list(CHANGES))
def test_api_style_change(benchmark, what, n):
    style, change = CHANGES[what]
    scene = api_page(n, style)
    mover, state, frames = scene["mover"], FrameState(), itertools.count()

    calls = []

    def frame():
        calls.append(1)
        prop, value = change(next(frames))
        mover.style[prop] = value
        return build_frame_graph(scene, FrameRequest(), Limits(), ImageStore(), state, KEPT)

    for _ in range(3):  # the first frame, one that reuses its rasters, then the fast path
        frame()
    before, calls[:] = state.fast_frames, []
    benchmark.group = f"API {what} change of a promoted layer"
    graph = benchmark.pedantic(frame, rounds=ROUNDS * 2, warmup_rounds=1)
    benchmark.extra_info["layers"] = n + 1
    names = [p.name for p in graph.passes]
    assert names[-1].startswith("composite:frame"), "the frame is composited"
    assert all(n == "composite:frame" or n.startswith(EFFECT_PASSES) for n in names), \
        f"nothing rastered or painted beyond the changed effect's own passes: {names}"
    if what in ("filter", "backdrop-filter"):
        assert any(n.startswith("filter:mover:") for n in names), "the changed effect is filtered anew"
    else:
        assert names == ["composite:frame"], "nothing rastered or painted: the frame composited"
    assert state.fast_frames - before == len(calls), "every change took the retained fast path"
    assert state.trees.rebuilds == 1, "the property trees are updated in place, never rebuilt"


@pytest.mark.parametrize("n", [500, 5000])
def test_api_paint_change(benchmark, n):
    """A colour picker on one small layer that is not composited: it paints into the
    page's base backing with every other small layer, and only it is rastered again,
    into the part of the backing it covers."""
    scene = api_page(n)
    card, state, frames = scene[f"l{n // 2 + 17}"], FrameState(), itertools.count()
    calls = []

    def frame():
        calls.append(1)
        card.style["background-color"] = f"rgb({next(frames) % 256}, 60, 160)"
        return build_frame_graph(scene, FrameRequest(), Limits(), ImageStore(), state, KEPT)

    for _ in range(3):
        frame()
    before, calls[:] = state.fast_frames, []
    benchmark.group = "API paint change of a layer that is not composited"
    graph = benchmark.pedantic(frame, rounds=ROUNDS * 2, warmup_rounds=1)
    benchmark.extra_info["layers"] = n + 1
    assert [p.name for p in graph.passes] == [f"raster:{card.id}", "paint:root-base", "composite:frame"], \
        "the layer alone is rastered again, into the base backing, and the frame composited"
    x, y, w, h = card.box.x, card.box.y, card.box.width, card.box.height
    covered = (math.ceil(x + w) - math.floor(x), math.ceil(y + h) - math.floor(y))
    assert graph.passes[1].damage[2:] == covered, "the backing is repainted where the layer lies (its pixels)"
    assert state.fast_frames - before == len(calls), "every change took the retained fast path"
    assert state.trees.rebuilds == 1, "the property trees are updated in place, never rebuilt"


def scroll_page(n: int) -> Scene:
    """A 1280x720 scroll container holding N small layers in rows of four, 24 px apart
    (3,000 px of contents at 500, 30,000 at 5,000): the same density whatever N, so a
    scroll step brings as many layers near the scrollport (and takes as many away), and
    as many tiles are kept, at 500 as at 5,000; only the page is longer."""
    scene = Scene(1280, 720, "white")
    box = scene.root.add(Layer("scroller", (0, 0, 1280, 720), "overflow: scroll"))
    for i in range(n):
        box.add(Layer(f"l{i}", ((i % 4) * 320 + 4, (i // 4) * 24 + 4, 10, 6),
                      f"background: rgb({i % 255}, {(i * 7) % 255}, 120)"))
    return scene


@pytest.mark.parametrize("n", [500, 5000])
def test_api_scroll(benchmark, n):
    """A scroll bar dragged on a composited scroller: scroll-top set every frame through
    the API, 7 px a frame back and forth over the first 480 px. The contents are one tiled backing: a frame moves its tiles, rasters
    those that come near the scrollport, and decides again only the layers near the
    edges of the window the contents are culled to (graph.scrolled)."""
    scene = scroll_page(n)
    scroller, state, frames = scene["scroller"], FrameState(), itertools.count()
    calls = []

    def frame():
        calls.append(1)
        k = next(frames) % 138
        scroller.style["scroll-top"] = f"{7 * (k if k < 69 else 138 - k)}px"
        return build_frame_graph(scene, FrameRequest(), Limits(), ImageStore(), state, KEPT)

    for _ in range(3):  # the first frame, one that reuses its rasters, then the fast path
        frame()
    before, calls[:] = state.fast_frames, []
    benchmark.group = "API scroll-top of a composited scroller"
    graphs = []
    benchmark.pedantic(lambda: graphs.append(frame()), rounds=ROUNDS * 2, warmup_rounds=1)
    benchmark.extra_info["layers"] = n
    for graph in graphs:
        names = [p.name for p in graph.passes]
        assert names[-1] == "composite:frame", "the frame is composited"
        assert all(n.startswith(("paint:scroller-contents:", "raster:l")) for n in names[:-1]), \
            f"nothing rastered but the tiles coming near the scrollport (and their layers): {names}"
    assert state.fast_frames - before == len(calls), "every scroll took the fast path"
    assert state.trees.rebuilds == 1, "the property trees are updated in place, never rebuilt"
    assert "scroller" in state.trees.deferred, "the scroller's descendants were never all placed again"
