"""feDisplacementMap, feConvolveMatrix and feGaussianBlur with an edgeMode -> passes
(``filters.svg.compile`` registers them; it plans everything else).

* feDisplacementMap: one ``DisplacePass`` (the moved image is copied, so its colour space
  does not matter; the map is read in the primitive's).
* feConvolveMatrix: one ``ConvolvePass``, its kernel flipped here into the order the pass
  reads it (offset (j - targetX, i - targetY) at i * orderX + j), extending its input's
  subregion (the spec's "input image") by the edge mode, weights as uniforms /
  a buffer, so no program is compiled per kernel; kernelUnitLength spreads the cells
  over the image, read bilinearly where a cell falls between pixels
  (``reference.kernel_spacing``); in linearRGB each tap is converted inside the pass,
  which is exact.
* feGaussianBlur with edgeMode duplicate or wrap: two ``ConvolvePass`` es of the
  reference's full-size Gaussian weights (``filters.ops.gaussian_kernel``), along x then
  y, extending the input's subregion by the edge mode (the downscaled blur passes only
  know transparent edges). Sigma is capped at BLUR_SIGMA_CAP (100 px: 801 weights, inside
  CONVOLVE_WEIGHTS). In linearRGB each tap is converted inside the pass; the image between
  the two passes is 8-bit sRGB (not 8-bit linear, which bands darks). (With edgeMode none a
  linearRGB blur runs on a float linear image: ``filters.svg.compile_linear``.)
* a fractional feOffset in linearRGB on an image with colour: the reference's bilinear
  move (``ops.shift``: out(x) = in(x - dx) between pixels) is a 2x2 (1 wide along a
  whole-pixel axis) ``ConvolvePass`` of weights from the fractional parts, its target
  placing the taps at floor(-d) and floor(-d) + 1, each tap converted in the pass.
"""

from __future__ import annotations

import math

from ..ops import BLUR_SIGMA_CAP, gaussian_kernel
from ..plan import SHADER_CONSTANTS, ConvolvePass, DisplacePass, EdgeMode, _Builder
from . import model as m
from .reference import kernel_spacing

__all__ = ["plan_spatial", "spatial_refusal"]

PixelRect = tuple[int, int, int, int]  # x0, y0, x1, y1 in whole pixels of the plan's images

_EDGES = {m.EdgeMode.NONE: EdgeMode.NONE, m.EdgeMode.DUPLICATE: EdgeMode.DUPLICATE, m.EdgeMode.WRAP: EdgeMode.WRAP}


def _sigmas(prim: m.GaussianBlur, pixels_per_unit: tuple[float, float]) -> tuple[float, float]:
    """stdDeviation (x, y) in pixels, capped as every planned blur is (BLUR_SIGMA_CAP)."""
    return tuple(min(v * u, BLUR_SIGMA_CAP) for v, u in zip(prim.std_deviation, pixels_per_unit))


def _convolved(prim: m.Primitive, converts: bool) -> bool:
    """Does feGaussianBlur ``prim`` run as convolve passes? ``converts``: it is in linearRGB
    on an image with colour (which says only what the refusal reads: with edgeMode none
    it blurs a float linear image, filters.svg.compile_linear)."""
    return isinstance(prim, m.GaussianBlur) and prim.edge_mode is not m.EdgeMode.NONE


def spatial_refusal(prim: m.Primitive, pixels_per_unit: tuple[float, float], converts: bool = False) -> str | None:
    """Why ``prim`` cannot run as this module's passes (None: it can, or it is not one of
    them); ``converts`` as ``_convolved`` says."""
    if _convolved(prim, converts):
        sigmas = _sigmas(prim, pixels_per_unit)
        longest = max(len(_kernel(s)) for s in sigmas)
        if longest > SHADER_CONSTANTS["CONVOLVE_WEIGHTS"]:
            why = f"edgeMode {prim.edge_mode.value}" + (" in linearRGB" if converts else "")
            return (f"{why} with a standard deviation of {max(sigmas):g} px (a kernel of "
                    f"{longest} taps; a convolve pass takes {SHADER_CONSTANTS['CONVOLVE_WEIGHTS']})")
    return None


