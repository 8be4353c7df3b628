"""Lay a layer's text out in its box: white-space processing, shaping, line breaking,
alignment and line boxes — the parts of CSS Text 3 and CSS Inline 3 that one run of
left-to-right text in one font size needs.

* White space (CSS Text 3 §4): ``normal`` and ``nowrap`` collapse spaces, tabs and
  newlines into single spaces; ``pre-line`` collapses spaces but keeps newlines;
  ``pre`` and ``pre-wrap`` keep everything (tabs stop every 8 spaces). Newlines kept
  are forced breaks. ``normal``, ``pre-wrap`` and ``pre-line`` wrap at spaces
  inside the content box; a word longer than the line overflows it (overflow-wrap:
  normal). Spaces at the end of a wrapped line hang: they do not count for fitting or
  alignment.
* Shaping is HarfBuzz's, per run of one face (fonts.FontChain picks the face per
  character); ``letter-spacing`` is added after every character, as Blink does (also
  the last of a line), and turns optional ligatures off (CSS Text 3 §8.2).
* ``text-align``: start/left, end/right, center and justify (the spaces of every line
  but a paragraph's last are widened). A line too long for the box is start-aligned.
* Line boxes: each line is ``line-height`` tall; the baseline sits half the leading
  below the line's top plus the ascent (of the first available family), as Blink places
  it: ascent and descent rounded to whole device px, the half-leading floored to a whole
  px (lamina.text.baseline has the rule and where in Blink it comes from).
* Raster scale: text in a layer rastered at scale r (lamina.compositor.raster_scale) is
  laid out at the device scale, as Blink lays it out, and the layout multiplied by r, as
  cc rasters the recording at a larger contents scale: the same line breaks, baselines
  and pen positions, r times further apart, so text does not move when r changes.

All positions are raster px (device px times the raster scale) from the content box's
top-left, y down; glyphs are kept as arrays per line (ids, faces, pen positions), ready
for lamina.text.raster.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import replace, dataclass

import numpy as np
import uharfbuzz as hb

from ..errors import UnsupportedFeatureError
from ..style.text import FontFamily, FontStyle, LineHeight
from .baseline import line_metrics, subpixel_positioning
from .fonts import Font, FontChain, resolve_families

__all__ = [
    "TextSpec",
    "LineBox",
    "TextLayout",
    "lay_out",
    "process_white_space",
    "break_lines",
    "align_offset",
    "WRAPPING",
    "TAB_SPACES",
    "clear_layout_cache",
    "unzoomed",
]

WRAPPING = frozenset({"normal", "pre-wrap", "pre-line"})
_COLLAPSING = frozenset({"normal", "nowrap", "pre-line"})
TAB_SPACES = 8  # CSS tab-size's initial value
_BREAK_AFTER = frozenset(" \u200b")
_FIT_EPSILON = 1.0 / 64.0  # Blink's LayoutUnit: a line that fits within 1/64 px fits
_NO_LIGATURES = {"liga": False, "clig": False, "dlig": False, "hlig": False}
_BOLD_SYNTHESIS_FROM = 600.0  # CSS Fonts 4 §5.2.2 (font-synthesis-weight): bold for 600+
_FC_DEMIBOLD = 180.0
_LAYOUTS: OrderedDict = OrderedDict()
_LAYOUT_CACHE_SIZE = 256


@dataclass(frozen=True)
class TextSpec:
    """Everything a layout depends on (so also the key it is cached under)."""

    text: str
    families: tuple[FontFamily, ...]
    size: float
    weight: float
    style: FontStyle
    line_height: LineHeight
    align: str
    letter_spacing: float
    white_space: str
    width: float  # the content box's width: the line length
    # Device px per CSS px (lamina.device_scale): the text is laid out at this scale, as
    # Blink lays a page out zoomed by it; Blink's baseline rule needs the factor.
    scale: float = 1.0
    # The layer's raster scale (lamina.compositor.raster_scale): the lengths above are
    # raster px, device px x ``zoom``. Chromium lays the text out at the device scale and
    # the raster scale only scales the recording, so the layout is made at ``scale`` with
    # the lengths divided by ``zoom`` and every position then multiplied by it; the
    # glyphs are drawn at ``size`` (device size x zoom) where those positions fall.
    zoom: float = 1.0

    @property
    def hinted(self) -> bool:
        """Glyphs hinted: Chromium on Linux hints at device scale 1 and not above
        (lamina.text.baseline.subpixel_positioning), by the device scale alone: a layer
        rastered larger for its transform (``zoom``) keeps the device's hinting."""
        return not subpixel_positioning(self.scale)


