"""The retained fast path (a part of graph.planner.Planner, kept apart so each file has
one job): when the property trees changed nothing but transforms, opacities or scroll
offsets, last frame's graph is kept with only the moved draws made again, when that is
exactly what planning from scratch would give (graph.retained holds the records it
reads). A filter's or a backdrop-filter's parameters changed on a context drawn in the
frame as one draw of its own: that context alone is planned again and its passes,
decisions and draw put where last frame's were. With 3D rendering contexts on screen the
kept draws are those before sorting (one per site), and the frame's contexts are sorted
and split again from the members' new 4x4s (graph.contexts3d); a moved member drawn
through a 3D flattening surface, or in a context sorted inside a surface drawn in the
frame (an opacity group, a filter), has that surface planned alone again as a changed
effect is; why a frame with contexts was planned whole goes to FrameGraph.planned_whole. It emits into the planner's FrameOutput
(graph.output); when it cannot finish, it restores the cache and returns None, and the
planner plans from scratch into a new one."""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, replace

from ..framegraph import BackdropPass, Draw, FrameGraph, RasterPass, ShadowPass, TextureDesc, TextureRole
from ..blending import BlendMode
from ..geometry import Affine, Rect
from ..compositor.backings import BackingKind
from ..compositor.raster_scale import carried
from ..compositor.property_trees import PAINT_FIELDS, TRANSFORM_FIELDS, TreeChanges
from ..compositor.tree import StackingContext
from .damage import changed_region
from ..filters.svg.route import document_in_force
from .retained import (EFFECT_AMOUNTS, MOVABLE, Footprint, OverlapRecord, RetainedPlan, Site, member_opacity,
                       runs_transform_animation, swept)
from .effects import opacity_in_draw
from .placement import reframe, touched
from .reads import unpieced
from .targets import PendingDraw, Target

__all__ = ["RetainedFastPath", "Repaint"]


@dataclass(frozen=True)
class Repaint:
    """A kept backing of several layers to repaint in place because the paint of some of
    its members alone changed: what BackedDrawing._backing would find, found from its
    cache entry and the changed members only (graph.fast_path)."""

    site: Site
    space: Affine
    origin: tuple[int, int]
    cache_id: str
    label: str
    fill: tuple[float, float, float, float]
    key: tuple  # the backing's cache key now
    texture: TextureDesc
    damage: tuple[int, int, int, int] | None  # None: what it paints did not change after all


