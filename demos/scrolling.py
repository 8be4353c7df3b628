"""Scrolling explorer: a long page, composited scrolling, tiles, fixed and sticky layers.

What the student learns: a browser does not paint a page again to scroll it. Under the
browser policy a scroller's contents are one backing cut into tiles, on a grid fixed in
the page; a scroll only moves them, and only the tiles that come near the viewport (the
interest rect: what can show, grown by 256 px) are rastered — the borders overlay
outlines each tile in brown, and the table counts the tiles this frame kept, rastered
and reused. The fixed bar stays put and the sticky section headers stick under it: both
are promoted (their reasons are in the table), so a scroll moves their kept textures
too. Smaller tiles raster fewer pixels per new row but cost more draws; "none" paints
the whole viewport every frame.

Drive it: drag the scroll slider (it stops the auto-scroll), pick a tile size, turn the
sticky headers off and on, switch the policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from imgui_bundle import imgui

from lamina import Layer, Scene
from lamina.framegraph import FrameGraph
from lamina.tiling import Tiling

from .ui.runner import Demo

__all__ = ["Scrolling", "tile_counts", "pinned_layers", "PAGE_HEIGHT"]

PAGE_HEIGHT = 6000
SECTION = 1200  # px of page per section, each with its own sticky header
BAR = 48  # the fixed bar's height: the sticky headers stick just under it
SPEED = 400.0  # px per second of auto-scroll
TILE_SIZES = (256, 512, 1024)


def tile_counts(graph: FrameGraph) -> dict[str, int]:
    """What the page's contents backing did this frame: tiles kept, rastered, reused, bytes."""
    for tiles in graph.tiles:
        if tiles.owner == "root-contents":
            return {"kept": tiles.kept, "rastered": tiles.rastered, "reused": tiles.reused, "bytes": tiles.bytes}
    return {"kept": 0, "rastered": 0, "reused": 0, "bytes": 0}


def pinned_layers(graph: FrameGraph) -> dict[str, str]:
    """Layers promoted because a scroll moves them otherwise than the page (fixed, sticky)."""
    out = {}
    for lid, info in graph.layer_info.items():
        for reason in info.reasons:
            if reason.startswith(("fixed position", "sticky position")):
                out[lid] = reason
    return out


@dataclass
class Scrolling(Demo):
    name: str = "scrolling"
    title: str = "Scrolling explorer"
    lesson: str = (
        "Scrolling moves tiles; only tiles coming near the viewport are rastered. Fixed and "
        "sticky layers are promoted, so a scroll moves their textures too."
    )
    scroll: float = 0.0
    auto: bool = True
    tile_size: int = 512
    sticky: bool = True

    def __post_init__(self) -> None:
        self._last_t = 0.0
        self.script = [
            (6, lambda d: d.set(tile_size=256)),
            (11, lambda d: d.set(sticky=False)),
            (14, lambda d: d.set(sticky=True, tile_size=1024)),
        ]

    def set(self, *, tile_size: int | None = None, sticky: bool | None = None) -> None:
        if tile_size is not None:
            self.tile_size = tile_size
        if sticky is not None:
            self.sticky = sticky

    def start(self) -> None:
        self.runner.state.overlay = "borders"  # brown: tiles; orange: backings; green: layers

    def request_options(self) -> dict:
        return {"tiling": Tiling(tile_size=self.tile_size, threshold=max(2048, self.tile_size))}

    @property
    def end(self) -> float:
        return PAGE_HEIGHT - self.scene_size[1]

    def build(self) -> Scene:
        w, _ = self.scene_size
        scene = Scene(*self.scene_size, background="#f4f1ea")
        scene.root.style["overflow"] = "auto"
        for s in range(PAGE_HEIGHT // SECTION):
            section = scene.root.add(Layer(f"section{s}", (0, s * SECTION, w, SECTION)))
            section.add(Layer(f"head{s}", (0, 0, w, 36), f"position: sticky; top: {BAR}px; z-index: 1; "
                              f"background: hsl({s * 67 % 360} 45% 30% / 92%); color: white; font-size: 16px; font-family: DejaVu Sans",
                              text=f"  Section {s + 1}"))
            for i in range(15):
                col, row = i % 3, i // 3
                section.add(Layer(f"card{s}-{i}", (24 + col * 276, 60 + row * 226, 260, 206),
                                  f"background: linear-gradient(hsl({(s * 67 + i * 23) % 360} 65% 68%), "
                                  f"hsl({(s * 67 + i * 23 + 40) % 360} 60% 52%)); border-radius: 14px"))
        scene.root.add(Layer("bar", (0, 0, w, BAR), "position: fixed; z-index: 2; background: rgb(20 24 32 / 90%); "
                             "color: #eee; font-size: 18px; font-family: DejaVu Sans", text="  A long page"))
        return scene

    def update(self, scene: Scene, t: float) -> None:
        dt, self._last_t = max(t - self._last_t, 0.0), t
        if self.auto:
            self.scroll = (self.scroll + SPEED * dt) % self.end
        scene.root.scroll_to(y=self.scroll)
        position = "sticky" if self.sticky else "static"
        for sec in range(PAGE_HEIGHT // SECTION):
            head = scene[f"head{sec}"]
            if head.style.get("position") != position:  # insets are for sticky layers only
                head.style["position"], head.style["top"] = position, f"{BAR}px" if self.sticky else "auto"

    def controls(self) -> None:
        changed, value = imgui.slider_float("scroll position (px)", self.scroll, 0.0, self.end)
        self.mark_probe(value)
        if changed:
            self.scroll, self.auto = value, False
        _, self.auto = imgui.checkbox(f"auto-scroll ({SPEED:.0f} px/s)", self.auto)
        _, self.sticky = imgui.checkbox("sticky section headers", self.sticky)
        index = TILE_SIZES.index(self.tile_size) if self.tile_size in TILE_SIZES else 1
        changed, index = imgui.combo("tile size", index, [f"{s} px" for s in TILE_SIZES])
        if changed:
            self.tile_size = TILE_SIZES[index]
        frame = self.runner.last_frame
        if frame is None:
            return
        tiles = tile_counts(frame.graph)
        imgui.text(f"page tiles: {tiles['kept']} kept ({tiles['bytes'] / 2**20:.1f} MB), "
                   f"{tiles['rastered']} rastered this frame, {tiles['reused']} reused")
        pinned = pinned_layers(frame.graph)
        if imgui.begin_table("pinned", 2, imgui.TableFlags_.borders):
            for name in ("promoted layer", "because"):
                imgui.table_setup_column(name)
            imgui.table_headers_row()
            for lid, reason in pinned.items():
                imgui.table_next_row()
                for value in (lid, reason):
                    imgui.table_next_column()
                    imgui.text(value)
            imgui.end_table()
