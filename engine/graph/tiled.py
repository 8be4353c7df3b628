"""The planner's tile and scroll work (a part of graph.planner.Planner, kept apart so
each file has one job): which layers and backings are tiled, their interest rects,
tiles kept and rastered (graph.tiles cuts the grid), a composited scroller's contents,
and the scroll offsets a frame clamped. The methods read the planner's inputs (cache,
tiling, scrollers) and emit into its FrameOutput (passes, decisions, tile sets)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..compositor.backings import CompositingReason
from ..compositor.tree import LayerNode
from ..framegraph import ClipShape, CompositePass, Decision, Draw, LayerInfo, RasterPass, SurfaceReason, TextureDesc, TextureRole, TileKind, TileSet
from ..geometry import Affine, Rect
from .ink import raster_placement
from .placement import clean, reframe, rounded, snap, touched
from .retained import ContentsRecord
from .targets import PendingDraw, Target
from .tiles import grow, tile_grid

__all__ = ["TiledDrawing", "TiledMembers"]


@dataclass
class TiledMembers:
    """What the tiles of a backing need of its members (graph.tiled): each one's matrix
    into the backing's space (made when first asked: ``matrix``) and the whole px it
    touches there as rows x, y, w, h (``boxes``: the tiles touching a member are found in
    a few vector operations), an id per member that stays the same from frame to frame
    (``ids``), and the tiles made: tile id -> (its rect, the ids of the members touching
    it, its cache key), which a scroll planned on the fast path reuses for tiles whose
    members stayed the same (graph.scrolled)."""

    members: list
    space: Affine
    ms: list
    boxes: np.ndarray
    ids: np.ndarray
    refresh: object = None  # called with a node before its matrix is read (placed when deferred)
    kept: dict = field(default_factory=dict)
    names: list | None = None  # the members' layer ids, when known (else read from the members)

    @classmethod
    def of(cls, members: list, space: Affine) -> "TiledMembers":
        ms = [clean(space @ p.node.to_screen) for p in members]
        rects = [touched(p.node.ink_rect, m) for p, m in zip(members, ms)]
        boxes = np.array([(r.x, r.y, r.width, r.height) for r in rects], dtype=np.float64).reshape(-1, 4)
        return cls(members, space, ms, boxes, np.arange(len(members)))

    def matrix(self, i: int) -> Affine:
        m = self.ms[i]
        if m is None:
            node = self.members[i].node
            if self.refresh is not None:
                self.refresh(node)
            m = self.ms[i] = clean(self.space @ node.to_screen)
        return m


class TiledDrawing:
    """Tiles and composited scrolling, for the Planner."""

    def _tiled(self, what: str, w: int, h: int, layer: str | None = None) -> bool:
        """Is ``what`` (w x h px, ``layer``'s) tiled? (And can its tiles be held?)"""
        if not self.tiling.needs_tiles(w, h, self.limits.max_texture_size):
            return False
        self.tiling.check(what, w, h, self.limits.max_texture_size, layer)
        return True

    def _interest(self, node: LayerNode, target: Target, below: bool = False) -> Rect:
        """The interest rect of what ``node`` draws into ``target`` (screen px): what can
        show there (the target's cull, the clips above it; with ``below``, the node's
        own clip too), grown by the interest margin."""
        margin = self.tiling.interest_margin
        rect = grow(target.cull if target.cull is not None else self.viewport, margin)
        clips = node.clips[target.cull_from:]
        own = node.clip() if below else None
        for clip in clips + ((own,) if own is not None else ()):
            if clip.to_screen.is_invertible():
                rect = rect.intersect(grow(clip.rect.transformed_bounds(clip.to_screen), margin))
        return rect

    def _layer_draws(self, p: PendingDraw, space: Affine, origin: tuple[float, float], clips,
                     retained: bool = True, need: Rect | None = None) -> list[Draw]:
        """A layer's raster drawn into a texture whose pixel (0, 0) is ``origin`` of
        ``space``; a layer above the tiling threshold as the tiles its interest rect
        touches (kept between frames when ``retained``), or, painted into a backing
        tile, as the one part of it that ``need`` (that tile's px) covers."""
        node = p.node
        m = clean(space @ node.to_screen)
        # Drawn straight into its target (no ``need``), a moving layer is sampled (Planner._moving).
        sampled = need is None and self._moving(node)
        rastered, s = self.rastered(node)  # at its raster scale (graph.scaled)
        m = self.unscaled(m, s)
        offset, w, h, placed = raster_placement(rastered, m, sampled)  # its box grown by its ink (graph.ink)
        if not self._tiled(f"layer {node.id!r}", w, h, node.id):
            return [self._layer_draw(p, space, origin, clips, retained, sampled)]
        to_target = Affine.translate(-origin[0], -origin[1]) @ placed  # raster px -> texture px
        direct = need is None  # drawn into its target as tiles (else: the part a backing tile needs)
        if direct:
            need = self._interest(node, p.target).transformed_bounds(Affine.translate(-origin[0], -origin[1]) @ space)
        need_raster = need.transformed_bounds(to_target.inverse())
        paint = self._paint(rastered, offset)
        draws = []
        if direct:
            keep = retained and self.cache is not None
            size = self.tiling.tile_size
            grid, tiles = tile_grid(Rect(0, 0, w, h), need_raster, size)
            rastered = 0
            for col, row, rect in tiles:
                tx, ty, tw, th = int(rect.x), int(rect.y), int(rect.width), int(rect.height)
                tile_id, key = f"layer:{node.id}:{col},{row}", (tx, ty, tw, th, paint)
                tex = self.cache.lookup(tile_id, key, self.available) if keep else None
                if tex is not None:
                    self.out.reused.append(tex.name)
                else:
                    name = self.cache.new_name(f"{node.id}:{col},{row}", prefix="tile") if keep else f"tile:{node.id}:{col},{row}"
                    tex = TextureDesc(name, tw, th, TextureRole.TILE, retained=keep)
                    self.out.passes.append(RasterPass(f"raster:{node.id}:{col},{row}", node.id, tex, paint,
                                                  f"tile {col},{row} of layer {node.id}", (tx, ty)))
                    if keep:
                        self.cache.store(tile_id, key, tex)
                    rastered += 1
                draws.append(Draw(tex, node.id, to_target @ Affine.translate(tx, ty), p.opacity, clips,
                                  note=f"tile {col},{row}", hard_edges=_inner_edges(rect, Rect(0, 0, w, h))))
            self.out.tile_sets.append(TileSet(node.id, TileKind.LAYER, size, grid, (w, h), len(tiles), rastered,
                                          sum(d.source.bytes for d in draws)))
            return draws
        region = need_raster.intersect(Rect(0, 0, w, h)).rounded_out()
        if region.is_empty():
            return []
        x, y, rw, rh = int(region.x), int(region.y), int(region.width), int(region.height)
        self._check_size(f"the part of layer {node.id!r} one texture needs", rw, rh, node.id)
        tex = self.out.regions.get((node.id, x, y, rw, rh, paint))
        if tex is None:
            tex = TextureDesc(f"layer:{node.id}@{x},{y},{rw}x{rh}", rw, rh, TextureRole.LAYER_CONTENT)
            self.out.passes.append(RasterPass(f"raster:{node.id}@{x},{y},{rw}x{rh}", node.id, tex, paint,
                                          "the part of a large layer a tile needs", (x, y)))
            self.out.regions[(node.id, x, y, rw, rh, paint)] = tex
        return [Draw(tex, node.id, to_target @ Affine.translate(x, y), p.opacity, clips)]

    def _tiled_backing(self, e, space: Affine, target: Target, cache_id: str, label: str, fill,
                       draw_clips: tuple, baked_from: int, interest: Rect, extent: Rect | None = None,
                       geometry: "TiledMembers | None" = None, owner_id: str = "") -> list[Draw]:
        """A backing cut into tiles fixed in ``space``: only those touching ``interest``
        (screen px) are kept; a tile is painted again only when a layer touching it
        changed. Member clips from ``baked_from`` on are painted in; ``draw_clips`` (a
        scroller's own clip and those above it) apply when the tiles are drawn. ``extent``
        (in ``space``) is the whole content when the members are only the part near the
        interest rect (a scroller's culled contents): the grid and the edge tiles then
        stay put as it scrolls. ``geometry``: what is known of the members already (a
        scroll planned on the fast path, graph.scrolled); the tiles made are noted in it.
        ``owner_id``: the layer the tiles are drawn for when ``label`` names none (Draw.owner_id)."""
        size = self.tiling.tile_size
        if geometry is None:
            geometry = TiledMembers.of(e.members, space)
        boxes = geometry.boxes
        if not len(boxes):
            return []
        rows = boxes[(boxes[:, 2] > 0) & (boxes[:, 3] > 0)]  # (as Rect.union of the bounds and extent)
        edges = [(float(rows[:, 0].min()), float(rows[:, 1].min()),
                  float((rows[:, 0] + rows[:, 2]).max()), float((rows[:, 1] + rows[:, 3]).max()))] if len(rows) else []
        if extent is not None and not extent.is_empty():
            edges.append((extent.x, extent.y, extent.right, extent.bottom))
        if not edges:
            return []
        x0, y0 = min(e[0] for e in edges), min(e[1] for e in edges)
        union = Rect(x0, y0, max(e[2] for e in edges) - x0, max(e[3] for e in edges) - y0)
        b = Rect(*(round(v, 6) for v in (union.x, union.y, union.width, union.height))).rounded_out()
        self.tiling.check(f"the backing of {label!r}", int(b.width), int(b.height), self.limits.max_texture_size)
        grid, tiles = tile_grid(b, interest.transformed_bounds(space), size)
        space_to_target = target.from_screen() @ space.inverse()
        draws, rastered = [], 0
        made: dict[str, tuple] = {}
        live = (boxes[:, 2] > 0) & (boxes[:, 3] > 0)
        bx0, by0, bx1, by1 = boxes[:, 0], boxes[:, 1], boxes[:, 0] + boxes[:, 2], boxes[:, 1] + boxes[:, 3]
        for col, row, rect in tiles:
            tx, ty, tw, th = int(rect.x), int(rect.y), int(rect.width), int(rect.height)
            tile_to_target = space_to_target @ Affine.translate(tx, ty)
            near = grow(rect, 1)
            # (as Rect.overlaps: a box shares area with the tile grown by a px)
            touching = np.flatnonzero(live & (bx0 < near.x + near.width) & (near.x < bx1)
                                      & (by0 < near.y + near.height) & (near.y < by1))
            tile_id = f"{cache_id}:{col},{row}"
            who = geometry.ids[touching]
            known = geometry.kept.get(tile_id)
            if known is not None and known[0] == (tx, ty, tw, th) and np.array_equal(known[1], who):
                key = known[2]  # the same members, placed alike in this space: the key it had
                member_clips = None
            else:
                signature, member_clips = [], []
                for i in touching:
                    p = e.members[i]
                    clips = tuple(reframe(c, tile_to_target) for c in p.clips[baked_from:])
                    member_clips.append(clips)
                    clip_sig = tuple((c.layer_id, rounded(c.to_local), c.rect, c.radii, c.kind) for c in clips)
                    zoomed, s = self.rastered(p.node)  # at its raster scale (graph.scaled)
                    offset, _, _, placed = raster_placement(zoomed, self.unscaled(geometry.matrix(i), s))
                    signature.append((self._paint(zoomed, offset), rounded(placed),
                                      round(p.opacity, 6), clip_sig))
                key = (tx, ty, tw, th, tuple(signature), fill)
            made[tile_id] = ((tx, ty, tw, th), who, key)
            tex = self.cache.lookup(tile_id, key, self.available) if self.cache is not None else None
            if tex is not None:
                self.out.reused.append(tex.name)
            else:
                for i in touching:
                    geometry.matrix(i)  # (placed, when a scroll was deferred: its raster is drawn)
                if member_clips is None:
                    member_clips = [tuple(reframe(c, tile_to_target) for c in e.members[i].clips[baked_from:])
                                    for i in touching]
                retained = self.cache is not None
                name = self.cache.new_name(f"{label}:{col},{row}", prefix="tile") if retained else f"tile:{label}:{col},{row}"
                tex = TextureDesc(name, tw, th, TextureRole.TILE, retained=retained)
                if retained:
                    self.cache.store(tile_id, key, tex)
                inside = tuple(d for i, clips in zip(touching, member_clips)
                               for d in self._layer_draws(e.members[i], space, (tx, ty), clips, retained=False,
                                                          need=Rect(0, 0, tw, th)))
                self.out.passes.append(CompositePass(f"paint:{label}:{col},{row}", tex, (tx, ty), fill, inside,
                                                 SurfaceReason.BACKING, f"tile {col},{row} of {label}"))
                rastered += 1
            placed = snap(tile_to_target)
            shown = touched(Rect(0, 0, tw, th), placed)
            if target.size is not None:
                shown = shown.intersect(Rect(0, 0, *target.size))
            # A plain rect clip around everything the tile shows clips nothing (the
            # page's viewport clip, say): drawn without it, the tile is a texel copy.
            clips = tuple(c for c in draw_clips if not _holds(c, shown))
            draws.append(Draw(tex, label, placed, 1.0, clips, note=f"tile {col},{row} of {label}",
                              hard_edges=_inner_edges(rect, b), owner_id=owner_id))
        geometry.kept = made
        self.out.tile_sets.append(TileSet(label, TileKind.BACKING, size, grid, (int(b.width), int(b.height)), len(tiles), rastered,
                                      sum(d.source.bytes for d in draws)))
        return draws

    def _contents_space(self, scroller: LayerNode) -> Affine:
        """Screen px -> a composited scroller's contents space (the scroll offset is not
        in it), keeping the fraction of a px of the scroller's position."""
        m = scroller.content_to_screen
        space = m.inverse()
        if m.is_translation():
            space = Affine.translate(m.e - math.floor(m.e), m.f - math.floor(m.f)) @ space
        return space

    def _scroller_contents(self, e, target: Target, geometry: "TiledMembers | None" = None) -> list[Draw]:
        """A composited scroller's contents: one backing in its contents space (the
        scroll offset is not in it), tiled, drawn moved by the offset and clipped by the
        scroller — so scrolling re-rasters only tiles that come into the interest rect.
        ``geometry``: what a scroll on the fast path knows of the members already
        (graph.scrolled); in the frame's own target what the tiles needed is noted for it."""
        scroller = e.owner
        space = self._contents_space(scroller)
        depth = len(scroller.clips) + 1 - target.inherited_clips  # clip shapes applied when drawn
        label = f"{scroller.id}-contents"
        clip = scroller.clip()
        # The scrollable content, in contents space (its origin: the scroller's box at
        # offset 0), moved by the fraction of a px the space keeps.
        extent = Rect(0, 0, clip.rect.right + scroller.scroll_max[0], clip.rect.bottom + scroller.scroll_max[1])
        extent = extent.transformed_bounds(space @ scroller.content_to_screen)
        if geometry is None:
            geometry = TiledMembers.of(e.members, space)
        draws = self._tiled_backing(e, space, target, f"backing:{scroller.id}:contents", label, (0.0, 0.0, 0.0, 0.0),
                                    e.members[0].clips[:depth], depth, self._interest(scroller, target, below=True),
                                    extent, geometry, owner_id=scroller.id)
        name = draws[0].source.name if draws else None
        info = LayerInfo(True, (CompositingReason.COMPOSITED_SCROLLER.value,), label, name)
        self.out.layer_info.update(dict.fromkeys([p.node.id for p in e.members] if geometry.names is None
                                                 else geometry.names, info))
        ts = self.out.tile_sets[-1] if draws else None
        if ts is not None:
            if self.out.sites is not None and target is self._frame:  # for a scroll on the fast path
                self.out.scrolls[scroller.id] = ContentsRecord(scroller.id, geometry, len(self.out.decisions),
                                                               len(self.out.tile_sets) - 1, e.members[0].opacity,
                                                               tiling=self.tiling)
            self.out.decisions.append(Decision(scroller.id, (
                f"composited scroller: its contents ({len(e.members)} layers, {ts.content[0]}x{ts.content[1]} px) are "
                f"one tiled backing the scroll offset moves; {ts.kept} of {ts.grid[0] * ts.grid[1]} tiles kept, "
                f"{ts.rastered} rastered this frame")))
        return draws

    def _note_scrollers(self) -> list[Decision]:
        """Which scroll containers the compositor scrolls (``scrollers``); returns the
        decisions that say which offsets it clamped (the first of a frame planned from
        scratch: a kept plan has them already)."""
        scrolled, notes = [], []
        for node in self.trees.scroll_containers:
            if node.scroll_asked[0] > node.scroll_max[0] or node.scroll_asked[1] > node.scroll_max[1]:
                ax, ay = node.scroll_asked
                ux, uy = node.scroll
                notes.append(Decision(node.id, (
                    f"scroll offset {ax:g},{ay:g} clamped to {ux:g},{uy:g}: the end of its scrollable overflow "
                    "(as browsers clamp scrollLeft / scrollTop)")))
            if self.policy.uses_backings and node.can_scroll():
                scrolled.append(node.id)
        self.scrollers = frozenset(scrolled)
        return notes


def _holds(clip: ClipShape, rect: Rect) -> bool:
    """Does an axis-aligned, square-cornered clip contain ``rect`` (target px)?"""
    m = clip.to_local
    if not m.is_translation() or any(r != (0.0, 0.0) for r in clip.radii):
        return False
    x, y, w, h = clip.rect
    return x - m.e <= rect.x and y - m.f <= rect.y and rect.right <= x + w - m.e and rect.bottom <= y + h - m.f


def _inner_edges(tile: Rect, whole: Rect) -> tuple[bool, bool, bool, bool]:
    """Which edges of a tile another tile of ``whole`` continues (left, top, right, bottom)."""
    return (tile.x > whole.x, tile.y > whole.y, tile.right < whole.right, tile.bottom < whole.bottom)
