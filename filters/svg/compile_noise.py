"""feTurbulence -> a TurbulencePass (``filters.svg.compile`` registers it): the lattice
selector and gradients from the spec's own code (``filters.svg.turbulence.lattice``,
computed once per seed and uploaded), the stitching adjustment of the base frequency
and the first octave's stitch info on the host, as the spec's C code does them before
its octave loop; each pixel then runs the octaves (shaders/common/turbulence.h)."""

from __future__ import annotations

import math

from ..plan import CombineOperator, CombinePass, TurbulencePass, _Builder
from . import model as m
from .turbulence import BSIZE, PERLIN_N, lattice

__all__ = ["plan_turbulence"]


def _stitched(base: float, size: float) -> float:
    """The spec's stitchTiles adjustment: the nearer of the frequencies that tile ``size``."""
    if base == 0.0:
        return base
    lo = math.floor(size * base) / size
    hi = math.ceil(size * base) / size
    return lo if (lo > 0 and base / lo < hi / base) else hi


def plan_turbulence(b: _Builder, prim: m.Turbulence, region: tuple[float, float, float, float], pixel_scale: float,
                    linear: bool, origin: tuple[int, int] = (0, 0)) -> str:
    """The passes of ``prim`` over ``region`` (x, y, width, height in user units: its
    subregion, which stitching tiles) on images whose pixel (0, 0) is the element's pixel
    ``origin`` (a filter region's corner); the image it writes."""
    if region[2] <= 0 or region[3] <= 0:  # an empty subregion (nothing to stitch): transparent, as plan_image
        out = b.name("turbulence")
        b.passes.append(CombinePass(("source", "source"), out, CombineOperator.ARITHMETIC, source=prim.tag))
        return out
    selector, gradient = lattice(int(prim.seed))  # the seed truncated toward zero, as the spec says
    bx, by = prim.base_frequency
    stitch = None
    if prim.stitch_tiles:
        x, y, w, h = region
        bx, by = _stitched(bx, w), _stitched(by, h)
        sw, sh = int(w * bx + 0.5), int(h * by + 0.5)
        stitch = (sw, sh, int(x * bx + PERLIN_N + sw), int(y * by + PERLIN_N + sh))
    out = b.name("turbulence")
    b.passes.append(TurbulencePass(("source",), out, tuple(int(v) for v in selector[:BSIZE]),
                                   tuple(float(v) for v in gradient[:, :BSIZE, :].reshape(-1)), (bx, by),
                                   prim.num_octaves, prim.type is m.TurbulenceType.FRACTAL_NOISE, stitch, pixel_scale,
                                   linear, origin=(float(origin[0]), float(origin[1]))))
    return out
