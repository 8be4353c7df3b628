"""The text properties (CSS Fonts 4, CSS Text 3, CSS Text Decoration 3's text-shadow):
their typed values, their parsers and the ComputedStyle fields they set.

Every one of them inherits. Values relative to a font size (``em``, percentages,
``larger``, ``bolder``...) are kept as markers by the parser and made absolute when the
style is computed (``resolve_relative``), as CSS computes them: ``font-size: 2em`` is
twice the parent's size, ``line-height: 150%`` is 1.5 times the element's own size and
inherits as that length, while a bare ``line-height: 1.5`` inherits as the number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tinycss2 import ast

from ..css.readers import read_color
from ..css.tokens import TokenStream, describe
from ..css.values import RGBA
from ..errors import InvalidValueError, UnsupportedFeatureError
from ..limits import (MAX_FAMILY_NAME_LENGTH, MAX_FONT_FAMILIES, MAX_FONT_SIZE, MAX_LINE_HEIGHT_FACTOR, MAX_TEXT_SHADOWS,
                      MAX_TEXT_SPACING)

__all__ = [
    "FontFamily",
    "FontStyle",
    "LineHeight",
    "TextShadow",
    "FontRelative",
    "WeightStep",
    "TEXT_DEFAULTS",
    "TEXT_FIELDS",
    "TEXT_PROPERTIES",
    "GENERIC_FAMILIES",
    "INITIAL_FONT_SIZE",
    "resolve_relative",
    "family_list_css",
    "check_resolved",
    "interpolate_text_field",
]

# Generic families (CSS Fonts 4 §4.2.1); fontconfig knows the first three by name, the
# others are mapped onto them where fonts are resolved (lamina.text.fonts).
GENERIC_FAMILIES = (
    "serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui",
    "ui-serif", "ui-sans-serif", "ui-monospace", "ui-rounded", "math", "emoji", "fangsong",
)
INITIAL_FONT_SIZE = 16.0  # 'medium', what every browser uses
# CSS Fonts 4 §2.5: the absolute-size keywords for medium = 16px.
_ABSOLUTE_SIZES = {
    "xx-small": 9.0, "x-small": 10.0, "small": 13.0, "medium": 16.0,
    "large": 18.0, "x-large": 24.0, "xx-large": 32.0, "xxx-large": 48.0,
}
_RELATIVE_SIZES = {"larger": 1.2, "smaller": 1 / 1.2}
_ALIGNS = ("start", "end", "left", "right", "center", "justify")
_WHITE_SPACE = ("normal", "pre", "nowrap", "pre-wrap", "pre-line")


@dataclass(frozen=True)
class FontFamily:
    """One entry of a font-family list: a generic family or a family name."""

    name: str
    generic: bool = False

    def to_css(self) -> str:
        return self.name if self.generic else '"' + self.name.replace('"', '\\"') + '"'


def family_list_css(families: tuple[FontFamily, ...]) -> str:
    return ", ".join(f.to_css() for f in families)


@dataclass(frozen=True)
class FontStyle:
    """normal, italic or oblique (with its angle in degrees, for a synthesized slant)."""

    kind: str = "normal"
    angle: float = 0.0

    @property
    def slanted(self) -> bool:
        return self.kind != "normal"


@dataclass(frozen=True)
class LineHeight:
    """``normal`` (from the font's metrics), a number (times the font size; inherited as
    the number) or an absolute length in px. The used value, in Blink's fixed point, is
    lamina.text.baseline.used_line_height's."""

    kind: str = "normal"  # "normal" | "number" | "px"
    value: float = 0.0


@dataclass(frozen=True)
class TextShadow:
    """One text-shadow: offsets and blur radius in px (the blur is a Gaussian of standard
    deviation blur / 2), colour or 'currentcolor'."""

    x: float
    y: float
    blur: float = 0.0
    color: RGBA | str = "currentcolor"


@dataclass(frozen=True)
class FontRelative:
    """A value that is ``factor`` times a font size, made absolute when the style is
    computed: the parent's size for ``font-size``, the element's own for the others."""

    factor: float
    unit: str  # as written, for messages: "em", "%", "larger"...


@dataclass(frozen=True)
class WeightStep:
    """``bolder`` / ``lighter``: a weight relative to the parent's (CSS Fonts 4 §2.2)."""

    bolder: bool

    def apply(self, parent: float) -> float:
        if self.bolder:
            return 400.0 if parent < 350 else 700.0 if parent < 550 else 900.0 if parent < 900 else parent
        return parent if parent < 100 else 100.0 if parent < 550 else 400.0 if parent < 750 else 700.0


