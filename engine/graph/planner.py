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
"""

from __future__ import annotations

import math
import weakref
from dataclasses import replace
from pathlib import Path

from ..errors import OpenCLUnavailableError, TextureTooLargeError, UnsupportedFeatureError
from ..filters.backend import place
from ..filters.tasks import filter_tasks
from ..framegraph import (
    BackdropPass,
    ClipShape,
    CompositePass,
    ImagePaint,
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
from ..geometry import Affine, Rect
from ..images import ImageStore
from ..layer import MAX_TREE_DEPTH
from ..limits import MAX_CLIPS_PER_DRAW, Limits
from ..recursion import room_for
from ..request import FrameRequest
from ..blending import BlendMode
from ..compositor.backings import CompositingReason, composited_bytes, partition, usefulness
from ..compositor.groups import has_backdrop_readers, has_blend_readers, is_backdrop_root, is_isolated_group
from ..compositor.paint import layer_paint, used_radii
from ..compositor.property_trees import TreeChanges
from ..compositor.shadows import capped_shadows, shadow_cap_note
from ..compositor.tree import Clip, LayerNode, StackingContext
from .damage import changed_region
from .ink import raster_placement
from .reads import backdrop_region, blend_read, split_at_reads
from .placement import clean, clip_shape, draw_key, reframe, rounded, snap, touched
from .retained import MOVABLE, RetainedPlan, Site, member_opacity, runs_transform_animation, site_index, swept
from .state import FrameState
from .sweep import sample_sweep, sweep_bounds
from .targets import BackdropRead, ExecutorFacts, PendingDraw, Target
from .masks import MaskedDrawing, has_mask
from .tiled import TiledDrawing
from .tiles import grow

__all__ = ["build_frame_graph", "Planner", "ExecutorFacts", "LARGE_GROUP_SHARE"]

# An isolated group's surface this large a share of the viewport is reported as a
# performance trap (a blend deep in a big container flattens the whole container).
LARGE_GROUP_SHARE = 0.25



class _PlanAgain(Exception):
    """The retained fast path found, after it had begun, that it cannot finish the
    frame: plan it from scratch instead (build_frame_graph restores the cache)."""


class Planner(TiledDrawing, MaskedDrawing):
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
        self.t = request.t
        self.policy = request.policy
        # A cap on composited backings (BudgetPolicy), else None.
        self.memory_budget = self.policy.memory_budget(scene.width, scene.height)
        self.layer_info: dict[str, LayerInfo] = {}
        self._bounds_memo = cache.backing_bounds if cache is not None else {}
        self.repainted: set[str] = set()  # kept textures repainted in place this frame
        self.cache = cache
        self.available = facts.available
        self.reused: list[str] = []
        self.limits = limits
        self.images = images
        self.base_dir: Path | None = scene.base_dir
        self.passes: list = []
        self.decisions: list[Decision] = []
        self.viewport = Rect(0, 0, scene.width, scene.height)
        self._content: dict[str, TextureDesc] = {}
        self._page_fill: tuple[float, float, float, float] | None = None  # opaque page background
        self._sweeps: dict[str, list[Affine]] = {}  # animated layer id -> its sampled matrices
        self.sites: list[Site | None] | None = None  # per frame draw, while the frame's target is planned
        self.images_seen: list[tuple] = []  # (image ref, layer id, key) looked up this frame
        self._reads: dict[int, BackdropRead] = {}  # id(draw) -> the read-back it needs first
        self._keep: list[Draw] = []  # the draws _reads is keyed by (their ids stay theirs)
        self._work: dict[int, tuple] = {}  # id(frame-level draw) -> the passes that made it
        self._frame: Target | None = None  # the frame's own target, once planning starts
        self.tiling = request.tiling
        self._reaches: dict[tuple, float] = {}  # (filter chain, colour, scale) -> its reach
        self._movers: dict[str, bool] = {}  # layer id -> moves by itself (see _moving)
        self._boxes: dict[int, tuple] = {}  # id(clip) -> (clip, its screen bounds)
        self._grown_memo: dict[tuple, Rect] = {}
        self.tile_sets: list[TileSet] = []
        self._regions: dict[tuple, TextureDesc] = {}  # (layer id, region) -> its part rastered this frame
        # Scroll containers scrolled by the compositor: their contents are one tiled
        # backing that the offset moves (browser policy; the others draw each layer).
        self.scrollers: frozenset[str] = frozenset()

    # -- textures -----------------------------------------------------------------------
    def _check_size(self, what: str, w: int, h: int, layer: str | None = None) -> None:
        """Refuse a texture the GPU cannot hold; ``layer`` is whose (a scene file's error
        then gives its JSON path: Scene.locate)."""
        limit = self.limits.max_texture_size
        if w > limit or h > limit:
            raise TextureTooLargeError(
                f"{what} needs a {w}x{h} texture, larger than this GPU's maximum of "
                f"{limit}x{limit} (GL_MAX_TEXTURE_SIZE); make it smaller", layer=layer
            )

    def content_texture(self, node: LayerNode, m: Affine, retained: bool = True, sampled: bool = False) -> TextureDesc:
        """Raster the layer's own content (once) for drawing with ``m`` (layer px ->
        target space) and return its texture.

        A layer that is only translated is rastered at its sub-pixel offset and drawn at
        a whole-pixel position (as Chromium does): its edges get exact area coverage and
        its pixels are never resampled. Other transforms sample bilinearly, and so does a
        moving layer (``sampled``: see _moving)."""
        tex = self._content.get((node.id, sampled))
        if tex is None:
            offset, w, h, _ = raster_placement(node, m, sampled)  # its box grown by its ink (graph.ink)
            self._check_size(f"layer {node.id!r}", w, h, node.id)
            paint = self._paint(node, offset)
            if self.cache is None or not retained:
                tex = TextureDesc(f"layer:{node.id}", w, h, TextureRole.LAYER_CONTENT)
                self.passes.append(RasterPass(f"raster:{node.id}", node.id, tex, paint, shadows=self._shadows(node, paint, w, h)))
            else:
                key = (w, h, paint)
                tex = self.cache.lookup(f"layer:{node.id}", key, self.available)
                if tex is not None:
                    self.reused.append(tex.name)
                    self.cache.keep(f"shadow:{node.id}")  # for its next repaint
                else:
                    tex = TextureDesc(self.cache.new_name(node.id), w, h, TextureRole.LAYER_CONTENT, retained=True)
                    self.passes.append(RasterPass(f"raster:{node.id}", node.id, tex, paint,
                                                  shadows=self._shadows(node, paint, w, h)))
                    self.cache.store(f"layer:{node.id}", key, tex)
            self._content[(node.id, sampled)] = tex
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
        tex = self.cache.lookup(f"shadow:{node.id}", key, self.available)
        if tex is not None:
            self.reused.append(tex.name)
            return tex
        tex = TextureDesc(self.cache.new_name(node.id, prefix="shadow"), w, h, TextureRole.SHADOW, retained=True)
        self.passes.append(ShadowPass(f"shadow:{node.id}", node.id, tex, paint))
        self.cache.store(f"shadow:{node.id}", key, tex)
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
            self.images_seen.append((paint.image.ref, node.id, paint.image.key))
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
            self.decisions.append(Decision(node.id, "not drawn: outside the viewport or its clips (not rastered)"))
            return
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if clips is None:
            self.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return
        if node.style.box_shadow and capped_shadows(node.style.box_shadow):
            self.decisions.append(Decision(node.id, shadow_cap_note(node.style.box_shadow)))
        out.append(PendingDraw(node, target, opacity, clips))

    def _layer_draw(self, p: "PendingDraw", space: Affine, origin: tuple[float, float], clips, retained: bool = True,
                    sampled: bool = False) -> Draw:
        """A layer's raster drawn into a texture whose pixel (0, 0) is ``origin`` of the
        space ``space`` maps screen px into (``sampled``: a moving layer drawn straight
        into its target, see _moving)."""
        m = clean(space @ p.node.to_screen)
        tex = self.content_texture(p.node, m, retained, sampled)
        to_target = Affine.translate(-origin[0], -origin[1]) @ raster_placement(p.node, m, sampled)[3]
        return Draw(tex, p.node.id, to_target, p.opacity, clips)

    def finalize(self, items: list, target: Target, base_id: str) -> tuple[Draw, ...]:
        """Turn a target's pending layer draws (and surface draws) into its draws, by the
        policy: each layer drawn from its own raster ("all", "none"), or grouped into
        backings ("browser")."""
        if not self.policy.uses_backings:
            out = []
            for p in items:
                if isinstance(p, PendingDraw):
                    passes_before = len(self.passes)
                    draws = self._layer_draws(p, target.space, target.origin, p.clips)
                    out.extend(draws)
                    if len(draws) == 1 and draws[0].source.role is not TextureRole.TILE:
                        self._site(Site(p, 0, frozenset(q.name for q in self.passes[passes_before:]), (p.node.id,)))
                    else:
                        for _ in draws:
                            self._site(None)  # tiles: planned anew when the layer changes
                else:
                    out.append(p)
                    self._site(None)
            return tuple(out)
        return self._backing_draws(items, target, base_id)

    # -- backings ("browser" policy) -------------------------------------------------------
    def _backing_draws(self, items: list, target: Target, base_id: str) -> tuple[Draw, ...]:
        to_target = target.from_screen()

        def bounds(item) -> Rect:
            """Pixels an item can touch: snapped out to whole pixels (touching fractional
            edges share a pixel), plus the anti-aliasing fringe of transformed quads.
            Under a running transform animation, everywhere it goes in this iteration
            (as Blink does), so promotions do not flicker from frame to frame."""
            if isinstance(item, PendingDraw):
                sweep = self._animation_sweep(item.node, to_target)
                if sweep is not None:
                    return sweep
                return touched(item.node.ink_rect, to_target @ item.node.to_screen)
            return touched(Rect(0, 0, *item.quad_size), item.transform)

        # Once per item: a budget demotion re-partitions, and animation sweeps are not cheap.
        rects = {id(item): bounds(item) for item in items}

        def bounds_of(item) -> Rect:
            return rects[id(item)]

        def is_surface(item) -> bool:
            return isinstance(item, Draw)

        base_reasons = (CompositingReason.ROOT,) if base_id == "root" else ()

        def scroller_of(node: LayerNode) -> LayerNode | None:
            """The composited scroller whose contents backing the node paints into here
            (one whose contents lie inside this target)."""
            if node.scroller not in self.scrollers:
                return None
            scroller = self.trees.nodes[node.scroller]
            return scroller if len(scroller.clips) >= target.inherited_clips else None

        def fixed(node: LayerNode) -> bool:
            """A fixed layer over a page (or container) that the compositor scrolls."""
            if not node.is_fixed:
                return False
            layer = node.layer.parent
            while layer is not None:
                if layer.id in self.scrollers:
                    return True
                layer = layer.parent
            return False

        entries = partition(items, self.t, bounds_of, is_surface, base_reasons, scroller_of=scroller_of, fixed=fixed)
        if self.memory_budget is not None:
            demoted: set[str] = set()
            while composited_bytes(entries) > self.memory_budget:
                candidates = [e for e in entries if e.kind == "own" and e.owner.id not in demoted]
                if not candidates:
                    break
                worst = min(candidates, key=lambda e: (usefulness(e), -(e.rect.width * e.rect.height)))
                demoted.add(worst.owner.id)
                used = composited_bytes(entries)
                self.decisions.append(
                    Decision(
                        worst.owner.id,
                        f"demoted: composited layers need {used / 2**20:.2f} MB, over the "
                        f"{self.memory_budget / 2**20:.2f} MB budget; it was the least useful "
                        f"({', '.join(r.value for r in worst.reasons)})",
                    )
                )
                entries = partition(items, self.t, bounds_of, is_surface, base_reasons, frozenset(demoted),
                                    scroller_of=scroller_of, fixed=fixed)
        out: list[Draw] = []
        squashes = 0
        for e in entries:
            if e.kind == "surface":
                out.append(e.draw)
                self._site(None)
                continue
            if not e.members:
                continue
            if e.kind == "squash":
                squashes += 1
            passes_before = len(self.passes)
            draw = self._entry_draw(e, target, base_id, squashes)
            if isinstance(draw, list):
                out.extend(draw)
                for _ in draw:
                    self._site(None)  # tiles: planned anew when anything in them changes
            elif draw is not None:
                out.append(draw)
                self._site(Site(e, squashes, frozenset(p.name for p in self.passes[passes_before:]),
                                tuple(p.node.id for p in e.members)))
        return tuple(out)

    def _site(self, site: Site | None) -> None:
        if self.sites is not None:
            self.sites.append(site)

    def _entry_draw(self, e, target: Target, base_id: str, squash_index: int) -> Draw | list[Draw] | None:
        """The draw of one backing entry (its layers painted into one texture, or a lone
        layer's own raster), recording each member's compositing facts in layer_info;
        a list of draws when it is tiled."""
        reasons = [r.value for r in e.reasons]
        if e.kind == "scroll":
            return self._scroller_contents(e, target)
        if len(e.members) == 1 and e.kind in ("own", "base"):
            # One layer alone in its backing: its raster is the backing.
            p = e.members[0]
            draws = self._layer_draws(p, target.space, target.origin, p.clips)
            own = e.kind == "own"  # a lone layer of the base backing is not promoted
            if not draws:
                return None
            self.layer_info[p.node.id] = LayerInfo(own, tuple(reasons) if own else (), draws[0].source.name if own else None,
                                                   draws[0].source.name)
            if len(draws) == 1 and draws[0].source.role is not TextureRole.TILE:
                return draws[0]
            return draws
        if e.kind == "own":
            owner = e.owner.to_screen
            space = owner.inverse()
            moving = self._moving(e.owner)
            if owner.is_translation() and not moving:
                # Keep the owner's sub-pixel position inside the backing, so the
                # backing itself lands on whole pixels (nothing shifts or blurs).
                space = Affine.translate(owner.e - math.floor(owner.e), owner.f - math.floor(owner.f)) @ space
            cache_id, label = f"backing:{e.owner.id}", e.owner.id
            sampled = moving  # drawn where the owner is, sampled: the backing stays the same
        elif e.kind == "squash":
            space, sampled = target.space, False
            cache_id, label = f"backing:{base_id}:squash{squash_index}", f"{base_id}-squash{squash_index}"
        else:
            space, sampled = target.space, False
            cache_id, label = f"backing:{base_id}:base", f"{base_id}-base"
        # The page's base backing starts as the opaque page background, as Chromium's
        # root layer does: its layers then blend over the same colour, with the same
        # 8-bit roundings, as when they are drawn straight into the frame.
        fill = self._page_fill if (e.kind == "base" and base_id == "root" and self._page_fill) else (0.0, 0.0, 0.0, 0.0)
        draw = self._backing(e, space, target, cache_id, label, fill, sampled)
        if not draw:
            return None
        name = draw[0].source.name if isinstance(draw, list) else draw.source.name
        for i, p in enumerate(e.members):
            owns = e.kind == "squash" or (e.kind == "own" and p.node is e.owner)
            if e.kind == "squash":
                member_reasons = reasons if i == 0 else [CompositingReason.OVERLAP.value, CompositingReason.SQUASHED.value]
            else:
                member_reasons = reasons if owns else []
            self.layer_info[p.node.id] = LayerInfo(owns, tuple(member_reasons), name if owns else None, name)
        return draw

    def _backing_damage(self, cache_id: str, key, bounds: list[Rect], w: int, h: int):
        """The rect of a kept backing to repaint (x, y, w, h in its pixels), or None when
        it must be painted anew (new, resized, moved, or its texture is gone)."""
        if self.cache is None:
            return None
        old = self.cache.peek(cache_id)
        old_bounds = self._bounds_memo.get(cache_id)
        if old is None or old_bounds is None or old[0][:3] != key[:3] or old[0][4:] != key[4:] or not self.available(old[1].name):
            return None
        damage = changed_region(key[3], old[0][3], bounds, old_bounds)
        if damage is None:
            return None
        damage = damage.intersect(Rect(0, 0, w, h)).rounded_out()
        if damage.is_empty():
            return None
        return (int(damage.x), int(damage.y), int(damage.width), int(damage.height))

    def _animation_sweep(self, node: LayerNode, to_target: Affine) -> Rect | None:
        """Target pixels a layer can touch over this iteration of the transform
        animations running on it or on an ancestor (graph.sweep), or None when none
        runs. Each animated layer is sampled once a frame."""
        layer = node.layer
        while layer is not None:
            samples = self._sweeps.get(layer.id)
            if samples is None:
                anim = self.trees.nodes.get(layer.id)
                samples = self._sweeps[layer.id] = sample_sweep(layer, anim, self.t) if anim is not None else []
            if samples:
                break
            layer = layer.parent
        if layer is None:
            return None
        anim = self.trees.nodes[layer.id]
        if not anim.to_screen.is_invertible():
            return None
        rel = Affine() if anim is node else anim.to_screen.inverse() @ node.to_screen
        return sweep_bounds(samples, rel, node.ink_rect, to_target)

    def _backing(self, e, space: Affine, target: Target, cache_id: str, label: str,
                 fill: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
                 sampled: bool = False) -> Draw | list[Draw] | None:
        """The draw of a backing holding several layers, painting it only when what it
        holds changed (its key: each member's paint, placement, opacity and clips).
        ``fill`` is what the backing starts as: transparent, or the page's opaque
        background for the root's base backing."""
        rects = [touched(p.node.ink_rect, clean(space @ p.node.to_screen)) for p in e.members]
        b = Rect.union(rects)
        if space is target.space and target.size is not None:
            b = b.intersect(Rect(target.origin[0], target.origin[1], target.size[0], target.size[1]))
        if b is None or b.is_empty():
            return None
        # Float noise (bounds recomputed from screen matrices) must not flip a rounding.
        b = Rect(*(round(v, 6) for v in (b.x, b.y, b.width, b.height))).rounded_out()
        origin = (int(b.x), int(b.y))
        w, h = int(b.width), int(b.height)
        if self._tiled(f"the backing of {label!r}", w, h):
            interest = grow(target.cull if target.cull is not None else self.viewport, self.tiling.interest_margin)
            return self._tiled_backing(e, space, target, cache_id, label, fill, (), 0, interest)
        self._check_size(f"the backing of {label!r}", w, h)
        # Backing px -> screen -> target px; member clips were made for the target.
        backing_to_screen = space.inverse() @ Affine.translate(*origin)
        backing_to_target = target.from_screen() @ backing_to_screen
        signature = []
        member_clips = []
        member_bounds = []
        for p in e.members:
            clips = tuple(reframe(c, backing_to_target) for c in p.clips)
            member_clips.append(clips)
            m = clean(Affine.translate(-origin[0], -origin[1]) @ space @ p.node.to_screen)
            offset, _, _, snapped = raster_placement(p.node, m)
            # Rounded: the placement relative to the backing is recomputed from screen
            # matrices every frame, and float noise must not count as a change.
            clip_sig = tuple((c.layer_id, rounded(c.to_local), c.rect, c.radii, c.kind) for c in clips)
            signature.append((self._paint(p.node, offset), rounded(snapped), round(p.opacity, 6), clip_sig))
            member_bounds.append(touched(p.node.ink_rect, m))
        key = (origin, w, h, tuple(signature), fill)
        tex = self.cache.lookup(cache_id, key, self.available) if self.cache is not None else None
        damage = self._backing_damage(cache_id, key, member_bounds, w, h) if tex is None else None
        if tex is not None:
            self.reused.append(tex.name)
        elif damage is not None:
            # Repaint in place, only where members changed: the layers touching that rect
            # are rastered again, the rest of the backing is kept.
            old_key, tex = self.cache.peek(cache_id)
            self.cache.update(cache_id, key)
            self.repainted.add(tex.name)
            self._bounds_memo[cache_id] = member_bounds
            self.reused.append(tex.name)
            dx, dy, dw, dh = damage
            region = Rect(dx, dy, dw, dh)
            draws = tuple(
                self._layer_draw(p, space, origin, clips, retained=False)
                for p, clips, r in zip(e.members, member_clips, member_bounds)
                if not r.intersect(Rect(region.x - 1, region.y - 1, region.width + 2, region.height + 2)).is_empty()
            )
            reasons = ", ".join(r.value for r in e.reasons) or "paints layers that are not composited"
            self.passes.append(
                CompositePass(
                    f"paint:{label}", tex, origin, fill, draws, SurfaceReason.BACKING,
                    f"backing of {label}: {reasons}; repainted {dw}x{dh} at {dx},{dy} where its layers changed", damage,
                )
            )
        else:
            draws = tuple(
                self._layer_draw(p, space, origin, clips, retained=False) for p, clips in zip(e.members, member_clips)
            )
            if self.cache is not None:
                tex = TextureDesc(self.cache.new_name(label, prefix="backing"), w, h, TextureRole.BACKING, retained=True)
                self.cache.store(cache_id, key, tex)
                self._bounds_memo[cache_id] = member_bounds
            else:
                tex = TextureDesc(f"backing:{label}", w, h, TextureRole.BACKING)
            reasons = ", ".join(r.value for r in e.reasons) or "paints layers that are not composited"
            self.passes.append(
                CompositePass(f"paint:{label}", tex, origin, fill, draws, SurfaceReason.BACKING, f"backing of {label}: {reasons}")
            )
        placed = clean(backing_to_target) if sampled else snap(backing_to_target)
        return Draw(tex, label, placed, 1.0, (), note=f"backing ({len(e.members)} layers)")

    def _why_not_drawn(self, node: LayerNode) -> None:
        if node.style.visibility != "visible":
            why = "own content not drawn: visibility hidden"
        elif node.width <= 0 or node.height <= 0:
            why = None  # an empty box is a plain container: nothing to explain
        elif not node.to_screen.is_invertible():
            why = "not drawn: its transform is not invertible (CSS renders nothing)"
        else:
            why = None  # paints nothing of its own (no background, image or border)
        if why:
            self.decisions.append(Decision(node.id, why))

    def emit_context(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float) -> None:
        """Append the draws of a stacking context to ``out``."""
        node = ctx.node
        own_opacity = node.style.opacity
        if own_opacity <= 0.0:
            self.decisions.append(Decision(node.id, "not drawn: opacity 0 (with all its descendants)"))
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

    def _emit_effects(self, ctx: StackingContext, out: list, target: Target, opacity: float, *,
                      as_one_draw: bool = False) -> None:
        """The context's effects in CSS order (backdrop-filter, filter, then opacity) and
        the surfaces they need; with ``as_one_draw``, the context ends as one Draw (for a
        blend mode)."""
        node = ctx.node
        own_opacity = node.style.opacity
        self.note_clip_path(node)
        if node.style.backdrop_filter is not None:
            if self.emit_backdrop_filter(ctx, out, target, opacity):
                return
        if node.style.filter is not None:
            if self.emit_filter_surface(ctx, out, target, opacity):
                return
        if self.emit_masked(ctx, out, target, opacity):  # mask-image, polygon clip-path (graph.masks)
            return
        drawing = ctx.drawing_nodes()
        group = self._group_reason(ctx)
        if own_opacity < 1.0 and len(drawing) >= 2:
            self.emit_group_surface(ctx, out, target, opacity, SurfaceReason.OPACITY_GROUP,
                                    f"layer {node.id!r} opacity {own_opacity:g} over {len(drawing)} drawing layers: "
                                    "flatten, then fade")
            return
        if group is not None or (as_one_draw and (len(drawing) != 1 or drawing[0] is not node)):
            reason = group or SurfaceReason.BLEND
            detail = {
                SurfaceReason.ISOLATION: f"layer {node.id!r} is an isolated group that a descendant blends with",
                SurfaceReason.BACKDROP_ROOT: f"layer {node.id!r} is the backdrop root a descendant's backdrop-filter reads",
                SurfaceReason.BLEND: f"layer {node.id!r} mix-blend-mode {node.style.mix_blend_mode}: "
                                     f"{len(drawing)} drawing layers flattened, then blended",
            }[reason]
            if own_opacity < 1.0:
                detail += f", then faded (opacity {own_opacity:g})"
            self.emit_group_surface(ctx, out, target, opacity, reason, detail)
            return
        if as_one_draw:
            # One drawing layer, the element itself: its raster is blended directly (no
            # surface), as viz draws a single-quad pass into its parent.
            pending: list = []
            self.draw_node(node, pending, target, opacity)
            for p in pending:
                if self._tiled(f"layer {node.id!r}", math.ceil(node.width), math.ceil(node.height), node.id):
                    raise UnsupportedFeatureError(
                        f"mix-blend-mode on a layer larger than the tiling threshold ({self.tiling.threshold} px) "
                        "is not supported yet", property="mix-blend-mode", layer=node.id)
                out.append(self._layer_draw(p, target.space, target.origin, p.clips, sampled=self._moving(p.node)))
            return
        if own_opacity < 1.0 and drawing:
            self.decisions.append(
                Decision(
                    node.id,
                    f"opacity {own_opacity:g} applied in the draw of {drawing[0].id!r}: "
                    "one drawing layer needs no surface",
                )
            )
        self.emit_items(ctx, out, target, opacity)

    def _group_reason(self, ctx: StackingContext) -> SurfaceReason | None:
        """Why the context must be a surface of its own for what reads inside it."""
        if ctx.node.layer.parent is None:
            return None  # the page: the frame holds it
        if is_isolated_group(ctx.node) and has_blend_readers(ctx):
            return SurfaceReason.ISOLATION
        if is_backdrop_root(ctx.node) and has_backdrop_readers(ctx):
            return SurfaceReason.BACKDROP_ROOT
        return None

    def _blending(self, draw: Draw, mode: BlendMode, target: Target) -> Draw:
        """``draw`` composited with ``mode``: it reads a copy of the target under it."""
        made = blend_read(draw, mode, target.size)
        if made is None:
            return draw  # nothing of it shows: there is nothing to blend with
        blended, read = made
        self._reads[id(blended)] = read
        self._keep.append(blended)
        group = "the page (the frame)" if target.owner == "root" else f"the group of {target.owner!r} (its surface)"
        self.decisions.append(Decision(draw.layer_id, f"mix-blend-mode {mode}: blends with {group}, reading back the "
                                                      f"{read.copy.width}x{read.copy.height} px under it"))
        return blended

    def emit_items(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float, *, own: bool = True) -> None:
        """The context root's own content, then its items in paint order. In the frame's
        own target, the passes each item needed are noted with the draw they made (the
        retained fast path keeps them with it)."""
        if own:
            self.draw_node(ctx.node, out, target, opacity)
        for item in ctx.items:
            if target is not self._frame:
                if isinstance(item, StackingContext):
                    self.emit_context(item, out, target, opacity)
                else:
                    self.draw_node(item, out, target, opacity)
                continue
            passes, drawn = len(self.passes), len(out)
            if isinstance(item, StackingContext):
                self.emit_context(item, out, target, opacity)
            else:
                self.draw_node(item, out, target, opacity)
            made = [d for d in out[drawn:] if isinstance(d, Draw)]
            for i, d in enumerate(made):
                self._work[id(d)] = tuple(self.passes[passes:]) if i == 0 else ()

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
                grow += self._reach(c.node.style.filter, c.node.style.color, scale)
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

    def _reach(self, chain, color, scale: float) -> float:
        """How far a filter's output reaches past its input (planned once per frame:
        nested filters ask for it once per enclosing surface)."""
        key = (chain, color, scale)
        reach = self._reaches.get(key)
        if reach is None:
            reach = self._reaches[key] = max(chain.plan(current_color=color, scale=scale).outsets)
        return reach

    def _surface_pass(self, ctx: StackingContext, bounds: Rect, space: Affine, cull: Rect | None, reason, detail: str,
                      cull_from: int, first: tuple[Draw, ...] = ()) -> CompositePass:
        """The composite pass of a surface holding the context's layers (not yet added),
        after ``first`` (a backdrop-filter's filtered backdrop)."""
        node = ctx.node
        sx, sy = int(bounds.x), int(bounds.y)
        w, h = int(bounds.width), int(bounds.height)
        # Everything but an isolated group is a backdrop root (groups.py says which).
        inner = Target((sx, sy), space, cull, len(node.clips), cull_from, (w, h),
                       backdrop_root=reason is not SurfaceReason.ISOLATION or is_backdrop_root(node), owner=node.id)
        items: list = []
        self.emit_items(ctx, items, inner, 1.0)
        self._check_size(f"the {reason.value} surface of layer {node.id!r}", w, h, node.id)
        tex = TextureDesc(f"surface:{node.id}", w, h, TextureRole.RENDER_SURFACE)
        draws = first + self.finalize(items, inner, f"surface:{node.id}")
        return CompositePass(f"composite:{node.id}", tex, (sx, sy), (0.0, 0.0, 0.0, 0.0), draws, reason, detail)

    def _surface(self, ctx: StackingContext, bounds: Rect, space: Affine, cull: Rect | None, reason, detail: str, cull_from: int):
        """Plan a surface (a composite pass) holding the context's layers; return it."""
        surface = self._surface_pass(ctx, bounds, space, cull, reason, detail, cull_from)
        self.passes.extend(self._composite_passes(surface))
        return surface.target

    def _composite_passes(self, cp: CompositePass) -> list:
        """``cp``, split at the draws that read their backdrop (graph.reads)."""
        return split_at_reads(cp, self._reads)

    def emit_group_surface(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float,
                           reason: SurfaceReason, detail: str) -> None:
        """Flatten the context into a surface (for ``reason``), drawn with ``opacity``."""
        node = ctx.node
        # The surface covers what its layers can touch (in the target's space, rounded out
        # to whole pixels). Clips from above the context apply when the surface is drawn.
        bounds = self._content_bounds(ctx, target.space, target.cull, target.cull_from)
        if bounds is None:
            self.decisions.append(Decision(node.id, "not drawn: its group lies outside the viewport or its clips"))
            return
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if clips is None:
            self.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return
        bounds = bounds.rounded_out()
        tex = self._surface(ctx, bounds, target.space, target.cull, reason, detail, target.cull_from)
        share = tex.width * tex.height / (self.scene.width * self.scene.height)
        if reason is SurfaceReason.ISOLATION and share >= LARGE_GROUP_SHARE:
            self.decisions.append(Decision(node.id, (
                f"performance: the isolated group of {node.id!r} needs a {tex.width}x{tex.height} surface "
                f"({share:.0%} of the viewport) only because something inside it blends; isolating a smaller "
                "container around the blending element (isolation: isolate) keeps the surface small")))
        to_target = Affine.translate(bounds.x - target.origin[0], bounds.y - target.origin[1])
        out.append(Draw(tex, node.id, to_target, opacity, clips, note="render surface"))

    def emit_backdrop_filter(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float) -> bool:
        """Plan a backdrop-filter (Filter Effects 2 §2.1): copy what lies under the
        element's border box (grown by the filter's reach, the growth mirrored from
        inside: edge mode mirror), filter the copy, then a surface holding the filtered
        copy clipped to the border box (with its radii) and the element on top, drawn
        with the element's opacity. A transformed element reads and filters its backdrop
        in its own space, at the scale it is shown. False when the filter does nothing."""
        node = ctx.node
        s = node.style
        chain = s.backdrop_filter
        for other, value in (("filter", s.filter), ("mix-blend-mode", s.mix_blend_mode is not BlendMode.NORMAL),
                             ("a mask-image or a polygon clip-path", has_mask(node))):
            if value:
                raise UnsupportedFeatureError(f"backdrop-filter together with {other} on one element is not supported yet",
                                              property="backdrop-filter", layer=node.id)
        if not target.backdrop_root:
            raise UnsupportedFeatureError(
                "a backdrop-filter inside an isolated group that is not a backdrop root (a transformed or z-index "
                "container that a blending element also needs) is not supported yet", property="backdrop-filter",
                layer=node.id)
        m = node.to_screen
        if not m.is_invertible():
            self.decisions.append(Decision(node.id, "not drawn: its transform is not invertible"))
            return True
        to_target = target.from_screen() @ m  # element px -> target texels
        region, plan = backdrop_region(to_target, m, (node.width, node.height), target.size, chain, s.color)
        if region is None:
            why = "does nothing: no read-back" if not plan.passes else "reads nothing: its box lies outside its target"
            self.decisions.append(Decision(node.id, f"backdrop-filter: {chain} {why}"))
            return False
        scale, where, (_, _, cw, ch) = region.scale, region.where, region.copy
        self._check_size(f"the backdrop copy of layer {node.id!r}", cw, ch, node.id)
        copy = TextureDesc(f"backdrop:{node.id}", cw, ch, TextureRole.BACKDROP)
        to_source, mirror = region.to_source, region.mirror
        plan = chain.plan(current_color=s.color, scale=scale, size=(cw, ch))
        self._filter_key = None  # what lies under an element is read anew every frame
        filter_passes, result = self._filter_passes(node, plan, copy)
        # The element's surface, in the target's space: the filtered backdrop (clipped to
        # the border box and its radii), then the element and its descendants.
        on_target = Rect(0, 0, node.width, node.height).transformed_bounds(target.space @ m)
        content = self._content_bounds(ctx, target.space, target.cull, target.cull_from)
        bounds = on_target if content is None else Rect.union([on_target, content])
        if target.cull is not None and target.space.is_translation():
            bounds = bounds.intersect(target.cull.transformed_bounds(target.space))
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if bounds.is_empty() or clips is None:
            self.decisions.append(Decision(node.id, "not drawn: outside the viewport or its clips"))
            return True
        bounds = bounds.rounded_out()
        sx, sy = int(bounds.x), int(bounds.y)
        surface_to_target = Affine.translate(sx - target.origin[0], sy - target.origin[1])
        border_box = clip_shape(node.id, to_target.inverse() @ surface_to_target, (0.0, 0.0, node.width, node.height),
                                used_radii(s, node.width, node.height))
        backdrop = Draw(result, node.id, snap(surface_to_target.inverse() @ to_source), 1.0, (border_box,),
                        note="filtered backdrop, clipped to the border box")
        read = f"backdrop-filter of {node.id!r} reads the {cw}x{ch} px under it"
        if opacity >= 1.0 and not has_backdrop_readers(ctx) and not has_blend_readers(ctx):
            # Nothing fades the two together and nothing inside reads the element: the
            # filtered backdrop is drawn straight into the target, the element over it
            # (no surface, as viz draws a single-quad pass into its parent).
            direct = replace(backdrop, transform=snap(to_source), clips=clips + (
                clip_shape(node.id, to_target.inverse(), (0.0, 0.0, node.width, node.height),
                           used_radii(s, node.width, node.height)),))
            self._reads[id(direct)] = BackdropRead(copy, to_source, mirror, read, tuple(filter_passes))
            self._keep.append(direct)
            self.decisions.append(Decision(node.id, f"backdrop-filter: {chain}: reads back {cw}x{ch} px, "
                                                    f"{len(plan.passes)} filter passes, drawn under the element "
                                                    "(no surface: opacity 1, nothing inside reads it)"))
            out.append(direct)
            self.emit_items(ctx, out, target, opacity)
            return True
        detail = (f"backdrop-filter: {chain} on the {cw}x{ch} px under {node.id!r} (read in {where}, edges mirrored), "
                  "clipped to its border box, then the element")
        surface = self._surface_pass(ctx, bounds, target.space, target.cull, SurfaceReason.BACKDROP_FILTER, detail,
                                     target.cull_from, first=(backdrop,))
        draw = Draw(surface.target, node.id, surface_to_target, opacity, clips, note="backdrop-filter surface")
        self._reads[id(draw)] = BackdropRead(copy, to_source, mirror, read,
                                             tuple(filter_passes) + tuple(self._composite_passes(surface)))
        self._keep.append(draw)
        self.decisions.append(Decision(node.id, f"backdrop-filter: {chain}: reads back {cw}x{ch} px, "
                                                f"{len(plan.passes)} filter passes, a {surface.target.width}x"
                                                f"{surface.target.height} surface"))
        out.append(draw)
        return True

    def emit_filter_surface(self, ctx: StackingContext, out: list[Draw], target: Target, opacity: float) -> bool:
        """Plan the surface and passes of a filtered context; False when the filter turns
        out to do nothing (the context is then drawn as if unfiltered)."""
        node = ctx.node
        m = node.to_screen
        if not m.is_invertible():
            self.decisions.append(Decision(node.id, "not drawn: its transform is not invertible"))
            return True
        if m.is_translation() and target.space.is_translation():
            space, scale, where = target.space, 1.0, "screen space"
        else:
            # Filter in the layer's own space, at the scale it is shown at.
            scale = m.max_scale()
            space, where = Affine.scale(scale, scale) @ m.inverse(), f"the layer's own space at scale {scale:.3g}"
        chain = node.style.filter
        plan = chain.plan(current_color=node.style.color, scale=scale)
        if not plan.passes:
            self.decisions.append(Decision(node.id, f"filter: {chain} does nothing: no surface"))
            return False
        # What can show: the target's cull rect cut by the clips above this layer (they
        # apply to the filtered result), in the filter's space; then the input region
        # that can reach it (blur reach, shadow offsets).
        visible = target.cull
        for clip in node.clips[target.cull_from :]:
            if not clip.to_screen.is_invertible():
                self.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
                return True
            box = clip.rect.transformed_bounds(clip.to_screen)
            visible = box if visible is None else visible.intersect(box)
        needed = None
        if visible is not None:
            if visible.is_empty():
                self.decisions.append(Decision(node.id, "not drawn: its filtered result lies off screen"))
                return True
            v = visible.transformed_bounds(space)
            x0, y0, x1, y1 = plan.needed_input((v.x, v.y, v.right, v.bottom))
            needed = Rect(x0, y0, x1 - x0, y1 - y0)
        cull = needed.transformed_bounds(space.inverse()) if needed is not None else None
        inner_from = len(node.clips)
        content = self._content_bounds(ctx, space, cull, inner_from)
        if content is None:
            self.decisions.append(Decision(node.id, "not drawn: nothing to filter on screen"))
            return True
        top, right, bottom, left = plan.outsets
        bounds = Rect(content.x - left, content.y - top, content.width + left + right, content.height + top + bottom)
        if needed is not None:
            bounds = bounds.intersect(needed)
        bounds = bounds.rounded_out()
        if bounds.is_empty():
            self.decisions.append(Decision(node.id, "not drawn: its filtered result lies off screen"))
            return True
        clips = self.clip_shapes(node.clips[target.inherited_clips :], target, node.id)
        if clips is None:
            self.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return True
        # Plan again knowing the surface size (cost rules depend on the pixel count).
        plan = chain.plan(current_color=node.style.color, scale=scale, size=(int(bounds.width), int(bounds.height)))
        detail = f"filter: {chain} in {where}, grown by {top}/{right}/{bottom}/{left} px"
        surface = self._surface_pass(ctx, bounds, space, cull, SurfaceReason.FILTER, detail, inner_from)
        result = self._cached_filter_result(node, plan, surface, space)
        if result is None:
            self.passes.extend(self._composite_passes(surface))
            passes, result = self._filter_passes(node, plan, surface.target)
            self.passes.extend(passes)
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
        if self.cache is None or not all(d.source.retained and d.source.name not in self.repainted and d.backdrop is None
                                         for d in surface.draws):
            return None  # only inputs that are kept, unchanged, can prove "unchanged"
        key = (surface.origin, surface.target.width, surface.target.height, space, plan, surface.draws, self.filter_backend)
        self._filter_key = key
        cached = self.cache.lookup(f"filter:{node.id}", key, self.available)
        if cached is not None:
            self.reused.append(cached.name)
            self.decisions.append(Decision(node.id, "filter result reused: its input and parameters are unchanged"))
        return cached

    def _filter_passes(self, node: LayerNode, plan, source: TextureDesc) -> tuple[list, TextureDesc]:
        """The tasks of ``plan`` on ``source`` (filters.tasks), each pass on the executor
        the filter backend places it on, and the GL texture holding the result."""
        if callable(self.filter_costs):  # "auto": measure (or load) the model on first need
            try:
                self.filter_costs = self.filter_costs()
            except OpenCLUnavailableError as err:
                self.filter_costs, self.opencl_unavailable = None, str(err)
        placement = place(plan, source.width, source.height, self.filter_backend, self.filter_costs, self.opencl_unavailable)
        if placement.summary:
            self.decisions.append(Decision(node.id, f"filter: {placement.summary}"))
        key = self._filter_key

        def kept_result(w: int, h: int) -> TextureDesc:
            # The result is kept for later frames while its key holds.
            name = self.cache.new_name(node.id, prefix="filter")
            out = TextureDesc(name, w, h, TextureRole.FILTER_OUTPUT, retained=True)
            self.cache.store(f"filter:{node.id}", key, out)
            return out

        tasks = filter_tasks(plan, source, placement, node.id, result_texture=kept_result if key is not None else None)
        return list(tasks.passes), tasks.result

    def _damage(self, draws: tuple[Draw, ...], clear, frame: TextureDesc) -> tuple[int, int, int, int] | None:
        """Where the frame must be redrawn, when last frame's is kept: the bounds, old and
        new, of every draw that changed (by position in paint order). None: redraw all."""
        if self.cache is None:
            return None
        state = self.cache.frame_state
        old_draws = state[3] if state is not None else ()
        keys, bounds = [], []
        for i, d in enumerate(draws):
            if i < len(old_draws) and d is old_draws[i] and d.source.name not in self.repainted:
                # The very draw of last frame (the fast path keeps them): same key, bounds.
                keys.append(state[1][i])
                bounds.append(state[2][i])
            else:
                keys.append(None if d.source.name in self.repainted else draw_key(d))
                bounds.append(touched(Rect(0, 0, *d.quad_size), d.transform))
        self.cache.frame_state = ((frame.width, frame.height, clear), keys, bounds, draws)
        if state is None or state[0] != (frame.width, frame.height, clear) or not self.available(frame.name):
            return None
        _, old_keys, old_bounds, _ = state
        self.reused.append(frame.name)
        damage = changed_region(keys, old_keys, bounds, old_bounds)
        if damage is None:
            return (0, 0, 0, 0)
        damage = damage.intersect(self.viewport).rounded_out()
        return (int(damage.x), int(damage.y), int(damage.width), int(damage.height))

    # -- the frame ----------------------------------------------------------------------
    def build(self) -> FrameGraph:
        self._check_size("the frame", self.scene.width, self.scene.height)
        changes = self.trees.update(self.scene, self.t)
        if changes.rebuilt:  # layers may have gone: so do their kept paints
            self.state.paints = {k: v for k, v in self.state.paints.items() if k in self.trees.nodes}
        self._note_scrollers()
        frame = TextureDesc("frame", self.scene.width, self.scene.height, TextureRole.FRAME, retained=self.cache is not None)
        last, self.state.last = self.state.last, None
        graph = self._retained(last, changes, frame)
        if graph is not None:
            self.state.fast_frames += 1
            return graph
        root = self.trees.root
        clear = (0.0, 0.0, 0.0, 0.0)
        draws: list[Draw] = []
        node = root.node
        target = self._frame = self._frame_target()
        if _is_plain_color(node):
            # The page background is a flat colour: clear to it instead of a raster pass.
            clear = node.style.used_background_color.premultiplied()
            if clear[3] >= 1.0:
                self._page_fill = tuple(clear)
            self.decisions.append(Decision(node.id, "background drawn as the frame's clear colour"))
            self.emit_items(root, draws, target, 1.0, own=False)
        else:
            self.emit_context(root, draws, target, 1.0)
        self.sites = []
        final = self.finalize(draws, target, "root")
        sites, self.sites = self.sites, None
        graph = self._frame_graph(final, clear, frame)
        if self.cache is not None:
            self.state.last = RetainedPlan(self._request_key(), graph, final, tuple(sites), clear,
                                           tuple(self.images_seen), self.cache.frames, site_index(sites),
                                           tuple(self._work.get(id(d)) for d in final),
                                           tuple(self._reads.get(id(d)) for d in final))
        return graph

    def _frame_target(self) -> Target:
        return Target((0, 0), Affine(), self.viewport, 0, 0, (self.scene.width, self.scene.height))

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
        self.passes.extend(self._composite_passes(
            CompositePass("composite:frame", frame, (0, 0), clear, final, SurfaceReason.ROOT, detail, damage)))
        released = self.cache.end_frame() if self.cache is not None else []
        graph = FrameGraph(self.scene.width, self.scene.height, self.passes, frame, self.decisions, self.reused, released)
        graph.policy = self.policy
        graph.layer_info = self.layer_info
        graph.tiles = self.tile_sets
        graph.validate()
        return graph

    def _request_key(self) -> tuple:
        """What a kept plan must share with this frame besides the time."""
        return (weakref.ref(self.scene), self.scene.width, self.scene.height, self.base_dir, self.policy,
                self.filter_backend, self.limits)

    # -- the retained fast path -----------------------------------------------------------
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
        for layer_id, what in changes.fields.items():
            if what - MOVABLE:
                return None
            index = site_of.get(layer_id)
            if index is None:
                node = self.trees.nodes[layer_id]
                if node.draws_content() or node.style.backdrop_filter is not None:
                    return None  # drawn elsewhere (inside a surface), read back, or culled: may change
                continue  # paints nothing itself: only its descendants' draws matter
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
        if self.policy.uses_backings and not all(swept(site, self.t) for site in redo.values()):
            return None
        target = self._frame_target()
        # Every moved member must still be drawn: last frame's decisions stand only then.
        pending_of = {}
        for index, site in redo.items():
            pending = self._pending_again(site, target)
            if pending is None:
                return None
            pending_of[index] = pending
        self.cache.carry_over()
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
            else:
                entry = replace(site.entry, members=pending)
                draw = self._entry_draw(entry, target, "root", site.squash_index)
                if draw is None:
                    raise _PlanAgain()  # its backing came out empty: this planner has started, so start anew
                final[index] = draw
        for i, read in enumerate(last.reads):
            if read is not None and i not in redo:
                self._reads[id(final[i])] = read
        self.passes = [p for p in last.graph.passes if id(p) in kept] + self.passes
        self.tile_sets = [replace(ts, rastered=0) for ts in last.graph.tiles]  # kept draws: their tiles stay
        self.decisions = list(last.graph.decisions)
        self.reused = [n for n in last.graph.reused if n not in replaced and n != frame.name] + self.reused
        self.images_seen = list(last.images)
        graph = self._frame_graph(tuple(final), last.clear, frame)
        work = tuple(None if i in redo else w for i, w in enumerate(last.work))
        self.state.last = replace(last, key=key, graph=graph, final=tuple(final), cache_frame=self.cache.frames,
                                  work=work)
        return graph

    def _pending_again(self, site: Site, target: Target) -> tuple | None:
        """The site's members as pending draws now, or None if one is no longer drawn
        (culled or clipped away: last frame's decisions would not stand)."""
        out = []
        for layer_id in site.members:
            node = self.trees.nodes[layer_id]
            drawn: list = []
            decisions = len(self.decisions)
            self.draw_node(node, drawn, target, member_opacity(site, layer_id))
            if not drawn:
                del self.decisions[decisions:]
                return None
            out.append(drawn[0])
        return tuple(out)


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
    executor holds and how it prices filter passes (filters.backend)."""
    with room_for(MAX_TREE_DEPTH):  # the walk recurses once per nesting level, a bounded depth
        return _build(scene, request, limits, images, state, facts)


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
        try:
            return Planner(scene, request, limits, images, state, facts).build()
        except _PlanAgain:
            cache.restore(saved)
            state.last = None  # no kept plan: this planner plans from scratch
            return Planner(scene, request, limits, images, state, facts).build()
    except BaseException:
        cache.restore(saved)  # a frame that failed to plan leaves the cache as it was
        state.last = None
        raise
