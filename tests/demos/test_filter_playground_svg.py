"""The filter playground's classic SVG filters: each loads, filters the stage with
``url(#name)`` and shows its primitive graph and the passes it became; its slider changes
the attribute's value in the planned passes without compiling anything; a classic
without GPU passes here says why and leaves the stage's CSS chain in place."""

from __future__ import annotations

import pytest

from demos.filter_playground import CLASSICS, FilterPlayground, executed_passes
from demos.ui.runner import Runner
from lamina.filters.plan import ColorPass, FilterProgram

pytestmark = pytest.mark.gl


@pytest.fixture
def runner_of(gl):
    runners = []

    def make(demo) -> Runner:
        runners.append(Runner(demo, headless=True))
        return runners[-1]

    yield make
    for runner in runners:
        runner.close()
    gl.gpu.activate()


def _program(step) -> str:
    """The GL program a planned pass runs (colour passes pick theirs by step count)."""
    return str(FilterProgram.color(len(step.steps)) if isinstance(step, ColorPass) else step.gl().program)


def test_every_classic_loads_and_shows_its_graph_and_passes(runner_of):
    demo = FilterPlayground()
    runner = runner_of(demo)
    runner.render_frame(0.0)
    refused = set()
    for name in CLASSICS:
        demo.load_classic(name)
        frame = runner.render_frame(0.0)
        lines = demo.classic_lines()
        assert lines[0] == f"url(#{name}): primitive graph" and len(lines) > 2, lines
        if demo.classic_refused is None:
            assert runner.scene["stage"].style["filter"] == f"url(#{name})"
            ran = executed_passes(frame)
            assert len(ran) > 1 and demo.shown == ran, "the panel lists the passes the graph became"
        else:  # no GPU pass for one of its primitives in this build (feDisplacementMap so far)
            assert "does not compile to GPU passes" in demo.classic_refused
            assert runner.scene["stage"].style["filter"] == demo.css(), "the stage keeps the CSS chain"
            assert "not on the GPU" in lines[-1]
            refused.add(name)
    assert refused == set(), "every classic runs on the GPU (feDisplacementMap too, since issue 27's spatial passes)"


@pytest.mark.parametrize("name, amounts", [("glow", (2.0, 3.0)), ("emboss", (0.5, 2.0)), ("grain", (0.1, 0.9))])
def test_the_slider_changes_values_not_programs(runner_of, name, amounts):
    demo = FilterPlayground()
    runner = runner_of(demo)
    demo.load_classic(name)
    images, passes, compiles = [], [], []
    for amount in amounts:
        demo.set_classic_amount(amount)
        frame = runner.render_frame(0.1)
        assert demo.classic_refused is None, demo.classic_refused
        images.append(frame.image)
        passes.append([(p.step.kind, _program(p.step)) for p in frame.graph.filter_passes()])
        compiles.append(runner.renderer.executor.programs.compiles)
    assert passes[0] and passes[0] == passes[1], "the same passes and programs at both amounts"
    assert compiles[0] == compiles[1], "moving the slider compiled nothing"
    assert (images[0] != images[1]).any(), "the attribute changed the picture"


def test_animate_plays_the_attribute_over_time(runner_of):
    demo = FilterPlayground()
    runner = runner_of(demo)
    demo.load_classic("emboss")
    demo.classic_plays = True
    first = runner.render_frame(0.0)
    later = runner.render_frame(0.7)
    assert (first.image != later.image).any(), "the relief depth moved with time"
    assert runner.scene.svg_animations[0].timing.iterations == float("inf")
