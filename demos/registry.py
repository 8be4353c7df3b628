"""The demos ``python -m demos`` knows, by name."""

from __future__ import annotations

from typing import Callable

from .filter_playground import FilterPlayground
from .ui.runner import Demo

__all__ = ["DEMOS"]

DEMOS: dict[str, Callable[[], Demo]] = {
    "filter-playground": FilterPlayground,
}
