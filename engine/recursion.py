"""Room for recursion that is deep by design but bounded: the planner and the tree
resolver recurse once per nesting level of the layer tree (a stacking context inside a
surface inside a stacking context...), and the tree is at most MAX_TREE_DEPTH levels
deep (lamina.layer refuses deeper ones), so the recursion is bounded, only deeper than
Python's default limit of 1000 frames allows. ``room_for`` raises the limit for the
duration of such a walk, by what the bound needs, and puts it back."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

__all__ = ["room_for", "FRAMES_PER_LEVEL"]

# Python frames one nesting level of the layer tree costs the planner at most (an
# opacity group: emit_context, _emit_effects, emit_group_surface, _surface,
# _surface_pass, emit_items, and the helpers they call); measured with 256 nested
# opacity groups (tests/unit/test_limits_depth.py), with a margin.
FRAMES_PER_LEVEL = 12


@contextmanager
def room_for(levels: int) -> Iterator[None]:
    """Let the code inside recurse ``levels`` nesting levels deep."""
    needed = len_stack() + levels * FRAMES_PER_LEVEL + 200
    old = sys.getrecursionlimit()
    if needed > old:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if needed > old:
            sys.setrecursionlimit(old)


def len_stack() -> int:
    """How many frames deep the caller is."""
    depth, frame = 0, sys._getframe(1)
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth
