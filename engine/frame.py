"""Frame: the result of rendering a scene — pixels, the frame graph that made them,
and what it cost (pixels out included: read-back, un-premultiply, PNG encode).

A frame owns its statistics (``stats``, an ExecutionStats): the executor measures the
execution and hands the record over, the renderer tells the frame how long planning
took, and the frame records all later work on its pixels itself."""

from __future__ import annotations

import io
import re
import time
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from .gpu.pixels import strips
from .gpu.executor import ExecutionStats
from .gpu.readback import ENCODE_WORK, READBACK_WORK, UNPREMULTIPLY_WORK, FramePixels
from .overlays import Overlay, overlay
from .errors import LaminaInputError
from .output_files import check_output
from .png import check_format, encode_png, write_png
from .trace import build_trace, write_trace

__all__ = ["Frame"]


class Frame:
    """``image`` is (H, W, 4) uint8 straight RGBA, top row first; ``premultiplied`` is the
    same frame as the GPU holds it. ``graph`` is the FrameGraph that was executed.
    ``pixels`` is where they come from (lamina.gpu.readback.FramePixels); ``stats``, the
    execution's record, is the frame's from now on, with ``plan_ms`` (the planning time
    measured by the renderer) added."""

    def __init__(self, pixels: FramePixels, graph, stats: ExecutionStats, info, plan_ms: float = 0.0,
                 textures: dict[str, np.ndarray] | None = None) -> None:
        self._image: np.ndarray | None = None
        self._textures = dict(textures or {})
        self._pixels = pixels
        self.graph = graph
        self.stats = stats
        stats.plan_ms = plan_ms
        self.info = info

    @property
    def premultiplied(self) -> np.ndarray:
        """(H, W, 4) uint8 premultiplied RGBA, as the passes left it (a large frame is
        read back on first use; a frame drawn into a kept frame texture is put together
        on first use from the pixels read for earlier frames and its damage rects)."""
        if self._pixels.read_back:
            return self._pixels.premultiplied()
        started = time.perf_counter()
        pixels = self._pixels.premultiplied()
        self.stats.record(READBACK_WORK, started)  # a late read-back: a span in frame.trace()
        self.stats.read_back_px = self._pixels.read_px
        return pixels

    @property
    def image(self) -> np.ndarray:
        """(H, W, 4) uint8 straight RGBA, un-premultiplied on the GPU on first use (an
        app that only shows frames on the GPU never pays for it)."""
        if self._image is None:
            started = time.perf_counter()
            self._image = self._pixels.straight()
            self.stats.record(UNPREMULTIPLY_WORK, started)  # a span in frame.trace()
            self.stats.unpremultiplied_px = self._pixels.unpremultiplied_px
        return self._image

    @property
    def textures(self) -> dict[str, np.ndarray]:
        """What each texture the frame was composited from holds, as DevTools' Layers
        panel shows it: label (the texture, what it is and whose: "layer:card#1 (layer
        content of card)") -> (H, W, 4) uint8 straight RGBA, top row first, as ``image``.
        Layers' rasters, backings, tiles and render surfaces (a filter's input, an
        opacity group...), in the order the frame graph first names them, read back by
        its capture passes; empty unless rendered with ``capture_textures=True``."""
        return dict(self._textures)

    def save_textures(self, folder: str | Path) -> list[Path]:
        """Write each of ``textures`` into ``folder`` (which must exist) as a PNG named
        by its place and label ("01-layer_card_1_layer_content_of_card.png"); each file
        appears whole or not at all (lamina.output_files). Returns the paths."""
        folder = Path(folder)
        if not folder.is_dir():
            raise LaminaInputError(f"cannot write textures into {folder}: "
                                   + ("it is not a folder" if folder.exists() else "folder does not exist"))
        paths = []
        for i, (label, pixels) in enumerate(self._textures.items(), 1):
            path = folder / f"{i:02d}-{_file_stem(label)}.png"
            h, w = pixels.shape[:2]
            paths.append(write_png(path, w, h, (pixels[y0:y1] for y0, y1 in strips(w, h))))
        return paths

    @property
    def width(self) -> int:
        return self._pixels.width

    @property
    def height(self) -> int:
        return self._pixels.height

    def overlay(self, kind: "Overlay | str") -> np.ndarray:
        """The image with a debug overlay: "borders", "paint", "overdraw" or "surfaces"
        (see lamina.overlays)."""
        return overlay(self, kind)

    def to_pil(self):
        return Image.fromarray(self.image, "RGBA")

    def _repr_png_(self) -> bytes:
        """PNG bytes, so Jupyter shows a frame inline."""
        buffer = io.BytesIO()
        encode_png(buffer, self.width, self.height, self._image_strips())
        return buffer.getvalue()

    def save(self, path: str | Path) -> Path:
        """Write the frame as a PNG (straight RGBA, lamina.png). A large frame whose
        ``image`` was not asked for goes from the GPU to the file a strip at a time,
        so the host never holds a second whole copy of it."""
        check_format(Path(path))
        check_output(path)  # before the pixels are read back: a bad path costs nothing
        path = Path(path)
        if self._image is not None or not self._pixels.large:
            strips_of_image = self._image_strips()  # un-premultiplies first, if not yet: its own span
            started = time.perf_counter()
            write_png(path, self.width, self.height, strips_of_image)
            self.stats.record(ENCODE_WORK, started)
            return path
        started = time.perf_counter()
        converting = _Timed(self._pixels.straight_strips())
        write_png(path, self.width, self.height, converting)
        total_ms = (time.perf_counter() - started) * 1000
        # Strips are un-premultiplied and encoded by turns: the stats (and the trace)
        # give each kind of work its sum, one after the other.
        self.stats.record(UNPREMULTIPLY_WORK, started, converting.ms)
        self.stats.record(ENCODE_WORK, started + converting.ms / 1000, total_ms - converting.ms)
        self.stats.unpremultiplied_px = self._pixels.unpremultiplied_px
        return path

    def _image_strips(self):
        image = self.image
        return (image[y0:y1] for y0, y1 in strips(self.width, self.height))

    @cached_property
    def _graph_data(self) -> dict[str, Any]:
        return self.graph.to_dict()  # made once: a frame's graph does not change

    @property
    def report(self) -> dict[str, Any]:
        """The frame graph, decisions, timings and renderer as JSON-ready data; the
        stats hold the work on the pixels done so far (after ``save``, the encode)."""
        return {
            "renderer": self.info.fingerprint,
            "graph": self._graph_data,
            "stats": self.stats.to_dict(),
        }

    def trace(self, path: str | Path | None = None) -> dict[str, Any]:
        """This frame's work as Chrome Trace Event JSON (open it in Perfetto or
        chrome://tracing): planning, every pass at its measured time, the read-back, and
        the un-premultiply and PNG encode done so far (call it after ``save`` to see
        those). Returns the trace; with ``path``, also writes it there. One frame: an
        animation rendered frame by frame gives one trace per frame (lamina.trace)."""
        trace = build_trace(self.graph, self.stats, renderer=self.info.fingerprint)
        if path is not None:
            write_trace(trace, path)
        return trace

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
            + _pixels_out(s) +
            f"\nTotals: {totals['layers_rastered']} layers rastered "
            f"({totals['pixels_rastered']} px), {totals['filter_passes']} filter passes"
            + (f" ({totals['opencl_filter_passes']} on OpenCL, {totals['transfers']} transfers of "
               f"{totals['transfer_bytes'] / 1024:.0f} KB)" if totals["transfers"] else "")
            + f", {totals['composite_draws']} composite draws"
            f"\nTextures: {s.textures_allocated} allocated, {s.textures_reused} reused from the pool; "
            f"shader programs compiled this frame: {s.compiles}"
            f"\nRenderer: {self.info.renderer} / {self.info.version}"
        )
        for c in s.runtime_choices:  # (graph.offload: the executor's dmda rule, at run time)
            where = "moved to GL" if c.moved else "stayed on OpenCL"
            text += f"\nRun time: {c.offload} {where}: {c.why()}"
        return text

    def __repr__(self) -> str:
        return f"Frame({self.width}x{self.height}, passes={len(self.graph.passes)})"


