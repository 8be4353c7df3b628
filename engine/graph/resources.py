"""The resources a frame graph carries: the decoded image of every raster pass that
samples one, so the graph runs with nothing beside it (FrameGraph.images).

Images are decoded once, while planning (the planner needs their size for layout and
their key for its caches); the graph then holds those pixels, referenced from its
passes by ImagePaint.key, and the executor uploads them from there (and keeps the
upload by key, so an image unchanged between frames goes up once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..compositor.paint_data import ImagePaint, LayerPaint
from ..framegraph import FrameGraph, RasterPass
from ..images import ImageResource, ImageStore

__all__ = ["graph_images"]


def graph_images(graph: FrameGraph, images: ImageStore, base_dir: Path | None) -> dict[Any, ImageResource]:
    """The decoded image of every raster pass of ``graph`` that samples one, by key, from
    the lookups ``images`` made while the frame was planned (``base_dir`` is the
    scene's, for a pass carried over from an earlier frame without a lookup now)."""
    out: dict[Any, ImageResource] = {}
    for p in graph.passes:
        image = p.paint.image if isinstance(p, RasterPass) and isinstance(p.paint, LayerPaint) else None
        if not isinstance(image, ImagePaint) or image.key in out:
            continue
        resource = images.resource(image.key)
        if resource is None:
            key, _ = images.get(image.ref, base_dir, p.layer_id)
            resource = images.resource(key)
            if key != image.key:
                raise AssertionError(f"{p.name}: planned with an image that has changed since ({image.key} -> {key})")
        out[image.key] = resource
    return out
