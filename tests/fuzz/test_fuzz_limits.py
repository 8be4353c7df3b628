"""Fuzzing the hostile-value classes of issue 24 (item 8): deep nesting, huge numbers,
lone surrogates, long family lists, long text, long styles, long filter chains and tree
cycles, each generated (tests/fuzz/strategies.py, seeded as the rest of the fuzz suite)
and handed to Lamina where a user would. Every case is refused with a typed error that
names the limit, or accepted when it is within the limits; never another exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import event, given, settings

from lamina import Layer, Scene, filters
from lamina.limits import MAX_CSS_NESTING
from lamina.errors import LaminaInputError, LayerTreeError, SceneFileError, StyleError
from lamina.scene_file import scene_from_dict
from lamina.style import Style

from .strategies import (cyclic_trees, deep_nesting, huge_animation_numbers, huge_text_numbers, long_family_lists,
                         long_filter_chains, long_styles, long_texts, surrogate_strings)


def _verdict(call, *limits: str) -> None:
    """Run ``call``: accepted, or a typed input error that names one of ``limits``."""
    try:
        call()
    except LaminaInputError as err:
        assert any(name in str(err) for name in limits), f"{type(err).__name__} names no limit: {err}"
        event(f"refused: {type(err).__name__}")
        return
    event("accepted")


@settings(max_examples=60)
@given(deep_nesting())
def test_deep_nesting(value):
    prop, text, depth = value
    try:
        Style({prop: text}).computed()
    except StyleError as err:
        assert err.property == prop, err
        if depth > MAX_CSS_NESTING:
            assert "MAX_CSS_NESTING" in str(err), err
            event("refused: nested too deep")
        else:
            event("refused: an invalid value within the nesting limit")
        return
    assert depth <= MAX_CSS_NESTING
    event("accepted")


@settings(max_examples=60)
@given(huge_animation_numbers())
def test_huge_animation_numbers(options):
    def run():
        layer = Layer("a", (0, 0, 4, 4))
        animation = layer.animate({"from": {"opacity": "0"}, "to": {"opacity": "1"}}, **options)
        for t in (0.0, 0.5, 1.0, 1e6):
            animation.progress(t)
    _verdict(run, "MAX_TIME", "MIN_DURATION", "MAX_ITERATIONS", "MAX_BEZIER_Y", "MAX_STEPS", "not finite")


@settings(max_examples=60)
@given(huge_text_numbers())
def test_huge_text_numbers(css):
    _verdict(lambda: Layer("t", (0, 0, 10, 10), css, text="Hi").computed_style(), "MAX_FONT_SIZE", "not finite",
             "MAX_TEXT_SPACING", "MAX_LINE_HEIGHT_FACTOR")


@settings(max_examples=40)
@given(surrogate_strings())
def test_lone_surrogates(case):
    where, text = case
    if where == "id":
        call = lambda: Layer(text)  # noqa: E731
    elif where == "text":
        call = lambda: Layer("a", text=text)  # noqa: E731
    elif where == "style":
        call = lambda: Style(f"font-family: '{text}'")  # noqa: E731
    else:
        call = lambda: scene_from_dict(json.loads(json.dumps(  # noqa: E731
            {"width": 4, "height": 4, "layers": [{"id": "a", where: text}]})))
    try:
        call()
    except (StyleError, LayerTreeError, SceneFileError) as err:
        assert "surrogate" in str(err), err
        str(err).encode("utf-8")  # printable, as --explain prints it
        event(f"refused at {where}")
        return
    pytest.fail(f"a lone surrogate in {where} was accepted")


@settings(max_examples=30)
@given(long_family_lists())
def test_long_family_lists(css):
    _verdict(lambda: Style(css), "MAX_FONT_FAMILIES", "MAX_FAMILY_NAME_LENGTH", "MAX_STYLE_LENGTH")


@settings(max_examples=10)
@given(long_texts())
def test_long_texts(text):
    _verdict(lambda: Layer("t", (0, 0, 40, 10), text=text), "MAX_TEXT_LENGTH")


@settings(max_examples=20)
@given(long_styles())
def test_long_styles(css):
    _verdict(lambda: Style(css), "MAX_STYLE_LENGTH")


@settings(max_examples=40)
@given(long_filter_chains())
def test_long_filter_chains(chain):
    def run():
        filters.parse(chain).plan(size=(32, 32))
        Style(f"filter: {chain}")
    _verdict(run, "MAX_FILTER_FUNCTIONS", "MAX_FILTER_GROWTH")


@settings(max_examples=40)
@given(cyclic_trees())
def test_tree_cycles(shape):
    size, edges = shape
    scene = Scene(8, 8)
    layers = [scene.root.add(Layer(f"l{i}", (0, 0, 4, 4))) for i in range(size)]
    for a, b in edges:  # refused at the change; then forced past the list: a cycle, or one layer in two lists
        with pytest.raises(LayerTreeError, match="through add"):
            layers[a].children.append(layers[b])
        list.append(layers[a].children, layers[b])
    for call in (scene.plan, scene.layers, scene.to_dict):
        with pytest.raises(LayerTreeError, match="met twice"):
            call()
    event("cycle" if any(a == b for a, b in edges) else "a layer in two lists, or a longer cycle")
