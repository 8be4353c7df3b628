"""Style changes made through the API (``layer.style[...] = ...``), as a script or a
demo's slider makes them, take the retained fast path when last frame's decisions
stand: the graph is, frame by frame, the one planning from scratch gives (lockstep
against a planner without the fast path), and the fast frames are counted. No GPU: the
planner is told every kept texture still exists."""

from __future__ import annotations

import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.same_graph import assert_same_graph

POLICIES = ("browser", "all", "budget", "none")
KEPT = ExecutorFacts(retained=EVERY_TEXTURE)


def _lockstep(make, policy: str, frames: int, script) -> tuple[int, list]:
    """Plan ``make()`` with and without the fast path, ``script(scene, i)`` run before
    each frame; the same graph every frame. Returns the fast frames and the graphs."""
    a, b = make(), make()
    fast, slow = FrameState(), FrameState(fast_path=False)
    graphs = []
    for i in range(frames):
        script(a, i)
        script(b, i)
        ga = build_frame_graph(a, FrameRequest(t=0.0, policy=policy), Limits(), ImageStore(), fast, KEPT)
        gb = build_frame_graph(b, FrameRequest(t=0.0, policy=policy), Limits(), ImageStore(), slow, KEPT)
        assert_same_graph(ga, gb)
        graphs.append(ga)
    assert slow.fast_frames == 0
    return fast.fast_frames, graphs


def _strip(mover_style: str = "will-change: transform", mover_first: bool = False) -> Scene:
    """A row of cards with a promoted mover painted among them: the cards after it are
    promoted for overlap when it lies over them (and squashed together)."""
    scene = Scene(400, 120, "#eee")
    mover = Layer("mover", (0, 40, 30, 30), f"background: #c33; {mover_style}")
    if mover_first:
        scene.root.add(mover)
    for i in range(8):
        card = scene.root.add(Layer(f"c{i}", (10 + i * 48, 30, 40, 50), "background: #48f; border-radius: 4px"))
        card.add(Layer(f"t{i}", (4, 4, 24, 8), "background: white"))
        if i == 3 and not mover_first:
            scene.root.add(mover)
    return scene


def _slide(scene: Scene, i: int) -> None:
    """Over the cards after it and off them again, and up out of the page, one step a frame."""
    x, y = (i * 23) % 420 - 20, 40 - (60 if i % 11 == 10 else 0)
    scene["mover"].style["transform"] = f"translate({x}px, {y}px)"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("first", [False, True], ids=["among", "under"])
def test_an_api_transform_plans_what_planning_from_scratch_plans(policy, first):
    frames, graphs = _lockstep(lambda: _strip(mover_first=first), policy, 30, _slide)
    if policy in ("browser", "all"):
        assert frames >= 10, "most moves keep last frame's decisions and take the fast path"
    if policy == "browser" and not first:
        squashed = [g for g in graphs if any(i.reasons and "overlap" in i.reasons[0] for i in g.layer_info.values())]
        assert squashed and len(squashed) < len(graphs), "the cards after it are promoted only while it lies over them"


def _fade(scene: Scene, i: int) -> None:
    """A slider over opacity: below 1 most frames, at 1 now and then, and once at 0."""
    scene["mover"].style["opacity"] = "1" if i % 9 == 4 else "0" if i == 13 else f"{0.2 + (i % 7) / 10:g}"


@pytest.mark.parametrize("policy", POLICIES)
def test_an_api_opacity_plans_what_planning_from_scratch_plans(policy):
    frames, graphs = _lockstep(lambda: _strip("will-change: opacity; opacity: 0.5"), policy, 24, _fade)
    if policy in ("browser", "all"):
        assert frames >= 8, "an opacity change of a promoted layer drawn alone takes the fast path"
    notes = [d.text for g in graphs for d in g.decisions if d.layer_id == "mover" and "opacity" in d.text]
    assert any("0.2" in n for n in notes) and any("0.7" in n for n in notes), "the decision says the opacity now"


