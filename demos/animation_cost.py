"""Animation cost: the same card animated four ways, side by side.

What the student learns: *what* you animate decides what a frame costs. A transform or
an opacity animation changes only how a layer's texture is drawn — the compositor moves
or fades it and rasters nothing (Lamina, like browsers, promotes the layer for its
running animation). A ``filter: blur()`` animation keeps the raster but re-runs the
blur passes every frame, and a blur is the most expensive pass there is. A
``background-color`` animation changes the layer's content, so it is painted again every
frame. Paint flashing (on by default) outlines and tints what was painted this frame;
the legend on the canvas says so.

Each card's label (Lamina text, above the card so that neither the blur nor the fade
hides it) names what it animates, in the colour of its row in the cost table. Each label
is promoted (``will-change: transform``): painted into the page's own backing, with the
background card, they would widen what that card's repaint covers to all four cards.

Drive it: Space pauses, Right steps a frame; the table under the controls lists each
variant's work per frame — while running, the mean over the last second of the
animation and the slowest frame's time; paused, the last frame that did work (the one on
screen), so a paused blur never reads as free.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from imgui_bundle import imgui

from lamina import Frame, Layer, Scene

from .ui.panels import cell_text
from .ui.runner import Demo

__all__ = ["AnimationCost", "VARIANTS", "VARIANT_COLOURS", "COUNTS", "WINDOW_S", "variant_costs", "cost_table"]

# variant -> keyframes of the card
VARIANTS: dict[str, dict] = {
    "transform": {"from": {"transform": "rotate(-12deg)"}, "to": {"transform": "rotate(12deg) scale(1.1)"}},
    "opacity": {"from": {"opacity": "1"}, "to": {"opacity": ".25"}},
    "filter": {"from": {"filter": "blur(0px)"}, "to": {"filter": "blur(10px)"}},
    "background": {"from": {"background-color": "#e8505b"}, "to": {"background-color": "#2b59c3"}},
}
# variant -> the colour of its label on the canvas and of its row in the cost table:
# dark enough for white text on both, and none of them the paint overlay's green.
VARIANT_COLOURS: dict[str, tuple[int, int, int]] = {
    "transform": (29, 78, 216),
    "opacity": (124, 58, 237),
    "filter": (194, 65, 12),
    "background": (15, 118, 110),
}
COUNTS = ("rasters", "filter passes", "repaints")
WINDOW_S = 1.0  # seconds of animation the running table averages over


def variant_costs(frame: Frame) -> dict[str, dict[str, float]]:
    """Per variant: passes that worked for it this frame (rasters of its card, its
    filter passes, repaints of a backing it lies in) and their measured time."""
    owner = {f"{variant}-card": variant for variant in VARIANTS}
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


def cost_table(history: list[tuple[float, dict[str, dict[str, float]]]], now: float,
               paused: bool) -> tuple[str, dict[str, dict[str, float]]]:
    """What the cost table shows: a caption and, per variant, its counts, ``ms`` and
    ``max ms``. ``history`` holds (animation time, variant_costs) of the frames that did
    work or moved time, oldest first. Paused: the last of them, as it was. Running: the
    mean per frame over the last WINDOW_S seconds and the slowest frame's ms."""
    if not history:
        return "no frame yet", {}
    if paused:
        _, last = history[-1]
        return "paused: the last frame's work", {v: {**c, "max ms": c["ms"]} for v, c in last.items()}
    recent = [costs for t, costs in history if t > now - WINDOW_S] or [history[-1][1]]
    table = {}
    for variant in recent[-1]:
        rows = [costs[variant] for costs in recent]
        table[variant] = {name: sum(r[name] for r in rows) / len(rows) for name in (*COUNTS, "ms")}
        table[variant]["max ms"] = max(r["ms"] for r in rows)
    return f"per frame: mean of the last {WINDOW_S:g} s ({len(recent)} frames), and the slowest", table


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
        self.history: deque[tuple[float, dict[str, dict[str, float]]]] = deque(maxlen=600)
        self.caption = ""
        self.shown: dict[str, dict[str, float]] = {}  # what the cost table shows (tests read it)

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
            card.animate(self._keyframes(variant), duration=2.0, iterations="infinite", direction="alternate",
                         easing="ease-in-out")
            # Above the card, clear of it even at the transform's largest turn (its corners
            # reach 28 px above the box), and outside it, so no animation hides its name.
            r, g, b = VARIANT_COLOURS[variant]
            scene.root.add(Layer(
                f"{variant}-label", (x, 172, 180, 36), text=variant,
                style=f"background: rgb({r} {g} {b}); border-radius: 18px; color: white; text-align: center;"
                      "font-family: 'DejaVu Sans', sans-serif; font-size: 20px; font-weight: bold; line-height: 36px;"
                      "will-change: transform",
            ))
        self._animated_blur = self.largest_blur
        self.history.clear()
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

    def rendered(self, frame: Frame) -> None:
        costs = variant_costs(frame)
        worked = any(c[name] for c in costs.values() for name in COUNTS)
        # A paused frame that reuses everything is not a frame of the animation: keep
        # showing the last one that was (a paused slider change does work, and counts).
        if not (self.runner.advanced or worked):
            return
        t = self.runner.t
        if self.history and t < self.history[-1][0]:  # reset: time started again
            self.history.clear()
        self.history.append((t, costs))

    def controls(self) -> None:
        _, self.largest_blur = imgui.slider_float("largest blur (px)", self.largest_blur, 0.0, 24.0)
        self.mark_probe(self.largest_blur)
        paused = self.runner.paused and not self.runner.step
        self.caption, self.shown = cost_table(list(self.history), self.runner.t, paused)
        imgui.text_wrapped(self.caption)
        if not self.shown:
            return
        state = self.runner.state
        fixed = imgui.TableColumnFlags_.width_fixed
        if imgui.begin_table("costs", 6, imgui.TableFlags_.borders | imgui.TableFlags_.sizing_stretch_same):
            imgui.table_setup_column("animated", fixed)
            for name in ("rasters", "filters", "repaints", "ms", "max ms"):
                imgui.table_setup_column(name)
            imgui.table_headers_row()
            for variant, cost in self.shown.items():
                imgui.table_next_row()
                imgui.table_next_column()
                r, g, b = VARIANT_COLOURS[variant]  # the colour of the card's label
                imgui.table_set_bg_color(imgui.TableBgTarget_.cell_bg, imgui.IM_COL32(r, g, b, 255))
                cell_text(state, variant, (1.0, 1.0, 1.0, 1.0))
                counts = [cost[name] for name in COUNTS]
                shown = [f"{v:g}" if paused else f"{v:.1f}" for v in counts]
                for value in (*shown, f"{cost['ms']:.2f}", f"{cost['max ms']:.2f}"):
                    imgui.table_next_column()
                    cell_text(state, value)
            imgui.end_table()