@dataclass(frozen=True, eq=False)
class LineBox:
    """One line: its baseline, where its text starts and how wide it is (what alignment
    used), and its glyphs: face index, glyph id, pen x and y offset from the baseline."""

    text: str
    baseline: float
    left: float
    width: float
    faces: np.ndarray  # int16: index into TextLayout.fonts
    glyphs: np.ndarray  # uint32 glyph ids
    x: np.ndarray  # float64 px from the content box's left edge
    y: np.ndarray  # float64 px below the baseline (mark offsets; 0 for most glyphs)


@dataclass(frozen=True, eq=False)
class TextLayout:
    """A laid-out text: its lines and the faces they use (``synthetic[i]`` says whether
    face i is emboldened and the shear of a synthesized slant, CSS font-synthesis)."""

    spec: TextSpec
    lines: tuple[LineBox, ...]
    fonts: tuple[Font, ...]
    synthetic: tuple[tuple[bool, float], ...]
    line_height: float
    ascent: float
    descent: float

    @property
    def height(self) -> float:
        return self.line_height * len(self.lines)

    @property
    def glyph_count(self) -> int:
        return sum(len(line.glyphs) for line in self.lines)


# -- white space ----------------------------------------------------------------------


def process_white_space(text: str, mode: str) -> list[str]:
    """The paragraphs (text between forced breaks) that ``white-space: mode`` leaves of
    ``text``. Collapsing modes give none for text that is only white space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if mode in ("pre", "pre-wrap"):
        return text.split("\n")
    if mode == "pre-line":
        out = []
        for para in text.split("\n"):
            out.append(_collapse(para.replace("\t", " ")).strip(" "))
        return out
    collapsed = _collapse(text.replace("\n", " ").replace("\t", " ")).lstrip(" ")
    return [collapsed] if collapsed.strip(" ") else []


def _collapse(text: str) -> str:
    out, prev_space = [], False
    for ch in text:
        if ch == " ":
            if not prev_space:
                out.append(ch)
            prev_space = True
        else:
            out.append(ch)
            prev_space = False
    return "".join(out)


# -- line breaking and alignment (pure: advances in, lines out) -----------------------


def break_lines(text: str, advances, available: float, wrap: bool) -> list[tuple[int, int]]:
    """Greedy line breaking of one paragraph: ``(start, end)`` character ranges. Breaks
    go after spaces (and zero-width spaces); a line holds every word whose end, measured
    from the line's start, is within ``available`` (trailing spaces hang). A word that
    does not fit on an empty line overflows it."""
    n = len(text)
    if not wrap or n == 0:
        return [(0, n)]
    prefix = np.concatenate(([0.0], np.cumsum(np.asarray(advances, dtype=np.float64))))
    lines = []
    start = i = 0
    while i < n:
        body_end = i
        while body_end < n and text[body_end] not in _BREAK_AFTER:
            body_end += 1
        after = body_end
        while after < n and text[after] in _BREAK_AFTER:
            after += 1
        if i > start and prefix[body_end] - prefix[start] > available + _FIT_EPSILON:
            lines.append((start, i))
            start = i
        i = after
    lines.append((start, n))
    return lines


def content_end(text: str, start: int, end: int, hang: bool) -> int:
    """Where a line's content ends: before its trailing spaces when they hang."""
    if not hang:
        return end
    while end > start and text[end - 1] in _BREAK_AFTER:
        end -= 1
    return end


def align_offset(align: str, available: float, width: float) -> float:
    """x of a line of ``width`` in a line box of ``available`` (ltr: start = left);
    a line that does not fit is start-aligned (CSS Text 3 §6.1)."""
    free = available - width
    if free <= 0.0 or align in ("start", "left", "justify"):
        return 0.0
    if align in ("end", "right"):
        return free
    return free / 2.0  # center


# -- shaping --------------------------------------------------------------------------


@dataclass
class _Shaped:
    faces: np.ndarray
    glyphs: np.ndarray
    pen: np.ndarray  # x of each glyph (offset applied), px from the paragraph's start
    y: np.ndarray
    clusters: np.ndarray
    advances: np.ndarray  # per character, letter-spacing included


