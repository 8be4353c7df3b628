"""Texture captures planned (FrameRequest.capture_textures): one CapturePass per texture
the frame's composite passes draw from or into (but the frame), after every other pass,
reading it; nothing else in the graph changes, and without the option there are none.
The retained fast path sees the same graph either way. No GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lamina import FrameRequest, Layer, Scene, load_scene
from lamina.compositor.policy import POLICIES
from lamina.errors import LaminaInputError
from lamina.framegraph import CompositePass, Executor, OverlayPart, TaskKind, TextureRole
from lamina.geometry import Affine
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from lamina.passes import CapturePass
from tests.kept import EVERY_TEXTURE
from tests.same_graph import assert_same_graph

SCENES = sorted((Path(__file__).resolve().parents[1] / "scenes").glob("*.json"))


def _scene() -> Scene:
    """A filtered layer, an opacity group of two, a faded layer squashed over them, a
    promoted one: rasters, a filter surface and its result, a group surface, backings."""
    scene = Scene(160, 120, "white")
    scene.root.add(Layer("a", (10, 10, 60, 40), "background: red; filter: blur(3px) sepia(.5)"))
    scene.root.add(Layer("b", (30, 30, 60, 40), "background: blue; opacity: .5"))
    g = scene.root.add(Layer("g", (20, 60, 100, 50), "background: #0f0; opacity: .5"))
    g.add(Layer("g1", (5, 5, 20, 20), "background: #00f"))
    scene.root.add(Layer("c", (90, 60, 40, 30), "background: #fff; will-change: transform"))
    return scene


def _drawn(graph) -> list[str]:
    """What the composites draw from and into, but the frame, in the order first named."""
    names: dict[str, None] = {}
    for p in graph.passes:
        if isinstance(p, CompositePass):
            names.update((d.source.name, None) for d in p.draws)
            names[p.target.name] = None
    names.pop(graph.output.name, None)
    return list(names)


def _captures(graph) -> list[CapturePass]:
    return [p for p in graph.passes if p.kind is TaskKind.CAPTURE]


@pytest.mark.parametrize("policy", POLICIES)
def test_one_capture_per_texture_the_composites_draw(policy):
    scene = _scene()
    plain = scene.plan(policy=policy)
    graph = scene.plan(policy=policy, capture_textures=True)
    captures = _captures(graph)
    assert [p.source.name for p in captures] == _drawn(plain)
    # Nothing else changes: the same passes first, the captures after all of them.
    assert graph.passes[:len(plain.passes)] == plain.passes
    assert len(graph.passes) == len(plain.passes) + len(captures)
    assert (graph.decisions, graph.reused, graph.released) == (plain.decisions, plain.reused, plain.released)
    spans = graph.lifetimes()
    for i, p in enumerate(graph.passes[len(plain.passes):], len(plain.passes)):
        assert p.reads() == (p.source,) and spans[p.source.name][1] == i, "it lives until its capture"
        assert p.target.name == f"capture:{p.source.name}" and p.target.straight
        assert (p.target.width, p.target.height) == (p.source.width, p.source.height)
        assert spans[p.target.name] == (i, i), "the straight copy lives for its pass only"
    graph.validate()


def test_what_is_captured_and_whose():
    graph = _scene().plan(policy="browser", capture_textures=True)
    labels = [p.label for p in _captures(graph)]
    assert labels == [
        "layer:a#1 (layer content of a)",
        "surface:a (render surface of a)",  # the filter's input: read by a's filter passes
        "layer:g (layer content of g)",
        "layer:g1 (layer content of g1)",
        "backing:surface:g-base#3 (backing of surface:g-base)",
        "surface:g (render surface of g)",  # the opacity group
        "layer:b (layer content of b)",
        "backing:root-squash1#4 (backing of root-squash1)",
        "filter:a#2 (filter output of a)",
        "layer:c#5 (layer content of c)",
    ]
    roles = {p.source.role for p in _captures(graph)}
    assert roles == {TextureRole.LAYER_CONTENT, TextureRole.RENDER_SURFACE, TextureRole.BACKING, TextureRole.FILTER_OUTPUT}


def test_tiles_and_blend_surfaces_are_captured():
    scene = Scene(200, 150, "white")
    scene.root.add(Layer("tall", (0, 0, 200, 3000), "background: linear-gradient(red, blue)"))
    iso = scene.root.add(Layer("iso", (20, 20, 80, 60), "background: yellow; isolation: isolate"))
    iso.add(Layer("m", (10, 10, 40, 30), "background: blue; mix-blend-mode: multiply"))
    graph = scene.plan(policy="browser", capture_textures=True)
    roles = [p.source.role for p in _captures(graph)]
    assert TextureRole.TILE in roles and TextureRole.RENDER_SURFACE in roles, "tiles, and the isolated group's surface"
    assert [p.source.name for p in _captures(graph)] == _drawn(scene.plan(policy="browser"))
    assert not any(p.source.role in (TextureRole.BACKDROP, TextureRole.MASK) for p in _captures(graph)), \
        "a backdrop copy or a mask is read beside a quad, not drawn: not captured"


def test_with_filters_on_opencl_only_gl_textures_are_captured():
    """Composites draw GL textures only (a filter's OpenCL result comes back first): the
    executor's handler reads GL textures."""
    graph = _scene().plan(filter_backend="opencl", capture_textures=True)
    assert any(p.location is Executor.OPENCL for p in graph.textures())
    captures = _captures(graph)
    assert captures and all(p.source.location is Executor.GL for p in captures)
    assert [p.source.name for p in captures] == _drawn(_scene().plan(filter_backend="opencl"))


def test_each_capture_presents_itself():
    graph = _scene().plan(capture_textures=True)
    text = graph.describe()
    data = json.loads(json.dumps(graph.to_dict()))
    dot = graph.to_dot()
    for p, entry in zip(graph.passes, data["passes"]):
        if p.kind is not TaskKind.CAPTURE:
            continue
        assert f"capture   {p.describe_line()}" in text
        assert "read back" in p.describe_line() and "-> host, straight RGBA8" in p.describe_line()
        assert entry["kind"] == "capture" and entry["source"] == p.source.name and entry["label"] == p.label
        assert entry["bytes"] == p.source.width * p.source.height * 4
        assert f'"tex:{p.source.name}" -> "pass:{p.name}";' in dot
        assert f'"pass:{p.name}" -> "tex:{p.target.name}";' in dot
        assert p.trace_lane() == "readback" and p.trace_args()["kind"] == "capture"
        assert not p.repaints and p.overlay(Affine.translate(3, 4)) == OverlayPart(), "nothing in the overlays"


def test_off_by_default_and_validated():
    scene = _scene()
    assert FrameRequest().capture_textures is False
    assert not _captures(scene.plan())
    assert scene.plan().to_dict() == scene.plan(capture_textures=False).to_dict()
    assert scene.plan(request=FrameRequest(capture_textures=True)) == scene.plan(capture_textures=True)
    with pytest.raises(LaminaInputError, match="capture_textures must be True or False"):
        FrameRequest(capture_textures="yes")


@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_every_suite_scene_captures_what_it_draws_and_nothing_else_changes(path):
    scene = load_scene(path)
    t = scene.golden.get("t", 0.0)
    for policy in POLICIES:
        plain = scene.plan(t=t, policy=policy)
        graph = scene.plan(t=t, policy=policy, capture_textures=True)
        assert not _captures(plain)
        n = len(plain.passes)
        assert graph.passes[:n] == plain.passes, policy
        assert all(p.kind is TaskKind.CAPTURE for p in graph.passes[n:]), policy
        assert [p.source.name for p in graph.passes[n:]] == _drawn(plain), policy


def _move(scene: Scene, i: int) -> None:
    scene["c"].style["transform"] = f"translate({i * 3}px, {i}px)"


@pytest.mark.parametrize("policy", ["browser", "all"])
def test_the_fast_path_plans_captured_frames_as_from_scratch(policy):
    """Frames that move a promoted layer take the fast path with captures on, off, or
    changing between frames, and give the graph planning from scratch gives; a frame
    that reuses kept textures captures them too."""
    kept = ExecutorFacts(retained=EVERY_TEXTURE)
    a, b = _scene(), _scene()
    fast, slow = FrameState(), FrameState(fast_path=False)
    took = 0
    for i, capture in enumerate([True, True, False, True, False, False, True]):
        _move(a, i)
        _move(b, i)
        request = FrameRequest(policy=policy, capture_textures=capture)
        before = fast.fast_frames
        ga = build_frame_graph(a, request, Limits(), ImageStore(), fast, kept)
        gb = build_frame_graph(b, request, Limits(), ImageStore(), slow, kept)
        assert_same_graph(ga, gb)
        took += fast.fast_frames > before
        if capture:
            captured = {p.source.name for p in _captures(ga)}
            assert captured == set(_drawn(ga)) and captured
            if i:  # a kept texture drawn again is captured too (one kept but not drawn is not)
                drawn_again = [d.source.name for p in ga.passes if isinstance(p, CompositePass) for d in p.draws
                               if d.source.name in ga.reused]
                assert drawn_again and set(drawn_again) <= captured
        else:
            assert not _captures(ga)
    assert took >= 5, "captures do not keep the next frame off the fast path"
