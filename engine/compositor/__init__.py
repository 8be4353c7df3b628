"""Compositor decisions: which layers draw where, which effects need a render surface,
and why — producing the frame graph (plain data) that executors run.

* ``tree``    — resolve styles, matrices, clips and CSS stacking/paint order;
* ``paint``   — what each layer paints, resolved to pixels (LayerPaint);
* ``planner`` — surfaces, draws and passes: the FrameGraph.
"""

from ..images import ImageStore
from .planner import build_frame_graph
from .tree import resolve_tree

__all__ = ["build_frame_graph", "resolve_tree", "ImageStore"]
