"""Frame: the result of rendering a scene — pixels, the frame graph that made them,
and what it cost."""

from __future__ import annotations

import io
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from .images import unpremultiply
from .overlays import overlay

__all__ = ["Frame"]


class Frame:
    """``image`` is (H, W, 4) uint8 straight RGBA, top row first; ``premultiplied`` is the
    same frame as the GPU holds it. ``graph`` is the FrameGraph that was executed."""

    def __init__(self, premultiplied: np.ndarray, graph, stats, info) -> None:
        self._image: np.ndarray | None = None
        self.premultiplied = premultiplied
        self.graph = graph
        self.stats = stats
        self.info = info

    @property
    def image(self) -> np.ndarray:
        """(H, W, 4) uint8 straight RGBA (un-premultiplied on first use: an app that
        only shows frames on the GPU never pays for it)."""
        if self._image is None:
            self._image = unpremultiply(self.premultiplied)
        return self._image

    @property
    def width(self) -> int:
        return int(self.premultiplied.shape[1])

    @property
    def height(self) -> int:
        return int(self.premultiplied.shape[0])

    def overlay(self, kind: str) -> np.ndarray:
        """The image with a debug overlay: "borders", "paint", "overdraw" or "surfaces"
        (see lamina.overlays)."""
        return overlay(self, kind)

    def to_pil(self):
        return Image.fromarray(self.image, "RGBA")

    def _repr_png_(self) -> bytes:
        """PNG bytes, so Jupyter shows a frame inline."""
        buffer = io.BytesIO()
        self.to_pil().save(buffer, format="PNG")
        return buffer.getvalue()

    def save(self, path: str | Path) -> Path:
        """Write the frame as a PNG (straight RGBA)."""
        path = Path(path)
        self.to_pil().save(path, format="PNG")
        return path

    @cached_property
    def report(self) -> dict[str, Any]:
        """The frame graph, decisions, timings and renderer as JSON-ready data (made once:
        a frame does not change)."""
        return {
            "renderer": self.info.fingerprint,
            "graph": self.graph.to_dict(),
            "stats": self.stats.to_dict(),
        }

    def explain(self) -> str:
        """The frame graph in plain words, with measured pass times."""
        s = self.stats
        totals = self.graph.totals()
        text = self.graph.describe(timings=s.pass_ms)
        text += (
            f"\nTimes (CPU clock around glFinish; GL timer queries miss llvmpipe's work): "
            f"raster {s.raster_ms:.2f} ms, filters {s.filter_ms:.2f} ms, composite {s.composite_ms:.2f} ms, "
            + (f"GL<->OpenCL transfers {s.transfer_ms:.2f} ms, " if totals["transfers"] else "")
            + f"readback {s.readback_ms:.2f} ms, total {s.total_ms:.2f} ms"
            f"\nTotals: {totals['layers_rastered']} layers rastered "
            f"({totals['pixels_rastered']} px), {totals['filter_passes']} filter passes"
            + (f" ({totals['opencl_filter_passes']} on OpenCL, {totals['transfers']} transfers of "
               f"{totals['transfer_bytes'] / 1024:.0f} KB)" if totals["transfers"] else "")
            + f", {totals['composite_draws']} composite draws"
            f"\nTextures: {s.textures_allocated} allocated, {s.textures_reused} reused from the pool; "
            f"shader programs compiled this frame: {s.compiles}"
            f"\nRenderer: {self.info.renderer} / {self.info.version}"
        )
        return text

    def __repr__(self) -> str:
        return f"Frame({self.width}x{self.height}, passes={len(self.graph.passes)})"
