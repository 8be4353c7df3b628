"""The properties Lamina understands: ``ComputedStyle`` (every field with its initial
value), one parser per property (producing ``{field: value}`` updates), and one record
per property (style.registry: name, field, parser, initial value, inheritance,
animation type, what a change invalidates), from which the tables the other stages read
are made: ``PROPERTIES`` (parsing dispatch), ``INHERITED_FIELDS`` (cascade),
``LONGHANDS`` (interpolation by animation type, what the property trees update in
place) and ``fields_invalidating``.

To add a property: add its field to ``ComputedStyle`` (with its initial value), write
its ``_parse_*`` function and add its record to ``_RECORDS``. Shorthands update several
fields; longhands one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tinycss2 import ast

from ..blending import BlendMode, Isolation
from ..css.readers import CENTER, expect_color, read_color, read_position, read_radii, read_url
from ..css.tokens import TokenStream, describe, split_commas, token_text
from ..errors import StyleError, UnsupportedFeatureError
from ..limits import MAX_FONT_SIZE, MAX_TEXT_SPACING
from ..filters.chain import FilterChain
from ..filters.parse import parse_tokens
from .box_shadow import BoxShadow, parse_box_shadow
from .gradients import read_gradient
from .layer_values import read_layer, read_repeat, read_size, read_whole
from .transforms import read_transform_list
from .text import TEXT_DEFAULTS, TEXT_PROPERTIES, FontFamily, FontStyle, LineHeight, TextShadow
from .masking import MASK_DEFAULTS, MASKING_PROPERTIES
from .registry import AnimationType, Invalidation, Shorthand, StyleProperty
from ..css.shapes import ClipPath, MaskMode
from ..css.values import (
    RGBA,
    TRANSPARENT,
    BackfaceVisibility,
    BackgroundSize,
    CornerRadius,
    LengthPercentage,
    Overflow,
    Position,
    TransformStyle,
)

__all__ = ["ComputedStyle", "ImageRendering", "BackgroundBox", "PROPERTIES", "LONGHANDS", "SHORTHANDS", "NOT_YET_SUPPORTED",
           "INHERITED_FIELDS", "STACKING_FIELDS", "fields_invalidating"]

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)
_ZERO_RADIUS = CornerRadius()
_SIDES = ("top", "right", "bottom", "left")
_CORNERS = ("top_left", "top_right", "bottom_right", "bottom_left")


class ImageRendering(str, Enum):
    """``image-rendering`` (CSS Images 3 §5.3): the scaling algorithm for images. As in
    Chromium, ``pixelated`` and ``crisp-edges`` sample the nearest pixel; ``auto``,
    ``smooth`` and ``high-quality`` sample bilinearly (smooth already)."""

    AUTO = "auto"
    SMOOTH = "smooth"
    HIGH_QUALITY = "high-quality"
    PIXELATED = "pixelated"
    CRISP_EDGES = "crisp-edges"

    @property
    def nearest(self) -> bool:
        """Whether an image is sampled at its nearest pixel, not bilinearly."""
        return self in (ImageRendering.PIXELATED, ImageRendering.CRISP_EDGES)


class BackgroundBox(str, Enum):
    """A ``<visual-box>`` of ``background-origin`` and ``background-clip`` (CSS Backgrounds
    3 §3.7, §3.8). Lamina's boxes have no padding, so the content box is the padding box."""

    BORDER_BOX = "border-box"
    PADDING_BOX = "padding-box"
    CONTENT_BOX = "content-box"

    @property
    def inside_border(self) -> bool:
        """Whether the box is the padding box (the content box is the same here): inside
        the border, where the border box includes it."""
        return self is not _BORDER_BOX


# Read once: every layer's paint asks inside_border twice per frame planned from scratch,
# and on Python 3.11 ``BackgroundBox.BORDER_BOX`` goes through EnumType.__getattr__'s
# attribute hook (about 100 ns, five times a plain class attribute).
_BORDER_BOX = BackgroundBox.BORDER_BOX


