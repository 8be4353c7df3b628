"""One record per CSS property (style.registry): every ComputedStyle field has exactly
one, and the tables other stages read (parsing dispatch, inherited set, interpolation,
the property trees' field sets) are made from them."""

from dataclasses import MISSING, fields

from lamina import Layer, Scene
from lamina.animation import interpolate_field
from lamina.animation.interpolate import _BY_TYPE
from lamina.compositor.property_trees import IN_PLACE_FIELDS, PAINT_FIELDS, SCROLL_FIELDS, TRANSFORM_FIELDS
from lamina.compositor.tree import STACKING_WILL_CHANGE, resolve_tree
from lamina.css.values import LengthPercentage
from lamina.style import ComputedStyle, parse_value
from lamina.style.properties import (
    _RECORDS,
    INHERITED_FIELDS,
    LONGHANDS,
    PROPERTIES,
    SHORTHANDS,
    STACKING_FIELDS,
    fields_invalidating,
)
from lamina.style.registry import AnimationType, Invalidation, Shorthand, StyleProperty


def test_every_computed_style_field_has_one_record_with_its_initial_value():
    style_fields = [f for f in fields(ComputedStyle)]
    assert sorted(f.name for f in style_fields) == sorted(LONGHANDS)
    assert len(_RECORDS) == len(LONGHANDS) + len(SHORTHANDS)  # no field has two records
    for f in style_fields:
        record = LONGHANDS[f.name]
        default = f.default if f.default is not MISSING else f.default_factory()
        assert record.field == f.name and record.initial == default, f.name


def test_the_parsing_dispatch_is_the_records():
    named = {r.name for r in LONGHANDS.values() if r.name is not None} | set(SHORTHANDS)
    assert set(PROPERTIES) == named
    for name, record in PROPERTIES.items():
        assert isinstance(record, (StyleProperty, Shorthand)) and record.name == name and callable(record.parse)
        assert set(record.fields) <= set(LONGHANDS), name
    # A shorthand sets only longhands' fields; a longhand sets its own field.
    assert parse_value("opacity", "0.5") == {"opacity": 0.5}
    assert set(parse_value("border", "1px solid red")) == set(SHORTHANDS["border"].fields)


def test_inherited_set_and_css_wide_keywords_follow_the_records():
    assert INHERITED_FIELDS == {
        "color", "visibility", "font_family", "font_size", "font_weight", "font_style", "line_height",
        "text_align", "letter_spacing", "white_space", "text_shadow", "image_rendering",
    }
    assert parse_value("font-size", "unset") == {"font_size": "inherit"}  # inherited: unset = inherit
    assert parse_value("opacity", "unset") == {"opacity": 1.0}  # not inherited: unset = initial
    assert parse_value("background", "initial") == {r: LONGHANDS[r].initial for r in SHORTHANDS["background"].fields}


def test_property_tree_field_sets_are_made_from_the_records():
    assert TRANSFORM_FIELDS == {"transform", "transform_origin", "perspective", "perspective_origin"}
    assert SCROLL_FIELDS == {"scroll_left", "scroll_top"}
    assert PAINT_FIELDS == {"background_color", "background_position", "background_repeat", "background_size",
                            "background_origin", "background_clip", "border_color", "text"}
    assert IN_PLACE_FIELDS == TRANSFORM_FIELDS | SCROLL_FIELDS | PAINT_FIELDS | {"opacity", "filter", "backdrop_filter"}
    assert fields_invalidating(Invalidation.EFFECT) == {"opacity", "filter", "backdrop_filter"}
    assert all(LONGHANDS[f].invalidates & Invalidation.PAINT for f in ("background_color", "border_color", "text"))
    # Inherited, or changing whether and where the layer paints: the trees are rebuilt.
    assert not any(LONGHANDS[f].in_place for f in ("background_image", "border_style", "z_index", "mix_blend_mode",
                                                     "color", "box_shadow"))


def test_interpolation_follows_each_records_animation_type():
    assert set(_BY_TYPE) == set(AnimationType)  # every type has a handler
    assert LONGHANDS["opacity"].animation is AnimationType.NUMBER
    assert interpolate_field("opacity", 0.2, 0.8, 0.5, (10, 10)) == 0.5
    assert interpolate_field("opacity", 0.5, 1.0, 3.0, (10, 10)) == 1.0  # clamped to the record's range
    assert interpolate_field("border_top_width", 1.0, 2.0, -4.0, (10, 10)) == 0.0
    assert interpolate_field("font_weight", 100.0, 900.0, -1.0, (10, 10)) == 1.0
    assert interpolate_field("letter_spacing", 1.0, 2.0, -4.0, (10, 10)) == -3.0  # unbounded
    assert interpolate_field("inset_top", LengthPercentage(0.0), LengthPercentage(10.0), 0.25, (10, 10)) == \
        LengthPercentage(2.5)
    assert interpolate_field("inset_top", None, LengthPercentage(10.0), 0.25, (10, 10)) is None  # auto: discrete
    assert interpolate_field("z_index", 1, 5, 0.49, (10, 10)) == 1  # discrete
    assert interpolate_field("z_index", 1, 5, 0.5, (10, 10)) == 5


def test_stacking_contexts_follow_the_records():
    assert set(STACKING_FIELDS) == {"z_index", "opacity", "transform", "filter", "backdrop_filter",
                                    "mix_blend_mode", "isolation", "clip_path", "mask_image", "perspective", "transform_style"}
    assert STACKING_WILL_CHANGE == {
        "opacity", "transform", "translate", "rotate", "scale", "filter", "backdrop-filter", "mix-blend-mode",
        "isolation", "mask", "mask-image", "clip-path", "perspective", "z-index", "contain", "transform-style",
    }
    styles = {"plain": "background: red", "z": "z-index: 0", "faded": "opacity: 0.99", "moved": "transform: none",
              "turned": "transform: rotate(1deg)", "blended": "mix-blend-mode: multiply",
              "normal": "mix-blend-mode: normal", "isolated": "isolation: isolate", "clipped": "clip-path: circle()",
              "masked": "mask-image: linear-gradient(red, blue)", "filtered": "filter: blur(1px)",
              "frosted": "backdrop-filter: blur(1px)", "hinted": "will-change: contain", "fixed": "position: fixed"}
    scene = Scene(20, 20)
    for name, style in styles.items():
        scene.root.add(Layer(name, (0, 0, 10, 10), style))
    nodes = {}
    resolve_tree(scene.root, 0.0, nodes)
    makes = {name for name in styles if nodes[name].creates_stacking_context()}
    assert makes == set(styles) - {"plain", "moved", "normal"}
