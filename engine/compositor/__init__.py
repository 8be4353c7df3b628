"""Compositor decisions: which layers are composited and why, what each layer paints,
and what is kept between frames — everything the render-task graph (lamina.graph) is
built from, with no GPU and no graph types of its own.

* ``tree``       — resolve styles, matrices, clips and CSS stacking/paint order;
* ``paint``      — what each layer paints, resolved to pixels (LayerPaint, ``paint_data``);
* ``shadows``    — box-shadow shapes and ink overflow; ``shadow_cells`` where outer ones
  are drawn; ``shadow_reference`` the float64 oracle the shader is tested against;
* ``backings``   — the browser policy's promotion, overlap and squashing decisions;
* ``policy``     — the policies as strategy objects (browser, budget, all, none).
"""

from .tree import resolve_tree

__all__ = ["resolve_tree"]
