"""Geometry of 3D rendering contexts (``transform-style: preserve-3d``), pure and
GPU-free: layers as planar polygons in screen space (polygon), a BSP tree that sorts
them back to front and splits them where they intersect (bsp), and a context's drawing
order with hidden back faces dropped and an explanation for the report (context_order).
Matrices are 4x4 float64 acting on column vectors; screen space is CSS pixels, y down,
z toward the viewer, after the perspective divide."""

from .bsp import BspStats, BspTree
from .context_order import ContextLayer, ContextOrder, DroppedLayer, Fragment, SortStrategy, sort_context, sort_polygons
from .polygon import (SPLIT_THRESHOLD, DrawPolygon, DropReason, Side, SplitResult, is_back_face_visible,
                      project_layer_rect, project_layer_rects)

__all__ = ["BspStats", "BspTree", "ContextLayer", "ContextOrder", "DroppedLayer", "Fragment", "SortStrategy",
           "sort_context", "sort_polygons", "SPLIT_THRESHOLD", "DrawPolygon", "DropReason", "Side", "SplitResult",
           "is_back_face_visible", "project_layer_rect", "project_layer_rects"]
