"""Limits, known without touching the GPU: the GPU's (``Limits``), the shader-side array
sizes the planner checks, and what input may ask for (scene files, images, layer
trees), each refused with a typed error before it can bite (a decompression bomb, a
million layers, a scene file of gigabytes)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "MAX_CLIPS_PER_DRAW", "MAX_GRADIENT_STOPS", "MAX_COLOR_STEPS", "MAX_TEXT_SHADOWS", "MAX_TEXT_LENGTH",
           "MAX_POLYGON_POINTS", "MAX_MASKS_PER_DRAW", "MAX_LAYERS", "MAX_ANIMATIONS_PER_LAYER", "MAX_IMAGE_PIXELS",
           "MAX_DATA_URL_BYTES", "MAX_SCENE_FILE_BYTES"]

# Shader-side array sizes; the planner checks them so nothing is silently truncated.
MAX_CLIPS_PER_DRAW = 8
MAX_GRADIENT_STOPS = 32
MAX_COLOR_STEPS = 16  # colour filter ops fused in one pass (one shader variant per count)
MAX_BOX_SHADOWS = 8  # box-shadow list length one raster pass draws (shaders/common/box_shadow.glsl)
MAX_POLYGON_POINTS = 128  # clip-path: polygon() vertices (a uniform array of the mask raster shader)
MAX_MASKS_PER_DRAW = 2  # a mask-image and a polygon clip-path's coverage, multiplied into one draw
MAX_TEXT_SHADOWS = 8  # text-shadow entries per layer: each is one blurred mask and one draw
MAX_TEXT_LENGTH = 1_000_000  # characters of one layer's text (layout is linear, but not free)

# What input may ask for (the tree's depth is lamina.layer.MAX_TREE_DEPTH, 256).
MAX_LAYERS = 100_000  # layers in one scene: planning is linear in them, ~0.1 ms each at first
MAX_ANIMATIONS_PER_LAYER = 64  # each is sampled every frame
MAX_IMAGE_PIXELS = 64 * 2**20  # an image's width x height (256 MB as RGBA8): checked before decoding
MAX_DATA_URL_BYTES = 32 * 2**20  # one data: URL, as written
MAX_SCENE_FILE_BYTES = 64 * 2**20  # one scene file, checked before it is read


@dataclass(frozen=True)
class Limits:
    """``max_texture_size`` is GL_MAX_TEXTURE_SIZE; 16384 is llvmpipe's (and common)."""

    max_texture_size: int = 16384
    source: str = "default (no GPU context yet)"
