"""The panels every demo shares, drawn from the frame's own data (its report: the frame
graph as plain data, the per-layer table, per-pass times):

* Layers — each layer's compositing decision and reasons, in tree order (rows stay put
  from frame to frame); click one to select it and its outline lights up in the scene
  (yellow);
* Frame graph — the passes in order (raster / filter / transfer / composite) with sizes,
  executors and reasons, and a chart of each pass kind's time over the last frames;
* Counters — FPS (in a window; a headless recording shows the render time instead: its
  frame rate is the recorder's, not the engine's), frame time (planning + GPU work vs the
  window's own), layers rastered this frame, textures and bytes kept, shader compiles;
* Switches — overlays, compositing policy and filter backend;
* a legend on the scene for the overlay shown (what each colour means).

A table cell too narrow for its text shows it whole in a tooltip. Sizes follow the
runner's UI scale (``layout_scale``). What the panels last showed as text is kept in
``PanelState.shown`` and ``PanelState.legend``, so tests read the panels' words.
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
from lamina.overlays import LEGENDS, OVERLAYS, screen_quads

__all__ = ["PanelState", "PanelHost", "draw_panels", "counters", "cell_text", "layer_rows", "highlight_quads", "HELP",
           "HISTORY"]

HELP = "H help   Space pause   Right step   R reset   S screenshot   Ctrl+= / Ctrl+- UI size   Esc quit"

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
    # What the panels drew as text this frame, by name ("counters", "help"), the legend's
    # lines and screen box, and each cut cell's text (full) and box: tests read them.
    shown: dict = field(default_factory=dict)
    legend: list = field(default_factory=list)
    legend_box: tuple | None = None
    cut_cells: list = field(default_factory=list)
    tooltip: str | None = None  # the last cut cell's text shown whole in a tooltip
    font_px: float = 0.0  # ImGui's font size as the panels were drawn (the UI scale's effect)

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
    """What the panels read of the window runner: the demo and its scene, the window's
    size, whether it runs headless, the UI scale, the scene's viewport (window units),
    how frame px map to window units, and the panels' own state."""

    demo: Any
    scene: Any
    size: tuple[int, int]
    headless: bool
    layout_scale: float
    scene_extent: tuple[float, float]
    display: Any  # demos.ui.display_scale.DisplayScale
    state: PanelState


def draw_panels(runner: "PanelHost", frame: Frame, render_ms: float) -> None:
    state = runner.state
    scene_w, _ = runner.scene_extent
    width, height = runner.size
    x = float(scene_w)
    column = float(width - scene_w)
    imgui.set_next_window_pos((x, 0.0))
    imgui.set_next_window_size((column, float(height)))
    flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize | imgui.WindowFlags_.no_collapse
    imgui.begin(runner.demo.title, None, flags)
    state.cut_cells = []
    state.font_px = imgui.get_font_size()
    if runner.demo.lesson:
        imgui.text_wrapped(runner.demo.lesson)
    if state.show_help:
        state.shown["help"] = "keys: " + HELP
        # Wrapped, so the line never loses its end ("Esc quit") in a narrow column.
        imgui.push_style_color(imgui.Col_.text, (1.0, 0.85, 0.3, 1.0))
        imgui.text_wrapped(state.shown["help"])
        imgui.pop_style_color()
    else:
        state.shown["help"] = "H: help"
        imgui.text_disabled(state.shown["help"])
    imgui.separator()
    runner.demo.controls()
    imgui.separator()
    _switches(state)
    _counters(runner, frame, render_ms)
    if imgui.collapsing_header("Layers", imgui.TreeNodeFlags_.default_open):
        _layers(runner, frame)
    if imgui.collapsing_header("Frame graph", imgui.TreeNodeFlags_.default_open):
        _graph(runner, frame)
    imgui.end()
    if state.selected:
        _highlight(runner, frame, state.selected)
    _legend(runner)


SELECTED = imgui.IM_COL32(255, 210, 0, 255)


def highlight_quads(runner: "PanelHost", frame: Frame, layer_id: str) -> list[list[tuple[float, float]]]:
    """The selected layer's quads on the scene, in window units (the frame's corners are
    device px: the display maps them)."""
    return [[runner.display.units_from_device(x, y) for x, y in corners]
            for draw, _, corners in screen_quads(frame.graph) if draw.layer_id == layer_id]


def _highlight(runner: "PanelHost", frame: Frame, layer_id: str) -> None:
    """Outline the selected layer's quads on the scene."""
    draw_list = imgui.get_foreground_draw_list()
    for quad in highlight_quads(runner, frame, layer_id):
        a, b, c, d = (imgui.ImVec2(float(x), float(y)) for x, y in quad)
        draw_list.add_quad(a, b, c, d, SELECTED, 3.0 * runner.layout_scale)


def cell_text(state: PanelState, text: str, colour: tuple[float, float, float, float] | None = None) -> None:
    """A table cell's text; when the column is too narrow for it, hovering the cell shows
    it whole in a tooltip (and the cut cell is listed in ``state.cut_cells``)."""
    room = imgui.get_content_region_avail().x
    if colour is None:
        imgui.text(text)
    else:
        imgui.text_colored(colour, text)
    if imgui.calc_text_size(text).x > room + 0.5:
        (x0, y0), (x1, y1) = imgui.get_item_rect_min(), imgui.get_item_rect_max()
        state.cut_cells.append((text, (x0, y0, x0 + room, y1)))
        if imgui.is_item_hovered():
            imgui.set_tooltip(text)
            state.tooltip = text


_LEGEND_BG = imgui.IM_COL32(24, 24, 28, 220)
_LEGEND_TEXT = imgui.IM_COL32(240, 240, 240, 255)


