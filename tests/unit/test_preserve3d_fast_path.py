"""The retained fast path with 3D rendering contexts on screen (graph.fast_path,
graph.contexts3d): frames where only transforms of context members or their ancestors
animate keep last frame's draws and sort and split the contexts again from the new 4x4s.
Each frame's graph is the one planning from scratch gives (tests.same_graph), on a card
flip, a 12-card carousel whose cards carry a label (3D flattening surfaces) and two planes
that cross (alone, and under layers overlap-tested against them), over many times; and the fast path is taken (FrameState.fast_frames)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.graph import FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.same_graph import KEPT, assert_same_graph, planned_both

TURN = {"0%": {"transform": "rotateY(0deg)"}, "100%": {"transform": "rotateY(360deg)"}}


def carousel() -> Scene:
    """12 cards on a preserve-3d ring turning about y; each card has a label (a drawing
    descendant: the card is a 3D flattening surface)."""
    scene = Scene(480, 270, "#111")
    stage = scene.root.add(Layer("stage", (0, 0, 480, 270), "perspective: 500px"))
    ring = stage.add(Layer("ring", (205, 85, 70, 100), "transform-style: preserve-3d"))
    radius = 35 / math.tan(math.radians(15)) + 10
    for i in range(12):
        card = ring.add(Layer(f"card-{i}", (0, 0, 70, 100), f"background: hsl({30 * i} 80% 60%); "
                                                            f"transform: rotateY({30 * i}deg) translateZ({radius:.2f}px)"))
        card.add(Layer(f"title-{i}", (6, 6, 58, 12), "background: rgba(255,255,255,.8)"))
    ring.animate(TURN, duration=12.0, iterations="infinite")
    return scene


def card_flip() -> Scene:
    scene = Scene(240, 280, "#f4f1ea")
    stage = scene.root.add(Layer("stage", (20, 20, 200, 240), "perspective: 600px"))
    card = stage.add(Layer("card", (20, 20, 160, 200), "transform-style: preserve-3d"))
    front = card.add(Layer("front", (0, 0, 160, 200), "background: #f06; backface-visibility: hidden; transform: translateZ(1px)"))
    front.add(Layer("front-label", (20, 20, 120, 28), "background: rgb(255 255 255 / 80%)"))
    card.add(Layer("back", (0, 0, 160, 200), "background: #09f; backface-visibility: hidden; transform: rotateY(180deg)"))
    card.animate(TURN, duration=6.0, iterations="infinite")
    return scene


def crossing_planes() -> Scene:
    """Two planes crossing in a turning preserve-3d group: each is split by the other."""
    scene = Scene(240, 200, "white")
    stage = scene.root.add(Layer("stage", (0, 0, 240, 200), "perspective: 400px"))
    cross = stage.add(Layer("cross", (40, 20, 160, 160), "transform-style: preserve-3d"))
    cross.add(Layer("plane-a", (0, 0, 160, 160), "background: #f80; transform: rotateY(35deg)"))
    cross.add(Layer("plane-b", (0, 0, 160, 160), "background: #4af; transform: rotateY(-35deg)"))
    cross.animate({"0%": {"transform": "rotateX(0deg)"}, "100%": {"transform": "rotateX(360deg)"}},
                  duration=8.0, iterations="infinite")
    return scene


def crossing_under_later_layers() -> Scene:
    """The crossing planes with two plain layers painted after them, overlap-tested
    against the planes' bounds (which have no animation sweep: they change every frame)."""
    scene = crossing_planes()
    scene.root.add(Layer("later", (195, 90, 40, 20), "background: #3a3"))
    scene.root.add(Layer("later2", (100, 5, 40, 12), "background: #a3a"))
    return scene


@pytest.mark.parametrize("make", [carousel, card_flip, crossing_planes, crossing_under_later_layers],
                         ids=["carousel", "card-flip", "crossing", "crossing-under-later"])
def test_turning_contexts_take_the_fast_path_with_the_full_plans_graph(make):
    times = np.sort(np.random.default_rng(26).uniform(0.0, 12.0, 24))
    pairs, fast = planned_both(make, times)
    for t, (ga, gb) in zip(times, pairs):
        assert ga.contexts3d == gb.contexts3d, f"t={t}: the contexts sorted as the full plan sorts them"
        assert ga.raster_passes() == gb.raster_passes()
    assert fast.fast_frames >= len(times) // 2, f"the fast path took {fast.fast_frames} of {len(times)} frames"



def test_a_turning_member_with_a_backdrop_filter_is_planned_whole_and_says_why():
    """Its filtered backdrop is read from under where it moved, so every turning frame is
    planned whole (review of issue 26: such frames gave no reason)."""
    state, scene = FrameState(), card_flip()
    scene.find("front").style = ("background: #f06; backface-visibility: hidden; transform: translateZ(1px); "
                                 "backdrop-filter: blur(2px)")
    graphs = [build_frame_graph(scene, FrameRequest(t=float(t)), Limits(), ImageStore(), state, KEPT)
              for t in (0.1, 0.2, 0.3)]
    assert all(g.planned_whole == "front moved with a backdrop-filter: its backdrop is read again from under "
               "where it is now" for g in graphs[1:]), [g.planned_whole for g in graphs]
    assert f"planned whole, not on the retained fast path: {graphs[1].planned_whole}" in graphs[1].describe()