@dataclass(frozen=True)
class ComputedStyle:
    """Every style field a layer has, with CSS initial values. ``currentcolor`` in a
    colour field stays the string 'currentcolor' until painted (it follows ``color``)."""

    color: RGBA = BLACK
    visibility: str = "visible"
    background_color: RGBA | str = TRANSPARENT
    background_image: Any = None
    background_repeat: tuple[bool, bool] = (True, True)
    background_size: BackgroundSize = BackgroundSize()
    background_position: tuple[LengthPercentage, LengthPercentage] = (
        LengthPercentage(),
        LengthPercentage(),
    )
    # CSS Backgrounds 3 §3.8, §3.7: where the image is positioned and sized (its
    # positioning area) and where the colour and image paint (the painting area).
    background_origin: BackgroundBox = BackgroundBox.PADDING_BOX
    background_clip: BackgroundBox = BackgroundBox.BORDER_BOX
    border_top_width: float = 3.0  # 'medium'; paints nothing while border-style is none
    border_right_width: float = 3.0
    border_bottom_width: float = 3.0
    border_left_width: float = 3.0
    border_style: str = "none"
    border_color: RGBA | str = "currentcolor"
    radius_top_left: CornerRadius = _ZERO_RADIUS
    radius_top_right: CornerRadius = _ZERO_RADIUS
    radius_bottom_right: CornerRadius = _ZERO_RADIUS
    radius_bottom_left: CornerRadius = _ZERO_RADIUS
    opacity: float = 1.0
    transform: tuple = ()
    # (x, y), or (x, y, z) when a z length was written (z: px only; CSS Transforms 2).
    transform_origin: tuple[LengthPercentage, ...] = (CENTER, CENTER)
    # CSS Transforms 2: the perspective the children are seen with (px; None = none),
    # about perspective_origin (in this box); the back face rule; flat or preserve-3d.
    perspective: LengthPercentage | None = None
    perspective_origin: tuple[LengthPercentage, LengthPercentage] = (CENTER, CENTER)
    backface_visibility: BackfaceVisibility = BackfaceVisibility.VISIBLE
    transform_style: TransformStyle = TransformStyle.FLAT
    overflow: Overflow = Overflow.VISIBLE
    position: Position = Position.STATIC
    # The inset properties (top, right, bottom, left; None = auto). Lamina places boxes
    # by ``box``, so they are used by position: sticky only (compositor.sticky).
    inset_top: LengthPercentage | None = None
    inset_right: LengthPercentage | None = None
    inset_bottom: LengthPercentage | None = None
    inset_left: LengthPercentage | None = None
    # Not CSS properties: Lamina's stand-in for the DOM's scrollLeft / scrollTop, so a
    # scroll offset can be written in a scene file and animated like any property.
    scroll_left: float = 0.0
    scroll_top: float = 0.0
    z_index: int | None = None
    will_change: tuple[str, ...] = ()
    filter: Any = None  # a filters.FilterChain; None = none
    # Compositing and Blending 1 (mix-blend-mode, isolation); Filter Effects 2
    # (backdrop-filter: the filter grammar, applied to what is behind; None = none).
    mix_blend_mode: BlendMode = BlendMode.NORMAL
    isolation: Isolation = Isolation.AUTO
    backdrop_filter: FilterChain | None = None
    # Text (lamina.style.text; all inherited). ``text`` is not CSS: the layer's text
    # content (Layer.text), carried here as ``image=`` is carried in background_image.
    font_family: tuple[FontFamily, ...] = TEXT_DEFAULTS["font_family"]
    font_size: float = TEXT_DEFAULTS["font_size"]  # px
    font_weight: float = TEXT_DEFAULTS["font_weight"]
    font_style: FontStyle = TEXT_DEFAULTS["font_style"]
    line_height: LineHeight = TEXT_DEFAULTS["line_height"]
    text_align: str = TEXT_DEFAULTS["text_align"]
    letter_spacing: float = TEXT_DEFAULTS["letter_spacing"]  # px
    white_space: str = TEXT_DEFAULTS["white_space"]
    text_shadow: tuple[TextShadow, ...] = TEXT_DEFAULTS["text_shadow"]
    text: str | None = None
    # CSS Backgrounds 3 §7.1: the shadows, first (topmost) first; () = none.
    box_shadow: tuple[BoxShadow, ...] = ()
    # CSS Masking 1 (lamina.style.masking): clip-path (None = none) and one mask layer.
    clip_path: ClipPath | None = None
    mask_image: Any = None  # a gradient or an ImageRef; None = none
    mask_mode: MaskMode = MASK_DEFAULTS["mask_mode"]
    mask_repeat: tuple[bool, bool] = MASK_DEFAULTS["mask_repeat"]
    mask_position: tuple[LengthPercentage, LengthPercentage] = MASK_DEFAULTS["mask_position"]
    mask_size: BackgroundSize = MASK_DEFAULTS["mask_size"]
    # CSS Images 3 §5.3: how a scaled background image is sampled (inherited).
    image_rendering: ImageRendering = ImageRendering.AUTO
    # Not CSS: device px per CSS px of the lengths above (lamina.device_scale): 1 as a
    # layer's style is computed; the property trees zoom it for a frame's device scale.
    device_scale: float = 1.0

    def used_color(self, value: RGBA | str) -> RGBA:
        """A colour field's used value: ``currentcolor`` becomes this style's ``color``."""
        return self.color if isinstance(value, str) else value

    @property
    def used_background_color(self) -> RGBA:
        return self.used_color(self.background_color)

    @property
    def used_border_color(self) -> RGBA:
        return self.used_color(self.border_color)


