"""The demos ``python -m demos`` knows, by name."""

from __future__ import annotations

from typing import Callable

from .animation_cost import AnimationCost
from .blend_backdrop import BlendBackdrop
from .contexts_3d import Contexts3D
from .filter_playground import FilterPlayground
from .gl_vs_opencl import GLvsOpenCL
from .layer_promotion import LayerPromotion
from .scrolling import Scrolling
from .ui.runner import Demo

__all__ = ["DEMOS"]

DEMOS: dict[str, Callable[[], Demo]] = {
    "filter-playground": FilterPlayground,
    "layer-promotion": LayerPromotion,
    "animation-cost": AnimationCost,
    "gl-vs-opencl": GLvsOpenCL,
    "blend-backdrop": BlendBackdrop,
    "scrolling": Scrolling,
    "3d-contexts": Contexts3D,
}
