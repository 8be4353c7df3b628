"""A backdrop-filter on a member of a 3D rendering context that another member's plane
splits (issue 26): each piece reads the backdrop as it is just before that piece is
drawn, only the part under it (grown by the filter's reach), and runs the filter (and
the element's surface) on its own copy, as cc draws a split render pass quad piece by
piece. Planned without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.framegraph import BackdropPass, CompositePass, FilterPass
from tests.unit.test_preserve3d_fast_surfaces import planned_both, x_turning


def split_backdrop_member(member_style: str = "") -> Scene:
    """m (half-transparent yellow, backdrop-filter: blur(2px)) flat at z = 0, cut at
    frame x = 100 by x (blue, rotateY(50deg) about its centre line): m's left part lies
    behind x, its right part in front. A red band under the left of the context gives
    the far piece something to blur."""
    scene = Scene(200, 160, "white")
    scene.root.add(Layer("under", (0, 0, 60, 160), "background: rgb(255,0,0)"))
    group = scene.root.add(Layer("group", (20, 20, 160, 120), "transform-style: preserve-3d; perspective: 300px"))
    group.add(Layer("x", (30, 10, 100, 100), "background: rgb(0,0,255); transform: rotateY(50deg)"))
    group.add(Layer("m", (10, 10, 140, 100), "background: rgba(255,255,0,.5); backdrop-filter: blur(2px);"
                    + member_style))
    return scene


def drawn(graph) -> list[tuple[int, str, str, bool]]:
    """(pass index, layer, source texture, a split piece?) of every draw, in execution order."""
    return [(i, d.layer_id, d.source.name, bool(d.split_planes)) for i, p in enumerate(graph.passes)
            if isinstance(p, CompositePass) for d in p.draws]


@pytest.mark.parametrize("member_style, form", [("", "direct"), ("opacity: 0.5", "surface"),
                                                ("mix-blend-mode: multiply", "surface")])
def test_each_piece_reads_and_filters_its_own_backdrop_just_before_it_is_drawn(member_style, form):
    graph = split_backdrop_member(member_style).plan()
    (context,) = [c for c in graph.contexts3d if c.splits]
    assert context.order == ("m", "x", "m") and context.layers_split == ("m",)
    copy = "backdrop:m" if "blend" not in member_style else "backdrop-filter:m"
    reads = [i for i, p in enumerate(graph.passes) if isinstance(p, BackdropPass) and p.name.startswith(copy)]
    assert [graph.passes[i].name for i in reads] == [copy, f"{copy}:piece1"], "one read per piece"
    # Each read's filter passes run on that read's copy, after it and before the next.
    for k, (start, end) in enumerate(zip(reads, reads[1:] + [len(graph.passes)])):
        own = graph.passes[start].target
        blurs = [p for p in graph.passes[start:end] if isinstance(p, FilterPass)]
        assert len(blurs) == 2 and blurs[0].inputs == (own,) and blurs[1].inputs == (blurs[0].target,)
        assert all(p.name.endswith(":piece1") == (k == 1) for p in blurs)
    # The far piece is drawn from the first read's result before x; x before the second read;
    # the near piece from the second read's result after it.
    pieces = [(i, src) for i, layer, src, split in drawn(graph) if split and not src.startswith("layer:")]
    (x_at,) = [i for i, layer, _, _ in drawn(graph) if layer == "x"]
    (far_at, far), (near_at, near) = pieces
    assert far_at < reads[1] < near_at and reads[0] < far_at and far_at <= x_at < reads[1]
    assert not far.endswith(":piece1") and near == far + ":piece1"
    assert form != "surface" or far.startswith("surface:m")
    # Each copies only the part under its piece (the cut at frame x = 100 is copy x 76),
    # grown by the blur's reach (6 px) and more: the far piece the left, the near the right.
    (fx, _, fw, fh), (nx, _, nw, nh) = (graph.passes[i].region for i in reads)
    width, height = graph.passes[reads[0]].target.width, graph.passes[reads[0]].target.height
    assert fx == 0 and 76 + 6 <= fw < width and fh == nh == height
    assert 0 < nx <= 76 - 6 and nx + nw == width



def test_a_turning_context_with_a_split_reader_takes_the_fast_path_as_from_scratch():
    """x turning through m's plane: on the retained fast path, each frame's graph (the
    pieces, their reads and filter passes, made anew) is the one planning from scratch
    gives."""
    times = np.sort(np.random.default_rng(26).uniform(0.0, 4.0, 6))
    pairs, fast = planned_both(lambda: x_turning(split_backdrop_member()), times)
    for ga, _ in pairs:
        assert [p.name for p in ga.passes if isinstance(p, BackdropPass)] == ["backdrop:m", "backdrop:m:piece1"]
    assert fast.fast_frames == len(times) - 1, "the turn takes the fast path, the pieces' reads made anew"
