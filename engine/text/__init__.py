"""Text: fonts found through fontconfig, shaped with HarfBuzz and laid out in a layer's
box (``layout``), glyphs rasterized on the CPU with FreeType into a greyscale coverage
mask (``raster``), and the TextPaint a layer's paint carries (``paint``). The GPU side,
which draws the masks into the layer's raster, is lamina.gpu.text."""

from .fonts import FontChain, resolve_families
from .layout import TextLayout, TextSpec, clear_layout_cache, lay_out
from .paint import TextPaint, text_paint
from .raster import clear_glyph_cache

__all__ = ["FontChain", "resolve_families", "TextLayout", "TextSpec", "lay_out", "TextPaint", "text_paint",
           "clear_caches"]


def clear_caches() -> None:
    """Forget kept layouts and glyph bitmaps (fonts found stay found): the next text
    is shaped and rasterized from scratch, as in a fresh process."""
    clear_layout_cache()
    clear_glyph_cache()
