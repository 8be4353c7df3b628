"""Glyphs to coverage, on the CPU: FreeType renders each glyph as an 8-bit greyscale
anti-aliased bitmap, a per-process cache keeps the bitmaps, and a layout's glyphs are
composited into one coverage mask of a region of the layer's raster.

* Baselines snap to whole pixels and glyphs are placed at quarter-pixel horizontal
  phases (Skia's 4 subpixel positions), with FreeType's light hinting (vertical only,
  as Chrome's "slight" hinting), so advances stay HarfBuzz's unhinted ones. Above device
  scale 1 glyphs are not hinted at all, as Chromium on Linux renders them there
  (gfx::GetFontRenderParams turns subpixel positioning on and hinting off above 1:
  lamina.text.baseline.subpixel_positioning); hinted, their x-heights and stems snapped to
  other device rows than Chromium's.
* Overlapping glyphs combine as source-over of their coverages (1 - (1-a)(1-b)), what
  drawing each glyph in turn gives: the mask is the product of the glyphs'
  transmittances (1 - a), summed as logarithms for all glyphs at once.
* Synthesized bold emboldens the outline by 1/24 of the size (FreeType's
  FT_GlyphSlot_Embolden); a synthesized slant shears it (lamina.text.layout decides).
* Shadow masks are the coverage blurred with Pillow's Gaussian (three extended box
  passes, a close approximation) of sigma = blur radius / 2, CSS's definition.
"""

from __future__ import annotations

import ctypes
import math
from collections import OrderedDict
from dataclasses import dataclass

import freetype
import numpy as np
from PIL import Image, ImageFilter

from .layout import TextLayout

__all__ = ["coverage", "blurred", "SUBPIXEL_STEPS", "GlyphBitmap", "glyph_bitmap", "clear_glyph_cache"]

SUBPIXEL_STEPS = 4
_GLYPH_CACHE_BYTES = 64 * 2**20  # bitmaps kept per process, least recently used dropped first
_GLYPHS: OrderedDict = OrderedDict()
_glyph_bytes = 0
_EMPTY = np.zeros((0, 0), np.uint8)
_LOAD_FLAGS = freetype.FT_LOAD_NO_BITMAP | freetype.FT_LOAD_TARGET_LIGHT
_UNHINTED_FLAGS = freetype.FT_LOAD_NO_BITMAP | freetype.FT_LOAD_NO_HINTING


def clear_glyph_cache() -> None:
    """Forget the kept glyph bitmaps (benchmarks measure cold rasterization with this)."""
    global _glyph_bytes
    _GLYPHS.clear()
    _glyph_bytes = 0


@dataclass(frozen=True, eq=False)
class GlyphBitmap:
    """One rendered glyph: ``rows`` its 8-bit coverage, ``left`` / ``top`` where it sits
    from the pen and above the baseline (FreeType's bitmap_left / bitmap_top); and its
    inked pixels as (dy, dx, log transmittance) arrays, what masks are summed from."""

    rows: np.ndarray
    left: int
    top: int
    dy: np.ndarray
    dx: np.ndarray
    log_clear: np.ndarray

    @property
    def bytes(self) -> int:
        return self.rows.nbytes + self.dy.nbytes + self.dx.nbytes + self.log_clear.nbytes


