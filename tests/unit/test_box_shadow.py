"""box-shadow without a GPU: parsing (values, typed errors with property, value, column
and JSON path), the shapes the spec's rules give (offsets, spread, radii), the ink
overflow the planner grows layers by, and the plans it makes for shadowed layers."""

from __future__ import annotations

import json

import pytest

from lamina import Layer, Scene, load_scene
from lamina.compositor.paint import border_widths, used_radii
from lamina.compositor.shadow_cells import ALL_CORNERS, NO_CORNER, shadow_cells
from lamina.compositor.shadows import adjust_radius, shadow_outsets, shadow_paints
from lamina.errors import InvalidValueError, SceneFileError, UnsupportedFeatureError
from lamina.limits import MAX_BOX_SHADOWS
from lamina.style import RGBA, Style
from lamina.style.box_shadow import BoxShadow

RED = RGBA(1.0, 0.0, 0.0, 1.0)


def shadows(css: str):
    return Layer("a", (0, 0, 10, 10), f"box-shadow: {css}").computed_style(None).box_shadow


# -- parsing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "css, expected",
    [
        ("none", ()),
        ("2px 3px", (BoxShadow(2, 3),)),
        ("2px 3px 4px", (BoxShadow(2, 3, 4),)),
        ("2px 3px 4px -5px red", (BoxShadow(2, 3, 4, -5, RED),)),
        ("red 0 0", (BoxShadow(0, 0, 0, 0, RED),)),
        ("inset 1px 1px red", (BoxShadow(1, 1, 0, 0, RED, True),)),
        ("1px 1px red inset", (BoxShadow(1, 1, 0, 0, RED, True),)),
        ("red inset 1px 1px", (BoxShadow(1, 1, 0, 0, RED, True),)),
        ("-1.5px 0 0 0 currentcolor", (BoxShadow(-1.5, 0),)),
        ("1px 1px, inset 0 0 2px red", (BoxShadow(1, 1), BoxShadow(0, 0, 2, 0, RED, True))),
    ],
)
def test_values(css, expected):
    assert shadows(css) == expected


def test_default_colour_is_currentcolor_and_follows_color():
    style = Layer("a", (0, 0, 10, 10), "color: #00f; box-shadow: 1px 1px").computed_style(None)
    (shadow,) = shadow_paints(style.box_shadow, style.color, (10, 10), ((0, 0),) * 4, (0, 0, 0, 0))
    assert shadow.color == (0.0, 0.0, 1.0, 1.0)


def test_css_round_trip():
    layer = Layer("a", (0, 0, 10, 10), "box-shadow: inset 1px 2px 3px 4px rgb(0 0 0 / 50%), 5px 6px red")
    again = Layer("b", (0, 0, 10, 10), layer.style.to_css())
    assert again.computed_style(None).box_shadow == layer.computed_style(None).box_shadow


def _col(text: str, needle: str) -> int:
    return text.index(needle) + 1


@pytest.mark.parametrize(
    "css, cls, token, reason",
    [
        ("box-shadow: 2px", InvalidValueError, "2px", "needs x and y offsets"),
        ("box-shadow: red", InvalidValueError, "red", "needs x and y offsets"),
        ("box-shadow: 1px 1px 2px red, inset 3px", InvalidValueError, "3px", "got one length"),
        ("box-shadow: 1px 1px,", InvalidValueError, ",", "got nothing"),
        ("box-shadow: 0 0 -1px red", InvalidValueError, "-1px", "blur radius cannot be negative"),
        ("box-shadow: 1px 2px 3px 4px 5px", InvalidValueError, "5px", "at most 4"),
        ("box-shadow: 1px red 2px", InvalidValueError, "2px", "written together"),
        ("box-shadow: 1px 1px red blue", InvalidValueError, "blue", "one colour"),
        ("box-shadow: inset 1px 1px inset", InvalidValueError, "inset", "twice"),
        ("box-shadow: 10% 1px", InvalidValueError, "10%", "percentages"),
        ("box-shadow: 1px 1px 1em", InvalidValueError, "1em", "unit"),
        ("box-shadow: 3 1px", InvalidValueError, "3 1px", "without a unit"),
        ("box-shadow: 1px 1px wobble", InvalidValueError, "wobble", "unexpected ident"),
        ("box-shadow: none, 1px 1px", InvalidValueError, ",", "whole value"),
        ("box-shadow: 1px 1px 1e7px", InvalidValueError, "1e7px", "beyond"),
    ],
)
def test_errors_name_property_value_and_column(css, cls, token, reason):
    with pytest.raises((InvalidValueError, UnsupportedFeatureError)) as info:
        Style(css)
    err = info.value
    assert type(err) is cls
    assert err.property == "box-shadow"
    assert err.value == css.split(": ", 1)[1]
    assert err.column == css.rindex(token) + 1, str(err)  # the token named (its last occurrence)
    assert reason in err.reason
    assert f"column {err.column}" in str(err)


