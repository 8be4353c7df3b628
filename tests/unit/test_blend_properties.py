"""mix-blend-mode, isolation and backdrop-filter as typed ComputedStyle values.

CSS Compositing and Blending 1 (mix-blend-mode, isolation) and Filter Effects 2
(backdrop-filter): parsing to BlendMode / Isolation / FilterChain, the typed errors with
property, value and column, CSS-wide keywords, stacking contexts, animation (backdrop-filter
like filter, the keywords discretely) and the scene-file round trip.

Expected columns are computed from the CSS text with ``str.index`` of the offending
token; the list of blend modes is written here from the spec, not read from the engine.
"""

from __future__ import annotations

import json

import pytest

from lamina import Layer, Scene, filters
from lamina.blending import BlendMode, Isolation
from lamina.compositor.tree import STACKING_WILL_CHANGE, LayerNode, StackingContext, resolve_tree
from lamina.errors import (
    FilterSyntaxError,
    InvalidValueError,
    SceneFileError,
    StyleError,
    UnsupportedFeatureError,
)
from lamina.scene_file import load_scene, scene_from_dict
from lamina.style import ComputedStyle, Style
from lamina.style.properties import INHERITED_FIELDS, NOT_YET_SUPPORTED, PROPERTIES

# <blend-mode> (Compositing 1 §10) and plus-lighter (Compositing 2), in spec order.
SPEC_BLEND_MODES = [
    "normal", "multiply", "screen", "overlay", "darken", "lighten", "color-dodge",
    "color-burn", "hard-light", "soft-light", "difference", "exclusion", "hue",
    "saturation", "color", "luminosity", "plus-lighter",
]