# -- colour and visibility ------------------------------------------------------------


def _parse_color(ts: TokenStream) -> dict:
    color = expect_color(ts)
    ts.expect_end()
    # `color: currentcolor` is the same as `inherit` (CSS Color 4 §4.4).
    return {"color": "inherit" if color == "currentcolor" else color}


def _parse_visibility(ts: TokenStream) -> dict:
    word = ts.expect_ident("visible", "hidden", "collapse")
    ts.expect_end()
    return {"visibility": "hidden" if word == "collapse" else word}


# -- backgrounds ----------------------------------------------------------------------


def _no_layers(ts: TokenStream) -> None:
    if len(split_commas(ts.tokens)) > 1:
        comma = next(t for t in ts.tokens if isinstance(t, ast.LiteralToken) and t.value == ",")
        raise ts.error("multiple background layers are not supported yet", comma, UnsupportedFeatureError)


def _read_image(ts: TokenStream):
    """<image>: a gradient or url(); None when the next token is neither."""
    gradient = read_gradient(ts)
    if gradient is not None:
        return gradient
    url = read_url(ts)
    if url is not None:
        return url
    tok = ts.peek()
    if isinstance(tok, ast.FunctionBlock) and tok.lower_name in ("image", "image-set", "cross-fade", "element"):
        raise ts.error(f"{tok.name}() is not supported yet", tok, UnsupportedFeatureError)
    return None


def _parse_background_color(ts: TokenStream) -> dict:
    color = expect_color(ts)
    ts.expect_end()
    return {"background_color": color}


def _parse_background_image(ts: TokenStream) -> dict:
    _no_layers(ts)
    if ts.ident("none"):
        ts.expect_end()
        return {"background_image": None}
    return {"background_image": read_whole(ts, _read_image, "none, a gradient or url()")}




def _read_repeat(ts: TokenStream) -> tuple[bool, bool] | None:
    return read_repeat(ts, "background-repeat")


def _parse_background_repeat(ts: TokenStream) -> dict:
    _no_layers(ts)
    return {"background_repeat": read_whole(ts, _read_repeat, "repeat, no-repeat, repeat-x or repeat-y")}


def _parse_background_size(ts: TokenStream) -> dict:
    _no_layers(ts)
    return {"background_size": read_whole(ts, read_size, "auto, cover, contain or a size")}


def _parse_background_position(ts: TokenStream) -> dict:
    _no_layers(ts)
    return {"background_position": read_whole(ts, read_position, "a position")}


_BOX_WORDS = tuple(b.value for b in BackgroundBox)


def _read_box(ts: TokenStream) -> BackgroundBox | None:
    word = ts.ident(*_BOX_WORDS)
    return None if word is None else BackgroundBox(word)


def _parse_background_origin(ts: TokenStream) -> dict:
    _no_layers(ts)
    return {"background_origin": read_whole(ts, _read_box, "border-box, padding-box or content-box")}


def _parse_background_clip(ts: TokenStream) -> dict:
    _no_layers(ts)
    tok = ts.peek()
    if isinstance(tok, ast.IdentToken) and tok.lower_value == "text":
        raise ts.error("background-clip: text is not supported yet", tok, UnsupportedFeatureError)
    return {"background_clip": read_whole(ts, _read_box, "border-box, padding-box or content-box")}


def _parse_background(ts: TokenStream) -> dict:
    """Shorthand: any of colour, image, repeat, position [/ size] and up to two boxes, in
    any order. One box sets background-origin and background-clip; two set origin, then
    clip (CSS Backgrounds 3 §3.10)."""
    _no_layers(ts)

    def other(tok) -> bool:
        if isinstance(tok, ast.IdentToken) and tok.lower_value in ("fixed", "local", "scroll", "text"):
            raise ts.error(f"background: {tok.value} is not supported yet", tok, UnsupportedFeatureError)
        return False

    found = read_layer(ts, "background", _read_image, {"color": read_color, "origin": _read_box, "clip": _read_box},
                       other)
    if not found:
        raise ts.error("expected a background value")
    if "origin" in found and "clip" not in found:
        found["clip"] = found["origin"]
    out: dict[str, Any] = {f: getattr(ComputedStyle, f) for f in _BACKGROUND_FIELDS}
    out.update({f"background_{name}": value for name, value in found.items()})
    return out


