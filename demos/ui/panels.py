"""The panels every demo shares, drawn from the frame's own data (its report: the frame
graph as plain data, the per-layer table, per-pass times):

* Layers — each layer's compositing decision and reasons; click one to select it and
  its outline lights up in the scene (yellow);
* Frame graph — the passes in order (raster / filter / transfer / composite) with sizes,
  executors and reasons, and a chart of each pass kind's time over the last frames;
* Counters — FPS, frame time (planning + GPU work vs the window's own), layers rastered
  this frame, textures and bytes kept, shader compiles;
* Switches — overlays, compositing policy and filter backend.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from imgui_bundle import imgui, implot

from lamina import Frame
from lamina.compositor.policy import POLICIES
from lamina.filters.backend import FILTER_BACKENDS
from lamina.overlays import OVERLAYS, screen_quads

__all__ = ["PanelState", "PanelHost", "draw_panels", "counters", "HELP", "HISTORY"]

HELP = "H help   Space pause   Right step   R reset   S screenshot   Esc quit"

HISTORY = 120  # frames kept for the charts
PASS_KINDS = ("raster", "filter", "transfer", "composite")


@dataclass
class PanelState:
    """What the panels control and remember between frames."""

    policy: str = "browser"
    filter_backend: str | None = None  # None: the scene's own
    overlay: str | None = None
    selected: str | None = None
    show_help: bool = False
    quit: bool = False
    render_ms: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    ui_ms: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    kind_ms: dict = field(default_factory=lambda: {k: deque(maxlen=HISTORY) for k in PASS_KINDS})
    wall: deque = field(default_factory=lambda: deque(maxlen=HISTORY))

    def record(self, render_ms: float, ui_ms: float, frame: Frame) -> None:
        self.render_ms.append(render_ms)
        self.ui_ms.append(ui_ms)
        self.wall.append(time.perf_counter())
        stats = frame.stats
        by_kind = dict.fromkeys(PASS_KINDS, 0.0)
        for p in frame.graph.passes:
            by_kind[p.kind if p.kind in by_kind else "composite"] += stats.pass_ms.get(p.name, 0.0)
        for kind, ms in by_kind.items():
            self.kind_ms[kind].append(ms)

    def fps(self) -> float:
        if len(self.wall) < 2:
            return 0.0
        return (len(self.wall) - 1) / max(self.wall[-1] - self.wall[0], 1e-9)


def counters(frame: Frame) -> dict[str, float | int]:
    """The numbers the counters panel shows, from the frame's report (tests compare them)."""
    graph = frame.report["graph"]
    kept = [t for t in graph["textures"] if t["name"] in graph["reused"] or t["name"].startswith(("layer:", "backing:", "filter:"))]
    return {
        "layers rastered": sum(1 for p in graph["passes"] if p["kind"] == "raster"),
        "passes": len(graph["passes"]),
        "textures": len(graph["textures"]),
        "texture bytes": sum(t["bytes"] for t in graph["textures"]),
        "textures reused": len(graph["reused"]),
        "kept bytes": sum(t["bytes"] for t in kept),
        "shader compiles": frame.report["stats"]["compiles"],
        "frame ms": frame.report["stats"]["total_ms"],
    }


class PanelHost(Protocol):
    """What the panels read of the window runner: the demo, the window's size and the
    panels' own state."""

    demo: Any
    size: tuple[int, int]
    state: PanelState


def draw_panels(runner: "PanelHost", frame: Frame, render_ms: float) -> None:
    state = runner.state
    scene_w, _ = runner.demo.scene_size
    width, height = runner.size
    x = float(scene_w)
    column = float(width - scene_w)
    imgui.set_next_window_pos((x, 0.0))
    imgui.set_next_window_size((column, float(height)))
    flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize | imgui.WindowFlags_.no_collapse
    imgui.begin(runner.demo.title, None, flags)
    if runner.demo.lesson:
        imgui.text_wrapped(runner.demo.lesson)
    if state.show_help:
        imgui.text_colored((1.0, 0.85, 0.3, 1.0), "keys: " + HELP)
    else:
        imgui.text_disabled("H: help")
    imgui.separator()
    runner.demo.controls()
    imgui.separator()
    _switches(state)
    _counters(runner, frame, render_ms)
    if imgui.collapsing_header("Layers", imgui.TreeNodeFlags_.default_open):
        _layers(state, frame)
    if imgui.collapsing_header("Frame graph", imgui.TreeNodeFlags_.default_open):
        _graph(state, frame)
    imgui.end()
    if state.selected:
        _highlight(frame, state.selected)


