"""Which stacking contexts bound what a blend or a backdrop-filter reads.

* An element with a ``mix-blend-mode`` blends with what lies under it inside its nearest
  **isolated group** (Compositing and Blending 1 §3.2: in CSS, every stacking context is
  an isolated group), or the page.
* An element with a ``backdrop-filter`` reads everything painted under it since its
  nearest **backdrop root** (Filter Effects 2 §3): the root, a filter, opacity < 1, a
  backdrop-filter, a non-normal blend mode, a clip-path, a mask, or will-change of
  those. A transform or z-index alone does not make one, so a backdrop-filter sees
  through a moved or stacked container.

A group or root that holds such a reader must be flattened into a render surface of its
own, or the reader would see past it (the planner gives it one, with these reasons).
"""

from __future__ import annotations

from ..blending import BlendMode
from .tree import LayerNode, StackingContext

__all__ = ["is_isolated_group", "is_backdrop_root", "has_blend_readers", "has_backdrop_readers",
           "BACKDROP_ROOT_WILL_CHANGE"]

# will-change of these makes a backdrop root (Filter Effects 2 §3.1).
BACKDROP_ROOT_WILL_CHANGE = frozenset({"filter", "opacity", "backdrop-filter", "mix-blend-mode", "mask", "mask-image",
                                       "clip-path"})


def is_isolated_group(node: LayerNode) -> bool:
    """Every stacking context is an isolated group in CSS (Compositing 1 §3.2)."""
    return node.creates_stacking_context()


def is_backdrop_root(node: LayerNode) -> bool:
    s = node.style
    return (
        node.layer.parent is None
        or s.filter is not None
        or s.opacity < 1.0
        or s.backdrop_filter is not None
        or s.mix_blend_mode is not BlendMode.NORMAL
        or s.clip_path is not None
        or s.mask_image is not None
        or any(p in BACKDROP_ROOT_WILL_CHANGE for p in s.will_change)
    )


def has_blend_readers(ctx: StackingContext) -> bool:
    """Does an element inside this group (not inside a nested group) blend with it?"""
    for item in ctx.items:
        if isinstance(item, StackingContext) and item.node.style.opacity > 0.0:
            if item.node.style.mix_blend_mode is not BlendMode.NORMAL:
                return True
            if not is_isolated_group(item.node) and has_blend_readers(item):
                return True
    return False


def has_backdrop_readers(ctx: StackingContext) -> bool:
    """Does an element inside this backdrop root (not inside a nested one) read its
    backdrop?"""
    for item in ctx.items:
        if isinstance(item, StackingContext) and item.node.style.opacity > 0.0:
            if item.node.style.backdrop_filter is not None:
                return True
            if not is_backdrop_root(item.node) and has_backdrop_readers(item):
                return True
    return False
