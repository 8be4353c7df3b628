"""Filter Effects 1 §16.3 / §16.4 on a tainted source (a backdrop-filter's backdrop):
which feDisplacementMap nodes pass their input through (``FilterGraph.with_tainted_source``),
what that prunes, and the plan and the float64 reference following it. No GPU here:
tests/gl/test_svg_backdrop_gl.py renders it against the reference, and
tests/chromium/test_svg_backdrop_chromium.py against Chromium 156."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.filters.plan import DisplacePass
from lamina.filters.svg import parse_svg
from lamina.filters.svg.compile import plan_graph
from lamina.filters.svg.graph import build_graph
from lamina.filters.svg.reference import run_filter

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB"'
DISPLACE = "<feDisplacementMap in='{a}' in2='{b}' scale='12' xChannelSelector='R' yChannelSelector='G'/>"


def element(body: str):
    return parse_svg(f"<svg {NS}><filter id='f' {BOX}>{body}</filter></svg>").filter("f")


@pytest.mark.parametrize("body, passed, live", [
    # the map is the source, or made from it through any primitive: tainted
    (DISPLACE.format(a="SourceGraphic", b="SourceGraphic"), {0}, (0,)),
    (DISPLACE.format(a="SourceGraphic", b="SourceAlpha"), {0}, (0,)),
    ("<feColorMatrix type='saturate' values='0' result='m'/>" + DISPLACE.format(a="SourceGraphic", b="m"), {1}, (1,)),
    ("<feFlood flood-color='red' result='f'/><feComposite in='f' in2='SourceGraphic' operator='in' result='m'/>"
     + DISPLACE.format(a="SourceGraphic", b="m"), {2}, (2,)),
    # a map that does not read the source: displaced as usual
    ("<feTurbulence baseFrequency='.1' result='t'/>" + DISPLACE.format(a="SourceGraphic", b="t"), set(), (0, 1)),
    # the flood passed through: the map's nodes pruned, the flood kept
    ("<feFlood flood-color='red' result='f'/>" + DISPLACE.format(a="f", b="SourceGraphic"), {1}, (0, 1)),
])
def test_a_displacement_reading_a_tainted_map_passes_its_input_through(body, passed, live):
    graph = build_graph(element(body))
    assert graph.passed_through == frozenset()  # an element's own source: not tainted in Lamina
    tainted = graph.with_tainted_source()
    assert tainted.passed_through == frozenset(passed) and tainted.live == live
    if passed:
        assert "passes in through" in tainted.explain()


def test_the_plan_and_the_reference_pass_the_input_through_and_run_the_rest():
    body = ("<feColorMatrix type='saturate' values='0' result='m'/>" + DISPLACE.format(a="SourceGraphic", b="m")
            + "<feOffset dx='2' dy='1'/>")
    el = element(body)
    rng = np.random.default_rng(7)
    src = rng.uniform(0, 1, (12, 16, 4))
    src[..., :3] *= src[..., 3:4]
    plain = plan_graph(el, (16, 12))
    backdrop = plan_graph(el, (16, 12), source_tainted=True)
    assert any(isinstance(p, DisplacePass) for p in plain.passes)
    assert [p.kind for p in backdrop.passes] == ["offset"] and backdrop.passes[0].inputs == ("source",)
    out, _ = run_filter(el, src, source_tainted=True)
    expected = np.zeros_like(src)
    expected[1:, 2:] = src[:-1, :-2]  # only the offset ran
    np.testing.assert_allclose(out, expected, atol=1e-12)
    displaced, _ = run_filter(el, src)
    assert np.abs(displaced - expected).max() > .1