SELECTED = imgui.IM_COL32(255, 210, 0, 255)


def _highlight(frame: Frame, layer_id: str) -> None:
    """Outline the selected layer's quads on the scene (scene px are window units here)."""
    draw_list = imgui.get_foreground_draw_list()
    for draw, _, corners in screen_quads(frame.graph):
        if draw.layer_id == layer_id:
            a, b, c, d = (imgui.ImVec2(float(x), float(y)) for x, y in corners)
            draw_list.add_quad(a, b, c, d, SELECTED, 3.0)


def _switches(state: PanelState) -> None:
    names = list(POLICIES)
    changed, index = imgui.combo("policy", names.index(state.policy), names)
    if changed:
        state.policy = names[index]
    backends = ["scene's own", *FILTER_BACKENDS]
    current = 0 if state.filter_backend is None else backends.index(state.filter_backend)
    changed, index = imgui.combo("filters on", current, backends)
    if changed:
        state.filter_backend = None if index == 0 else backends[index]
    overlays = ["none", *OVERLAYS]
    current = 0 if state.overlay is None else overlays.index(state.overlay)
    changed, index = imgui.combo("overlay", current, overlays)
    if changed:
        state.overlay = None if index == 0 else overlays[index]


def _counters(runner: "PanelHost", frame: Frame, render_ms: float) -> None:
    state = runner.state
    numbers = counters(frame)
    ui = state.ui_ms[-1] if state.ui_ms else 0.0
    imgui.text(f"FPS {state.fps():5.1f}   render {render_ms:6.1f} ms   window + panels {ui:5.1f} ms")
    imgui.text(
        f"rastered {numbers['layers rastered']}   passes {numbers['passes']}   "
        f"textures {numbers['textures']} ({numbers['texture bytes'] / 2**20:.2f} MB)   "
        f"reused {numbers['textures reused']}   compiles {numbers['shader compiles']}"
    )
    if state.kind_ms["raster"] and implot.begin_plot("pass time (ms)", (-1.0, 140.0)):
        implot.setup_axes("frame", "ms", implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
        for kind in PASS_KINDS:
            values = np.asarray(state.kind_ms[kind], dtype=np.float64)
            implot.plot_line(kind, values)
        implot.end_plot()


def _layers(state: PanelState, frame: Frame) -> None:
    # Composited layers first: they are what the lesson is about.
    rows = sorted(frame.report["graph"]["layers"], key=lambda row: not row.get("composited", True))
    if imgui.begin_table("layers", 3, imgui.TableFlags_.borders | imgui.TableFlags_.row_bg | imgui.TableFlags_.scroll_y,
                         (0.0, 180.0)):
        imgui.table_setup_column("layer")
        imgui.table_setup_column("composited")
        imgui.table_setup_column("why / drawn into")
        imgui.table_headers_row()
        for row in rows:
            imgui.table_next_row()
            imgui.table_next_column()
            clicked, _ = imgui.selectable(row["layer"], state.selected == row["layer"],
                                          imgui.SelectableFlags_.span_all_columns)
            if clicked:
                state.selected = None if state.selected == row["layer"] else row["layer"]
            imgui.table_next_column()
            imgui.text("yes" if row.get("composited", True) else "no")
            imgui.table_next_column()
            why = "; ".join(row.get("reasons", [])) or row.get("painted_into") or row.get("drawn_into", "")
            imgui.text(str(why))
        imgui.end_table()


def _graph(state: PanelState, frame: Frame) -> None:
    passes = frame.report["graph"]["passes"]
    times = frame.report["stats"]["pass_ms"]
    if imgui.begin_table("passes", 4, imgui.TableFlags_.borders | imgui.TableFlags_.row_bg | imgui.TableFlags_.scroll_y,
                         (0.0, 200.0)):
        for name in ("pass", "size", "ms", "why"):
            imgui.table_setup_column(name)
        imgui.table_headers_row()
        for p in passes:
            imgui.table_next_row()
            imgui.table_next_column()
            imgui.text(p["name"])
            imgui.table_next_column()
            imgui.text(f"{p['size'][0]}x{p['size'][1]}")
            imgui.table_next_column()
            imgui.text(f"{times.get(p['name'], 0.0):.2f}")
            imgui.table_next_column()
            imgui.text(str(p.get("executor") or p.get("detail") or p.get("reason") or ""))
        imgui.end_table()