def _sanitize(text: str) -> list[int]:
    # Lone surrogates are not Unicode scalar values: HarfBuzz must not see them.
    return [0xFFFD if 0xD800 <= (c := ord(ch)) <= 0xDFFF else c for ch in text]


def _runs(cps: list[int], chain: FontChain) -> list[tuple[int, int, int]]:
    """(start, end, face) runs: each character in the first face of the chain that has
    it; spaces and controls stay in the run they are in (a space must not split a run)."""
    runs: list[tuple[int, int, int]] = []
    current = 0
    start = 0
    for i, cp in enumerate(cps):
        face = current if cp <= 0x20 or cp in (0x200B, 0xA0) else chain.font_for(cp)
        if i == 0:
            current = face
        elif face != current:
            runs.append((start, i, current))
            start, current = i, face
    if cps:
        runs.append((start, len(cps), current))
    return runs


def _shape(text: str, chain: FontChain, size: float, spacing: float, tab_stops: bool, layer: str | None) -> _Shaped:
    cps = _sanitize(text)
    n = len(cps)
    faces, glyphs, pen, ys, clusters = [], [], [], [], []
    features = _NO_LIGATURES if spacing != 0.0 else {}
    x = 0.0
    advances = np.zeros(n, np.float64)
    for start, end, face_index in _runs(cps, chain):
        font = chain.fonts[face_index]
        buf = hb.Buffer()
        buf.add_codepoints(cps, start, end - start)
        buf.guess_segment_properties()
        if buf.direction == "rtl":
            raise UnsupportedFeatureError(
                "right-to-left text (Arabic, Hebrew...) is not supported yet: Lamina lays out left-to-right only",
                property="text", value=text[start:end][:40], layer=layer)
        buf.direction = "ltr"
        hb.shape(font.hb_font, buf, features)
        scale = size / font.upem
        infos, positions = buf.glyph_infos, buf.glyph_positions
        count = len(infos)
        for k in range(count):
            info, pos = infos[k], positions[k]
            cluster = info.cluster
            gid = info.codepoint
            advance = pos.x_advance * scale
            if cps[cluster] == 0x09:
                gid = font.space_glyph
            last_of_cluster = k + 1 == count or infos[k + 1].cluster != cluster
            faces.append(face_index)
            glyphs.append(gid)
            pen.append(x + pos.x_offset * scale)
            ys.append(-pos.y_offset * scale)
            clusters.append(cluster)
            if last_of_cluster:
                advance += spacing
            advances[cluster] += advance
            x += advance
    shaped = _Shaped(np.asarray(faces, np.int16), np.asarray(glyphs, np.uint32), np.asarray(pen, np.float64),
                     np.asarray(ys, np.float64), np.asarray(clusters, np.int64), advances)
    if tab_stops and "\t" in text:
        _tab_stops(text, shaped, chain.primary, size, spacing)
    return shaped


def _tab_stops(text: str, shaped: _Shaped, font: Font, size: float, spacing: float) -> None:
    """Widen each tab to the next tab stop (every TAB_SPACES spaces, measured from the
    paragraph's start), moving what follows it."""
    space = font.hb_font.get_glyph_h_advance(font.space_glyph) * size / font.upem + spacing
    interval = TAB_SPACES * space
    if interval <= 0:
        return
    x = 0.0
    for i, ch in enumerate(text):
        if ch == "\t":
            stop = (math.floor(x / interval + 1e-9) + 1) * interval
            grow = stop - x - shaped.advances[i]
            shaped.advances[i] += grow
            shaped.pen[shaped.clusters > i] += grow
        x += shaped.advances[i]


# -- the layout -----------------------------------------------------------------------


def _synthesis(font: Font, spec: TextSpec) -> tuple[bool, float]:
    bold = spec.weight >= _BOLD_SYNTHESIS_FROM and font.file.weight < _FC_DEMIBOLD
    slant = spec.style.slanted and font.file.slant == 0
    return bold, math.tan(math.radians(spec.style.angle)) if slant else 0.0


