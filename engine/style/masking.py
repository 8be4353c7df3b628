"""``clip-path`` and the ``mask-*`` properties (CSS Masking 1 §3 and §6): parsers.

    clip-path: none | <basic-shape> || <geometry-box>
    <basic-shape> = inset() | circle() | ellipse() | polygon()      (CSS Shapes 1 §3)
    mask-image: none | <image>              mask-mode: alpha | luminance | match-source
    mask-repeat / mask-position / mask-size: as background-repeat / -position / -size
    mask: <image> || <position> [ / <size> ]? || <repeat> || <mode>   (one layer)

The typed values live in css.shapes (and css.values for the image, size and position);
what they draw is worked out by the compositor (compositor.clip_path, compositor.masks).
Each parser returns ``{ComputedStyle field: value}``, like every property parser.
"""

from __future__ import annotations

from typing import Any, Callable

from tinycss2 import ast

from ..css.readers import read_at_position, read_position, read_radii, read_url
from ..css.shapes import (
    CircleShape,
    ClipPath,
    EllipseShape,
    FillRule,
    GeometryBox,
    InsetShape,
    MaskMode,
    PolygonShape,
)
from ..css.tokens import TokenStream, describe, split_commas
from ..css.values import BackgroundSize, LengthPercentage, Radii
from ..errors import UnsupportedFeatureError
from ..limits import MAX_POLYGON_POINTS
from .gradients import read_gradient
from .layer_values import read_layer, read_repeat, read_size, read_whole

__all__ = ["MASKING_PROPERTIES", "MASK_DEFAULTS", "MASK_FIELDS", "read_basic_shape"]

_GEOMETRY_BOXES = tuple(b.value for b in GeometryBox)
_SHAPE_RADII = ("closest-side", "farthest-side")
# Initial values (CSS Masking 1 §6): no image, alpha for images, repeat, 0% 0%, auto.
MASK_DEFAULTS: dict[str, Any] = {
    "mask_image": None,
    "mask_mode": MaskMode.MATCH_SOURCE,
    "mask_repeat": (True, True),
    "mask_position": (LengthPercentage(), LengthPercentage()),
    "mask_size": BackgroundSize(),
}
MASK_FIELDS = tuple(MASK_DEFAULTS)


# -- clip-path ------------------------------------------------------------------------


def _parse_clip_path(ts: TokenStream) -> dict:
    if ts.ident("none"):
        ts.expect_end()
        return {"clip_path": None}
    shape = None
    box = None
    while not ts.at_end():
        tok = ts.peek()
        if isinstance(tok, ast.URLToken) or (isinstance(tok, ast.FunctionBlock) and tok.lower_name == "url"):
            raise ts.error("clip-path: url() references (to an SVG <clipPath>) are not supported yet; "
                           "use inset(), circle(), ellipse() or polygon()", tok, UnsupportedFeatureError)
        if isinstance(tok, ast.FunctionBlock) and shape is None:
            shape = read_basic_shape(ts)
            continue
        word = ts.ident(*_GEOMETRY_BOXES)
        if word is not None and box is None:
            box = GeometryBox(word)
            continue
        expected = "a basic shape or a reference box" if shape is None and box is None else (
            "a reference box" if box is None else "a basic shape" if shape is None else "end of value")
        raise ts.error(f"expected {expected}, got {describe(tok)}", tok)
    return {"clip_path": ClipPath(shape, box or GeometryBox.BORDER, ts.text)}


def read_basic_shape(ts: TokenStream):
    """Consume one <basic-shape> function (the next token must be a function)."""
    tok = ts.next()
    name = tok.lower_name
    args = TokenStream(tok.arguments, ts.prop, anchor=tok)
    args.text = ts.text  # errors quote the whole value, as everywhere
    if name == "path":
        raise ts.error("clip-path: path() is not supported yet; use inset(), circle(), ellipse() or polygon()",
                       tok, UnsupportedFeatureError)
    if name in ("rect", "xywh", "shape"):
        raise ts.error(f"clip-path: {tok.name}() (CSS Shapes 2) is not supported yet; use inset(), circle(), "
                       "ellipse() or polygon()", tok, UnsupportedFeatureError)
    reader = _SHAPES.get(name)
    if reader is None:
        raise ts.error(f"expected inset(), circle(), ellipse() or polygon(), got {describe(tok)}", tok)
    return reader(args, tok)


