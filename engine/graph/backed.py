"""The planner's backing work (a part of graph.planner.Planner, kept apart so each file
has one job): a target's pending draws become its draws, each layer from its own raster
or, under the "browser" policy, grouped into the backings compositor.backings partitions
them into: a backing's raster or kept texture, its damage, an animation's sweep, the
sites the retained fast path keeps, and why a layer is not drawn. The methods read the
planner's inputs and cache and emit into its FrameOutput (graph.output)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..framegraph import CompositePass, LayerInfo, Decision, Draw, SurfaceReason, TextureDesc, TextureRole
from ..geometry import Affine, Rect
from ..compositor.backings import BackingKind, CompositingReason, composited_bytes, partition, usefulness
from ..compositor.sticky import INSET_FIELDS
from ..compositor.tree import LayerNode, extends_3d
from .damage import changed_region
from .ink import raster_placement
from .contexts3d import order_3d_contexts
from .placement import clean, reframe, rounded, snap, touched
from .reads import piece_read, piece_region
from .retained import OverlapRecord, Site
from .sweep import animated_sweep, sweep_bounds
from .targets import PendingDraw, Target
from .tiles import grow

__all__ = ["BackedDrawing", "touching"]


def touching(boxes: np.ndarray, damage: tuple[int, int, int, int]) -> list[int]:
    """The positions of the member bounds (rows of x0, y0, x1, y1, as RasterCache.boxes
    makes them) that share area with the damage rect grown by a pixel (an anti-aliased
    edge one pixel outside still blends into it): what Rect.intersect(...).is_empty()
    says of each, for all of them in a few vector operations."""
    dx, dy, dw, dh = damage
    x0, y0 = dx - 1, dy - 1
    x1, y1 = x0 + (dw + 2), y0 + (dh + 2)
    hit = ((np.minimum(boxes[:, 2], x1) > np.maximum(boxes[:, 0], x0))
           & (np.minimum(boxes[:, 3], y1) > np.maximum(boxes[:, 1], y0)))
    return np.flatnonzero(hit).tolist()


class BackedDrawing:
    """Layer draws and backings, for the Planner."""

    def finalize(self, items: list, target: Target, base_id: str) -> tuple[Draw, ...]:
        """Turn a target's pending layer draws (and surface draws) into its draws, by the
        policy, then put the draws of each 3D rendering context among them in depth
        order, split where its layers intersect (graph.contexts3d)."""
        return self.order_contexts(self._policy_draws(items, target, base_id), target, base_id)

    def order_contexts(self, draws: tuple[Draw, ...], target: Target, base_id: str) -> tuple[Draw, ...]:
        """A target's draws with each 3D rendering context among them sorted and split
        (the retained fast path calls it again on the frame's kept and redone draws)."""
        if not self.trees.has_3d_contexts:
            return draws
        where = "frame" if base_id == "root" else f"surface {base_id}"
        owner = self.trees.nodes.get(target.owner)
        skip = _chain_contexts(owner)  # a surface flattening a member: sorted where it is drawn
        if owner is not None and owner.context3d == owner.id and extends_3d(owner):
            # A surface of the context's root itself (an isolated group for a member's
            # blend, not a grouping property: those force it flat): its context is in it.
            skip.discard(owner.id)
        readers = {id(d): d for d in draws if id(d) in self.out.reads}
        draws, records = order_3d_contexts(draws, self.trees.nodes, target.from_screen(), where, skip=frozenset(skip))
        if readers:
            draws = self._read_per_piece(readers, draws)
        for record in records:
            self.out.contexts3d.append(record)
            self.out.decisions.append(Decision(record.root, record.describe()))
        return draws

    def _read_per_piece(self, readers: dict[int, Draw], draws: tuple[Draw, ...]) -> tuple[Draw, ...]:
        """``draws`` with each piece of a split draw that reads its backdrop (graph.reads,
        keyed by the draw) reading its own copy, taken just before that piece is drawn
        (cc reads per drawn quad): a blend's read is a copy alone; a backdrop-filter's
        read also runs its filter passes (and surface) on that piece's copy
        (reads.piece_read), so each piece shows what lies behind it when it is drawn.
        Where the read is local (reads.piece_region), a piece copies only the part
        under it, grown by the filter's reach."""
        kept = {id(d) for d in draws}
        out = list(draws)
        for key, reader in readers.items():
            if key in kept:
                continue
            read = self.out.reads[key]
            pieces = [i for i, d in enumerate(out) if d.layer_id == reader.layer_id and d.source is reader.source
                      and d.transform == reader.transform and d.split_planes]
            for k, i in enumerate(pieces):
                piece, piece_reads = (out[i], read) if k == 0 else piece_read(out[i], read, k)
                piece_reads = replace(piece_reads, region=piece_region(piece, piece_reads))
                out[i] = piece
                self.out.reads[id(piece)] = piece_reads
                self.out.keep.append(piece)
        return tuple(out)

    def _policy_draws(self, items: list, target: Target, base_id: str) -> tuple[Draw, ...]:
        """A target's draws by the policy: each layer drawn from its own raster ("all",
        "none"), or grouped into backings ("browser")."""
        if not self.policy.uses_backings:
            out = []
            for p in items:
                if isinstance(p, PendingDraw):
                    passes_before = len(self.out.passes)
                    draws = self._layer_draws(p, target.space, target.origin, p.clips)
                    out.extend(draws)
                    if len(draws) == 1 and draws[0].source.role is not TextureRole.TILE:
                        self._site(Site(p, 0, frozenset(q.name for q in self.out.passes[passes_before:]), (p.node.id,)))
                    else:
                        for _ in draws:
                            self._site(None)  # tiles: planned anew when the layer changes
                else:
                    out.append(p)
                    self._site(None)
            return tuple(out)
        return self._backing_draws(items, target, base_id)

    def _backing_draws(self, items: list, target: Target, base_id: str) -> tuple[Draw, ...]:
        to_target = target.from_screen()
        owner = self.trees.nodes.get(target.owner)
        # A member's 3D flattening surface lies in its plane: what moves the plane moves
        # everything in it together, so it sweeps nothing there (graph.sweep).
        plane = owner.id if owner is not None and owner.context3d is not None and not extends_3d(owner) else None

        def bounds(item) -> Rect:
            """Pixels an item can touch: snapped out to whole pixels (touching fractional
            edges share a pixel), plus the anti-aliasing fringe of transformed quads.
            Under a running transform animation, everywhere it goes in this iteration
            (as Blink does), so promotions do not flicker from frame to frame."""
            if isinstance(item, PendingDraw):
                sweep = self._animation_sweep(item.node, to_target, plane)
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

        def pinned(node: LayerNode) -> CompositingReason | None:
            """Why scrolling moves the node otherwise than the contents around it: fixed
            over a page (or container) the compositor scrolls, or sticky in one (its
            shift changes with the scroll offset, so the contents' tiles cannot hold it)."""
            if node.is_sticky:  # with an inset to stick by (Blink promotes only those)
                sticks = any(getattr(node.style, f) is not None for f in INSET_FIELDS)
                return CompositingReason.STICKY_POSITION if sticks and node.scroller in self.scrollers else None
            if not node.is_fixed:
                return None
            layer = node.layer.parent
            while layer is not None:
                if layer.id in self.scrollers:
                    return CompositingReason.FIXED_POSITION
                layer = layer.parent
            return None

        entries = partition(items, self.t, bounds_of, is_surface, base_reasons, scroller_of=scroller_of, pinned=pinned)
        if self.memory_budget is not None:
            demoted: set[str] = set()
            while composited_bytes(entries) > self.memory_budget:
                candidates = [e for e in entries if e.kind is BackingKind.OWN and e.owner.id not in demoted]
                if not candidates:
                    break
                worst = min(candidates, key=lambda e: (usefulness(e), -(e.rect.width * e.rect.height)))
                demoted.add(worst.owner.id)
                used = composited_bytes(entries)
                self.out.decisions.append(
                    Decision(
                        worst.owner.id,
                        f"demoted: composited layers need {used / 2**20:.2f} MB, over the "
                        f"{self.memory_budget / 2**20:.2f} MB budget; it was the least useful "
                        f"({', '.join(r.value for r in worst.reasons)})",
                    )
                )
                entries = partition(items, self.t, bounds_of, is_surface, base_reasons, frozenset(demoted),
                                    scroller_of=scroller_of, pinned=pinned)
        if self.out.sites is not None:  # the frame's own target: what the fast path tests a move against
            self.out.overlap = OverlapRecord.of(items, bounds_of, entries)
        out: list[Draw] = []
        squashes = 0
        for e in entries:
            if e.kind is BackingKind.SURFACE:
                out.append(e.draw)
                self._site(None)
                continue
            if not e.members:
                continue
            if e.kind is BackingKind.SQUASH:
                squashes += 1
            passes_before = len(self.out.passes)
            draw = self._entry_draw(e, target, base_id, squashes)
            if isinstance(draw, list):
                record = self.out.scrolls.get(e.owner.id) if e.kind is BackingKind.SCROLL and self.out.sites is not None else None
                if record is not None:  # where its tiles are, and whether a layer after it is tested against them
                    record.first, record.count = len(out), len(draw)
                    at = max(self.out.overlap.index.get(p.node.id, -1) for p in e.members)
                    record.later_tested = at < 0 or bool(self.out.overlap.tested[at + 1:].any())
                out.extend(draw)
                for _ in draw:
                    self._site(None)  # tiles: planned anew when anything in them changes
            elif draw is not None:
                out.append(draw)
                self._site(Site(e, squashes, frozenset(p.name for p in self.out.passes[passes_before:]),
                                tuple(p.node.id for p in e.members)))
        return tuple(out)

    def _site(self, site: Site | None) -> None:
        if self.out.sites is not None:
            self.out.sites.append(site)

    def _entry_draw(self, e, target: Target, base_id: str, squash_index: int) -> Draw | list[Draw] | None:
        """The draw of one backing entry (its layers painted into one texture, or a lone
        layer's own raster), recording each member's compositing facts in layer_info;
        a list of draws when it is tiled."""
        reasons = [r.value for r in e.reasons]
        if e.kind is BackingKind.SCROLL:
            return self._scroller_contents(e, target)
        if len(e.members) == 1 and e.kind in (BackingKind.OWN, BackingKind.BASE):
            # One layer alone in its backing: its raster is the backing.
            p = e.members[0]
            draws = self._layer_draws(p, target.space, target.origin, p.clips)
            own = e.kind is BackingKind.OWN  # a lone layer of the base backing is not promoted
            if not draws:
                return None
            self.out.layer_info[p.node.id] = LayerInfo(own, tuple(reasons) if own else (), draws[0].source.name if own else None,
                                                   draws[0].source.name)
            if len(draws) == 1 and draws[0].source.role is not TextureRole.TILE:
                return draws[0]
            return draws
        space, sampled, cache_id, label, fill = self._backing_frame(e, target, base_id, squash_index)
        draw = self._backing(e, space, target, cache_id, label, fill, sampled)
        if not draw:
            return None
        name = draw[0].source.name if isinstance(draw, list) else draw.source.name
        # The kind, read once for all members (a backing may hold hundreds, and on Python
        # 3.11 each ``BackingKind.X`` goes through EnumType.__getattr__'s attribute hook).
        squash, own_kind = e.kind is BackingKind.SQUASH, e.kind is BackingKind.OWN
        squashed = [CompositingReason.OVERLAP.value, CompositingReason.SQUASHED.value] if squash else None
        for i, p in enumerate(e.members):
            owns = squash or (own_kind and p.node is e.owner)
            if squash:
                member_reasons = reasons if i == 0 else squashed
            else:
                member_reasons = reasons if owns else []
            self.out.layer_info[p.node.id] = LayerInfo(owns, tuple(member_reasons), name if owns else None, name)
        return draw

    def _backing_frame(self, e, target: Target, base_id: str, squash_index: int) -> tuple:
        """Where a backing entry of several layers is painted: (the space its pixels are
        in, whether it is drawn sampled, its cache id, its label, what it starts as)."""
        if e.kind is BackingKind.OWN:
            owner = e.owner.to_screen
            space = owner.inverse()
            moving = self._moving(e.owner)
            if owner.is_translation() and not moving:
                # Keep the owner's sub-pixel position inside the backing, so the
                # backing itself lands on whole pixels (nothing shifts or blurs).
                space = Affine.translate(owner.e - math.floor(owner.e), owner.f - math.floor(owner.f)) @ space
            s = self.raster_scale(e.owner).scale
            if s != 1.0:  # painted at the owner's raster scale (graph.scaled), drawn divided by it
                space = Affine.scale(s, s) @ space
            cache_id, label = f"backing:{e.owner.id}", e.owner.id
            sampled = moving  # drawn where the owner is, sampled: the backing stays the same
        elif e.kind is BackingKind.SQUASH:
            space, sampled = target.space, False
            cache_id, label = f"backing:{base_id}:squash{squash_index}", f"{base_id}-squash{squash_index}"
        else:
            space, sampled = target.space, False
            cache_id, label = f"backing:{base_id}:base", f"{base_id}-base"
        # The page's base backing starts as the opaque page background, as Chromium's
        # root layer does: its layers then blend over the same colour, with the same
        # 8-bit roundings, as when they are drawn straight into the frame.
        fill = self.out.page_fill if (e.kind is BackingKind.BASE and base_id == "root" and self.out.page_fill) else (0.0, 0.0, 0.0, 0.0)
        return space, sampled, cache_id, label, fill

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

    def _animation_sweep(self, node: LayerNode, to_target: Affine, plane: str | None = None) -> Rect | None:
        """Target pixels a layer can touch over this iteration of the transform
        animations running on it or on an ancestor (graph.sweep; below ``plane`` only,
        when given), or None when none runs. Each animated layer is sampled once a frame."""
        swept = animated_sweep(node, self.trees.nodes, self._sweeps, self.t, plane)
        if swept is None:
            return None
        samples, rel = swept
        return sweep_bounds(samples, rel, node.ink_rect, to_target)

    def _backing(self, e, space: Affine, target: Target, cache_id: str, label: str,
                 fill: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
                 sampled: bool = False) -> Draw | list[Draw] | None:
        """The draw of a backing holding several layers, painting it only when what it
        holds changed (its key: each member's paint, placement, opacity and clips).
        ``fill`` is what the backing starts as: transparent, or the page's opaque
        background for the root's base backing."""
        rects = [touched(p.node.ink_rect, clean(space @ p.node.to_screen)) for p in e.members]
        # A squashing backing's label names no layer: its draws say whose (a 3D context sorts them with it).
        owner_id = e.members[0].node.id if e.kind is BackingKind.SQUASH else ""
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
            return self._tiled_backing(e, space, target, cache_id, label, fill, (), 0, interest, owner_id=owner_id)
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
            rastered, s = self.rastered(p.node)  # at its raster scale (graph.scaled)
            offset, _, _, snapped = raster_placement(rastered, self.unscaled(m, s))
            # Rounded: the placement relative to the backing is recomputed from screen
            # matrices every frame, and float noise must not count as a change.
            clip_sig = tuple((c.layer_id, rounded(c.to_local), c.rect, c.radii, c.kind) for c in clips)
            signature.append((self._paint(rastered, offset), rounded(snapped), round(p.opacity, 6), clip_sig))
            member_bounds.append(touched(p.node.ink_rect, m))
        key = (origin, w, h, tuple(signature), fill)
        tex = self.cache.lookup(cache_id, key, self.available) if self.cache is not None else None
        damage = self._backing_damage(cache_id, key, member_bounds, w, h) if tex is None else None
        if tex is not None:
            self.out.reused.append(tex.name)
        elif damage is not None:
            _, tex = self.cache.peek(cache_id)
            self.cache.update(cache_id, key)
            self._bounds_memo[cache_id] = member_bounds
            self._repaint(e, space, origin, member_clips.__getitem__, member_bounds, damage, tex, label, fill)
        else:
            # A member above the tiling threshold (a layer under a large raster scale) is
            # rastered only where this backing shows it (graph.tiled): its memory is bounded
            # by the backing's, never by its scale.
            whole = Rect(0, 0, w, h)
            draws = tuple(d for p, clips in zip(e.members, member_clips)
                          for d in self._layer_draws(p, space, origin, clips, retained=False, need=whole))
            if self.cache is not None:
                tex = TextureDesc(self.cache.new_name(label, prefix="backing"), w, h, TextureRole.BACKING, retained=True)
                self.cache.store(cache_id, key, tex)
                self._bounds_memo[cache_id] = member_bounds
            else:
                tex = TextureDesc(f"backing:{label}", w, h, TextureRole.BACKING)
            reasons = ", ".join(r.value for r in e.reasons) or "paints layers that are not composited"
            self.out.passes.append(
                CompositePass(f"paint:{label}", tex, origin, fill, draws, SurfaceReason.BACKING, f"backing of {label}: {reasons}")
            )
        placed = clean(backing_to_target) if sampled else snap(backing_to_target)
        return Draw(tex, label, placed, 1.0, (), note=f"backing ({len(e.members)} layers)", owner_id=owner_id)

    def _repaint(self, e, space: Affine, origin: tuple[int, int], clips_of, member_bounds: list[Rect],
                 damage: tuple[int, int, int, int], tex: TextureDesc, label: str, fill) -> None:
        """Repaint a kept backing in place, only where members changed (``damage``, in its
        px): the layers touching that rect are rastered again, the rest of the backing is
        kept. ``clips_of(i)`` gives member i's clips in the backing's target."""
        self.out.repainted[tex.name] = Rect(*damage)
        self.out.reused.append(tex.name)
        whole = Rect(0, 0, tex.width, tex.height)  # a large member: only the part the backing shows (graph.tiled)
        draws = tuple(d for i in touching(self.cache.boxes(member_bounds), damage)
                      for d in self._layer_draws(e.members[i], space, origin, clips_of(i), retained=False, need=whole))
        dx, dy, dw, dh = damage
        reasons = ", ".join(r.value for r in e.reasons) or "paints layers that are not composited"
        self.out.passes.append(
            CompositePass(
                f"paint:{label}", tex, origin, fill, draws, SurfaceReason.BACKING,
                f"backing of {label}: {reasons}; repainted {dw}x{dh} at {dx},{dy} where its layers changed", damage,
            )
        )

    def _why_not_drawn(self, node: LayerNode) -> None:
        if node.style.visibility != "visible":
            why = "own content not drawn: visibility hidden"
        elif node.width <= 0 or node.height <= 0:
            why = None  # an empty box is a plain container: nothing to explain
        elif not node.to_screen.is_invertible():
            why = node.why_not_invertible()
        else:
            why = None  # paints nothing of its own (no background, image or border)
        if why:
            self.out.decisions.append(Decision(node.id, why))


def _chain_contexts(node: LayerNode | None) -> set[str]:
    """The 3D rendering contexts ``node`` or an ancestor is a member of."""
    out = set()
    while node is not None:
        if node.context3d is not None:
            out.add(node.context3d)
        node = node.container
    return out
