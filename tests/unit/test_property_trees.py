"""Property trees (compositor.property_trees) and the retained fast path (graph.planner):
an animation frame updates what changed and nothing else, and the graph it plans is the
graph planning from scratch gives — checked frame by frame on every suite scene, the
benchmark pages and scenes changed by script between frames. No GPU: the planner is
told every kept texture still exists."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from lamina import FrameRequest, Layer, Scene, load_scene
from lamina.compositor.property_trees import MOVED, PropertyTrees, TreeChanges
from lamina.compositor.tree import resolve_tree
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
from scenes import cards_scene, page_scene, stack_scene  # noqa: E402
from tests.kept import EVERY_TEXTURE, KeptTextures
from tests.same_graph import assert_same_graph

SUITE = sorted((ROOT / "tests" / "scenes").glob("*.json"))
POLICIES = ("browser", "all", "budget", "none")
KEPT = ExecutorFacts(retained=EVERY_TEXTURE)


def _spinner(n: int = 6) -> Scene:
    scene = Scene(320, 200, "#eee")
    for i in range(n):
        card = scene.root.add(Layer(f"c{i}", (10 + i * 50, 20, 40, 40), "background: #48f; border-radius: 6px"))
        card.add(Layer(f"t{i}", (5, 5, 20, 8), "background: white"))
    scene["c2"].style["will-change"] = "transform"
    scene["c2"].animate({"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(360deg)"}},
                        duration=1.0, iterations="infinite")
    return scene


# -- property trees ---------------------------------------------------------------------
def _same_nodes(trees: PropertyTrees, scene: Scene, t: float) -> None:
    fresh: dict = {}
    resolve_tree(scene.root, t, fresh)
    assert fresh.keys() == trees.nodes.keys()
    for layer_id, node in fresh.items():
        kept = trees.nodes[layer_id]
        assert kept.style == node.style, layer_id
        assert kept.to_screen == node.to_screen, layer_id  # the very floats, not nearly
        assert kept.clips == node.clips, layer_id


def test_a_transform_animation_updates_its_subtree_and_nothing_else():
    scene = _spinner()
    trees = PropertyTrees()
    assert trees.update(scene, 0.0).rebuilt
    changes = trees.update(scene, 0.1)
    assert not changes.rebuilt
    assert changes.fields == {"c2": frozenset({"transform"}), "t2": frozenset({MOVED})}
    assert trees.rebuilds == 1
    _same_nodes(trees, scene, 0.1)


def test_nothing_changed_is_no_change():
    scene = _spinner()
    trees = PropertyTrees()
    trees.update(scene, 0.3)
    changes = trees.update(scene, 0.3)
    assert not changes and changes.fields == {}


def test_script_changes_in_place_and_from_scratch():
    scene = _spinner()
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    scene["c4"].style["transform"] = "translate(3px, 4px)"  # creates a stacking context
    scene["c5"].style["opacity"] = "0.8"  # so does opacity < 1
    changes = trees.update(scene, 0.0)
    assert changes.rebuilt and "stacking context" in changes.why
    scene["c4"].style["transform"] = "translate(5px, 1px)"  # already one: in place
    scene["c5"].style["opacity"] = "0.5"
    changes = trees.update(scene, 0.0)
    assert not changes.rebuilt
    assert changes.fields["c4"] == {"transform"} and changes.fields["t4"] == {MOVED}
    assert changes.fields["c5"] == {"opacity"} and "t5" not in changes.fields
    _same_nodes(trees, scene, 0.0)
    scene["c1"].style["background-color"] = "red"  # a paint colour: in place
    changes = trees.update(scene, 0.0)
    assert not changes.rebuilt and changes.fields["c1"] == {"background_color"} and "t1" not in changes.fields
    assert trees.nodes["c1"].style.background_color == scene["c1"].computed_style(trees.nodes["root"].style).background_color
    scene["c1"].style["border-style"] = "dashed"
    assert trees.update(scene, 0.0).why == "border_style of 'c1' changed"
    scene["c1"].box = (0, 0, 10, 10)
    assert trees.update(scene, 0.0).why == "the box of 'c1' changed"
    scene["c1"].add(Layer("new", (0, 0, 4, 4), "background: red"))
    assert trees.update(scene, 0.0).why == "the layer tree's shape changed"
    _same_nodes(trees, scene, 0.0)


def test_an_inherited_property_rebuilds_and_children_follow():
    scene = _spinner()
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    scene["c3"].style["visibility"] = "hidden"
    assert trees.update(scene, 0.0).rebuilt
    assert trees.nodes["t3"].style.visibility == "hidden"


def test_a_new_iteration_is_a_change_of_animation_state():
    scene = _spinner()
    trees = PropertyTrees()
    trees.update(scene, 0.9)
    assert trees.update(scene, 0.95).fields["c2"] == {"transform"}
    assert "animation-state" in trees.update(scene, 1.05).fields["c2"]


def test_another_scene_rebuilds():
    trees = PropertyTrees()
    trees.update(_spinner(), 0.0)
    assert trees.update(_spinner(), 0.0).why == "first frame"


def test_a_long_gap_in_the_change_log_rebuilds():
    scene = _spinner()
    trees = PropertyTrees()
    trees.update(scene, 0.0)
    for i in range(Scene._LOG_LIMIT + 5):
        scene["c4"].style["opacity"] = str(0.5 + (i % 2) * 0.1)
    assert trees.update(scene, 0.0).rebuilt
    _same_nodes(trees, scene, 0.0)


def test_tree_changes_say_nothing_for_nothing():
    assert not TreeChanges(False, fields={})
    assert TreeChanges(True, "first frame", {})


# -- the fast path equals planning from scratch -------------------------------------------
def _lockstep(make, policy: str, times, script=None) -> int:
    """Plan ``make()`` twice per frame, with and without the fast path; the same graph
    each time. Returns how many frames took the fast path."""
    a, b = make(), make()
    fast, slow = FrameState(), FrameState(fast_path=False)
    images_a, images_b = ImageStore(), ImageStore()
    for i, t in enumerate(times):
        if script is not None:
            script(a, i)
            script(b, i)
        images_a.begin_frame()
        images_b.begin_frame()
        ga = build_frame_graph(a, FrameRequest(t=t, policy=policy), Limits(), images_a, fast, KEPT)
        gb = build_frame_graph(b, FrameRequest(t=t, policy=policy), Limits(), images_b, slow, KEPT)
        assert_same_graph(ga, gb)
    assert slow.fast_frames == 0
    return fast.fast_frames


TIMES = [i * 0.09 for i in range(24)]  # 0 to 2.07 s: over iteration boundaries of the suite's animations


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("path", SUITE, ids=lambda p: p.stem)
def test_fast_path_plans_what_planning_from_scratch_plans(path, policy):
    _lockstep(lambda: load_scene(path), policy, TIMES)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("make", [cards_scene, page_scene, stack_scene], ids=lambda f: f.__name__)
def test_fast_path_on_the_benchmark_pages(make, policy):
    frames = _lockstep(make, policy, TIMES)
    if policy != "none":  # "none" keeps nothing, so there is nothing to keep a plan over
        # All but the first frame and the first of the second iteration (t = 2 s: new
        # sweep, decisions made again); the frame after the first reuses what it made.
        assert frames == len(TIMES) - 2, "a spinning promoted card is planned by the fast path"
    else:
        assert frames == 0


def _script(scene: Scene, i: int) -> None:
    """Between some frames, what a page's script does: move a promoted layer, fade one,
    recolour one, add and remove layers, change an in-memory image in place; the
    spinning card turns all the while."""
    if i in (1, 12):
        scene["c4"].style["transform"] = f"translate({i}px, 0)"
    if i in (5, 20):
        scene["t5"].style["opacity"] = f"{0.3 + i / 100}"
    if i == 8:
        scene["c1"].style["background-color"] = "#f80"
    if i == 16:
        scene["c0"].add(Layer("late", (2, 2, 8, 8), "background: red"))
    if i == 24:
        scene["c0"].remove(scene["late"])
    if i == 28:
        scene["c3"].image.data[..., :3] = 200  # in place: only its checksum tells


def _scripted_scene(pixels: np.ndarray) -> Scene:
    scene = _spinner()
    scene["c4"].style["will-change"] = "transform"
    scene["c3"].image = pixels
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_fast_path_under_a_script(policy):
    pixels = np.zeros((8, 8, 4), np.uint8)  # both scenes show this one array (its identity is in the key)
    pixels[..., 3] = 255
    frames = _lockstep(lambda: _scripted_scene(pixels), policy, TIMES, _script)
    if policy != "none":
        assert 0 < frames < len(TIMES), "some frames are fast, the changed ones are not"


def test_the_fast_path_redoes_only_the_moved_draws():
    scene = page_scene()
    state = FrameState()
    for i in range(4):
        graph = build_frame_graph(scene, FrameRequest(t=i * 0.05), Limits(), ImageStore(), state, KEPT)
    assert state.fast_frames == 3, "every frame after the first (the second reuses what the first made)"
    assert [p.name for p in graph.passes] == ["composite:frame"], "nothing rastered, only the frame composited"
    assert graph.layer_info["card44"].composited
    assert state.trees.rebuilds == 1


def _lose_textures(scene: Scene, lost) -> tuple[FrameState, object, int]:
    """Three frames (the third on the fast path), then the executor loses the textures
    ``lost(graph)`` names, and a fourth frame is planned: the state, that graph and how
    many frames were fast before it."""
    state = FrameState()
    gone: set[str] = set()
    facts = ExecutorFacts(retained=KeptTextures(lost=gone))
    for i in range(3):
        graph = build_frame_graph(scene, FrameRequest(t=i * 0.05), Limits(), ImageStore(), state, facts)
    fast = state.fast_frames
    assert fast >= 1
    gone.update(lost(graph))
    return state, build_frame_graph(scene, FrameRequest(t=0.2), Limits(), ImageStore(), state, facts), fast


def test_a_texture_gone_from_the_executor_stops_the_fast_path():
    state, graph, fast = _lose_textures(_spinner(), lambda g: {d.source.name for d in g.passes[-1].draws})
    assert state.fast_frames == fast, "the frame after the loss is planned from scratch"
    assert any(p.name.startswith("raster:") for p in graph.passes), "the lost textures are made again"


def _reading_page() -> Scene:
    """A spinning card under a frosted panel, beside a blending badge and an opacity
    group: draws remade every frame (read-backs, surfaces) around the moving one."""
    scene = _spinner()
    scene.root.add(Layer("glass", (60, 10, 200, 80), "backdrop-filter: blur(3px); background: rgb(255 255 255 / 20%)"))
    scene.root.add(Layer("badge", (250, 120, 40, 40), "background: #f40; mix-blend-mode: multiply"))
    group = scene.root.add(Layer("group", (10, 120, 80, 60), "opacity: 0.5; background: #0a0"))
    group.add(Layer("inner", (10, 10, 30, 30), "background: #00f"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_fast_path_keeps_read_backs_and_surfaces_as_planned(policy):
    frames = _lockstep(_reading_page, policy, TIMES)
    if policy != "none":
        assert frames >= len(TIMES) - 4, "content moving under a panel keeps the fast path"


def _only_a_group() -> Scene:
    """Every raster inside an opacity group's surface: the group's work of the first
    frame made kept textures, which the second frame reuses instead."""
    scene = Scene(64, 64, "white")
    group = scene.root.add(Layer("g", (0, 0, 64, 64), "opacity: .5"))
    group.add(Layer("a", (0, 0, 32, 32), "background: red"))
    group.add(Layer("b", (16, 16, 32, 32), "background: blue"))
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_fast_path_never_repeats_a_surface_s_first_rasters(policy):
    frames = _lockstep(_only_a_group, policy, TIMES[:4])
    if policy != "none":
        assert frames == 2, "the first frame, then one that reuses its rasters, then fast"


def _sliding_off() -> Scene:
    """A promoted card that slides off the page and back: its draw stops and starts."""
    scene = _spinner()
    scene["c2"].animations.clear()
    scene["c2"].animate({"from": {"transform": "translate(0px, 0px)"}, "to": {"transform": "translate(600px, 0px)"}},
                        duration=1.0, iterations="infinite", direction="alternate")
    return scene


@pytest.mark.parametrize("policy", POLICIES)
def test_fast_path_when_a_moved_layer_leaves_the_page(policy):
    _lockstep(_sliding_off, policy, [i * 0.05 for i in range(44)])


def test_a_texture_a_kept_surface_reads_gone_stops_the_fast_path():
    scene = _only_a_group()
    scene.root.add(Layer("spin", (40, 40, 10, 10), "background: red; will-change: transform"))
    scene["spin"].animate({"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(90deg)"}}, duration=1.0)

    def surface_inputs(graph):
        return {d.source.name for d in next(p for p in graph.passes if p.name == "composite:g").draws}

    state, graph, fast = _lose_textures(scene, surface_inputs)
    assert state.fast_frames == fast and {"raster:a", "raster:b"} <= {p.name for p in graph.passes}
