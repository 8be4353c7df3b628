"""The "browser" policy's decisions, read from the frame report, and its pixels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene, load_scene
from lamina.compositor.backings import CompositingReason as R

ROOT = Path(__file__).resolve().parents[2]



def table(frame) -> dict:
    return {row["layer"]: row for row in frame.graph.layer_table()}


def test_direct_reasons(fresh):
    scene = Scene(200, 100, "white")
    scene.root.add(Layer("plain", (0, 0, 40, 40), "background: red"))
    scene.root.add(Layer("wc", (50, 0, 40, 40), "background: red; will-change: transform, opacity"))
    scene.root.add(Layer("hint", (100, 0, 40, 40), "background: red; transform: translateZ(0)"))
    anim = scene.root.add(Layer("anim", (150, 0, 40, 40), "background: red"))
    anim.animate({"from": {"opacity": "0.2"}, "to": {"opacity": "1"}}, duration=1.0)
    rows = table(scene.render(fresh, policy="browser", t=0.5))
    assert not rows["plain"]["composited"] and rows["plain"]["reasons"] == []
    assert rows["wc"]["reasons"] == [R.WILL_CHANGE_TRANSFORM.value, R.WILL_CHANGE_OPACITY.value]
    assert rows["hint"]["reasons"] == [R.TRANSFORM_3D.value]
    assert rows["anim"]["reasons"] == [R.ACTIVE_OPACITY_ANIMATION.value]
    # After the animation ends it is no longer a reason.
    assert not table(scene.render(fresh, policy="browser", t=5.0))["anim"]["composited"]


def test_non_promoted_descendants_paint_into_their_promoted_ancestor(fresh):
    scene = Scene(100, 100, "white")
    card = scene.root.add(Layer("card", (10, 10, 60, 60), "background: red; will-change: transform"))
    card.add(Layer("title", (5, 5, 30, 10), "background: blue"))
    rows = table(scene.render(fresh, policy="browser"))
    assert rows["card"]["composited"] and not rows["title"]["composited"]
    assert rows["title"]["painted_into"] == rows["card"]["backing"] == rows["card"]["painted_into"]


def test_overlap_promotes_later_layers_and_squashes_them(fresh):
    scene = Scene(200, 100, "white")
    scene.root.add(Layer("promoted", (0, 0, 100, 100), "background: red; will-change: transform"))
    scene.root.add(Layer("over1", (50, 10, 30, 30), "background: blue"))
    scene.root.add(Layer("over2", (60, 50, 30, 30), "background: green"))
    scene.root.add(Layer("apart", (150, 10, 30, 30), "background: black"))
    rows = table(scene.render(fresh, policy="browser"))
    assert rows["over1"]["composited"] and R.OVERLAP.value in rows["over1"]["reasons"]
    assert rows["over2"]["reasons"] == [R.OVERLAP.value, R.SQUASHED.value]
    assert rows["over1"]["painted_into"] == rows["over2"]["painted_into"], "squashed into one backing"
    assert not rows["apart"]["composited"], "no overlap: stays in the root backing"


def test_squashing_refuses_a_sparse_union(fresh):
    scene = Scene(400, 400, "white")
    scene.root.add(Layer("promoted", (0, 0, 400, 400), "background: red; will-change: transform"))
    scene.root.add(Layer("a", (0, 0, 10, 10), "background: blue"))
    scene.root.add(Layer("b", (390, 390, 10, 10), "background: blue"))
    rows = table(scene.render(fresh, policy="browser"))
    assert rows["a"]["composited"] and rows["b"]["composited"]
    assert rows["a"]["painted_into"] != rows["b"]["painted_into"], "a 400x400 union for 200 px is too sparse"


@pytest.mark.parametrize("path", sorted((ROOT / "demos").glob("*/*.json")), ids=lambda p: p.stem)
def test_browser_renders_the_same_pixels_as_all(fresh, path):
    scene = load_scene(path)
    a = scene.render(fresh, policy="all").premultiplied.astype(int)
    b = scene.render(fresh, policy="browser").premultiplied.astype(int)
    again = scene.render(fresh, policy="browser").premultiplied.astype(int)  # from kept backings
    assert np.abs(a - b).max() <= 1 and np.abs(b - again).max() == 0


def test_rotated_backing_differs_only_at_resampled_edges(fresh):
    # A rotated promoted layer with a child: browsers (and "browser") paint the child into
    # the layer's backing, then rotate that once; "all" rotates each raster. The two
    # resample edges differently, nothing else.
    scene = Scene(120, 120, "white")
    card = scene.root.add(Layer("card", (20, 20, 80, 60), "background: red; will-change: transform; transform: rotate(20deg)"))
    card.add(Layer("title", (10, 10, 40, 12), "background: rgb(255 255 255 / 80%); border-radius: 6px"))
    a = scene.render(fresh, policy="all").premultiplied.astype(int)
    b = scene.render(fresh, policy="browser").premultiplied.astype(int)
    diff = np.abs(a - b).max(-1)
    assert diff.max() <= 8 and (diff > 1).sum() <= 80


def test_animation_frames_reuse_every_backing(fresh):
    scene = Scene(200, 120, "white")
    for i in range(6):
        card = scene.root.add(Layer(f"card{i}", (10 + 30 * i, 10, 25, 40), "background: linear-gradient(red, blue)"))
        card.add(Layer(f"t{i}", (2, 2, 10, 5), "background: white"))
    mover = scene.root.add(Layer("mover", (20, 70, 60, 40), "background: green"))
    mover.add(Layer("mover-title", (5, 5, 20, 8), "background: white"))
    mover.animate({"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(90deg)"}}, duration=1.0)
    first = scene.render(fresh, policy="browser", t=0.0)
    assert len(first.graph.raster_passes()) == 14
    for t in (0.2, 0.4, 0.6):
        frame = scene.render(fresh, policy="browser", t=t)
        assert frame.graph.raster_passes() == [], t
        assert [p.name for p in frame.graph.composite_passes()] == ["composite:frame"]


def test_paint_change_repaints_only_its_backing(fresh):
    scene = Scene(200, 100, "white")
    scene.root.add(Layer("bg", (0, 0, 200, 100), "background: #eee"))
    card = scene.root.add(Layer("card", (10, 10, 60, 60), "background: red; will-change: transform"))
    card.add(Layer("title", (5, 5, 30, 10), "background: blue"))
    scene.render(fresh, policy="browser")
    scene["title"].style["background-color"] = "lime"
    frame = scene.render(fresh, policy="browser")
    assert sorted(p.layer_id for p in frame.graph.raster_passes()) == ["card", "title"], "card's backing only"
    assert [p.name for p in frame.graph.composite_passes()] == ["paint:card", "composite:frame"]
    assert tuple(frame.image[20, 20]) == (0, 255, 0, 255)


def test_memory_budget_demotes_the_least_useful_layers(fresh):
    scene = Scene(100, 100, "white")  # budget: 3 x 100 x 100 px
    for i in range(5):
        scene.root.add(Layer(f"big{i}", (i, i, 90, 90), f"background: rgb({40 * i} 0 0); will-change: transform"))
    mover = scene.root.add(Layer("mover", (5, 5, 20, 20), "background: blue"))
    mover.animate({"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(45deg)"}}, duration=1.0)
    unbudgeted = scene.render(fresh, policy="browser", t=0.5)
    frame = scene.render(fresh, policy="budget", t=0.5)
    rows = table(frame)
    demoted = [d for d in frame.graph.decisions if d.text.startswith("demoted")]
    assert demoted and all("budget" in d.text for d in demoted)
    assert rows["mover"]["composited"], "an animated layer is the most useful: kept"
    kept = [r for r in rows.values() if r["composited"]]
    assert sum(r["bytes"] for r in kept if r["layer"].startswith("big")) <= 3 * 100 * 100 * 4
    assert sum(table(unbudgeted)[f"big{i}"]["composited"] for i in range(5)) == 5
    assert np.abs(frame.premultiplied.astype(int) - unbudgeted.premultiplied.astype(int)).max() <= 1


def test_external_content_is_composited(fresh):
    scene = Scene(100, 60, "white")
    scene.root.add(Layer("player", (10, 10, 60, 40), "background: black", content="video"))
    scene.root.add(Layer("caption", (0, 0, 20, 10), "background: red"))
    rows = table(scene.render(fresh, policy="browser"))
    assert rows["player"]["reasons"] == [R.EXTERNAL_CONTENT.value]
    assert not rows["caption"]["composited"]


def test_layer_explosion_is_prevented_by_squashing(fresh):
    # An animated layer at the bottom of the stack: everything painted after it that
    # overlaps must be composited too (overlap); squashing puts them in one backing.
    scene = Scene(300, 200, "white")
    spinner = scene.root.add(Layer("spinner", (0, 0, 300, 200), "background: #eee"))
    spinner.animate({"from": {"opacity": "1"}, "to": {"opacity": ".9"}}, duration=10.0)
    for i in range(30):
        scene.root.add(Layer(f"item{i}", (10 + (i % 6) * 48, 10 + (i // 6) * 38, 40, 30), "background: steelblue"))
    frame = scene.render(fresh, policy="browser", t=1.0)
    rows = table(frame)
    promoted = [r for r in rows.values() if r["composited"]]
    backings = {r["painted_into"] for r in rows.values() if r["layer"].startswith("item")}
    assert len(promoted) == 31, "every item overlaps the animated layer: promoted for overlap"
    assert len(backings) == 1, "and squashed into one backing instead of 30"
    (frame_pass,) = [p for p in frame.graph.composite_passes() if p.target.name == "frame"]
    assert len(frame_pass.draws) == 2, "the frame draws two textures: the animated layer and the squash"


def test_overlap_uses_the_whole_animation_sweep(fresh):
    # The mover slides right over 1s; at t=0 it does not touch "later" yet, but it will:
    # later is promoted for overlap from the start, so promotions do not flicker.
    scene = Scene(300, 60, "white")
    mover = scene.root.add(Layer("mover", (0, 10, 40, 40), "background: red"))
    mover.animate({"from": {"transform": "translateX(0)"}, "to": {"transform": "translateX(200px)"}}, duration=1.0)
    scene.root.add(Layer("later", (150, 10, 40, 40), "background: blue"))
    scene.root.add(Layer("far", (260, 10, 30, 40), "background: green"))
    for t in (0.0, 0.5, 0.9):
        rows = table(scene.render(fresh, policy="browser", t=t))
        assert rows["later"]["composited"] and R.OVERLAP.value in rows["later"]["reasons"], t
        assert not rows["far"]["composited"], t


def test_backing_repaint_is_clipped_to_the_damage(fresh):
    scene = Scene(300, 100, "white")
    for i in range(6):
        scene.root.add(Layer(f"tile{i}", (10 + 48 * i, 10, 40, 40), "background: steelblue"))
    scene.render(fresh, policy="browser")
    scene["tile4"].style["background-color"] = "orange"
    frame = scene.render(fresh, policy="browser")
    (paint,) = [p for p in frame.graph.composite_passes() if p.name.startswith("paint:")]
    assert paint.origin == (10, 10) and paint.damage == (192, 0, 40, 40), "only tile4's rect (backing px)"
    assert [p.layer_id for p in frame.graph.raster_passes()] == ["tile4"], "only the layer in it is rastered"
    with Renderer() as other:
        full = scene.render(other, policy="none")
    assert np.array_equal(frame.premultiplied, full.premultiplied)


def test_repainted_backing_inside_a_filter_invalidates_its_result(fresh):
    scene = Scene(120, 80, "white")
    group = scene.root.add(Layer("g", (0, 0, 120, 80), "filter: grayscale(1)"))
    group.add(Layer("a", (10, 10, 30, 30), "background: red"))
    group.add(Layer("b", (60, 10, 30, 30), "background: blue"))
    scene.render(fresh, policy="browser")
    scene["b"].style["background-color"] = "white"
    frame = scene.render(fresh, policy="browser")
    assert tuple(frame.image[20, 70]) == (255, 255, 255, 255)
