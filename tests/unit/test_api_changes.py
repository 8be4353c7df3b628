"""Style changes made through the API (``layer.style[...] = ...``), as a script or a
demo's slider makes them, take the retained fast path when last frame's decisions
stand: the graph is, frame by frame, the one planning from scratch gives (lockstep
against a planner without the fast path), and the fast frames are counted. No GPU: the
planner is told every kept texture still exists."""

from __future__ import annotations

import numpy as np
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
    fast, graphs = _lockstep_frames(make, policy, frames, script)
    return sum(fast), graphs


def _lockstep_frames(make, policy: str, frames: int, script) -> tuple[list[bool], list]:
    """As _lockstep, returning for each frame whether it took the fast path."""
    a, b = make(), make()
    fast, slow = FrameState(), FrameState(fast_path=False)
    graphs, took = [], []
    for i in range(frames):
        script(a, i)
        script(b, i)
        before = fast.fast_frames
        ga = build_frame_graph(a, FrameRequest(t=0.0, policy=policy), Limits(), ImageStore(), fast, KEPT)
        gb = build_frame_graph(b, FrameRequest(t=0.0, policy=policy), Limits(), ImageStore(), slow, KEPT)
        assert_same_graph(ga, gb)
        graphs.append(ga)
        took.append(fast.fast_frames > before)
    assert slow.fast_frames == 0
    return took, graphs


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


# -- filter and backdrop-filter amounts ---------------------------------------------------

def _blur_slider(scene: Scene, i: int) -> None:
    """A blur slider on the mover: small steps (its reach stays among the same cards) and
    now and then a large amount (its reach covers more of them: overlap decisions change)."""
    amount = 14 if i % 7 == 6 else 1 + (i % 4) * 0.5
    scene["mover"].style["filter"] = f"blur({amount:g}px)"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("promoted_by", ["will-change: filter", "will-change: transform", "z-index: 0"])
def test_an_api_blur_amount_plans_what_planning_from_scratch_plans(policy, promoted_by):
    """(A filtered layer not promoted is drawn as its filter's result all the same.)"""
    took, graphs = _lockstep_frames(lambda: _strip(f"{promoted_by}; filter: blur(1px)"), policy, 21, _blur_slider)
    if policy in ("browser", "all"):
        assert sum(took) >= 10, "a blur amount that keeps last frame's decisions takes the fast path"
    if policy == "browser":
        assert not all(took), "a reach over other cards changes what is promoted for overlap: planned from scratch"
    assert all(any(p.name.startswith("filter:mover") for p in g.passes) for g in graphs), \
        "every frame filters the mover anew (its amount changed)"


@pytest.mark.parametrize("policy", POLICIES)
def test_an_api_colour_filter_plans_what_planning_from_scratch_plans(policy):
    def slide(scene: Scene, i: int) -> None:
        scene["mover"].style["filter"] = f"brightness({0.5 + (i % 8) / 10:g}) saturate({1 + i % 3})"

    took, graphs = _lockstep_frames(lambda: _strip("will-change: transform; filter: brightness(1.2)"), policy, 16,
                                    slide)
    if policy in ("browser", "all"):
        # (The second frame is planned from scratch: the first one's new rasters are reused then.)
        assert all(took[2:]), "a colour filter's amounts never change its bounds: every change takes the fast path"
        raster = [p.name for g in graphs[1:] for p in g.passes if p.name.startswith(("raster:", "paint:"))]
        assert raster == [], "nothing is rastered again: the mover's raster and the cards' backings are kept"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_filter_turned_to_none_and_back_is_planned_from_scratch(policy):
    values = ["blur(2px)", "blur(3px)", "none", "none", "blur(3px)", "blur(2px)", "sepia(1)", "none", "sepia(0.5)"]

    def toggle(scene: Scene, i: int) -> None:
        scene["mover"].style["filter"] = values[i]

    took, graphs = _lockstep_frames(lambda: _strip("will-change: transform"), policy, len(values), toggle)
    for i, value in enumerate(values):
        if i and "none" in (value, values[i - 1]) and value != values[i - 1]:
            assert not took[i], f"frame {i}: the filter's surface appears or goes: planned from scratch"
    if policy in ("browser", "all"):
        assert took[5] and took[6], "a filter changed to another filter takes the fast path"