SERIF = (FontFamily("serif", generic=True),)
# Field -> initial value. Browsers start with a serif face at 16px (medium).
TEXT_DEFAULTS: dict[str, Any] = {
    "font_family": SERIF,
    "font_size": INITIAL_FONT_SIZE,
    "font_weight": 400.0,
    "font_style": FontStyle(),
    "line_height": LineHeight(),
    "text_align": "start",
    "letter_spacing": 0.0,
    "white_space": "normal",
    "text_shadow": (),
}
TEXT_FIELDS = frozenset(TEXT_DEFAULTS)


# -- parsers --------------------------------------------------------------------------


def _comma_groups(ts: TokenStream) -> list[tuple[list, ast.Node | None]]:
    """The comma-separated items of a value, each with the token that ends it (its
    comma, or None for the last), so an empty item's error points at a comma."""
    out: list[tuple[list, ast.Node | None]] = []
    group: list = []
    for tok in ts.tokens:
        if isinstance(tok, ast.LiteralToken) and tok.value == ",":
            out.append((group, tok))
            group = []
        else:
            group.append(tok)
    out.append((group, None))
    return out


def _empty_item(ts: TokenStream, what: str, comma: ast.Node | None):
    # The last item is empty after a trailing comma: that comma is the last token.
    return ts.error(f"empty {what} in the list", comma if comma is not None else ts.tokens[-1])


def _parse_font_family(ts: TokenStream) -> dict:
    families = []
    groups = _comma_groups(ts)
    if len(groups) > MAX_FONT_FAMILIES:  # each missing family is one fc-match run
        raise ts.error(f"{len(groups)} families, more than the {MAX_FONT_FAMILIES} one list may have "
                       "(lamina.limits.MAX_FONT_FAMILIES)", groups[MAX_FONT_FAMILIES][1] or ts.tokens[-1]).without_value()
    for group, comma in groups:
        if not group:
            raise _empty_item(ts, "family name", comma)
        if len(group) == 1 and isinstance(group[0], ast.StringToken):
            name = group[0].value.strip()
            if not name:
                raise ts.error("empty family name", group[0])
            families.append(_family(ts, name, group[0]))
            continue
        for tok in group:
            if not isinstance(tok, ast.IdentToken):
                raise ts.error(f"expected a family name or a quoted string, got {describe(tok)}", tok)
        first = group[0].lower_value
        if len(group) == 1 and first in GENERIC_FAMILIES:
            families.append(FontFamily(first, generic=True))
            continue
        if first in ("initial", "inherit", "unset", "default", "revert", "revert-layer"):
            raise ts.error(f"{group[0].value!r} cannot be a family name (quote it)", group[0])
        families.append(_family(ts, " ".join(t.value for t in group), group[0]))
    return {"font_family": tuple(families)}


def _family(ts: TokenStream, name: str, tok: ast.Node) -> FontFamily:
    if len(name) > MAX_FAMILY_NAME_LENGTH:  # it becomes an fc-match argument
        raise ts.error(f"a family name of {len(name)} characters, more than the {MAX_FAMILY_NAME_LENGTH} "
                       "one may have (lamina.limits.MAX_FAMILY_NAME_LENGTH)", tok).without_value()
    return FontFamily(name)


def _bounded(ts: TokenStream, tok: ast.Node, value: Any, limit: float, what: str, name: str) -> Any:
    """``value`` (a px length, or a FontRelative of one), refused past ±``limit``."""
    number = value.factor * (100.0 if value.unit == "%" else 1.0) if isinstance(value, FontRelative) else value
    if isinstance(number, (int, float)) and abs(number) > limit:
        raise ts.error(f"{what} must be within ±{limit:g} (lamina.limits.{name})", tok)
    return value


def _font_relative_length(ts: TokenStream, *, minimum: float | None, percent_of_font: bool = True):
    """A px length, or an ``em`` / percentage as a FontRelative marker; None if neither."""
    tok = ts.peek()
    if isinstance(tok, ast.DimensionToken) and tok.lower_unit == "em":
        ts.pos += 1
        return FontRelative(ts._check(tok, float(tok.value), minimum), "em")
    if percent_of_font and isinstance(tok, ast.PercentageToken):
        ts.pos += 1
        return FontRelative(ts._check(tok, float(tok.value), minimum) / 100.0, "%")
    if isinstance(tok, ast.PercentageToken):
        return None
    lp = ts.length_percentage(minimum=minimum)
    return None if lp is None else lp.px