class RetainedFastPath:
    """The retained fast path, for the Planner."""

    def _request_key(self) -> tuple:
        """What a kept plan must share with this frame besides the time."""
        return (weakref.ref(self.scene), self.scene.width, self.scene.height, self.device_scale, self.base_dir, self.policy,
                self.filter_backend, self.limits, document_in_force())  # the SVG filters at this frame's time

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
        damage from the draws that changed. A context whose filter or backdrop-filter
        parameters alone changed is planned again alone (``_redo_effects``)."""
        if last is None or self.cache is None or not self.state.fast_path or changes.rebuilt or last.cache_frame != self.cache.frames:
            return self._whole(f"the layer tree changed: {changes.why}"
                               if last is not None and changes.rebuilt and (last.graph.contexts3d or self.trees.has_3d_contexts)
                               else None)
        key = self._request_key()
        if last.key[0]() is not self.scene or last.key[1:] != key[1:]:
            return None
        self.out.page_fill = tuple(last.clear) if last.clear[3] >= 1.0 else None  # (build resets it if this fails)
        site_of = last.site_of
        redo: dict[int, Site] = {}
        faded: dict[str, float] = {}  # layer id -> its draw's new opacity
        effects = self._effects_to_redo(last, changes)  # index of its frame draw -> its Footprint
        if effects is None:
            return None
        refiltered = {fp.ctx.node.id for fp in effects.values()}
        flattened = self._flattened_to_redo(last, changes, refiltered)
        if flattened is None:
            return self._whole("a moved member of a 3D rendering context was drawn inside another draw")
        effects.update(flattened)
        redone_roots = {fp.ctx.node.id for fp in effects.values()}
        if any(c.target != "frame" and self._holder(last, c.root) not in redone_roots for c in last.graph.contexts3d):
            # That surface's kept draws would keep last frame's order (its rasters still reused).
            return self._whole("a 3D rendering context is sorted inside a surface that is not planned again")
        inside = {layer_id for fp in flattened.values() for layer_id in _subtree_ids(fp.ctx)}
        painted: dict[int, set[str]] = {}  # site index -> its members whose paint alone changed
        for layer_id, what in changes.fields.items():
            if layer_id in refiltered:
                continue
            if layer_id in inside:
                if what - MOVABLE:
                    return None  # its surface is planned again for a move alone
                continue
            if what & PAINT_FIELDS:
                index = site_of.get(layer_id)
                if what - PAINT_FIELDS or index is None or not self.trees.nodes[layer_id].draws_content():
                    return None  # moved or faded too, drawn elsewhere, or no longer painting
                painted.setdefault(index, set()).add(layer_id)
                continue
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
                    # drawn elsewhere (inside a surface), read back, or culled: may change
                    return self._whole(f"{layer_id} was not drawn last frame (a hidden back face, culled) "
                                       "or is drawn inside another draw" if node.context3d is not None else
                                       f"{layer_id} is drawn inside another draw or was culled last frame")
                continue  # paints nothing itself: only its descendants' draws matter
            if self.trees.nodes[layer_id].style.backdrop_filter is not None:
                # Its filtered backdrop is a draw apart from its content, made from what
                # lies under where it was (each moved descendant is a change of its own).
                return self._whole(f"{layer_id} moved with a backdrop-filter: its backdrop is read again "
                                   "from under where it is now")
            redo[index] = last.sites[index]
        # A repainted lone layer is drawn again as a moved one is; a backing of several
        # layers is repainted in place from its members that changed (a site redone for a
        # move is planned whole, its paint with it).
        repaints: dict[int, Repaint] = {}
        alone: set[int] = set()  # sites redone for their paint alone (their bounds stand)
        for index, layers in painted.items():
            if index in redo:
                continue
            site = last.sites[index]
            if isinstance(site.entry, PendingDraw) or (len(site.members) == 1 and site.entry.kind in (BackingKind.OWN, BackingKind.BASE)):
                redo[index] = site
                alone.add(index)
                continue
            repaint = self._repaint_plan(site, layers)
            if repaint is None:
                return None
            repaints[index] = repaint
        # Every pass of last frame must be redone by this one as it is: a moved entry's
        # own, the frame's, a read-back's, or the work of a draw remade every frame (a
        # surface). A kept texture made last frame (a new raster, a filter result just
        # cached) would only be reused now: then plan from scratch.
        kept: set[int] = set()
        for i, work in enumerate(last.work):
            if not work or i in redo or i in repaints or i in effects:
                continue
            if last.final[i].source.retained or any(p.target.retained for p in work):
                settled = self._settled_effect(last, i)
                if settled is None:
                    return None  # it made a texture that is kept: this frame would reuse it
                effects[i] = settled  # a filter that made its result last frame: planned alone, it reuses it
                continue
            if not all(self.available(t.name) for p in work for t in p.reads() if t.retained):
                return None  # a kept texture it reads is gone: planning makes it again
            kept.update(id(p) for p in work)
        per_frame = {id(p) for read in last.reads if read is not None for p in read.after}
        # (and the copies of them each later piece of a split reader ran: made anew too)
        per_frame_names = {p.name for read in last.reads if read is not None for p in read.after}
        per_frame.update(id(p) for p in last.graph.passes if p.name not in per_frame_names
                         and unpieced(p.name) in per_frame_names)
        redone = {name for site in (*redo.values(), *(r.site for r in repaints.values())) for name in site.passes}
        redone_ids = {id(p) for fp in effects.values() for p in fp.passes}  # the effects' own, planned anew
        if not redone_ids.isdisjoint(kept) or not redone_ids.isdisjoint(per_frame):
            # A redone effect nested in another draw's kept work (or run after a kept
            # read-back): its old passes would run beside its new ones.
            return None
        left = [p for p in last.graph.passes if not (id(p) in kept or id(p) in per_frame or p.name in redone
                                                      or id(p) in redone_ids or p.target.name == frame.name
                                                      or isinstance(p, BackdropPass))]
        # (the frame's segments and its read-backs are made anew below)
        settled = self._settled(last, left, {*redo, *repaints, *effects})
        if settled is None:
            return None
        if not self._kept_plan_holds(last, frame):
            return None
        # Under the browser policy a moved entry's bounds decide what overlaps it. An
        # animation's sweep fixes them for the iteration; a move through the API stands
        # when it is one promoted entry and the same later layers overlap it as before.
        # A member moved through the API under an animated ancestor: the sweep its bounds
        # come from is not the one last frame's decisions were made with.
        api_moved = {layer_id for layer_id, what in changes.fields.items() if what & TRANSFORM_FIELDS
                     and not runs_transform_animation(self.trees.nodes[layer_id].layer, self.t)}
        moving = {i: site for i, site in redo.items() if i not in alone}
        unswept = []
        for i, site in moving.items():
            if not self.policy.uses_backings:
                continue
            if not swept(site, self.t):
                unswept.append(i)
            elif api_moved.intersection(site.members):
                return None
        # Several moved entries without a sweep: members of 3D rendering contexts (promoted
        # by Preserve3D, not overlap-tested), each checked against the later layers moved.
        if unswept and (last.overlap is None or self.memory_budget is not None
                        or (len(moving) > 1 and (len(unswept) != len(moving) or not all(
                            last.overlap.promoted_alone(moving[i].members) for i in unswept)))
                        or any(isinstance(redo[i].entry, PendingDraw) or redo[i].entry.kind is not BackingKind.OWN
                               or (last.reads and last.reads[i] is not None) for i in unswept)):
            return None
        target = self._frame_target()
        # Every moved member must still be drawn: last frame's decisions stand only then.
        pending_of = {}
        for index, site in redo.items():
            pending = self._pending_again(site, target, faded)
            if pending is None:
                return self._whole("a moved layer is no longer drawn (culled, clipped away or a hidden back face)"
                                   if last.graph.contexts3d else None)
            pending_of[index] = pending
        overlap = last.overlap
        if unswept:
            to_target = target.from_screen()
            rects = {i: {p.node.id: touched(p.node.ink_rect, to_target @ p.node.to_screen) for p in pending_of[i]}
                     for i in unswept}
            after = overlap.moved({k: r for moved in rects.values() for k, r in moved.items()})
            for index in unswept:
                site = redo[index]
                moved = Rect.union(list(rects[index].values()))
                if not overlap.stands(site.members, site.entry.rect, moved, after):
                    # what overlaps it changed: its overlap decisions are made again
                    return self._whole("what overlaps a moved member of a 3D rendering context changed"
                                       if last.graph.contexts3d else None)
                redo[index] = replace(site, entry=replace(site.entry, rect=moved))
            overlap = after
        saved = self.cache.snapshot()  # what giving up from here on restores
        self.cache.carry_over(but=frozenset(key for fp in effects.values() for key in fp.cache_keys))
        sites = list(last.sites)
        self.out.layer_info = dict(last.graph.layer_info)
        # Last frame's decisions hold (a settle is over: compositor.raster_scale.carried).
        self.out.raster_scales = {k: carried(v) for k, v in last.graph.raster_scales.items()}
        self.out.routes = dict(last.graph.routes)  # a context redone below decides its own again
        final = list(last.final)
        # In the order planning from scratch makes them (their new textures are named in
        # that order): the walk's effects first, then the frame target's draws.
        redone_effects = self._redo_effects(effects, last, target, final)
        if redone_effects is None:  # an effect is drawn otherwise than last frame
            self._whole("a 3D flattening surface is drawn otherwise than last frame" if flattened else None)
            return self._give_up(saved)
        if redone_effects:
            stands, overlap = self._effects_overlap(redone_effects, last, overlap)
            if not stands:  # what overlaps a refiltered element changed
                self._whole("what overlaps a moved 3D flattening surface changed" if flattened else None)
                return self._give_up(saved)
        replaced = set()
        for index in sorted({*redo, *repaints}):
            if index in repaints:  # its draw stays: the texture it shows is repainted in place
                made = len(self.out.passes)
                repaint = repaints[index]
                self._apply_repaint(repaint)
                replaced.add(repaint.texture.name)
                sites[index] = replace(repaint.site, passes=frozenset(p.name for p in self.out.passes[made:]))
                continue
            site = redo[index]
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
                    return self._give_up(saved)  # its backing came out empty
                final[index] = draw
                sites[index] = replace(site, entry=entry)
        for i, read in enumerate(last.reads):
            if read is not None and i not in redo and i not in effects:
                self.out.reads[id(final[i])] = read
        walk = self._walk_passes(last, kept, redone_effects)
        if walk is None:
            return self._give_up(saved)
        self.out.passes = walk + self.out.passes
        self.out.tile_sets = [replace(ts, rastered=0) for ts in last.graph.tiles]  # kept draws: their tiles stay
        self.out.decisions = list(last.graph.decisions)
        for layer_id in faded:  # its decision says the opacity it has now
            self.out.decisions[last.opacity_notes[layer_id]] = opacity_in_draw(layer_id, layer_id,
                                                                           self.trees.nodes[layer_id].style.opacity)
        # Reused now: what last frame reused, but the box shadows its new rasters read
        # (a repainted backing's members: what this frame rasters anew reuses its own
        # again), and the textures of the settled draws; as cache lookups find them when
        # planning from scratch. (A redone effect's reuses are counted against last
        # frame's by _splice_effects.)
        read_by_rasters = {p.shadows.name for p in last.graph.passes if isinstance(p, RasterPass)
                           and p.shadows is not None and id(p) not in kept and id(p) not in per_frame
                           and id(p) not in redone_ids}
        self.out.reused = [n for n in last.graph.reused
                           if n not in replaced and n != frame.name and n not in read_by_rasters] + self.out.reused
        listed = set(self.out.reused)
        self.out.reused += [n for n in (last.final[i].source.name for i in settled) if n not in listed]
        self.cache.let_go_of_shadows({p.layer_id for p in self.out.passes if isinstance(p, (RasterPass, ShadowPass))})
        notes, footprints = last.opacity_notes, last.effects
        if redone_effects:
            notes, footprints = self._splice_effects(redone_effects, last)
        self.out.images_seen = list(last.images)
        self.out.images_seen += [seen for made in redone_effects.values() for seen in made.images
                             if seen not in last.images]
        drawn, context_notes = self._sort_contexts_again(tuple(final), last, target)
        if drawn is None:
            self._whole("a 3D rendering context appeared, went or changed its members' drawing"
                        if last.graph.contexts3d or self.out.contexts3d else None)
            return self._give_up(saved)
        graph = self._frame_graph(drawn, last.clear, frame)
        work = tuple(None if i in redo or i in repaints or i in settled else
                     redone_effects[i].passes if i in redone_effects else w for i, w in enumerate(last.work))
        reads = tuple(redone_effects[i].read if i in redone_effects else r for i, r in enumerate(last.reads))
        self.state.last = replace(last, key=key, graph=graph, final=tuple(final), cache_frame=self.cache.frames,
                                  work=work, sites=tuple(sites), overlap=overlap, reads=reads, opacity_notes=notes,
                                  effects=footprints, images=tuple(self.out.images_seen), scrolls={},
                                  context_notes=context_notes)
        return graph

    # -- 3D rendering contexts (graph.contexts3d) ---------------------------------------
    def _flattened_to_redo(self, last: "RetainedPlan", changes: TreeChanges,
                           refiltered: set[str]) -> dict[int, Footprint] | None:
        """The surfaces drawn in the frame that hold moved members of 3D rendering
        contexts, by the index of their one frame draw: a member's own surface in its
        plane (3D flattening: a card with a label), or the surface of a flattening
        ancestor its whole context is sorted in (an opacity group, a filter). Each is
        planned alone again (``_redo_effects``): its surface, the context sorted in it
        and its draw made anew from the new 4x4s. {} when none; None when such a surface
        made no draw of its own last frame (plan from scratch)."""
        out: dict[int, Footprint] = {}
        for layer_id, what in changes.fields.items():
            node = self.trees.nodes.get(layer_id)
            if node is None or node.context3d is None or layer_id in refiltered or not what <= MOVABLE \
                    or layer_id in last.site_of:
                continue  # not a member, or drawn from a site of its own (redone as moved)
            holder = self._holder(last, layer_id)
            if holder is None:
                continue  # in no surface drawn in the frame: _retained decides on its draws
            footprint = self._effect_footprint(last, holder)
            if footprint is None:
                return None
            out[footprint.index] = footprint
        return out

    def _holder(self, last: "RetainedPlan", layer_id: str) -> str | None:
        """The layer itself or its nearest ancestor that last frame drew into the frame
        as one draw of its own through a surface (its Footprint: a context the fast path
        can plan alone again), or None."""
        node = self.trees.nodes.get(layer_id)
        while node is not None:
            if last.effects.get(node.id) is not None:
                return node.id
            parent = node.layer.parent
            node = self.trees.nodes.get(parent.id) if parent is not None else None
        return None

    def _sort_contexts_again(self, final: tuple[Draw, ...], last: "RetainedPlan",
                             target: Target) -> tuple[tuple[Draw, ...] | None, tuple]:
        """The frame's draws with its 3D rendering contexts sorted and split again from
        their members' 4x4s now (graph.contexts3d), and their decisions put where last
        frame's were; (None, ()) when the contexts drawn are not those of last frame (one
        appeared or went: its decision is new, plan from scratch)."""
        noted = len(self.out.decisions)
        drawn = self.order_contexts(final, target, "root")
        made = self.out.decisions[noted:]
        del self.out.decisions[noted:]
        if len(made) != len(last.context_notes) or [d.layer_id for d in made] != [d.layer_id for d in last.context_notes]:
            return None, ()
        if made:
            first = last.context_notes[0]
            at = next((i for i, d in enumerate(self.out.decisions) if d is first), None)
            if at is None:
                return None, ()
            self.out.decisions[at:at + len(made)] = made
        return drawn, tuple(made)

    def _kept_plan_holds(self, last: "RetainedPlan", frame: TextureDesc) -> bool:
        """Does what last frame's plan relied on still hold: no image it looked up has
        changed, and the executor still has the frame, every kept texture drawn in it and
        every one it reused (a filtered layer's raster, a shadow)?"""
        for ref, layer_id, image_key in last.images:
            if self.images.get(ref, self.base_dir, layer_id)[0] != image_key:
                return False
        if not self.available(frame.name) or not all(self.available(d.source.name) for d in last.final if d.source.retained):
            return False
        return all(self.available(name) for name in last.graph.reused if name != frame.name)

    def _give_up(self, saved: tuple) -> None:
        """The fast path cannot finish the frame after it began to emit: the cache goes
        back to how the frame found it, and what was emitted is dropped (build plans the
        frame from scratch into a new FrameOutput)."""
        self.cache.restore(saved)
        return None

    def _whole(self, why: str | None) -> None:
        """Give up, saying why a frame with 3D rendering contexts is planned whole
        (FrameGraph.planned_whole; the reports show it)."""
        if why:
            self.state.planned_whole = why
        return None

    def _repaint_plan(self, site: Site, layers: set[str]) -> Repaint | None:
        """How to repaint in place the kept backing a site draws, when only the paint of
        ``layers`` (members of it) changed: the backing's cache key with their new
        paints, and the rect where they lie (as BackedDrawing._backing would find by
        comparing every member). None when its texture or records are gone, or the rect
        falls outside it (then it is painted anew: plan from scratch)."""
        target = self._frame_target()
        space, _, cache_id, label, fill = self._backing_frame(site.entry, target, "root", site.squash_index)
        kept = self.cache.peek(cache_id)
        bounds = self._bounds_memo.get(cache_id)
        if kept is None or bounds is None or not self.available(kept[1].name):
            return None
        (origin, w, h, signature, old_fill), texture = kept
        if old_fill != fill or len(signature) != len(site.members) or len(bounds) != len(signature):
            return None
        members = site.members
        sig = list(signature)
        changed = []
        for layer_id in layers:
            i = members.index(layer_id)
            paint, *rest = sig[i]
            sig[i] = (self._paint(self.rastered(self.trees.nodes[layer_id])[0], paint.offset), *rest)
            changed.append(i)
        key = (origin, w, h, tuple(sig), fill)
        region = changed_region([sig[i] for i in changed], [signature[i] for i in changed],
                                [bounds[i] for i in changed], [bounds[i] for i in changed])
        if region is None:
            return Repaint(site, space, origin, cache_id, label, fill, key, texture, None)
        damage = region.intersect(Rect(0, 0, w, h)).rounded_out()
        if damage.is_empty():
            return None
        return Repaint(site, space, origin, cache_id, label, fill, key, texture,
                       (int(damage.x), int(damage.y), int(damage.width), int(damage.height)))

    def _apply_repaint(self, r: Repaint) -> None:
        """Repaint the backing as planned (BackedDrawing._repaint), or keep it as it is."""
        self.cache.update(r.cache_id, r.key)
        if r.damage is None:
            self.out.reused.append(r.texture.name)
            return
        target = self._frame_target()
        backing_to_target = target.from_screen() @ (r.space.inverse() @ Affine.translate(*r.origin))
        members = r.site.entry.members

        def clips_of(i: int) -> tuple:
            return tuple(reframe(c, backing_to_target) for c in members[i].clips)

        self._repaint(r.site.entry, r.space, r.origin, clips_of, self._bounds_memo[r.cache_id], r.damage, r.texture,
                      r.label, r.fill)

    def _settled(self, last: "RetainedPlan", left: list, redone: set[int]) -> list[int] | None:
        """The draws of last frame whose passes (``left``: those no other rule keeps or
        redoes) made the kept texture they show, and nothing else: a layer's raster with
        its kept box shadows, or a backing painted from its members' rasters. Their
        members unchanged, planning now would find those textures in the cache and do
        none of that work, so the draws are settled: their passes go, their textures are
        reused. None when a pass is left that is not such work (plan from scratch)."""
        if not left:
            return []
        # (A tile's draw has no site: its scroller's decision counts the tiles rastered.)
        shows = {d.source.name: i for i, d in enumerate(last.final)
                 if d.source.retained and i not in redone and last.sites[i] is not None}
        settled: dict[int, None] = {}
        read: set[str] = set()
        layers: set[str] = set()
        for p in left:
            i = shows.get(p.target.name)
            if i is not None:
                settled[i] = None
                read.update(t.name for t in p.reads())
                layers.update(last.sites[i].members if last.sites[i] is not None else ())
        for p in left:
            if p.target.name in shows:
                continue
            if p.target.retained:
                if p.target.role is not TextureRole.SHADOW or p.layer_id not in layers:
                    return None  # a kept texture that no settled draw shows
            elif p.target.name not in read:
                return None  # work that no settled draw reads
        return list(settled)

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
        return _inherited_opacity(self.trees, node) * s.opacity

    def _pending_again(self, site: Site, target: Target, faded: dict[str, float]) -> tuple | None:
        """The site's members as pending draws now (a faded one with its new opacity), or
        None if one is no longer drawn (culled or clipped away: last frame's decisions
        would not stand)."""
        out = []
        for layer_id in site.members:
            node = self.trees.nodes[layer_id]
            drawn: list = []
            decisions = len(self.out.decisions)
            self.draw_node(node, drawn, target, faded.get(layer_id, member_opacity(site, layer_id)))
            if not drawn:
                del self.out.decisions[decisions:]
                return None
            out.append(drawn[0])
        return tuple(out)

    # -- effects whose parameters changed (a filter's amount, a backdrop-filter's) ------
    def _effects_to_redo(self, last: "RetainedPlan", changes: TreeChanges) -> dict[int, Footprint] | None:
        """The frame-level stacking contexts whose filter or backdrop-filter alone changed,
        by the index of their one frame draw, when each can be planned alone again: it
        made one draw of its own last frame (a filter's result, a filtered backdrop; no
        tiles), and its effect is still there (a filter turned to none, or from none,
        changes what is drawn and how: planned from scratch). None: plan from scratch."""
        out: dict[int, Footprint] = {}
        for layer_id, what in changes.fields.items():
            if not what <= EFFECT_AMOUNTS:
                continue  # the moved and faded layers are _retained's
            footprint = self._effect_footprint(last, layer_id)
            node = self.trees.nodes.get(layer_id)
            if footprint is None or node is None:
                return None
            if ("filter" in what and node.style.filter is None) or \
                    ("backdrop_filter" in what and node.style.backdrop_filter is None):
                return None  # its surface or read-back is gone: what is drawn changes
            out[footprint.index] = footprint
        return out

    def _settled_effect(self, last: "RetainedPlan", index: int) -> Footprint | None:
        """The Footprint of the filtered context (filter or backdrop-filter) whose draw is
        the frame's ``index``-th, when it made kept textures last frame (its new result,
        after its amount changed) and can be planned alone again, reusing them as
        planning from scratch does (the frame after a slider stops); else None."""
        layer_id = last.final[index].layer_id
        footprint = self._effect_footprint(last, layer_id)
        node = self.trees.nodes.get(layer_id)
        if footprint is None or footprint.index != index or node is None \
                or (node.style.filter is None and node.style.backdrop_filter is None):
            return None
        return footprint

    def _effect_footprint(self, last: "RetainedPlan", layer_id: str) -> Footprint | None:
        """The Footprint of a context that made one frame draw of its own, no backing's
        and no tiles, when it can be planned alone again; else None."""
        footprint = last.effects.get(layer_id)
        if footprint is None or footprint.tiles or last.sites[footprint.index] is not None \
                or last.final[footprint.index].layer_id != layer_id:
            return None
        return footprint

    def _redo_effects(self, effects: dict[int, Footprint], last: "RetainedPlan", target: Target,
                      final: list) -> dict[int, "RedoneEffect"] | None:
        """Plan each changed effect's context alone, as the walk over the frame target
        plans it (``emit_context`` with its ancestors' opacity), and put its new draw in
        ``final``. What it adds to the frame (passes, decisions, kept textures reused,
        layer facts, a read-back) is returned for _retained to put where last frame's
        were. It must make what it made last frame: one draw of its own, and the same
        pending layer draws (a filtered backdrop's element): else None (plan from scratch)."""
        out: dict[int, RedoneEffect] = {}
        for index, footprint in sorted(effects.items()):
            ctx = footprint.ctx
            # Its layers' facts are made anew; those not made again (a layer culled now)
            # are dropped after. (Deleting only those keeps the dict compact: a dict with
            # deleted entries is copied entry by entry, next frame, at the page's cost.)
            facts = {layer_id: self.out.layer_info.get(layer_id) for layer_id in _subtree_ids(ctx)}
            passes, noted, reused, seen = len(self.out.passes), len(self.out.decisions), len(self.out.reused), len(self.out.images_seen)
            notes, tiles = set(self.out.opacity_notes), len(self.out.tile_sets)
            items: list = []
            with self._noting_cache() as used:
                self.emit_context(ctx, items, target, _inherited_opacity(self.trees, ctx.node))
            draws = [d for d in items if isinstance(d, Draw)]
            if len(items) != footprint.items or len(draws) != 1 or len(self.out.tile_sets) != tiles \
                    or not all(self._pending_as_before(p, last) for p in items if isinstance(p, PendingDraw)):
                return None  # it is drawn otherwise than last frame: its decisions are made anew
            frame_level = {p.node.id for p in items if isinstance(p, PendingDraw)}  # a filtered backdrop's element:
            for layer_id, old in facts.items():  # drawn in the frame target, its facts stand
                if old is not None and layer_id not in frame_level and self.out.layer_info.get(layer_id) is old:
                    del self.out.layer_info[layer_id]
            read = self.out.reads.get(id(draws[0]))
            if (read is None) != (last.reads[index] is None):
                return None
            made = RedoneEffect(draws[0], tuple(self.out.passes[passes:]), self.out.decisions[noted:],
                                {k: v - noted for k, v in self.out.opacity_notes.items() if k not in notes}, read,
                                replace(footprint, reused=tuple(self.out.reused[reused:]), cache_keys=tuple(used),
                                        passes=tuple(self.out.passes[passes:])),
                                tuple(self.out.images_seen[seen:]))
            del self.out.passes[passes:], self.out.decisions[noted:]  # _walk_passes and _splice_effects place them
            self.out.keep.append(draws[0])
            final[index] = draws[0]
            out[index] = made
        return out

    def _pending_as_before(self, p: PendingDraw, last: "RetainedPlan") -> bool:
        """Is a layer draw a redone context gave its target the one it gave last frame
        (a filtered backdrop's element, drawn over it in the frame target)?"""
        index = last.site_of.get(p.node.id)
        if index is None or last.sites[index] is None:
            return False
        entry = last.sites[index].entry
        for q in ((entry,) if isinstance(entry, PendingDraw) else entry.members):
            if q.node is p.node:
                return q == p
        return False

    def _effects_overlap(self, redone: dict[int, "RedoneEffect"], last: "RetainedPlan",
                         overlap: "OverlapRecord | None") -> tuple[bool, "OverlapRecord | None"]:
        """Under a policy with backings, each redone effect's draw is overlap-tested
        content of the frame target: its new bounds (a blur's reach grows them) must
        leave every overlap decision as it was (OverlapRecord.effect_stands), else the
        frame is planned from scratch. Whether they do, and the record with the new
        bounds."""
        if not self.policy.uses_backings:
            return True, overlap
        for index, made in redone.items():
            layer_id = made.draw.layer_id
            old, new = _draw_bounds(last.final[index]), _draw_bounds(made.draw)
            if overlap is None or not overlap.effect_stands(layer_id, old, new):
                return False, None  # what overlaps it changed: its overlap decisions are made again
            overlap = overlap.effect_resized(layer_id, new)
        return True, overlap

    def _walk_passes(self, last: "RetainedPlan", kept: set[int], redone: dict[int, "RedoneEffect"]) -> list | None:
        """Last frame's kept walk passes in order, each redone effect's new passes where
        its old ones were (the walk plans the contexts in paint order)."""
        if not redone:
            return [p for p in last.graph.passes if id(p) in kept]
        owner = {id(p): i for i, made in redone.items() for p in last.effects[made.footprint.ctx.node.id].passes}
        waiting = dict(redone)
        out = []
        for p in last.graph.passes:
            i = owner.get(id(p))
            if i in waiting:
                out.extend(waiting.pop(i).passes)
            elif id(p) in kept:
                out.append(p)
        if waiting and out:
            return None  # an effect that made no passes last frame: where its new ones go is not known here
        for i in sorted(waiting, key=lambda i: waiting[i].footprint.order):
            out.extend(waiting[i].passes)
        return out

    def _splice_effects(self, redone: dict[int, "RedoneEffect"], last: "RetainedPlan") -> tuple[dict, dict]:
        """Put each redone effect's decisions where its old ones were in the frame's
        decisions and count its reused textures instead of the old ones; return the
        opacity notes and footprints for the next frame, moved by what it added."""
        spans = sorted(redone.values(), key=lambda made: made.footprint.order)  # paint order
        for made in reversed(spans):
            a, b = made.footprint.decisions
            self.out.decisions[a:b] = made.decisions
        growth = {m.footprint.order: len(m.decisions) - (m.footprint.decisions[1] - m.footprint.decisions[0])
                  for m in spans}

        def after(pos: int) -> int:  # a decision of last frame outside the spans: where it is now
            return pos + sum(growth[m.footprint.order] for m in spans if m.footprint.decisions[1] <= pos)

        def before(order: int) -> int:  # how far the effects painted before ``order`` moved its decisions
            return sum(grown for o, grown in growth.items() if o < order)

        notes = {k: after(v) for k, v in (last.opacity_notes or {}).items()
                 if not any(m.footprint.decisions[0] <= v < m.footprint.decisions[1] for m in spans)}
        footprints = {}
        for layer_id, fp in last.effects.items():
            footprints[layer_id] = replace(fp, decisions=(fp.decisions[0] + before(fp.order),
                                                          fp.decisions[1] + before(fp.order)))
        for m in spans:
            start = m.footprint.decisions[0] + before(m.footprint.order)
            notes.update({k: start + v for k, v in m.notes.items()})
            footprints[m.footprint.ctx.node.id] = replace(m.footprint, decisions=(start, start + len(m.decisions)))
        gone = Counter(name for m in spans for name in last.effects[m.footprint.ctx.node.id].reused)
        reused = []
        for name in self.out.reused:  # last frame's reuses by the effects are counted by their new ones
            if gone[name] > 0:
                gone[name] -= 1
            else:
                reused.append(name)
        self.out.reused = reused
        return notes, footprints


@dataclass(frozen=True)
class RedoneEffect:
    """What planning one changed effect's context alone made (RetainedFastPath._redo_effects)."""

    draw: Draw
    passes: tuple
    decisions: list
    notes: dict[str, int]  # opacity notes, by position in ``decisions``
    read: object  # its BackdropRead, or None
    footprint: Footprint  # last frame's, with the kept textures it reused now
    images: tuple  # the images it looked up (one of a layer culled last frame may be new)


def _subtree_ids(ctx) -> list[str]:
    """The ids of a stacking context's layers, nested contexts included."""
    out, stack = [], [ctx]
    while stack:
        c = stack.pop()
        out.append(c.node.id)
        for item in c.items:
            if isinstance(item, StackingContext):
                stack.append(item)
            else:
                out.append(item.id)
    return out


def _inherited_opacity(trees, node) -> float:
    """The opacity the walk hands a context: its ancestors', multiplied root first (as
    emit_context multiplies them: the same floats)."""
    ancestors = []
    layer = node.layer.parent
    while layer is not None:
        ancestors.append(layer)
        layer = layer.parent
    inherited = 1.0
    for layer in reversed(ancestors):
        inherited = inherited * trees.nodes[layer.id].style.opacity
    return inherited


def _draw_bounds(draw: Draw) -> Rect:
    """The pixels a draw can touch in its target, as the backing partition bounds it."""
    return touched(Rect(0, 0, *draw.quad_size), draw.transform)