def _glass() -> Scene:
    """A promoted frosted panel over the strip: its backdrop-filter reads what lies under it."""
    scene = _strip()
    scene.root.add(Layer("glass", (20, 20, 120, 60),
                         "background: rgb(255 255 255 / 20%); backdrop-filter: blur(3px); will-change: transform"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_an_api_move_of_a_backdrop_filter_reads_where_it_now_is(policy):
    def glide(scene: Scene, i: int) -> None:
        scene["glass"].style["transform"] = f"translate({i * 17 % 250}px, 0px)"

    _lockstep(_glass, policy, 12, glide)


def _cards() -> Scene:
    scene = Scene(640, 360, "#f4f4f4")
    for i in range(12):
        card = scene.root.add(Layer(f"card{i}", (20 + (i % 6) * 100, 20 + (i // 6) * 160, 90, 140),
                                    "background: #fff; border-radius: 8px"))
        card.add(Layer(f"title{i}", (8, 8, 60, 10), "background: #48f"))
    return scene


def test_a_repainted_card_damages_the_frame_where_it_lies_only():
    scene, state = _cards(), FrameState()
    for i in range(3):
        scene["card7"].style["background-color"] = f"rgb({i * 60}, 200, 220)"
        graph = build_frame_graph(scene, FrameRequest(), Limits(), ImageStore(), state, KEPT)
    paint = next(p for p in graph.passes if p.name == "paint:root-base")
    composite = next(p for p in graph.passes if p.name == "composite:frame")
    card = scene["card7"].box
    assert composite.damage == (card.x, card.y, card.width, card.height), "the frame is redrawn where the card lies"
    assert composite.damage[2:] == paint.damage[2:], "as much as the backing repainted (in its own pixels)"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_move_after_a_fade_keeps_the_new_opacity(policy):
    def fade_then_move(scene: Scene, i: int) -> None:
        if i == 3:
            scene["mover"].style["opacity"] = "0.3"
        if i >= 4:
            scene["mover"].style["transform"] = f"translate({i * 5}px, 0px)"

    _lockstep(lambda: _strip("will-change: transform; opacity: 0.5"), policy, 8, fade_then_move)


@pytest.mark.parametrize("policy", POLICIES)
def test_an_api_move_under_an_animated_ancestor(policy):
    def make() -> Scene:
        scene = Scene(400, 120, "#eee")
        holder = scene.root.add(Layer("a", (0, 0, 400, 120)))
        holder.animate({"from": {"transform": "translate(0px, 0px)"}, "to": {"transform": "translate(4px, 0px)"}},
                       duration=1.0, iterations="infinite")
        holder.add(Layer("mover", (0, 40, 30, 30), "background: #c33; will-change: transform"))
        scene.root.add(Layer("card", (200, 30, 40, 50), "background: #48f"))
        return scene

    def slide(scene: Scene, i: int) -> None:
        scene["mover"].style["transform"] = f"translate({i * 40}px, 0px)"

    _lockstep(make, policy, 10, slide)


def _recolour(scene: Scene, i: int) -> None:
    """A colour picker on a card, its title and, now and then, the mover's border: the
    paint changes alone (no move): the backing they paint into is repainted in place."""
    scene[f"c{i % 8}"].style["background-color"] = f"rgb({i * 37 % 256}, 90, 200)"
    if i % 3 == 0:
        scene[f"t{(i * 5) % 8}"].style["background-color"] = f"rgb(250, {i * 11 % 256}, 0)"
    if i % 4 == 1:
        scene["mover"].style["border-color"] = f"rgb(0, {i * 29 % 256}, 0)"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("first", [False, True], ids=["among", "under"])
def test_an_api_paint_change_plans_what_planning_from_scratch_plans(policy, first):
    frames, graphs = _lockstep(lambda: _strip("will-change: transform; border: 2px solid #000", mover_first=first),
                               policy, 24, _recolour)
    if policy == "none":
        assert frames == 0, "nothing is kept between frames: every frame is planned (and painted) anew"
        return
    assert frames >= 16, "a colour change of layers already painted repaints in place on the fast path"
    if policy == "browser":
        repaints = [p for g in graphs[3:] for p in g.passes if p.name.startswith("paint:") and p.damage is not None]
        assert repaints, "a backing of several layers is repainted where they changed, not painted anew"


@pytest.mark.parametrize("policy", POLICIES)
def test_paint_moves_and_fades_in_a_seeded_random_order(policy, rng):
    """Colour changes of cards, titles and the mover mixed with the mover's moves and
    fades, in an order drawn from the run's seed: every frame the graph planning from
    scratch gives."""
    kinds = ["card", "title", "move", "fade", "border", "text", "position"]
    steps = [(kinds[rng.integers(len(kinds))], int(rng.integers(8)), int(rng.integers(256))) for _ in range(40)]

    def script(scene: Scene, i: int) -> None:
        what, k, v = steps[i]
        if what == "card":
            scene[f"c{k}"].style["background-color"] = f"rgb({v}, 40, 90)"
        elif what == "title":
            scene[f"t{k}"].style["background-color"] = f"rgb(9, {v}, 90)"
        elif what == "border":
            scene["mover"].style["border-color"] = f"rgb({v}, {v}, 0)"
        elif what == "text":
            scene[f"t{k}"].text = None if v % 5 == 0 else f"n{v}"
        elif what == "position":
            scene[f"c{k}"].style["background-position"] = f"{v % 7}px 2px"
        elif what == "move":
            scene["mover"].style["transform"] = f"translate({v * 1.7 - 20:g}px, {k * 3}px)"
        else:
            scene["mover"].style["opacity"] = f"{0.1 + v / 300:.3f}"

    _lockstep(lambda: _strip("will-change: transform; border: 2px solid #000; opacity: 0.5"), policy, len(steps), script)


def test_a_transparent_background_made_visible_plans_from_scratch():
    """A layer that painted nothing starts painting: it was in no backing, so last
    frame's decisions cannot hold it (the graph is still the one from scratch)."""
    def make() -> Scene:
        scene = _strip()
        scene.root.add(Layer("ghost", (300, 5, 40, 20)))
        return scene

    def script(scene: Scene, i: int) -> None:
        scene["ghost"].style["background-color"] = "transparent" if i % 2 else "#0a0"

    frames, _ = _lockstep(make, "browser", 6, script)
    assert frames == 0, "a layer that starts or stops painting changes what is drawn: no fast path"
