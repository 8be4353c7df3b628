"""GPU limits the compositor must respect, known without touching the GPU."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "MAX_CLIPS_PER_DRAW", "MAX_GRADIENT_STOPS", "MAX_COLOR_STEPS"]

# Shader-side array sizes; the planner checks them so nothing is silently truncated.
MAX_CLIPS_PER_DRAW = 8
MAX_GRADIENT_STOPS = 32
MAX_COLOR_STEPS = 16  # colour filter ops fused in one pass (one shader variant per count)


@dataclass(frozen=True)
class Limits:
    """``max_texture_size`` is GL_MAX_TEXTURE_SIZE; 16384 is llvmpipe's (and common)."""

    max_texture_size: int = 16384
    source: str = "default (no GPU context yet)"
