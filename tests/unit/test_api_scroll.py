"""Scroll offsets set through the API (``scroller.style["scroll-top"] = ...``), frame by
frame, plan what planning from scratch plans, under every policy: steps that stay within
the kept tiles of a composited scroller's contents and steps that need new tiles, nested
scrollers, a sticky header and a fixed layer inside, offsets past the end (clamped), and
a seeded random mix of scroll offsets with transform, opacity and colour changes. No
GPU: the planner is told every kept texture still exists."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene
from tests.unit.test_api_changes import POLICIES, _lockstep_frames

CARD = "background: #48f; border-radius: 4px"


def _scrolling(sticky: bool = False, fixed: bool = False, nested: bool = False, movers: bool = False,
               after: bool = True, at: tuple[float, float] = (20, 20), card_x: float = 10) -> Scene:
    """A 400x260 scroll container holding 60 cards in rows of three (1,810 px of
    content), with what the test asks for inside it (and a layer painted after it)."""
    scene = Scene(480, 320, "#eee")
    box = scene.root.add(Layer("box", (*at, 400, 260), "overflow: scroll; background: white; border: 2px solid #234"))
    if sticky:
        box.add(Layer("head", (0, 0, 396, 30), "position: sticky; top: 0; z-index: 1; background: rgba(20, 30, 60, 0.85)"))
    for i in range(60):
        card = box.add(Layer(f"c{i}", (card_x + (i % 3) * 128, 40 + (i // 3) * 90, 120, 80), CARD))
        card.add(Layer(f"t{i}", (6, 6, 60, 10), "background: white"))
    if nested:
        inner = box.add(Layer("inner", (20, 700, 300, 150), "overflow: scroll; background: #fe8"))
        for i in range(12):
            inner.add(Layer(f"n{i}", (10, 10 + i * 40, 260, 30), "background: #3a3"))
    if fixed:
        box.add(Layer("pin", (300, 200, 60, 40), "position: fixed; background: #c33"))
    if movers:
        scene["c4"].style["will-change"] = "transform"
        scene["c8"].style.update({"will-change": "opacity", "opacity": "0.6"})
    if after:
        scene.root.add(Layer("after", (430, 40, 40, 200), "background: #a3a"))  # painted after the scroller
    return scene


# Plain contents (nothing but cards): under the browser policy a scroll is planned on the
# fast path; the last two place the scroller and the cards at fractions of a px.
PLAIN = {
    "plain": lambda: _scrolling(after=False),
    "fractions": lambda: _scrolling(after=False, at=(20.5, 20.3), card_x=10.3),
    "promoted after": lambda: _with_badge(_scrolling(after=False)),
}


def _with_badge(scene: Scene) -> Scene:
    """A promoted layer painted after the scroller (not tested for overlap against it)."""
    scene.root.add(Layer("badge", (430, 40, 40, 40), "background: #a3a; will-change: transform"))
    return scene


def _run(make, policy: str, offsets, frames: int, scroller: str = "box") -> list:
    """Lockstep frames with ``offsets(i)`` (x, y) set on ``scroller`` before frame i;
    returns the graphs."""
    return _run_frames(make, policy, offsets, frames, scroller)[1]


def _run_frames(make, policy: str, offsets, frames: int, scroller: str = "box") -> tuple[list[bool], list]:
    def script(scene: Scene, i: int) -> None:
        x, y = offsets(i)
        scene[scroller].style["scroll-left"] = f"{x}px"
        scene[scroller].style["scroll-top"] = f"{y}px"

    return _lockstep_frames(make, policy, frames, script)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("page", list(PLAIN))
@pytest.mark.parametrize("steps", ["small", "long", "clamped"])
def test_scrolls_of_plain_contents_take_the_fast_path(policy, page, steps):
    """Small steps within kept tiles, long ones that raster new tiles, and offsets past
    the end: under the policies that scroll contents as one tiled backing every frame after the second (the first's new
    rasters are reused from scratch) is planned on the fast path, with the graph
    planning from scratch gives."""
    ys = {"small": [7 * i for i in range(10)], "long": [450 * i for i in range(6)],
          "clamped": [0, 5000, 1600, 99999, 0, 120, 120, 3]}[steps]
    took, graphs = _run_frames(PLAIN[page], policy, lambda i: (0, ys[i]), len(ys))
    if policy in ("browser", "budget"):
        assert all(took[2:]), f"every scroll frame after the second takes the fast path: {took}"
        if steps == "long":
            assert any(ts.rastered for g in graphs[1:] for ts in g.tiles), "new tiles rastered on the fast path"


@pytest.mark.parametrize("policy", POLICIES)
def test_small_steps_stay_within_kept_tiles(policy):
    graphs = _run(_scrolling, policy, lambda i: (0, 7 * i), 12)
    if policy == "browser":
        contents = [[ts for ts in g.tiles if ts.owner == "box-contents"] for g in graphs]
        assert all(len(ts) == 1 for ts in contents), "the scroller's contents are one tiled backing"
        assert all(ts[0].rastered == 0 for ts in contents[1:]), "a small step moves kept tiles, rasters none"


@pytest.mark.parametrize("policy", POLICIES)
def test_long_steps_need_new_tiles(policy):
    graphs = _run(_scrolling, policy, lambda i: (0, 450 * i), 6)
    if policy == "browser":
        rastered = [ts.rastered for g in graphs[1:] for ts in g.tiles if ts.owner == "box-contents"]
        assert any(rastered), "a long step rasters the tiles it brings near the scrollport"


@pytest.mark.parametrize("policy", POLICIES)
def test_offsets_past_the_end_are_clamped_alike(policy):
    ys = [0, 5000, 1600, 99999, 0, 120]
    graphs = _run(_scrolling, policy, lambda i: (30 * (i % 2), ys[i]), len(ys))
    assert any("clamped" in d.text for d in graphs[1].decisions), "the clamp is reported"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_sticky_header_follows_the_scroll(policy):
    _run(lambda: _scrolling(sticky=True), policy, lambda i: (0, [0, 3, 40, 41, 300, 900, 20, 0][i]), 8)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_fixed_layer_stays_put(policy):
    _run(lambda: _scrolling(fixed=True), policy, lambda i: (0, 60 * i), 8)


@pytest.mark.parametrize("policy", POLICIES)
def test_nested_scrollers(policy):
    make = lambda: _scrolling(nested=True)  # noqa: E731

    def script_offsets(i: int) -> tuple[int, int]:
        return (0, [0, 500, 520, 600, 640, 700, 0, 580][i])

    def script(scene: Scene, i: int) -> None:
        scene["box"].style["scroll-top"] = f"{script_offsets(i)[1]}px"
        scene["inner"].style["scroll-top"] = f"{[0, 0, 30, 30, 200, 999, 10, 90][i]}px"

    _lockstep_frames(make, policy, 8, script)


@pytest.mark.parametrize("policy", POLICIES)
def test_scrolls_moves_fades_and_colours_in_a_seeded_random_order(policy, rng):
    """80 frames, each with one to three of: a scroll offset of the outer or the inner
    scroller, a transform on a promoted card in the scroller, an opacity on a faded one,
    a colour on a card that is not composited; LAMINA_SEED replays a failure."""
    at: dict[int, int] = {}  # id(scene) -> its scroller's last offset asked for

    def change(scene: Scene) -> None:
        for _ in range(int(rng.choice([1, 1, 2, 3]))):
            what = rng.choice(["scroll", "scroll", "inner", "transform", "opacity", "colour"])
            if what == "scroll":
                far, near = int(rng.integers(0, 1800)), at.get(id(scene), 0) + int(rng.integers(-20, 21))
                at[id(scene)] = max(far if rng.random() < 0.3 else near, 0)
                scene["box"].style["scroll-top"] = f"{at[id(scene)]}px"
            elif what == "inner":
                scene["inner"].style["scroll-top"] = f"{rng.integers(0, 400)}px"
            elif what == "transform":
                scene["c4"].style["transform"] = f"translate({rng.integers(-40, 200)}px, {rng.integers(-30, 300)}px)"
            elif what == "opacity":
                scene["c8"].style["opacity"] = f"{rng.choice([0.3, 0.5, 0.8]):g}"
            else:
                scene[f"c{rng.integers(0, 60)}"].style["background-color"] = f"rgb({rng.integers(0, 256)}, 90, 160)"

    states: dict[int, dict] = {}

    def script(scene: Scene, i: int) -> None:
        """The same changes for both planners: the second replays the first's draws."""
        if i not in states:
            states[i] = rng.bit_generator.state
            change(scene)
        else:
            after = rng.bit_generator.state
            rng.bit_generator.state = states[i]
            change(scene)
            rng.bit_generator.state = after

    _lockstep_frames(lambda: _scrolling(sticky=True, fixed=True, nested=True, movers=True), policy, 80, script)