_BACKGROUND_FIELDS = (
    "background_color",
    "background_image",
    "background_repeat",
    "background_size",
    "background_position",
    "background_origin",
    "background_clip",
)

# -- borders --------------------------------------------------------------------------

_LINE_WIDTHS = {"thin": 1.0, "medium": 3.0, "thick": 5.0}
_SUPPORTED_STYLES = ("none", "hidden", "solid", "dashed", "dotted")
_OTHER_STYLES = ("double", "groove", "ridge", "inset", "outset")


def _read_line_width(ts: TokenStream) -> float | None:
    word = ts.ident(*_LINE_WIDTHS)
    if word:
        return _LINE_WIDTHS[word]
    tok = ts.peek()
    if isinstance(tok, ast.PercentageToken):
        raise ts.error("border widths cannot be percentages", tok)
    lp = ts.length_percentage(minimum=0)
    return None if lp is None else lp.px


def _read_line_style(ts: TokenStream) -> str | None:
    tok = ts.peek()
    word = ts.ident(*_SUPPORTED_STYLES, *_OTHER_STYLES)
    if word in _OTHER_STYLES:
        raise ts.error(f"border-style {word} is not supported yet (only solid, dashed, dotted, none, hidden)",
                       tok, UnsupportedFeatureError)
    return word


def _four(ts: TokenStream, read, what: str) -> tuple:
    """1-4 values expanded to top, right, bottom, left (CSS box shorthand rule)."""
    values = []
    while not ts.at_end() and len(values) < 4:
        tok = ts.peek()
        v = read(ts)
        if v is None:
            raise ts.error(f"expected {what}, got {describe(tok)}", tok)
        values.append(v)
    ts.expect_end()
    if not values:
        raise ts.error(f"expected {what}")
    while len(values) < 4:
        values.append(values[{1: 0, 2: 0, 3: 1}[len(values)]])
    return tuple(values)


def _widths(values) -> dict:
    return {f"border_{side}_width": v for side, v in zip(_SIDES, values)}


def _parse_border(ts: TokenStream) -> dict:
    """Shorthand: <line-width> || <line-style> || <color>."""
    width, style, color = 3.0, "none", "currentcolor"
    seen: set[str] = set()
    while not ts.at_end():
        tok = ts.peek()
        if "width" not in seen:
            w = _read_line_width(ts)
            if w is not None:
                width = w
                seen.add("width")
                continue
        if "style" not in seen:
            s = _read_line_style(ts)
            if s is not None:
                style = s
                seen.add("style")
                continue
        if "color" not in seen:
            c = read_color(ts)
            if c is not None:
                color = c
                seen.add("color")
                continue
        raise ts.error(f"unexpected {describe(tok)} in border", tok)
    if not seen:
        raise ts.error("expected a border width, style or colour")
    return {**_widths((width,) * 4), "border_style": style, "border_color": color}


def _parse_border_width(ts: TokenStream) -> dict:
    return _widths(_four(ts, _read_line_width, "a border width"))


def _parse_border_style(ts: TokenStream) -> dict:
    styles = set(_four(ts, _read_line_style, "a border style"))
    if len(styles) > 1:
        raise ts.error("different styles per side are not supported yet", cls=UnsupportedFeatureError)
    return {"border_style": styles.pop()}


def _parse_border_color(ts: TokenStream) -> dict:
    colors = set(_four(ts, read_color, "a colour"))
    if len(colors) > 1:
        raise ts.error("different colours per side are not supported yet", cls=UnsupportedFeatureError)
    return {"border_color": colors.pop()}


def _side_width(side: str):
    def parse(ts: TokenStream) -> dict:
        return {f"border_{side}_width": read_whole(ts, _read_line_width, "a border width")}

    return parse


def _parse_border_radius(ts: TokenStream) -> dict:
    """1-4 horizontal radii, optionally '/' and 1-4 vertical radii."""
    return {f"radius_{c}": r for c, r in zip(_CORNERS, read_radii(ts))}


def _corner_radius(corner: str):
    def parse(ts: TokenStream) -> dict:
        x = ts.expect_length_percentage(minimum=0)
        y = ts.length_percentage(minimum=0) or x
        ts.expect_end()
        return {f"radius_{corner}": CornerRadius(x, y)}

    return parse


# -- compositing-related --------------------------------------------------------------


