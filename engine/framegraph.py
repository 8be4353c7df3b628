"""The frame graph: plain data describing one frame's GPU work, built before anything runs.

The model, a leaf of the render-task graph layer: it names no compositor type (what it
keeps of a raster's paint and of the policy are protocols, ``passes.RasterPaint`` and
``GraphPolicy``), so a graph is built, compared and run from what it holds alone.
Passes (lamina.passes) read and write ``TextureDesc`` handles (lamina.textures);
executors map them to pooled GPU textures using the lifetimes computed here. Every pass
says why it exists and presents itself, so the graph doubles as the frame's explanation:
``describe()``, ``to_dict()`` and ``to_dot()`` (lamina.graph_report) write what the passes
say. Every name of lamina.passes and lamina.textures is importable from here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .graph_report import GraphReport
from .images import ImageResource
from . import passes as _passes
from .passes import *  # noqa: F403 (every pass kind is importable from here, a new one too)
from .passes import CompositePass, FilterPass, Pass, RasterPass, SurfaceReason, TransferPass, BackdropPass
from .textures import ClipShape, Draw, DrawMask, Executor, TextureDesc, TextureRole
from .named import NamedEnum

__all__ = [*_passes.__all__, "TextureRole", "TextureDesc", "GraphPolicy", "NoPolicy", "ScheduleReport", "ClipShape", "DrawMask", "Draw", "TileSet", "TileKind", "Executor", "FrameGraph", "Decision", "LayerInfo", "Route", "ContextRoute"]


class GraphPolicy(Protocol):
    """What the graph and its reports read of the compositing policy that planned it (a
    ``lamina.compositor.policy.Policy``, or ``NoPolicy``): its name, whether it keeps
    textures between frames, whether it groups layers into backings."""

    @property
    def name(self) -> str: ...

    @property
    def retains_textures(self) -> bool: ...

    @property
    def uses_backings(self) -> bool: ...


class ScheduleReport(Protocol):
    """What the graph and its reports read of a frame-wide schedule
    (``lamina.graph.frame_schedule.Schedule``): its lines in describe() and its JSON."""

    def describe_lines(self) -> list[str]: ...

    def to_dict(self) -> dict[str, Any]: ...


class CorrectionsReport(ScheduleReport, Protocol):
    """What the graph, its reports and the renderer read of what correction from
    measurement changed (``lamina.cost_feedback.CorrectionReport``): its lines, its JSON,
    and the passes it moved (name -> (from, to) executors)."""

    def moved(self) -> dict[str, tuple[Any, Any]]: ...


@dataclass(frozen=True)
class NoPolicy:
    """The policy of a graph that no compositing policy planned (a ``filters.apply``
    graph, one made by hand): its name, for reports. It keeps nothing between frames and
    groups nothing into backings."""

    name: str = "no policy"
    retains_textures: bool = False
    uses_backings: bool = False

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Decision:
    """A compositor decision about a layer that is not visible as a pass (e.g. an
    opacity folded into a draw, or a layer skipped because it is invisible)."""

    layer_id: str
    text: str


class Route(NamedEnum):
    """How a stacking context is drawn: through which of its effects, in CSS order
    (backdrop-filter, filter, mask, then opacity and blending). A ``str``."""

    BACKDROP_FILTER = "backdrop-filter"  # its filtered backdrop, then the element over it
    FILTER = "filter"  # flattened into a surface, filtered, then drawn
    MASK = "mask"  # drawn through its mask: in its one draw, or a surface when several layers paint
    GROUP_SURFACE = "group surface"  # flattened into a surface (opacity group, isolation, backdrop root, blend)
    ONE_DRAW = "one draw"  # blended straight from its own raster: its one drawing layer is itself
    IN_TARGET = "in target"  # its layers drawn into the target, an opacity in its one drawing layer's draw


@dataclass(frozen=True)
class ContextRoute:
    """The compositor's decision for one stacking context (graph.routes decides it from
    the context's style and subtree; graph.effects emits the passes it names): the route,
    the render surface it needs (None: none), why, for an opacity carried by a draw,
    whose draw carries it, and the element's effects applied, in CSS order, to what the
    route drew (``applies``: for a backdrop-filter, the filter, mask, clip-path, opacity
    and blend that act on the filtered backdrop and the element together)."""

    layer_id: str
    route: Route
    surface: SurfaceReason | None = None
    detail: str = ""
    opacity_into: str | None = None
    applies: tuple[str, ...] = ()

    @property
    def through_effect(self) -> bool:
        """Drawn through an effect (a surface, a read-back, a mask, a blend), not
        plainly into its target."""
        return self.route is not Route.IN_TARGET

    def __str__(self) -> str:
        surface = f" (surface: {self.surface.value})" if self.surface is not None else ""
        why = f": {self.detail}" if self.detail else ""
        then = f"; then {', '.join(self.applies)} on both together" if self.applies else ""
        return f"{self.layer_id}: {self.route}{surface}{why}{then}"


@dataclass(frozen=True)
class LayerInfo:
    """Where one layer's content went, under a policy with backings: is it composited
    (a backing of its own, or a squashing backing), why, and which texture it was
    painted into."""

    composited: bool
    reasons: tuple[str, ...]
    backing: str | None  # the texture it owns, if composited
    painted_into: str  # the texture its content is in


class TileKind(NamedEnum):
    """What a tiled texture holds: one large layer's raster, or a backing (a scroller's
    contents, say). A ``str`` (``TileKind.LAYER == "layer"``, same hash, format and
    repr) so reports, JSON and a printed TileSet read as they always did."""

    LAYER = "layer"
    BACKING = "backing"

    __repr__ = str.__repr__


@dataclass(frozen=True)
class TileSet:
    """One tiled texture of the frame: a large layer's raster or a backing (a
    scroller's contents, say) cut into ``tile_size`` tiles on a grid fixed in its own
    space. Only the tiles touching the interest rect (what can show, grown by the
    interest margin) exist; ``grid`` is how many the whole content would need."""

    owner: str  # the layer, or the backing's label
    kind: TileKind
    tile_size: int
    grid: tuple[int, int]  # columns, rows over the whole content
    content: tuple[int, int]  # the whole content's size, px
    kept: int  # tiles that exist after this frame (inside the interest rect)
    rastered: int  # of those, painted this frame
    bytes: int  # of the kept tiles, RGBA8

    @property
    def reused(self) -> int:
        return self.kept - self.rastered

    def to_dict(self) -> dict[str, Any]:
        return {"owner": self.owner, "kind": self.kind, "tile_size": self.tile_size, "grid": list(self.grid),
                "content": list(self.content), "kept": self.kept, "rastered": self.rastered,
                "reused": self.reused, "bytes": self.bytes}


@dataclass
class FrameGraph(GraphReport):
    """Passes in execution order, the texture they produce last (the frame), and the
    compositor's decisions. Plain data: comparable, testable without a GPU, and
    printable through GraphReport (describe, to_dict, to_dot), which writes what each
    pass says of itself."""

    width: int
    height: int
    passes: list[Pass]
    output: TextureDesc
    decisions: list[Decision] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)  # retained textures from earlier frames
    released: list[str] = field(default_factory=list)  # retained textures freed after this frame
    policy: GraphPolicy = field(default_factory=NoPolicy)
    layer_info: dict[str, LayerInfo] = field(default_factory=dict)  # per layer id, under policies with backings
    # The decision for each stacking context drawn, by layer id, in paint order (graph.routes).
    routes: dict[str, ContextRoute] = field(default_factory=dict)
    tiles: list[TileSet] = field(default_factory=list)  # the tiled layers and backings
    # Each 3D rendering context drawn (graph.contexts3d.Context3D): its order back to
    # front, the layers split, those not drawn and why.
    contexts3d: list = field(default_factory=list)
    # Why a frame with 3D rendering contexts was planned whole when the last was kept (the
    # retained fast path could not sort them again alone: graph.fast_path); None otherwise.
    planned_whole: str | None = None
    # The scale each layer drawn this frame is rastered at and why, by layer id (a
    # compositor.raster_scale.RasterScale: str() and to_dict()); reports tell those not
    # plainly at 1 (scaled_layers). A layer drawn as last frame keeps its entry.
    raster_scales: dict[str, Any] = field(default_factory=dict)
    # Where each layer of scaled_layers() is on this frame (its ink rect under its screen
    # matrix: 4 corners in frame px), by layer id -- also on a frame that re-made nothing
    # (the raster-scale overlay outlines from it, not from this frame's passes).
    scaled_quads: dict[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    # The decoded images its raster passes sample, by ImagePaint.key: the graph carries
    # them, so an executor runs it with nothing beside it (lamina.images.ImageResource).
    images: dict[Any, ImageResource] = field(default_factory=dict)
    # Where each pass runs and when, predicted (graph.frame_schedule.Schedule), when the
    # filter backend is "auto" and a cost model priced the frame; None otherwise.
    schedule: ScheduleReport | None = None
    # OpenCL work of that schedule the executor may still run on GL, decided at run time
    # by the dmda rule (graph.offload.Offload: both versions, plain data).
    offloads: tuple[Any, ...] = ()
    # What correction from measurement changed in that schedule (lamina.cost_feedback.
    # CorrectionReport: corrected devices, passes moved and why), when a device was
    # measured off its history; None otherwise.
    corrections: CorrectionsReport | None = None
    # Device px per CSS px of the frame (lamina.device_scale): the frame is width x height
    # device px of a scene of width / device_scale_factor CSS px.
    device_scale_factor: float = 1.0

    # -- derived facts ------------------------------------------------------------------
    def textures(self) -> list[TextureDesc]:
        seen: dict[str, TextureDesc] = {}
        for p in self.passes:
            for t in (p.target, *p.reads()):
                seen.setdefault(t.name, t)
        return list(seen.values())

    def lifetimes(self) -> dict[str, tuple[int, int]]:
        """Texture name -> (index of first pass that uses it, index of the last)."""
        spans: dict[str, tuple[int, int]] = {}
        for i, p in enumerate(self.passes):
            for t in (p.target, *p.reads()):
                first, _ = spans.get(t.name, (i, i))
                spans[t.name] = (first, i)
        return spans

    def peak_texture_bytes(self) -> int:
        """Most texture memory alive at once if textures are pooled by lifetime."""
        spans = self.lifetimes()
        sizes = {t.name: t.bytes for t in self.textures()}
        peak = 0
        for i in range(len(self.passes)):
            peak = max(peak, sum(sizes[n] for n, (a, b) in spans.items() if a <= i <= b))
        return peak

    def raster_passes(self) -> list[RasterPass]:
        return [p for p in self.passes if isinstance(p, RasterPass)]

    def composite_passes(self) -> list[CompositePass]:
        return [p for p in self.passes if isinstance(p, CompositePass)]

    def filter_passes(self) -> list[FilterPass]:
        return [p for p in self.passes if isinstance(p, FilterPass)]

    def transfer_passes(self) -> list[TransferPass]:
        return [p for p in self.passes if isinstance(p, TransferPass)]

    def backdrop_passes(self) -> list[BackdropPass]:
        return [p for p in self.passes if isinstance(p, BackdropPass)]

    def validate(self) -> None:
        """Every texture is written before it is read (topological order); textures
        reused from earlier frames count as written."""
        written: set[str] = set(self.reused)
        for p in self.passes:
            for t in p.reads():
                if t.name not in written:
                    raise AssertionError(f"pass {p.name} reads {t.name} before it is written")
            written.add(p.target.name)
        if self.output.name not in written:
            raise AssertionError("the frame texture is never written")

    def totals(self) -> dict[str, int]:
        """Frame totals: what was rastered, filtered and composited, and the textures."""
        rasters = self.raster_passes()
        composites = self.composite_passes()
        textures = self.textures()
        return {
            "layers_rastered": len(rasters),
            "pixels_rastered": sum(p.pixels for p in rasters),
            "filter_passes": len(self.filter_passes()),
            "opencl_filter_passes": sum(p.executor is Executor.OPENCL for p in self.filter_passes()),
            "transfers": len(self.transfer_passes()),
            "transfer_bytes": sum(p.bytes for p in self.transfer_passes()),
            "backdrop_reads": len(self.backdrop_passes()),
            "backdrop_pixels": sum(p.pixels for p in self.backdrop_passes()),
            "composite_passes": len(composites),
            "composite_draws": sum(len(p.draws) for p in composites),
            "textures": len(textures),
            "texture_bytes": sum(t.bytes for t in textures),
            "textures_reused": len(self.reused),
            "tiles": sum(t.kept for t in self.tiles),
            "tiles_rastered": sum(t.rastered for t in self.tiles),
            "tiles_reused": sum(t.reused for t in self.tiles),
            "tile_bytes": sum(t.bytes for t in self.tiles),
        }

    def layer_table(self) -> list[dict[str, Any]]:
        """Per drawn layer: its texture (own backing), size and bytes, whether it was
        rastered this frame or reused from an earlier one, and what it was drawn into;
        under the "browser" policy also whether it is composited, why, and the backing
        it paints into."""
        if self.policy.uses_backings:
            return self._browser_table()
        rows: dict[str, dict[str, Any]] = {}
        rastered = {p.layer_id: p for p in self.passes if isinstance(p, RasterPass)}
        for p in self.passes:
            if not isinstance(p, CompositePass):
                continue
            for d in p.draws:
                if d.source.role not in (TextureRole.LAYER_CONTENT,):
                    continue
                t = d.source
                rows[d.layer_id] = {
                    "layer": d.layer_id,
                    "texture": t.name,
                    "size": [t.width, t.height],
                    "bytes": t.bytes,
                    "retained": t.retained,
                    "this_frame": "rastered" if d.layer_id in rastered else ("reused" if t.name in self.reused else "-"),
                    "drawn_into": p.target.name,
                    "opacity": round(d.opacity, 6),
                    "clipped_by": [c.layer_id for c in d.clips],
                }
        return list(rows.values())

    def _browser_table(self) -> list[dict[str, Any]]:
        sizes = {t.name: t for t in self.textures()}
        rastered = {p.layer_id for p in self.passes if isinstance(p, RasterPass)}
        rows = []
        for layer_id, info in self.layer_info.items():
            backing = sizes.get(info.backing) if info.backing else None
            into = sizes.get(info.painted_into)
            rows.append(
                {
                    "layer": layer_id,
                    "composited": info.composited,
                    "reasons": list(info.reasons),
                    "backing": info.backing,
                    "size": [backing.width, backing.height] if backing else None,
                    "bytes": backing.bytes if backing else 0,
                    "painted_into": info.painted_into,
                    "this_frame": "rastered" if layer_id in rastered else ("reused" if into and into.name in self.reused else "-"),
                    "painted_into_size": [into.width, into.height] if into else None,
                }
            )
        return rows
