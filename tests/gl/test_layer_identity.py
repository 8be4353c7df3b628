"""Layer ids key the scene's lookups, the property trees and the renderer's kept
textures, so a layer in a scene keeps its id (issue 24, item 6): renaming it there is a
typed error, and scenes that share ids, rendered in turn on one renderer, each get their
own pixels — every frame equal to the same scene rendered alone on a renderer of its own."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene
from lamina.errors import LayerTreeError


def _scene(colors: list[str], shift: int = 0) -> Scene:
    scene = Scene(96, 64, "white")
    for i, color in enumerate(colors):
        card = scene.root.add(Layer(f"card{i}", (8 + 28 * i + shift, 8, 24, 40), f"background: {color}; border-radius: 4px"))
        card.add(Layer(f"dot{i}", (6, 6, 8, 8), "background: white; will-change: transform"))
    return scene


def test_a_layer_in_a_scene_keeps_its_id():
    scene = _scene(["#c33"])
    card = scene["card0"]
    with pytest.raises(LayerTreeError, match="cannot be renamed to 'other' while it is in a scene"):
        card.id = "other"
    with pytest.raises(LayerTreeError, match="root layer 'root' of a scene keeps its id"):
        scene.root.id = "page"
    assert scene["card0"] is card and card.id == "card0"
    # Out of the scene it may be renamed; added back, it is found by its new name.
    scene.root.remove(card)
    card.id = "renamed"
    scene.root.add(card)
    assert scene["renamed"] is card
    with pytest.raises(LayerTreeError, match="non-empty string"):
        Layer("free").id = " "


def test_a_renamed_layer_names_itself_in_style_errors():
    layer = Layer("before", (0, 0, 10, 10))
    layer.id = "after"
    with pytest.raises(Exception) as err:
        layer.style["opacity"] = "loud"
    assert getattr(err.value, "layer", None) == "after"


def test_scenes_sharing_ids_on_one_renderer_each_get_their_own_pixels(gl):
    scenes = [_scene(["#c33", "#3c3", "#33c"]), _scene(["#333", "#c3c", "#cc3"], shift=4),
              _scene(["#3cc", "#c33", "#3c3"])]
    alone = []
    with Renderer() as own:
        for s in scenes:
            own.drop_caches()  # nothing kept from another scene: as if rendered alone
            alone.append(own.render(s).image)
    for round_ in range(3):  # in turn, on the shared renderer, with its kept textures
        for scene, expected in zip(scenes, alone):
            got = gl.render(scene).image
            assert np.array_equal(got, expected), f"round {round_}: another scene's kept texture was drawn"
