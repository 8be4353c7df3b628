"""A page of filtered cards whose hue turns, for the frame-wide schedule's tests and
benchmark (issue 22's overhead number): every animation frame re-runs every filter
pass, with new parameters and new names for the kept results, over the same task graph;
and its frames as ``auto`` hands them to the scheduler (planned with every filter pass
on GL, by one renderer's state, without a GPU)."""

from __future__ import annotations

from lamina import FrameRequest, Layer, Scene
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE

STYLES = ("blur(3px)", "drop-shadow(3px 3px 2px black)", "sepia(.5) blur(2px)", "blur(6px)")


def turning(layers: int, width: int = 1280, height: int = 720) -> Scene:
    """``layers`` 40x30 cards, filtered four ways, each with a turning hue-rotate."""
    scene = Scene(width, height, "white")
    for i in range(layers):
        card = scene.root.add(Layer(f"c{i}", ((i * 53) % (width - 80), (i * 37) % (height - 60), 40, 30),
                                    "background: #48f"))
        base = STYLES[i % len(STYLES)]
        card.animate({"from": {"filter": f"{base} hue-rotate(0deg)"}, "to": {"filter": f"{base} hue-rotate(360deg)"}},
                     duration="2s", iterations="infinite")
    return scene


def gl_frames(scene: Scene, count: int) -> list:
    """Frames 1..count at 60 fps planned on GL by one state: the first rasters every card,
    the later ones are animation frames."""
    state, facts = FrameState(), ExecutorFacts(retained=EVERY_TEXTURE)
    return [build_frame_graph(scene, FrameRequest(t=k / 60, filter_backend="gl"), Limits(), ImageStore(), state, facts)
            for k in range(1, count + 1)]
