"""The scene's ``url(#id)`` filter references: checked before a frame is planned, and
explained once planned.

Each must name a ``<filter>`` of the scene's SVG (``scene.add_svg``). A scene file is
checked at load (``scene_file``); a scene built in Python is checked here, so a dangling
reference is an SvgFilterError naming the layer, the property and the id before any GPU
work — never a failure halfway through planning. ``svg_decisions`` says, for
``lamina explain``, which primitive graph each reference is and the passes it became."""

from __future__ import annotations

from collections import Counter

from ..errors import SvgFilterError
from ..filters.plan import FilterPlan
from ..filters.svg.op import SvgFilterRef
from ..filters.svg.route import document_in_force
from ..framegraph import Decision

__all__ = ["check_svg_references", "svg_decisions", "svg_filter_elements"]

_PROPERTIES = (("filter", "filter"), ("backdrop-filter", "backdrop_filter"))


def check_svg_references(scene) -> None:
    document = scene.svg
    for layer in scene.layers():
        written = [(css, field) for css, field in _PROPERTIES
                   if isinstance(v := layer.style.get(css), str) and "url(" in v]
        if not written:
            continue
        computed = layer.style.computed()
        for css, field in written:
            chain = getattr(computed, field)
            for ident in chain.svg_ids() if chain is not None else ():
                if document is None or ident not in document.filters:
                    known = ", ".join(f"#{k}" for k in sorted(document.filters)) if document else "no SVG markup (scene.add_svg)"
                    err = SvgFilterError(f"layer {layer.id!r}: {css}: url(#{ident}) names no <filter> of the scene's "
                                         f"SVG ({known})", attribute=css, value=f"url(#{ident})")
                    err.layer = layer.id
                    raise err


def svg_filter_elements(chain) -> str:
    """The ``<filter>``s ``chain``'s url()s name, as errors name them (``<filter id="f">``)."""
    document = document_in_force()
    names = []
    for op in chain if chain is not None else ():
        if isinstance(op, SvgFilterRef):
            if op.element is None and document is not None and op.id in document.filters:
                op = op.resolved_svg(document)
            names.append(op.element.describe() if op.element is not None else op.css())
    return ", ".join(dict.fromkeys(names))


def svg_decisions(layer_id: str, css_property: str, chain, plan: FilterPlan) -> list[Decision]:
    """One decision per ``url(#id)`` of ``chain``: its primitive graph (what reads what,
    what was pruned) and the filter passes the whole value was planned into."""
    refs = [op for op in chain if isinstance(op, SvgFilterRef)] if chain is not None else []
    if not refs:
        return []
    kinds = Counter(p.kind for p in plan.passes)
    passes = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "none"
    document = document_in_force()
    out = []
    for op in refs:
        if op.element is None and document is not None and op.id in document.filters:
            op = op.resolved_svg(document)
        graph = "; ".join(line.strip() for line in op.explain().splitlines())
        out.append(Decision(layer_id, f"{css_property}: {op.css()} is the SVG filter graph {graph}; "
                                      f"{chain} planned into {len(plan.passes)} filter pass(es): {passes}"))
    return out