def _parse_font_size(ts: TokenStream) -> dict:
    tok = ts.peek()
    word = ts.ident(*_ABSOLUTE_SIZES, *_RELATIVE_SIZES)
    if word is not None:
        ts.expect_end()
        size = _ABSOLUTE_SIZES.get(word)
        return {"font_size": size if size is not None else FontRelative(_RELATIVE_SIZES[word], word)}
    value = _font_relative_length(ts, minimum=0.0)
    if value is None:
        raise ts.error(f"expected a font size (px, em, %, or a keyword such as medium), got {describe(tok)}", tok)
    ts.expect_end()
    if isinstance(value, FontRelative):  # checked again once computed (resolve_relative)
        return {"font_size": _bounded(ts, tok, value, MAX_FONT_SIZE, "a font size in em or %", "MAX_FONT_SIZE")}
    return {"font_size": _bounded(ts, tok, value, MAX_FONT_SIZE, "a font size in px", "MAX_FONT_SIZE")}


def _parse_font_weight(ts: TokenStream) -> dict:
    tok = ts.peek()
    word = ts.ident("normal", "bold", "bolder", "lighter")
    if word is not None:
        ts.expect_end()
        if word in ("bolder", "lighter"):
            return {"font_weight": WeightStep(bolder=word == "bolder")}
        return {"font_weight": 700.0 if word == "bold" else 400.0}
    if not isinstance(tok, ast.NumberToken):
        raise ts.error(f"expected normal, bold, bolder, lighter or a number from 1 to 1000, got {describe(tok)}", tok)
    ts.next()
    value = float(tok.value)
    if not 1.0 <= value <= 1000.0:
        raise ts.error(f"font-weight must be from 1 to 1000, got {tok.value:g}", tok)
    ts.expect_end()
    return {"font_weight": value}


def _parse_font_style(ts: TokenStream) -> dict:
    word = ts.expect_ident("normal", "italic", "oblique")
    if word == "oblique":
        angle = 14.0  # CSS Fonts 4: oblique's default angle
        if not ts.at_end():
            tok = ts.peek()
            angle = ts.expect_angle()
            if not -90.0 < angle < 90.0:
                raise ts.error(f"an oblique angle must be between -90deg and 90deg, got {angle:g}deg", tok)
        ts.expect_end()
        return {"font_style": FontStyle("oblique", angle)}
    ts.expect_end()
    # Italic with no italic face is synthesized as an oblique of the same 14 degrees.
    return {"font_style": FontStyle(word, 14.0 if word == "italic" else 0.0)}


def _parse_line_height(ts: TokenStream) -> dict:
    tok = ts.peek()
    if ts.ident("normal"):
        ts.expect_end()
        return {"line_height": LineHeight()}
    if isinstance(tok, ast.NumberToken):
        ts.next()
        value = _bounded(ts, tok, ts._check(tok, float(tok.value), 0.0), MAX_LINE_HEIGHT_FACTOR,
                         "a line-height number", "MAX_LINE_HEIGHT_FACTOR")
        ts.expect_end()
        return {"line_height": LineHeight("number", value)}
    value = _font_relative_length(ts, minimum=0.0)
    if value is None:
        raise ts.error(f"expected normal, a number, a length or a percentage, got {describe(tok)}", tok)
    ts.expect_end()
    value = _bounded(ts, tok, value, MAX_TEXT_SPACING if not isinstance(value, FontRelative) else MAX_LINE_HEIGHT_FACTOR,
                     "a line-height", "MAX_TEXT_SPACING" if not isinstance(value, FontRelative) else "MAX_LINE_HEIGHT_FACTOR")
    return {"line_height": value if isinstance(value, FontRelative) else LineHeight("px", value)}


def _parse_text_align(ts: TokenStream) -> dict:
    tok = ts.peek()
    word = ts.ident(*_ALIGNS)
    if word is None:
        if isinstance(tok, ast.IdentToken) and tok.lower_value in ("match-parent", "justify-all"):
            raise ts.error(f"text-align: {tok.value} is not supported yet", tok, UnsupportedFeatureError)
        raise ts.error(f"expected {', '.join(_ALIGNS)}, got {describe(tok)}", tok)
    ts.expect_end()
    return {"text_align": word}


