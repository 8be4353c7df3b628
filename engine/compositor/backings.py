"""The "browser" policy's layer decisions, modelled on Blink: which layers are promoted
to a backing of their own and why, overlap testing, and squashing.

Works on the draws of one target (the frame or a render surface) in paint order:

* a layer with a direct reason (will-change, a 3D transform or a 3D transform hint, a
  perspective over a 3D-transformed child, backface-visibility: hidden, an active
  animation of transform / opacity / filter) gets its own backing; its non-promoted descendants paint
  into it;
* any other layer paints into the backing of its nearest promoted ancestor, or into the
  target's base backing (the root backing, for the frame) — unless that would put it
  under something composited after that backing that it overlaps: then it must be
  promoted too (reason: overlap), to keep the paint order right;
* layers promoted only for overlap share a squashing backing, unless the union would be
  too sparse (Blink's rule: more than 6x the area of its members);
* the contents of a scroller the compositor scrolls are one backing of their own
  ("composited scroller", kind "scroll"), in the scroller's contents space, so a scroll
  moves it instead of painting it again; a fixed layer over such a page is promoted
  ("fixed position"), since it must not move with what scrolls under it.

Render surfaces (filters, opacity groups) are composited content of their own here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

from ..errors import GeometryError
from ..geometry import Rect
from ..css.values import BackfaceVisibility
from ..style.transforms import has_3d_hint, is_3d
from ..named import NamedEnum

__all__ = ["CompositingReason", "BackingKind", "Backing", "partition", "direct_reasons", "SQUASH_SPARSITY"]

SQUASH_SPARSITY = 6.0


class CompositingReason(str, Enum):
    ROOT = "root"
    WILL_CHANGE_TRANSFORM = "will-change: transform"
    WILL_CHANGE_OPACITY = "will-change: opacity"
    WILL_CHANGE_FILTER = "will-change: filter"
    TRANSFORM_3D = "3D transform hint (translateZ / translate3d)"
    # Blink's CompositingReason names (compositing_reasons.h): a real 3D transform, a
    # perspective that reaches a 3D-transformed child, a hidden back face.
    TRANSFORM_3D_MATRIX = "3DTransform: its transform is 3D"
    PERSPECTIVE = "PerspectiveWith3DDescendants: its perspective projects a 3D-transformed child"
    BACKFACE_HIDDEN = "BackfaceVisibilityHidden"
    # A member of a 3D rendering context: its draw is sorted by depth and split with the
    # others' (graph.contexts3d), so it cannot be painted into a flat backing.
    PRESERVE_3D = "Preserve3D: a member of a 3D rendering context (sorted and split by depth)"
    ACTIVE_TRANSFORM_ANIMATION = "active transform animation"
    ACTIVE_OPACITY_ANIMATION = "active opacity animation"
    ACTIVE_FILTER_ANIMATION = "active filter animation"
    EXTERNAL_CONTENT = "external content (video-like or canvas-like)"
    OVERLAP = "overlaps an earlier composited layer"
    SQUASHED = "squashed with other overlapping layers"
    COMPOSITED_SCROLLER = "composited scroller"
    FIXED_POSITION = "fixed position over scrolling content"
    STICKY_POSITION = "sticky position in a composited scroller"


# Made once, not per call: direct_reasons runs for every layer, and on Python 3.11 each
# ``CompositingReason.X`` goes through EnumType.__getattr__'s attribute hook (about
# 100 ns, five times a plain class attribute).
_WILL_CHANGE_REASONS = (
    ("transform", CompositingReason.WILL_CHANGE_TRANSFORM),
    ("opacity", CompositingReason.WILL_CHANGE_OPACITY),
    ("filter", CompositingReason.WILL_CHANGE_FILTER),
)


def direct_reasons(node, t: float) -> tuple[CompositingReason, ...]:
    """The reasons a layer is promoted by itself (not for overlap)."""
    s = node.style
    out = []
    for prop, reason in _WILL_CHANGE_REASONS:
        if prop in s.will_change:
            out.append(reason)
    if s.transform and is_3d(s.transform):
        out.append(CompositingReason.TRANSFORM_3D_MATRIX)
    elif has_3d_hint(s.transform):
        out.append(CompositingReason.TRANSFORM_3D)
    if s.perspective is not None and _has_3d_child(node):
        out.append(CompositingReason.PERSPECTIVE)
    if s.backface_visibility is _HIDDEN:
        out.append(CompositingReason.BACKFACE_HIDDEN)
    if node.context3d is not None and node.layer.parent is not None:
        out.append(CompositingReason.PRESERVE_3D)
    if node.layer.content in ("video", "canvas"):
        out.append(CompositingReason.EXTERNAL_CONTENT)
    for animation in node.layer.animations:
        if animation.is_active(t):
            props = animation.properties
            for prop, reason in (
                ("transform", CompositingReason.ACTIVE_TRANSFORM_ANIMATION),
                ("opacity", CompositingReason.ACTIVE_OPACITY_ANIMATION),
                ("filter", CompositingReason.ACTIVE_FILTER_ANIMATION),
            ):
                if prop in props and reason not in out:
                    out.append(reason)
    return tuple(out)


_HIDDEN = BackfaceVisibility.HIDDEN


def _has_3d_child(node) -> bool:
    """Does a child of ``node`` have a 3D transform (what its perspective projects)?
    Asked only of layers with a perspective."""
    parent = node.inherited_style
    return any(is_3d(child.computed_style(parent).transform) for child in node.layer.children)


class BackingKind(NamedEnum):
    """What an entry of a target's composited content is. A ``str`` (same hash and
    format) so reports read as they always did."""

    BASE = "base"  # the target's base backing: what no promoted layer paints into
    OWN = "own"  # a promoted layer's backing (its non-promoted descendants paint into it)
    SQUASH = "squash"  # layers promoted only for overlap, painted together
    SURFACE = "surface"  # a render surface (filter, opacity group), drawn as it is
    SCROLL = "scroll"  # the contents of a scroller the compositor scrolls


@dataclass
class Backing:
    """One entry of a target's composited content, in paint order."""

    kind: BackingKind
    members: list = field(default_factory=list)  # pending layer draws painted into it
    owner: object = None  # the promoted LayerNode ("own"), the scroller ("scroll")
    reasons: tuple[CompositingReason, ...] = ()
    rect: Rect | None = None  # bounds in the target's pixels
    draw: object = None  # the Draw of a render surface ("surface")
    member_area: float = 0.0

    def add(self, item, rect: Rect) -> None:
        width, height = _as_float(rect.width), _as_float(rect.height)
        area = width * height
        if not math.isfinite(area):  # (a transform like scale(1e200): rounded out, its ints overflow a float)
            node = getattr(item, "node", None)
            raise GeometryError(f"layer {getattr(node, 'id', '?')!r}: its transform makes it {width:.3g} x {height:.3g} px "
                                "on screen, too large to composite")
        self.members.append(item)
        self.member_area += area
        self.rect = rect if self.rect is None else Rect.union([self.rect, rect])