def col(text: str, needle: str, nth: int = 0) -> int:
    """1-based column of the ``nth`` occurrence of ``needle`` in a one-line ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + 1


def computed(css: str, parent: ComputedStyle | None = None) -> ComputedStyle:
    return Style(css).computed(parent)


def error_of(source) -> StyleError:
    with pytest.raises(StyleError) as info:
        Style(source)
    return info.value


# -- parsing --------------------------------------------------------------------------------------


def test_initial_values_and_not_inherited():
    c = ComputedStyle()
    assert c.mix_blend_mode is BlendMode.NORMAL
    assert c.isolation is Isolation.AUTO
    assert c.backdrop_filter is None
    assert not {"mix_blend_mode", "isolation", "backdrop_filter"} & INHERITED_FIELDS
    parent = computed("mix-blend-mode: multiply; isolation: isolate; backdrop-filter: blur(2px)")
    child = computed("", parent)
    assert (child.mix_blend_mode, child.isolation, child.backdrop_filter) == (BlendMode.NORMAL, Isolation.AUTO, None)


def test_properties_are_registered_and_no_longer_unsupported():
    for name, fld in (("mix-blend-mode", "mix_blend_mode"), ("isolation", "isolation"), ("backdrop-filter", "backdrop_filter")):
        assert name not in NOT_YET_SUPPORTED
        assert PROPERTIES[name].fields == (fld,)
    assert "mask-composite" in NOT_YET_SUPPORTED  # the neighbours stay unsupported


def test_the_enum_has_exactly_the_spec_modes():
    assert [m.value for m in BlendMode] == SPEC_BLEND_MODES
    assert [i.value for i in Isolation] == ["auto", "isolate"]


@pytest.mark.parametrize("mode", SPEC_BLEND_MODES)
def test_every_blend_mode_parses_to_its_enum(mode):
    got = computed(f"mix-blend-mode: {mode}").mix_blend_mode
    assert got is BlendMode(mode)
    assert isinstance(got, BlendMode) and got.value == mode


@pytest.mark.parametrize("word", ["auto", "isolate"])
def test_isolation_parses_to_its_enum(word):
    got = computed(f"isolation: {word}").isolation
    assert got is Isolation(word) and isinstance(got, Isolation)


@pytest.mark.parametrize(
    "css, field, expected",
    [
        ("mix-blend-mode: MULTIPLY", "mix_blend_mode", BlendMode.MULTIPLY),
        ("mix-blend-mode: Color-Dodge", "mix_blend_mode", BlendMode.COLOR_DODGE),
        ("mix-blend-mode: PLUS-lighter", "mix_blend_mode", BlendMode.PLUS_LIGHTER),
        ("isolation: ISOLATE", "isolation", Isolation.ISOLATE),
        ("isolation: Auto", "isolation", Isolation.AUTO),
        ("backdrop-filter: BLUR(2px) Sepia(1)", "backdrop_filter", filters.parse("blur(2px) sepia(1)")),
        ("backdrop-filter: NONE", "backdrop_filter", None),
        ("MIX-BLEND-MODE: screen", "mix_blend_mode", BlendMode.SCREEN),
    ],
)
def test_keywords_are_case_insensitive(css, field, expected):
    # The same rule as the existing keyword properties:
    assert computed("visibility: HIDDEN").visibility == "hidden"
    assert computed("overflow: Hidden").overflow == "hidden"
    assert getattr(computed(css), field) == expected


@pytest.mark.parametrize(
    "value",
    [
        "none",
        "blur(2px)",
        "brightness(1.5)",
        "contrast(0.5)",
        "drop-shadow(1px 2px 3px red)",
        "grayscale(1)",
        "hue-rotate(90deg)",
        "invert(0.5)",
        "opacity(50%)",
        "saturate(2)",
        "sepia(0.3)",
        "blur(4px) saturate(1.8) brightness(1.1)",
    ],
)
def test_backdrop_filter_takes_the_filter_grammar(value):
    expected = filters.parse(value)
    back = computed(f"backdrop-filter: {value}").backdrop_filter
    assert back == (None if expected.is_none() else expected)
    assert back == computed(f"filter: {value}").filter
    assert computed(f"backdrop-filter: {value}").filter is None  # it does not touch filter


def test_the_filter_functions_covered_are_all_of_them():
    names = {"blur", "brightness", "contrast", "drop-shadow", "grayscale", "hue-rotate", "invert", "opacity", "saturate", "sepia"}
    assert names == set(filters.ops.OPS)


def test_backdrop_filter_values_are_filter_chains():
    chain = computed("backdrop-filter: blur(2px) sepia(1)").backdrop_filter
    assert isinstance(chain, filters.FilterChain)
    assert chain.css() == "blur(2px) sepia(1)"


# -- CSS-wide keywords -------------------------------------------------------------------------


@pytest.mark.parametrize("prop, field", [
    ("mix-blend-mode", "mix_blend_mode"), ("isolation", "isolation"), ("backdrop-filter", "backdrop_filter"),
])
def test_css_wide_keywords(prop, field):
    parent = computed("mix-blend-mode: difference; isolation: isolate; backdrop-filter: blur(3px)")
    initial = getattr(ComputedStyle(), field)
    set_value = getattr(parent, field)
    assert set_value != initial
    assert getattr(computed(f"{prop}: inherit", parent), field) == set_value
    assert getattr(computed(f"{prop}: INHERIT", parent), field) == set_value
    assert getattr(computed(f"{prop}: inherit"), field) == initial  # no parent: initial
    # Not inherited: unset is initial.
    assert getattr(computed(f"{prop}: unset", parent), field) == initial
    # initial after a value resets it.
    written = {"mix-blend-mode": "multiply", "isolation": "isolate", "backdrop-filter": "blur(1px)"}[prop]
    style = Style({prop: written})
    assert getattr(style.computed(), field) != initial
    style[prop] = "initial"
    assert getattr(style.computed(parent), field) == initial


# -- errors -----------------------------------------------------------------------------------

Invalid, Unsupported, FSE = InvalidValueError, UnsupportedFeatureError, FilterSyntaxError

# (css, error class, property, value text in the error, token the column must point at, nth)
CSS_ERRORS = [
    ("mix-blend-mode: multipy", Invalid, "mix-blend-mode", "multipy", "multipy", 0),
    ("opacity: 1; mix-blend-mode: burn", Invalid, "mix-blend-mode", "burn", "burn", 0),
    ("mix-blend-mode: multiply screen", Invalid, "mix-blend-mode", "multiply screen", "screen", 0),
    ("mix-blend-mode: 3", Invalid, "mix-blend-mode", "3", "3", 0),
    ("mix-blend-mode: multiply, screen", Invalid, "mix-blend-mode", "multiply, screen", ",", 0),
    ("mix-blend-mode: plus-darker", Unsupported, "mix-blend-mode", "plus-darker", "plus-darker", 0),
    ("isolation: isolated", Invalid, "isolation", "isolated", "isolated", 0),
    ("color: red; isolation: none", Invalid, "isolation", "none", "none", 0),
    ("isolation: isolate auto", Invalid, "isolation", "isolate auto", "auto", 0),
    ("isolation: inherit auto", Invalid, "isolation", "inherit auto", "inherit", 0),
    ("backdrop-filter: blur(-2px)", FSE, "backdrop-filter", None, "-2px", 0),
    ("backdrop-filter: sepia(1) blur(-2px)", FSE, "backdrop-filter", None, "-2px", 0),
    ("backdrop-filter: wobble(2)", FSE, "backdrop-filter", None, "wobble(", 0),
    ("backdrop-filter: blur(2px), sepia(1)", FSE, "backdrop-filter", None, ",", 0),
    ("backdrop-filter: none blur(2px)", FSE, "backdrop-filter", None, "blur(", 0),
    ("backdrop-filter: blur(2em)", FSE, "backdrop-filter", None, "2em", 0),
    ("backdrop-filter: sepia(-1)", FSE, "backdrop-filter", None, "-1", 0),
    ("backdrop-filter: hue-rotate(10px)", FSE, "backdrop-filter", None, "10px", 0),
    ("backdrop-filter: drop-shadow(1px)", FSE, "backdrop-filter", None, "1px", 0),  # where the y offset is missing
    ("backdrop-filter: blur", FSE, "backdrop-filter", None, "blur", 0),
    ("backdrop-filter: url(f.svg#f)", Unsupported, "backdrop-filter", None, "url(", 0),
]


@pytest.mark.parametrize("css, cls, prop, value, token, nth", CSS_ERRORS, ids=[c[0] for c in CSS_ERRORS])
def test_css_text_errors_name_property_value_and_column(css, cls, prop, value, token, nth):
    err = error_of(css)
    expected_col = col(css, token, nth)
    assert (type(err).__name__, err.property, err.column, err.line) == (cls.__name__, prop, expected_col, 1)
    if value is not None:
        assert err.value == value
    assert err.value and err.value.strip() in css
    message = str(err)
    assert f"property {prop!r}" in message and f"column {expected_col}" in message
    assert repr(err.value.strip()) in message


@pytest.mark.parametrize(
    "mapping, cls, prop, token",
    [
        ({"mix-blend-mode": "  multipy"}, Invalid, "mix-blend-mode", "multipy"),
        ({"Mix-Blend-Mode": "screen lighten"}, Invalid, "mix-blend-mode", "lighten"),
        ({"isolation": "isolated"}, Invalid, "isolation", "isolated"),
        ({"opacity": "1", "backdrop-filter": "sepia(1) blur(-2px)"}, FSE, "backdrop-filter", "-2px"),
        ({"backdrop-filter": "bogus()"}, FSE, "backdrop-filter", "bogus("),
    ],
)
def test_dict_value_errors_count_columns_in_the_value(mapping, cls, prop, token):
    err = error_of(mapping)
    (value,) = [v for k, v in mapping.items() if k.lower() == prop]
    assert (type(err).__name__, err.property, err.column) == (cls.__name__, prop, col(value, token))
    assert f"property {prop!r}" in str(err)


def test_unknown_mode_message_lists_the_modes():
    err = error_of("mix-blend-mode: multipy")
    assert "'multipy'" in str(err)
    for mode in ("multiply", "plus-lighter", "luminosity"):
        assert mode in err.reason


def test_negative_blur_is_the_same_error_as_in_filter():
    filt = error_of("filter: blur(-2px)")
    back = error_of("backdrop-filter: blur(-2px)")
    assert type(filt) is type(back) is FilterSyntaxError
    assert back.reason == filt.reason and "negative" in back.reason
    assert (filt.property, back.property) == ("filter", "backdrop-filter")
    assert filt.column == col("filter: blur(-2px)", "-2px")
    assert back.column == col("backdrop-filter: blur(-2px)", "-2px")
    assert "'backdrop-filter'" in str(back) and "'filter'" not in str(back)


@pytest.mark.parametrize("prop", ["filter", "backdrop-filter"])
def test_whole_value_filter_errors_quote_the_value_as_written(prop):
    css = f"{prop}: blur(2px)  wobble(1)"
    err = error_of(css)
    assert type(err) is FilterSyntaxError and err.property == prop
    assert err.value == "blur(2px)  wobble(1)" and err.column == col(css, "wobble(")


def test_empty_value_is_an_error():
    err = error_of({"mix-blend-mode": ""})
    assert type(err) is Invalid and err.property == "mix-blend-mode"
    err = error_of("backdrop-filter: ;")
    assert type(err) is Invalid and err.property == "backdrop-filter"


def test_a_failed_set_leaves_the_style_unchanged():
    s = Style("mix-blend-mode: screen")
    with pytest.raises(InvalidValueError):
        s["mix-blend-mode"] = "sreen"
    assert s.computed().mix_blend_mode is BlendMode.SCREEN


def test_layer_errors_name_the_layer():
    with pytest.raises(StyleError) as info:
        Layer("card", (0, 0, 10, 10), "isolation: maybe")
    assert info.value.layer == "card" and info.value.property == "isolation"


# -- scene files: errors carry the JSON path ------------------------------------------------------


def load_error(tmp_path, doc) -> SceneFileError:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    err = info.value
    assert err.file == str(path)
    assert str(err).startswith(f"{path}: {err.path}: ")
    return err


def test_scene_file_style_text_error_has_path_and_column(tmp_path):
    css = "opacity: 0.5; mix-blend-mode: multipy"
    doc = {"width": 10, "height": 10, "layers": [{"id": "a", "children": [{"id": "b", "style": css}]}]}
    err = load_error(tmp_path, doc)
    assert err.path == "$.layers[0].children[0].style"
    assert f"column {col(css, 'multipy')}" in str(err) and "'mix-blend-mode'" in str(err) and "'b'" in str(err)
    cause = err.__cause__
    assert isinstance(cause, InvalidValueError)
    assert (cause.layer, cause.property, cause.column) == ("b", "mix-blend-mode", col(css, "multipy"))


def test_scene_file_dict_style_error_has_the_property_path(tmp_path):
    doc = {"width": 10, "height": 10, "layers": [{"id": "a", "style": {"isolation": "isolated"}}]}
    err = load_error(tmp_path, doc)
    assert err.path == "$.layers[0].style.isolation"
    doc = {"width": 10, "height": 10, "layers": [{"id": "a", "style": {"backdrop-filter": "blur(-1px)"}}]}
    err = load_error(tmp_path, doc)
    assert err.path == "$.layers[0].style.backdrop-filter"
    assert isinstance(err.__cause__, FilterSyntaxError) and err.__cause__.column == col("blur(-1px)", "-1px")


def test_scene_file_root_style_error_path(tmp_path):
    err = load_error(tmp_path, {"width": 10, "height": 10, "style": "isolation: sometimes"})
    assert err.path == "$.style"


def test_scene_file_keyframe_error_path(tmp_path):
    anim = {"keyframes": {"from": {"mix-blend-mode": "normal"}, "to": {"mix-blend-mode": "multipy"}}, "duration": 1}
    doc = {"width": 10, "height": 10, "layers": [{"id": "a", "animations": [anim]}]}
    err = load_error(tmp_path, doc)
    assert err.path.startswith("$.layers[0].animations[0]")
    assert "mix-blend-mode" in str(err)


# -- stacking contexts ------------------------------------------------------------------------


def contexts(scene: Scene) -> set[str]:
    out = set()

    def walk(ctx: StackingContext):
        out.add(ctx.node.id)
        for item in ctx.items:
            if isinstance(item, StackingContext):
                walk(item)

    walk(resolve_tree(scene.root))
    return out


@pytest.mark.parametrize(
    "css, creates",
    [
        ("", False),
        ("mix-blend-mode: normal", False),
        ("isolation: auto", False),
        ("backdrop-filter: none", False),
        ("mix-blend-mode: normal; isolation: auto; backdrop-filter: none", False),
        ("isolation: isolate", True),
        ("backdrop-filter: blur(2px)", True),
        ("backdrop-filter: blur(0px)", True),  # not none, even if it changes nothing
        ("will-change: mix-blend-mode", True),
        ("will-change: isolation", True),
        ("will-change: backdrop-filter", True),
        *((f"mix-blend-mode: {m}", True) for m in SPEC_BLEND_MODES if m != "normal"),
    ],
)
def test_stacking_contexts(css, creates):
    scene = Scene(100, 100)
    parent = scene.root.add(Layer("p", (0, 0, 80, 80), "background-color: red; " + css))
    parent.add(Layer("c", (5, 5, 10, 10), "background-color: blue; z-index: -1"))
    nodes: dict[str, LayerNode] = {}
    resolve_tree(scene.root, 0.0, nodes)
    assert nodes["p"].creates_stacking_context() is creates
    assert ("p" in contexts(scene)) is creates
    assert nodes["c"].creates_stacking_context()  # z-index: the child's own


def test_will_change_names_still_count():
    assert {"mix-blend-mode", "isolation", "backdrop-filter"} <= STACKING_WILL_CHANGE


def test_negative_z_child_stays_inside_an_isolated_parent():
    """A stacking context contains its negative-z descendants (CSS 2.1 Appendix E)."""
    scene = Scene(100, 100)
    p = scene.root.add(Layer("p", (0, 0, 80, 80), "background-color: red; isolation: isolate"))
    p.add(Layer("c", (5, 5, 10, 10), "background-color: blue; z-index: -1"))
    root = resolve_tree(scene.root)
    (ctx,) = [i for i in root.items if isinstance(i, StackingContext) and i.node.id == "p"]
    assert [i.node.id for i in ctx.items] == ["c"]


# -- animation --------------------------------------------------------------------------------


def style_at(scene: Scene, layer_id: str, t: float) -> ComputedStyle:
    nodes: dict[str, LayerNode] = {}
    resolve_tree(scene.root, t, nodes)
    return nodes[layer_id].style


def animated(prop: str, frm: str, to: str, base: str = "") -> Scene:
    scene = Scene(100, 100)
    layer = scene.root.add(Layer("card", (10, 10, 40, 30), "background-color: red; " + base))
    layer.animate({"from": {prop: frm}, "to": {prop: to}}, duration=1)
    return scene


@pytest.mark.parametrize(
    "frm, to, t, expected",
    [
        ("blur(0px)", "blur(4px)", 0.5, "blur(2px)"),
        ("blur(0)", "blur(4px)", 0.25, "blur(1px)"),
        ("none", "saturate(3)", 0.5, "saturate(2)"),  # none pads with the initial saturate(1)
        ("none", "sepia(1)", 0.25, "sepia(0.25)"),
        ("sepia(1)", "none", 0.25, "sepia(0.75)"),
        ("blur(2px) brightness(1)", "blur(6px) brightness(2)", 0.5, "blur(4px) brightness(1.5)"),
        ("blur(2px)", "blur(4px) grayscale(1)", 0.5, "blur(3px) grayscale(0.5)"),
        ("hue-rotate(0deg)", "hue-rotate(180deg)", 0.5, "hue-rotate(90deg)"),
        ("blur(2px)", "sepia(1)", 0.49, "blur(2px)"),  # different functions: discrete
        ("blur(2px)", "sepia(1)", 0.5, "sepia(1)"),
    ],
)
def test_backdrop_filter_interpolates_like_filter(frm, to, t, expected):
    got = style_at(animated("backdrop-filter", frm, to), "card", t).backdrop_filter
    assert got == filters.parse(expected), f"{frm} -> {to} at {t}: got {got}"
    assert got == style_at(animated("filter", frm, to), "card", t).filter


def test_backdrop_filter_animation_to_none_ends_as_none():
    scene = animated("backdrop-filter", "blur(4px)", "none")
    assert style_at(scene, "card", 0.5).backdrop_filter == filters.parse("blur(2px)")
    (late,) = style_at(scene, "card", 0.999).backdrop_filter.ops
    assert isinstance(late, filters.ops.Blur) and late.sigma == pytest.approx(0.004)
    scene = animated("backdrop-filter", "none", "none")
    assert style_at(scene, "card", 0.5).backdrop_filter is None


def test_backdrop_filter_animation_uses_the_underlying_value():
    scene = Scene(100, 100)
    layer = scene.root.add(Layer("card", (0, 0, 10, 10), "backdrop-filter: blur(2px)"))
    layer.animate({"to": {"backdrop-filter": "blur(6px)"}}, duration=1)
    assert style_at(scene, "card", 0.5).backdrop_filter == filters.parse("blur(4px)")
    assert style_at(scene, "card", 2.0).backdrop_filter == filters.parse("blur(2px)")  # no fill


@pytest.mark.parametrize("t, expected", [(0.0, BlendMode.MULTIPLY), (0.25, BlendMode.MULTIPLY), (0.49, BlendMode.MULTIPLY),
                                         (0.5, BlendMode.SCREEN), (0.75, BlendMode.SCREEN), (0.999, BlendMode.SCREEN)])
def test_mix_blend_mode_animates_discretely(t, expected):
    got = style_at(animated("mix-blend-mode", "multiply", "screen"), "card", t).mix_blend_mode
    assert got is expected and isinstance(got, BlendMode)


@pytest.mark.parametrize("t, expected", [(0.2, Isolation.AUTO), (0.49, Isolation.AUTO), (0.5, Isolation.ISOLATE), (0.8, Isolation.ISOLATE)])
def test_isolation_animates_discretely(t, expected):
    got = style_at(animated("isolation", "auto", "isolate"), "card", t).isolation
    assert got is expected


def test_discrete_flip_changes_the_stacking_context():
    scene = animated("mix-blend-mode", "normal", "difference")
    nodes: dict[str, LayerNode] = {}
    resolve_tree(scene.root, 0.25, nodes)
    assert not nodes["card"].creates_stacking_context()
    resolve_tree(scene.root, 0.75, nodes)
    assert nodes["card"].creates_stacking_context()


def test_keyframe_inherit_and_initial():
    scene = Scene(100, 100)
    parent = scene.root.add(Layer("p", (0, 0, 50, 50), "mix-blend-mode: luminosity"))
    child = parent.add(Layer("card", (0, 0, 10, 10), "mix-blend-mode: hue"))
    child.animate({"from": {"mix-blend-mode": "inherit"}, "to": {"mix-blend-mode": "initial"}}, duration=1)
    assert style_at(scene, "card", 0.25).mix_blend_mode is BlendMode.LUMINOSITY
    assert style_at(scene, "card", 0.75).mix_blend_mode is BlendMode.NORMAL
    assert style_at(scene, "card", 2.0).mix_blend_mode is BlendMode.HUE


def test_animation_errors_name_the_property():
    scene = Scene(10, 10)
    layer = scene.root.add(Layer("a", (0, 0, 5, 5)))
    with pytest.raises(FilterSyntaxError) as info:
        layer.animate({"to": {"backdrop-filter": "blur(-1px)"}}, duration=1)
    assert info.value.property == "backdrop-filter" and info.value.layer == "a"


# -- scene-file round trip -------------------------------------------------------------------

FIELDS = ("mix_blend_mode", "isolation", "backdrop_filter")


def test_round_trip_through_the_scene_file_writer(tmp_path):
    scene = Scene(120, 80)
    scene.root.style["isolation"] = "isolate"
    card = scene.root.add(Layer("card", (0, 0, 60, 40), "background-color: red; mix-blend-mode: Color-Burn"))
    card.add(Layer("glass", (5, 5, 20, 20), "backdrop-filter: blur(3px) saturate(1.8) drop-shadow(1px 2px 3px rgb(0 0 255))"))
    scene.root.add(Layer("plain", (0, 0, 5, 5), {"mix-blend-mode": "plus-lighter", "isolation": "auto", "backdrop-filter": "none"}))
    spinner = scene.root.add(Layer("spin", (0, 0, 5, 5)))
    spinner.animate({"from": {"backdrop-filter": "blur(0px)", "mix-blend-mode": "multiply"},
                     "to": {"backdrop-filter": "blur(4px)", "mix-blend-mode": "screen"}}, duration=2)

    data = scene.to_dict()
    text = json.dumps(data)
    assert "mix-blend-mode" in text and "isolation" in text and "backdrop-filter" in text
    path = tmp_path / "blend.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    again = load_scene(path)
    assert again.to_dict() == data  # stable

    for layer_id in ("card", "glass", "plain"):
        assert {f: getattr(again[layer_id].computed_style(), f) for f in FIELDS} == {
            f: getattr(scene[layer_id].computed_style(), f) for f in FIELDS
        }, layer_id
    assert again.root.computed_style().isolation is Isolation.ISOLATE
    assert again["card"].computed_style().mix_blend_mode is BlendMode.COLOR_BURN
    assert again["plain"].computed_style().mix_blend_mode is BlendMode.PLUS_LIGHTER
    assert again["glass"].computed_style().backdrop_filter == filters.parse(
        "blur(3px) saturate(1.8) drop-shadow(1px 2px 3px rgb(0 0 255))"
    )
    for t in (0.0, 0.5, 1.0, 1.5):
        a, b = style_at(scene, "spin", t), style_at(again, "spin", t)
        assert (a.backdrop_filter, a.mix_blend_mode) == (b.backdrop_filter, b.mix_blend_mode), t
    assert style_at(again, "spin", 1.0).backdrop_filter == filters.parse("blur(2px)")


def test_round_trip_through_scene_from_dict_keeps_css_wide_keywords():
    scene = Scene(10, 10)
    scene.root.add(Layer("a", (0, 0, 5, 5), "mix-blend-mode: inherit; isolation: unset; backdrop-filter: initial"))
    data = scene.to_dict()
    again = scene_from_dict(json.loads(json.dumps(data)))
    assert again["a"].style.to_css() == scene["a"].style.to_css()
    assert again.to_dict() == data
