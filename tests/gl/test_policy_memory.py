"""What each policy keeps between frames, on the benchmark's scenes.

The issue's target "browser keeps <= 0.5x the texture memory of all" holds where
promoting everything really explodes (overlapping layers: the stack scene). On the flat
100-card page it cannot hold for any policy that keeps a page backing: "all" stores each
card in exactly its own area, the least anything can, and the frame is kept by both. These
tests pin the facts that argument rests on, so the README's claim stays true.
"""

from __future__ import annotations

import pytest

from lamina import Renderer
from tests.benchmarks.scenes import cards_scene, page_scene, stack_scene


@pytest.fixture(scope="module")
def fresh():
    with Renderer() as renderer:
        yield renderer


def kept(renderer, make, policy):
    """Textures kept after an animation frame (the steady state) of a new scene."""
    renderer.drop_caches()
    scene = make()
    scene.render(renderer, t=0.0, policy=policy)
    frame = scene.render(renderer, t=0.1, policy=policy)
    return frame, renderer.executor.retained_sizes()


def total(sizes) -> int:
    return sum(b for _, _, b in sizes.values())


def test_all_keeps_each_layer_at_exactly_its_own_size(fresh):
    _, sizes = kept(fresh, cards_scene, "all")
    layers = {name.split(":")[1].split("#")[0]: (w, h) for name, (w, h, _) in sizes.items() if name.startswith("layer:")}
    assert len(layers) == 200, "one raster per drawing layer"
    assert all(layers[f"card{i}"] == (110, 58) and layers[f"title{i}"] == (60, 10) for i in range(100) if i != 44)
    # card44 spins while it scales to 1.3: rastered at its animation's largest scale
    # (compositor.raster_scale), 1.3x its size, with its title.
    assert layers["card44"] == (143, 76) and layers["title44"] == (78, 13)
    assert sizes["frame"][:2] == (1280, 720)


def test_browser_page_backing_is_the_bounds_of_what_it_holds(fresh):
    frame, sizes = kept(fresh, cards_scene, "browser")
    (base,) = [name for name in sizes if name.startswith("backing:root-base")]
    held = [row["layer"] for row in frame.graph.layer_table() if row["painted_into"] == base]
    cards = [int(name[4:]) for name in held if name.startswith("card")]
    assert len(cards) > 70
    x0 = min(16 + (i % 10) * 126 for i in cards)
    y0 = min(12 + (i // 10) * 70 for i in cards)
    x1 = max(16 + (i % 10) * 126 + 110 for i in cards)
    y1 = max(12 + (i // 10) * 70 + 58 for i in cards)
    assert sizes[base][:2] == (x1 - x0, y1 - y0), "no margin wasted around the static content"
    # Hence the bound: the frame plus one rectangle around the static cards already
    # weighs more than half of everything "all" keeps.
    _, everything = kept(fresh, cards_scene, "all")
    floor = sizes["frame"][2] + sizes[base][2]
    assert total(sizes) >= floor > 0.5 * total(everything)


def test_browser_saves_what_layer_explosion_costs(fresh):
    _, browser = kept(fresh, stack_scene, "browser")
    _, everything = kept(fresh, stack_scene, "all")
    assert total(browser) <= 0.5 * total(everything)


def test_browser_keeps_less_than_all_on_a_nested_page(fresh):
    _, browser = kept(fresh, page_scene, "browser")
    _, everything = kept(fresh, page_scene, "all")
    assert total(browser) < total(everything)
