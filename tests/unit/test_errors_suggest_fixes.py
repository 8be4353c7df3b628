"""Errors that suggest the fix (issue 20): a near match for a misspelt property, flag,
subcommand, choice or layer id; the keyframe's JSON path in an animation; the missing
comma of ``translate(5px 3px)``; what to do with a scene over the frame limit; and
``lamina explain --plan-only``, which answers without a GPU. No GL context is made here."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import moderngl
import pytest

import lamina.renderer
from lamina import Layer, Scene, load_scene
from lamina.cli import main
from lamina.errors import GeometryError, InvalidValueError, LaminaInputError, SceneFileError, UnknownPropertyError
from lamina.explorer import explore
from lamina.scene_file import scene_from_dict
from lamina.suggest import did_you_mean, near_matches

ROOT = Path(__file__).resolve().parents[2]
SHOWCASE = ROOT / "demos" / "showcase" / "showcase.json"


@pytest.mark.parametrize(
    "word, choices, expected",
    [
        ("border-raduis", ["border-radius", "border", "background"], ["border-radius"]),
        ("backgroud", ["background", "background-size", "background-image"], ["background"]),
        ("COLOUR", ["color", "opacity"], ["color"]),
        ("xyz", ["color", "opacity"], []),
        ("fill", ["filter", "opacity"], []),  # below the cutoff: not offered
        ("color", ["color"], []),  # the word itself is no suggestion
    ],
)
def test_near_matches(word, choices, expected):
    assert near_matches(word, choices) == expected


def test_did_you_mean_lists_ties():
    assert did_you_mean("cart", ["card", "care", "title"]) == "did you mean 'card' or 'care'?"
    assert did_you_mean("card", ["cards", "cart"]) == "did you mean 'cards'?", "only those about as close as the best"
    assert did_you_mean("zzz", ["cards"]) == ""


def test_unknown_property_suggests_the_near_match():
    with pytest.raises(UnknownPropertyError) as info:
        Layer("a", (0, 0, 10, 10), "color: red; border-raduis: 4px")
    assert str(info.value) == ("layer 'a', property 'border-raduis', column 13: unknown property; "
                               "did you mean 'border-radius'?")
    with pytest.raises(UnknownPropertyError) as info:
        Layer("b", (0, 0, 10, 10)).style["zzzz"] = "1"
    assert "did you mean" not in str(info.value), "no suggestion without a near match"


def test_unknown_property_in_a_scene_file_names_its_json_path():
    data = {"width": 10, "height": 10, "layers": [{"id": "c", "box": [0, 0, 5, 5], "style": {"opactiy": "0.5"}}]}
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(data)
    assert "$.layers[0].style.opactiy" in str(info.value) and "did you mean 'opacity'?" in str(info.value)


@pytest.mark.parametrize(
    "value, column, written",
    [
        ("translate(5px 3px)", 26, "translate(5px, 3px)"),
        ("scale(2 3)", 20, "scale(2, 3)"),
        ("matrix(1 0 0 1 0 0)", 21, "matrix(1, 0, 0, 1, 0, 0)"),
        ("skew(10deg 5deg)", 23, "skew(10deg, 5deg)"),
    ],
)
def test_transform_arguments_without_commas_say_a_comma_is_missing(value, column, written):
    with pytest.raises(InvalidValueError) as info:
        Layer("a", (0, 0, 10, 10), f"transform: {value}")
    message = str(info.value)
    assert f"column {column}: a comma is missing before" in message
    assert f"separates its arguments with commas, as in {written}" in message


def test_a_second_argument_where_one_is_allowed_is_not_a_missing_comma():
    with pytest.raises(InvalidValueError) as info:
        Layer("a", (0, 0, 10, 10), "transform: rotate(10deg 5deg)")
    assert "comma" not in str(info.value) and "unexpected dimension '5deg'" in str(info.value)


def scene_with_animation(animation: dict) -> dict:
    return {"width": 10, "height": 10, "layers": [
        {"id": "a", "box": [0, 0, 5, 5]}, {"id": "b", "box": [0, 0, 5, 5]},
        {"id": "c", "box": [0, 0, 5, 5], "animations": [animation]}]}


@pytest.mark.parametrize(
    "animation, path, where",
    [
        ({"duration": 1, "keyframes": [{"offset": 0, "transform": "rotate(0deg)"},
                                        {"offset": 1, "transform": "rotate(10px)"}]},
         "$.layers[2].animations[0].keyframes[1].transform", "keyframe 1, property 'transform'"),
        ({"duration": 1, "keyframes": {"from": {"opacity": "1"}, "50%": {"opacity": "-x"}}},
         "$.layers[2].animations[0].keyframes['50%'].opacity", "keyframe '50%', property 'opacity'"),
        ({"duration": 1, "keyframes": [{"offset": 0, "opacity": 1}, {"offset": 1, "opacity": 0, "easing": "wobbly"}]},
         "$.layers[2].animations[0].keyframes[1].easing", "keyframe 1"),
        ({"duration": 1, "keyframes": [{"offset": 0, "opacity": 1}, {"offset": 2, "opacity": 0}]},
         "$.layers[2].animations[0].keyframes[1]", "keyframe offset 2 is outside"),
        ({"duration": "soon", "keyframes": [{"offset": 0, "opacity": 1}]},
         "$.layers[2].animations[0].duration", "duration must be a time"),
    ],
)
def test_an_animation_error_points_at_the_keyframe(animation, path, where):
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(scene_with_animation(animation))
    assert str(info.value).startswith(f"{path}: "), str(info.value)
    assert where in str(info.value)


def test_an_animation_error_through_the_api_names_the_keyframe():
    layer = Layer("spin", (0, 0, 10, 10))
    with pytest.raises(InvalidValueError) as info:
        layer.animate({"0%": {"opacity": 1}, "100%": {"opacity": "lots"}}, duration=1)
    assert info.value.keyframe == "100%" and "layer 'spin', keyframe '100%', property 'opacity'" in str(info.value)


def test_a_scene_over_the_frame_limit_says_to_make_the_root_a_scroller():
    with pytest.raises(GeometryError) as info:
        Scene(1280, 20000)
    assert "make the root a scroller" in str(info.value) and "overflow: auto" in str(info.value)
    with pytest.raises(SceneFileError) as info:
        scene_from_dict({"width": 1280, "height": 20000})
    assert str(info.value).startswith("$.height: must be from 1 to 16384, got 20000; ")
    assert "make the root a scroller" in str(info.value)
    with pytest.raises(GeometryError) as info:
        Scene(0, 10)
    assert "scroller" not in str(info.value), "the hint is for sizes over the limit only"


def test_an_unknown_layer_id_lists_the_ids():
    scene = load_scene(SHOWCASE)
    with pytest.raises(KeyError) as info:
        scene["phto"]
    message = info.value.args[0]
    assert "no layer with id 'phto'; did you mean 'photo'?" in message
    assert "(the layers: 'root', 'hero', 'title'," in message and "and 1 more)" in message
    with pytest.raises(LaminaInputError) as info:
        explore(scene, "phto")
    assert str(info.value).startswith("explore(): no layer with id 'phto'; did you mean 'photo'?")


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["render", "s.json", "--explian"], "unrecognized arguments: --explian (did you mean '--explain'?)"),
        (["explain", "s.json", "--plan-onyl"], "unrecognized arguments: --plan-onyl (did you mean '--plan-only'?)"),
        (["check", "d", "--max-pixel-ration=0.1"], "(did you mean '--max-pixel-ratio'?)"),
        (["rendr", "s.json"], "invalid choice: 'rendr' (choose from"),
        (["rendr", "s.json"], "did you mean 'render'?"),
        (["render", "s.json", "--policy", "brwser"], "did you mean 'browser'?"),
    ],
)
def test_cli_suggests_the_flag_or_choice_meant(argv, expected, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert expected in capsys.readouterr().err


def test_cli_unknown_argument_without_a_near_match_is_still_named(capsys):
    with pytest.raises(SystemExit):
        main(["render", "s.json", "--zzzzzz"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzzzzz" in err and "did you mean" not in err


@pytest.fixture
def no_gpu(monkeypatch):
    """Any attempt to make a GL context (or the default renderer) fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("--plan-only touched the GPU")

    monkeypatch.setattr(moderngl, "create_context", refuse)
    monkeypatch.setattr(moderngl, "create_standalone_context", refuse)
    monkeypatch.setattr(lamina.renderer, "default_renderer", refuse)
    monkeypatch.setattr(lamina.renderer, "_defaults", threading.local())  # no thread has a default renderer


def test_explain_plan_only_prints_the_plan_without_the_gpu(no_gpu, capsys):
    assert main(["explain", str(SHOWCASE), "--plan-only"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Planned only (lamina explain --plan-only): no GPU work was done")
    assert "Render surfaces and backings:" in out and "Passes, in execution order:" in out
    assert " ms" not in out.split("\n", 1)[1], "no timings: nothing ran"
    assert load_scene(SHOWCASE).plan().describe() in out, "what scene.plan() returns"


def test_explain_plan_only_json_and_dot_are_scene_plan(no_gpu, tmp_path, capsys):
    dot = tmp_path / "graph.dot"
    assert main(["explain", str(SHOWCASE), "--plan-only", "--json", "--dot", str(dot)]) == 0
    report = json.loads(capsys.readouterr().out)
    planned = load_scene(SHOWCASE).plan()
    assert report == {"planned_only": True, "graph": json.loads(json.dumps(planned.to_dict()))}
    assert dot.read_text() == planned.to_dot()
