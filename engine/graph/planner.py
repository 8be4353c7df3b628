"""Compositor decisions -> frame graph.

Policy v1 (the simplest correct one): every drawing layer rasters its own content into
its own texture, and a stacking context gets a render surface when an effect needs its
layers flattened first:

* ``filter`` — the context is drawn into a surface, the filter's passes run on it, and
  the result is composited (filter, then clip, then opacity, as CSS orders them). The
  surface includes the filter's growth (blur and shadow reach), so nothing is cut off.
  A context that is only translated filters in screen space; otherwise it filters in
  its own (local) space at the scale it is shown, so a rotated or skewed layer's blur
  and shadow turn with it, as in browsers.
* ``opacity < 1`` over two or more drawing layers — flattened, then faded. With a single
  drawing layer the opacity goes into that layer's draw instead (viz's single-quad
  bypass).

Everything is planned as plain data (the FrameGraph); nothing touches the GPU here.

A frame is planned in stages (Planner.build), each handing the next a typed value:

1. the property trees are brought to the frame's time (``PropertyTrees.update``: the
   scene in, ``TreeChanges`` out — what changed, or that they were rebuilt);
2. either the retained fast path keeps last frame's decisions for what did not change
   (``RetainedPlan`` and ``TreeChanges`` in; a scroll of a composited scroller, whose
   descendants the trees left unplaced, is graph.scrolled's, at the cost of the layers
   and tiles it brings in or takes away) or the walk decides afresh over the stacking
   contexts in paint order (surfaces, backings, draws, tiles). Each context's route
   (graph.routes: a ``ContextRoute``, the effect it is drawn through and the surface it
   needs, from its style and subtree alone) and each target's backings
   (compositor.backings.partition: ``Backing`` records with their reasons) are decided as
   plain data before their passes are emitted; both paths emit into a
   ``FrameOutput`` (graph.output) — the passes, decisions, reuses and repaints, and the
   records the next frame's fast path reads. The fast path emits into its own and, when
   it finds it cannot finish, the cache is restored and that output dropped (no
   exception to unwind): the walk starts from a new one;
3. the frame's composite pass and its damage (``DrawnFrame`` of last frame in) close the
   ``FrameOutput`` into the ``FrameGraph``, and a ``RetainedPlan`` is kept for the next
   frame;
4. when the request asks for them (``capture_textures``), a CapturePass per texture the
   frame's composites draw from or into is appended (``with_captures``): to the graph
   returned, not to the one the RetainedPlan keeps, so the next frame's fast path sees
   the same graph either way.

The Planner is one class made of parts, a file each: this file walks the stacking
contexts and draws single layers; graph.effects plans effects and their surfaces,
graph.backed the policy's backings, graph.tiled tiles and composited scrolling,
graph.masks masks and polygon clip-paths, graph.fast_path the retained fast path,
graph.scrolled scrolls planned at the cost of what changed. The
parts share the planner's inputs, its memos of pure functions, and the one FrameOutput.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from .. import device_scale
from ..device_scale import DeviceScale, check_frame_fits, device_size
from ..compositor.paint_data import ImagePaint
from ..errors import TextureTooLargeError, UnsupportedFeatureError
from ..framegraph import (
    ClipShape,
    CompositePass,
    LayerInfo,
    Decision,
    Draw,
    FrameGraph,
    RasterPass,
    ShadowPass,
    SurfaceReason,
    TextureDesc,
    TextureRole,
    TileSet,
)
from ..css.values import ImageRef
from ..geometry import Affine, Projective, Rect, clipped_polygon
from ..images import ImageStore
from ..layer import MAX_TREE_DEPTH
from ..passes import CapturePass
from ..limits import MAX_CLIPS_PER_DRAW, Limits
from ..recursion import room_for
from ..request import FrameRequest
from ..blending import BlendMode
from ..compositor.paint import layer_paint, used_radii
from ..compositor.shadows import capped_shadows, shadow_cap_note
from ..compositor.tree import Clip, LayerNode, StackingContext
from .cache import raster_id, shadow_id
from .damage import DrawnFrame, changed_region
from .ink import raster_placement
from .placement import clean, clip_shape, draw_key, touched
from .resources import graph_images
from .retained import Footprint, OverlapRecord, RetainedPlan, Site, runs_transform_animation, site_index
from .output import FrameOutput
from .corrected import scheduled_with_feedback
from .issue_order import issue_order
from .placed import place_by
from ..filters.backend import FilterBackend
from .state import FrameState
from .svg_refs import check_svg_references
from ..filters.svg.images import svg_files
from ..filters.svg.route import svg_document
from .targets import BackdropRead, ExecutorFacts, PendingDraw, Target
from .backed import BackedDrawing
from .effects import EffectDrawing
from .fast_path import RetainedFastPath
from .masks import MaskedDrawing
from .scrolled import ScrolledContents
from .scaled import ScaledRaster
from .tiled import TiledDrawing
from .tiles import grow

MAX_VIEWPORT_PX = 16384  # lamina.scene.MAX_VIEWPORT: the frame is one texture

__all__ = ["build_frame_graph", "Planner", "ExecutorFacts", "with_captures"]




class Planner(EffectDrawing, BackedDrawing, TiledDrawing, MaskedDrawing, RetainedFastPath, ScrolledContents, ScaledRaster):
    """Plans one frame: walks the stacking contexts in paint order, decides surfaces,
    draws and (through the policy) backings, and emits the passes (see the module
    docstring). One planner per frame; what lasts between frames is in FrameState."""

    def __init__(self, scene, request: FrameRequest, limits: Limits, images: ImageStore, state: FrameState,
                 facts: ExecutorFacts) -> None:
        self.scene = scene
        self.request = request
        self.state = state
        self.trees = state.trees
        cache = state.cache if request.policy.retains_textures else None
        self.filter_backend = request.backend_for(scene.filter_backend).value
        self.filter_costs = facts.filter_costs
        self.opencl_unavailable = facts.opencl_unavailable
        self.opencl_devices = facts.opencl_devices  # (several in use: passes are placed over them all)
        # "auto" with a cost model and an OpenCL device: the whole frame is placed at once
        # (graph.placed), after the walk; the walk emits every filter pass on GL.
        self.frame_wide = (self.filter_backend == FilterBackend.AUTO.value and self.filter_costs is not None
                           and self.opencl_unavailable is None)
        self.t = request.t
        self.policy = request.policy
        # A cap on composited backings (BudgetPolicy), else None.
        # Device px per CSS px (lamina.device_scale): the frame and everything in it are device px.
        self.device_scale = request.device_scale_for(scene)
        self.frame_size = device_size(scene.width, scene.height, self.device_scale)
        self.memory_budget = self.policy.memory_budget(*self.frame_size)
        self.out = FrameOutput()  # what this frame emits (graph.output): one per attempt
        self._bounds_memo = cache.backing_bounds if cache is not None else {}
        self.cache = cache
        self.available = facts.available
        self.limits = limits
        self.images = images
        self.base_dir: Path | None = scene.base_dir
        self.viewport = Rect(0, 0, *self.frame_size)
        # Memos of pure functions of the trees at this frame's time: right whatever an
        # attempt emitted, so they outlive a fast path that gives up.
        self._sweeps: dict[str, list[Affine]] = {}  # animated layer id -> its sampled matrices
        self._frame: Target | None = None  # the frame's own target, once planning starts
        self.tiling = request.tiling
        self._reaches: dict[tuple, float] = {}  # (filter chain, colour, scale) -> its reach
        self._movers: dict[str, bool] = {}  # layer id -> moves by itself (see _moving)
        self._scaled: dict[str, object] = {}  # layer id -> its RasterScale made this frame (graph.scaled)
        self._scaled_layers: dict[str, object] = {}  # layer id -> a weak reference to the Layer it was made for
        self._boxes: dict[int, tuple] = {}  # id(clip) -> (clip, its screen bounds)
        self._grown_memo: dict[tuple, Rect] = {}
        # Scroll containers scrolled by the compositor: their contents are one tiled
        # backing that the offset moves (browser policy; the others draw each layer).
        self.scrollers: frozenset[str] = frozenset()

    # -- textures -----------------------------------------------------------------------
    def _check_size(self, what: str, w: int, h: int, layer: str | None = None, *, element: str | None = None,
                    attribute: str | None = None) -> None:
        """Refuse a texture the GPU cannot hold; ``layer`` is whose (a scene file's error
        then gives its JSON path: Scene.locate); ``element`` and ``attribute`` what in SVG
        markup sized it."""
        limit = self.limits.max_texture_size
        if w > limit or h > limit:
            raise TextureTooLargeError(
                f"{what} needs a {w}x{h} texture, larger than this GPU's maximum of "
                f"{limit}x{limit} (GL_MAX_TEXTURE_SIZE); make it smaller", layer=layer, element=element,
                attribute=attribute
            )

    def content_texture(self, node: LayerNode, m: Affine, retained: bool = True, sampled: bool = False) -> TextureDesc:
        """Raster the layer's own content (once) for drawing with ``m`` (layer px ->
        target space) and return its texture.

        A layer that is only translated is rastered at its sub-pixel offset and drawn at
        a whole-pixel position (as Chromium does): its edges get exact area coverage and
        its pixels are never resampled. Other transforms sample bilinearly, and so does a
        moving layer (``sampled``: see _moving)."""
        tex = self.out.content.get((node.id, sampled))
        if tex is None:
            offset, w, h, _ = raster_placement(node, m, sampled)  # its box grown by its ink (graph.ink)
            self._check_size(f"layer {node.id!r}", w, h, node.id)
            paint = self._paint(node, offset)
            if self.cache is None or not retained:
                tex = TextureDesc(f"layer:{node.id}", w, h, TextureRole.LAYER_CONTENT)
                self.out.passes.append(RasterPass(f"raster:{node.id}", node.id, tex, paint, shadows=self._shadows(node, paint, w, h)))
            else:
                key = (w, h, paint)
                tex = self.cache.lookup(raster_id(node.id), key, self.available)
                if tex is not None:
                    self.out.reused.append(tex.name)
                    self.cache.keep(shadow_id(node.id))  # for its next repaint
                else:
                    tex = TextureDesc(self.cache.new_name(node.id), w, h, TextureRole.LAYER_CONTENT, retained=True)
                    self.out.passes.append(RasterPass(f"raster:{node.id}", node.id, tex, paint,
                                                  shadows=self._shadows(node, paint, w, h)))
                    self.cache.store(raster_id(node.id), key, tex)
            self.out.content[(node.id, sampled)] = tex
        return tex

    def _moving(self, node: LayerNode) -> bool:
        """Does the layer move by itself or with an ancestor (a running transform
        animation, or will-change: transform)? Then it is rastered without its sub-pixel
        phase and drawn sampled, as cc rasters animating layers: every frame of the
        move reuses its raster, where an exact raster at each phase would be new."""
        layer = node.layer
        while layer is not None:
            known = self._movers.get(layer.id)
            if known is None:
                style = self.trees.nodes[layer.id].style if layer.id in self.trees.nodes else None
                known = runs_transform_animation(layer, self.t) or (style is not None and "transform" in style.will_change)
                self._movers[layer.id] = known
            if known:
                return True
            layer = layer.parent
        return False

    def _shadows(self, node: LayerNode, paint, w: int, h: int) -> TextureDesc | None:
        """The layer's outer box shadows drawn alone, kept while they, its box and radii
        do not change (a repaint of its background copies them); None when it has none
        or nothing is kept between frames (then the raster pass draws them itself)."""
        outer = tuple(s for s in paint.shadows if not s.inset and not s.empty)
        if not outer or self.cache is None:
            return None
        key = (w, h, paint.offset, paint.width, paint.height, paint.radii, outer)
        tex = self.cache.lookup(shadow_id(node.id), key, self.available)
        if tex is not None:
            self.out.reused.append(tex.name)
            return tex
        tex = TextureDesc(self.cache.new_name(node.id, prefix="shadow"), w, h, TextureRole.SHADOW, retained=True)
        self.out.passes.append(ShadowPass(f"shadow:{node.id}", node.id, tex, paint))
        self.cache.store(shadow_id(node.id), key, tex)
        return tex

    def _paint(self, node: LayerNode, offset: tuple[float, float]):
        """The layer's LayerPaint, reusing last frame's when its style object, size and
        offset are the same (styles are memoised, so unchanged layers keep theirs). Images
        are always looked up: their files or arrays may have changed."""
        memo = self.state.paints.get(node.id)
        key = (node.style, node.width, node.height, offset, self.base_dir)
        # Gradients are a pure function of the key; image pixels are looked up every time
        # (a file or an in-memory array may have changed).
        if memo is not None and memo[0][0] is node.style and memo[0][1:] == key[1:] \
                and not isinstance(node.style.background_image, ImageRef):
            return memo[1]
        paint = layer_paint(node, self.images, self.base_dir, offset, self.limits.max_texture_size)
        if isinstance(paint.image, ImagePaint):
            self.out.images_seen.append((paint.image.ref, node.id, paint.image.key))
        self.state.paints[node.id] = (key, paint)
        return paint

    # -- clips --------------------------------------------------------------------------
    def clip_shapes(self, clips: tuple[Clip, ...], target: Target, layer_id: str) -> tuple[ClipShape, ...] | None:
        """ClipShapes for drawing into ``target``; None when a clip hides everything."""
        if len(clips) > MAX_CLIPS_PER_DRAW:
            raise UnsupportedFeatureError(
                f"{len(clips)} nested overflow clips; at most {MAX_CLIPS_PER_DRAW} are supported "
                "inside one render surface",
                property="overflow",
                layer=layer_id,
            )
        shapes = []
        to_screen = target.from_screen().inverse()
        for clip in clips:
            if not clip.to_screen.is_invertible() or clip.rect.is_empty():
                return None
            to_local = clip.to_screen.inverse() @ to_screen
            rect = (clip.rect.x, clip.rect.y, clip.rect.width, clip.rect.height)
            shapes.append(clip_shape(clip.layer_id, to_local, rect, clip.radii, clip.kind))
        return tuple(shapes)

    def visible_rect(self, node: LayerNode, cull: Rect | None, clips_from: int = 0) -> Rect | None:
        """Where the layer can matter on screen: its bounds cut to ``cull`` and to the
        clips above it from index ``clips_from`` (clips above a filter apply to the
        filtered result, not to its input). None when nothing is left: culled."""
        ink, m = node.ink_rect, node.to_screen
        if m.is_translation():  # most layers: no corners to map
            rect = Rect(ink.x + m.e, ink.y + m.f, ink.width, ink.height)
        else:
            rect = ink.transformed_bounds(m)
        # Inside a composited scroller what lies near the scrollport matters too: its
        # tiles are rastered ahead (the interest margin, plus a tile: a tile touching the
        # interest rect is painted whole).
        reach = self.tiling.interest_margin + self.tiling.tile_size if node.scroller in self.scrollers else 0
        if cull is not None:
            rect = rect.intersect(self._grown(cull, reach) if reach else cull)
        for clip in node.clips[clips_from:]:
            box = self._clip_box(clip)
            if box is None:
                return None
            rect = rect.intersect(self._grown(box, reach) if reach and clip.layer_id in self.scrollers else box)
        return None if rect.is_empty() else rect

    def _clip_box(self, clip: Clip) -> Rect | None:
        """A clip's screen bounds (None: not invertible), once a frame: siblings share
        their clips, and a long page asks for the same one hundreds of times."""
        key = id(clip)
        hit = self._boxes.get(key)
        if hit is None or hit[0] is not clip:
            box = clip.rect.transformed_bounds(clip.to_screen) if clip.to_screen.is_invertible() else None
            hit = self._boxes[key] = (clip, box)
        return hit[1]

    def _grown(self, rect: Rect, margin: float) -> Rect:
        key = (rect, margin)
        grown = self._grown_memo.get(key)
        if grown is None:
            grown = self._grown_memo[key] = grow(rect, margin)
        return grown

    # -- drawing ------------------------------------------------------------------------
    def draw_node(self, node: LayerNode, out: list[Draw], target: Target, opacity: float) -> None:
        if not node.draws_content():
            self._why_not_drawn(node)
            return
        if self.visible_rect(node, target.cull, target.cull_from) is None:
            behind = node.to_screen.__class__ is Projective and not clipped_polygon(node.ink_rect, node.to_screen)
            self.out.decisions.append(Decision(node.id, "not drawn: all of it lies behind the viewer (w <= 0)" if behind
                                               else "not drawn: outside the viewport or its clips (not rastered)"))
            return
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if clips is None:
            self.out.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return
        if node.style.box_shadow and capped_shadows(node.style.box_shadow):
            self.out.decisions.append(Decision(node.id, shadow_cap_note(node.style.box_shadow)))
        out.append(PendingDraw(node, target, opacity, clips))

    def _layer_draw(self, p: "PendingDraw", space: Affine, origin: tuple[float, float], clips, retained: bool = True,
                    sampled: bool = False) -> Draw:
        """A layer's raster drawn into a texture whose pixel (0, 0) is ``origin`` of the
        space ``space`` maps screen px into (``sampled``: a moving layer drawn straight
        into its target, see _moving)."""
        rastered, s = self.rastered(p.node)  # at its raster scale (graph.scaled)
        m = self.unscaled(clean(space @ p.node.to_screen), s)
        tex = self.content_texture(rastered, m, retained, sampled)
        to_target = Affine.translate(-origin[0], -origin[1]) @ raster_placement(rastered, m, sampled)[3]
        return Draw(tex, p.node.id, to_target, p.opacity, clips)

    def emit_context(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float) -> None:
        """Append the draws of a stacking context to ``out``."""
        node = ctx.node
        own_opacity = node.style.opacity
        if own_opacity <= 0.0:
            self.out.decisions.append(Decision(node.id, "not drawn: opacity 0 (with all its descendants)"))
            return
        blend = node.style.mix_blend_mode
        if blend is not BlendMode.NORMAL:
            # The element becomes one draw (its raster, a surface, a filter's result) that
            # reads its backdrop.
            mine: list = []
            self._emit_effects(ctx, mine, target, opacity * own_opacity, as_one_draw=True)
            if mine:
                out.append(self._blending(mine[-1], blend, target))
            return
        self._emit_effects(ctx, out, target, opacity * own_opacity)

    def emit_items(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float, *, own: bool = True) -> None:
        """The context root's own content, then its items in paint order. In the frame's
        own target, the passes each item needed are noted with the draw they made (the
        retained fast path keeps them with it)."""
        if own:
            self.draw_node(ctx.node, out, target, opacity)
        if target is self._frame and ctx.node.id in self.scrollers:  # (the page's root, say)
            self.out.walks[ctx.node.id] = len(self.out.decisions)
        for item in ctx.items:
            if target is not self._frame:
                if isinstance(item, StackingContext):
                    self.emit_context(item, out, target, opacity)
                else:
                    self.draw_node(item, out, target, opacity)
                continue
            passes, drawn = len(self.out.passes), len(out)
            if isinstance(item, StackingContext):
                noted, reused, tiles = len(self.out.decisions), len(self.out.reused), len(self.out.tile_sets)
                with self._noting_cache() as used:
                    self.emit_context(item, out, target, opacity)
            else:
                self.draw_node(item, out, target, opacity)
                if item.id in self.scrollers:  # the walk's decisions over its descendants begin here
                    self.out.walks[item.id] = len(self.out.decisions)
            made = [d for d in out[drawn:] if isinstance(d, Draw)]
            for i, d in enumerate(made):
                self.out.work[id(d)] = tuple(self.out.passes[passes:]) if i == 0 else ()
            if isinstance(item, StackingContext) and len(made) == 1 and id(made[0]) not in self.out.footprints:
                # A context drawn as one draw of its own: the fast path may plan it alone
                # again. (A container drawn only by a context in it leaves that one's.)
                self.out.footprints[id(made[0])] = Footprint(item, (noted, len(self.out.decisions)),
                                                          tuple(self.out.reused[reused:]), len(self.out.tile_sets) - tiles,
                                                          len(out) - drawn, drawn, cache_keys=tuple(used),
                                                          passes=tuple(self.out.passes[passes:]))

    @contextmanager
    def _noting_cache(self) -> Iterator[list[str]]:
        """The cache entries used inside the block, in a list (also noted in the list of
        a block around it: a context's entries include those of the contexts in it)."""
        used: list[str] = []
        if self.cache is None:
            yield used
            return
        outer, self.cache.noting = self.cache.noting, used
        try:
            yield used
        finally:
            self.cache.noting = outer
            if outer is not None:
                outer.extend(used)

    def _damage(self, draws: tuple[Draw, ...], clear, frame: TextureDesc) -> tuple[int, int, int, int] | None:
        """Where the frame must be redrawn, when last frame's is kept: the bounds, old and
        new, of every draw that changed (by position in paint order). None: redraw all."""
        if self.cache is None:
            return None
        drawn = self.cache.frame_state
        old_draws = drawn.draws if drawn is not None else ()
        keys, bounds = [], []
        repaints = []  # where backings repainted in place changed, in frame px
        for i, d in enumerate(draws):
            region = self.out.repainted.get(d.source.name)
            if i < len(old_draws) and d is old_draws[i] and region is None:
                # The very draw of last frame (the fast path keeps them): same key, bounds.
                keys.append(drawn.keys[i])
                bounds.append(drawn.bounds[i])
            else:
                # A backing repainted in place keeps its key (its texture, where it is
                # drawn): what changed is the rect it repainted, drawn where it lies.
                keys.append(draw_key(d))
                bounds.append(touched(Rect(0, 0, *d.quad_size), d.transform))
                if region is not None:
                    repaints.append(touched(region, d.transform))
        size = (frame.width, frame.height)
        self.cache.frame_state = DrawnFrame(size, tuple(clear), tuple(keys), tuple(bounds), tuple(draws))
        if drawn is None or (drawn.size, drawn.clear) != (size, tuple(clear)) or not self.available(frame.name):
            return None
        old_keys, old_bounds = drawn.keys, drawn.bounds
        self.out.reused.append(frame.name)
        damage = Rect.union([r for r in (changed_region(keys, old_keys, bounds, old_bounds), *repaints) if r is not None])
        if damage is None:
            return (0, 0, 0, 0)
        damage = damage.intersect(self.viewport).rounded_out()
        return (int(damage.x), int(damage.y), int(damage.width), int(damage.height))

    # -- the frame ----------------------------------------------------------------------
    def build(self) -> FrameGraph:
        graph = self._plan()
        if self.request.placement is not None and graph.filter_passes():
            # Forced (lamina.forced_placement): planned on GL (request.backend_for), moved
            # here, to the graph returned only, as "auto"'s schedule is.
            graph = issue_order(place_by(graph, self.request.placement, self.opencl_devices))
        elif self.frame_wide and graph.filter_passes():
            # To the graph returned, not the one the RetainedPlan keeps (as captures are):
            # the next frame's fast path sees every filter pass on GL, then is placed anew.
            # A model corrected from measurement (lamina.cost_feedback) also says what it moved.
            # Last frame's schedule, rewrite, offloads and issue order are reused while the
            # task graph and the prices are its own (graph.schedule_memo); the graph comes
            # in issue order (graph.placed.scheduled runs graph.issue_order after placing).
            graph = scheduled_with_feedback(graph, self.filter_costs, self.opencl_devices, self.state.schedules)
        else:
            graph = issue_order(graph)  # (OpenCL work handed over early, its results copied back late)
        return with_captures(graph) if self.request.capture_textures else graph

    def _plan(self) -> FrameGraph:
        self._check_size("the frame", *self.frame_size)
        changes = self.trees.update(self.scene, self.t, defer_scrolls=self._defers_scrolls())
        if changes.rebuilt:  # layers may have gone: so do their kept paints
            self.state.paints = {k: v for k, v in self.state.paints.items() if k in self.trees.nodes}
            self.state.raster_scales = {k: v for k, v in self.state.raster_scales.items() if k in self.trees.nodes}
            self.state.zoomed = {k: v for k, v in self.state.zoomed.items() if k in self.trees.nodes}
        clamped = self._note_scrollers()
        frame = TextureDesc("frame", *self.frame_size, TextureRole.FRAME, retained=self.cache is not None)
        last, self.state.last = self.state.last, None
        self.state.planned_whole = None  # (the fast paths say why they planned 3D contexts whole)
        if self.trees.deferred:  # a scroll whose descendants the trees left unplaced
            graph = self._scrolled(last, changes, frame, clamped)
            if graph is not None:
                self.state.fast_frames += 1
                return graph
            self.out = FrameOutput()  # nothing it emitted: the descendants are placed, and on
            changes = changes.merged(self.trees.settle())
        graph = self._retained(last, changes, frame)
        if graph is not None:
            self.state.fast_frames += 1
            return graph
        # From scratch: nothing the fast path emitted before it gave up.
        self.out = FrameOutput(decisions=list(clamped))
        root = self.trees.root
        clear = (0.0, 0.0, 0.0, 0.0)
        draws: list[Draw] = []
        node = root.node
        target = self._frame = self._frame_target()
        if _is_plain_color(node):
            # The page background is a flat colour: clear to it instead of a raster pass.
            clear = node.style.used_background_color.premultiplied()
            if clear[3] >= 1.0:
                self.out.page_fill = tuple(clear)
            self.out.decisions.append(Decision(node.id, "background drawn as the frame's clear colour"))
            self.emit_items(root, draws, target, 1.0, own=False)
        else:
            self.emit_context(root, draws, target, 1.0)
        self.out.sites = []
        # The fast path keeps the draws before 3D contexts are sorted (one per site) and
        # sorts them again (graph.contexts3d).
        unsorted = self._policy_draws(draws, target, "root")
        sorted_from, inner = len(self.out.decisions), len(self.out.contexts3d)
        final = self.order_contexts(unsorted, target, "root")
        sorted_to = sorted_from + len(self.out.contexts3d) - inner
        sites, self.out.sites = self.out.sites, None
        graph = self._frame_graph(final, clear, frame)
        graph.planned_whole = self.state.planned_whole
        if self.cache is not None:
            self.state.last = RetainedPlan(self._request_key(), graph, unsorted, tuple(sites), clear,
                                           tuple(self.out.images_seen), self.cache.frames, site_index(sites),
                                           tuple(self.out.work.get(id(d)) for d in unsorted),
                                           tuple(self.out.reads.get(id(d)) for d in unsorted), self.out.overlap,
                                           self.out.opacity_notes, self._effect_footprints(unsorted),
                                           self._scroll_records(len(clamped)),
                                           tuple(graph.decisions[sorted_from:sorted_to]))
        return graph

    def _scroll_records(self, clamps: int) -> dict:
        """The records of the composited scrollers whose contents the frame pass draws
        and whose walk began in the frame target (graph.scrolled reads them)."""
        out = {}
        for scroller_id, record in self.out.scrolls.items():
            if record.first >= 0 and scroller_id in self.out.walks:
                record.walk, record.clamps = self.out.walks[scroller_id], clamps
                out[scroller_id] = record
        return out

    def _defers_scrolls(self) -> bool:
        """May the trees leave a scroller's descendants unplaced when only its offset
        changed (graph.scrolled plans such a frame, or has them placed)?"""
        return self.cache is not None and self.state.fast_path and self.policy.uses_backings

    def _effect_footprints(self, final: tuple[Draw, ...]) -> dict:
        """Context layer id -> the Footprint of its one frame draw, with where that draw is."""
        out = {}
        for i, d in enumerate(final):
            footprint = self.out.footprints.get(id(d))
            if footprint is not None:
                out[footprint.ctx.node.id] = replace(footprint, index=i)
        return out

    def _frame_target(self) -> Target:
        return Target((0, 0), Affine(), self.viewport, 0, 0, self.frame_size)

    def _frame_graph(self, final: tuple[Draw, ...], clear, frame: TextureDesc) -> FrameGraph:
        """The frame's composite pass over ``final``, then the graph of all passes."""
        # With read-backs the damage rect still holds: a reading draw is redrawn (with what
        # it reads) wherever anything under it changed, and a backdrop-filter's surface is
        # made anew every frame, so its whole area is damage.
        damage = self._damage(final, clear, frame)
        detail = "the frame"
        if damage is not None:
            x, y, w, h = damage
            detail = f"the frame, redrawn only where it changed: {w}x{h} at {x},{y}" if w and h else "the frame, unchanged: nothing redrawn"
        self.out.passes.extend(self._composite_passes(
            CompositePass("composite:frame", frame, (0, 0), clear, final, SurfaceReason.ROOT, detail, damage)))
        released = self.cache.end_frame() if self.cache is not None else []
        graph = FrameGraph(*self.frame_size, self.out.passes, frame, self.out.decisions, self.out.reused, released)
        graph.device_scale_factor = self.device_scale
        graph.policy = self.policy
        graph.layer_info = self.out.layer_info
        graph.raster_scales = self.out.raster_scales
        graph.scaled_quads = self._scaled_quads(graph)
        self.keep_raster_scales()  # what the next frame's decisions start from (graph.scaled)
        graph.routes = self.out.routes
        graph.contexts3d = list(self.out.contexts3d)
        graph.tiles = self.out.tile_sets
        graph.validate()
        return graph

    def _scaled_quads(self, graph: FrameGraph) -> dict[str, tuple[tuple[float, float], ...]]:
        """Each scaled layer's ink rect on this frame (FrameGraph.scaled_quads): from this
        frame's trees, so a layer drawn from kept rasters is where it is now."""
        quads = {}
        for layer_id in graph.scaled_layers():
            node = self.trees.nodes.get(layer_id)
            if node is None:
                continue
            corners = tuple(node.to_screen.apply(x, y) for x, y in node.ink_rect.corners())
            if all(math.isfinite(v) for c in corners for v in c):
                quads[layer_id] = corners
        return quads


def with_captures(graph: FrameGraph) -> FrameGraph:
    """``graph`` and, after its passes, a CapturePass for each texture its composite
    passes draw from or draw into, but the frame: layers' rasters, backings, tiles,
    render surfaces (a filter's input surface, an opacity group, an isolated group, a
    backdrop-filter's), filter results; kept textures reused from earlier frames among
    them (the executor holds them). In the order the passes first name them. Not
    captured: the frame (that is ``Frame.image``), backdrop copies and masks (what a
    draw reads beside its quad), a filter's intermediate images, and a kept texture
    this frame does not draw (a filtered layer's raster when its kept result is drawn).
    A new graph; ``graph`` is left as it was (the RetainedPlan's)."""
    whose: dict[str, tuple[TextureDesc, str]] = {}
    for p in graph.passes:
        if not isinstance(p, CompositePass):
            continue
        for d in p.draws:  # what it draws, then what it draws into: in paint order
            tex, layer = whose.get(d.source.name, (d.source, ""))
            whose[d.source.name] = (tex, layer or d.layer_id)
        if p.target.name != graph.output.name:
            whose.setdefault(p.target.name, (p.target, ""))
    # A surface drawn nowhere itself (a filter's input) is the layer's whose passes read it.
    readers = {t.name: p.layer_id for p in graph.passes for t in p.reads() if getattr(p, "layer_id", "")}
    captures = []
    for name, (tex, layer) in whose.items():
        if name == graph.output.name:
            continue
        layer = layer or readers.get(name, "")
        target = TextureDesc(f"capture:{name}", tex.width, tex.height, tex.role, straight=True)
        captures.append(CapturePass(f"capture:{name}", layer, tex, target))
    if not captures:
        return graph
    captured = replace(graph, passes=[*graph.passes, *captures])
    captured.validate()
    return captured


def _is_plain_color(node: LayerNode) -> bool:
    s = node.style
    return (
        s.visibility == "visible"
        and s.opacity == 1.0
        and not s.transform
        and s.filter is None
        and s.background_image is None
        and s.clip_path is None  # a clipped or masked page is drawn, not cleared to
        and s.mask_image is None
        and s.border_style in ("none", "hidden")
        and not s.box_shadow  # an inset shadow paints over the page background
        and all(r == (0.0, 0.0) for r in used_radii(s, node.width, node.height))
    )


def build_frame_graph(
    scene,
    request: FrameRequest,
    limits: Limits,
    images: ImageStore,
    state: FrameState | None = None,
    facts: ExecutorFacts | None = None,
) -> FrameGraph:
    """Make the compositor's decisions for ``scene`` under ``request`` (time, policy,
    filter backend) and return the frame graph. ``state`` is what the renderer kept
    from earlier frames (property trees, kept textures, the last plan; a fresh one plans
    a first frame): unchanged layers are not rastered again, and an animation frame
    that only moves promoted layers redoes only their draws. ``facts`` says what the
    executor holds and how it prices filter passes (lamina.filter_costs)."""
    scale = request.device_scale_for(scene)
    check_frame_fits(scene.width, scene.height, scale, min(limits.max_texture_size, MAX_VIEWPORT_PX))
    # The trees, the sweep and the scroll code resolve CSS px to device px through it.
    check_svg_references(scene)  # a dangling url(#id): typed, named, before any work
    with room_for(MAX_TREE_DEPTH), device_scale.in_force(DeviceScale.of(scale)), \
            svg_document(scene.svg_at(request.t)), svg_files(scene.file_access):  # its attribute animations sampled
        graph = _build(scene, request, limits, images, state, facts)
    graph.images = graph_images(graph, images, scene.base_dir)  # it carries its images (graph.resources)
    return graph


def _build(scene, request: FrameRequest, limits: Limits, images: ImageStore, state: FrameState | None,
           facts: ExecutorFacts | None) -> FrameGraph:
    state = state if state is not None else FrameState()
    facts = facts if facts is not None else ExecutorFacts()
    cache = state.cache if request.policy.retains_textures else None
    if cache is None:
        return Planner(scene, request, limits, images, state, facts).build()
    cache.begin_frame()
    saved = cache.snapshot()
    try:
        return Planner(scene, request, limits, images, state, facts).build()
    except BaseException:
        cache.restore(saved)  # a frame that failed to plan leaves the cache as it was
        state.last = None
        raise