def _parse_opacity(ts: TokenStream) -> dict:
    value = ts.expect_number_or_percentage()
    ts.expect_end()
    return {"opacity": min(max(value, 0.0), 1.0)}  # CSS clamps, it does not reject


def _parse_transform(ts: TokenStream) -> dict:
    return {"transform": read_transform_list(ts)}


def _parse_transform_origin(ts: TokenStream) -> dict:
    tok = ts.peek()
    pos = read_position(ts)
    if pos is None:
        raise ts.error(f"expected a position, got {describe(tok)}", tok)
    if not ts.at_end():
        # The z offset (a <length>, CSS Transforms 2): used where the transform is 3D.
        z = ts.expect_length()
        ts.expect_end()
        return {"transform_origin": (pos[0], pos[1], LengthPercentage(px=z))}
    ts.expect_end()
    return {"transform_origin": pos}


def _parse_perspective(ts: TokenStream) -> dict:
    """``none | <length [0,inf]>`` (CSS Transforms 2 §8): a negative length is an
    error; 0 is valid and, like anything under 1px, is used as 1px when drawn (the spec's
    rule, which Chromium follows)."""
    if ts.ident("none"):
        ts.expect_end()
        return {"perspective": None}
    tok = ts.peek()
    if isinstance(tok, ast.PercentageToken):
        raise ts.error(f"perspective takes a length, not a percentage (got {token_text([tok])})", tok)
    depth = ts.expect_length(minimum=0.0)
    ts.expect_end()
    return {"perspective": LengthPercentage(px=depth)}


def _parse_perspective_origin(ts: TokenStream) -> dict:
    tok = ts.peek()
    pos = read_position(ts)
    if pos is None:
        raise ts.error(f"expected a position, got {describe(tok)}", tok)
    ts.expect_end()
    return {"perspective_origin": pos}


def _parse_backface_visibility(ts: TokenStream) -> dict:
    word = ts.expect_ident(*(v.value for v in BackfaceVisibility))
    ts.expect_end()
    return {"backface_visibility": BackfaceVisibility(word)}


def _parse_transform_style(ts: TokenStream) -> dict:
    word = ts.expect_ident(*(v.value for v in TransformStyle))
    ts.expect_end()
    return {"transform_style": TransformStyle(word)}


def _parse_overflow(ts: TokenStream) -> dict:
    words = ("visible", "hidden", "clip", "scroll", "auto")
    first = ts.expect_ident(*words)
    second_tok = ts.peek()
    second = ts.ident(*words) or first
    ts.expect_end()
    used = {Overflow.SCROLL if w == "auto" else Overflow(w) for w in (first, second)}
    if used & {Overflow.HIDDEN, Overflow.SCROLL}:
        # CSS Overflow 3 §3: visible and clip compute to auto and hidden when the other
        # axis scrolls; the box is then a scroll container on both axes.
        return {"overflow": Overflow.SCROLL if used & {Overflow.SCROLL, Overflow.VISIBLE} else Overflow.HIDDEN}
    if len(used) > 1:
        raise ts.error("clipping on one axis only is not supported yet", second_tok, UnsupportedFeatureError)
    return {"overflow": used.pop()}


def _parse_position(ts: TokenStream) -> dict:
    word = ts.expect_ident("static", "relative", "absolute", "fixed", "sticky")
    ts.expect_end()
    return {"position": {"fixed": Position.FIXED, "sticky": Position.STICKY}.get(word, Position.STATIC)}


def _inset(field: str):
    """top | right | bottom | left: auto or a <length-percentage> (negative allowed)."""

    def parse(ts: TokenStream) -> dict:
        if ts.ident("auto"):
            ts.expect_end()
            return {field: None}
        value = ts.expect_length_percentage()
        ts.expect_end()
        return {field: value}

    return parse


def _scroll_offset(field: str):
    def parse(ts: TokenStream) -> dict:
        value = ts.expect_length(minimum=0.0)
        ts.expect_end()
        return {field: value}

    return parse


def _parse_z_index(ts: TokenStream) -> dict:
    if ts.ident("auto"):
        ts.expect_end()
        return {"z_index": None}
    value = ts.expect_integer()
    ts.expect_end()
    return {"z_index": value}


def _filter_chain(field: str):
    """A ``filter``-grammar property (filter, backdrop-filter): the filter parser's
    errors name the property being parsed (``ts.prop``)."""

    def parse(ts: TokenStream) -> dict:
        try:
            chain = parse_tokens(ts.tokens, ts.prop)
        except StyleError as err:
            # The filter parser sees the significant tokens only: an error about the
            # whole value quotes the value as written, spaces included.
            if err.value is not None and err.value == token_text(ts.tokens) != ts.text:
                raise type(err)(
                    err.reason, property=err.property, value=ts.text,
                    column=err.column, line=err.line, layer=err.layer,
                ) from None
            raise
        return {field: None if chain.is_none() else chain}

    return parse


