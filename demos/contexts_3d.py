"""3D rendering contexts: a card flip, a 12-card carousel, and two planes that cross.

What the student learns: ``transform-style: preserve-3d`` puts an element's children in
one 3D rendering context, where they are drawn by depth, not in paint order. Every member
becomes a layer of its own (``Preserve3D``), because the compositor, not the painter,
orders them: each frame it sorts the members back to front with a BSP tree, and where
two of them intersect it splits one along the other's plane — each piece is one more
draw (the ``splits`` overlay outlines the pieces in red; the table counts them). The card
flip's faces hide their backs (``backface-visibility: hidden``): the context drops the
face turned away. A face that holds a label is a flat member with a child: it is
flattened into a surface first ("3D flattening", cc's name) and sorted as one plane.
Switch preserve-3d off and everything is flattened into its parent's plane, drawn in paint
order: the carousel's far cards paint over its near ones, the crossing planes do not cross.

Drive it: toggle preserve-3d, the crossing planes' tilt, and the overlays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from imgui_bundle import imgui

from lamina import Layer, Scene
from lamina.framegraph import FrameGraph

from .ui.runner import Demo

__all__ = ["Contexts3D", "context_rows"]

FLIP = {"0%": {"transform": "rotateY(0deg)"}, "100%": {"transform": "rotateY(360deg)"}}
TURN = {"0%": {"transform": "rotateX(-10deg) rotateY(0deg)"}, "100%": {"transform": "rotateX(-10deg) rotateY(360deg)"}}
CARDS = 12


def context_rows(graph: FrameGraph) -> list[tuple[str, int, int, str]]:
    """Each 3D rendering context drawn: (its root, fragments drawn, splits, the layers
    dropped as back-facing)."""
    return [(c.root, len(c.order), c.splits, ", ".join(layer for layer, _ in c.dropped) or "-")
            for c in graph.contexts3d]


@dataclass
class Contexts3D(Demo):
    name: str = "3d-contexts"
    title: str = "3D rendering contexts: sorting, splitting, flattening"
    lesson: str = (
        "preserve-3d members are drawn by depth: sorted by a BSP tree every frame, split where "
        "they cross (red: the pieces). Without it, each is flattened into its parent, in paint order."
    )
    scene_size: tuple[int, int] = (860, 560)
    preserve: bool = True
    tilt: float = 35.0  # the crossing planes' rotateY, +tilt and -tilt

    def __post_init__(self) -> None:
        self.rows: list[tuple[str, int, int, str]] = []
        self.script = [(6, lambda d: d.set(tilt=60.0)), (11, lambda d: d.set(preserve=False))]

    def set(self, *, preserve: bool | None = None, tilt: float | None = None) -> None:
        if preserve is not None:
            self.preserve = preserve
        if tilt is not None:
            self.tilt = tilt

    def start(self) -> None:
        self.runner.state.overlay = "splits"

    def build(self) -> Scene:
        scene = Scene(*self.scene_size, background="#f4f1ea")
        # The card flip: a preserve-3d card turning, a front and a back face.
        stage = scene.root.add(Layer("flip-stage", (30, 40, 220, 260), "perspective: 600px"))
        card = stage.add(Layer("card", (30, 30, 160, 200), "transform-style: preserve-3d"))
        front = card.add(Layer("front", (0, 0, 160, 200), "background: linear-gradient(135deg, #f06, #fc0); "
                                                          "border-radius: 14px; backface-visibility: hidden; transform: translateZ(1px)"))
        front.add(Layer("front-label", (20, 20, 120, 28), "background: rgb(255 255 255 / 80%); border-radius: 6px"))
        card.add(Layer("back", (0, 0, 160, 200), "background: linear-gradient(45deg, #0c6, #09f); border-radius: 14px; "
                                                 "backface-visibility: hidden; transform: rotateY(180deg)"))
        card.animate(FLIP, duration=6.0, iterations="infinite")
        # The carousel: 12 translucent cards on a ring turning about y.
        stage = scene.root.add(Layer("carousel-stage", (280, 20, 560, 300), "perspective: 900px"))
        ring = stage.add(Layer("ring", (230, 90, 100, 130), "transform-style: preserve-3d"))
        radius = 50 / math.tan(math.pi / CARDS) + 12
        for i in range(CARDS):
            ring.add(Layer(f"cell{i}", (0, 0, 100, 130),
                           f"background: hsl({30 * i} 75% 58% / 85%); border-radius: 8px; "
                           f"transform: rotateY({360 * i / CARDS}deg) translateZ({radius:.1f}px)"))
        ring.animate(TURN, duration=12.0, iterations="infinite")
        # Two planes crossing: each is split by the other's plane.
        stage = scene.root.add(Layer("cross-stage", (280, 330, 560, 220), "perspective: 500px"))
        cross = stage.add(Layer("cross", (200, 30, 160, 160), "transform-style: preserve-3d"))
        cross.add(Layer("plane-a", (0, 0, 160, 160), "background: linear-gradient(#f80, #a20)"))
        cross.add(Layer("plane-b", (0, 0, 160, 160), "background: linear-gradient(#4af, #137)"))
        return scene

    def update(self, scene: Scene, t: float) -> None:
        style = "preserve-3d" if self.preserve else "flat"
        for lid in ("card", "ring", "cross"):
            if scene[lid].style.get("transform-style") != style:
                scene[lid].style["transform-style"] = style
        wobble = 10.0 * math.sin(t)
        for lid, sign in (("plane-a", 1.0), ("plane-b", -1.0)):
            want = f"rotateX({wobble:.2f}deg) rotateY({sign * self.tilt:.1f}deg)"
            if scene[lid].style.get("transform") != want:
                scene[lid].style["transform"] = want

    def rendered(self, frame) -> None:
        self.rows = context_rows(frame.graph)

    def controls(self) -> None:
        _, self.preserve = imgui.checkbox("transform-style: preserve-3d (off: flat)", self.preserve)
        _, self.tilt = imgui.slider_float("crossing planes: rotateY +-", self.tilt, 0.0, 85.0, "%.0f deg")
        self.mark_probe(self.tilt)
        if imgui.begin_table("contexts", 4, imgui.TableFlags_.borders):
            for name in ("context", "draws", "splits", "back faces dropped"):
                imgui.table_setup_column(name)
            imgui.table_headers_row()
            for row in self.rows:
                imgui.table_next_row()
                for value in row:
                    imgui.table_next_column()
                    imgui.text(str(value))
            imgui.end_table()
        if not self.rows:
            imgui.text("no 3D rendering context: every layer is flat, in paint order")