def _plane_member(node):
    """The member of a 3D rendering context whose plane the node is drawn in (itself or
    the nearest container that is one), or None. Layers squashed together share it: a
    squashing backing is sorted and split as one draw in one member's plane
    (graph.contexts3d), so layers of two members never share one."""
    while node is not None and node.context3d is None:
        node = node.container
    return node


def _as_float(v: float) -> float:
    try:
        return float(v)
    except OverflowError:  # an int past float's range
        return math.inf


def _overlaps(a: Rect, b: Rect | None) -> bool:
    return b is not None and a.overlaps(b)


# How much a reason is worth keeping a layer composited for, when memory runs short:
# running animations first, then 3D hints, then will-change (Firefox's budget caps these).
_USEFULNESS = {
    CompositingReason.ACTIVE_TRANSFORM_ANIMATION: 3,
    CompositingReason.ACTIVE_OPACITY_ANIMATION: 3,
    CompositingReason.ACTIVE_FILTER_ANIMATION: 3,
    CompositingReason.TRANSFORM_3D: 2,
    CompositingReason.TRANSFORM_3D_MATRIX: 2,
    CompositingReason.PERSPECTIVE: 2,
    CompositingReason.BACKFACE_HIDDEN: 2,
    CompositingReason.PRESERVE_3D: 2,
    CompositingReason.FIXED_POSITION: 2,
    CompositingReason.STICKY_POSITION: 2,
    CompositingReason.EXTERNAL_CONTENT: 2,
    CompositingReason.WILL_CHANGE_TRANSFORM: 1,
    CompositingReason.WILL_CHANGE_OPACITY: 1,
    CompositingReason.WILL_CHANGE_FILTER: 1,
}


