"""Damage: where a kept texture (the frame, a backing) must be redrawn, from what its
draws were last time and what they are now — compared by position in paint order, each
draw by a key that says what it puts there, as Chromium's damage tracking does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..geometry import Rect

__all__ = ["changed_region", "DrawnFrame"]


@dataclass(frozen=True)
class DrawnFrame:
    """What the kept frame texture was last drawn from, for the next frame's damage: its
    size and clear colour (a change of either redraws it all), and its draws in paint
    order with each one's key (what it puts there: draw_key) and the pixels it touches."""

    size: tuple[int, int]
    clear: tuple[float, float, float, float]
    keys: tuple
    bounds: tuple[Rect, ...]
    draws: tuple  # the Draws themselves: a draw the fast path kept is that very object


def changed_region(keys: Sequence[Any], old_keys: Sequence[Any], bounds: Sequence[Rect],
                   old_bounds: Sequence[Rect]) -> Rect | None:
    """The union of the old and new bounds of every position whose key changed (a None
    key never matches: its content cannot be known from names); None when none did."""
    rects = []
    for i in range(max(len(keys), len(old_keys))):
        if i < len(keys) and i < len(old_keys) and keys[i] == old_keys[i] and keys[i] is not None:
            continue
        if i < len(old_bounds):
            rects.append(old_bounds[i])
        if i < len(bounds):
            rects.append(bounds[i])
    return Rect.union(rects)
