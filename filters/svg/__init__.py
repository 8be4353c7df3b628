"""SVG filter graphs (Filter Effects 1): ``<filter>`` markup -> a typed, checked model of
its primitives -> a DAG of primitives -> pixels.

* ``parse_svg(markup)`` (``filters.svg.markup``): untrusted XML read safely (no DTD, no
  entities) into an ``SvgDocument`` of ``FilterElement`` s, each a tuple of typed
  primitives (``filters.svg.model``); bad markup is a typed error naming the element,
  the attribute, the value and the line.
* ``build_graph(element)`` (``filters.svg.graph``): inputs resolved, checked, unused
  results pruned; ``explain()`` prints it.
* ``filters.svg.reference``: the float64 numpy reference of every primitive, written
  from the spec, and of whole graphs with regions, units and colour spaces.
* ``filters.svg.lower``: the graphs that are exactly a chain of Lamina's planned ops
  become those ops, fusing with the CSS functions around them;
  ``filters.svg.compile``: a subset of graphs (flood, offset, colour matrix and
  component transfer of every type, turbulence, composite, merge, blend of every mode,
  image, blur, morphology, drop shadow, tile; primitive subregions as region passes;
  linearRGB as ``compile_color`` says) planned as passes of their own (``compile_color``,
  ``compile_noise``, ``compile_image``; feImage's pictures read under the scene's file
  policy by ``filters.svg.images``). GL and OpenCL run both through ``filters.apply``; the rest is a
  typed UnsupportedFeatureError naming the primitive.

``filters.svg.attributes``: the attributes a scene may animate (``PRIMITIVE.ATTRIBUTE``
paths, typed values, the filter with values set; ``lamina.animation.svg_attributes``
samples them over time).

CSS reaches a filter with ``filter: url(#id)`` (``filters.svg.op.SvgFilterRef``);
``filters.svg.route`` plans it inside a chain or a scene layer's filter/backdrop-filter
(each graph on its filter region, mixed with CSS functions or not).
"""

from __future__ import annotations

from .graph import FilterGraph, GraphNode, build_graph
from .markup import parse_svg
from .model import FilterElement, Primitive, SvgDocument

__all__ = ["parse_svg", "build_graph", "FilterGraph", "GraphNode", "FilterElement", "Primitive", "SvgDocument"]
