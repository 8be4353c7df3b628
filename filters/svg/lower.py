"""SVG filter graphs -> the filter ops Lamina already plans (a first GPU route).

Filter Effects 1 describes each CSS shorthand as a primitive graph; this is the inverse,
for the graphs where it is exact: a *chain* (each primitive reads the one before,
the first reads SourceGraphic or SourceAlpha, which is a colour op), every primitive in sRGB (``color-interpolation-filters``),
no primitive subregions, on an image that is the whole element box, with the filter
region holding the box. Then:

* feColorMatrix whose colour rows do not read alpha and whose alpha row only scales it
  (saturate, hueRotate, matrices of that form) -> a colour op with its 4x5 matrix;
* feComponentTransfer with identity or linear feFuncR/G/B (and feFuncA identity or a
  linear scale in [0, 1]) -> the same, diagonal;
* feGaussianBlur with one standard deviation and edgeMode none -> ``Blur``;
* feDropShadow with one standard deviation -> ``DropShadow`` (the same graph, by the spec),
  with the filter region exactly the box (else its offset brings in what its blur spread
  past the box, which a chain on the box has not kept);
* feMorphology -> ``Morphology`` (a radius of 0 disables it: no op).

Adjacent colour work then fuses as a CSS chain's does, and the result runs on GL and on
OpenCL from one plan. The region matters between spatial primitives (the spec clips each
result to it; a chain keeps what spreads past the box): more than one spatial primitive
needs the region to be exactly the box. Anything else raises UnsupportedFeatureError
naming the primitive and why, before any pass runs — never a plan that renders it wrong.
``filters.apply`` (same size out, not grown) uses this route; in a layer's chain only
colour-only lowerings are used (``filters.svg.route``: the region would clip spatial ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...errors import UnsupportedFeatureError
from ...css.values import RGBA

from ..ops import Blur, ColorOp, DropShadow, FilterOp, Morphology, _num
from . import model as m
from .graph import build_graph
from .reference import color_matrix, filter_region

__all__ = ["SvgColorMatrix", "lower_filter", "matrix_op", "transfer_matrix", "one_sigma", "SOURCE_ALPHA"]


@dataclass(frozen=True, repr=False)
class SvgColorMatrix(ColorOp):
    """An feColorMatrix (or a linear feComponentTransfer) as a colour op: ``values`` its
    4x5 matrix row by row; colour rows must not read alpha, the alpha row only scales it
    by [0, 1] (what a fused colour pass runs)."""

    values: tuple[float, ...] = tuple(np.eye(4, 5).reshape(-1))
    source: str = "feColorMatrix"
    name: ClassVar[str] = "svg-color-matrix"

    def matrix(self) -> np.ndarray:
        return np.array(self.values, dtype=np.float64).reshape(4, 5)

    def css(self) -> str:
        return f"{self.source}({' '.join(_num(v) for v in self.values)})"

    def interpolate(self, other: FilterOp, t: float) -> FilterOp:
        assert isinstance(other, SvgColorMatrix)
        return SvgColorMatrix(values=tuple(a + (b - a) * t for a, b in zip(self.values, other.values)), source=self.source)


def _refuse(prim: m.Primitive, why: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(f"{prim.describe()}: {why}; SVG filter graphs compile to GPU passes only as chains "
                                   "of colour matrices, linear transfers, blurs, drop shadows and morphology in sRGB "
                                   "so far (backend='reference' runs any graph)", property="filter",
                                   value=prim.describe(), element=prim.describe())


def matrix_op(prim: m.Primitive, matrix: np.ndarray) -> SvgColorMatrix:
    if np.any(matrix[:3, 3] != 0) or np.any(matrix[3, [0, 1, 2, 4]] != 0) or not 0 <= matrix[3, 3] <= 1:
        raise _refuse(prim, "a colour matrix whose colour reads alpha, or whose alpha is not a scale in [0, 1]")
    return SvgColorMatrix(values=tuple(float(v) for v in matrix.reshape(-1)), source=prim.tag)


def transfer_matrix(prim: m.ComponentTransfer) -> np.ndarray:
    out = np.zeros((4, 5))
    for i, f in enumerate((prim.red, prim.green, prim.blue, prim.alpha)):
        empty_table = f.type in (m.TransferType.TABLE, m.TransferType.DISCRETE) and not f.table_values
        if f.type is m.TransferType.IDENTITY or empty_table:
            out[i, i] = 1.0
        elif f.type is m.TransferType.LINEAR:
            out[i, i], out[i, 4] = f.slope, f.intercept
        else:
            raise _refuse(prim, f"a {f.type.value} transfer function")
    return out


def one_sigma(prim: m.Primitive, pair: tuple[float, float], scale_xy: tuple[float, float]) -> float:
    """The one sigma of a CSS blur / drop-shadow op ``pair`` lowers to; two different ones
    do not lower (the graph compiler, filters.svg.compile, plans them per axis)."""
    sx, sy = pair[0] * scale_xy[0], pair[1] * scale_xy[1]
    if sx != sy:
        raise _refuse(prim, "a blur with two standard deviations (a CSS op has one; compiled as a graph instead)")
    return sx


def _lower(prim: m.Primitive, units: tuple[float, float]) -> tuple[FilterOp, ...]:
    if isinstance(prim, m.ColorMatrix):
        if prim.type is m.ColorMatrixType.LUMINANCE_TO_ALPHA:
            raise _refuse(prim, "luminanceToAlpha (alpha read from colour)")
        return (matrix_op(prim, color_matrix(prim)),)
    if isinstance(prim, m.ComponentTransfer):
        return (matrix_op(prim, transfer_matrix(prim)),)
    if isinstance(prim, m.GaussianBlur):
        if prim.edge_mode is not m.EdgeMode.NONE:
            raise _refuse(prim, f"edgeMode {prim.edge_mode.value}")
        sigma = one_sigma(prim, prim.std_deviation, units)
        return (Blur(sigma),) if sigma > 0 else ()
    if isinstance(prim, m.DropShadow):
        sigma = one_sigma(prim, prim.std_deviation, units)
        c = prim.flood_color
        color = RGBA(c.r, c.g, c.b, c.a * prim.flood_opacity)
        return (DropShadow(prim.dx * units[0], prim.dy * units[1], sigma, color),)
    if isinstance(prim, m.Morphology):
        if prim.radius[0] <= 0 or prim.radius[1] <= 0:
            return ()  # the spec: a zero radius disables the primitive
        return (Morphology(prim.operator.value, prim.radius[0] * units[0], prim.radius[1] * units[1]),)
    raise _refuse(prim, "this primitive does not compile to GPU passes yet")


SOURCE_ALPHA = np.zeros((4, 5))
SOURCE_ALPHA[3, 3] = 1.0  # colour 0, alpha kept
LOWERABLE = (m.ColorMatrix, m.ComponentTransfer, m.GaussianBlur, m.DropShadow, m.Morphology)


def lower_filter(element: m.FilterElement, size: tuple[float, float]) -> tuple[FilterOp, ...]:
    """The ops a filter is, applied to an element box of ``size`` (CSS px, at the origin)
    whose result is read only within that box; UnsupportedFeatureError naming the first
    primitive that does not lower."""
    graph = build_graph(element)
    w, h = size
    region = filter_region(element, (0.0, 0.0, w, h))
    box_inside = region[0] <= 0 and region[1] <= 0 and region[2] >= w and region[3] >= h
    exact_box = region == (0.0, 0.0, float(w), float(h))
    units = (w, h) if element.primitive_units is m.Units.BOUNDING_BOX else (1.0, 1.0)
    ops: list[FilterOp] = []
    spatial = 0
    previous: int | m.StandardInput = m.StandardInput.SOURCE_GRAPHIC
    for node in graph.live_nodes():
        prim = node.primitive
        if not isinstance(prim, LOWERABLE):
            raise _refuse(prim, "this primitive does not compile to GPU passes yet")
        if not box_inside:
            raise _refuse(prim, "a filter region that does not hold the element's box")
        if not ops and spatial == 0 and node.inputs == (m.StandardInput.SOURCE_ALPHA,):
            # SourceAlpha: the source with its colour made black, a colour op (exact).
            ops.append(SvgColorMatrix(values=tuple(float(v) for v in SOURCE_ALPHA.reshape(-1)), source="SourceAlpha"))
        elif node.inputs != (previous,):
            raise _refuse(prim, "a graph that is not a chain from SourceGraphic or SourceAlpha")
        if element.space_of(prim) is not m.ColorSpace.SRGB:
            raise _refuse(prim, "color-interpolation-filters linearRGB (8-bit linear intermediates would band)")
        if any(getattr(prim.subregion, k) is not None for k in ("x", "y", "width", "height")):
            raise _refuse(prim, "a primitive subregion")
        if isinstance(prim, m.DropShadow) and not exact_box:
            raise _refuse(prim, "feDropShadow with a filter region larger than the box (its offset brings in what "
                                "its blur spreads past the box, which a chain on the box does not keep)")
        lowered = _lower(prim, units)
        spatial += sum(1 for op in lowered if not isinstance(op, ColorOp))
        if spatial > 1 and not exact_box:
            raise _refuse(prim, "a second spatial primitive with a filter region larger than the box (the region "
                                "clips what the first spreads)")
        ops.extend(lowered)
        previous = node.index
    if graph.output is None:
        raise UnsupportedFeatureError(f"{element.describe()} has no primitives (the element is not drawn); "
                                      "not compiled yet", property="filter", value=element.describe(),
                                      element=element.describe())
    return tuple(ops)