def test_more_shadows_than_one_pass_draws_is_unsupported():
    css = "box-shadow: " + ", ".join(f"{i}px 1px" for i in range(MAX_BOX_SHADOWS + 1))
    with pytest.raises(UnsupportedFeatureError) as info:
        Style(css)
    assert info.value.column == _col(css, f"{MAX_BOX_SHADOWS}px 1px")
    Style(", ".join([f"box-shadow: {'1px 1px, ' * (MAX_BOX_SHADOWS - 1)}1px 1px"]))  # exactly the limit is fine


def test_scene_file_error_has_json_path(tmp_path):
    doc = {"width": 50, "height": 50, "layers": [
        {"id": "ok", "box": [0, 0, 10, 10]},
        {"id": "card", "box": [0, 0, 10, 10], "style": {"background": "red", "box-shadow": "0 0 -2px black"}}]}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SceneFileError) as info:
        load_scene(path)
    err = info.value
    assert err.path == "$.layers[1].style.box-shadow"
    assert "blur radius cannot be negative" in str(err)


# -- shapes (CSS Backgrounds 3 §7.2) ---------------------------------------------------


@pytest.mark.parametrize(
    "radius, grow, expected",
    [
        (0.0, 10.0, 0.0),            # sharp corners stay sharp
        (10.0, 10.0, 20.0),          # radius >= spread: plain sum
        (20.0, 5.0, 25.0),
        (5.0, 10.0, 5.0 + 10.0 * (1 + (0.5 - 1) ** 3)),  # 1 + (r - 1)^3 with r = 1/2: 13.75
        (10.0, -4.0, 6.0),           # shrinking: subtract
        (3.0, -4.0, 0.0),            # ... floored at 0
    ],
)
def test_spread_adjusts_radii(radius, grow, expected):
    assert adjust_radius(radius, grow) == pytest.approx(expected)


def _paints(style_text: str, w=100.0, h=60.0):
    s = Layer("a", (0, 0, w, h), style_text).computed_style(None)
    return shadow_paints(s.box_shadow, s.color, (w, h), used_radii(s, w, h), border_widths(s))


def test_outer_shape_is_the_border_box_moved_and_spread():
    (p,) = _paints("border-radius: 10px; box-shadow: 5px -3px 8px 4px red")
    assert not p.inset
    assert p.rect == (5 - 4, -3 - 4, 100 + 5 + 4, 60 - 3 + 4)
    assert p.radii == ((14.0, 14.0),) * 4
    assert p.sigma == 4.0  # blur / 2
    assert p.color == (1.0, 0.0, 0.0, 1.0)


def test_inset_shape_is_the_padding_box_moved_and_shrunk():
    (p,) = _paints("border: 2px solid; border-radius: 12px; box-shadow: inset 3px 4px 0 5px red")
    assert p.inset
    assert p.rect == (2 + 3 + 5, 2 + 4 + 5, 100 - 2 + 3 - 5, 60 - 2 + 4 - 5)
    assert p.radii == ((5.0, 5.0),) * 4  # inner radius 10, minus the spread


def test_spread_that_empties_the_shape():
    assert _paints("box-shadow: 0 0 0 -40px red") == ()  # an outer shadow shrunk away paints nothing
    (p,) = _paints("box-shadow: inset 0 0 0 40px red")
    assert p.empty  # an inset one whose hole closed fills the padding box


def test_transparent_shadows_paint_nothing_and_order_is_kept():
    ps = _paints("box-shadow: 1px 1px red, 2px 2px transparent, inset 3px 3px blue")
    assert [(p.inset, p.rect[0]) for p in ps] == [(False, 1.0), (True, 3.0)]


