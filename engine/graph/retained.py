"""The retained fast path's records: what a frame's plan keeps for the next (RetainedPlan),
what each draw of the frame pass was made from (Site), and the rules that say a kept
draw may be redone alone (graph.planner.Planner._retained uses them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..compositor.backings import BackingKind
from ..compositor.property_trees import MOVED, TRANSFORM_FIELDS
from ..framegraph import Draw, FrameGraph
from ..geometry import Rect
from .targets import PendingDraw

__all__ = ["ContentsRecord", "MOVABLE", "EFFECT_AMOUNTS", "RetainedPlan", "Site", "Footprint", "OverlapRecord", "site_index", "swept",
           "member_opacity", "is_transform_animation_running", "runs_transform_animation"]

MOVABLE = TRANSFORM_FIELDS | {MOVED}  # the changes the retained fast path redoes
# The changes of a stacking context drawn at frame level as one draw of its own (a
# filter's result, a filtered backdrop) that the fast path redoes by planning that
# context alone (Footprint).
EFFECT_AMOUNTS = frozenset({"filter", "backdrop_filter"})


@dataclass
class Site:
    """One draw of the frame pass and what it was made from, kept for the fast path:
    the backing entry (or the lone pending draw), the passes it added, and whether
    its position can be updated alone (graph.retained)."""

    entry: object  # compositor.backings.Backing, or a PendingDraw (policies without backings)
    squash_index: int
    passes: frozenset[str]
    members: tuple[str, ...]


@dataclass(frozen=True)
class Footprint:
    """What planning one stacking context of the frame target left in the frame, when it
    made one draw of the frame pass that is not a backing's (a filter's result, a
    filtered backdrop, a blended group): the context, where its draw is in the frame
    pass (``index``), the range of the frame's decisions it noted, the kept textures it
    reused, the tile sets it made, how many items (draws and pending layer draws) it
    gave the frame target, the cache entries it used and the passes it added. The fast
    path plans that context alone again when only its effect's parameters changed, and
    puts what it makes where this says."""

    ctx: object  # compositor.tree.StackingContext
    decisions: tuple[int, int]
    reused: tuple[str, ...]
    tiles: int
    items: int
    order: int  # its first item's position among the frame target's items (paint order)
    index: int = -1
    cache_keys: tuple[str, ...] = ()  # the raster cache's entries it used (graph.cache)
    passes: tuple = ()  # the passes it added


@dataclass(frozen=True)
class OverlapRecord:
    """The frame target's layer draws in paint order as the browser policy's overlap
    testing saw them (compositor.backings.partition): each one's bounds, and whether it
    is tested against the composited entries before it (every layer not promoted for a
    reason of its own). It says whether a promoted entry moved by the API, with no
    animation sweep to fix its bounds, leaves every overlap decision as it was: the
    layers after it that overlap it are the same before and after the move. Plain
    arrays, so the test costs a few vector operations however long the page is."""

    boxes: np.ndarray  # (n, 4) float64: x0, y0, x1, y1 of each draw's bounds
    tested: np.ndarray  # (n,) bool: overlap-tested (not promoted by a reason of its own)
    index: dict[str, int]  # layer id -> its draw's position
    # layer id -> the position of the one surface-like draw (a filter's result, a
    # filtered backdrop) it made; -1 when it made more than one
    effects: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, items: list, rect_of, entries: list) -> "OverlapRecord":
        owners = {id(e.members[0]) for e in entries if e.kind is BackingKind.OWN and e.members}
        boxes = np.zeros((len(items), 4))
        tested = np.zeros(len(items), bool)
        index: dict[str, int] = {}
        effects: dict[str, int] = {}
        for i, item in enumerate(items):
            boxes[i] = _box(rect_of(item))
            if isinstance(item, PendingDraw):
                index[item.node.id] = i
                tested[i] = id(item) not in owners
            else:
                effects[item.layer_id] = -1 if item.layer_id in effects else i
        return cls(boxes, tested, index, effects)

    def stands(self, members: tuple[str, ...], old: Rect, new: Rect, after: "OverlapRecord | None" = None) -> bool:
        """Do the same later layers overlap the entry of ``members`` at ``old`` as at
        ``new``? Only for an entry whose members are drawn one after another (then
        every later layer is tested against all of it). ``after``: the record with the
        later layers where they are now, when several entries moved."""
        at = sorted(self.index[m] for m in members if m in self.index)
        if len(at) != len(members) or at[-1] - at[0] + 1 != len(at):
            return False
        now = after if after is not None else self
        later = self.boxes[at[-1] + 1:][self.tested[at[-1] + 1:]]
        return bool(np.array_equal(_overlapping(later, old), _overlapping(now.boxes[at[-1] + 1:][self.tested[at[-1] + 1:]], new)))

    def promoted_alone(self, members: tuple[str, ...]) -> bool:
        """Are these layers promoted by reasons of their own (not overlap-tested)?"""
        return all(m in self.index and not self.tested[self.index[m]] for m in members)

    def moved(self, rects: dict[str, Rect]) -> "OverlapRecord":
        """The record with these layers' bounds replaced (after a move)."""
        boxes = self.boxes.copy()
        for layer_id, r in rects.items():
            boxes[self.index[layer_id]] = _box(r)
        return OverlapRecord(boxes, self.tested, self.index, self.effects)

    def effect_stands(self, layer_id: str, old: Rect, new: Rect) -> bool:
        """Do the same later layers overlap the effect draw of ``layer_id`` (its
        filter's result, say) with bounds ``new`` as with ``old``? Then every overlap
        decision stands: the layers after it are tested against each entry alone."""
        at = self.effects.get(layer_id, -1)
        if at < 0:
            return False
        later = self.boxes[at + 1:][self.tested[at + 1:]]
        return bool(np.array_equal(_overlapping(later, old), _overlapping(later, new)))

    def effect_resized(self, layer_id: str, rect: Rect) -> "OverlapRecord":
        """The record with the bounds of ``layer_id``'s effect draw replaced."""
        boxes = self.boxes.copy()
        boxes[self.effects[layer_id]] = _box(rect)
        return OverlapRecord(boxes, self.tested, self.index, self.effects)


