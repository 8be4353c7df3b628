"""The retained fast path's records: what a frame's plan keeps for the next (RetainedPlan),
what each draw of the frame pass was made from (Site), and the rules that say a kept
draw may be redone alone (graph.planner.Planner._retained uses them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..compositor.property_trees import MOVED, TRANSFORM_FIELDS
from ..framegraph import Draw, FrameGraph
from .targets import PendingDraw

__all__ = ["MOVABLE", "RetainedPlan", "Site", "site_index", "swept", "member_opacity",
           "is_transform_animation_running", "runs_transform_animation"]

MOVABLE = TRANSFORM_FIELDS | {MOVED}  # the changes the retained fast path redoes


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
    if isinstance(entry, PendingDraw) or entry.kind != "own":
        return False
    for p in entry.members:
        layer = p.node.layer
        while layer is not None and not runs_transform_animation(layer, t):
            layer = layer.parent
        if layer is None:
            return False
    return True
