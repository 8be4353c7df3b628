"""Animation cost: the same card animated four ways, side by side.

What the student learns: *what* you animate decides what a frame costs. A transform or
an opacity animation changes only how a layer's texture is drawn — the compositor moves
or fades it and rasters nothing (Lamina, like browsers, promotes the layer for its
running animation). A ``filter: blur()`` animation keeps the raster but re-runs the
blur passes every frame, and a blur is the most expensive pass there is. A
``background-color`` animation changes the layer's content, so it is painted again every
frame. Paint flashing (on by default) tints what was painted this frame.

Drive it: Space pauses, Right steps a frame; the table under the controls lists each
variant's passes this frame and their time.
"""

from __future__ import annotations

from dataclasses import dataclass

from imgui_bundle import imgui

from lamina import Frame, Layer, Scene

from .ui.runner import Demo

__all__ = ["AnimationCost", "VARIANTS", "variant_costs"]

# variant -> keyframes of the card
VARIANTS: dict[str, dict] = {
    "transform": {"from": {"transform": "rotate(-12deg)"}, "to": {"transform": "rotate(12deg) scale(1.1)"}},
    "opacity": {"from": {"opacity": "1"}, "to": {"opacity": ".25"}},
    "filter": {"from": {"filter": "blur(0px)"}, "to": {"filter": "blur(10px)"}},
    "background": {"from": {"background-color": "#e8505b"}, "to": {"background-color": "#2b59c3"}},
}


def variant_costs(frame: Frame) -> dict[str, dict[str, float]]:
    """Per variant: passes that worked for it this frame (rasters of its layers, its
    filter passes, repaints of a backing it lies in) and their measured time."""
    owner = {}
    for variant in VARIANTS:
        owner[f"{variant}-card"] = variant
        owner[f"{variant}-label"] = variant
    out = {v: {"rasters": 0, "filter passes": 0, "repaints": 0, "ms": 0.0} for v in VARIANTS}
    times = frame.stats.pass_ms
    for p in frame.graph.passes:
        if p.kind == "raster" and p.layer_id in owner:
            out[owner[p.layer_id]]["rasters"] += 1
            out[owner[p.layer_id]]["ms"] += times.get(p.name, 0.0)
        elif p.kind == "filter" and p.layer_id in owner:
            out[owner[p.layer_id]]["filter passes"] += 1
            out[owner[p.layer_id]]["ms"] += times.get(p.name, 0.0)
        elif p.kind == "composite" and p.name.startswith("paint:"):
            for variant in {owner[d.layer_id] for d in p.draws if d.layer_id in owner}:
                out[variant]["repaints"] += 1
                out[variant]["ms"] += times.get(p.name, 0.0)
    return out


@dataclass
class AnimationCost(Demo):
    name: str = "animation-cost"
    title: str = "Animation cost"
    lesson: str = (
        "Transform and opacity animations only move or fade a texture: nothing is painted. "
        "A blur animation re-runs the blur every frame; a colour animation repaints the card."
    )

    largest_blur: float = 10.0  # px, the filter variant's keyframe at "to"

    def __post_init__(self) -> None:
        self.costs: dict[str, dict[str, float]] = {}

    def start(self) -> None:
        self.runner.state.overlay = "paint"  # paint flashing: what was painted this frame

    def build(self) -> Scene:
        scene = Scene(*self.scene_size, background="#f4f1ea")
        for i, variant in enumerate(VARIANTS):
            x = 30 + i * 205
            card = scene.root.add(Layer(
                f"{variant}-card", (x, 250, 180, 200),
                "background: #e8505b; border-radius: 16px; border: 2px solid rgb(0 0 0 / 20%)",
            ))
            card.add(Layer(f"{variant}-label", (20, 150, 140, 24), "background: rgb(255 255 255 / 80%); border-radius: 12px"))
            card.animate(self._keyframes(variant), duration=2.0, iterations="infinite", direction="alternate",
                         easing="ease-in-out")
        self._animated_blur = self.largest_blur
        return scene

    def _keyframes(self, variant: str) -> dict:
        if variant == "filter":
            return {**VARIANTS["filter"], "to": {"filter": f"blur({self.largest_blur:.1f}px)"}}
        return VARIANTS[variant]

    def update(self, scene: Scene, t: float) -> None:
        if self._animated_blur != self.largest_blur:  # the slider moved: animate to the new blur
            card = scene["filter-card"]
            card.animations.clear()
            card.animate(self._keyframes("filter"), duration=2.0, iterations="infinite", direction="alternate",
                         easing="ease-in-out")
            self._animated_blur = self.largest_blur

    def controls(self) -> None:
        _, self.largest_blur = imgui.slider_float("largest blur (px)", self.largest_blur, 0.0, 24.0)
        self.mark_probe(self.largest_blur)
        frame = self.runner.last_frame
        if frame is None:
            return
        self.costs = variant_costs(frame)
        if imgui.begin_table("costs", 5, imgui.TableFlags_.borders):
            for name in ("animated", "rasters", "filter passes", "repaints", "ms"):
                imgui.table_setup_column(name)
            imgui.table_headers_row()
            for variant, cost in self.costs.items():
                imgui.table_next_row()
                for value in (variant, cost["rasters"], cost["filter passes"], cost["repaints"], f"{cost['ms']:.2f}"):
                    imgui.table_next_column()
                    imgui.text(str(value))
            imgui.end_table()