_parse_filter = _filter_chain("filter")
_parse_backdrop_filter = _filter_chain("backdrop_filter")

_BLEND_MODES = tuple(m.value for m in BlendMode)


def _parse_mix_blend_mode(ts: TokenStream) -> dict:
    tok = ts.peek()
    word = ts.ident(*_BLEND_MODES)
    if word is None:
        if isinstance(tok, ast.IdentToken) and tok.lower_value == "plus-darker":
            raise ts.error("mix-blend-mode: plus-darker is not supported yet", tok, UnsupportedFeatureError)
        raise ts.error(f"expected a blend mode ({', '.join(_BLEND_MODES)}), got {describe(tok)}", tok)
    ts.expect_end()
    return {"mix_blend_mode": BlendMode(word)}


def _parse_isolation(ts: TokenStream) -> dict:
    word = ts.expect_ident(*(i.value for i in Isolation))
    ts.expect_end()
    return {"isolation": Isolation(word)}


def _parse_will_change(ts: TokenStream) -> dict:
    if ts.ident("auto"):
        ts.expect_end()
        return {"will_change": ()}
    names = []
    for group in split_commas(ts.tokens):
        sub = TokenStream(group, ts.prop, anchor=ts.anchor)
        tok = sub.peek()
        if not isinstance(tok, ast.IdentToken):
            raise ts.error(f"expected a property name, got {describe(tok)}", tok)
        sub.next()
        sub.expect_end()
        if tok.lower_value in ("will-change", "none", "all", "auto", "initial", "inherit", "unset"):
            raise ts.error(f"{tok.value!r} is not allowed in will-change", tok)
        names.append(tok.lower_value)
    return {"will_change": tuple(names)}


def _parse_image_rendering(ts: TokenStream) -> dict:
    word = ts.expect_ident(*(v.value for v in ImageRendering))
    ts.expect_end()
    return {"image_rendering": ImageRendering(word)}


# -- the records ----------------------------------------------------------------------

_TEXT = {name: parse for name, (parse, _) in TEXT_PROPERTIES.items()}
_MASKING = {name: parse for name, (parse, _) in MASKING_PROPERTIES.items()}
_A, _I = AnimationType, Invalidation
_PAINT, _TREE = Invalidation.PAINT, Invalidation.TREE
_NON_NEGATIVE = (0.0, math.inf)


def _longhand(
    name: str | None, parse, field: str, animation: AnimationType, invalidates: Invalidation, *,
    inherited: bool = False, value_range: tuple[float, float] = (-math.inf, math.inf), stacking: bool = False,
) -> StyleProperty:
    """A longhand's record; its initial value is its ComputedStyle field's default."""
    return StyleProperty(name, field, parse, getattr(ComputedStyle, field), inherited, animation, invalidates,
                         value_range, stacking)