def _box(r: Rect) -> tuple[float, float, float, float]:
    """A rect as x0, y0, x1, y1; an empty one as a box nothing overlaps."""
    return (r.x, r.y, r.x + r.width, r.y + r.height) if r.width > 0 and r.height > 0 else (0.0, 0.0, 0.0, 0.0)


def _overlapping(boxes: np.ndarray, r: Rect) -> np.ndarray:
    """Which boxes share area with ``r``, as Rect.overlaps decides (empty boxes never)."""
    if r.width <= 0 or r.height <= 0:
        return np.zeros(len(boxes), bool)
    x0, y0, x1, y1 = boxes.T
    return (x1 > x0) & (y1 > y0) & (x0 < r.x + r.width) & (r.x < x1) & (y0 < r.y + r.height) & (r.y < y1)


@dataclass
class ContentsRecord:
    """What planning a composited scroller's contents in the frame's own target left,
    for a scroll planned on the fast path (graph.scrolled): the members and what their
    tiles needed (graph.tiled.TiledMembers), where its decision is in the frame's
    decisions, its tile set's place, the opacity its layers are drawn with; and, filled
    in as the frame is finished, where its draws are in the frame pass, where the
    decisions of the walk over its descendants begin, how many clamp notes the frame
    began with, whether a layer painted after it is tested for overlap, and the
    per-descendant index the fast path builds from all that (graph.scrolled)."""

    scroller: str
    geometry: object
    decision: int
    tile_set: int
    opacity: float
    first: int = -1
    count: int = 0
    walk: int = -1  # where the decisions of the walk over its descendants begin
    walk_end: int = -1  # and end (-1: found from the decisions when first needed)
    clamps: int = 0
    later_tested: bool = True
    index: object = None
    tiling: object = None  # the lamina.tiling.Tiling it was planned with (its reach culls the contents)


@dataclass(frozen=True)
class RetainedPlan:
    """A frame's plan kept for the next: its graph, the frame pass's draws and what each
    was made from (Site, None for draws that cannot be redone alone), its clear colour,
    the images it looked up (with their keys: in-memory pixels may change in place),
    which of the cache's frames it was, and for the other draws the work that made them
    and the read-backs they need."""

    key: tuple
    graph: FrameGraph
    final: tuple[Draw, ...]
    sites: tuple[Site | None, ...]
    clear: tuple[float, float, float, float]
    images: tuple[tuple, ...]
    cache_frame: int
    site_of: dict[str, int]  # layer id -> index of the frame draw it is painted in
    # Per frame draw that is not a Site: the passes that made it (a surface's, redone
    # every frame by planning too), and the read-back it needs first, if any.
    work: tuple[tuple, ...] = ()
    reads: tuple = ()
    overlap: OverlapRecord | None = None  # the frame target's overlap testing (browser policy)
    opacity_notes: dict[str, int] | None = None  # layer id -> index of its "opacity applied in the draw" decision
    effects: dict[str, Footprint] = field(default_factory=dict)  # context layer id -> what planning it left
    scrolls: dict[str, ContentsRecord] = field(default_factory=dict)  # composited scroller id -> its contents' record
    # The frame's decisions describing its 3D rendering contexts (graph.contexts3d), in
    # order: the fast path puts the contexts it sorts again in their place.
    context_notes: tuple = ()


def site_index(sites) -> dict[str, int]:
    return {layer_id: i for i, site in enumerate(sites) if site is not None for layer_id in site.members}


def is_transform_animation_running(animation, t: float) -> bool:
    return animation.is_active(t) and "transform" in animation.properties


def runs_transform_animation(layer, t: float) -> bool:
    return any(is_transform_animation_running(a, t) for a in layer.animations)


def member_opacity(site: Site, layer_id: str) -> float:
    entry = site.entry
    members = (entry,) if isinstance(entry, PendingDraw) else entry.members
    return next(p.opacity for p in members if p.node.id == layer_id)


def swept(site: Site, t: float) -> bool:
    """Are the browser policy's bounds of this entry a running animation's sweep
    (the same all iteration), so its promotion and overlap decisions stand? They
    are when a transform animation runs on each member or an ancestor of it."""
    entry = site.entry
    if isinstance(entry, PendingDraw) or entry.kind is not BackingKind.OWN:
        return False
    for p in entry.members:
        if p.node.context3d is not None:
            return False  # a member of a 3D rendering context has no sweep (graph.sweep): its bounds are this frame's
        layer = p.node.layer
        while layer is not None and not runs_transform_animation(layer, t):
            layer = layer.parent
        if layer is None:
            return False
    return True
