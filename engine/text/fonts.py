"""Find fonts through fontconfig (``fc-match``) and open them for shaping (HarfBuzz)
and rasterizing (FreeType).

A ``font-family`` list resolves as CSS Fonts 4 §5 says: each family name is tried in
order and counts only if fontconfig has a face of that very family (fontconfig answers
every query with *some* font, so the answer's family is checked); a generic family
(serif, sans-serif, monospace...) takes whatever fontconfig configures for it. A list
whose names are all missing and that has no generic family raises FontUnavailableError
naming what to install, instead of painting in a font nobody asked for. Characters the
chosen face lacks fall back to the list's later families, then to the face fontconfig
picks for that character (``:charset=``), as browsers do.

fc-match is run once per distinct query per process (a few ms each) and remembered.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import freetype
import uharfbuzz as hb

from ..errors import FontUnavailableError
from ..style.text import FontFamily, FontStyle, family_list_css

__all__ = ["FontFile", "Font", "FontChain", "open_font", "resolve_families", "fc_weight", "INSTALL_HINT"]

INSTALL_HINT = "apt-get install fontconfig fonts-dejavu-core"
# Generic families fontconfig has no alias for, mapped onto the three it always has.
_GENERIC_ALIASES = {
    "system-ui": "sans-serif", "ui-sans-serif": "sans-serif", "ui-serif": "serif", "ui-monospace": "monospace",
    "ui-rounded": "sans-serif", "math": "serif", "fangsong": "serif",
}
# OpenType (CSS) weight -> fontconfig weight: the table of FcWeightFromOpenType.
_OT_TO_FC = ((100, 0), (200, 40), (300, 50), (350, 55), (380, 75), (400, 80), (500, 100), (600, 180),
             (700, 200), (800, 205), (900, 210), (1000, 215))
_FC_BOLD = 200
_FC_ROMAN = 0


def fc_weight(css_weight: float) -> float:
    """A CSS weight (1-1000) as a fontconfig weight, interpolated in FcWeightFromOpenType's table."""
    if css_weight <= _OT_TO_FC[0][0]:
        return 0.0
    for (w0, f0), (w1, f1) in zip(_OT_TO_FC, _OT_TO_FC[1:]):
        if css_weight <= w1:
            return f0 + (f1 - f0) * (css_weight - w0) / (w1 - w0)
    return float(_OT_TO_FC[-1][1])


@dataclass(frozen=True)
class FontFile:
    """One face fontconfig found: the file, its index in a collection, its family names,
    and its weight and slant in fontconfig units."""

    path: str
    index: int
    families: tuple[str, ...]
    weight: float
    slant: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.path, self.index)


class Font:
    """An opened face: HarfBuzz for shaping (scaled to font units, so positions are
    exact and size-independent), FreeType for glyph outlines and coverage. ``ascender``,
    ``descender`` (positive below the baseline) and ``line_gap`` are font units, rounded
    as Blink rounds them by lamina.text.baseline."""

    def __init__(self, file: FontFile) -> None:
        self.file = file
        blob = hb.Blob.from_file_path(file.path)
        self.hb_face = hb.Face(blob, file.index)
        self.upem = self.hb_face.upem
        self.hb_font = hb.Font(self.hb_face)
        self.hb_font.scale = (self.upem, self.upem)
        self.ft_face = freetype.Face(file.path, file.index)
        extents = self.hb_font.get_font_extents("ltr")
        self.ascender, self.descender, self.line_gap = extents.ascender, -extents.descender, extents.line_gap
        space = self.hb_font.get_nominal_glyph(0x20)
        self.space_glyph = space if space is not None else 0

    def has_char(self, codepoint: int) -> bool:
        return self.hb_font.get_nominal_glyph(codepoint) is not None

    def __repr__(self) -> str:
        return f"Font({Path(self.file.path).name!r}, {self.file.index})"


@lru_cache(maxsize=64)
def open_font(file: FontFile) -> Font:
    return Font(file)


def _escape(name: str) -> str:
    # fontconfig pattern syntax: '\', '-', ':' and ',' are special inside a family name.
    return "".join("\\" + c if c in "\\-:," else c for c in name)


