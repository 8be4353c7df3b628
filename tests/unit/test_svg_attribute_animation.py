"""Animation of SVG filter primitive attributes (lamina.animation.svg_attributes,
lamina.filters.svg.attributes), without a GPU: addressing, typed errors naming the
filter, primitive and attribute, interpolation as CSS filter amounts and colours do
(checked against values computed here), scene files, and the property the GL path relies
on: sampling changes values only — the planned passes and the program each runs are the
same at every time."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.animation.svg_attributes import SvgAttributeAnimation
from lamina.errors import InvalidValueError, SceneFileError, SvgFilterError
from lamina.filters.plan import PassKind
from lamina.filters.svg import parse_svg
from lamina.filters.svg.attributes import AttributePath
from lamina.filters.svg.compile import plan_graph
from lamina.scene_file import scene_from_dict, scene_to_dict

NS = 'xmlns="http://www.w3.org/2000/svg"'
MARKUP = (f'<svg {NS}><filter id="glow" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">'
          '<feColorMatrix type="hueRotate" values="30" result="hue"/>'
          '<feGaussianBlur stdDeviation="2" result="blur"/>'
          '<feOffset dx="1" dy="2" result="off"/>'
          '<feFlood flood-color="#ff0000" flood-opacity=".5" result="flood"/>'
          '<feComposite in="flood" in2="off" operator="arithmetic" k1="0" k2=".5" k3=".5" k4="0" result="mix"/>'
          '<feComponentTransfer result="tone"><feFuncR type="linear" slope="1" intercept="0"/>'
          '<feFuncG type="gamma" amplitude="1" exponent="1" offset="0"/></feComponentTransfer>'
          '<feTurbulence baseFrequency=".05" seed="3" result="noise"/>'
          '<feMerge><feMergeNode in="tone"/><feMergeNode in="noise"/></feMerge>'
          '</filter></svg>')


@pytest.fixture
def document():
    return parse_svg(MARKUP)


def animation(document, keyframes, **timing):
    return SvgAttributeAnimation.create(document, "#glow", keyframes, **{"duration": "1s", **timing})


def test_paths_name_a_primitive_by_result_or_index_and_a_transfer_function():
    assert AttributePath.parse("blur.stdDeviation") == AttributePath("blur", "stdDeviation")
    assert AttributePath.parse("[4].k2") == AttributePath(4, "k2")
    assert AttributePath.parse("tone.feFuncR.slope") == AttributePath("tone", "slope", "feFuncR")
    assert str(AttributePath.parse("[4].k2")) == "[4].k2", "a path reads back as written"


@pytest.mark.parametrize("key, words", [
    ("nope.dx", ["no primitive", 'result="nope"', "<feOffset"]),          # lists what the filter has
    ("[9].dx", ["no primitive [9]"]),
    ("blur.radius", ["'radius' is not an attribute of <feGaussianBlur>", "stdDeviation"]),
    ("blur.in", ["'in' is not animatable", "<feGaussianBlur"]),
    ("mix.operator", ["'operator' is not animatable", "k1, k2, k3, k4"]),
    ("hue.type", ["'type' is not animatable"]),
    ("blur.edgeMode", ["'edgeMode' is not animatable"]),
    ("noise.numOctaves", ["'numOctaves' is not animatable"]),
    ("noise.stitchTiles", ["'stitchTiles' is not animatable"]),
    ("tone.feFuncR.type", ["'type' is not animatable", "<feFuncR>"]),
    ("tone.slope", ["PRIMITIVE.feFuncR.ATTRIBUTE"]),
    ("stdDeviation", ["PRIMITIVE.ATTRIBUTE"]),
])
def test_unknown_and_structural_attributes_are_typed_errors_naming_where(document, key, words):
    with pytest.raises(SvgFilterError) as info:
        animation(document, {"0%": {key: "1"}, "100%": {key: "2"}})
    text = str(info.value)
    assert all(w in text for w in words), text
    assert key in text, "the error names the keyframe key as written"


@pytest.mark.parametrize("key, value, words", [
    ("blur.stdDeviation", "-1", "must be at least 0"),
    ("blur.stdDeviation", "1 2 3", "takes 1 to 2 number(s)"),
    ("hue.values", "a", "'a' is not a number"),
    ("hue.values", "1 2", "takes 1 number(s)"),
    ("flood.flood-color", "nocolour", "flood-color"),
])
def test_bad_values_are_checked_as_markup_is(document, key, value, words):
    with pytest.raises(SvgFilterError, match=None) as info:
        animation(document, {"0%": {key: value}})
    assert words in str(info.value), str(info.value)


def test_unknown_filter_and_missing_markup_are_typed_errors(document):
    with pytest.raises(SvgFilterError, match="#glow"):
        SvgAttributeAnimation.create(document, "#other", {"0%": {"blur.stdDeviation": 1}}, duration=1)
    with pytest.raises(SvgFilterError, match="no SVG markup"):
        Scene(10, 10).animate_svg("#glow", {"0%": {"blur.stdDeviation": 1}}, duration=1)
    with pytest.raises(InvalidValueError, match="duration"):
        animation(document, {"0%": {"blur.stdDeviation": 1}}, duration="-1s")


def test_numbers_pairs_lists_and_colours_interpolate_as_css_amounts_do(document):
    anim = animation(document, {
        "0%": {"blur.stdDeviation": 2, "off.dx": -4, "hue.values": 0, "mix.k2": "0",
               "flood.flood-color": "rgb(255 0 0 / 1)", "tone.feFuncR.slope": ".5"},
        "100%": {"blur.stdDeviation": "6 10", "off.dx": 4, "hue.values": 360, "mix.k2": "1",
                 "flood.flood-color": "rgb(0 0 255 / .5)", "tone.feFuncR.slope": "1.5"}})
    element = document.filter("glow")
    for t in (0.0, 0.25, 0.6, 0.999):
        v = {str(k): val for k, val in anim.values(t, element).items()}
        assert v["blur.stdDeviation"] == pytest.approx((2 + 4 * t, 2 + 8 * t)), "one number is both axes"
        assert v["off.dx"] == pytest.approx(-4 + 8 * t)
        assert v["hue.values"] == pytest.approx((360 * t,)), "angles are not normalised, as hue-rotate()"
        assert v["mix.k2"] == pytest.approx(t)
        assert v["tone.feFuncR.slope"] == pytest.approx(0.5 + t)
        # premultiplied sRGB (CSS Color 4): red (alpha 1) to blue at alpha .5
        a = 1 - 0.5 * t
        c = v["flood.flood-color"]
        assert (c.r, c.g, c.b, c.a) == pytest.approx(((1 - t) / a, 0.0, 0.5 * t / a, a))


def test_implicit_keyframes_hold_the_markup_value_and_fill_applies(document):
    anim = animation(document, {"50%": {"off.dy": 10}}, delay="1s")
    element = document.filter("glow")
    assert anim.values(0.5, element) == {}, "before its delay, without fill backwards: no effect"
    assert anim.values(1.25, element)[AttributePath("off", "dy")] == pytest.approx(6.0), "markup dy=2 at 0%"
    assert anim.values(1.75, element)[AttributePath("off", "dy")] == pytest.approx(6.0), "and at 100%"


def test_seed_is_discrete_and_overshooting_easings_are_clamped(document):
    anim = animation(document, {"0%": {"noise.seed": 1, "blur.stdDeviation": 0, "flood.flood-opacity": 1},
                                "100%": {"noise.seed": 9, "blur.stdDeviation": 4, "flood.flood-opacity": 0}},
                     easing="cubic-bezier(.5, -1, .5, 2)")
    element = document.filter("glow")
    seeds = [anim.values(t, element)[AttributePath("noise", "seed")] for t in np.linspace(0, 0.999, 9)]
    assert set(seeds) == {1.0, 9.0}, "the seed jumps: a different lattice, not a blend"
    for t in np.linspace(0, 0.999, 21):
        v = anim.values(t, element)
        assert min(v[AttributePath("blur", "stdDeviation")]) >= 0.0
        assert 0.0 <= v[AttributePath("flood", "flood-opacity")] <= 1.0
        anim.apply(t, document)  # and the sampled filter passes the primitives' checks


def _structure(plan):
    return [(p.pass_kind, p.gl().program if p.pass_kind is not PassKind.COLOR else len(p.steps)) for p in plan.passes]


def test_sampling_changes_values_only_the_passes_and_programs_stay(document):
    """What makes a GL frame compile nothing: at every time the graph plans the same
    passes, each with the same program key; only uniform values differ. (As for CSS
    amounts, a value that is a no-op drops its pass — feOffset by 0, a blur of 0 — and
    a blur past sigma 4 adds a halving level: these ranges cross neither.)"""
    markup = (f'<svg {NS}><filter id="glow" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">'
              '<feColorMatrix type="saturate" values=".5" result="sat"/>'
              '<feComponentTransfer result="tone"><feFuncR type="linear" slope="1"/></feComponentTransfer>'
              '<feGaussianBlur stdDeviation="1" result="blur"/><feOffset dx="1" result="off"/>'
              '<feFlood flood-color="teal" result="flood"/>'
              '<feComposite in="flood" in2="off" operator="arithmetic" k2=".5" k3=".5"/></filter></svg>')
    doc = parse_svg(markup)
    anim = SvgAttributeAnimation.create(doc, "#glow", {
        "0%": {"sat.values": ".2", "tone.feFuncR.slope": ".5", "blur.stdDeviation": "1", "off.dx": "1",
               "flood.flood-color": "teal", "[5].k2": ".1"},
        "100%": {"sat.values": "1.8", "tone.feFuncR.slope": "2", "blur.stdDeviation": "3.5", "off.dx": "4",
                 "flood.flood-color": "rgb(200 100 0 / .4)", "[5].k2": ".9"}}, duration="2s")
    plans = [plan_graph(anim.apply(t, doc).filter("glow"), (40, 30)) for t in (0.0, 0.5, 1.1, 1.9)]
    assert len({json.dumps([str(s) for s in _structure(p)]) for p in plans}) == 1, [_structure(p) for p in plans]
    assert len(set(plans)) == 4, "the values did change"


def test_scene_animate_svg_and_scene_files_round_trip():
    scene = Scene(40, 30)
    scene.add_svg(MARKUP)
    scene.root.add(Layer("a", box=(5, 5, 20, 10), style="background: #f06; filter: url(#glow)"))
    scene.animate_svg("#glow", [{"offset": "0%", "off.dx": 1}, {"offset": "100%", "off.dx": 5, "easing": "ease-in"}],
                      duration="2s", iterations="infinite", direction="alternate")
    assert scene.svg_at(0.5).filter("glow").primitives[2].dx == pytest.approx(2.0), "a quarter of 1 -> 5"
    assert scene.svg_at(2.5).filter("glow").primitives[2].dx == pytest.approx(4.0), "alternate: a quarter back from 5"
    assert scene.svg.filter("glow").primitives[2].dx == 1.0, "the markup's filter is not changed"
    data = scene_to_dict(scene)
    again = scene_from_dict(json.loads(json.dumps(data)))
    assert again.svg_animations[0].to_dict() == scene.svg_animations[0].to_dict()
    for t in (0.3, 1.7, 2.9):
        assert again.svg_at(t) == scene.svg_at(t)


@pytest.mark.parametrize("spec, path", [
    ({"filter": "#nope", "keyframes": {"0%": {"off.dx": 1}}, "duration": 1}, "$.svg_animations[0].filter"),
    ({"filter": "#glow", "keyframes": {"50%": {"off.in": "x"}}, "duration": 1},
     "$.svg_animations[0].keyframes['50%']['off.in']"),
    ({"filter": "#glow", "keyframes": [{"offset": 0, "off.dx": "q"}], "duration": 1},
     "$.svg_animations[0].keyframes[0]['off.dx']"),
    ({"filter": "#glow", "keyframes": {"0%": {"off.dx": 1}}, "duration": 1, "fill": "sideways"},
     "$.svg_animations[0].fill"),
    ({"filter": "#glow", "keyframes": {"0%": {"off.dx": 1}}}, "$.svg_animations[0]"),
])
def test_scene_file_errors_name_the_json_path(spec, path):
    with pytest.raises(SceneFileError) as info:
        scene_from_dict({"width": 10, "height": 10, "svg": MARKUP, "svg_animations": [spec]})
    assert str(info.value).startswith(path) or path in str(info.value), str(info.value)


def test_scene_plans_the_same_passes_at_every_time():
    """Planned without a GPU: a layer's url() filter whose attributes animate keeps its
    filter passes (kinds and programs) from frame to frame, with the values of the time."""
    markup = (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">'
              '<feColorMatrix type="hueRotate" values="10" result="hue"/><feOffset dx="2" result="off"/></filter></svg>')
    scene = Scene(64, 48, background="#fff")
    scene.add_svg(markup)
    scene.root.add(Layer("a", box=(8, 8, 40, 30), style="background: linear-gradient(#f06, #48f); filter: url(#f)"))
    scene.animate_svg("#f", {"0%": {"hue.values": 10, "off.dx": 2}, "100%": {"hue.values": 300, "off.dx": 7}},
                      duration="1s")
    graphs = [scene.plan(t=t) for t in (0.0, 0.3, 0.7)]
    shapes = [[(p.step.kind, str(p.step.gl().program)) for p in g.filter_passes()] for g in graphs]
    assert shapes[0] and all(s == shapes[0] for s in shapes), shapes
    offsets = [[p.step.offset for p in g.filter_passes() if p.step.kind == "offset"][0] for g in graphs]
    assert [o[0] for o in offsets] == pytest.approx([2.0, 3.5, 5.5])
