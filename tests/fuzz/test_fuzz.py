"""Property-based fuzzing (hypothesis) of what users hand Lamina: CSS declarations,
filter strings and whole scene files with hostile values and hostile structure. Every
input gives a result or a typed Lamina error that says where — never another exception,
never a half-made frame graph, and each within the deadline (tests/fuzz/conftest.py:
a fixed seed on CI, a fresh one locally)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, given, settings

from lamina import filters
from lamina.errors import LaminaEnvironmentError, LaminaError, LaminaInputError, SceneFileError, StyleError
from lamina.scene_file import scene_from_dict
from lamina.style import Style

from .strategies import declarations, filter_chains, plausible_scenes, scene_dicts


def located(err: LaminaInputError) -> bool:
    """Does the error say where: a property or column in CSS, a JSON path in a scene,
    the layer, or the file and url of an image?"""
    return any(getattr(err, name, None) is not None for name in ("property", "column", "path", "layer", "url", "file"))


@settings(max_examples=300)
@given(declarations())
def test_css_declarations_parse_or_fail_with_a_located_style_error(text):
    try:
        style = Style(text)
    except StyleError as err:
        assert located(err), f"{type(err).__name__} without a location: {err}"
        return
    except LaminaInputError as err:  # e.g. a value Lamina's limits refuse
        assert located(err), err
        return
    style.computed()  # what parsed, computes
    style.to_css()


@settings(max_examples=150)
@given(filter_chains())
def test_filter_strings_parse_and_plan_or_fail_typed(text):
    try:
        chain = filters.parse(text)
    except LaminaInputError as err:
        assert located(err) or "filter" in str(err), err
        return
    try:
        plan = chain.plan(size=(64, 48))
    except LaminaInputError as err:  # e.g. url(#id) with no SVG markup to find it in
        assert located(err) or "filter" in str(err), err
        return
    assert all(v >= 0 for v in plan.outsets)


def _plan_or_typed_error(data):
    try:
        scene = scene_from_dict(data)
    except SceneFileError as err:
        assert err.path.startswith("$"), err
        event("refused when loaded")
        return None
    except LaminaInputError as err:
        assert located(err), f"{type(err).__name__} without a location: {err}"
        return None
    try:
        graph = scene.plan()
    except LaminaInputError as err:
        assert located(err) or "frame" in str(err) or "texture" in str(err), f"{type(err).__name__}: {err}"
        event("refused when planned")
        return None
    except LaminaEnvironmentError:
        event("refused here (environment)")
        return None  # e.g. a font family that resolves to nothing here: a typed, named refusal
    graph.validate()  # complete: every read is written first, the frame is written
    event(f"planned ({len(scene.layers())} layers)" if len(scene.layers()) < 3 else "planned (3+ layers)")
    return scene


@settings(max_examples=100)
@given(scene_dicts())
def test_scene_files_load_and_plan_or_fail_typed(data):
    _plan_or_typed_error(data)


@settings(max_examples=150)
@given(plausible_scenes())
def test_plausible_scenes_plan_or_fail_typed(data):
    _plan_or_typed_error(data)


@pytest.mark.gl
@settings(max_examples=60)
@given(plausible_scenes())
def test_scene_files_render_or_fail_typed(renderer, data):
    scene = _plan_or_typed_error(data)
    if scene is None:
        return
    try:
        frame = scene.render(renderer)
    except LaminaError:
        return
    image = frame.image
    assert image.shape == (scene.height, scene.width, 4) and image.dtype == np.uint8
