"""FrameState: what a renderer keeps between the frames it renders, all keyed by what it
was made from, none of it written onto user objects (a plan records here only for the
frame executed next: ``Renderer.plan`` is a look that leaves it as it was):

* ``trees``  — the scene's property trees (compositor.property_trees);
* ``cache``  — the textures kept, with the keys that say when they are still right
  (used by the policies that retain textures);
* ``paints`` — each layer's LayerPaint, reused while its style, size and offset are;
* ``last``   — the last frame's plan, for the retained fast path (graph.retained);
* ``schedules`` — the frame-wide schedule's prices and last outcome (graph.schedule_memo);
* ``raster_scales`` — each layer's raster-scale decision of the frame it was last drawn
  in (compositor.raster_scale: an animation's fixed scale, a settle, read from here).

``scene.plan()`` starts from an empty FrameState, so it plans what a fresh renderer's
first frame runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..compositor.property_trees import PropertyTrees
from .cache import RasterCache
from .schedule_memo import ScheduleMemo

__all__ = ["FrameState"]


@dataclass
class FrameState:
    trees: PropertyTrees = field(default_factory=PropertyTrees)
    cache: RasterCache = field(default_factory=RasterCache)
    paints: dict[str, tuple] = field(default_factory=dict)
    last: Any = None  # graph.retained.RetainedPlan of the last frame planned, or None
    schedules: ScheduleMemo = field(default_factory=ScheduleMemo)
    raster_scales: dict[str, Any] = field(default_factory=dict)  # layer id -> (weakref to its Layer, RasterScale)
    zoomed: dict[str, tuple] = field(default_factory=dict)  # layer id -> (style, raster scale, zoomed style)
    fast_frames: int = 0  # frames planned by the retained fast path (reports, tests)
    # Why the fast path left this frame's 3D rendering contexts to a whole plan (FrameGraph.planned_whole)
    planned_whole: str | None = None
    # False: plan every frame from scratch (the reference the fast path is tested against)
    fast_path: bool = True