def test_a_hidden_back_face_turning_to_the_viewer_is_planned_whole_and_says_why():
    """The flip's back face was not drawn while hidden: the frame it turns to the viewer
    is planned whole (its draw is new), with the reason in the graph and its report; the
    other frames take the fast path and name none."""
    state, scene = FrameState(), card_flip()
    graphs = [build_frame_graph(scene, FrameRequest(t=float(t)), Limits(), ImageStore(), state, KEPT)
              for t in np.linspace(0.0, 3.0, 12)]  # the card turns past 90 degrees at t = 1.5
    turned = [g for g in graphs if g.planned_whole is not None]
    assert len(turned) == 1 and turned[0].planned_whole.startswith("back was not drawn last frame"), \
        [g.planned_whole for g in graphs]
    assert f"planned whole, not on the retained fast path: {turned[0].planned_whole}" in turned[0].describe()
    assert state.fast_frames == len(graphs) - 2, "all but the first frame and the turn take the fast path"


def test_the_first_animation_frame_takes_the_fast_path_and_the_end_says_why_it_does_not():
    """Members of a context animate once (fill none): the first frame after the first
    render takes the fast path (an audit took the frame at the end for it). At the end
    the animations are over and the members lose their transforms (they stop creating
    stacking contexts): the trees are rebuilt, and the graph says that."""
    scene = Scene(160, 120, "white")
    stage = scene.root.add(Layer("stage", (0, 0, 160, 120), "perspective: 300px"))
    group = stage.add(Layer("g", (30, 20, 100, 80), "transform-style: preserve-3d"))
    for name, turn in (("a", (20, 80)), ("b", (-60, 10))):
        member = group.add(Layer(name, (0, 0, 100, 80), f"background: {'red' if name == 'a' else 'blue'}"))
        member.animate({"0%": {"transform": f"rotateY({turn[0]}deg)"}, "100%": {"transform": f"rotateY({turn[1]}deg)"}},
                       duration="1s")
    state = FrameState()
    build_frame_graph(scene, FrameRequest(t=0.0), Limits(), ImageStore(), state, KEPT)
    first = build_frame_graph(scene, FrameRequest(t=0.1), Limits(), ImageStore(), state, KEPT)
    assert state.fast_frames == 1 and first.planned_whole is None, first.planned_whole
    build_frame_graph(scene, FrameRequest(t=0.5), Limits(), ImageStore(), state, KEPT)
    assert state.fast_frames == 2
    ended = build_frame_graph(scene, FrameRequest(t=1.0), Limits(), ImageStore(), state, KEPT)
    assert state.fast_frames == 2
    assert ended.planned_whole == "the layer tree changed: 'a' no longer creates a stacking context", ended.planned_whole


def scroller_with_context() -> Scene:
    """A composited scroller of plain cards holding two crossing planes in a preserve-3d
    context (with its own perspective)."""
    scene = Scene(300, 240, "white")
    box = scene.root.add(Layer("box", (10, 10, 280, 220), "overflow: scroll; background: white"))
    for i in range(8):
        box.add(Layer(f"c{i}", (10, 10 + i * 60, 200, 50), "background: #cde"))
    cross = box.add(Layer("cross", (40, 120, 160, 160), "transform-style: preserve-3d; perspective: 300px"))
    cross.add(Layer("a", (0, 0, 160, 160), "background: #f80; transform: rotateX(50deg)"))
    cross.add(Layer("b", (0, 0, 160, 160), "background: #4af; transform: rotateX(-50deg) translateZ(20px)"))
    return scene


def test_a_context_in_a_scrolled_scroller_is_planned_whole_and_says_why():
    """The scroll path moves kept contents without sorting: a scroll of a scroller holding
    a 3D rendering context is planned whole (the graph planning from scratch gives), and
    the graph says why."""
    fast, full = FrameState(), FrameState(fast_path=False)
    a, b = scroller_with_context(), scroller_with_context()
    for i, y in enumerate([0, 0, 20, 60, 140, 260]):
        for scene in (a, b):
            scene["box"].style["scroll-top"] = f"{y}px"
        ga = build_frame_graph(a, FrameRequest(), Limits(), ImageStore(), fast, KEPT)
        gb = build_frame_graph(b, FrameRequest(), Limits(), ImageStore(), full, KEPT)
        assert_same_graph(ga, gb)
        assert ga.contexts3d == gb.contexts3d and len(ga.contexts3d) == 1
        if i >= 2:  # a scroll, the first frames' rasters settled
            assert ga.planned_whole is not None and "'cross' lies in the scrolled 'box'" in ga.planned_whole, ga.planned_whole
