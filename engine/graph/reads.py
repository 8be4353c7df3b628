"""Read-backs: what a draw that reads the pixels under it (a blend mode, a
backdrop-filter) needs, and where a target's composite pass is split for it — a pass
cannot read the texture it draws into, so drawing stops, the region is copied (a
BackdropPass), the read's own work runs, and drawing goes on."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

from ..blending import BlendMode
from ..framegraph import BackdropPass, CompositePass, Draw, TextureDesc, TextureRole
from ..geometry import Affine, Rect, clipped_polygon
from .placement import snap, touched
from .targets import BackdropRead

__all__ = ["blend_read", "split_at_reads", "backdrop_region", "BackdropRegion", "piece_read", "piece_region", "unpieced"]


def blend_read(draw: Draw, mode: BlendMode, target_size: tuple[int, int] | None) -> tuple[Draw, BackdropRead] | None:
    """``draw`` composited with ``mode``, and the copy of the target under it that it
    reads; None when nothing of it lands in the target."""
    region = touched(Rect(0, 0, *draw.quad_size), draw.transform)
    if target_size is not None:
        region = region.intersect(Rect(0, 0, *target_size))
    if region.is_empty():
        return None
    x, y, w, h = int(region.x), int(region.y), int(region.width), int(region.height)
    copy = TextureDesc(f"backdrop:{draw.layer_id}", w, h, TextureRole.BACKDROP)
    blended = replace(draw, blend=mode, backdrop=copy, backdrop_origin=(x, y))
    return blended, BackdropRead(copy, Affine.translate(x, y), None,
                                 f"mix-blend-mode {mode} of {draw.layer_id!r} reads the {w}x{h} px under it", local=True)


def piece_read(draw: Draw, read: BackdropRead, k: int) -> tuple[Draw, BackdropRead]:
    """Piece ``k`` (k >= 1) of a split draw that reads its backdrop, and its own read: a
    copy of its own, and a backdrop-filter's passes and surface (``read.after``) run
    again on that copy into textures of their own, so each piece filters what lies
    under the element when that piece is drawn (cc reads per drawn quad) while the
    earlier pieces' results stay as they were drawn. Every texture the read writes is
    renamed ``NAME:pieceK`` and so is every pass; what it reads from outside (the
    element's raster, a mask) is shared."""
    suffix = f":piece{k}"
    written = [read.copy] + [p.target for p in read.after]
    names = {t.name: replace(t, name=t.name + suffix) for t in written}
    after = tuple(replace(_renamed(p, names), name=p.name + suffix) for p in read.after)
    piece = _renamed(draw, names)
    return piece, replace(read, copy=names[read.copy.name], after=after)


def piece_region(draw: Draw, read: BackdropRead) -> tuple[int, int, int, int] | None:
    """The copy texels (x, y, w, h) a piece of a split draw needs of a ``local`` read:
    the piece's bounds (its quad cut by its half-planes, in target px) in the copy, grown
    by the copy's growth past its mirror box and a quarter more, 2 px at least (rounding,
    a downscaled blur's grid and its taps' tails), cut to the copy; None (the whole copy) when the read is not local or the
    piece is not a translation away from it."""
    m = read.to_source
    if not read.local or not m.is_translation():
        return None
    points = [(x - m.e, y - m.f) for x, y in clipped_polygon(Rect(0, 0, *draw.quad_size), draw.transform)]
    for a, b, c in draw.split_planes:  # keep a x + b y + c >= 0, in copy texels
        c += a * m.e + b * m.f
        points = _cut(points, a, b, c)
    if len(points) < 3:
        return None
    cw, ch = read.copy.width, read.copy.height
    x0, y0, x1, y1 = read.mirror if read.mirror is not None else (0.0, 0.0, cw, ch)
    reach = max(x0, y0, cw - x1, ch - y1, 0.0)
    grow = reach + max(2.0, reach / 4)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    left, top = max(0, math.floor(min(xs) - grow)), max(0, math.floor(min(ys) - grow))
    right, bottom = min(cw, math.ceil(max(xs) + grow)), min(ch, math.ceil(max(ys) + grow))
    if right <= left or bottom <= top:
        return None
    return (left, top, right - left, bottom - top)


def _cut(points: list[tuple[float, float]], a: float, b: float, c: float) -> list[tuple[float, float]]:
    """A convex polygon cut to a x + b y + c >= 0 (Sutherland-Hodgman, one plane)."""
    out = []
    for (px, py), (qx, qy) in zip(points, points[1:] + points[:1]):
        dp, dq = a * px + b * py + c, a * qx + b * qy + c
        if dp >= 0:
            out.append((px, py))
        if (dp >= 0) != (dq >= 0):
            t = dp / (dp - dq)
            out.append((px + t * (qx - px), py + t * (qy - py)))
    return out


def unpieced(name: str) -> str:
    """The name of the pass or texture of a read that ``name`` (made by piece_read for a
    later piece) is the copy of; ``name`` itself when it is no piece's."""
    base, sep, k = name.rpartition(":piece")
    return base if sep and k.isdigit() else name


def _renamed(obj: Any, names: dict[str, TextureDesc]) -> Any:
    """``obj`` (a pass, a draw, a tuple of them, any frozen dataclass) with each
    TextureDesc named in ``names`` replaced by its entry; the same object when none is."""
    if isinstance(obj, TextureDesc):
        return names.get(obj.name, obj)
    if isinstance(obj, tuple):
        items = tuple(_renamed(v, names) for v in obj)
        return obj if all(a is b for a, b in zip(items, obj)) else items
    if is_dataclass(obj) and not isinstance(obj, type):
        changed = {}
        for f in fields(obj):
            if not f.init:
                continue
            value = getattr(obj, f.name)
            new = _renamed(value, names)
            if new is not value:
                changed[f.name] = new
        return replace(obj, **changed) if changed else obj
    return obj


def split_at_reads(cp: CompositePass, reads: dict[int, BackdropRead]) -> list:
    """``cp``, split where a draw reads its backdrop (``reads``: id(draw) -> its read):
    the target is drawn up to that draw, the part under it copied, what the read needs
    run (a backdrop-filter's passes and surface), then the target drawn on from there."""
    if not any(id(d) in reads for d in cp.draws):
        return [cp]
    out: list = []
    segment: list[Draw] = []
    part = 0
    for d in cp.draws:
        read = reads.get(id(d))
        if read is not None:
            name = cp.name if part == 0 else f"{cp.name}+{part}"
            out.append(replace(cp, name=name, draws=tuple(segment), continues=part > 0))
            part += 1
            out.append(BackdropPass(read.copy.name, d.layer_id, cp.target, read.copy, read.to_source,  # (backdrop:ID)
                                    read.mirror, read.reason, read.region))
            out.extend(read.after)
            segment = []
        segment.append(d)
    out.append(replace(cp, name=f"{cp.name}+{part}", draws=tuple(segment), continues=True))
    return out


@dataclass(frozen=True)
class BackdropRegion:
    """Where a backdrop-filter reads: its filter space (target texels for an element
    that is only translated, else its own px at the scale it is shown), the copy's
    rect there (the border box grown by the filter's reach) and the border box the
    copy's edges mirror from."""

    scale: float
    where: str
    to_target: Affine  # element px -> target texels
    element_to_filter: Affine  # element px -> filter space
    copy: tuple[int, int, int, int]  # x, y, w, h in filter space
    box: Rect  # the border box in filter space (cut to the target when translated)

    @property
    def to_source(self) -> Affine:
        """Copy texel -> target texel: into filter space, back to element px, to the target."""
        x, y = self.copy[:2]
        return snap(self.to_target @ self.element_to_filter.inverse() @ Affine.translate(x, y))

    @property
    def mirror(self) -> tuple[float, float, float, float]:
        """The border box in copy texels: what the copy's growth reflects."""
        x, y = self.copy[:2]
        return (self.box.x - x, self.box.y - y, self.box.right - x, self.box.bottom - y)


def backdrop_region(to_target: Affine, to_screen: Affine, size: tuple[float, float], target_size, chain,
                    current_color, device_scale: float = 1.0) -> tuple[BackdropRegion | None, object]:
    """The region a backdrop-filter reads and the filter's plan there; the region is
    None when the filter does nothing or its box misses the target (Filter Effects 2
    §2.1: the backdrop root image cut to the border box, filtered with mirrored edges).
    An SVG graph's plan (``plan.region``) reads the whole box grown by its filter region."""
    if to_target.is_translation():
        scale, element_to_filter, where = 1.0, Affine.translate(to_target.e, to_target.f), "the target's pixels"
    else:
        scale = to_screen.max_scale()
        element_to_filter, where = Affine.scale(scale, scale), f"the element's own space at scale {scale:.3g}"
    plan = chain.plan(current_color=current_color, scale=scale, box=tuple(size), backdrop=True,
                      device_scale=device_scale)
    if not plan.passes:
        return None, plan
    box = whole = Rect(0, 0, *size).transformed_bounds(element_to_filter)
    if target_size is not None and to_target.is_translation():
        box = box.intersect(Rect(0, 0, *target_size))  # nothing was painted past the target's edge
    if box.is_empty():
        return None, plan
    if plan.region:
        # An SVG filter region (filters.svg.route): the plan's image is exactly the whole
        # box grown by it, mirrored past the box like any backdrop-filter's reach.
        top, right, bottom, left = plan.outsets
        x0, y0, x1, y1 = whole.x - left, whole.y - top, whole.right + right, whole.bottom + bottom
    else:
        x0, y0, x1, y1 = plan.needed_input((box.x, box.y, box.right, box.bottom))
    r = Rect(x0, y0, x1 - x0, y1 - y0).rounded_out()
    copy = (int(r.x), int(r.y), int(r.width), int(r.height))
    return BackdropRegion(scale, where, to_target, element_to_filter, copy, box), plan
