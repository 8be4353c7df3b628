"""``url(#id)`` in a CSS ``filter`` value: the op that names an SVG ``<filter>``.

Parsed from CSS it holds only the id; ``resolved_svg(document)`` gives the op holding the
``FilterElement`` it names (an SvgFilterError when the document has none by that id).
Its reference runs the filter's graph (``filters.svg.reference``) with the image as the
element's bounding box. ``FilterChain.plan`` routes resolved ones to GPU passes
(``filters.svg.route``: lowered ops, or a graph's own passes on its filter region); an
unresolved one with no scene document in force raises UnsupportedFeatureError
(``plan_error``), so nothing renders silently wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from tinycss2 import ast

from ...errors import FilterSyntaxError, SvgFilterError, UnsupportedFeatureError
from ...css.tokens import TokenStream

from ..ops import FilterOp
from .graph import build_graph
from .model import FilterElement, SvgDocument
from .images import reference_loader
from .reference import apply_filter

__all__ = ["SvgFilterRef", "read_url_op"]


@dataclass(frozen=True, repr=False)
class SvgFilterRef(FilterOp):
    """``url(#id)``; ``element`` the ``<filter>`` it names once resolved (None before)."""

    id: str = ""
    element: FilterElement | None = None
    name: ClassVar[str] = "url"
    kind: ClassVar[str] = "svg"

    def css(self) -> str:
        return f"url(#{self.id})"

    def is_noop(self) -> bool:
        return False

    def resolved_svg(self, document: SvgDocument) -> "SvgFilterRef":
        """The op holding the filter ``document`` has under this id."""
        return SvgFilterRef(self.id, document.filter(self.id))

    def explain(self) -> str:
        """The filter's primitive graph in plain words (``FilterGraph.explain``)."""
        if self.element is None:
            return f"{self.css()}: not resolved against SVG markup"
        return build_graph(self.element).explain()

    def plan_error(self) -> UnsupportedFeatureError:
        """Why this op cannot be planned into GPU passes (yet)."""
        if self.element is None:  # a url() with no markup in force: nothing to plan from
            return SvgFilterError(f"{self.css()} names an SVG filter, and no SVG markup is in force to find it in: "
                                  "give the markup (scene.add_svg, a scene file's \"svg\", "
                                  "chain.resolved_svg(parse_svg(markup)) or filters.apply(..., svg=markup))",
                                  attribute="filter", value=self.css())
        graph = build_graph(self.element)
        tags = ", ".join(dict.fromkeys(n.primitive.tag for n in graph.live_nodes())) or "no primitives"
        return UnsupportedFeatureError(f"{self.css()}: an SVG filter graph ({tags}) is planned by FilterChain.plan "
                                       "(filters.svg.route), not as one function of a CSS chain", property="filter",
                                       value=self.css())

    def reference(self, premult: np.ndarray) -> np.ndarray:
        if self.element is None:
            raise SvgFilterError(f"{self.css()} names an SVG filter: resolve it against the markup first "
                                 "(resolved_svg, or filters.apply(..., svg=markup))", attribute="filter",
                                 value=self.css())
        graph = build_graph(self.element)
        out, _ = apply_filter(graph, premult, image_loader=reference_loader(graph))  # feImage: the files in force
        return out

    @classmethod
    def initial(cls) -> "FilterOp":
        raise UnsupportedFeatureError("url() filters have no initial value: a chain with one interpolates discretely",
                                      property="filter")

    def interpolate(self, other: "FilterOp", t: float) -> "FilterOp":
        return self if t < 0.5 else other  # discrete (Filter Effects 1 §13: url() lists do not interpolate)


def read_url_op(tok: ast.Node, ts: TokenStream) -> SvgFilterRef:
    """``url(#id)`` (a URL token or ``url("#id")``): a reference into the page's SVG."""
    if isinstance(tok, ast.URLToken):
        url = tok.value
    else:
        args = [a for a in tok.arguments if not isinstance(a, (ast.WhitespaceToken, ast.Comment))]
        if len(args) != 1 or not isinstance(args[0], ast.StringToken):
            raise ts.error("url() takes one URL, as url(#id) or url(\"#id\")", tok, FilterSyntaxError)
        url = args[0].value
    url = url.strip()
    if not url.startswith("#"):
        raise ts.error(f"SVG filter references to other files (url({url})) are not supported: put the <filter> in the "
                       "scene's SVG markup and write url(#id)", tok, UnsupportedFeatureError)
    ident = url[1:]
    if not ident or any(c.isspace() for c in ident):
        raise ts.error(f"url({url}) needs the id of a <filter>, as url(#id)", tok, FilterSyntaxError)
    return SvgFilterRef(ident)
