"""position: sticky (CSS Positioned Layout 3 §3.4): how far a sticky layer is shifted.

A sticky box stays where its box puts it until scrolling would carry an edge with a
non-auto inset (``top``, ``right``, ``bottom``, ``left``) past the same edge of its
nearest scrollport, inset by that much; then it is shifted to stay there, but never so
far that it leaves its containing block (its parent's content box, or all of the
scrollable overflow when the parent is the scroll container itself). Percentages are
of the scrollport's width (left, right) or height (top, bottom). The sides are applied
in the order right, left, bottom, top, each to the box where the one before left it, so
when opposite insets conflict (the box and both insets do not fit in the scrollport)
``top`` and ``left`` win, as in Blink's StickyPositionScrollingConstraints (checked
with Chromium 156: a 280 px box with top: 10px; bottom: 20px in a 300 px scrollport
shows 10 px from the top wherever the page is scrolled).

Everything is measured in the scroll container's contents space (its box origin at
scroll offset 0), so the shift is a plain offset added where the box is placed
(compositor.tree.world). This module is the geometry alone, on rectangles;
compositor.tree.sticky_offset measures them on the layer tree. Lamina boxes carry no
margins or padding: the sticky box is its border box, the containing block its
parent's box inside its borders.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..css.values import LengthPercentage, Position
from ..errors import StyleError
from ..geometry import Rect

__all__ = ["StickyInsets", "sticky_shift", "check_insets", "INSET_FIELDS"]

INSET_FIELDS = ("inset_top", "inset_right", "inset_bottom", "inset_left")


@dataclass(frozen=True)
class StickyInsets:
    """The used insets in px (None: auto)."""

    top: float | None = None
    right: float | None = None
    bottom: float | None = None
    left: float | None = None

    @classmethod
    def of(cls, style, port: Rect) -> "StickyInsets":
        """A style's insets, percentages resolved against the scrollport ``port``."""
        def used(inset: LengthPercentage | None, reference: float) -> float | None:
            return None if inset is None else inset.resolve(reference)
        return cls(used(style.inset_top, port.height), used(style.inset_right, port.width),
                   used(style.inset_bottom, port.height), used(style.inset_left, port.width))


# Read once: this runs for every layer, and on Python 3.11 ``Position.STICKY`` goes through
# EnumType.__getattr__'s attribute hook (about 100 ns, five times a plain class attribute).
_STICKY = Position.STICKY


def check_insets(layer_id: str, style) -> None:
    """Insets do something only on a sticky layer here: anywhere else they are an error,
    not silently ignored (Lamina places every other box by its ``box``)."""
    if style.position is _STICKY:
        return
    for field in INSET_FIELDS:
        if getattr(style, field) is not None:
            prop = field.removeprefix("inset_")
            raise StyleError(
                f"{prop} applies to position: sticky layers only (Lamina places other layers by their box)",
                property=prop, layer=layer_id)


def _shift(start: float, size: float, low_inset: float | None, high_inset: float | None,
           port_low: float, port_high: float, cb_low: float, cb_high: float) -> float:
    """The shift along one axis (low: the top or left side; high: bottom or right)."""
    moved = start
    if high_inset is not None:  # keep the far edge inside port_high - inset, moving back at most to the block's start
        moved += max(min(0.0, port_high - high_inset - (moved + size)), min(0.0, cb_low - moved))
    if low_inset is not None:  # then the near edge inside port_low + inset, moving on at most to the block's end
        moved += min(max(0.0, port_low + low_inset - moved), max(0.0, cb_high - (moved + size)))
    return moved - start


def sticky_shift(box: Rect, insets: StickyInsets, port: Rect, block: Rect) -> tuple[float, float]:
    """How far the sticky ``box`` moves (dx, dy): ``port`` is the scrollport where it now
    shows and ``block`` its containing block, all three in the scroll container's
    contents space."""
    dx = _shift(box.x, box.width, insets.left, insets.right, port.x, port.right, block.x, block.right)
    dy = _shift(box.y, box.height, insets.top, insets.bottom, port.y, port.bottom, block.y, block.bottom)
    return (dx, dy)
