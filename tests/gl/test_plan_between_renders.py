"""``Renderer.plan`` between two frames is a look: it records nothing, so the frame the
renderer draws next is the frame a renderer that never made that plan draws. A plan
that recorded its frame (the frame texture's draws for the damage rect, the kept
textures' keys, the last plan for the fast path) though nothing executed it left the
next frame trusting textures that hold something else: a frame of another size read
back from the last frame's texture ("the buffer is too small"), or, at the same size,
stale pixels where the damage rect missed what the kept frame texture really held."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lamina import Layer, Scene, load_scene
from lamina.scene_file import scene_from_dict

SCENES = Path(__file__).resolve().parents[1] / "scenes"


def _from_scratch(renderer, scene: Scene, **options):
    """``scene`` as it is now, drawn by ``renderer`` with nothing kept from earlier frames."""
    renderer.drop_caches()
    return scene_from_dict(scene.to_dict()).render(renderer, **options)


def _same_frame(frame, expected) -> None:
    assert frame.image.shape == expected.image.shape
    assert np.array_equal(frame.premultiplied, expected.premultiplied)
    assert np.array_equal(frame.image, expected.image)


def _card(scene: Scene, name: str, box, colour: str, extra: str = "") -> None:
    scene.root.add(Layer(name, box, f"background-color: {colour}; border-radius: 6px; {extra}"))


def test_plan_of_another_size_between_renders(fresh, gl):
    """The reported case: scene A rendered, scene B (another size) planned, B rendered."""
    a = load_scene(SCENES / "animation-filter.json")
    b = load_scene(SCENES / "animation-golden-time.json")
    assert (a.width, a.height) != (b.width, b.height)
    a.render(fresh)
    planned = fresh.plan(b)
    assert fresh.plan(b) == planned, "a look can be repeated: it changed nothing"
    frame = b.render(fresh)
    assert frame.graph == planned, "the look planned what the renderer then ran"
    made = {p.target.name for p in frame.graph.passes} | set(frame.graph.reused)
    assert fresh.executor.retained_names() <= made, "nothing A kept is left behind"
    _same_frame(frame, _from_scratch(gl, b))


def test_plan_of_another_scene_of_the_same_size_between_renders(fresh, gl):
    """Same size and page colour: the kept frame texture is reused, so a recorded plan
    showed as A's card left on screen where B draws nothing."""
    a, b = Scene(160, 100, "#fff"), Scene(160, 100, "#fff")
    _card(a, "left", (10, 10, 50, 40), "rgb(220 30 40)")
    _card(b, "right", (100, 50, 50, 40), "rgb(30 60 220)")
    a.render(fresh)
    planned = fresh.plan(b)
    frame = b.render(fresh)
    assert frame.graph == planned
    _same_frame(frame, _from_scratch(gl, b))
    assert tuple(frame.image[30, 30]) == (255, 255, 255, 255), "nothing of A's card is left"


def test_plan_of_the_same_scene_changed_between_renders(fresh, gl):
    """One scene, changed between frames and planned before its next render: a
    promoted card moved (the fast path's change: no new texture, only draws and the
    damage rect) and a card painted into a kept backing recoloured (repainted in place:
    the same texture name, new content). Each next frame is the from-scratch frame."""
    scene = Scene(200, 120, "#f4f1ea")
    _card(scene, "moved", (10, 10, 40, 30), "rgb(200 40 40)", "will-change: transform")
    _card(scene, "painted", (70, 60, 40, 30), "rgb(40 160 60)")
    _card(scene, "still", (130, 20, 40, 30), "rgb(40 60 200)")
    scene.render(fresh).image
    scene["moved"].style["transform"] = "translate(30px, 50px)"
    fresh.plan(scene)
    _same_frame(scene.render(fresh), _from_scratch(gl, scene))
    scene["painted"].style["background-color"] = "rgb(250 200 0)"
    fresh.plan(scene)
    _same_frame(scene.render(fresh), _from_scratch(gl, scene))
    scene["moved"].style["transform"] = "none"  # back: the frame texture holds it moved
    scene["painted"].style["background-color"] = "rgb(40 160 60)"
    fresh.plan(scene)
    _same_frame(scene.render(fresh), _from_scratch(gl, scene))
