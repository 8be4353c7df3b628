"""The planner's effect work (a part of graph.planner.Planner, kept apart so each file has
one job): a stacking context's effects in CSS order (backdrop-filter, filter, mask,
opacity, blend) and the render surfaces they need: group surfaces (opacity over several
drawing layers, isolated groups, backdrop roots, blends), backdrop-filter read-backs,
filter surfaces and their kept results. The methods read the planner's inputs and
cache and emit into its FrameOutput (passes, decisions, reads: graph.output)."""

from __future__ import annotations

import math
from dataclasses import replace

from ..errors import UnsupportedFeatureError
from ..framegraph import CompositePass, ContextRoute, Decision, Draw, Route, SurfaceReason, TextureDesc, TextureRole
from ..geometry import Affine, Rect
from ..blending import BlendMode
from ..compositor.groups import has_backdrop_readers, has_blend_readers, is_backdrop_root
from ..compositor.paint import used_radii
from ..compositor.tree import LayerNode, StackingContext
from .reads import backdrop_region, blend_read, split_at_reads
from .placement import clip_shape, snap
from .targets import BackdropRead, Target
from .masks import MaskedDrawing
from .routes import route_context
from ..filter_costs import Placement, place
from ..textures import Executor
from .filter_tasks import filter_tasks
from .svg_refs import svg_decisions, svg_filter_elements

__all__ = ["EffectDrawing", "FRAME_WIDE", "LARGE_GROUP_SHARE", "opacity_in_draw"]

FRAME_WIDE = "auto: placed by the frame-wide schedule"  # a pass's why until the schedule says more

# An isolated group's surface this large a share of the viewport is reported as a
# performance trap (a blend deep in a big container flattens the whole container).
LARGE_GROUP_SHARE = 0.25


def opacity_in_draw(layer_id: str, drawn_id: str, opacity: float) -> Decision:
    """The decision that a layer's opacity goes into the draw of its one drawing layer
    (the retained fast path rewrites it when only the opacity changed)."""
    return Decision(layer_id, f"opacity {opacity:g} applied in the draw of {drawn_id!r}: one drawing layer needs no surface")