@lru_cache(maxsize=512)
def _fc_match(pattern: str) -> FontFile | None:
    try:
        out = subprocess.run(
            ["fc-match", "--format", "%{file}\\t%{index}\\t%{family}\\t%{weight}\\t%{slant}\\n", pattern],
            capture_output=True, text=True, timeout=30, check=False,
        )
    except FileNotFoundError:
        raise FontUnavailableError(f"fontconfig's fc-match is not installed, so no font can be found: {INSTALL_HINT}",
                                   property=None) from None
    line = out.stdout.strip().split("\n")[0] if out.returncode == 0 else ""
    parts = line.split("\t")
    if len(parts) != 5 or not parts[0] or not Path(parts[0]).is_file():
        return None
    path, index, families, weight, slant = parts
    names = tuple(n.strip() for n in families.split(","))  # fontconfig joins a face's family names with ','
    try:
        return FontFile(path, int(index or 0), names, float(weight or 80), int(float(slant or 0)))
    except ValueError:
        return None


def _pattern(family: str, weight: float, style: FontStyle, extra: str = "") -> str:
    slant = {"normal": 0, "italic": 100, "oblique": 110}[style.kind]
    head = _escape(family) if family else ""
    return f"{head}:weight={fc_weight(weight):g}:slant={slant}{extra}"


def _match_family(family: FontFamily, weight: float, style: FontStyle) -> FontFile | None:
    if family.generic:
        name = _GENERIC_ALIASES.get(family.name, family.name)
        return _fc_match(_pattern(name, weight, style))
    found = _fc_match(_pattern(family.name, weight, style))
    wanted = family.name.casefold()
    if found is None or all(n.casefold() != wanted for n in found.families):
        return None  # fontconfig substituted another family: this one is not installed
    return found


class FontChain:
    """The faces of one font-family list at one weight and style, in fallback order:
    ``primary`` sets the line metrics; ``font_for(codepoint)`` is the face that draws
    a character (the first of the list that has it, else fontconfig's choice for it)."""

    def __init__(self, families: tuple[FontFamily, ...], weight: float, style: FontStyle,
                 layer: str | None = None) -> None:
        self.families, self.weight, self.style = families, weight, style
        self._candidates: list[FontFamily] = list(families)
        self.fonts: list[Font] = []
        self._by_char: dict[int, int] = {}
        primary = self._next()
        if primary is None:
            raise self._unavailable(layer)
        self.primary = primary

    def _next(self) -> Font | None:
        """Resolve the next family of the list that fontconfig has; None at the end."""
        while self._candidates:
            family = self._candidates.pop(0)
            found = _match_family(family, self.weight, self.style)
            if found is None:
                if family.generic:
                    raise FontUnavailableError(
                        f"fontconfig found no font at all for the generic family {family.name} "
                        f"(no fonts installed?): {INSTALL_HINT}", value=family_list_css(self.families))
                continue
            font = open_font(found)
            if all(f.file.key != font.file.key for f in self.fonts):
                self.fonts.append(font)
            return font
        return None

    def _unavailable(self, layer: str | None) -> FontUnavailableError:
        names = ", ".join(repr(f.name) for f in self.families)
        return FontUnavailableError(
            f"none of the families {names} is installed and the list has no generic family to fall back on: "
            "install a font of one of them (fc-list shows what fontconfig has) or end the list with "
            "serif, sans-serif or monospace", value=family_list_css(self.families), layer=layer)

    def font_for(self, codepoint: int) -> int:
        """Index in ``fonts`` of the face that draws ``codepoint`` (the primary face, for
        a character no installed font has: it draws its .notdef box, as browsers do)."""
        index = self._by_char.get(codepoint)
        if index is not None:
            return index
        index = next((i for i, f in enumerate(self.fonts) if f.has_char(codepoint)), None)
        while index is None:
            font = self._next()
            if font is None:
                break
            if font.has_char(codepoint):
                index = self.fonts.index(font)
        if index is None:
            found = _fc_match(_pattern("", self.weight, self.style, f":charset={codepoint:x}"))
            if found is not None:
                font = open_font(found)
                if font.has_char(codepoint):
                    if all(f.file.key != font.file.key for f in self.fonts):
                        self.fonts.append(font)
                    index = next(i for i, f in enumerate(self.fonts) if f.file.key == font.file.key)
        if index is None:
            index = 0
        self._by_char[codepoint] = index
        return index


@lru_cache(maxsize=256)
def _chain(families: tuple[FontFamily, ...], weight: float, style: FontStyle) -> FontChain:
    return FontChain(families, weight, style)


def resolve_families(families: tuple[FontFamily, ...], weight: float, style: FontStyle,
                     layer: str | None = None) -> FontChain:
    """The FontChain of a font-family list (kept per process: fonts are installed rarely).
    FontUnavailableError, naming ``layer``, when nothing in the list is installed."""
    try:
        return _chain(families, weight, style)
    except FontUnavailableError as err:
        raise err.located(layer=layer) from None