def _parse_letter_spacing(ts: TokenStream) -> dict:
    tok = ts.peek()
    if ts.ident("normal"):
        ts.expect_end()
        return {"letter_spacing": 0.0}
    if isinstance(tok, ast.PercentageToken):
        raise ts.error("letter-spacing percentages are not supported yet (use px or em)", tok, UnsupportedFeatureError)
    value = _font_relative_length(ts, minimum=None, percent_of_font=False)
    if value is None:
        raise ts.error(f"expected normal or a length (px, em), got {describe(tok)}", tok)
    ts.expect_end()
    return {"letter_spacing": _bounded(ts, tok, value, MAX_TEXT_SPACING, "letter-spacing", "MAX_TEXT_SPACING")}


def _parse_white_space(ts: TokenStream) -> dict:
    tok = ts.peek()
    word = ts.ident(*_WHITE_SPACE)
    if word is None:
        if isinstance(tok, ast.IdentToken) and tok.lower_value == "break-spaces":
            raise ts.error("white-space: break-spaces is not supported yet", tok, UnsupportedFeatureError)
        raise ts.error(f"expected {', '.join(_WHITE_SPACE)}, got {describe(tok)}", tok)
    ts.expect_end()
    return {"white_space": word}


def _read_shadow(ts: TokenStream, group: list) -> TextShadow:
    """<color>? && <length>{2,3}: the colour before or after the lengths, not between."""
    sub = TokenStream(group, ts.prop, anchor=group[0])
    sub.text = ts.text  # errors quote the whole value as written
    color: RGBA | str | None = None
    color_after = False  # the colour came after the lengths: nothing may follow
    lengths: list[float] = []
    while not sub.at_end():
        tok = sub.peek()
        if color is None and (not lengths or len(lengths) >= 2):
            c = read_color(sub)
            if c is not None:
                color, color_after = c, bool(lengths)
                continue
        if len(lengths) < 3 and not color_after:
            if isinstance(tok, ast.PercentageToken):
                raise ts.error("text-shadow lengths cannot be percentages", tok)
            lp = sub.length_percentage(minimum=0.0 if len(lengths) == 2 else None)
            if lp is not None:
                lengths.append(_bounded(ts, tok, lp.px, MAX_TEXT_SPACING, "text-shadow offsets and blur",
                                        "MAX_TEXT_SPACING"))
                continue
        raise ts.error(f"unexpected {describe(tok)} in text-shadow (expected a colour and 2 or 3 lengths)", tok)
    if len(lengths) < 2:
        raise ts.error("a text-shadow needs at least two lengths (x and y offsets)", group[-1])
    blur = lengths[2] if len(lengths) == 3 else 0.0
    return TextShadow(lengths[0], lengths[1], blur, "currentcolor" if color is None else color)


def _parse_text_shadow(ts: TokenStream) -> dict:
    if ts.ident("none"):
        ts.expect_end()
        return {"text_shadow": ()}
    shadows = []
    for group, comma in _comma_groups(ts):
        if not group:
            raise _empty_item(ts, "shadow", comma)
        shadows.append(_read_shadow(ts, group))
    if len(shadows) > MAX_TEXT_SHADOWS:
        raise ts.error(f"at most {MAX_TEXT_SHADOWS} text shadows are supported, got {len(shadows)}",
                       cls=UnsupportedFeatureError)
    return {"text_shadow": tuple(shadows)}


# name -> (parser, fields it sets); lamina.style.properties registers them.
TEXT_PROPERTIES: dict[str, tuple[Callable[[TokenStream], dict], tuple[str, ...]]] = {
    "font-family": (_parse_font_family, ("font_family",)),
    "font-size": (_parse_font_size, ("font_size",)),
    "font-weight": (_parse_font_weight, ("font_weight",)),
    "font-style": (_parse_font_style, ("font_style",)),
    "line-height": (_parse_line_height, ("line_height",)),
    "text-align": (_parse_text_align, ("text_align",)),
    "letter-spacing": (_parse_letter_spacing, ("letter_spacing",)),
    "white-space": (_parse_white_space, ("white_space",)),
    "text-shadow": (_parse_text_shadow, ("text_shadow",)),
}

_MARKERS = (FontRelative, WeightStep)


