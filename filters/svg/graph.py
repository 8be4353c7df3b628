"""A ``<filter>``'s primitives as a DAG: each input resolved to the node it reads (or to
SourceGraphic / SourceAlpha), checked, and pruned to what the last primitive needs.

Filter Effects 1 §"in": a primitive with no ``in`` reads the previous primitive's result
(SourceGraphic for the first); a named input reads the most recent *earlier* primitive
whose ``result`` has that name. So edges only point backwards and the graph cannot have
a cycle; what would make one — a primitive reading its own result, or a result named
before it is defined — is refused here with an error naming the element, the attribute
and the name (the spec would silently fall back to the previous result, which hides the
mistake). Unused results are pruned: only nodes the output depends on run.

Tainting (Filter Effects 1 §16.3, §16.4): SourceGraphic and SourceAlpha are "tainted",
and so is every primitive reading a tainted one; an feDisplacementMap whose map (in2) is
tainted "acts as a pass through filter": its result is its ``in`` (Blink's
FEDisplacementMap::CreateImageFilter returns its ``in``'s filter when in2 is
OriginTainted). Chromium 156 applies this where the source may hold other origins'
pixels: always to a backdrop-filter's backdrop, and not to an element's own rendering,
which Lamina's never is (measured, tests/chromium/test_svg_backdrop_chromium.py). ``FilterGraph.with_tainted_source`` gives
the graph so tainted: its pass-through nodes, and the map's nodes pruned when nothing
else reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import SvgFilterError

from .model import FilterElement, Input, Primitive, StandardInput

__all__ = ["GraphNode", "FilterGraph", "build_graph", "check_filter"]

NodeInput = StandardInput | int  # a keyword input, or the index of the node read


@dataclass(frozen=True)
class GraphNode:
    """One primitive and what each of its inputs reads."""

    index: int
    primitive: Primitive
    inputs: tuple[NodeInput, ...]


@dataclass(frozen=True)
class FilterGraph:
    """``nodes`` in document order (each reads only earlier ones); ``output`` the node
    whose result the filter gives; ``live`` the indices the output depends on, in order;
    an empty filter has no nodes (it makes the element transparent, per the spec)."""

    filter: FilterElement
    nodes: tuple[GraphNode, ...]
    output: int | None
    live: tuple[int, ...]
    passed_through: frozenset[int] = frozenset()  # feDisplacementMap nodes whose result is their ``in``

    def with_tainted_source(self) -> "FilterGraph":
        """The graph with SourceGraphic and SourceAlpha tainted (a backdrop-filter's: see the
        module docstring): each feDisplacementMap reading a tainted map passes ``in``
        through, and what only its map needed is pruned."""
        tainted: set[int] = set()
        passed: set[int] = set()
        for node in self.nodes:
            if any(isinstance(i, StandardInput) or i in tainted for i in node.inputs):
                tainted.add(node.index)
            if node.primitive.tag == "feDisplacementMap":
                map_ = node.inputs[1]
                if isinstance(map_, StandardInput) or map_ in tainted:
                    passed.add(node.index)
        if self.output is None:
            return self
        return FilterGraph(self.filter, self.nodes, self.output, _needed(self.nodes, self.output, passed),
                           frozenset(passed))

    @property
    def pruned(self) -> tuple[int, ...]:
        """The nodes whose results nothing uses."""
        return tuple(i for i in range(len(self.nodes)) if i not in set(self.live))

    def live_nodes(self) -> tuple[GraphNode, ...]:
        return tuple(self.nodes[i] for i in self.live)

    def explain(self) -> str:
        """The graph in plain words: one line per primitive, what it reads, and which ran."""
        lines = [f"{self.filter.describe()}: {len(self.nodes)} primitive(s), {len(self.live)} used"]
        for node in self.nodes:
            reads = ", ".join(_name(self, i) for i in node.inputs) or "nothing"
            mark = "" if node.index in self.live else "  (pruned: its result is not used)"
            if node.index in self.passed_through:
                mark += "  (passes in through: its map in2 reads the tainted source, Filter Effects 1 §16.4)"
            out = " -> output" if node.index == self.output else ""
            lines.append(f"  [{node.index}] {node.primitive.describe()} reads {reads}{out}{mark}")
        return "\n".join(lines)


def _name(graph: FilterGraph, i: NodeInput) -> str:
    if isinstance(i, StandardInput):
        return i.value
    return f"[{i}]"


def _resolve(prim: Primitive, attribute: str, value: Input, index: int, names: dict[str, int],
             primitives: tuple[Primitive, ...]) -> NodeInput:
    if isinstance(value, StandardInput):
        return value
    if value is None:
        return index - 1 if index > 0 else StandardInput.SOURCE_GRAPHIC
    if value in names:
        return names[value]
    where = f"{prim.describe()}" + (f" (line {prim.line})" if prim.line else "")
    if prim.result == value:
        raise SvgFilterError(f"reads its own result {value!r}: a cycle", element=where, attribute=attribute, value=value)
    later = [p for p in primitives[index + 1:] if p.result == value]
    if later:
        raise SvgFilterError(f"reads result {value!r} before it is defined (by {later[0].describe()}"
                             f"{f' on line {later[0].line}' if later[0].line else ''})",
                             element=where, attribute=attribute, value=value)
    known = ", ".join(repr(n) for n in names) or "none yet"
    raise SvgFilterError(f"reads result {value!r}, which no earlier primitive defines (defined: {known})",
                         element=where, attribute=attribute, value=value)


def build_graph(element: FilterElement) -> FilterGraph:
    """The checked, pruned graph of ``element``."""
    names: dict[str, int] = {}
    nodes = []
    for index, prim in enumerate(element.primitives):
        attributes = ("in",) * len(prim.inputs()) if prim.tag == "feMerge" else prim.input_names
        inputs = tuple(_resolve(prim, attr, value, index, names, element.primitives)
                       for attr, value in zip(attributes, prim.inputs()))
        nodes.append(GraphNode(index, prim, inputs))
        if prim.result:
            names[prim.result] = index  # a later result of the same name shadows it from here on
    if not nodes:
        return FilterGraph(element, (), None, ())
    output = len(nodes) - 1
    return FilterGraph(element, tuple(nodes), output, _needed(nodes, output, set()))


def _needed(nodes: list[GraphNode] | tuple[GraphNode, ...], output: int, passed: set[int]) -> tuple[int, ...]:
    """The nodes ``output`` depends on, in order (a node of ``passed`` reads only its ``in``)."""
    needed = {output}
    for node in reversed(nodes):
        if node.index in needed:
            reads = node.inputs[:1] if node.index in passed else node.inputs
            needed.update(i for i in reads if isinstance(i, int))
    return tuple(sorted(needed))


def check_filter(element: FilterElement) -> None:
    """Raise the first problem of ``element``'s graph (what ``build_graph`` checks)."""
    build_graph(element)
