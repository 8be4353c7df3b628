"""Layer promotion explorer: a page of 48 cards, and the compositor's decisions about them.

What the student learns: a browser does not give every element a GPU texture. It
promotes a layer for a *reason* — ``will-change``, a running transform/opacity/filter
animation, video — and everything else paints into a shared backing. Promotion is
contagious: a layer painted *after* a promoted one and overlapping it must be promoted
too, or it would appear below it ("overlap"); such layers are squashed into one backing
unless that would be too sparse. Promoting everything ("all") is the layer explosion:
every layer keeps its own texture, and memory grows with the layers, not the screen.

Drive it: put will-change on every Nth card with the slider, toggle the spinning card, and the banner
that sweeps *under* the cards (painted first, so every card over its path must be
promoted for overlap and they get squashed); switch the policy and compare the memory
each policy keeps (the table plans the same frame under all four).
"""

from __future__ import annotations

from dataclasses import dataclass

from imgui_bundle import imgui

from lamina import Layer, Scene
from lamina.compositor.policy import POLICIES
from lamina.framegraph import FrameGraph

from .ui.runner import Demo

__all__ = ["LayerPromotion", "kept_bytes", "composited_layers"]

SPIN = {"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(360deg)"}}
SWEEP = {"from": {"transform": "translateX(0px)"}, "to": {"transform": "translateX(560px)"}}


def kept_bytes(graph: FrameGraph) -> int:
    """Bytes of the textures this frame keeps for the next (backings, rasters, results)."""
    return sum(t.bytes for t in graph.textures() if t.retained)


def composited_layers(graph: FrameGraph) -> int:
    """Layers with a texture of their own: promoted ones under a backing policy, every
    drawing layer under "all", none under "none"."""
    if not graph.policy.retains_textures:
        return 0
    rows = graph.layer_table()
    return sum(1 for row in rows if row.get("composited")) if graph.policy.uses_backings else len(rows)


@dataclass
class LayerPromotion(Demo):
    name: str = "layer-promotion"
    title: str = "Layer promotion explorer"
    lesson: str = (
        "Layers get a texture of their own for a reason; layers over a promoted one are "
        "promoted too (overlap) and squashed together. 'all' is the layer explosion."
    )
    will_change_every: int = 0  # will-change: transform on every Nth card (0: none)
    spinning: bool = True
    banner: bool = False

    def __post_init__(self) -> None:
        self.memory: dict[str, tuple[int, int]] = {}
        self._memory_of: tuple | None = None
        self.script = [
            (4, lambda d: d.set(will_change_every=7)),
            (8, lambda d: d.set(banner=True)),
            (14, lambda d: d.set(policy="all")),
        ]

    def set(self, *, will_change_every: int | None = None, banner: bool | None = None,
            policy: str | None = None) -> None:
        if will_change_every is not None:
            self.will_change_every = will_change_every
        if banner is not None:
            self.banner = banner
        if policy is not None:
            self.runner.state.policy = policy

    def start(self) -> None:
        self.runner.state.overlay = "borders"  # green: layers, orange: backings

    def build(self) -> Scene:
        scene = Scene(*self.scene_size, background="#f4f1ea")
        scene.root.add(Layer("banner", (40, 300, 200, 90), "background: linear-gradient(90deg, #5bd1d7, #2b59c3); "
                                                            "border-radius: 20px; visibility: hidden"))
        for i in range(48):
            col, row = i % 6, i // 6
            card = scene.root.add(Layer(f"card{i}", (40 + col * 132, 30 + row * 84, 116, 68),
                                        f"background: hsl({(i * 37) % 360} 65% 62%); border-radius: 10px"))
            card.add(Layer(f"title{i}", (10, 10, 70, 10), "background: rgb(255 255 255 / 75%); border-radius: 5px"))
        scene["card20"].animate(SPIN, duration=3.0, iterations="infinite")
        scene["banner"].animate(SWEEP, duration=4.0, iterations="infinite", direction="alternate")
        return scene

    def update(self, scene: Scene, t: float) -> None:
        for i in range(48):
            want = "transform" if self.will_change_every and i % self.will_change_every == 0 else "auto"
            if scene[f"card{i}"].style.get("will-change", "auto") != want:
                scene[f"card{i}"].style["will-change"] = want
        visibility = "visible" if self.banner else "hidden"
        if scene["banner"].style.get("visibility") != visibility:
            scene["banner"].style["visibility"] = visibility
        spinning = bool(scene["card20"].animations)
        if spinning != self.spinning:
            if self.spinning:
                scene["card20"].animate(SPIN, duration=3.0, iterations="infinite")
            else:
                scene["card20"].animations.clear()
                scene["card20"].style["transform"] = "none"

    def controls(self) -> None:
        _, self.will_change_every = imgui.slider_int("will-change on every Nth card (0: none)",
                                                     self.will_change_every, 0, 12)
        self.mark_probe(self.will_change_every)
        _, self.spinning = imgui.checkbox("spin card 20 (an active animation)", self.spinning)
        _, self.banner = imgui.checkbox("banner sweeping under the cards", self.banner)
        scene, t = self.runner.scene, self.runner.t
        key = (scene.version, self.will_change_every, self.banner, self.spinning)  # promotions hold over an animation
        if key != self._memory_of:
            # The same frame planned under each policy (no GPU work): what each would keep.
            self.memory = {}
            for policy in POLICIES:
                graph = scene.plan(t=t, policy=policy)
                self.memory[policy] = (composited_layers(graph), kept_bytes(graph))
            self._memory_of = key
        if imgui.begin_table("memory", 3, imgui.TableFlags_.borders):
            for name in ("policy", "own textures", "kept MB"):
                imgui.table_setup_column(name)
            imgui.table_headers_row()
            for policy, (layers, size) in self.memory.items():
                imgui.table_next_row()
                for value in (policy, layers, f"{size / 2**20:.2f}"):
                    imgui.table_next_column()
                    imgui.text(str(value))
            imgui.end_table()