# Every property, in the order PROPERTIES lists them. What a change invalidates:
# an inherited property also changes what its descendants compute (TREE); a geometry
# that clips (border widths, radii) or reaches past the box (box-shadow) changes clips
# and ink rects (TREE); blending, masks and backdrop filters change surfaces (TREE).
_RECORDS: tuple[StyleProperty | Shorthand, ...] = (
    _longhand("color", _parse_color, "color", _A.COLOR, _PAINT | _TREE, inherited=True),
    _longhand("visibility", _parse_visibility, "visibility", _A.DISCRETE, _PAINT | _TREE, inherited=True),
    Shorthand("background", _parse_background, _BACKGROUND_FIELDS),
    _longhand("background-color", _parse_background_color, "background_color", _A.COLOR, _PAINT),
    _longhand("background-image", _parse_background_image, "background_image", _A.DISCRETE, _PAINT | _TREE),
    _longhand("background-repeat", _parse_background_repeat, "background_repeat", _A.DISCRETE, _PAINT),
    _longhand("background-size", _parse_background_size, "background_size", _A.DISCRETE, _PAINT),
    _longhand("background-position", _parse_background_position, "background_position", _A.DISCRETE, _PAINT),
    _longhand("background-origin", _parse_background_origin, "background_origin", _A.DISCRETE, _PAINT),
    _longhand("background-clip", _parse_background_clip, "background_clip", _A.DISCRETE, _PAINT),
    Shorthand("border", _parse_border, (*(f"border_{s}_width" for s in _SIDES), "border_style", "border_color")),
    Shorthand("border-width", _parse_border_width, tuple(f"border_{s}_width" for s in _SIDES)),
    _longhand("border-style", _parse_border_style, "border_style", _A.DISCRETE, _PAINT | _TREE),
    _longhand("border-color", _parse_border_color, "border_color", _A.COLOR, _PAINT),
    *(
        _longhand(f"border-{s}-width", _side_width(s), f"border_{s}_width", _A.NUMBER, _PAINT | _TREE,
                  value_range=_NON_NEGATIVE)
        for s in _SIDES
    ),
    Shorthand("border-radius", _parse_border_radius, tuple(f"radius_{c}" for c in _CORNERS)),
    *(
        _longhand(f"border-{c.replace('_', '-')}-radius", _corner_radius(c), f"radius_{c}", _A.DISCRETE,
                  _PAINT | _TREE)
        for c in _CORNERS
    ),
    _longhand("opacity", _parse_opacity, "opacity", _A.NUMBER, _I.EFFECT, value_range=(0.0, 1.0),
              stacking=True),
    _longhand("transform", _parse_transform, "transform", _A.TRANSFORM_LIST, _I.TRANSFORM, stacking=True),
    _longhand("transform-origin", _parse_transform_origin, "transform_origin", _A.DISCRETE, _I.TRANSFORM),
    # A perspective places the children: a change moves them as a transform does (a
    # value other than none also makes a stacking context, CSS Transforms 2 §8).
    _longhand("perspective", _parse_perspective, "perspective", _A.DISCRETE, _I.TRANSFORM, stacking=True),
    _longhand("perspective-origin", _parse_perspective_origin, "perspective_origin", _A.DISCRETE, _I.TRANSFORM),
    _longhand("backface-visibility", _parse_backface_visibility, "backface_visibility", _A.DISCRETE, _TREE),
    # preserve-3d makes a stacking context (CSS Transforms 2 §10) and a 3D rendering context.
    _longhand("transform-style", _parse_transform_style, "transform_style", _A.DISCRETE, _TREE, stacking=True),
    _longhand("overflow", _parse_overflow, "overflow", _A.DISCRETE, _TREE),
    _longhand("position", _parse_position, "position", _A.DISCRETE, _TREE),
    *(_longhand(side, _inset(f"inset_{side}"), f"inset_{side}", _A.LENGTH_PERCENTAGE, _TREE) for side in _SIDES),
    _longhand("scroll-left", _scroll_offset("scroll_left"), "scroll_left", _A.NUMBER, _I.SCROLL,
              value_range=_NON_NEGATIVE),
    _longhand("scroll-top", _scroll_offset("scroll_top"), "scroll_top", _A.NUMBER, _I.SCROLL,
              value_range=_NON_NEGATIVE),
    _longhand("z-index", _parse_z_index, "z_index", _A.DISCRETE, _TREE, stacking=True),
    _longhand("will-change", _parse_will_change, "will_change", _A.DISCRETE, _TREE),
    _longhand("filter", _parse_filter, "filter", _A.FILTER_LIST, _I.EFFECT, stacking=True),
    # Only the planner reads a backdrop-filter (its filtered backdrop is a draw of its own):
    # the trees take it in place; to or from none is a stacking context coming or going.
    _longhand("backdrop-filter", _parse_backdrop_filter, "backdrop_filter", _A.FILTER_LIST, _I.EFFECT,
              stacking=True),
    _longhand("mix-blend-mode", _parse_mix_blend_mode, "mix_blend_mode", _A.DISCRETE, _TREE, stacking=True),
    _longhand("isolation", _parse_isolation, "isolation", _A.DISCRETE, _TREE, stacking=True),
    # Text (lamina.style.text): all inherited; font-relative values interpolate discretely.
    _longhand("font-family", _TEXT["font-family"], "font_family", _A.DISCRETE, _PAINT | _TREE, inherited=True),
    _longhand("font-size", _TEXT["font-size"], "font_size", _A.NUMBER, _PAINT | _TREE, inherited=True,
              value_range=(0.0, MAX_FONT_SIZE)),  # an easing's overshoot stops at the limit
    _longhand("font-weight", _TEXT["font-weight"], "font_weight", _A.NUMBER, _PAINT | _TREE, inherited=True,
              value_range=(1.0, 1000.0)),
    _longhand("font-style", _TEXT["font-style"], "font_style", _A.DISCRETE, _PAINT | _TREE, inherited=True),
    _longhand("line-height", _TEXT["line-height"], "line_height", _A.LINE_HEIGHT, _PAINT | _TREE, inherited=True),
    _longhand("text-align", _TEXT["text-align"], "text_align", _A.DISCRETE, _PAINT | _TREE, inherited=True),
    _longhand("letter-spacing", _TEXT["letter-spacing"], "letter_spacing", _A.NUMBER, _PAINT | _TREE,
              inherited=True, value_range=(-MAX_TEXT_SPACING, MAX_TEXT_SPACING)),
    _longhand("white-space", _TEXT["white-space"], "white_space", _A.DISCRETE, _PAINT | _TREE, inherited=True),
    _longhand("text-shadow", _TEXT["text-shadow"], "text_shadow", _A.TEXT_SHADOW_LIST, _PAINT | _TREE,
              inherited=True),
    _longhand("box-shadow", parse_box_shadow, "box_shadow", _A.SHADOW_LIST, _PAINT | _TREE),
    # CSS Masking 1 (lamina.style.masking): a clip-path or mask is a clip or surface.
    _longhand("clip-path", _MASKING["clip-path"], "clip_path", _A.DISCRETE, _TREE, stacking=True),
    Shorthand("mask", _MASKING["mask"], MASKING_PROPERTIES["mask"][1]),
    _longhand("mask-image", _MASKING["mask-image"], "mask_image", _A.DISCRETE, _TREE, stacking=True),
    _longhand("mask-mode", _MASKING["mask-mode"], "mask_mode", _A.DISCRETE, _TREE),
    _longhand("mask-repeat", _MASKING["mask-repeat"], "mask_repeat", _A.DISCRETE, _TREE),
    _longhand("mask-position", _MASKING["mask-position"], "mask_position", _A.DISCRETE, _TREE),
    _longhand("mask-size", _MASKING["mask-size"], "mask_size", _A.DISCRETE, _TREE),
    _longhand("image-rendering", _parse_image_rendering, "image_rendering", _A.DISCRETE, _PAINT | _TREE,
              inherited=True),
    # Not a CSS property: the layer's text content (Layer.text); no declaration sets it.
    _longhand(None, None, "text", _A.DISCRETE, _PAINT),
    # Not a CSS property: device px per CSS px of the lengths (lamina.device_scale); set by the
    # property trees only, and a new scale rebuilds them.
    _longhand(None, None, "device_scale", _A.DISCRETE, _TREE),
)

