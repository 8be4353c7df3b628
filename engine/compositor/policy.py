"""Compositing policies: which layers keep a texture of their own between frames.

A policy is a strategy object, chosen once (``parse_policy`` turns a name from a scene
file or the command line into one) and read by the planner:

* ``BrowserPolicy()`` (the default, ``"browser"``) — Blink's heuristics (see
  lamina.compositor.backings): promotion for reasons, overlap testing, squashing, and a
  base backing for everything else; backings are repainted in place where they changed.
* ``BudgetPolicy(bytes)`` (``"budget"``) — the browser policy under a memory cap for
  composited layers; over it the least useful layers are demoted and the report says
  which and why. Without ``bytes``, Firefox's will-change cap: 3x the viewport's area
  in RGBA8 textures.
* ``AllPolicy()`` (``"all"``) — every drawing layer keeps its raster (a backing of its
  own) and reuses it while unchanged: moving, fading or filtering re-rasters nothing.
  Costs a texture per layer (the "layer explosion" of promoting everything).
* ``NoRetentionPolicy()`` (``"none"``) — nothing is kept: every frame rasters every layer,
  as software rendering does. The least memory, the most work per frame.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC
from dataclasses import dataclass
from typing import ClassVar

from ..errors import InvalidValueError

__all__ = [
    "Policy",
    "BrowserPolicy",
    "BudgetPolicy",
    "AllPolicy",
    "NoRetentionPolicy",
    "DEFAULT_POLICY",
    "POLICIES",
    "parse_policy",
]

RGBA8_BYTES = 4


class Policy(ABC):
    """What a compositing policy decides; subclasses are frozen dataclasses (plain data,
    comparable, printable)."""

    name: ClassVar[str]
    #: Layer rasters, backings, filter results and the frame are kept between frames.
    retains_textures: ClassVar[bool] = True
    #: Layers are grouped into backings by Blink's rules; otherwise each drawing layer
    #: is drawn from a raster of its own.
    uses_backings: ClassVar[bool] = False

    def memory_budget(self, width: int, height: int) -> int | None:
        """Bytes that composited layers may use in a ``width`` x ``height`` viewport
        (None: no cap)."""
        return None

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class BrowserPolicy(Policy):
    name: ClassVar[str] = "browser"
    uses_backings: ClassVar[bool] = True


@dataclass(frozen=True)
class BudgetPolicy(BrowserPolicy):
    """The browser policy with at most ``bytes`` of composited backings (None: 3x the
    viewport's area, Firefox's cap for will-change)."""

    name: ClassVar[str] = "budget"
    bytes: int | None = None

    def __post_init__(self) -> None:
        if self.bytes is not None and (
            isinstance(self.bytes, bool) or not isinstance(self.bytes, numbers.Integral) or self.bytes < 0
        ):
            raise InvalidValueError(
                f"a memory budget must be a whole number of bytes >= 0, got {self.bytes!r}", property="policy"
            )

    def memory_budget(self, width: int, height: int) -> int:
        return self.bytes if self.bytes is not None else 3 * width * height * RGBA8_BYTES

    def __str__(self) -> str:
        return "budget" if self.bytes is None else f"budget({_mb(self.bytes)})"


@dataclass(frozen=True)
class AllPolicy(Policy):
    name: ClassVar[str] = "all"


@dataclass(frozen=True)
class NoRetentionPolicy(Policy):
    name: ClassVar[str] = "none"
    retains_textures: ClassVar[bool] = False


DEFAULT_POLICY: Policy = BrowserPolicy()
_BY_NAME: dict[str, Policy] = {p.name: p for p in (BrowserPolicy(), BudgetPolicy(), AllPolicy(), NoRetentionPolicy())}
POLICIES = tuple(_BY_NAME)  # the names a scene file or the command line may use


def parse_policy(value: Policy | str | None) -> Policy:
    """The policy ``value`` names (a Policy is returned as it is; None is the default)."""
    if value is None:
        return DEFAULT_POLICY
    if isinstance(value, Policy):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    raise InvalidValueError(
        f"unknown compositing policy {value!r} (choose from {', '.join(POLICIES)}, or a Policy object)",
        property="policy",
    )


def _mb(n: int) -> str:
    return f"{n / 2**20:.3g} MB" if math.isfinite(n) else str(n)