def _inset(ts: TokenStream, fn: ast.FunctionBlock) -> InsetShape:
    offsets: list[LengthPercentage] = []
    while not ts.at_end() and len(offsets) < 4:
        value = ts.length_percentage()
        if value is None:
            break
        offsets.append(value)
    if not offsets:
        raise ts.error(f"inset() needs 1 to 4 lengths or percentages, got {describe(ts.peek())}", ts.peek() or fn)
    while len(offsets) < 4:
        offsets.append(offsets[{1: 0, 2: 0, 3: 1}[len(offsets)]])
    radii = Radii()
    if ts.ident("round"):
        radii = Radii(*read_radii(ts, fn))
    ts.expect_end()
    top, right, bottom, left = offsets
    return InsetShape(top, right, bottom, left, radii)


def _shape_radius(ts: TokenStream):
    """A <shape-radius>, or None when the next token is not one."""
    tok = ts.peek()
    if isinstance(tok, ast.IdentToken) and tok.lower_value in ("closest-corner", "farthest-corner"):
        raise ts.error(f"{tok.value} (CSS Shapes 2) is not supported yet; use closest-side, farthest-side or a "
                       "length", tok, UnsupportedFeatureError)
    word = ts.ident(*_SHAPE_RADII)
    if word is not None:
        return word
    return ts.length_percentage(minimum=0)


def _at_position(ts: TokenStream) -> tuple[LengthPercentage, LengthPercentage]:
    """``[at <position>]?`` at the end of circle() / ellipse(); the centre by default."""
    center = read_at_position(ts)
    ts.expect_end()
    return center


def _circle(ts: TokenStream, fn: ast.FunctionBlock) -> CircleShape:
    radius = _shape_radius(ts)
    center = _at_position(ts)
    return CircleShape(radius if radius is not None else "closest-side", center)


def _ellipse(ts: TokenStream, fn: ast.FunctionBlock) -> EllipseShape:
    rx = _shape_radius(ts)
    ry = None
    if rx is not None:
        tok = ts.peek()
        ry = _shape_radius(ts)
        if ry is None:
            raise ts.error(f"ellipse() takes two radii (or none), got {describe(tok)}", tok or fn)
    center = _at_position(ts)
    if rx is None:
        return EllipseShape(center=center)
    return EllipseShape(rx, ry, center)


def _polygon(ts: TokenStream, fn: ast.FunctionBlock) -> PolygonShape:
    items: list[tuple[list, ast.Node]] = []  # each vertex's tokens, and the token an empty one is reported at
    group: list = []
    for tok in ts.tokens:
        if isinstance(tok, ast.LiteralToken) and tok.value == ",":
            items.append((group, tok))
            group = []
        else:
            group.append(tok)
    items.append((group, ts.tokens[-1] if ts.tokens else fn))
    fill = FillRule.NONZERO
    first = TokenStream(items[0][0], ts.prop, anchor=fn)
    first.text = ts.text
    word = first.ident(*(r.value for r in FillRule))
    if word is not None:
        first.expect_end()
        fill = FillRule(word)
        items = items[1:]
    points = []
    for group, where in items:
        if not group:
            raise ts.error("empty vertex in polygon()", where)
        sub = TokenStream(group, ts.prop, anchor=fn)
        sub.text = ts.text
        x = sub.expect_length_percentage()
        y = sub.expect_length_percentage()
        sub.expect_end()
        points.append((x, y))
    if len(points) < 3:
        raise ts.error(f"polygon() needs at least 3 vertices, got {len(points)}", fn)
    if len(points) > MAX_POLYGON_POINTS:
        raise ts.error(f"polygon() has {len(points)} vertices; Lamina draws at most {MAX_POLYGON_POINTS}", fn,
                       UnsupportedFeatureError)
    return PolygonShape(tuple(points), fill)


_SHAPES: dict[str, Callable[[TokenStream, ast.FunctionBlock], Any]] = {
    "inset": _inset, "circle": _circle, "ellipse": _ellipse, "polygon": _polygon,
}


# -- mask-* ---------------------------------------------------------------------------