def glyph_bitmap(font, size: float, gid: int, phase: int, bold: bool, shear: float,
                 hinted: bool = True) -> GlyphBitmap:
    """The glyph ``gid`` of ``font`` at ``size`` px, its pen ``phase`` / SUBPIXEL_STEPS px
    right of a whole pixel, emboldened and sheared as asked, lightly hinted or not at all
    (kept per process)."""
    global _glyph_bytes
    key = (font.file.key, size, gid, phase, bold, shear, hinted)
    hit = _GLYPHS.get(key)
    if hit is not None:
        _GLYPHS.move_to_end(key)
        return hit
    face = font.ft_face
    face.set_char_size(max(int(round(size * 64)), 1))
    face.set_transform(freetype.Matrix(65536, int(round(shear * 65536)), 0, 65536),
                       freetype.Vector(phase * 64 // SUBPIXEL_STEPS, 0))
    face.load_glyph(gid, _LOAD_FLAGS if hinted else _UNHINTED_FLAGS)
    slot = face.glyph
    if bold:
        strength = int(round(size * 64 / 24))
        freetype.raw.FT_Outline_Embolden(ctypes.byref(slot._FT_GlyphSlot.contents.outline), strength)
    slot.render(freetype.FT_RENDER_MODE_NORMAL)
    bitmap = slot.bitmap
    if bitmap.rows and bitmap.width:
        raw = np.ctypeslib.as_array(bitmap._FT_Bitmap.buffer, shape=(bitmap.rows * abs(bitmap.pitch),))
        rows = raw.reshape(bitmap.rows, abs(bitmap.pitch))[:, : bitmap.width].copy()
        if bitmap.pitch < 0:
            rows = rows[::-1].copy()
    else:
        rows = _EMPTY
    dy, dx = np.nonzero(rows)
    with np.errstate(divide="ignore"):  # full coverage: log 0 = -inf, transmittance 0
        log_clear = np.log1p(rows[dy, dx].astype(np.float32) / np.float32(-255.0))
    out = GlyphBitmap(rows, slot.bitmap_left, slot.bitmap_top, dy.astype(np.int32), dx.astype(np.int32), log_clear)
    _GLYPHS[key] = out
    _glyph_bytes += out.bytes
    while _glyph_bytes > _GLYPH_CACHE_BYTES and len(_GLYPHS) > 1:
        _glyph_bytes -= _GLYPHS.popitem(last=False)[1].bytes
    return out


def coverage(layout: TextLayout, origin: tuple[float, float], shape: tuple[int, int]) -> np.ndarray:
    """The layout's coverage in an (h, w) uint8 mask in which the content box's top-left
    lies at ``origin`` (mask px). Glyphs outside the mask are cut off.

    Every glyph's inked pixels are gathered into one list of (pixel, log transmittance)
    and summed per pixel with one ``bincount``: coverage = 1 - exp(sum), the source-over
    of all the glyphs, without a numpy call per glyph."""
    h, w = shape
    size = layout.spec.size
    if size <= 0 or h <= 0 or w <= 0:
        return np.zeros((max(h, 0), max(w, 0)), np.uint8)
    ox, oy = origin
    reach = 2.0 * size + 4.0  # no glyph reaches further than this above or below its baseline
    synthetic = layout.synthetic
    fonts = layout.fonts
    hinted = layout.spec.hinted
    glyphs: list[GlyphBitmap] = []
    x0s: list[int] = []
    y0s: list[int] = []
    for line in layout.lines:
        baseline = math.floor(line.baseline + oy + 0.5)
        if baseline + reach < 0 or baseline - reach > h or len(line.glyphs) == 0:
            continue
        xs = line.x + ox
        whole = np.floor(xs)
        phases = np.rint((xs - whole) * SUBPIXEL_STEPS).astype(np.int64)
        carry = phases == SUBPIXEL_STEPS
        whole = (whole.astype(np.int64) + carry).tolist()
        phases[carry] = 0
        phases = phases.tolist()
        ys = (baseline + np.rint(line.y).astype(np.int64)).tolist()
        faces, ids = line.faces.tolist(), line.glyphs.tolist()
        for k in range(len(ids)):
            bold, shear = synthetic[faces[k]]
            g = glyph_bitmap(fonts[faces[k]], size, ids[k], phases[k], bold, shear, hinted)
            x0, y0 = whole[k] + g.left, ys[k] - g.top
            if g.log_clear.size and x0 < w and y0 < h and x0 + g.rows.shape[1] > 0 and y0 + g.rows.shape[0] > 0:
                glyphs.append(g)
                x0s.append(x0)
                y0s.append(y0)
    if not glyphs:
        return np.zeros((h, w), np.uint8)
    counts = np.fromiter((g.log_clear.size for g in glyphs), np.int64, len(glyphs))
    px = np.concatenate([g.dx for g in glyphs]) + np.repeat(np.asarray(x0s, np.int64), counts)
    py = np.concatenate([g.dy for g in glyphs]) + np.repeat(np.asarray(y0s, np.int64), counts)
    logs = np.concatenate([g.log_clear for g in glyphs]).astype(np.float64)
    inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
    if not inside.all():
        px, py, logs = px[inside], py[inside], logs[inside]
    total = np.bincount(py * w + px, weights=logs, minlength=h * w)
    return np.rint(-np.expm1(total) * 255.0).astype(np.uint8).reshape(h, w)


def blurred(mask: np.ndarray, sigma: float) -> np.ndarray:
    """``mask`` blurred by a Gaussian of standard deviation ``sigma`` px (0: unchanged)."""
    if sigma <= 0.0 or mask.size == 0:
        return mask
    image = Image.fromarray(mask).filter(ImageFilter.GaussianBlur(radius=sigma))
    return np.asarray(image, dtype=np.uint8)