def plan_spatial(b: _Builder, prim: m.Primitive, ins: list[str], pixels_per_unit: tuple[float, float],
                 linear: bool, in_rect: PixelRect, full: PixelRect, converts: bool = False) -> str | None:
    """The image the passes of ``prim`` write, ``linear`` its colour space being linearRGB,
    ``in_rect`` the pixels of its first input's subregion (which an edge mode extends, as the
    spec's "input image"), ``full`` the whole image's, ``converts`` as ``_convolved`` says
    (None: ``prim`` is not one of this module's)."""
    if isinstance(prim, m.DisplacementMap):
        return plan_displacement(b, prim, ins, pixels_per_unit, linear)
    if isinstance(prim, m.ConvolveMatrix):
        return plan_convolve(b, prim, ins[0], linear, kernel_spacing(prim, pixels_per_unit), in_rect)
    if isinstance(prim, m.Offset) and converts:
        dx, dy = prim.dx * pixels_per_unit[0], prim.dy * pixels_per_unit[1]
        if dx != int(dx) or dy != int(dy):
            return plan_linear_offset(b, prim, ins[0], dx, dy)
    if _convolved(prim, converts):
        sigmas = _sigmas(prim, pixels_per_unit)
        return plan_edge_blur(b, prim, ins[0], sigmas, linear, in_rect, full) if max(sigmas) > 0 else ins[0]
    return None


def plan_displacement(b: _Builder, prim: m.DisplacementMap, ins: list[str], pixels_per_unit: tuple[float, float],
                      linear: bool) -> str:
    """The pass of ``prim`` moving ``ins[0]`` by the map ``ins[1]``; the image it writes."""
    out = b.name("displace")
    amount = (prim.scale * pixels_per_unit[0], prim.scale * pixels_per_unit[1])
    b.passes.append(DisplacePass((ins[0], ins[1]), out, amount, (prim.x_channel.index, prim.y_channel.index), linear))
    return out


def plan_convolve(b: _Builder, prim: m.ConvolveMatrix, source: str, linear: bool, spacing: tuple[float, float],
                  in_rect: PixelRect) -> str:
    """The pass of ``prim`` on ``source`` (its pixels ``in_rect``, extended by the edge mode), its
    cells ``spacing`` px apart (``reference.kernel_spacing``); the image it writes."""
    out = b.name("convolve")
    weights = tuple(float(v) for v in reversed(prim.kernel))  # kernel[oy-1-i][ox-1-j] at i * ox + j
    b.passes.append(ConvolvePass((source,), out, prim.order, weights, prim.targets(), float(prim.resolved_divisor()),
                                 float(prim.bias), _EDGES[prim.edge_mode], prim.preserve_alpha, linear, spacing,
                                 rect=in_rect))
    return out


def plan_linear_offset(b: _Builder, prim: m.Offset, source: str, dx: float, dy: float) -> str:
    """The pass moving ``source`` by (dx, dy) px bilinearly in linear light; the image it writes."""
    axes = []
    for d in (dx, dy):
        first = math.floor(-d)
        f = -d - first
        axes.append(((1.0,), -first) if f == 0 else ((1.0 - f, f), -first))
    (wx, tx), (wy, ty) = axes
    out = b.name("offset")
    b.passes.append(ConvolvePass((source,), out, (len(wx), len(wy)), tuple(a * c for c in wy for a in wx), (tx, ty),
                                 linear=True, source=prim.tag))
    return out


def _kernel(sigma: float) -> tuple[float, ...]:
    return tuple(float(v) for v in gaussian_kernel(sigma)) if sigma > 0 else (1.0,)


def plan_edge_blur(b: _Builder, prim: m.GaussianBlur, source: str, sigmas: tuple[float, float], linear: bool,
                   in_rect: PixelRect, full: PixelRect) -> str:
    """The passes of ``prim`` (by its edgeMode) blurring ``source`` (its pixels ``in_rect``,
    extended by the edge mode) by ``sigmas`` px (x, y); the image they write."""
    current = source
    for axis, sigma in enumerate(sigmas):
        if sigma <= 0:
            continue
        # The first pass extends the input in both axes (the reference extends it, then blurs);
        # the y pass after an x pass reads the x pass's rows, whole, past the input's columns.
        rect = in_rect if current is source else (full[0], in_rect[1], full[2], in_rect[3])
        k = _kernel(sigma)
        r = len(k) // 2
        order, target = ((len(k), 1), (r, 0)) if axis == 0 else ((1, len(k)), (0, r))
        out = b.name("blur")
        b.passes.append(ConvolvePass((current,), out, order, k, target, 1.0, 0.0, _EDGES[prim.edge_mode], False,
                                     linear, source=f"{prim.tag} {'xy'[axis]}", rect=rect))
        current = out
    return current