def _pixels_out(s) -> str:
    """The explanation's account of the work after the execution, and the whole."""
    kinds: dict[str, float] = {}
    for what, _, ms in s.after:
        kinds[what] = kinds.get(what, 0.0) + ms
    done = ", ".join(f"{what} {ms:.2f} ms" for what, ms in kinds.items()) or "none yet"
    return (f"\nPixels out after the execution (GPU un-premultiply, PNG encode): {done}"
            f"\nPixels worked on: composited {s.composited_px}, read back {s.read_back_px}, "
            f"un-premultiplied {s.unpremultiplied_px} (so far)"
            f"\nFrame total {s.frame_ms:.2f} ms: planning {s.plan_ms:.2f} ms + execution {s.total_ms:.2f} ms "
            f"+ pixels out {s.after_ms():.2f} ms")


def _file_stem(label: str) -> str:
    """A texture's label as a file name: letters, digits, '.', '-' and '_' only."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", label).strip("_.") or "texture"


class _Timed:
    """Iterates ``items``, summing the time spent producing them (``ms``)."""

    def __init__(self, items) -> None:
        self._items = iter(items)
        self.ms = 0.0

    def __iter__(self) -> "_Timed":
        return self

    def __next__(self):
        started = time.perf_counter()
        try:
            return next(self._items)
        finally:
            self.ms += (time.perf_counter() - started) * 1000
