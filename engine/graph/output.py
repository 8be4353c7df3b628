"""FrameOutput: what planning one frame emits — the hand-off from the planner's walk
(surfaces, backings, draws, tiles, decided in paint order) to the frame graph it builds.

The passes in the order they run; the decisions with their reasons; the kept textures
reused and those repainted in place (where); each layer's compositing facts; the tile
sets; the images looked up. Beside them, what the next frame's retained fast path reads
of this one (graph.retained): the sites of the frame pass's draws, the overlap testing,
the read-backs and the work each frame-level draw needed, the footprints of contexts
drawn as one draw, and where the faded layers' decisions are. And the textures this
frame made, by what they were made from (a layer's raster, a region of a tiled layer),
so each is made once.

One per attempt: the retained fast path plans into a FrameOutput of its own and, when it
finds it cannot finish, the planner drops it (with the cache restored) and plans from
scratch into a new one, so nothing an abandoned attempt emitted can leak into the graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..framegraph import ContextRoute, Decision, Draw, LayerInfo, TextureDesc, TileSet
from ..geometry import Rect

__all__ = ["FrameOutput"]


@dataclass
class FrameOutput:
    passes: list = field(default_factory=list)  # GraphPass, in the order they run
    decisions: list[Decision] = field(default_factory=list)
    routes: dict[str, ContextRoute] = field(default_factory=dict)  # stacking context id -> how it is drawn (graph.routes)
    reused: list[str] = field(default_factory=list)  # kept textures this frame reads as they are
    repainted: dict[str, Rect] = field(default_factory=dict)  # kept texture -> where it was repainted (its px)
    layer_info: dict[str, LayerInfo] = field(default_factory=dict)
    tile_sets: list[TileSet] = field(default_factory=list)
    raster_scales: dict[str, Any] = field(default_factory=dict)  # layer id -> compositor.raster_scale.RasterScale
    images_seen: list[tuple] = field(default_factory=list)  # (image ref, layer id, key) looked up
    # Made this frame, by what from: each is made once.
    content: dict[tuple, TextureDesc] = field(default_factory=dict)  # (layer id, sampled) -> its raster
    regions: dict[tuple, TextureDesc] = field(default_factory=dict)  # (layer id, region) -> that part's raster
    page_fill: tuple[float, float, float, float] | None = None  # the opaque page background, when cleared to
    # For the next frame's retained fast path (graph.retained).
    sites: list | None = None  # graph.retained.Site (or None) per frame draw, while the frame target is planned
    overlap: Any = None  # graph.retained.OverlapRecord: the frame target's overlap testing (browser policy)
    opacity_notes: dict[str, int] = field(default_factory=dict)  # layer id -> its opacity_in_draw decision's index
    reads: dict[int, Any] = field(default_factory=dict)  # id(draw) -> graph.targets.BackdropRead it needs first
    keep: list[Draw] = field(default_factory=list)  # the draws ``reads`` is keyed by (their ids stay theirs)
    work: dict[int, tuple] = field(default_factory=dict)  # id(frame-level draw) -> the passes that made it
    footprints: dict[int, Any] = field(default_factory=dict)  # id(frame-level draw) -> graph.retained.Footprint
    scrolls: dict[str, Any] = field(default_factory=dict)  # scroller id -> graph.retained.ContentsRecord
    walks: dict[str, int] = field(default_factory=dict)  # scroller id -> where the walk's decisions over its descendants begin
    contexts3d: list = field(default_factory=list)  # graph.contexts3d.Context3D: each 3D context drawn, sorted
