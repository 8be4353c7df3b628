"""3D rendering contexts (transform-style: preserve-3d) against headless Chromium: the
golden scenes preserve3d-* (intersecting planes, a cube with hidden back faces, a
card flip, a translucent 12-card carousel, perspective origins, a flat member's 3D
flattening surface; a fixed child of the context's element, a member's composited
scroller contents and squashed child, each crossed by another member; a split member's backdrop-filter
read per piece: a single read would show x unblurred or not at all under the near piece), written as absolutely
positioned divs with the same CSS (``python -m tests.chromium.compare --scenes
tests/scenes/preserve3d-*.json`` shows them side by side).

Measured on Chromium 156 (software compositor), 2026-12-03: mean differences 0.19-0.65
levels; what differs by more than 24 levels (0.22-1.23% of the pixels) lies on the
projected quads' edges, which Lamina anti-aliases by coverage and Chromium's software
path does not, and along the lines where two planes cross: there both engines cut at
pixel centres, and a pixel on the line goes to one plane or the other depending on the
rounding of each engine's split point (a one-pixel seam of full differences, the largest
255 in perspective-origin). A wrong depth order shows the wrong plane over half of the
crossing (10-20% of these frames), and an unsplit plane a whole triangle."""

from __future__ import annotations

from pathlib import Path

import pytest

from .compare import compare, compare_scene_file, lamina_render, run_case, scene_file_case

pytestmark = [pytest.mark.gl, pytest.mark.slow]
SCENES = Path(__file__).resolve().parents[1] / "scenes"


@pytest.mark.parametrize("name, mean, over_24", [
    ("preserve3d-intersecting-planes", 0.6, 1.1),   # measured 0.41, 0.75%
    ("preserve3d-cube", 0.6, 0.9),                  # measured 0.40, 0.63%
    ("preserve3d-card-flip", 0.35, 0.55),           # measured 0.21, 0.36%
    ("preserve3d-carousel", 0.5, 0.65),             # measured 0.33, 0.43%
    ("preserve3d-perspective-origin", 0.9, 1.7),    # measured 0.65, 1.23%
    ("preserve3d-flattening", 0.35, 0.4),           # measured 0.19, 0.22%: cc's 3D flattening surface
    # Draws sorted into the context (review of issue 26, items 3 and 7); before, hoisted
    # or drawn after it uncut: 8.58 / 7.78%, 14.07 / 9.44%, 4.48 / 3.82%.
    ("preserve3d-fixed-child", 0.4, 0.9),           # measured 0.23, 0.59%: a fixed child at z = 0
    ("preserve3d-scroller-in-member", 0.1, 0.2),    # measured 0.04, 0.07%: scroller contents cut with m
    ("preserve3d-squash-in-member", 0.1, 0.2),      # measured 0.04, 0.07%: a squashed child cut with m
    ("preserve3d-backdrop-split", 0.6, 0.2),        # measured 0.42, 0.09% (max 74, on x's edges and m's corners)
])
def test_3d_rendering_contexts_sort_and_split_as_chromium_draws_them(chromium, tmp_path, name, mean, over_24):
    result = compare_scene_file(SCENES / f"{name}.json", tmp_path, chromium)
    assert result["mean_diff"] <= mean, result
    assert result["percent_over_24"] <= over_24, result


GROUPING = ("opacity: 0.99", "filter: blur(0.1px)", "overflow: hidden", "overflow: clip", "clip-path: inset(0px)",
            "mask-image: linear-gradient(black, black)", "mix-blend-mode: multiply", "isolation: isolate",
            "backdrop-filter: blur(0.5px)")


def test_grouping_properties_flatten_as_in_chromium(chromium, tmp_path):
    """Nine preserve-3d groups of two crossing planes, each made flat by one grouping
    property (one page, one Chromium run): Chromium 156 draws b over all of a (paint
    order) in each, as Lamina does (measured 2026-12-03, each alone: mean 0.11-0.12
    levels, 0-0.31% over 24 levels, on edges); a property ignored would show a's near
    half over b in its cell (about 1% of this frame, 10% of the cell)."""
    import json

    from lamina import Layer, Scene
    from lamina.scene_writer import scene_to_dict

    scene = Scene(600, 480, background="#fff")
    for i, style in enumerate(GROUPING):
        stage = scene.root.add(Layer(f"stage{i}", (200 * (i % 3), 160 * (i // 3), 200, 160), "perspective: 250px"))
        group = stage.add(Layer(f"group{i}", (50, 30, 100, 100), "transform-style: preserve-3d; " + style))
        group.add(Layer(f"a{i}", (0, 0, 100, 100), "background: red; transform: rotateY(40deg)"))
        group.add(Layer(f"b{i}", (0, 0, 100, 100), "background: blue; transform: rotateY(-40deg)"))
    path = tmp_path / "grouped.json"
    path.write_text(json.dumps(scene_to_dict(scene)))
    case = scene_file_case(path)
    chrome = run_case(case, tmp_path, chromium, "disable")["chrome"]
    ours, _ = lamina_render(case)  # the cells below compare parts of both
    result = compare(chrome, ours, [])
    assert result["mean_diff"] <= 0.3 and result["percent_over_24"] <= 0.5, result
    for i in range(len(GROUPING)):  # each cell on its own: a flattening missed in one shows here
        x, y = 200 * (i % 3), 160 * (i // 3)
        cell = compare(chrome[y:y + 160, x:x + 200], ours[y:y + 160, x:x + 200], [])
        assert cell["percent_over_24"] <= 0.6, (GROUPING[i], cell)


@pytest.mark.parametrize("group_style, mean", [
    ("transform-style: preserve-3d; opacity: 0.9", 0.35),  # measured 0.13, max 1: flat, still its containing block
    ("transform-style: preserve-3d; perspective: 300px", 0.1),  # measured 0.04, 0.07% over 24: inside flat m, at z = 0
], ids=["flattened", "under-a-flat-member"])
def test_a_preserve3d_element_is_a_fixed_descendants_containing_block_as_in_chromium(chromium, tmp_path, group_style, mean):
    """CSS Transforms 2: a computed preserve-3d makes a containing block for fixed
    descendants, even where a grouping property makes it flat, and a fixed grandchild
    under a flat member is a member of the context at z = 0 of the group's plane (x's near
    half over it). Placed by the viewport instead, the red box would sit 20 px up and left."""
    import json

    from lamina import Layer, Scene
    from lamina.scene_writer import scene_to_dict

    scene = Scene(200, 160, background="#fff")
    group = scene.root.add(Layer("group", (20, 20, 160, 120), group_style))
    group.add(Layer("x", (30, 10, 100, 100), "background: rgb(0,0,255); transform: rotateY(60deg)"))
    member = group.add(Layer("m", (10, 10, 140, 100), "background: rgb(200,200,200)"))
    member.add(Layer("fk", (20, 20, 100, 60), "position: fixed; background: rgb(255,0,0)"))
    path = tmp_path / "fixed.json"
    path.write_text(json.dumps(scene_to_dict(scene)))
    result = compare_scene_file(path, tmp_path, chromium)
    assert result["mean_diff"] <= mean and result["percent_over_24"] <= 0.2, result