def _frosted(opacity: float) -> Scene:
    scene = _strip()
    scene.root.add(Layer("glass", (20, 20, 120, 60), "background: rgb(255 255 255 / 20%); backdrop-filter: blur(3px); "
                                                      f"will-change: transform; opacity: {opacity:g}"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("opacity", [1.0, 0.8], ids=["drawn under it", "in a surface"])
def test_an_api_backdrop_filter_amount_plans_what_planning_from_scratch_plans(policy, opacity):
    def slide(scene: Scene, i: int) -> None:
        scene["glass"].style["backdrop-filter"] = f"blur({1 + i % 5}px) brightness({1 + (i % 3) / 10:g})"

    took, graphs = _lockstep_frames(lambda: _frosted(opacity), policy, 12, slide)
    if policy in ("browser", "all"):
        assert sum(took) >= 8, "a backdrop-filter's amounts take the fast path"
    reads = [p for g in graphs for p in g.passes if p.name == "backdrop:glass"]
    assert len(reads) == len(graphs), "every frame reads the backdrop anew"


def _three() -> Scene:
    """Three promoted layers (a filtered one, a faded one, a moved one) among the cards."""
    scene = _strip()
    scene.root.add(Layer("f", (150, 10, 40, 40), "background: #3a3; will-change: transform; filter: blur(2px)"))
    scene.root.add(Layer("o", (220, 60, 40, 40), "background: #a3a; will-change: opacity; opacity: 0.5"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_random_api_changes_plan_what_planning_from_scratch_plans(policy, rng):
    """200 frames of random changes of transform, opacity and filter amount on three
    layers (one a frame, now and then two or three); LAMINA_SEED replays a failure."""
    def change(scene: Scene, i: int) -> None:
        for _ in range(int(rng.choice([1, 1, 1, 2, 3]))):
            layer = scene[str(rng.choice(["mover", "f", "o"]))]
            what = rng.choice(["transform", "opacity", "filter"])
            if what == "transform":
                layer.style["transform"] = f"translate({rng.integers(-40, 300)}px, {rng.integers(-30, 60)}px)"
            elif what == "opacity":
                layer.style["opacity"] = f"{rng.choice([0.3, 0.5, 0.8, 1.0]):g}"
            else:
                layer.style["filter"] = str(rng.choice(["blur(1px)", "blur(2.5px)", "blur(9px)", "brightness(1.3)",
                                                        "contrast(0.8) saturate(2)", "drop-shadow(3px 3px 2px red)",
                                                        "none"]))

    states: dict[int, dict] = {}  # frame -> the generator's state before its changes

    def script(scene: Scene, i: int) -> None:
        """The same changes for both planners: the second replays the first's draws."""
        if i not in states:
            states[i] = rng.bit_generator.state
            change(scene, i)
        else:
            after = rng.bit_generator.state
            rng.bit_generator.state = states[i]
            change(scene, i)
            rng.bit_generator.state = after

    took, _ = _lockstep_frames(_three, policy, 200, script)
    if policy in ("browser", "all"):
        assert sum(took) >= 20, "random changes that keep last frame's decisions take the fast path"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_blur_that_brings_a_culled_child_in_moves_the_decisions_after_it(policy):
    """The blurred layer's child lies just off the page: a small blur leaves it culled (a
    decision says so), a large one reaches it (no decision). The faded layer painted
    after it finds its own decision where it now is."""
    def make() -> Scene:
        scene = Scene(400, 200, "#eee")
        for i in range(4):
            scene.root.add(Layer(f"c{i}", (10 + i * 48, 30, 40, 50), "background: #48f"))
        blurred = scene.root.add(Layer("mover", (0, 150, 30, 30), "background: #c33; will-change: transform; "
                                                                  "filter: blur(1px)"))
        blurred.add(Layer("off", (-40, 5, 30, 20), "background: #3c3"))
        scene.root.add(Layer("o", (300, 150, 40, 40), "background: #a3a; will-change: opacity; opacity: 0.5"))
        return scene

    def script(scene: Scene, i: int) -> None:
        if i % 2:
            scene["o"].style["opacity"] = f"{0.3 + (i % 5) / 10:g}"
        else:
            scene["mover"].style["filter"] = f"blur({1 if i % 4 else 6}px)"

    took, graphs = _lockstep_frames(make, policy, 14, script)
    culled = ["off" in {d.layer_id for d in g.decisions} for g in graphs]
    assert True in culled and False in culled, "the child is culled under a small blur only"
    if policy in ("browser", "all"):
        assert all(took[3:]), "blur amounts and fades take the fast path, each frame"


def test_an_image_a_blur_brings_in_is_watched_for_changes_afterwards():
    """A blurred layer's child showing an in-memory image lies just off the page until a
    larger blur reaches it; later frames that only fade another layer must still see
    the image's pixels change in place (and plan it again)."""
    pixels = np.full((8, 8, 4), 255, np.uint8)  # both planners' scenes show this one array

    def make() -> Scene:
        scene = Scene(200, 120, "#eee")
        blurred = scene.root.add(Layer("mover", (0, 40, 30, 30), "background: #c33; will-change: transform; "
                                                                 "filter: blur(1px)"))
        blurred.add(Layer("pic", (-40, 5, 30, 20), image=pixels))
        scene.root.add(Layer("o", (120, 40, 40, 40), "background: #a3a; will-change: opacity; opacity: 0.5"))
        return scene

    def script(scene: Scene, i: int) -> None:
        if i == 3:
            scene["mover"].style["filter"] = "blur(8px)"  # its reach now covers the image
        else:
            scene["o"].style["opacity"] = f"{0.3 + (i % 4) / 10:g}"
        if i == 5:
            pixels[:, :, 0] = 0  # the image's pixels change in place

    took, graphs = _lockstep_frames(make, "browser", 7, script)
    assert took[3] and took[4], "the blur and the fade after it take the fast path"
    assert not took[5], "the changed image is seen: planned from scratch"
    assert any(p.name == "raster:pic" for p in graphs[5].passes), "the image is rastered again"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_blur_amount_inside_a_promoted_container(policy):
    """The blurred element is a child of a promoted panel with no effect of its own: the
    panel is drawn by its backing and by the blurred child's result, which is planned
    alone again."""
    def make() -> Scene:
        scene = _strip()
        panel = scene.root.add(Layer("panel", (200, 85, 150, 30), "background: #ddd; will-change: transform"))
        panel.add(Layer("icon", (10, 5, 20, 20), "background: #c33; filter: blur(1px)"))
        panel.add(Layer("label", (40, 10, 80, 10), "background: #333"))
        return scene

    def slide(scene: Scene, i: int) -> None:
        scene["icon"].style["filter"] = f"blur({1 + i % 3}px) brightness({1 + i % 2 / 5:g})"

    took, _ = _lockstep_frames(make, policy, 10, slide)
    if policy in ("browser", "all"):
        assert all(took[2:]), "the child's filter amounts take the fast path"


# -- cases a review found (each failed the lockstep before its fix) --------------------------
def _shadowed_pair() -> Scene:
    """Two layers painted into the page's base backing, one with a box-shadow."""
    scene = Scene(200, 100, "#eee")
    scene.root.add(Layer("a", (10, 10, 40, 40), "background: #48f; box-shadow: 3px 3px 3px black"))
    scene.root.add(Layer("b", (100, 10, 40, 40), "background: #c33"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_a_backing_members_box_shadow_ends_when_planning_from_scratch_ends_it(policy):
    """The shadow a member's raster read while its backing was painted is let go, and
    listed as reused once, as planning from scratch does (the fast path kept it: a leak,
    and a texture listed twice)."""
    def script(scene: Scene, i: int) -> None:
        if i in (1, 4):
            scene["a"].style["border-color"] = f"rgb({i * 40}, 0, 0)"
        if i in (2, 3, 5):
            scene["b"].style["background-color"] = f"rgb({i * 40}, 0, 0)"

    _lockstep(_shadowed_pair, policy, 7, script)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_filter_amount_and_a_later_colour_name_their_textures_in_paint_order(policy):
    def make() -> Scene:
        scene = Scene(320, 200, "#eee")
        scene.root.add(Layer("f", (20, 20, 40, 40), "background: #48f; filter: blur(1px)"))
        scene.root.add(Layer("t", (150, 60, 60, 60), "background: #c33"))
        return scene

    def script(scene: Scene, i: int) -> None:
        if i >= 2:
            scene["f"].style["filter"] = f"blur({i}px)"
            scene["t"].style["background-color"] = f"rgb({i * 30}, 0, 0)"

    _lockstep(make, policy, 5, script)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("glass", [(200, 140), (-60, -10)], ids=["apart", "over"])
def test_a_filter_amount_inside_nested_backdrop_filters_runs_each_pass_once(policy, glass):
    """A box drawn as its own surface inside an element with a backdrop-filter holds
    another backdrop-filter: a filter set on the box through the API re-plans it, and its
    passes run once (they ran twice, and the frame showed it)."""
    def make() -> Scene:
        scene = Scene(320, 200, "#eee")
        scene.root.add(Layer("under", (0, 0, 320, 200), "background: linear-gradient(red, blue)"))
        outer = scene.root.add(Layer("outer", (40, 40, 20, 60), "backdrop-filter: blur(4px)"))
        box = outer.add(Layer("box", (60, 0, 70, 50), "will-change: opacity; background: rgb(0 255 0 / 30%)"))
        box.add(Layer("glass", (*glass, 30, 20), "backdrop-filter: blur(1px); background: rgb(255 255 0 / 40%)"))
        return scene

    def script(scene: Scene, i: int) -> None:
        if i:
            scene["box"].style["filter"] = f"grayscale({1 / i:g})"

    _, graphs = _lockstep(make, policy, 5, script)
    for g in graphs:
        names = [p.name for p in g.passes]
        assert len(names) == len(set(names)), f"a pass twice: {names}"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_texture_the_executor_lost_is_not_listed_as_reused(policy):
    """The raster a kept filter result was made from is lost between frames; a colour
    change elsewhere then plans from scratch (the fast path listed the lost texture as
    reused and the executor failed on it)."""
    from tests.kept import KeptTextures

    def make() -> Scene:
        scene = Scene(300, 160, "#eee")
        f = scene.root.add(Layer("f", (20, 20, 100, 100), "background: #c33; will-change: transform; filter: blur(2px)"))
        f.add(Layer("kid", (10, 10, 40, 30), "background: #3c3"))
        scene.root.add(Layer("other", (200, 40, 40, 40), "background: #48f"))
        return scene

    scene, lost = make(), set()
    state, facts = FrameState(), ExecutorFacts(retained=KeptTextures(lost))
    for i in range(4):
        if i == 3:
            scene["other"].style["background-color"] = "#f80"
        graph = build_frame_graph(scene, FrameRequest(policy=policy), Limits(), ImageStore(), state, facts)
        if i == 2:
            lost.update(n for n in graph.reused if "kid" in n)
    assert not lost & set(graph.reused), "a lost texture is made again, not listed as reused"
