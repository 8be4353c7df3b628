"""Blend and backdrop: every mix-blend-mode, isolation, and a frosted-glass panel.

What the student learns: an element that blends, or that filters what lies behind it,
must *read* the pixels under it — and a GPU pass cannot read the texture it draws into.
So the compositor stops drawing the page, copies the region under the element into a
texture of its own (a read-back: see the ``backdrop`` passes in the frame graph), then
goes on drawing. Every one of the seventeen tiles on the left costs a read-back. A
blending element only blends with its *isolated group*: tick "isolate the tiles" and the
tiles' container becomes a surface of its own — the tiles now blend with nothing but the
container, and the page beneath stops showing through. The frosted panel
(``backdrop-filter: blur() saturate()``) copies only the region under it, grown by the
blur's reach and mirrored at its edges, blurs that copy, and draws it clipped to its
rounded corners: moving it re-rasters nothing, but re-reads and re-blurs every frame.

Drive it: the blur slider sets the panel's blur; the combo picks the big disc's blend
mode; the table lists this frame's read-backs with their sizes and times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from imgui_bundle import imgui

from lamina import Frame, Layer, Scene
from lamina.blending import BlendMode
from lamina.framegraph import SurfaceReason

from .ui.runner import Demo

__all__ = ["BlendBackdrop", "read_backs"]

MODES = [m for m in BlendMode if m is not BlendMode.NORMAL]


def read_backs(frame: Frame) -> list[dict]:
    """This frame's read-backs: which element read what, its size and time."""
    times = frame.stats.pass_ms
    return [{"layer": p.layer_id, "size": f"{p.target.width}x{p.target.height}", "mirrored": p.mirror is not None,
             "ms": times.get(p.name, 0.0)} for p in frame.graph.backdrop_passes()]


@dataclass
class BlendBackdrop(Demo):
    name: str = "blend-backdrop"
    title: str = "Blend and backdrop"
    lesson: str = (
        "Blend modes and backdrop-filter read the pixels under them: each costs a read-back "
        "copy. Isolation stops a blend at its group; a frosted panel re-blurs only what lies under it."
    )

    blur: float = 8.0  # px, the panel's backdrop blur
    disc_mode: BlendMode = BlendMode.DIFFERENCE
    isolate: bool = False
    script: list = field(default_factory=lambda: [
        (8, lambda d: setattr(d, "disc_mode", BlendMode.SCREEN)),
        (14, lambda d: setattr(d, "isolate", True)),
        (20, lambda d: setattr(d, "blur", 16.0)),
        (26, lambda d: setattr(d, "isolate", False)),
    ])

    def build(self) -> Scene:
        w, h = self.scene_size
        scene = Scene(w, h, background="#101820")
        scene.root.add(Layer("sky", (0, 0, w, h), "background: linear-gradient(160deg, #ff7e5f, #feb47b 35%, #6a82fb 70%, #0b486b)"))
        scene.root.add(Layer("stripes", (0, 420, w, 120),
                             "background: repeating-linear-gradient(90deg, #111 0 12px, #f5f5f5 12px 24px)"))
        scene.root.add(Layer("sun", (520, 60, 220, 220),
                             "background: radial-gradient(circle, #fff7b0, #ffb347 55%, rgb(255 120 60 / 0%) 70%)"))
        tiles = scene.root.add(Layer("tiles", (20, 20, 420, 380), "border-radius: 12px"))
        for i, mode in enumerate(MODES):
            col, row = i % 4, i // 4
            hue = (i * 47) % 360
            tiles.add(Layer(f"tile-{mode}", (8 + col * 102, 8 + row * 74, 92, 64),
                            f"background: linear-gradient(135deg, hsl({hue} 80% 55%), hsl({(hue + 90) % 360} 80% 45%)); "
                            f"border-radius: 10px; mix-blend-mode: {mode}"))
        scene.root.add(Layer("disc", (470, 300, 260, 260), "background: #3aa0ff; border-radius: 50%"))
        scene.root.add(Layer("glass", (60, 440, 360, 200),
                             "background: rgb(255 255 255 / 18%); border-radius: 24px; "
                             "border: 1px solid rgb(255 255 255 / 45%); will-change: transform"))
        self._applied = None
        return scene

    def update(self, scene: Scene, t: float) -> None:
        # The panel glides to and fro in whole pixels: a layer moved by a fraction of a
        # pixel is rastered again at that offset (sharp edges), by whole pixels it is not.
        phase = (t / 4.0) % 2.0
        k = 0.5 - 0.5 * math.cos(math.pi * (phase if phase <= 1.0 else 2.0 - phase))
        scene["glass"].style["transform"] = f"translate({round(380 * k)}px, {round(-40 * k)}px)"
        state = (self.blur, self.disc_mode, self.isolate)
        if state != self._applied:
            scene["glass"].style["backdrop-filter"] = f"blur({self.blur:.1f}px) saturate(1.6)"
            scene["disc"].style["mix-blend-mode"] = str(self.disc_mode)
            scene["tiles"].style["isolation"] = "isolate" if self.isolate else "auto"
            self._applied = state

    def controls(self) -> None:
        _, self.blur = imgui.slider_float("panel blur (px)", self.blur, 0.0, 30.0)
        self.mark_probe(self.blur)
        names = [str(m) for m in MODES]
        changed, index = imgui.combo("disc blend mode", names.index(str(self.disc_mode)), names)
        if changed:
            self.disc_mode = MODES[index]
        _, self.isolate = imgui.checkbox("isolate the tiles", self.isolate)
        frame = self.runner.last_frame
        if frame is None:
            return
        groups = [p for p in frame.graph.composite_passes() if p.reason is SurfaceReason.ISOLATION and not p.continues]
        for p in groups:
            imgui.text_wrapped(f"isolated group: {p.target.name} {p.target.width}x{p.target.height} ({p.detail})")
        rows = read_backs(frame)
        imgui.text(f"{len(rows)} read-backs this frame, {sum(r['ms'] for r in rows):.2f} ms")
        if imgui.begin_table("reads", 4, imgui.TableFlags_.borders):
            for name in ("read by", "size", "mirrored", "ms"):
                imgui.table_setup_column(name)
            imgui.table_headers_row()
            for row in rows:
                imgui.table_next_row()
                for value in (row["layer"], row["size"], "yes" if row["mirrored"] else "-", f"{row['ms']:.2f}"):
                    imgui.table_next_column()
                    imgui.text(str(value))
            imgui.end_table()
