"""clip-path and mask-* (CSS Masking 1): values parse once into typed values, and bad
ones raise typed errors naming the property, the value and the column (computed here
from the CSS text with ``str.index``, never copied from the engine's output)."""

from __future__ import annotations

import pytest

from lamina.css.shapes import CircleShape, ClipPath, EllipseShape, FillRule, GeometryBox, InsetShape, MaskMode, PolygonShape
from lamina.css.values import BackgroundSize, CornerRadius, ImageRef, LengthPercentage, LinearGradient, Radii
from lamina.errors import InvalidValueError, SceneFileError, StyleError, UnsupportedFeatureError
from lamina.limits import MAX_POLYGON_POINTS
from lamina.scene_file import scene_from_dict
from lamina.style import Style
from lamina.style.properties import NOT_YET_SUPPORTED, PROPERTIES

Invalid, Unsupported = InvalidValueError, UnsupportedFeatureError
px = lambda v: LengthPercentage(px=float(v))  # noqa: E731
pc = lambda v: LengthPercentage(percent=float(v))  # noqa: E731
CENTER = (pc(50), pc(50))


def computed(css: str):
    return Style(css).computed()


def col(text: str, needle: str, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + 1


@pytest.mark.parametrize("value, shape, box", [
    ("inset(10px)", InsetShape(px(10), px(10), px(10), px(10)), GeometryBox.BORDER),
    ("inset(1px 2% 3px 4px)", InsetShape(px(1), pc(2), px(3), px(4)), GeometryBox.BORDER),
    ("inset(5px 10px round 4px / 2px)",
     InsetShape(px(5), px(10), px(5), px(10), Radii(*[CornerRadius(px(4), px(2))] * 4)), GeometryBox.BORDER),
    ("inset(0 round 1px 2px)",
     InsetShape(px(0), px(0), px(0), px(0), Radii(*(CornerRadius(px(v), px(v)) for v in (1, 2, 1, 2)))),
     GeometryBox.BORDER),
    ("circle()", CircleShape(), GeometryBox.BORDER),
    ("circle(40%)", CircleShape(pc(40)), GeometryBox.BORDER),
    ("circle(farthest-side at left 10px)", CircleShape("farthest-side", (pc(0), px(10))), GeometryBox.BORDER),
    ("padding-box circle(5px)", CircleShape(px(5)), GeometryBox.PADDING),
    ("ellipse()", EllipseShape(), GeometryBox.BORDER),
    ("ellipse(20px 50% at 0 0)", EllipseShape(px(20), pc(50), (px(0), px(0))), GeometryBox.BORDER),
    ("polygon(0 0, 100% 0, 50% 100%)", PolygonShape(((px(0), px(0)), (pc(100), px(0)), (pc(50), pc(100)))),
     GeometryBox.BORDER),
    ("polygon(evenodd, 0 0, 1px 0, 0 1px) padding-box",
     PolygonShape(((px(0), px(0)), (px(1), px(0)), (px(0), px(1))), FillRule.EVENODD), GeometryBox.PADDING),
    ("POLYGON(NonZero, 0 0, 1px 0, 0 1px)", PolygonShape(((px(0), px(0)), (px(1), px(0)), (px(0), px(1)))),
     GeometryBox.BORDER),
    ("content-box", None, GeometryBox.CONTENT),
    ("margin-box inset(-5px)", InsetShape(px(-5), px(-5), px(-5), px(-5)), GeometryBox.MARGIN),
])
def test_clip_path_values(value, shape, box):
    clip = computed(f"clip-path: {value}").clip_path
    assert clip == ClipPath(shape, box)
    assert clip.text == value  # for reports, as written
    assert clip.is_polygon is isinstance(shape, PolygonShape)


def test_clip_path_none_and_initial():
    assert computed("").clip_path is None
    assert computed("clip-path: none").clip_path is None
    assert computed("clip-path: circle(); clip-path: initial").clip_path is None
    assert not computed("clip-path: circle()").clip_path == computed("clip-path: ellipse()").clip_path


def test_used_reference_boxes():
    # Lamina layers have no margin or padding: the boxes fold onto two (CSS Masking 1 §3.1).
    used = {b: b.used for b in GeometryBox}
    assert used == {
        GeometryBox.MARGIN: GeometryBox.BORDER, GeometryBox.BORDER: GeometryBox.BORDER,
        GeometryBox.PADDING: GeometryBox.PADDING, GeometryBox.CONTENT: GeometryBox.PADDING,
        GeometryBox.FILL: GeometryBox.PADDING, GeometryBox.STROKE: GeometryBox.BORDER, GeometryBox.VIEW: GeometryBox.BORDER,
    }


def test_mask_longhands():
    s = computed("mask-image: linear-gradient(black, transparent); mask-mode: luminance; mask-repeat: repeat-x; "
                 "mask-position: right 20%; mask-size: 10px auto")
    assert isinstance(s.mask_image, LinearGradient)
    assert s.mask_mode is MaskMode.LUMINANCE and s.mask_mode.luminance
    assert s.mask_repeat == (True, False)
    assert s.mask_position == (pc(100), pc(20))
    assert s.mask_size == BackgroundSize(None, px(10), None)
    assert computed("mask-image: url(m.png)").mask_image == ImageRef(url="m.png")
    assert computed("mask-image: none").mask_image is None


def test_mask_initial_values():
    s = computed("")
    assert (s.mask_image, s.mask_mode, s.mask_repeat, s.mask_size) == (None, MaskMode.MATCH_SOURCE, (True, True),
                                                                       BackgroundSize())
    assert s.mask_position == (px(0), px(0))
    assert not MaskMode.MATCH_SOURCE.luminance  # images are alpha masks


def test_mask_shorthand_sets_and_resets_every_longhand():
    s = computed("mask-mode: luminance; mask-size: cover; mask: url(a.png) center / 50% 20px no-repeat")
    assert s.mask_image == ImageRef(url="a.png")
    assert s.mask_position == CENTER
    assert s.mask_size == BackgroundSize(None, pc(50), px(20))
    assert s.mask_repeat == (False, False)
    assert s.mask_mode is MaskMode.MATCH_SOURCE, "reset by the shorthand"
    s = computed("mask: luminance repeat-y linear-gradient(red, blue) border-box")
    assert (s.mask_mode, s.mask_repeat, isinstance(s.mask_image, LinearGradient)) == (MaskMode.LUMINANCE, (False, True), True)
    assert computed("mask: none").mask_image is None


def test_registered_and_no_longer_unsupported():
    for name in ("clip-path", "mask", "mask-image", "mask-mode", "mask-repeat", "mask-position", "mask-size"):
        assert name in PROPERTIES and name not in NOT_YET_SUPPORTED
    for name in ("mask-clip", "mask-origin", "mask-composite", "mask-type", "mask-border"):
        assert name in NOT_YET_SUPPORTED, "real CSS, not done: UnsupportedFeatureError, not unknown property"
    assert PROPERTIES["mask"].fields == ("mask_image", "mask_mode", "mask_repeat", "mask_position", "mask_size")


def test_masking_creates_a_stacking_context_but_does_not_inherit():
    parent = computed("clip-path: circle(); mask-image: linear-gradient(red, blue)")
    child = Style("").computed(parent)
    assert child.clip_path is None and child.mask_image is None


# (css, error class, property, token the column points at, which occurrence)
CASES = [
    ("clip-path: path('M 0 0 L 10 0 L 0 10 z')", Unsupported, "clip-path", "path(", 0),
    ("clip-path: url(#clip)", Unsupported, "clip-path", "url(", 0),
    ('clip-path: url("shapes.svg#c") border-box', Unsupported, "clip-path", "url(", 0),
    ("clip-path: xywh(0 0 10px 10px)", Unsupported, "clip-path", "xywh(", 0),
    ("clip-path: circle(closest-corner)", Unsupported, "clip-path", "closest-corner", 0),
    ("clip-path: star(5)", Invalid, "clip-path", "star(", 0),
    ("clip-path: circle() circle()", Invalid, "clip-path", "circle(", 1),
    ("clip-path: border-box padding-box", Invalid, "clip-path", "padding-box", 0),
    ("clip-path: squircle", Invalid, "clip-path", "squircle", 0),
    ("clip-path: circle(-5px)", Invalid, "clip-path", "-5px", 0),
    ("clip-path: circle(5px 6px)", Invalid, "clip-path", "6px", 0),
    ("clip-path: circle(5em)", Invalid, "clip-path", "5em", 0),
    ("clip-path: circle(at)", Invalid, "clip-path", "at", 1),
    ("clip-path: circle(5px at top bottom)", Invalid, "clip-path", "bottom", 0),
    ("clip-path: ellipse(5px)", Invalid, "clip-path", "ellipse(", 0),
    ("clip-path: ellipse(5px 6px 7px)", Invalid, "clip-path", "7px", 0),
    ("clip-path: inset()", Invalid, "clip-path", "inset(", 0),
    ("clip-path: inset(1px 2px 3px 4px 5px)", Invalid, "clip-path", "5px", 0),
    ("clip-path: inset(1px round)", Invalid, "clip-path", "round", 0),
    ("clip-path: inset(1px round -2px)", Invalid, "clip-path", "-2px", 0),
    ("clip-path: inset(1px round 1px 2px 3px 4px 5px)", Invalid, "clip-path", "5px", 0),
    ("clip-path: inset(1px blue)", Invalid, "clip-path", "blue", 0),
    ("clip-path: polygon(0 0, 1px 1px)", Invalid, "clip-path", "polygon(", 0),
    ("clip-path: polygon(0 0, 1px, 2px 2px)", Invalid, "clip-path", "1px", 0),
    ("clip-path: polygon(0 0, , 1px 1px, 2px 0)", Invalid, "clip-path", ",", 1),
    ("clip-path: polygon(0 0, 1px 1px, 2px 0,)", Invalid, "clip-path", ",", 2),
    ("clip-path: polygon(evenodd 0 0, 1px 1px, 2px 0)", Invalid, "clip-path", "0", 0),
    ("clip-path: polygon(0 0 0, 1px 1px, 2px 0)", Invalid, "clip-path", "0", 2),
    ("clip-path: polygon(0 0, 1em 1px, 2px 0)", Invalid, "clip-path", "1em", 0),
    ("mask-image: url(a.png), url(b.png)", Unsupported, "mask-image", ",", 0),
    ("mask: url(#m)", Unsupported, "mask", "url(", 0),
    ("mask-image: url(#m)", Unsupported, "mask-image", "url(", 0),
    ("mask-image: image(red)", Unsupported, "mask-image", "image(", 0),
    ("mask-image: red", Invalid, "mask-image", "red", 0),
    ("mask-image: linear-gradient(red)", Invalid, "mask-image", "linear-gradient(", 0),
    ("mask-mode: alpha luminance", Invalid, "mask-mode", "luminance", 0),
    ("mask-mode: bright", Invalid, "mask-mode", "bright", 0),
    ("mask-mode: alpha, luminance", Unsupported, "mask-mode", ",", 0),
    ("mask-repeat: round", Unsupported, "mask-repeat", "round", 0),
    ("mask-repeat: repeat space", Unsupported, "mask-repeat", "space", 0),
    ("mask-repeat: sideways", Invalid, "mask-repeat", "sideways", 0),
    ("mask-size: -4px", Invalid, "mask-size", "-4px", 0),
    ("mask-size: 1px 2px 3px", Invalid, "mask-size", "3px", 0),
    ("mask-position: left right", Invalid, "mask-position", "right", 0),
    ("mask: url(a.png) padding-box", Unsupported, "mask", "padding-box", 0),
    ("mask: url(a.png) border-box no-clip", Unsupported, "mask", "no-clip", 0),
    ("mask: url(a.png) subtract", Unsupported, "mask", "subtract", 0),
    ("mask: url(a.png) red", Invalid, "mask", "red", 0),
    ("mask: center /", Invalid, "mask", "/", 0),
    ("mask: url(a.png), linear-gradient(red, blue)", Unsupported, "mask", ",", 0),
    ("opacity: 1; mask-clip: border-box", Unsupported, "mask-clip", "mask-clip", 0),
    ("mask-composite: add", Unsupported, "mask-composite", "mask-composite", 0),
]


@pytest.mark.parametrize("css, cls, prop, token, nth", CASES, ids=[c[0] for c in CASES])
def test_errors_name_property_value_and_column(css, cls, prop, token, nth):
    with pytest.raises(StyleError) as info:
        Style(css)
    err = info.value
    expected = col(css, token, nth)
    assert (type(err).__name__, err.property, err.column) == (cls.__name__, prop, expected)
    assert f"column {expected}" in str(err) and f"property {prop!r}" in str(err)
    if err.column is not None and token not in (prop,):  # an error in the value quotes the value
        written = css.rsplit(f"{prop}: ", 1)[1]
        assert err.value.replace('"', "'") == written.replace('"', "'")


def test_errors_quote_the_whole_value():
    with pytest.raises(InvalidValueError) as info:
        Style("clip-path: polygon(0 0, 1px 1px, 2px 0 , 3em 1px)")
    assert info.value.value == "polygon(0 0, 1px 1px, 2px 0 , 3em 1px)"


def test_too_many_polygon_vertices_is_unsupported_not_truncated():
    points = ", ".join(f"{i}px {i % 3}px" for i in range(MAX_POLYGON_POINTS + 1))
    with pytest.raises(UnsupportedFeatureError) as info:
        Style(f"clip-path: polygon({points})")
    assert str(MAX_POLYGON_POINTS) in str(info.value)
    Style(f"clip-path: polygon({', '.join(f'{i}px {i % 3}px' for i in range(MAX_POLYGON_POINTS))})")


def test_scene_file_errors_name_the_json_path():
    data = {"lamina": 1, "width": 10, "height": 10,
            "layers": [{"id": "a", "box": [0, 0, 5, 5], "style": {"clip-path": "circle(1px) ellipse()"}}]}
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(data)
    assert "$.layers[0].style.clip-path" in str(info.value)
    data["layers"][0]["style"] = "mask-image: url(#m)"
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(data)
    assert "$.layers[0].style" in str(info.value) and "mask-image" in str(info.value)
