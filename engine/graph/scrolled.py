"""A scroll planned at the cost of what changed (a part of graph.planner.Planner, kept
apart so each file has one job), as cc scrolls a scroll node: when the only change
since last frame is the offset of one composited scroller (its contents one tiled
backing the offset moves: graph.tiled), the property trees leave its descendants where
they were (PropertyTrees.deferred) and last frame's plan is kept but for the contents:
the layers whose culling may change (those near the edges of the window the contents
are culled to, found in a few vector operations over an index of the descendants in
contents space) are placed and decided again by the walk's own ``draw_node``; the tiles
are cut by the same code as always (``_scroller_contents``), a tile whose members stayed
the same keeping its key and texture, a new one painted from its members placed anew;
the walk's decisions over the descendants, the scroller's decision, the clamp notes and
the layer facts are put where last frame's were.

It applies when the contents are plain: every descendant is drawn into the contents
backing or culled (nothing fixed, sticky, clipped, transformed, animated, promoted,
shadowed or in a stacking context of its own under the scroller), nothing painted after
them is tested for overlap against them, and last frame did no work but the scroller's
tiles. Otherwise it returns None, and the planner places the deferred descendants
(PropertyTrees.settle) and plans as before. The result is the graph planning from
scratch gives (tests/unit/test_api_scroll.py plans both in lockstep)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

import numpy as np

from ..compositor.backings import Backing, BackingKind, CompositingReason
from ..compositor.raster_scale import carried
from ..compositor.property_trees import SCROLL_FIELDS, TreeChanges
from ..compositor.tree import LayerNode, clips_below
from ..css.values import ImageRef
from ..framegraph import FrameGraph, TextureDesc
from .placement import clean, touched
from .retained import ContentsRecord, RetainedPlan
from .tiled import TiledMembers

__all__ = ["ScrolledContents", "ScrollIndex"]

SLACK = 2.0  # px: a descendant this near an edge of the window is decided again exactly


@dataclass
class ScrollIndex:
    """The drawing descendants of a composited scroller in walk order: their nodes and
    ids, their boxes in contents space (x0, y0, x1, y1, from the layout: which may be
    culled differently is found from these), whether each is drawn (a member of the
    contents backing) with its pending draw and the whole px it touches in contents
    space (x, y, w, h; zero for the culled), the decisions the walk made of each, and
    which made some (in order)."""

    nodes: list
    names: np.ndarray
    boxes: np.ndarray
    drawn: np.ndarray
    pending: list
    bounds: np.ndarray
    emitted: list  # the decision the walk made of each (None: none)
    noted: list  # which made one, in walk order
    walk: list  # their decisions, in that order
    names_set: frozenset


class ScrolledContents:
    """Scrolls of a composited scroller planned at the cost of what changed, for the Planner."""

    def _scrolled(self, last: RetainedPlan | None, changes: TreeChanges, frame: TextureDesc,
                  clamped: list) -> FrameGraph | None:
        trees = self.trees
        if last is None or self.cache is None or changes.rebuilt or len(trees.deferred) != 1 \
                or last.cache_frame != self.cache.frames:
            return None
        key = self._request_key()
        if last.key[0]() is not self.scene or last.key[1:] != key[1:]:
            return None
        (sid, scroller), = trees.deferred.items()
        if any(k != sid or not what <= SCROLL_FIELDS for k, what in changes.fields.items()):
            return None
        inside = [c.root for c in last.graph.contexts3d if _inside(trees.nodes.get(c.root), sid)]
        if inside:  # its contents are not a plain walk (the index below declines them too)
            self.state.planned_whole = (f"the 3D rendering context of {inside[0]!r} lies in the scrolled {sid!r}: "
                                        "the scroll path does not sort it again")
            return None
        if last.graph.contexts3d:
            # A context around the scroller reorders and splits the frame's draws
            # (graph.contexts3d): the contents' run is not where the record says.
            self.state.planned_whole = (f"the scrolled {sid!r} lies in the 3D rendering context of "
                                        f"{last.graph.contexts3d[0].root!r}: the scroll path splices the contents' "
                                        "draws in place, which the context's sort moved")
            return None
        record = last.scrolls.get(sid)
        if record is None or record.later_tested or record.tiling != self.tiling or sid not in self.scrollers \
                or not scroller.to_screen.is_translation():
            return None
        if not self._kept_plan_holds(last, frame):  # (graph.fast_path)
            return None
        old_tiles = last.final[record.first:record.first + record.count]
        old_names = {d.source.name for d in old_tiles}
        inputs: set[str] = set()
        for p in last.graph.passes:
            if p.target.name in old_names:
                inputs.update(t.name for t in p.reads())
        for p in last.graph.passes:  # nothing of last frame's work is left to redo but its tiles'
            if p.target.name not in old_names and p.target.name != frame.name \
                    and (p.target.retained or p.target.name not in inputs):
                return None
        index = record.index
        if index is None:
            index = record.index = self._scroll_index(record, scroller, last)
            if index is None:
                record.later_tested = True  # (not plain: never again for this record)
                return None
        last.scrolls.pop(sid)  # the index changes in place from here: a give-up plans from scratch
        saved = self.cache.snapshot()
        graph = self._scroll_frame(last, record, index, scroller, frame, clamped, old_tiles)
        if graph is None:
            self.cache.restore(saved)
        return graph

    def _scroll_frame(self, last: RetainedPlan, record: ContentsRecord, index: ScrollIndex, scroller: LayerNode,
                      frame: TextureDesc, clamped: list, old_tiles) -> FrameGraph | None:
        target = self._frame_target()
        # The window the walk culls the contents to (visible_rect), in contents space.
        reach = self.tiling.interest_margin + self.tiling.tile_size
        window = self._grown(self.viewport, reach)
        for clip in clips_below(scroller):
            box = self._clip_box(clip)
            if box is None:
                return None
            window = window.intersect(self._grown(box, reach) if clip.layer_id in self.scrollers else box)
        shift = scroller.content_to_screen
        wx0, wy0, wx1, wy1 = window.x - shift.e, window.y - shift.f, window.right - shift.e, window.bottom - shift.f
        x0, y0, x1, y1 = index.boxes.T
        inside = (x0 < x1) & (y0 < y1) & (x0 < wx1 - SLACK) & (x1 > wx0 + SLACK) & (y0 < wy1 - SLACK) & (y1 > wy0 + SLACK)
        outside = (x0 >= wx1 + SLACK) | (x1 <= wx0 - SLACK) | (y0 >= wy1 + SLACK) | (y1 <= wy0 - SLACK)
        maybe = np.flatnonzero(~((inside & index.drawn) | (outside & ~index.drawn)))
        space = self._contents_space(scroller)
        gone = []  # drawn last frame, culled now
        for g in maybe.tolist():  # decided again, by the walk's own code
            node = index.nodes[g]
            self.trees.refresh(node)
            drawn: list = []
            noted = len(self.out.decisions)
            self.draw_node(node, drawn, target, record.opacity)
            emitted = self.out.decisions[noted:]
            del self.out.decisions[noted:]
            if len(emitted) > 1:
                return None  # (the index keeps one decision a descendant)
            said = emitted[0] if emitted else None
            if (index.emitted[g] is None) != (said is None):
                at = bisect.bisect_left(index.noted, g)
                if said is None:
                    del index.noted[at], index.walk[at]
                else:
                    index.noted.insert(at, g)
                    index.walk.insert(at, said)
            elif said is not None:
                index.walk[bisect.bisect_left(index.noted, g)] = said
            index.emitted[g] = said
            if drawn:
                index.pending[g] = drawn[0]
                r = touched(node.ink_rect, clean(space @ node.to_screen))
                index.bounds[g] = (r.x, r.y, r.width, r.height)
            else:
                if index.drawn[g]:
                    gone.append(index.names[g])
                index.pending[g] = None
                index.bounds[g] = 0.0
            index.drawn[g] = bool(drawn)
        order = np.flatnonzero(index.drawn)
        if not len(order):
            return None  # nothing left to draw: its backing goes (planned from scratch)
        members = [index.pending[g] for g in order.tolist()]
        names = index.names[order].tolist()
        geometry = TiledMembers(members, space, [None] * len(members), index.bounds[order], order,
                                self.trees.refresh, record.geometry.kept, names)
        self.out.layer_info = dict(last.graph.layer_info)
        # Last frame's decisions hold (a settle is over: compositor.raster_scale.carried).
        self.out.raster_scales = {k: carried(v) for k, v in last.graph.raster_scales.items()}
        self.out.routes = dict(last.graph.routes)  # plain contents: a scroll changes no context's route
        for layer_id in gone:  # culled now
            self.out.layer_info.pop(layer_id, None)
        self.out.page_fill = tuple(last.clear) if last.clear[3] >= 1.0 else None
        self.cache.carry_over(but=frozenset(record.geometry.kept))
        entry = Backing(BackingKind.SCROLL, members, scroller, (CompositingReason.COMPOSITED_SCROLLER,))
        draws = self._scroller_contents(entry, target, geometry)
        if not draws:
            return None
        # The frame: last frame's, its contents' draws, decisions and tile set put where they were.
        first, end = record.first, record.first + record.count
        final = last.final[:first] + tuple(draws) + last.final[end:]
        grown = len(draws) - record.count
        decisions = last.graph.decisions
        walk_end = record.walk_end
        if walk_end < 0:
            walk_end = record.walk
            while walk_end < len(decisions) and decisions[walk_end].layer_id in index.names_set:
                walk_end += 1
        walk = index.walk
        ours = self.out.decisions.pop()
        self.out.decisions = (list(clamped) + decisions[record.clamps:record.walk] + walk
                              + decisions[walk_end:record.decision] + [ours] + decisions[record.decision + 1:])
        dc, dw = len(clamped) - record.clamps, len(walk) - (walk_end - record.walk)

        def moved(i: int, end: bool = False) -> int:  # a decision's index in this frame's list
            return i + dc + (dw if (i > record.walk if end else i >= walk_end) else 0)

        tiles = [replace(ts, rastered=0) for ts in last.graph.tiles]
        tiles[record.tile_set] = self.out.tile_sets.pop()
        self.out.tile_sets = tiles
        old_names = {d.source.name for d in old_tiles}
        self.out.reused = [n for n in last.graph.reused if n != frame.name and n not in old_names] + self.out.reused
        self.out.images_seen = list(last.images)
        graph = self._frame_graph(final, last.clear, frame)

        def spliced(values: tuple) -> tuple:
            return values[:first] + (None,) * len(draws) + values[end:]

        site_of = {k: (i + grown if i >= end else i) for k, i in last.site_of.items()}
        effects = {k: replace(fp, index=fp.index + grown if fp.index >= end else fp.index,
                              decisions=(moved(fp.decisions[0]), moved(fp.decisions[1], end=True)))
                   for k, fp in last.effects.items()}
        notes = {k: moved(v) for k, v in (last.opacity_notes or {}).items()}
        record = replace(record, geometry=geometry, decision=moved(record.decision), count=len(draws),
                         walk=record.walk + dc, walk_end=record.walk + dc + len(walk), clamps=len(clamped), index=index)
        self.state.last = replace(last, key=self._request_key(), graph=graph, final=final, cache_frame=self.cache.frames,
                                  sites=spliced(last.sites), work=spliced(last.work), reads=spliced(last.reads),
                                  site_of=site_of, overlap=None, opacity_notes=notes, effects=effects,
                                  scrolls={scroller.id: record})
        return graph

    def _scroll_index(self, record: ContentsRecord, scroller: LayerNode, last: RetainedPlan) -> ScrollIndex | None:
        """The index of a composited scroller's drawing descendants (ScrollIndex), made
        from last frame's record when the contents are plain (see the module docstring);
        else None."""
        nodes, boxes = [], []
        stack = [(layer, 0.0, 0.0) for layer in reversed(scroller.layer.children)]
        while stack:  # in walk order (tree order: no stacking contexts, no z-index)
            layer, x, y = stack.pop()
            node = self.trees.nodes[layer.id]
            s = node.style
            if (node.is_fixed or node.is_sticky or s.overflow.clips or node.creates_stacking_context()
                    or s.z_index not in (None, 0) or s.transform or s.clip_path is not None or s.box_shadow
                    or s.backdrop_filter is not None or s.visibility != "visible" or s.will_change or layer.animations
                    or isinstance(s.background_image, ImageRef) or layer.content in ("video", "canvas")):
                return None
            box = node.box  # device px (lamina.device_scale)
            bx, by = x + box.x, y + box.y
            if node.draws_content():
                nodes.append(node)
                boxes.append((bx, by, bx + box.width, by + box.height))
            stack.extend((child, bx, by) for child in reversed(layer.children))
        geometry = record.geometry
        at = {p.node.id: i for i, p in enumerate(geometry.members)}
        names = [n.id for n in nodes]
        names_set = set(names)
        decisions = last.graph.decisions
        said: dict[str, list] = {}
        end = record.walk
        while end < len(decisions) and decisions[end].layer_id in names_set:
            said.setdefault(decisions[end].layer_id, []).append(decisions[end])
            end += 1
        record.walk_end = end
        n = len(nodes)
        drawn = np.zeros(n, bool)
        bounds = np.zeros((n, 4))
        pending: list = [None] * n
        member_to_global = np.zeros(len(geometry.members), np.int64)
        for g, name in enumerate(names):
            i = at.get(name)
            if i is not None:
                drawn[g], pending[g], bounds[g] = True, geometry.members[i], geometry.boxes[i]
                member_to_global[i] = g
                if name in said:
                    return None  # drawn and noted: not a plain walk
            elif name not in said:
                return None  # neither drawn into the contents nor culled
        if int(drawn.sum()) != len(geometry.members):
            return None  # a member that is not a plain descendant
        geometry.kept = {k: (rect, member_to_global[who], key) for k, (rect, who, key) in geometry.kept.items()}
        if any(len(d) > 1 for d in said.values()):
            return None
        emitted = [said[name][0] if name in said else None for name in names]
        noted = [g for g in range(n) if emitted[g] is not None]
        index = ScrollIndex(nodes, np.array(names, dtype=object), np.array(boxes, dtype=np.float64).reshape(-1, 4),
                            drawn, pending, bounds, emitted, noted, [emitted[g] for g in noted], frozenset(names))
        return index


def _inside(node, scroller_id: str) -> bool:
    """Is ``node`` a descendant of the layer ``scroller_id``?"""
    layer = node.layer.parent if node is not None else None
    while layer is not None:
        if layer.id == scroller_id:
            return True
        layer = layer.parent
    return False