def usefulness(entry: "Backing") -> int:
    return max((_USEFULNESS.get(r, 0) for r in entry.reasons), default=0)


# Compared with per layer and per later entry in partition: read once (on Python 3.11
# ``BackingKind.BASE`` goes through EnumType.__getattr__'s attribute hook, about 100 ns).
_BASE, _SQUASH = BackingKind.BASE, BackingKind.SQUASH


def composited_bytes(entries: list["Backing"]) -> int:
    """Texture bytes of the promoted backings (own and squashing), RGBA8."""
    promoted = (BackingKind.OWN, BackingKind.SQUASH)
    return int(sum(e.rect.width * e.rect.height * 4 for e in entries if e.kind in promoted and e.rect))


def partition(items, t: float, bounds_of, is_surface, base_reasons=(), demoted=frozenset(), *,
              scroller_of=lambda node: None, pinned=lambda node: None) -> list[Backing]:
    """Split a target's draws (paint order) into backings. ``bounds_of(item)`` gives an
    item's bounds in target pixels; ``is_surface(item)`` tells render-surface draws;
    layers in ``demoted`` are not promoted for their own reasons (memory budget);
    ``scroller_of(node)`` is the composited scroller (a LayerNode) whose contents the
    node is in, or None; ``pinned(node)`` is the reason a layer that scrolling moves
    otherwise than its scroller's contents is promoted (fixed over scrolling content,
    sticky in a composited scroller), or None."""
    base = Backing(BackingKind.BASE, reasons=tuple(base_reasons))
    entries: list[Backing] = [base]
    promoted: dict[str, Backing] = {}
    contents: dict[str, Backing] = {}  # scroller id -> its contents backing
    for item in items:
        rect = bounds_of(item)
        if is_surface(item):
            entries.append(Backing(BackingKind.SURFACE, rect=rect, draw=item))
            continue
        node = item.node
        reasons = () if node.id in demoted else direct_reasons(node, t)
        pin = pinned(node) if node.id not in demoted else None
        if pin is not None:
            reasons = (pin,) + reasons
        if reasons:
            entry = Backing(BackingKind.OWN, owner=node, reasons=reasons)
            entry.add(item, rect)
            entries.append(entry)
            promoted[node.id] = entry
            continue
        owner = base
        scroller = scroller_of(node)
        layer = node.layer.parent
        while layer is not None:
            if layer.id in promoted:
                owner = promoted[layer.id]
                break
            if scroller is not None and layer.id == scroller.id:
                owner = contents.get(scroller.id)
                if owner is None:
                    owner = contents[scroller.id] = Backing(BackingKind.SCROLL, owner=scroller,
                                                            reasons=(CompositingReason.COMPOSITED_SCROLLER,))
                    entries.append(owner)
                break
            layer = layer.parent
        later = entries[entries.index(owner) + 1 :]
        if any(_overlaps(rect, e.rect) for e in later if e.kind is not _BASE):
            last = entries[-1]
            if last.kind is _SQUASH and _plane_member(last.members[0].node) is _plane_member(node):
                union = Rect.union([last.rect, rect])
                if union.width * union.height <= SQUASH_SPARSITY * (last.member_area + rect.width * rect.height):
                    last.add(item, rect)
                    continue
            entry = Backing(BackingKind.SQUASH, reasons=(CompositingReason.OVERLAP,))
            entry.add(item, rect)
            entries.append(entry)
            continue
        owner.add(item, rect)
    return entries
