"""Limits, known without touching the GPU: the GPU's (``Limits``), the shader-side array
sizes the planner checks, and what input may ask for (scene files, images, layer
trees), each refused with a typed error before it can bite (a decompression bomb, a
million layers, a scene file of gigabytes)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "MAX_CLIPS_PER_DRAW", "MAX_SPLIT_PLANES", "MAX_GRADIENT_STOPS", "MAX_COLOR_STEPS", "MAX_TEXT_SHADOWS", "MAX_TEXT_LENGTH",
           "MAX_POLYGON_POINTS", "MAX_MASKS_PER_DRAW", "MAX_LAYERS", "MAX_ANIMATIONS_PER_LAYER", "MAX_IMAGE_PIXELS",
           "MAX_DATA_URL_BYTES", "MAX_SCENE_FILE_BYTES", "MAX_IMAGE_FILE_BYTES", "MAX_CSS_NESTING", "MAX_STYLE_LENGTH",
           "URL_COUNTED_CHARS", "MAX_TIME", "MIN_DURATION", "MAX_ITERATIONS", "MAX_STEPS", "MAX_BEZIER_Y",
           "MAX_FONT_SIZE", "MAX_TEXT_SPACING", "MAX_LINE_HEIGHT_FACTOR", "MAX_FONT_FAMILIES", "MAX_FAMILY_NAME_LENGTH",
           "MAX_FILTER_FUNCTIONS", "MAX_FILTER_GROWTH"]

# Shader-side array sizes; the planner checks them so nothing is silently truncated.
MAX_CLIPS_PER_DRAW = 8
MAX_SPLIT_PLANES = 8  # half-planes a split piece of a 3D-context layer is cut by (shaders/composite/quad.frag)
MAX_GRADIENT_STOPS = 32
MAX_COLOR_STEPS = 16  # colour filter ops fused in one pass (one shader variant per count)
MAX_BOX_SHADOWS = 8  # box-shadow list length one raster pass draws (shaders/common/box_shadow.glsl)
MAX_POLYGON_POINTS = 128  # clip-path: polygon() vertices (a uniform array of the mask raster shader)
MAX_MASKS_PER_DRAW = 2  # a mask-image and a polygon clip-path's coverage, multiplied into one draw
MAX_TEXT_SHADOWS = 8  # text-shadow entries per layer: each is one blurred mask and one draw
# Characters of one layer's text. Each shapes to a few glyphs at most, and HarfBuzz
# refuses paragraphs of some 600k characters (a MemoryError), so the bound is well under.
MAX_TEXT_LENGTH = 100_000

# What input may ask for (the tree's depth is lamina.layer.MAX_TREE_DEPTH, 256).
MAX_LAYERS = 100_000  # layers in one scene: planning is linear in them, ~0.1 ms each at first
MAX_ANIMATIONS_PER_LAYER = 64  # each is sampled every frame
MAX_IMAGE_PIXELS = 64 * 2**20  # an image's width x height (256 MB as RGBA8): checked before decoding
MAX_DATA_URL_BYTES = 32 * 2**20  # one data: URL, as written
MAX_SCENE_FILE_BYTES = 64 * 2**20  # one scene file: at most this much is ever read (a pipe or device too)
MAX_IMAGE_FILE_BYTES = 256 * 2**20  # one image file, read with the same cap

# CSS text, checked before tinycss2 sees it (lamina.css.bounds). tinycss2 nests a Python
# call per (, [, { or function, so a few hundred levels were a RecursionError; real CSS
# nests a handful (a calc() in a colour in a gradient).
MAX_CSS_NESTING = 32
# Characters of one style text (a block or one value); it parses at ~0.1 ms a declaration
# and 10 MB took 30 s. A url() counts its first URL_COUNTED_CHARS only: a data: URL is
# bounded by MAX_DATA_URL_BYTES instead.
MAX_STYLE_LENGTH = 64 * 1024
URL_COUNTED_CHARS = 1024

# Numeric ranges per kind of value, where a huge value would overflow (floor() of an
# infinite iteration count, FreeType's 26.6 sizes, a shadow's offset in int pixels).
MAX_TIME = 1e7  # seconds (about 116 days): durations, delays, render times
MIN_DURATION = 1e-6  # seconds: a non-zero duration under it puts t / duration past a float
MAX_ITERATIONS = 1e9  # an animation's iteration count ('infinite' aside)
MAX_STEPS = 10_000  # steps(n) of an easing
MAX_BEZIER_Y = 1000.0  # |y| of cubic-bezier() control points (x is within [0, 1])
MAX_FONT_SIZE = 10_000.0  # px, specified and computed (Blink clamps at the same size)
MAX_TEXT_SPACING = 100_000.0  # px: |letter-spacing|, line-height, text-shadow offsets and blur
MAX_LINE_HEIGHT_FACTOR = 1000.0  # a unitless line-height (times the font size)
MAX_FONT_FAMILIES = 64  # names in one font-family list: each unknown one is an fc-match run
MAX_FAMILY_NAME_LENGTH = 256  # characters of one family name (fc-match gets it as an argument)

# Filter chains: each blur grows the surface the next one reads, so cost grows with the
# cube of the chain; a few hundred blurs gave no answer in minutes.
MAX_FILTER_FUNCTIONS = 64  # functions in one filter or backdrop-filter value (colour ones fuse; blurs are capped below)
MAX_FILTER_GROWTH = 1024  # px: the sum over a chain of each op's kernel reach at scale 1 (3 sigma of a blur)


@dataclass(frozen=True)
class Limits:
    """``max_texture_size`` is GL_MAX_TEXTURE_SIZE; 16384 is llvmpipe's (and common)."""

    max_texture_size: int = 16384
    source: str = "default (no GPU context yet)"
