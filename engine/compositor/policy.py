"""Compositing policies: which layers keep a texture of their own between frames.

* ``"all"``  — every drawing layer keeps its raster (a backing of its own) and reuses it
  while unchanged: moving, fading or filtering re-rasters nothing. Costs a texture per
  layer (the "layer explosion" of promoting everything).
* ``"none"`` — nothing is kept: every frame rasters every layer, as software rendering
  does. The least memory, the most work per frame.

* ``"browser"`` — Blink's heuristics (see lamina.compositor.backings): promotion for
  reasons, overlap testing, squashing, and a root backing for everything else.
* ``"budget"`` — "browser" under Firefox's will-change cap: promoted backings may use at
  most 3x the viewport area; over it, the least useful layers are demoted (the report
  says which and why).
"""

from __future__ import annotations

from ..errors import InvalidValueError

__all__ = ["POLICIES", "check_policy"]

POLICIES = ("browser", "budget", "all", "none")


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise InvalidValueError(
            f"unknown compositing policy {policy!r} (choose from {', '.join(POLICIES)})", property="policy"
        )
    return policy
