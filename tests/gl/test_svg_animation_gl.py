"""Animated SVG filter attributes on GL: at several times the passes of the sampled
filter match the float64 SVG reference of the same filter (lamina.filters.svg.reference:
within 1 level, 2 where a graph blurs), the GL programs are compiled once (the program
cache's compile counter does not move after the first frame), and a scene whose filter
animates renders at each time what the same scene renders with the values written in its
markup (computed here, not by the animation code)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene, filters
from lamina.animation.svg_attributes import SvgAttributeAnimation
from lamina.filters.svg import parse_svg

from .test_filters_gl import random_image

NS = 'xmlns="http://www.w3.org/2000/svg"'
REGION = 'x="0" y="0" width="1" height="1"'
TIMES = (0.0, 0.35, 0.8, 1.6)  # seconds, over a 2 s animation

# (primitives, keyframes at 0% and 100%): numbers, lists, colours and transfer functions
GRAPHS = {
    "colour": ("<feColorMatrix type='saturate' values='.5' result='sat'/>"
               "<feComponentTransfer result='tone'><feFuncR type='linear' slope='1' intercept='0'/>"
               "<feFuncB type='gamma' amplitude='1' exponent='1' offset='0'/></feComponentTransfer>",
               {"sat.values": ".2", "tone.feFuncR.slope": ".6", "tone.feFuncR.intercept": ".05",
                "tone.feFuncB.exponent": ".5"},
               {"sat.values": "2.5", "tone.feFuncR.slope": "1.4", "tone.feFuncR.intercept": "-.1",
                "tone.feFuncB.exponent": "2"}),
    "flood-composite": ("<feOffset dx='1' dy='1' result='off'/><feFlood flood-color='teal' flood-opacity='.5' "
                        "result='flood'/><feComposite in='flood' in2='off' operator='arithmetic' k1='0' k2='.5' "
                        "k3='.5' k4='0' result='mix'/>",
                        {"off.dx": "1", "off.dy": "2", "flood.flood-color": "teal", "flood.flood-opacity": ".3",
                         "mix.k1": ".2", "mix.k2": ".3", "mix.k3": ".6", "mix.k4": "0"},
                        {"off.dx": "3", "off.dy": "-2", "flood.flood-color": "rgb(250 120 0 / .6)",
                         "flood.flood-opacity": "1", "mix.k1": "-.2", "mix.k2": ".8", "mix.k3": ".2", "mix.k4": ".05"}),
    "blur-hue": ("<feGaussianBlur stdDeviation='1' result='blur'/><feColorMatrix type='hueRotate' values='0' "
                 "result='hue'/>",
                 {"blur.stdDeviation": "0.8", "hue.values": "20"}, {"blur.stdDeviation": "3.5", "hue.values": "340"}),
}


def _markup(body: str) -> str:
    return f'<svg {NS}><filter id="f" {REGION} color-interpolation-filters="sRGB">{body}</filter></svg>'


@pytest.mark.parametrize("name", GRAPHS)
def test_animated_attributes_match_the_reference_and_compile_once(gl, rng, name):
    body, start, end = GRAPHS[name]
    document = parse_svg(_markup(body))
    animation = SvgAttributeAnimation.create(document, "#f", {"0%": start, "100%": end}, duration="2s")
    img = random_image(rng, 23, 31, transparent_border=2)
    programs = gl.executor.programs
    compiles = []
    for t in TIMES:
        sampled = animation.apply(t, document)
        out = filters.apply(img, "url(#f)", "gl", premultiplied=True, svg=sampled).astype(int)
        ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=sampled).astype(int)
        assert np.abs(out - ref).max() <= (2 if "Blur" in body else 1), f"{name} at t={t}"
        compiles.append(programs.compiles)
    assert len(set(compiles)) == 1, f"the frames after the first compiled programs: {compiles}"


def test_an_animated_scene_filter_renders_as_the_markup_with_those_values(gl, fresh):
    """Reftest: the animated scene at t against a static scene whose markup holds the
    values at t (linear keyframes: computed here); one renderer draws every frame and
    compiles nothing after the first, and the frame graph keeps its filter passes."""
    def markup(hue: float, dx: float, opacity: float) -> str:
        return _markup(f"<feColorMatrix type='hueRotate' values='{hue!r}' result='hue'/>"
                       f"<feOffset dx='{dx!r}' dy='1' result='off'/>"
                       f"<feFlood flood-color='#3060ff' flood-opacity='{opacity!r}' result='flood'/>"
                       "<feComposite in='flood' in2='off' operator='in' result='tint'/>"
                       "<feMerge><feMergeNode in='off'/><feMergeNode in='tint'/></feMerge>")

    def scene(hue: float, dx: float, opacity: float) -> Scene:
        s = Scene(72, 56, background="#fff")
        s.add_svg(markup(hue, dx, opacity))
        s.root.add(Layer("card", box=(10, 8, 44, 34),
                         style="background: linear-gradient(90deg, #f06, #4c8); filter: url(#f)"))
        return s

    animated = scene(10.0, 1.0, 0.1)
    animated.animate_svg("#f", {"0%": {"hue.values": 10, "off.dx": 1, "flood.flood-opacity": .1},
                                "100%": {"hue.values": 250, "off.dx": 5, "flood.flood-opacity": .7}}, duration="2s")
    shapes, compiles = [], []
    for t in TIMES:
        p = t / 2.0
        frame = animated.render(fresh, t=t)
        expected = scene(10 + 240 * p, 1 + 4 * p, 0.1 + 0.6 * p).render(fresh, t=t)
        assert np.array_equal(frame.image, expected.image), f"t={t}"
        shapes.append([(q.step.kind, str(q.step.gl().program)) for q in frame.graph.filter_passes()])
        compiles.append(fresh.executor.programs.compiles)
    assert shapes[0] and all(s == shapes[0] for s in shapes), shapes
    # The static scenes drew the same programs: nothing new was compiled for any frame.
    assert len(set(compiles[1:])) == 1, compiles


def test_an_attribute_frame_reruns_the_filter_not_the_raster(fresh):
    """A property-only change, as a CSS filter amount is: the next time re-runs the
    filter passes on the kept raster; the same time again reuses the filter's result."""
    scene = Scene(64, 48, background="#fff")
    scene.add_svg(_markup("<feColorMatrix type='saturate' values='.5' result='sat'/><feOffset dx='1' result='off'/>"))
    scene.root.add(Layer("a", box=(8, 8, 40, 30), style="background: linear-gradient(#f06, #48f); filter: url(#f)"))
    scene.animate_svg("#f", {"0%": {"sat.values": .2, "off.dx": 1}, "100%": {"sat.values": 2, "off.dx": 3}},
                      duration="1s")
    first = scene.render(fresh, t=0.1)
    moved = scene.render(fresh, t=0.6)
    again = scene.render(fresh, t=0.6)
    assert first.graph.raster_passes() and not moved.graph.raster_passes(), "the layer is not rastered again"
    assert len(moved.graph.filter_passes()) == len(first.graph.filter_passes()) == 2
    assert not again.graph.filter_passes() and np.array_equal(again.image, moved.image), "unchanged: reused"
    assert not np.array_equal(first.image, moved.image)