def test_ink_outsets():
    assert shadow_outsets(shadows("0 10px 40px")) == (60, 50, 60, 70)  # 3 sigma = 60, offset 10
    assert shadow_outsets(shadows("-5px 0 0 3px")) == (8, 3, 0, 3)
    assert shadow_outsets(shadows("inset 0 0 30px")) == (0, 0, 0, 0)  # inset stays inside
    assert shadow_outsets(shadows("0 0 0 -5px")) == (0, 0, 0, 0)


# -- plans ---------------------------------------------------------------------------------


def _card_scene(style: str, box=(100, 80, 200, 100)) -> tuple[Scene, Layer]:
    scene = Scene(400, 300, "#fff")
    card = scene.root.add(Layer("card", box, style))
    return scene, card


def test_a_shadowed_layer_rasters_its_shadow_in_its_own_grown_texture():
    scene, _ = _card_scene("background: #48f; border-radius: 8px; box-shadow: 0 10px 40px rgb(0 0 0 / 50%)")
    graph = scene.plan()
    (raster,) = graph.raster_passes()
    assert (raster.target.width, raster.target.height) == (200 + 120, 100 + 50 + 70)
    assert raster.paint.offset == (60.0, 50.0)
    assert raster.paint.shader_variant == "color"  # outer shadows have programs of their own (gpu.shadow_draws)
    (draw,) = [d for p in graph.passes if p.name == "composite:frame" for d in p.draws]
    assert (draw.transform.e, draw.transform.f) == (100 - 60, 80 - 50)


def test_a_layer_with_only_a_shadow_is_drawn():
    scene, _ = _card_scene("box-shadow: 0 0 0 2px red")
    assert len(scene.plan().raster_passes()) == 1
    scene, _ = _card_scene("box-shadow: 0 0 0 2px transparent")
    assert scene.plan().raster_passes() == []


def test_a_layer_off_screen_whose_shadow_shows_is_not_culled():
    scene, _ = _card_scene("background: red; box-shadow: 0 0 0 30px blue", box=(-220, 10, 200, 100))
    assert len(scene.plan().raster_passes()) == 1
    scene, _ = _card_scene("background: red; box-shadow: 0 0 0 10px blue", box=(-220, 10, 200, 100))
    assert scene.plan().raster_passes() == []


def test_a_filter_surface_holds_the_whole_shadow():
    scene, _ = _card_scene("background: #48f; box-shadow: 30px 0 0 red; filter: grayscale(1)")
    graph = scene.plan()
    surface = next(p for p in graph.passes if p.name == "composite:card")
    assert surface.target.width >= 230 and surface.origin[0] <= 100


@pytest.mark.parametrize("css, variant", [
    ("inset 0 0 4px red, 0 0 4px blue", "color.shadow"),  # one soft inset shadow: the cheap kernel, no loop
    ("inset 0 0 1px red", "color.shadows"),  # blur under 2px: the exact kernel
    ("inset 0 0 4px red, inset 1px 1px blue", "color.shadows"),  # several
])
def test_inset_shadows_are_a_variant_of_the_layer_program(css, variant):
    scene, _ = _card_scene(f"background: #fff; box-shadow: {css}")
    (raster,) = scene.plan().raster_passes()
    assert raster.paint.shader_variant == variant


# -- the nine-patch the outer shadows are drawn over (compositor.shadow_cells) ----------


def _cells(css: str, w=400.0, h=300.0):
    s = Layer("a", (0, 0, w, h), css).computed_style(None)
    radii = used_radii(s, w, h)
    paints = shadow_paints(s.box_shadow, s.color, (w, h), radii, border_widths(s))
    left, top, right, bottom = shadow_outsets(s.box_shadow)
    size = (int(w) + left + right, int(h) + top + bottom)
    return shadow_cells(paints, (left, top, w, h), radii, size), size, (left, top, w, h)


def _covered(cells, size):
    import numpy as np

    grid = np.zeros((size[1], size[0]), dtype=int)
    for c in cells:
        x, y, w, h = c.rect
        grid[y:y + h, x:x + w] += 1
    return grid


