"""The scenes the compositor benchmark and the policy-memory tests share.

- ``cards_scene``: the issue's 100-card page, cards straight on the page (flat, no
  overlap between cards). Under "all" each card keeps an exact-size raster, which is the
  least any policy can store them in; "browser" keeps them in one page-size backing.
- ``page_scene``: the same 100 cards inside a page's structure (header, sidebar, a main
  panel with a background) and with four children each, as real markup nests.
- ``stack_scene``: twelve large panels that overlap (a card stack / modal pile), which is
  where promoting everything costs what "layer explosion" means: every panel keeps its
  whole area although little of it is visible.

Each has one card animated with will-change: transform, as the issue asks.
"""

from __future__ import annotations

import numpy as np

from lamina import Layer, Scene

__all__ = ["SCENES", "cards_scene", "page_scene", "stack_scene"]

_SPIN = {"from": {"transform": "rotate(0deg) scale(1)"}, "to": {"transform": "rotate(360deg) scale(1.3)"}}


def _card_style(rng: np.random.Generator, i: int) -> str:
    hue = int(rng.integers(0, 360))
    style = (
        f"background: linear-gradient({int(rng.integers(0, 360))}deg, hsl({hue} 70% 60%), hsl({(hue + 60) % 360} 70% 45%));"
        f"border-radius: {int(rng.integers(4, 16))}px; border: 1px solid rgb(0 0 0 / 15%)"
    )
    if i % 17 == 3:
        style += "; filter: drop-shadow(0 4px 4px rgb(0 0 0 / 30%))"
    return style


def _spin(scene: Scene, layer_id: str) -> Scene:
    scene[layer_id].style["will-change"] = "transform"
    scene[layer_id].animate(_SPIN, duration=2.0, iterations="infinite")
    return scene


def cards_scene(seed: int = 7) -> Scene:
    rng = np.random.default_rng(seed)
    scene = Scene(1280, 720, "#f4f1ea")
    for i in range(100):
        col, row = i % 10, i // 10
        card = scene.root.add(Layer(f"card{i}", (16 + col * 126, 12 + row * 70, 110, 58), _card_style(rng, i)))
        card.add(Layer(f"title{i}", (10, 10, 60, 10), "background: rgb(255 255 255 / 80%); border-radius: 5px"))
    return _spin(scene, "card44")


def page_scene(seed: int = 7) -> Scene:
    rng = np.random.default_rng(seed)
    scene = Scene(1280, 720, "#f4f1ea")
    header = scene.root.add(Layer("header", (0, 0, 1280, 48), "background: linear-gradient(90deg, #243b55, #141e30)"))
    for i in range(5):
        header.add(Layer(f"nav{i}", (24 + i * 96, 14, 80, 20), "background: rgb(255 255 255 / 15%); border-radius: 10px"))
    sidebar = scene.root.add(Layer("sidebar", (0, 48, 200, 672), "background: #e9e4d8"))
    for i in range(10):
        sidebar.add(Layer(f"link{i}", (16, 16 + i * 36, 168, 24), "background: rgb(0 0 0 / 6%); border-radius: 6px"))
    main = scene.root.add(
        Layer("main", (212, 60, 1056, 648), "background: white; border-radius: 12px; border: 1px solid rgb(0 0 0 / 10%)")
    )
    for i in range(100):
        col, row = i % 10, i // 10
        card = main.add(Layer(f"card{i}", (12 + col * 104, 10 + row * 63, 94, 54), _card_style(rng, i)))
        card.add(Layer(f"thumb{i}", (6, 6, 26, 26), "background: rgb(255 255 255 / 60%); border-radius: 13px"))
        card.add(Layer(f"title{i}", (38, 8, 48, 8), "background: rgb(255 255 255 / 80%); border-radius: 4px"))
        card.add(Layer(f"text{i}", (38, 22, 40, 6), "background: rgb(255 255 255 / 50%); border-radius: 3px"))
        card.add(Layer(f"badge{i}", (6, 38, 82, 10), "background: rgb(0 0 0 / 20%); border-radius: 5px"))
    return _spin(scene, "card44")


def stack_scene(seed: int = 7) -> Scene:
    rng = np.random.default_rng(seed)
    scene = Scene(1280, 720, "#f4f1ea")
    for i in range(12):
        panel = scene.root.add(Layer(f"panel{i}", (40 + i * 24, 30 + i * 20, 900, 420), _card_style(rng, i)))
        panel.add(Layer(f"title{i}", (16, 12, 300, 18), "background: rgb(255 255 255 / 80%); border-radius: 9px"))
    scene.root.add(Layer("spinner", (1100, 560, 120, 120), "background: tomato; border-radius: 60px"))
    return _spin(scene, "spinner")


SCENES = {"cards": cards_scene, "page": page_scene, "stack": stack_scene}