class EffectDrawing:
    """Effects and their render surfaces, for the Planner."""

    def _emit_effects(self, ctx: StackingContext, out: list, target: Target, opacity: float, *,
                      as_one_draw: bool = False) -> None:
        """The context's effects in CSS order and the surfaces they need, by the route
        graph.routes decides for it (recorded in the FrameOutput); with ``as_one_draw``,
        the context ends as one Draw (for a blend mode). An emitter that finds its effect
        does nothing here declines, and the next route is decided without it."""
        node = ctx.node
        self.note_clip_path(node)
        declined: frozenset[Route] = frozenset()
        while True:
            route = route_context(ctx, as_one_draw=as_one_draw, backdrop_root=target.backdrop_root,
                                  tiled=self._tiled_layer, declined=declined)
            self.out.routes[node.id] = route  # before its descendants': paint order (a decline rewrites it)
            if _EMITTERS[route.route](self, ctx, route, out, target, opacity):
                return
            declined |= {route.route}

    def _tiled_layer(self, node: LayerNode) -> bool:
        return self._tiled(f"layer {node.id!r}", math.ceil(node.width), math.ceil(node.height))

    def _emit_group(self, ctx: StackingContext, route: ContextRoute, out: list, target: Target, opacity: float) -> bool:
        self.emit_group_surface(ctx, out, target, opacity, route.surface, route.detail)
        return True

    def _emit_one_draw(self, ctx: StackingContext, route: ContextRoute, out: list, target: Target, opacity: float) -> bool:
        """One drawing layer, the element itself: its raster is blended directly (no
        surface), as viz draws a single-quad pass into its parent."""
        node = ctx.node
        pending: list = []
        self.draw_node(node, pending, target, opacity)
        for p in pending:
            if self._tiled(f"layer {node.id!r}", math.ceil(node.width), math.ceil(node.height), node.id):
                raise UnsupportedFeatureError(
                    f"mix-blend-mode on a layer larger than the tiling threshold ({self.tiling.threshold} px) "
                    "is not supported yet", property="mix-blend-mode", layer=node.id)
            out.append(self._layer_draw(p, target.space, target.origin, p.clips, sampled=self._moving(p.node)))
        return True

    def _emit_in_target(self, ctx: StackingContext, route: ContextRoute, out: list, target: Target, opacity: float) -> bool:
        node = ctx.node
        if route.opacity_into is not None:
            self.out.opacity_notes[node.id] = len(self.out.decisions)  # the fast path rewrites it by position
            self.out.decisions.append(opacity_in_draw(node.id, route.opacity_into, node.style.opacity))
        self.emit_items(ctx, out, target, opacity)
        return True

    def _blending(self, draw: Draw, mode: BlendMode, target: Target) -> Draw:
        """``draw`` composited with ``mode``: it reads a copy of the target under it. (A
        backdrop-filter's T' is not: its element blended inside it, see _surface_pass.)"""
        route = self.out.routes.get(draw.layer_id)
        if route is not None and route.route is Route.BACKDROP_FILTER:
            return draw
        made = blend_read(draw, mode, target.size)
        if made is None:
            return draw  # nothing of it shows: there is nothing to blend with
        blended, read = made
        self.out.reads[id(blended)] = read
        self.out.keep.append(blended)
        group = "the page (the frame)" if target.owner == "root" else f"the group of {target.owner!r} (its surface)"
        self.out.decisions.append(Decision(draw.layer_id, f"mix-blend-mode {mode}: blends with {group}, reading back the "
                                                      f"{read.copy.width}x{read.copy.height} px under it"))
        return blended

    def _content_bounds(self, ctx: StackingContext, space: Affine, cull: Rect | None, clips_from: int = 0) -> Rect | None:
        """Bounds, in ``space``, of what the context's layers can paint: each layer's own
        quad mapped directly (a rotated layer is not inflated twice), grown by the reach
        of filters on nested contexts (a child's shadow is part of the parent's content)."""
        rects: list[Rect] = []
        space_scale = space.max_scale()

        def visit(c: StackingContext, grow: float) -> None:
            if c.node.style.opacity <= 0.0:
                return
            if c is not ctx and c.node.style.filter is not None:
                m = c.node.to_screen
                scale = m.max_scale()
                grow += self._reach(c.node.style.filter, c.node.style.color, scale, (c.node.width, c.node.height),
                                    c.node.style.device_scale)
            g = grow * space_scale
            here = cull if cull is None or not grow else Rect(cull.x - grow, cull.y - grow, cull.width + 2 * grow, cull.height + 2 * grow)
            for n in [c.node, *(i for i in c.items if not isinstance(i, StackingContext))]:
                paints = n.draws_content() or n.style.backdrop_filter is not None  # a filtered backdrop shows too
                if not paints or self.visible_rect(n, here, clips_from if not grow else len(n.clips)) is None:
                    continue
                quad = n.ink_rect.transformed_bounds(space @ n.to_screen)
                quad = Rect(quad.x - g, quad.y - g, quad.width + 2 * g, quad.height + 2 * g)
                if space.is_translation() and not grow:
                    # What a clip hides never reaches the surface (with a nested filter
                    # between them, the clip may act before or after it: not cut then).
                    for clip in n.clips[clips_from:]:
                        quad = quad.intersect(clip.rect.transformed_bounds(space @ clip.to_screen))
                if not quad.is_empty():
                    rects.append(quad)
            for item in c.items:
                if isinstance(item, StackingContext):
                    visit(item, grow)

        visit(ctx, 0.0)
        bounds = Rect.union(rects)
        if bounds is not None and cull is not None and space.is_translation():
            bounds = bounds.intersect(cull.transformed_bounds(space))  # cut to what can show
        return bounds

    def _reach(self, chain, color, scale: float, box: tuple[float, float], device_scale: float = 1.0) -> float:
        """How far a filter's output reaches past its input (planned once per frame:
        nested filters ask for it once per enclosing surface)."""
        key = (chain, color, scale, box, device_scale)
        reach = self._reaches.get(key)
        if reach is None:
            reach = self._reaches[key] = max(chain.plan(current_color=color, scale=scale, box=box,
                                                        device_scale=device_scale).outsets)
        return reach

    def _surface_pass(self, ctx: StackingContext, bounds: Rect, space: Affine, cull: Rect | None, reason, detail: str,
                      cull_from: int, first: tuple[Draw, ...] = (), blend: BlendMode | None = None,
                      name: str = "surface") -> CompositePass:
        """The composite pass of a surface holding the context's layers (not yet added),
        after ``first`` (a backdrop-filter's filtered backdrop); with ``blend``, the layers
        are flattened into a surface of their own first, which blends with ``first``."""
        node = ctx.node
        sx, sy = int(bounds.x), int(bounds.y)
        w, h = int(bounds.width), int(bounds.height)
        # Everything but an isolated group is a backdrop root (groups.py says which).
        inner = Target((sx, sy), space, cull, len(node.clips), cull_from, (w, h),
                       backdrop_root=reason is not SurfaceReason.ISOLATION or is_backdrop_root(node), owner=node.id)
        self._check_size(f"the {reason.value} surface of layer {node.id!r}", w, h, node.id)
        tex = TextureDesc(f"{name}:{node.id}", w, h, TextureRole.RENDER_SURFACE)
        pass_name = f"composite:{node.id}" if name == "surface" else f"composite:{name}:{node.id}"
        if blend is not None:
            content = self._content_bounds(ctx, space, cull, cull_from)
            if content is None or content.is_empty():
                return CompositePass(pass_name, tex, (sx, sy), (0.0, 0.0, 0.0, 0.0), first, reason, detail)
            content = content.rounded_out()
            group = self._surface_pass(ctx, content, space, cull, SurfaceReason.BLEND,
                                       f"the element {node.id!r} flattened, to blend ({blend}) with its filtered backdrop",
                                       cull_from, name="content")
            self.out.passes.extend(self._composite_passes(group))
            flat = Draw(group.target, node.id, Affine.translate(content.x - sx, content.y - sy), 1.0, (),
                        note="the element, flattened")
            made = blend_read(flat, blend, (w, h))
            if made is None:
                return CompositePass(pass_name, tex, (sx, sy), (0.0, 0.0, 0.0, 0.0), first, reason, detail)
            blended, read = made
            self.out.reads[id(blended)] = read
            self.out.keep.append(blended)
            self.out.decisions.append(Decision(node.id, f"mix-blend-mode {blend}: blends with its filtered backdrop "
                                                    f"inside T', reading back the {read.copy.width}x"
                                                    f"{read.copy.height} px under it"))
            return CompositePass(pass_name, tex, (sx, sy), (0.0, 0.0, 0.0, 0.0), first + (blended,),
                                 reason, detail)
        items: list = []
        self.emit_items(ctx, items, inner, 1.0)
        draws = first + self.finalize(items, inner, f"{name}:{node.id}")
        return CompositePass(pass_name, tex, (sx, sy), (0.0, 0.0, 0.0, 0.0), draws, reason, detail)

    def _surface(self, ctx: StackingContext, bounds: Rect, space: Affine, cull: Rect | None, reason, detail: str, cull_from: int):
        """Plan a surface (a composite pass) holding the context's layers; return it."""
        surface = self._surface_pass(ctx, bounds, space, cull, reason, detail, cull_from)
        self.out.passes.extend(self._composite_passes(surface))
        return surface.target

    def _composite_passes(self, cp: CompositePass) -> list:
        """``cp``, split at the draws that read their backdrop (graph.reads)."""
        return split_at_reads(cp, self.out.reads)

    def emit_group_surface(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float,
                           reason: SurfaceReason, detail: str) -> None:
        """Flatten the context into a surface (for ``reason``), drawn with ``opacity``."""
        node = ctx.node
        # The surface covers what its layers can touch (in the target's space, rounded out
        # to whole pixels). Clips from above the context apply when the surface is drawn.
        bounds = self._content_bounds(ctx, target.space, target.cull, target.cull_from)
        if bounds is None or bounds.is_empty():  # (cut to nothing by the cull rect: no 0-px surface)
            self.out.decisions.append(Decision(node.id, "not drawn: its group lies outside the viewport or its clips"))
            return
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if clips is None:
            self.out.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return
        bounds = bounds.rounded_out()
        tex = self._surface(ctx, bounds, target.space, target.cull, reason, detail, target.cull_from)
        share = tex.width * tex.height / (self.frame_size[0] * self.frame_size[1])
        if reason is SurfaceReason.ISOLATION and share >= LARGE_GROUP_SHARE:
            self.out.decisions.append(Decision(node.id, (
                f"performance: the isolated group of {node.id!r} needs a {tex.width}x{tex.height} surface "
                f"({share:.0%} of the viewport) only because something inside it blends; isolating a smaller "
                "container around the blending element (isolation: isolate) keeps the surface small")))
        to_target = Affine.translate(bounds.x - target.origin[0], bounds.y - target.origin[1])
        out.append(Draw(tex, node.id, to_target, opacity, clips, note="render surface"))

    def emit_backdrop_filter(self, ctx: StackingContext, route: ContextRoute, out: list[Draw], target: Target,
                             opacity: float) -> bool:
        """Plan a backdrop-filter (Filter Effects 2 §2.1): copy what lies under the
        element's border box (grown by the filter's reach, the growth mirrored from
        inside: edge mode mirror), filter the copy, then a surface holding the filtered
        copy clipped to the border box (with its radii) and the element on top, drawn
        with the element's opacity. A transformed element reads and filters its backdrop
        in its own space, at the scale it is shown. False when the filter does nothing."""
        node = ctx.node
        s = node.style
        chain = s.backdrop_filter
        m = node.to_screen
        if not m.is_invertible():
            self.out.decisions.append(Decision(node.id, node.why_not_invertible()))
            return True
        to_target = target.from_screen() @ m  # element px -> target texels
        region, plan = backdrop_region(to_target, m, (node.width, node.height), target.size, chain, s.color,
                                       s.device_scale)
        if region is None:
            why = "does nothing: no read-back" if not plan.passes else "reads nothing: its box lies outside its target"
            self.out.decisions.append(Decision(node.id, f"backdrop-filter: {chain} {why}"))
            return False
        scale, where, (_, _, cw, ch) = region.scale, region.where, region.copy
        self._check_size(f"the backdrop copy of layer {node.id!r}", cw, ch, node.id)
        # (A blended element reads twice: the blend's copy keeps the plain name.)
        name = f"backdrop-filter:{node.id}" if s.mix_blend_mode is not BlendMode.NORMAL else f"backdrop:{node.id}"
        copy = TextureDesc(name, cw, ch, TextureRole.BACKDROP)
        to_source, mirror = region.to_source, region.mirror
        plan = chain.plan(current_color=s.color, scale=scale, size=(cw, ch), box=(node.width, node.height),
                          backdrop=True, device_scale=s.device_scale)
        self.out.decisions.extend(svg_decisions(node.id, "backdrop-filter", chain, plan))
        self._filter_key = None  # what lies under an element is read anew every frame
        filter_passes, result = self._filter_passes(node, plan, copy)
        # The element's surface, in the target's space: the filtered backdrop (clipped to
        # the border box and its radii), then the element and its descendants.
        on_target = Rect(0, 0, node.width, node.height).transformed_bounds(target.space @ m)
        # The element's own filter acts on T' (the filtered backdrop and the element
        # together), in the target's space: T' grows by its reach, and what the filter
        # can pull in from past the cull rect is drawn into T' too.
        element_plan = None
        if s.filter is not None:
            element_plan = s.filter.plan(current_color=s.color, scale=target.space.max_scale())
            if not element_plan.passes:
                self.out.decisions.append(Decision(node.id, f"filter: {s.filter} does nothing: not applied to T'"))
                element_plan = None
        reach = max(element_plan.outsets) if element_plan is not None else 0.0
        cull = target.cull
        if cull is not None and reach:
            cull = Rect(cull.x - reach, cull.y - reach, cull.width + 2 * reach, cull.height + 2 * reach)
        content = self._content_bounds(ctx, target.space, cull, target.cull_from)
        bounds = on_target if content is None else Rect.union([on_target, content])
        if element_plan is not None:
            top, right, bottom, left = element_plan.outsets
            bounds = Rect(bounds.x - left, bounds.y - top, bounds.width + left + right, bounds.height + top + bottom)
        if target.cull is not None and target.space.is_translation():
            bounds = bounds.intersect(target.cull.transformed_bounds(target.space))
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if bounds.is_empty() or clips is None:
            self.out.decisions.append(Decision(node.id, "not drawn: outside the viewport or its clips"))
            return True
        bounds = bounds.rounded_out()
        sx, sy = int(bounds.x), int(bounds.y)
        surface_to_target = Affine.translate(sx - target.origin[0], sy - target.origin[1])
        border_box = clip_shape(node.id, to_target.inverse() @ surface_to_target, (0.0, 0.0, node.width, node.height),
                                used_radii(s, node.width, node.height))
        backdrop = Draw(result, node.id, snap(surface_to_target.inverse() @ to_source), 1.0, (border_box,),
                        note="filtered backdrop, clipped to the border box")
        read = f"backdrop-filter of {node.id!r} reads the {cw}x{ch} px under it"
        # What a texel of the filtered copy depends on lies within the copy's growth of it
        # (a CSS chain in the target's pixels; not an SVG graph's region: feTile, feImage).
        local = to_target.is_translation() and not plan.region
        if (opacity >= 1.0 and not route.applies and s.mix_blend_mode is BlendMode.NORMAL and not has_backdrop_readers(ctx)
                and not has_blend_readers(ctx)):
            # Nothing fades the two together and nothing inside reads the element: the
            # filtered backdrop is drawn straight into the target, the element over it
            # (no surface, as viz draws a single-quad pass into its parent).
            direct = replace(backdrop, transform=snap(to_source), clips=clips + (
                clip_shape(node.id, to_target.inverse(), (0.0, 0.0, node.width, node.height),
                           used_radii(s, node.width, node.height)),))
            self.out.reads[id(direct)] = BackdropRead(copy, to_source, mirror, read, tuple(filter_passes),
                                                      local=local)
            self.out.keep.append(direct)
            self.out.decisions.append(Decision(node.id, f"backdrop-filter: {chain}: reads back {cw}x{ch} px, "
                                                    f"{len(plan.passes)} filter passes, drawn under the element "
                                                    "(no surface: opacity 1, nothing inside reads it)"))
            out.append(direct)
            self.emit_items(ctx, out, target, opacity)
            return True
        detail = (f"backdrop-filter: {chain} on the {cw}x{ch} px under {node.id!r} (read in {where}, edges mirrored), "
                  "clipped to its border box, then the element")
        if route.applies:
            detail += f"; then {', '.join(route.applies)} on both together"
        blend = s.mix_blend_mode if s.mix_blend_mode is not BlendMode.NORMAL else None
        surface = self._surface_pass(ctx, bounds, target.space, cull, SurfaceReason.BACKDROP_FILTER, detail,
                                     target.cull_from, first=(backdrop,), blend=blend)
        after = tuple(filter_passes) + tuple(self._composite_passes(surface))
        result, note = surface.target, "backdrop-filter surface"
        if element_plan is not None:
            # The element's filter on T' (Filter Effects 2 §2.1 step 6), run with the read.
            element_plan = s.filter.plan(current_color=s.color, scale=target.space.max_scale(),
                                         size=(surface.target.width, surface.target.height))
            self._filter_key = None  # T' holds the backdrop: filtered anew every frame
            passes, result = self._filter_passes(node, element_plan, surface.target)
            after += tuple(passes)
            note = f"backdrop-filter surface, filtered ({len(element_plan.passes)} passes)"
        draw = self.masked(Draw(result, node.id, surface_to_target, opacity, clips, note=note), ctx, target)
        if draw is None:
            return True  # a polygon clip-path that covers nothing (masked said so)
        self.out.reads[id(draw)] = BackdropRead(copy, to_source, mirror, read, after,
                                                local=local and element_plan is None)
        self.out.keep.append(draw)
        self.out.decisions.append(Decision(node.id, f"backdrop-filter: {chain}: reads back {cw}x{ch} px, "
                                                f"{len(plan.passes)} filter passes, a {surface.target.width}x"
                                                f"{surface.target.height} surface"
                                                + (f" ({', '.join(route.applies)} on both together)" if route.applies else "")))
        out.append(draw)
        return True

    def emit_filter_surface(self, ctx: StackingContext, route: ContextRoute, out: list[Draw], target: Target,
                            opacity: float) -> bool:
        """Plan the surface and passes of a filtered context; False when the filter turns
        out to do nothing (the context is then drawn as if unfiltered)."""
        node = ctx.node
        m = node.to_screen
        if not m.is_invertible():
            self.out.decisions.append(Decision(node.id, node.why_not_invertible()))
            return True
        if m.is_translation() and target.space.is_translation():
            space, scale, where = target.space, 1.0, "screen space"
        else:
            # Filter in the layer's own space, at the scale it is shown at.
            scale = m.max_scale()
            space, where = Affine.scale(scale, scale) @ m.inverse(), f"the layer's own space at scale {scale:.3g}"
        chain = node.style.filter
        element_box = (node.width, node.height)
        plan = chain.plan(current_color=node.style.color, scale=scale, box=element_box,
                          device_scale=node.style.device_scale)
        if not plan.passes:
            self.out.decisions.append(Decision(node.id, f"filter: {chain} does nothing: no surface"))
            return False
        # What can show: the target's cull rect cut by the clips above this layer (they
        # apply to the filtered result), in the filter's space; then the input region
        # that can reach it (blur reach, shadow offsets).
        visible = target.cull
        for clip in node.clips[target.cull_from :]:
            if not clip.to_screen.is_invertible():
                self.out.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
                return True
            box = clip.rect.transformed_bounds(clip.to_screen)
            visible = box if visible is None else visible.intersect(box)
        needed = None
        if visible is not None:
            if visible.is_empty():
                self.out.decisions.append(Decision(node.id, "not drawn: its filtered result lies off screen"))
                return True
            v = visible.transformed_bounds(space)
            x0, y0, x1, y1 = plan.needed_input((v.x, v.y, v.right, v.bottom))
            needed = Rect(x0, y0, x1 - x0, y1 - y0)
        if plan.region:
            # An SVG filter region: the surface is the element's box grown by it, all of
            # it (the graph's offsets and floods reach anywhere in it), nothing past it.
            needed = None
        cull = needed.transformed_bounds(space.inverse()) if needed is not None else None
        inner_from = len(node.clips)
        content = self._content_bounds(ctx, space, cull, inner_from)
        if plan.region:
            content = Rect(0, 0, node.width, node.height).transformed_bounds(space @ node.to_screen)
        if content is None:
            self.out.decisions.append(Decision(node.id, "not drawn: nothing to filter on screen"))
            return True
        top, right, bottom, left = plan.outsets
        bounds = Rect(content.x - left, content.y - top, content.width + left + right, content.height + top + bottom)
        if needed is not None:
            bounds = bounds.intersect(needed)
        bounds = bounds.rounded_out()
        if bounds.is_empty():
            self.out.decisions.append(Decision(node.id, "not drawn: its filtered result lies off screen"))
            return True
        if plan.region:  # SVG filter regions sized the surface: a refusal names their <filter>s
            filters_ = svg_filter_elements(chain)
            self._check_size(f"the filter surface of layer {node.id!r} (grown by the filter region of {filters_}: "
                             "x, y, width, height)", int(bounds.width), int(bounds.height), node.id,
                             element=filters_, attribute="x, y, width, height")
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if clips is None:
            self.out.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return True
        # Plan again knowing the surface size (cost rules depend on the pixel count).
        plan = chain.plan(current_color=node.style.color, scale=scale, size=(int(bounds.width), int(bounds.height)),
                          box=element_box, device_scale=node.style.device_scale)
        self.out.decisions.extend(svg_decisions(node.id, "filter", chain, plan))
        detail = f"filter: {chain} in {where}, grown by {top}/{right}/{bottom}/{left} px"
        surface = self._surface_pass(ctx, bounds, space, cull, SurfaceReason.FILTER, detail, inner_from)
        result = self._cached_filter_result(node, plan, surface, space)
        if result is None:
            self.out.passes.extend(self._composite_passes(surface))
            passes, result = self._filter_passes(node, plan, surface.target)
            self.out.passes.extend(passes)
        # Back from the surface's space to the target's: texel -> screen -> target.
        surface_to_screen = space.inverse() @ Affine.translate(bounds.x, bounds.y)
        to_target = snap(target.from_screen() @ surface_to_screen)
        draw = self.masked(Draw(result, node.id, to_target, opacity, clips, note=f"filtered ({len(plan.passes)} passes)"),
                           ctx, target)  # the mask applies to the filtered result
        if draw is not None:
            out.append(draw)
        return True

    def _cached_filter_result(self, node: LayerNode, plan, surface: CompositePass, space: Affine) -> TextureDesc | None:
        """The kept result of this filter when nothing it depends on changed, else None
        (and the key under which the new result will be kept)."""
        self._filter_key = None
        if self.cache is None or not all(d.source.retained and d.source.name not in self.out.repainted and d.backdrop is None
                                         for d in surface.draws):
            return None  # only inputs that are kept, unchanged, can prove "unchanged"
        # The placement forced on the frame (lamina.forced_placement) is part of the key: a
        # result computed on OpenCL is not served to a frame placed on GL (8-bit rounding
        # differs by executor, and forced-placement tests compare exactly).
        key = (surface.origin, surface.target.width, surface.target.height, space, plan, surface.draws, self.filter_backend,
               self.request.placement)
        self._filter_key = key
        cached = self.cache.lookup(f"filter:{node.id}", key, self.available)
        if cached is not None:
            self.out.reused.append(cached.name)
            self.out.decisions.append(Decision(node.id, "filter result reused: its input and parameters are unchanged"))
        return cached

    def _filter_passes(self, node: LayerNode, plan, source: TextureDesc) -> tuple[list, TextureDesc]:
        """The tasks of ``plan`` on ``source`` (graph.filter_tasks), each pass on the executor
        the filter backend places it on, and the GL texture holding the result."""
        # The cost model came with the executor's snapshot (measured before planning).
        if self.frame_wide:
            # auto with a cost model: every pass on GL here; the frame-wide schedule
            # (graph.placed, after the walk) moves them, seeing every layer's work at once.
            placement = Placement((Executor.GL,) * len(plan.passes), (FRAME_WIDE,) * len(plan.passes), "")
        else:
            placement = place(plan, source.width, source.height, self.filter_backend, self.filter_costs,
                              self.opencl_unavailable)
        if placement.summary:
            self.out.decisions.append(Decision(node.id, f"filter: {placement.summary}"))
        key = self._filter_key

        def kept_result(w: int, h: int) -> TextureDesc:
            # The result is kept for later frames while its key holds.
            name = self.cache.new_name(node.id, prefix="filter")
            out = TextureDesc(name, w, h, TextureRole.FILTER_OUTPUT, retained=True)
            self.cache.store(f"filter:{node.id}", key, out)
            return out

        tasks = filter_tasks(plan, source, placement, node.id, result_texture=kept_result if key is not None else None)
        return list(tasks.passes), tasks.result


# Route -> the EffectDrawing method that emits it (graph.routes decides the route).
_EMITTERS = {
    Route.BACKDROP_FILTER: EffectDrawing.emit_backdrop_filter,
    Route.FILTER: EffectDrawing.emit_filter_surface,
    Route.MASK: MaskedDrawing.emit_masked,  # (graph.masks: another part of the planner)
    Route.GROUP_SURFACE: EffectDrawing._emit_group,
    Route.ONE_DRAW: EffectDrawing._emit_one_draw,
    Route.IN_TARGET: EffectDrawing._emit_in_target,
}
