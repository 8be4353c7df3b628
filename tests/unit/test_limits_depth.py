"""Deep trees up to the documented limit (lamina.layer.MAX_TREE_DEPTH) plan without a
RecursionError, whatever nests: opacity groups, filters, blend groups; one level more
is a typed error when the tree is built."""

from __future__ import annotations

import sys

import pytest

from lamina import Layer, Scene
from lamina.errors import LayerTreeError
from lamina.layer import MAX_TREE_DEPTH

NESTINGS = {
    "opacity groups": "opacity: 0.99",
    "filters": "filter: brightness(1.01)",
    "blend groups": "mix-blend-mode: multiply; isolation: isolate",
    "transforms": "transform: rotate(0.1deg)",
}


def deep_scene(style: str, levels: int) -> Scene:
    scene = Scene(64, 64, "white")
    node = scene.root
    for i in range(levels):
        node = node.add(Layer(f"g{i}", (0.25, 0.25, 60, 60), style))
        node.add(Layer(f"a{i}", (0, 0, 4, 4), "background: rgb(200 0 0 / 0.5)"))
    return scene


@pytest.mark.parametrize("kind", sorted(NESTINGS))
def test_the_deepest_tree_allowed_plans(kind):
    scene = deep_scene(NESTINGS[kind], MAX_TREE_DEPTH - 2)  # the root and the leaves take two levels
    limit = sys.getrecursionlimit()
    graph = scene.plan()
    assert graph.composite_passes()
    assert sys.getrecursionlimit() == limit, "the recursion limit is put back"


def test_one_level_more_is_a_typed_error_naming_the_layers():
    scene = deep_scene("opacity: 0.99", MAX_TREE_DEPTH - 2)
    deepest = scene[f"a{MAX_TREE_DEPTH - 3}"]
    with pytest.raises(LayerTreeError, match=str(MAX_TREE_DEPTH)) as info:
        deepest.add(Layer("one-more", (0, 0, 1, 1)))
    assert "'one-more'" in str(info.value)