def resolve_relative(fields: dict[str, Any], parent: Any) -> None:
    """Make font-relative values absolute, in place, as CSS computes them: ``font-size``
    against the parent's size, ``font-weight`` steps against the parent's weight,
    ``line-height`` and ``letter-spacing`` against the element's own (computed) size."""
    if not any(isinstance(fields.get(f), _MARKERS) for f in ("font_size", "font_weight", "line_height", "letter_spacing")):
        return
    parent_size = parent.font_size if parent is not None else INITIAL_FONT_SIZE
    size = fields.get("font_size", parent_size)
    if isinstance(size, FontRelative):
        size = fields["font_size"] = size.factor * parent_size
        if size > MAX_FONT_SIZE:  # ems compound down the tree
            raise InvalidValueError(f"the font size computes to {size:g} px, more than {MAX_FONT_SIZE:g} px "
                                    "(lamina.limits.MAX_FONT_SIZE)", property="font-size")
    weight = fields.get("font_weight")
    if isinstance(weight, WeightStep):
        fields["font_weight"] = weight.apply(parent.font_weight if parent is not None else 400.0)
    line = fields.get("line_height")
    if isinstance(line, FontRelative):
        fields["line_height"] = LineHeight("px", line.factor * size)
    spacing = fields.get("letter_spacing")
    if isinstance(spacing, FontRelative):
        fields["letter_spacing"] = spacing.factor * size
        if abs(fields["letter_spacing"]) > MAX_TEXT_SPACING:
            raise InvalidValueError(f"letter-spacing computes to {fields['letter_spacing']:g} px, beyond "
                                    f"±{MAX_TEXT_SPACING:g} px (lamina.limits.MAX_TEXT_SPACING)", property="letter-spacing")


def check_resolved(style: Any, layer: str | None) -> None:
    """Raise if a font-relative value reached painting unresolved: keyframes are parsed
    without a parent to resolve against, so ``em`` / ``%`` there is not supported yet."""
    for name, fld in (("font-size", "font_size"), ("font-weight", "font_weight"),
                      ("line-height", "line_height"), ("letter-spacing", "letter_spacing")):
        value = getattr(style, fld)
        if isinstance(value, _MARKERS):
            unit = value.unit if isinstance(value, FontRelative) else ("bolder" if value.bolder else "lighter")
            raise UnsupportedFeatureError(
                f"{unit} values of {name} in animation keyframes are not supported yet (use px or numbers)",
                property=name, layer=layer,
            )



# -- animation ------------------------------------------------------------------------

def interpolate_text_field(field: str, a: Any, b: Any, t: float, color: Callable[[RGBA, RGBA, float], RGBA]) -> Any:
    """A text field at progress ``t`` from ``a`` to ``b``, by CSS's animation types:
    font-size, font-weight and letter-spacing as numbers (by computed value), line-height
    when both ends are numbers or both lengths (else discretely, as CSS says), text-shadow
    shadow by shadow with the shorter list padded with transparent zero shadows (CSS
    Text Decoration 3 §4). ``color`` interpolates two colours."""
    if isinstance(a, _MARKERS) or isinstance(b, _MARKERS):
        return a if t < 0.5 else b  # unresolved keyframe units: check_resolved reports them
    # Animated values are clamped to each property's range (as CSS clamps font-size at
    # 0): an easing's overshoot must not reach a size the limits refuse.
    if field == "font_size":
        return min(max(a + (b - a) * t, 0.0), MAX_FONT_SIZE)
    if field == "font_weight":
        return min(max(a + (b - a) * t, 1.0), 1000.0)
    if field == "letter_spacing":
        return min(max(a + (b - a) * t, -MAX_TEXT_SPACING), MAX_TEXT_SPACING)
    if field == "line_height":
        if a.kind == b.kind and a.kind != "normal":
            top = MAX_LINE_HEIGHT_FACTOR if a.kind == "number" else MAX_TEXT_SPACING
            return LineHeight(a.kind, min(max(a.value + (b.value - a.value) * t, 0.0), top))
        return a if t < 0.5 else b
    # text_shadow
    n = max(len(a), len(b))
    none = TextShadow(0.0, 0.0, 0.0, RGBA(0.0, 0.0, 0.0, 0.0))
    pa, pb = tuple(a) + (none,) * (n - len(a)), tuple(b) + (none,) * (n - len(b))
    out = []
    for x, y in zip(pa, pb):
        if not (isinstance(x.color, RGBA) and isinstance(y.color, RGBA)):
            return a if t < 0.5 else b  # currentcolor inside a shadow: discretely
        out.append(TextShadow(_clamp(x.x + (y.x - x.x) * t), _clamp(x.y + (y.y - x.y) * t),
                              _clamp(max(x.blur + (y.blur - x.blur) * t, 0.0)), color(x.color, y.color, t)))
    return tuple(out)


def _clamp(px: float) -> float:
    return min(max(px, -MAX_TEXT_SPACING), MAX_TEXT_SPACING)
