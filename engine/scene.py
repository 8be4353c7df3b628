"""Scene: the viewport, its background and the root of the layer tree.

``scene.render()`` runs the whole pipeline (compositor decisions -> frame graph ->
GPU execution) and returns a ``Frame``.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import GeometryError, LayerTreeError
from .layer import Layer

if TYPE_CHECKING:
    from .frame import Frame
    from .renderer import Renderer

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

    def _unregister(self, layer: Layer) -> None:
        for node in layer.walk():
            node.scene = None
            self._ids.pop(node.id, None)

    def _changed(self) -> None:
        self.version += 1

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
    def plan(self, renderer: "Renderer | None" = None, *, t: float = 0.0, filter_backend: str | None = None):
        """The compositor's decisions and the frame graph at time ``t`` (seconds), built
        without touching the GPU (limits default to the current renderer's). Filter
        passes are placed by ``filter_backend`` (default: the scene's); "auto" needs a
        measured cost model, so this plan keeps them on GL and says so
        (``renderer.plan`` measures)."""
        from .filters.backend import check_backend

        from .compositor import build_frame_graph
        from .renderer import current_limits

        limits = renderer.limits if renderer is not None else current_limits()
        backend = check_backend(filter_backend or self.filter_backend)
        return build_frame_graph(self, limits, t=t, filter_backend=backend)

    def render(self, renderer: "Renderer | None" = None, *, t: float = 0.0, policy: str = "browser",
               filter_backend: str | None = None) -> "Frame":
        """Render the frame at time ``t`` seconds (animations are sampled there) under a
        compositing ``policy`` (see lamina.compositor.policy), on the shared default
        renderer unless one is given. ``filter_backend`` overrides the scene's own
        (``scene.filter_backend``: "gl", "opencl" or "auto"; see filters.backend)."""
        from .renderer import default_renderer

        return (renderer or default_renderer()).render(self, t, policy, filter_backend)

    # -- files --------------------------------------------------------------------------
    def to_dict(self, *, embed_images: bool = False) -> dict[str, Any]:
        """Scene-file data (see lamina.scene_file.scene_to_dict)."""
        from .scene_file import scene_to_dict

        return scene_to_dict(self, embed_images=embed_images)

    def to_json(self, *, indent: int | None = 2, embed_images: bool = False) -> str:
        import json

        return json.dumps(self.to_dict(embed_images=embed_images), indent=indent)

    def __repr__(self) -> str:
        return f"Scene({self.width}x{self.height}, layers={len(self._ids)})"
