"""The retained fast path (a part of graph.planner.Planner, kept apart so each file has
one job): when the property trees changed nothing but transforms, opacities or scroll
offsets, last frame's graph is kept with only the moved draws made again, when that is
exactly what planning from scratch would give (graph.retained holds the records it
reads). The methods use the planner's state as Planner.__init__ sets it."""

from __future__ import annotations

import weakref
from dataclasses import replace

from ..framegraph import BackdropPass, FrameGraph, TextureDesc
from ..blending import BlendMode
from ..geometry import Rect
from ..compositor.backings import BackingKind
from ..compositor.property_trees import TRANSFORM_FIELDS, TreeChanges
from .retained import MOVABLE, RetainedPlan, Site, member_opacity, runs_transform_animation, swept
from .effects import opacity_in_draw
from .placement import touched
from .targets import PendingDraw, Target

__all__ = ["RetainedFastPath", "PlanAgain"]


class PlanAgain(Exception):
    """The retained fast path found, after it had begun, that it cannot finish the
    frame: plan it from scratch instead (build_frame_graph restores the cache)."""


class RetainedFastPath:
    """The retained fast path, for the Planner."""

    def _request_key(self) -> tuple:
        """What a kept plan must share with this frame besides the time."""
        return (weakref.ref(self.scene), self.scene.width, self.scene.height, self.base_dir, self.policy,
                self.filter_backend, self.limits)

    def _retained(self, last: "RetainedPlan | None", changes: TreeChanges, frame: TextureDesc) -> FrameGraph | None:
        """Last frame's graph with only the moved draws made again, when that is exactly
        what planning from scratch would give; else None.

        It is, when the property trees changed nothing but transforms (the layers moved,
        or moved with an ancestor), every moved layer is drawn in the frame pass by a
        backing entry of its own (a promoted layer with its painted descendants, or one
        layer's raster under a policy without backings), the browser policy's decisions
        for it come from a running animation's sweep (fixed for the iteration: the
        trees report a new iteration as a change), nothing of last frame's work but the
        moved entries' own was left to redo, and no image changed. The moved entries
        are then planned by the same code as always (``_entry_draw``), and the frame's
        damage from the draws that changed."""
        if last is None or self.cache is None or not self.state.fast_path or changes.rebuilt or last.cache_frame != self.cache.frames:
            return None
        key = self._request_key()
        if last.key[0]() is not self.scene or last.key[1:] != key[1:]:
            return None
        site_of = last.site_of
        redo: dict[int, Site] = {}
        faded: dict[str, float] = {}  # layer id -> its draw's new opacity
        for layer_id, what in changes.fields.items():
            if what - MOVABLE - {"opacity"}:
                return None
            if "opacity" in what:
                opacity = self._fade_alone(layer_id, last)
                if opacity is None:
                    return None
                faded[layer_id] = opacity
            index = site_of.get(layer_id)
            if index is None:
                node = self.trees.nodes[layer_id]
                if node.draws_content() or node.style.backdrop_filter is not None:
                    return None  # drawn elsewhere (inside a surface), read back, or culled: may change
                continue  # paints nothing itself: only its descendants' draws matter
            if self.trees.nodes[layer_id].style.backdrop_filter is not None:
                # Its filtered backdrop is a draw apart from its content, made from what
                # lies under where it was (each moved descendant is a change of its own).
                return None
            redo[index] = last.sites[index]
        # Every pass of last frame must be redone by this one as it is: a moved entry's
        # own, the frame's, a read-back's, or the work of a draw remade every frame (a
        # surface). A kept texture made last frame (a new raster, a filter result just
        # cached) would only be reused now: then plan from scratch.
        kept: set[int] = set()
        for i, work in enumerate(last.work):
            if not work or i in redo:
                continue
            if last.final[i].source.retained or any(p.target.retained for p in work):
                return None  # it made a texture that is kept: this frame would reuse it
            if not all(self.available(t.name) for p in work for t in p.reads() if t.retained):
                return None  # a kept texture it reads is gone: planning makes it again
            kept.update(id(p) for p in work)
        per_frame = {id(p) for read in last.reads if read is not None for p in read.after}
        redone = {name for site in redo.values() for name in site.passes}
        for p in last.graph.passes:
            if id(p) in kept or id(p) in per_frame or p.name in redone:
                continue
            if p.target.name == frame.name or isinstance(p, BackdropPass):
                continue  # the frame's segments and its read-backs, made anew below
            return None
        for ref, layer_id, image_key in last.images:
            if self.images.get(ref, self.base_dir, layer_id)[0] != image_key:
                return None
        if not self.available(frame.name) or not all(self.available(d.source.name) for d in last.final if d.source.retained):
            return None
        # Under the browser policy a moved entry's bounds decide what overlaps it. An
        # animation's sweep fixes them for the iteration; a move through the API stands
        # when it is one promoted entry and the same later layers overlap it as before.
        # A member moved through the API under an animated ancestor: the sweep its bounds
        # come from is not the one last frame's decisions were made with.
        api_moved = {layer_id for layer_id, what in changes.fields.items() if what & TRANSFORM_FIELDS
                     and not runs_transform_animation(self.trees.nodes[layer_id].layer, self.t)}
        unswept = []
        for i, site in redo.items():
            if not self.policy.uses_backings:
                continue
            if not swept(site, self.t):
                unswept.append(i)
            elif api_moved.intersection(site.members):
                return None
        if unswept and (len(redo) > 1 or last.overlap is None or self.memory_budget is not None
                        or isinstance(redo[unswept[0]].entry, PendingDraw) or redo[unswept[0]].entry.kind is not BackingKind.OWN
                        or (last.reads and last.reads[unswept[0]] is not None)):
            return None
        target = self._frame_target()
        # Every moved member must still be drawn: last frame's decisions stand only then.
        pending_of = {}
        for index, site in redo.items():
            pending = self._pending_again(site, target, faded)
            if pending is None:
                return None
            pending_of[index] = pending
        overlap = last.overlap
        if unswept:
            index = unswept[0]
            site = redo[index]
            to_target = target.from_screen()
            rects = {p.node.id: touched(p.node.ink_rect, to_target @ p.node.to_screen) for p in pending_of[index]}
            moved = Rect.union(list(rects.values()))
            if not overlap.stands(site.members, site.entry.rect, moved):
                return None  # what overlaps it changed: its overlap decisions are made again
            overlap = overlap.moved(rects)
            redo[index] = replace(site, entry=replace(site.entry, rect=moved))
        self.cache.carry_over()
        sites = list(last.sites)
        self._page_fill = tuple(last.clear) if last.clear[3] >= 1.0 else None
        self.layer_info = dict(last.graph.layer_info)
        final = list(last.final)
        replaced = set()
        for index, site in sorted(redo.items()):
            pending = pending_of[index]
            replaced.add(final[index].source.name)
            if isinstance(site.entry, PendingDraw):
                p = pending[0]
                final[index] = self._layer_draw(p, target.space, target.origin, p.clips, sampled=self._moving(p.node))
                sites[index] = replace(site, entry=p)  # its opacity now, for the next frame's redo
            else:
                entry = replace(site.entry, members=list(pending))
                draw = self._entry_draw(entry, target, "root", site.squash_index)
                if draw is None:
                    raise PlanAgain()  # its backing came out empty: this planner has started, so start anew
                final[index] = draw
                sites[index] = replace(site, entry=entry)
        for i, read in enumerate(last.reads):
            if read is not None and i not in redo:
                self._reads[id(final[i])] = read
        self.passes = [p for p in last.graph.passes if id(p) in kept] + self.passes
        self.tile_sets = [replace(ts, rastered=0) for ts in last.graph.tiles]  # kept draws: their tiles stay
        self.decisions = list(last.graph.decisions)
        for layer_id in faded:  # its decision says the opacity it has now
            self.decisions[last.opacity_notes[layer_id]] = opacity_in_draw(layer_id, layer_id,
                                                                           self.trees.nodes[layer_id].style.opacity)
        self.reused = [n for n in last.graph.reused if n not in replaced and n != frame.name] + self.reused
        self.images_seen = list(last.images)
        graph = self._frame_graph(tuple(final), last.clear, frame)
        work = tuple(None if i in redo else w for i, w in enumerate(last.work))
        self.state.last = replace(last, key=key, graph=graph, final=tuple(final), cache_frame=self.cache.frames,
                                  work=work, sites=tuple(sites), overlap=overlap)
        return graph

    def _fade_alone(self, layer_id: str, last: "RetainedPlan") -> float | None:
        """The new opacity of the draw of a layer whose opacity alone changed, when last
        frame's decisions stand: it is drawn alone (a site of one member, nothing under
        it painting), its opacity goes into that draw before and after (below 1, above
        0: no surface, the same decision), and no effect of its own needs a surface.
        None otherwise (plan from scratch)."""
        index = last.site_of.get(layer_id)
        node = self.trees.nodes[layer_id]
        if index is None or last.sites[index].members != (layer_id,):
            return None
        s = node.style
        if not 0.0 < s.opacity < 1.0 or s.filter is not None or s.backdrop_filter is not None \
                or s.mask_image is not None or s.clip_path is not None or s.mix_blend_mode is not BlendMode.NORMAL:
            return None
        stack = list(node.layer.children)
        while stack:  # nothing under it paints: its opacity is its own draw's alone
            child = self.trees.nodes[stack.pop().id]
            if child.draws_content() or child.style.backdrop_filter is not None:
                return None
            stack.extend(child.layer.children)
        if not last.opacity_notes or layer_id not in last.opacity_notes:
            return None  # it was 1 last frame: the decision is new (plan from scratch)
        inherited = 1.0
        ancestors = []
        layer = node.layer.parent
        while layer is not None:
            ancestors.append(layer)
            layer = layer.parent
        for layer in reversed(ancestors):  # as emit_context multiplies them, root first
            inherited = inherited * self.trees.nodes[layer.id].style.opacity
        return inherited * s.opacity

    def _pending_again(self, site: Site, target: Target, faded: dict[str, float]) -> tuple | None:
        """The site's members as pending draws now (a faded one with its new opacity), or
        None if one is no longer drawn (culled or clipped away: last frame's decisions
        would not stand)."""
        out = []
        for layer_id in site.members:
            node = self.trees.nodes[layer_id]
            drawn: list = []
            decisions = len(self.decisions)
            self.draw_node(node, drawn, target, faded.get(layer_id, member_opacity(site, layer_id)))
            if not drawn:
                del self.decisions[decisions:]
                return None
            out.append(drawn[0])
        return tuple(out)