def _legend(runner: "PanelHost") -> None:
    """What the overlay's colours mean, drawn on the scene's bottom-left corner (over
    the canvas, so a screenshot or a recording carries it)."""
    state = runner.state
    if not state.overlay:
        state.legend, state.legend_box = [], None
        return
    lines = [f"{state.overlay} overlay", *(text for _, text in LEGENDS[state.overlay])]
    scale = runner.layout_scale
    pad, swatch, line_h = 8 * scale, imgui.get_font_size(), imgui.get_text_line_height_with_spacing()
    width = max(imgui.calc_text_size(line).x for line in lines) + swatch + 3 * pad
    height = len(lines) * line_h + 2 * pad
    _, scene_h = runner.scene_extent
    x0, y0 = 12 * scale, scene_h - 12 * scale - height
    draw_list = imgui.get_foreground_draw_list()
    draw_list.add_rect_filled((x0, y0), (x0 + width, y0 + height), _LEGEND_BG, 6 * scale)
    y = y0 + pad
    draw_list.add_text((x0 + pad, y), _LEGEND_TEXT, lines[0])
    for (r, g, b), text in LEGENDS[state.overlay]:
        y += line_h
        draw_list.add_rect_filled((x0 + pad, y), (x0 + pad + swatch, y + swatch), imgui.IM_COL32(r, g, b, 255))
        draw_list.add_text((x0 + 2 * pad + swatch, y), _LEGEND_TEXT, text)
    state.legend, state.legend_box = lines, (x0, y0, x0 + width, y0 + height)


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
    if runner.headless:
        # A recording's frame rate is the recorder's (it writes PNGs between frames):
        # what a slide should teach is what the frame cost the engine.
        state.shown["counters"] = f"render {render_ms:.1f} ms (planning + GPU work of scene.render)"
    else:
        state.shown["counters"] = f"FPS {state.fps():5.1f}   render {render_ms:6.1f} ms   window + panels {ui:5.1f} ms"
    imgui.text_wrapped(state.shown["counters"])
    imgui.text_wrapped(
        f"rastered {numbers['layers rastered']}   passes {numbers['passes']}   "
        f"textures {numbers['textures']} ({numbers['texture bytes'] / 2**20:.2f} MB)   "
        f"reused {numbers['textures reused']}   compiles {numbers['shader compiles']}"
    )
    if state.kind_ms["raster"] and implot.begin_plot("pass time (ms)", (-1.0, 140.0 * runner.layout_scale)):
        implot.setup_axes("frame", "ms", implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
        for kind in PASS_KINDS:
            values = np.asarray(state.kind_ms[kind], dtype=np.float64)
            implot.plot_line(kind, values)
        implot.end_plot()


def layer_rows(scene: Any, frame: Frame) -> list[dict]:
    """The frame's layer table in the scene's tree order: the order the frame's report
    lists layers in follows the compositor's work and changes between frames, and rows
    that jump cannot be read (layers the tree no longer has come last, by id)."""
    rows = {row["layer"]: row for row in frame.report["graph"]["layers"]}
    ordered = [rows.pop(layer.id) for layer in scene.layers() if layer.id in rows]
    return ordered + [rows[key] for key in sorted(rows)]


_TABLE = imgui.TableFlags_.borders | imgui.TableFlags_.row_bg | imgui.TableFlags_.scroll_y
_FIXED = imgui.TableColumnFlags_.width_fixed
_STRETCH = imgui.TableColumnFlags_.width_stretch
_YES = (0.45, 0.85, 0.45, 1.0)


def _layers(runner: "PanelHost", frame: Frame) -> None:
    state = runner.state
    if imgui.begin_table("layers", 3, _TABLE, (0.0, 180.0 * runner.layout_scale)):
        imgui.table_setup_column("layer", _FIXED)
        imgui.table_setup_column("composited", _FIXED)
        imgui.table_setup_column("why / drawn into", _STRETCH)
        imgui.table_headers_row()
        for row in layer_rows(runner.scene, frame):
            imgui.table_next_row()
            imgui.table_next_column()
            clicked, _ = imgui.selectable(row["layer"], state.selected == row["layer"],
                                          imgui.SelectableFlags_.span_all_columns)
            if clicked:
                state.selected = None if state.selected == row["layer"] else row["layer"]
            imgui.table_next_column()
            composited = row.get("composited", True)
            cell_text(state, "yes" if composited else "no", _YES if composited else None)
            imgui.table_next_column()
            why = "; ".join(row.get("reasons", [])) or row.get("painted_into") or row.get("drawn_into", "")
            cell_text(state, str(why))
        imgui.end_table()


def _graph(runner: "PanelHost", frame: Frame) -> None:
    state = runner.state
    passes = frame.report["graph"]["passes"]
    times = frame.report["stats"]["pass_ms"]
    if imgui.begin_table("passes", 4, _TABLE, (0.0, 200.0 * runner.layout_scale)):
        imgui.table_setup_column("pass", _STRETCH, 1.2)
        imgui.table_setup_column("size", _FIXED)
        imgui.table_setup_column("ms", _FIXED)
        imgui.table_setup_column("why", _STRETCH, 1.0)
        imgui.table_headers_row()
        for p in passes:
            imgui.table_next_row()
            imgui.table_next_column()
            cell_text(state, p["name"])
            imgui.table_next_column()
            cell_text(state, f"{p['size'][0]}x{p['size'][1]}")
            imgui.table_next_column()
            cell_text(state, f"{times.get(p['name'], 0.0):.2f}")
            imgui.table_next_column()
            cell_text(state, str(p.get("executor") or p.get("detail") or p.get("reason") or ""))
        imgui.end_table()