def _plain_mix() -> Scene:
    """Plain scroller contents, a promoted badge and a faded layer painted after them."""
    scene = _with_badge(_scrolling(after=False, at=(20.5, 20)))
    scene.root.add(Layer("veil", (440, 120, 30, 30), "background: #3a3; will-change: opacity; opacity: 0.5"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_plain_scrolls_mixed_with_other_changes_in_a_seeded_random_order(policy, rng):
    """120 frames, each one or two of: a scroll (a small step, or a jump), a move of the
    badge, a fade of the veil, a colour of a card in the scroller or of the badge; the
    frames that only scroll take the fast path under the browser policy (LAMINA_SEED
    replays a failure)."""
    at: dict[int, int] = {}

    def change(scene: Scene) -> None:
        for _ in range(int(rng.choice([1, 1, 1, 2]))):
            what = rng.choice(["scroll", "scroll", "scroll", "scroll", "transform", "opacity", "colour", "badge"])
            if what == "scroll":
                far, near = int(rng.integers(0, 1800)), at.get(id(scene), 0) + int(rng.integers(-30, 31))
                at[id(scene)] = max(far if rng.random() < 0.25 else near, 0)
                scene["box"].style["scroll-top"] = f"{at[id(scene)]}px"
            elif what == "transform":
                scene["badge"].style["transform"] = f"translate({rng.integers(-60, 10)}px, {rng.integers(-30, 200)}px)"
            elif what == "opacity":
                scene["veil"].style["opacity"] = f"{rng.choice([0.3, 0.5, 0.8]):g}"
            elif what == "colour":
                scene[f"c{rng.integers(0, 60)}"].style["background-color"] = f"rgb({rng.integers(0, 256)}, 90, 160)"
            else:
                scene["badge"].style["background-color"] = f"rgb(160, {rng.integers(0, 256)}, 90)"

    states: dict[int, dict] = {}

    def script(scene: Scene, i: int) -> None:
        if i not in states:
            states[i] = rng.bit_generator.state
            change(scene)
        else:
            after = rng.bit_generator.state
            rng.bit_generator.state = states[i]
            change(scene)
            rng.bit_generator.state = after

    took, _ = _lockstep_frames(_plain_mix, policy, 120, script)
    if policy in ("browser", "budget"):
        assert sum(took) >= 20, "scroll frames take the fast path"


def _page() -> Scene:
    """The page's root scrolled: plain cards in it, a clear colour under them."""
    scene = Scene(480, 320, "#eee")
    scene.root.style["overflow"] = "auto"
    for i in range(60):
        scene.root.add(Layer(f"c{i}", (10.5 + (i % 3) * 150, 10 + (i // 3) * 90, 140, 80), CARD))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_the_page_s_own_scroll_takes_the_fast_path(policy):
    ys = [0, 9, 18, 600, 1400, 99999, 0, 5]
    took, _ = _run_frames(_page, policy, lambda i: (0, ys[i]), len(ys), scroller="root")
    if policy in ("browser", "budget"):
        assert all(took[2:]), took


def test_deferred_scrolls_place_the_very_matrices_and_clips_an_eager_update_places():
    """The property trees asked to defer scrolls update the scroll node alone; refresh
    places one descendant, settle all of them, each as an eager update does (the very
    floats), and settle reports them as moved."""
    from lamina.compositor.property_trees import MOVED, PropertyTrees

    def make() -> Scene:
        scene = _scrolling(sticky=True, fixed=True, nested=True, at=(20.5, 20.25), card_x=10.3)
        scene["t5"].style["transform"] = "rotate(10deg)"
        return scene

    eager_scene, lazy_scene = make(), make()
    eager, lazy = PropertyTrees(), PropertyTrees()
    eager.update(eager_scene, 0.0)
    lazy.update(lazy_scene, 0.0, defer_scrolls=True)
    for step, (outer, inner) in enumerate([(37, 0), (500, 30), (510, 999), (0, 10)]):
        for scene in (eager_scene, lazy_scene):
            scene["box"].style["scroll-top"] = f"{outer}px"
            scene["inner"].style["scroll-top"] = f"{inner}px"
        moved = eager.update(eager_scene, 0.0)
        changes = lazy.update(lazy_scene, 0.0, defer_scrolls=True)
        assert set(changes.fields) <= {"box", "inner"} and set(lazy.deferred) <= {"box", "inner"}
        for layer_id in ("t5", "c7", "head", "n3"):  # one placed on demand, as an eager update placed it
            lazy.refresh(lazy.nodes[layer_id])
            assert lazy.nodes[layer_id].to_screen == eager.nodes[layer_id].to_screen, (step, layer_id)
            assert lazy.nodes[layer_id].clips == eager.nodes[layer_id].clips, (step, layer_id)
        if step % 2:
            settled = lazy.settle()
            assert not lazy.deferred
            assert {k for k, v in moved.fields.items() if MOVED in v} <= set(settled)
            for layer_id, node in eager.nodes.items():
                assert lazy.nodes[layer_id].to_screen == node.to_screen, (step, layer_id)
                assert lazy.nodes[layer_id].clips == node.clips, (step, layer_id)
                assert lazy.nodes[layer_id].sticky == node.sticky, (step, layer_id)
    lazy_scene["c3"].style["transform"] = "translate(5px, 5px)"  # any other change places every node first
    eager_scene["c3"].style["transform"] = "translate(5px, 5px)"
    eager.update(eager_scene, 0.0)
    lazy.update(lazy_scene, 0.0, defer_scrolls=True)
    assert not lazy.deferred
    for layer_id, node in eager.nodes.items():
        assert lazy.nodes[layer_id].to_screen == node.to_screen, layer_id


def _nested_last() -> Scene:
    """Plain cards, then a scroller of its own (plain too) painted last in the outer one."""
    scene = _scrolling(after=False)
    inner = scene["box"].add(Layer("inner", (20, 1850, 300, 150), "overflow: scroll; background: #fe8"))
    for i in range(30):
        inner.add(Layer(f"n{i}", (10 + (i % 2) * 140, 10 + (i // 2) * 40, 130, 30), "background: #3a3"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_an_inner_scroller_and_its_outer_one_scrolled_in_turn(policy):
    """The inner scroller alone, then the outer one alone, then both: each frame the graph
    planning from scratch gives (the outer's record is dropped when the inner one is
    planned on the fast path: it is planned from scratch again)."""
    outer = [0, 1500, 1500, 1500, 1500, 1520, 1530, 1500, 1510, 1510]
    inner = [0, 0, 0, 40, 90, 90, 90, 300, 310, 999]

    def script(scene: Scene, i: int) -> None:
        scene["box"].style["scroll-top"] = f"{outer[i]}px"
        scene["inner"].style["scroll-top"] = f"{inner[i]}px"

    took, _ = _lockstep_frames(_nested_last, policy, len(outer), script)
    if policy == "browser":
        assert any(took), took


def test_a_new_tiling_between_scrolls_plans_from_scratch():
    """The tiling decides how far past the scrollport the contents are kept: a frame
    asked with another one is planned from scratch, with the graph that gives."""
    from lamina import FrameRequest
    from lamina.graph import FrameState, build_frame_graph
    from lamina.images import ImageStore
    from lamina.limits import Limits
    from lamina.tiling import Tiling
    from tests.same_graph import assert_same_graph
    from tests.unit.test_api_changes import KEPT

    a, b = _scrolling(after=False), _scrolling(after=False)
    fast, slow = FrameState(), FrameState(fast_path=False)
    tilings = [Tiling(), Tiling(), Tiling(), Tiling(tile_size=256, interest_margin=64), Tiling(tile_size=256, interest_margin=64)]
    took = []
    for i, tiling in enumerate(tilings):
        for scene in (a, b):
            scene["box"].style["scroll-top"] = f"{40 * i}px"
        before = fast.fast_frames
        ga = build_frame_graph(a, FrameRequest(tiling=tiling), Limits(), ImageStore(), fast, KEPT)
        gb = build_frame_graph(b, FrameRequest(tiling=tiling), Limits(), ImageStore(), slow, KEPT)
        assert_same_graph(ga, gb)
        took.append(fast.fast_frames > before)
    assert took == [False, False, True, False, True], took  # (the first frame rasters what the second reuses)


def _random_plain(rng) -> Scene:
    """Plain contents of a seeded random shape: nested containers (some painting nothing),
    fractional positions, small and large layers (one taller than the tiling threshold,
    painted in parts), gradients and borders; a scroller at a fractional position."""
    scene = Scene(500, 340, "#eee")
    box = scene.root.add(Layer("box", (15.5, 12.25, 420, 300), "overflow: scroll; background: white"))
    n = 0

    def fill(parent: Layer, depth: int, height: float) -> None:
        nonlocal n
        for _ in range(int(rng.integers(3, 9 if depth else 40))):
            x, y = float(rng.integers(0, 3000)) / 8, float(rng.integers(0, int(height * 4))) / 4
            w, h = float(rng.integers(4, 200)), float(rng.integers(4, 160))
            style = str(rng.choice(["background: #48f", "background: linear-gradient(#f06, #48f)",
                                    "background: #3a3; border: 2px solid #234", "background: rgba(0, 0, 0, 0.3)",
                                    "", "background: #c33; border-radius: 6px"]))
            layer = parent.add(Layer(f"r{n}", (x, y, w, h), style))
            n += 1
            if depth < 2 and rng.random() < 0.3:
                fill(layer, depth + 1, h * 2)
    fill(box, 0, 2600)
    box.add(Layer("tall", (30.25, 100, 40, 2600), "background: linear-gradient(#fa0, #0af)"))
    return scene


@pytest.mark.parametrize("policy", ["browser", "budget"])
def test_random_plain_contents_scrolled_at_random(policy, rng):
    """Plain contents of a random shape scrolled 40 frames (small steps, jumps, past the
    end, sideways too): the graph planning from scratch gives, and most frames on the
    fast path (LAMINA_SEED replays a failure)."""
    shape = rng.bit_generator.state
    _random_plain(rng)  # (the offsets are drawn after the shape)
    offsets = []
    y = x = 0
    for _ in range(40):
        kind = rng.choice(["step", "step", "step", "jump", "end", "side"])
        if kind == "step":
            y = max(0, y + int(rng.integers(-40, 41)))
        elif kind == "jump":
            y = int(rng.integers(0, 2600))
        elif kind == "end":
            y = 99999
        else:
            x = int(rng.integers(0, 80))
        offsets.append((x, y))

    def make() -> Scene:
        rng.bit_generator.state = shape
        return _random_plain(rng)

    took, _ = _run_frames(make, policy, lambda i: offsets[i], len(offsets))
    assert sum(took) >= 20, took