def _one_layer(ts: TokenStream) -> None:
    if len(split_commas(ts.tokens)) > 1:
        comma = next(t for t in ts.tokens if isinstance(t, ast.LiteralToken) and t.value == ",")
        raise ts.error("multiple mask layers are not supported yet (one mask image per layer)", comma,
                       UnsupportedFeatureError)


def _read_mask_image(ts: TokenStream):
    """A gradient or url(); None when the next token is neither."""
    tok = ts.peek()
    gradient = read_gradient(ts)
    if gradient is not None:
        return gradient
    url = read_url(ts)
    if url is not None:
        if url.url.startswith("#"):
            raise ts.error(f"mask-image: url({url.url}) names an SVG <mask> element, which is not supported yet; "
                           "use an image file or a gradient", tok, UnsupportedFeatureError)
        return url
    if isinstance(tok, ast.FunctionBlock) and tok.lower_name in (
        "image", "image-set", "cross-fade", "element", "paint",
    ):
        raise ts.error(f"{tok.name}() is not supported yet as a mask image", tok, UnsupportedFeatureError)
    return None




def _read_repeat(ts: TokenStream) -> tuple[bool, bool] | None:
    return read_repeat(ts, "mask-repeat")


def _read_mode(ts: TokenStream) -> MaskMode | None:
    word = ts.ident(*(m.value for m in MaskMode))
    return None if word is None else MaskMode(word)


def _whole(ts: TokenStream, read, what: str):
    _one_layer(ts)
    return read_whole(ts, read, what)


def _parse_mask_image(ts: TokenStream) -> dict:
    _one_layer(ts)
    if ts.ident("none"):
        ts.expect_end()
        return {"mask_image": None}
    return {"mask_image": _whole(ts, _read_mask_image, "none, a gradient or url()")}


def _parse_mask_mode(ts: TokenStream) -> dict:
    return {"mask_mode": _whole(ts, _read_mode, "alpha, luminance or match-source")}


def _parse_mask_repeat(ts: TokenStream) -> dict:
    return {"mask_repeat": _whole(ts, _read_repeat, "repeat, no-repeat, repeat-x or repeat-y")}


def _parse_mask_position(ts: TokenStream) -> dict:
    return {"mask_position": _whole(ts, read_position, "a position")}


def _parse_mask_size(ts: TokenStream) -> dict:
    return {"mask_size": _whole(ts, read_size, "auto, cover, contain or a size")}


_COMPOSITING = ("add", "subtract", "intersect", "exclude")


def _parse_mask(ts: TokenStream) -> dict:
    """Shorthand, one layer: image || position [/ size] || repeat || mode, in any order;
    every longhand not given is reset to its initial value. The reference boxes may be
    written as border-box (their initial value); others are not supported yet."""
    _one_layer(ts)

    def other(tok) -> bool:
        if not isinstance(tok, ast.IdentToken):
            return False
        word = tok.lower_value
        if word == "border-box":  # the initial mask-origin and mask-clip
            ts.next()
            return True
        if word in _GEOMETRY_BOXES or word == "no-clip":
            raise ts.error(f"mask: {tok.value} (mask-origin / mask-clip other than border-box) is not supported "
                           "yet", tok, UnsupportedFeatureError)
        if word in _COMPOSITING:
            raise ts.error(f"mask: {tok.value} (mask-composite) is not supported yet", tok, UnsupportedFeatureError)
        return False

    found = read_layer(ts, "mask", _read_mask_image, {"mode": _read_mode}, other)
    return {**MASK_DEFAULTS, **{f"mask_{name}": value for name, value in found.items()}}


MASKING_PROPERTIES: dict[str, tuple[Callable[[TokenStream], dict], tuple[str, ...]]] = {
    "clip-path": (_parse_clip_path, ("clip_path",)),
    "mask": (_parse_mask, MASK_FIELDS),
    "mask-image": (_parse_mask_image, ("mask_image",)),
    "mask-mode": (_parse_mask_mode, ("mask_mode",)),
    "mask-repeat": (_parse_mask_repeat, ("mask_repeat",)),
    "mask-position": (_parse_mask_position, ("mask_position",)),
    "mask-size": (_parse_mask_size, ("mask_size",)),
}
