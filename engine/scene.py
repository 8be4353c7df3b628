"""Scene: the viewport, its background and the root of the layer tree.

``scene.render()`` runs the whole pipeline (compositor decisions -> frame graph ->
GPU execution) and returns a ``Frame``.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any

from .graph import build_frame_graph
from .errors import GeometryError, LayerTreeError
from .frame import Frame
from .framegraph import FrameGraph
from .images import ImageStore
from .layer import Layer
from .renderer import Renderer, current_limits, default_renderer
from .request import FrameRequest
from .scene_writer import scene_to_dict

__all__ = ["Scene", "MAX_VIEWPORT"]

MAX_VIEWPORT = 16384  # the frame must fit in one texture; the GPU limit is checked too


class Scene:
    """A viewport of ``width`` x ``height`` CSS px whose root layer paints ``background``.

    ``base_dir`` is where relative ``url()`` image paths are looked up (a scene file's
    folder when loaded from one, else the current directory).
    """

    def __init__(
        self,
        width: int,
        height: int,
        background: str = "white",
        *,
        base_dir: str | Path | None = None,
    ) -> None:
        for name, v in (("width", width), ("height", height)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise GeometryError(f"scene {name} must be a number, got {v!r}")
            if not (isinstance(v, numbers.Integral) or math.isfinite(v)) or v != int(v) or not 1 <= v <= MAX_VIEWPORT:
                raise GeometryError(f"scene {name} must be a whole number from 1 to {MAX_VIEWPORT}, got {v!r}")
        self.width = int(width)
        self.height = int(height)
        self.base_dir = Path(base_dir) if base_dir is not None else None
        self.version = 0
        self.description = ""  # what the scene shows (scene files' "description")
        self.filter_backend = "gl"  # where filter passes run: "gl", "opencl", "auto"
        # How golden tests render and compare it: {"t", "policy", "max_diff", ...}
        self.golden: dict = {}
        self._ids: dict[str, Layer] = {}
        # What changed, for renderers that keep resolved state between frames (property
        # trees): (scene version, layer) per change, None for a change of the tree's
        # shape. Bounded: a reader older than _log_floor starts again from scratch.
        self._log: list[tuple[int, Layer | None]] = []
        self._log_floor = 0
        self._animated: dict[str, Layer] = {}  # layers with animations, sampled every frame
        self.root = Layer("root", (0, 0, self.width, self.height), {"background-color": background})
        self.root.scene = self
        self._ids["root"] = self.root

    @property
    def background(self) -> str:
        return self.root.style.get("background-color", "transparent")

    # -- registry -----------------------------------------------------------------------
    def _register(self, layer: Layer) -> None:
        new = list(layer.walk())
        seen: set[str] = set()
        for node in new:
            if node.id in self._ids or node.id in seen:
                raise LayerTreeError(f"duplicate layer id {node.id!r}: ids must be unique in a scene")
            seen.add(node.id)
        for node in new:
            node.scene = self
            self._ids[node.id] = node
            if node.animations:
                self._animated[node.id] = node
        self._note(None)

    def _unregister(self, layer: Layer) -> None:
        for node in layer.walk():
            node.scene = None
            self._ids.pop(node.id, None)
            self._animated.pop(node.id, None)
        self._note(None)

    def _changed(self, layer: Layer) -> None:
        if layer.animations:
            self._animated[layer.id] = layer
        else:
            self._animated.pop(layer.id, None)
        self._note(layer)

    _LOG_LIMIT = 4096

    def _note(self, layer: Layer | None) -> None:
        self.version += 1
        if len(self._log) >= self._LOG_LIMIT:
            self._log.clear()
            self._log_floor = self.version - 1
        self._log.append((self.version, layer))

    def changes_since(self, version: int) -> list[Layer] | None:
        """The layers changed after scene ``version`` (each once), or None when the
        tree's shape changed since (or the log no longer reaches that far back)."""
        if version < self._log_floor:
            return None
        out: dict[int, Layer] = {}
        for v, layer in reversed(self._log):
            if v <= version:
                break
            if layer is None:
                return None
            out[id(layer)] = layer
        return list(out.values())

    def animated_layers(self) -> list[Layer]:
        """Layers that have animations (sampled at every frame's time)."""
        return list(self._animated.values())

    def find(self, id: str) -> Layer | None:
        return self._ids.get(id)

    def __getitem__(self, id: str) -> Layer:
        try:
            return self._ids[id]
        except KeyError:
            raise KeyError(f"no layer with id {id!r}") from None

    def layers(self) -> list[Layer]:
        """All layers in tree order, root first."""
        return list(self.root.walk())

    # -- pipeline -----------------------------------------------------------------------
    def plan(self, renderer: Renderer | None = None, request: FrameRequest | None = None, **options) -> FrameGraph:
        """The frame graph of a first frame for ``request`` (a FrameRequest, or its
        fields as keywords: ``t``, ``policy``, ``filter_backend``, ``limits``,
        ``cost_model``), built without touching the GPU: the graph a fresh renderer
        would run for the same request (limits default to ``renderer``'s, else to the
        current renderer's). Filter backend "auto" without a ``cost_model`` keeps the
        passes on GL here and says so; ``renderer.plan`` measures."""
        request = FrameRequest.of(request, **options)
        limits = request.limits or (renderer.limits if renderer is not None else current_limits())
        return build_frame_graph(self, request, limits, ImageStore())

    def render(self, renderer: Renderer | None = None, request: FrameRequest | None = None, **options) -> Frame:
        """Render the frame for ``request`` (or its fields as keywords, as ``plan``
        takes them: ``t`` seconds where animations are sampled, the compositing
        ``policy`` — see lamina.compositor.policy — and ``filter_backend``, which
        overrides the scene's own), on the shared default renderer unless one is given."""
        return (renderer or default_renderer()).render(self, request, **options)

    # -- files --------------------------------------------------------------------------
    def to_dict(self, *, embed_images: bool = False) -> dict[str, Any]:
        """Scene-file data (see lamina.scene_writer.scene_to_dict)."""
        return scene_to_dict(self, embed_images=embed_images)

    def to_json(self, *, indent: int | None = 2, embed_images: bool = False) -> str:
        return json.dumps(self.to_dict(embed_images=embed_images), indent=indent)

    def __repr__(self) -> str:
        return f"Scene({self.width}x{self.height}, layers={len(self._ids)})"