# The tables the stages read, all made from the records above.
LONGHANDS: dict[str, StyleProperty] = {r.field: r for r in _RECORDS if isinstance(r, StyleProperty)}  # by field
SHORTHANDS: dict[str, Shorthand] = {r.name: r for r in _RECORDS if isinstance(r, Shorthand)}
# What a declaration's name dispatches to: its parser and the fields it sets.
PROPERTIES: dict[str, StyleProperty | Shorthand] = {r.name: r for r in _RECORDS if r.name is not None}
INHERITED_FIELDS = frozenset(r.field for r in LONGHANDS.values() if r.inherited)
# The fields a value other than whose initial one makes a stacking context (z-index,
# opacity, transform, filter, blending, isolation, backdrop-filter, clip-path, masks).
STACKING_FIELDS = tuple(r.field for r in LONGHANDS.values() if r.stacking)


def fields_invalidating(what: Invalidation) -> frozenset[str]:
    """The ComputedStyle fields a change of which invalidates (at least) ``what``."""
    return frozenset(r.field for r in LONGHANDS.values() if r.invalidates & what)


# Real CSS properties Lamina does not implement yet: they raise UnsupportedFeatureError
# (not "unknown property") so the user knows the name is right but the feature missing.
NOT_YET_SUPPORTED = frozenset(
    {
        "mask-clip", "mask-origin", "mask-composite", "mask-type", "mask-border",
        "border-top", "border-right", "border-bottom", "border-left",
        "border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
        "border-top-style", "border-right-style", "border-bottom-style", "border-left-style",
        "border-image", "outline",
        "background-attachment", "background-blend-mode", "overflow-x", "overflow-y",
        "display", "margin", "padding", "width", "height", "inset", "font", "animation", "transition",
        # text: what lamina.style.text does not do yet
        "font-variant", "font-stretch", "font-feature-settings", "font-variation-settings", "font-kerning",
        "font-synthesis", "word-spacing", "text-indent", "text-transform", "text-decoration",
        "text-decoration-line", "text-decoration-color", "text-decoration-style", "text-overflow",
        "word-break", "overflow-wrap", "word-wrap", "hyphens", "tab-size", "direction", "unicode-bidi",
        "writing-mode", "vertical-align", "text-rendering",
    }
)