def test_cells_tile_the_raster_minus_the_inside_of_the_box():
    cells, size, (bx, by, bw, bh) = _cells("border-radius: 16px; box-shadow: 0 10px 40px black")
    grid = _covered(cells, size)
    assert grid.max() == 1  # no pixel is drawn twice (the shadows blend under the paint)
    inside = grid[by + 17:by + int(bh) - 17, bx + 1:bx + int(bw) - 1]
    assert inside.sum() == 0  # fully inside the rounded box: clipped out, not drawn
    assert grid[:by, :].all() and grid[:, :bx].all()  # all around the box is drawn
    assert grid[by:by + 16, bx:bx + 16].all()  # and the box's corners, outside the curve
    corners = {c.corner for c in cells}
    assert corners == {0, 1, 2, 3, NO_CORNER}
    # Only cells touching the box clip the shadows out.
    for c in cells:
        x, y, w, h = c.rect
        touches = x < bx + bw and x + w > bx and y < by + bh and y + h > by
        assert c.clip == touches, c


def test_corner_cells_lie_where_only_their_corner_reaches():
    """A cell evaluates the bite of its own corner only (or none): no other corner's
    kernel reaches into it. The bite of a corner is zero outside its band grown by the
    kernel's reach."""
    cells, size, (bx, by, bw, bh) = _cells("border-radius: 16px; box-shadow: 0 10px 40px black")
    reach = 3 * (20 ** 2 + 1 / 12) ** 0.5
    x0, y0, x1, y1 = bx, by + 10, bx + bw, by + bh + 10  # the shadow's shape, in texture px
    zones = [  # where each corner's bite can be nonzero: tl, tr, br, bl
        (x0 - reach, y0 - reach, x0 + 16 + reach, y0 + 16 + reach),
        (x1 - 16 - reach, y0 - reach, x1 + reach, y0 + 16 + reach),
        (x1 - 16 - reach, y1 - 16 - reach, x1 + reach, y1 + reach),
        (x0 - reach, y1 - 16 - reach, x0 + 16 + reach, y1 + reach),
    ]
    for c in cells:
        x, y, w, h = c.rect
        for index, (zx0, zy0, zx1, zy1) in enumerate(zones):
            meets = x < zx1 and x + w > zx0 and y < zy1 and y + h > zy0
            if index != c.corner:
                assert not meets, (c, index)


def test_a_blur_large_for_the_box_evaluates_every_corner():
    cells, size, _ = _cells("border-radius: 8px; box-shadow: 0 0 60px black", w=40, h=30)
    assert {c.corner for c in cells} == {ALL_CORNERS}
    grid = _covered(cells, size)
    assert grid.max() == 1 and grid.sum() > 0


def test_box_shadow_animates_shadow_by_shadow():
    layer = Layer("a", (0, 0, 10, 10), "box-shadow: 0 0 0 red")
    layer.animate({"from": {"box-shadow": "0 0 0 red"},
                   "to": {"box-shadow": "10px 20px 8px 2px blue, inset 0 0 4px black"}}, duration=1.0)
    (first, second) = layer.sampled_style(layer.computed_style(None), 0.5).box_shadow
    assert (first.x, first.y, first.blur, first.spread) == (5.0, 10.0, 4.0, 1.0)
    assert first.color.a == 1.0 and first.color.r == pytest.approx(0.5) and first.color.b == pytest.approx(0.5)
    assert second.inset and second.blur == 2.0 and second.color.a == pytest.approx(0.5)  # padded: from transparent


def test_box_shadow_with_unmatched_inset_animates_discretely():
    layer = Layer("a", (0, 0, 10, 10), "box-shadow: none")
    layer.animate({"from": {"box-shadow": "1px 1px red"}, "to": {"box-shadow": "inset 3px 3px red"}}, duration=1.0)
    base = layer.computed_style(None)
    assert layer.sampled_style(base, 0.25).box_shadow == shadows("1px 1px red")
    assert layer.sampled_style(base, 0.75).box_shadow == shadows("inset 3px 3px red")


def test_a_capped_blur_is_reported():
    scene, _ = _card_scene("background: #fff; box-shadow: 0 0 300px black")
    graph = scene.plan()
    notes = [d.text for d in graph.decisions if d.layer_id == "card"]
    assert any("blur capped at 200px" in n for n in notes), notes
    (raster,) = graph.raster_passes()
    assert raster.paint.shadows[0].sigma == 100.0