def lay_out(spec: TextSpec, layer: str | None = None) -> TextLayout:
    """The layout of ``spec`` (kept per process for the last few hundred specs, so a
    layer that moves by sub-pixel amounts or changes colour is not shaped again)."""
    hit = _LAYOUTS.get(spec)
    if hit is not None:
        _LAYOUTS.move_to_end(spec)
        return hit
    layout = _lay_out(spec, layer)
    _LAYOUTS[spec] = layout
    if len(_LAYOUTS) > _LAYOUT_CACHE_SIZE:
        _LAYOUTS.popitem(last=False)
    return layout


def clear_layout_cache() -> None:
    """Forget the kept layouts (benchmarks measure cold layout with this)."""
    _LAYOUTS.clear()


def _lay_out(spec: TextSpec, layer: str | None) -> TextLayout:
    if spec.zoom != 1.0:
        return _zoomed(lay_out(unzoomed(spec), layer), spec)
    chain = resolve_families(spec.families, spec.weight, spec.style, layer)
    # The rule takes CSS px and the device scale, and answers in device px (line_height,
    # ascent, descent) or CSS px (baseline()): this layout is in device px.
    scale = spec.scale
    css_line_height = (replace(spec.line_height, value=spec.line_height.value / scale)
                       if spec.line_height.kind == "px" else spec.line_height)
    metrics = line_metrics(chain.primary, spec.size / scale, css_line_height, scale=scale)
    wrap = spec.white_space in WRAPPING
    hang = spec.white_space != "pre"
    available = max(spec.width, 0.0)
    lines: list[LineBox] = []
    for para in process_white_space(spec.text, spec.white_space):
        shaped = _shape(para, chain, spec.size, spec.letter_spacing, spec.white_space in ("pre", "pre-wrap"), layer)
        prefix = np.concatenate(([0.0], np.cumsum(shaped.advances)))
        ranges = break_lines(para, shaped.advances, available, wrap)
        for number, (start, end) in enumerate(ranges):
            last = number == len(ranges) - 1
            stop = content_end(para, start, end, hang)
            width = float(prefix[stop] - prefix[start])
            left = align_offset(spec.align, available, width)
            lo, hi = np.searchsorted(shaped.clusters, [start, stop])
            x = shaped.pen[lo:hi] - prefix[start] + left
            if spec.align == "justify" and not last and width < available:
                x = x + _justify(para, start, stop, shaped.clusters[lo:hi], available - width)
            baseline = metrics.baseline(len(lines)) * scale
            lines.append(LineBox(para[start:stop], baseline, left, width, shaped.faces[lo:hi],
                                 shaped.glyphs[lo:hi], x, shaped.y[lo:hi]))
    fonts = tuple(chain.fonts)
    return TextLayout(spec, tuple(lines), fonts, tuple(_synthesis(f, spec) for f in fonts),
                      metrics.line_height, metrics.ascent, metrics.descent)


def unzoomed(spec: TextSpec) -> TextSpec:
    """``spec`` at raster scale 1: its lengths in device px (the layout Chromium makes)."""
    z = spec.zoom
    line_height = (replace(spec.line_height, value=spec.line_height.value / z)
                   if spec.line_height.kind == "px" else spec.line_height)
    return replace(spec, size=spec.size / z, letter_spacing=spec.letter_spacing / z, width=spec.width / z,
                   line_height=line_height, zoom=1.0)


def _zoomed(base: TextLayout, spec: TextSpec) -> TextLayout:
    """The device-scale layout ``base`` drawn at ``spec.zoom``: every position and length
    multiplied, as cc rasters a recording at a larger contents scale (line breaks,
    baselines and pen positions are the device-scale layout's)."""
    z = spec.zoom
    lines = tuple(LineBox(line.text, line.baseline * z, line.left * z, line.width * z, line.faces, line.glyphs,
                          line.x * z, line.y * z) for line in base.lines)
    return TextLayout(spec, lines, base.fonts, base.synthetic, base.line_height * z, base.ascent * z,
                      base.descent * z)


def _justify(text: str, start: int, stop: int, clusters: np.ndarray, extra: float) -> np.ndarray:
    """How far each glyph moves when ``extra`` px are shared by the line's spaces."""
    is_space = np.fromiter((ch == " " for ch in text[start:stop]), bool, stop - start)
    count = int(is_space.sum())
    if count == 0:
        return np.zeros(len(clusters))
    before = np.concatenate(([0], np.cumsum(is_space)))  # spaces before each character
    return before[clusters - start] * (extra / count)
