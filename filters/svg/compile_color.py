"""Colour spaces and colour primitives of SVG filter graphs -> passes (``filters.svg.compile``
registers these; it plans everything else).

* feColorMatrix of every type (luminanceToAlpha and matrices that read or write alpha
  included) and feComponentTransfer of every feFunc type (table, discrete, linear,
  gamma) become ``SvgColorPass`` steps, in either space. A colour primitive that alone reads another's result
  joins its pass (up to SVG_COLOR_STEPS): the colour between them stays float, which
  matters in linearRGB, where an 8-bit sRGB image between two of them would cost up to
  ~25 levels on dark colours mixed from bright ones (measured: hueRotate then saturate).
* ``color-interpolation-filters: linearRGB`` (the SVG default): images between passes
  stay premultiplied 8-bit sRGB; a linearRGB primitive converts the colour it reads to
  linear and its result back inside its own pass (``shaders/common/svg_color.h``, shared
  by the GLSL passes and the OpenCL kernels). That is exact where the pass is per pixel:
  colour primitives, feComposite, feMerge and feBlend of every mode (combine passes with
  ``linear``). feFlood, feTile, feImage (its picture is sampled as stored, sRGB, then
  converted, as the reference does) and whole-pixel feOffset give the same pixels in
  either space. The colour primitives that alone read an feTurbulence run in its pass too (its
  noise, low in alpha, loses most of its colour to 8 premultiplied bits: up to 6 levels
  off before a linearRGB colour matrix, measured). Spatial primitives that mix pixels
  convert each tap in their pass: feGaussianBlur and a fractional feOffset of an image
  with colour as convolve passes (``compile_spatial``), feMorphology as morphology passes
  with ``linear``; feDropShadow is the spec's graph, merged in linear light. On images
  whose colour is black (SourceAlpha and what blurs, offsets, erodes or tiles it:
  ``black``) the space does not matter, and the faster sRGB passes run.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..plan import (SHADER_CONSTANTS, ChannelTransfer, CombinePass, SvgColorPass, SvgColorStep, TransferKind,
                    TurbulencePass, _Builder)
from . import model as m
from .compile_linear import HeldFor
from .graph import FilterGraph, NodeInput
from .reference import color_matrix

__all__ = ["SpacePlanner", "channel_transfer"]

_KINDS = {m.TransferType.IDENTITY: TransferKind.IDENTITY, m.TransferType.TABLE: TransferKind.TABLE,
          m.TransferType.DISCRETE: TransferKind.DISCRETE, m.TransferType.LINEAR: TransferKind.LINEAR,
          m.TransferType.GAMMA: TransferKind.GAMMA}
_ALPHA_KEEPING = (m.GaussianBlur, m.Offset, m.Morphology, m.Tile)  # black colour in -> black colour out
# A colour primitive whose output moves more than this many times its input's change
# amplifies an 8-bit blur's rounding past a level: the blur it alone reads stays in floats
# (compile_linear.HeldFor.COLOUR). Saturate, hue rotations and the CSS-like matrices
# stay under it; gooey's alpha row (x18) is far over. The playground's glow (blue x1.7,
# alpha x1.3 after a sigma 6 blur) stays under too: it is 3 levels off on one value
# (the downscaled blur's shape, x1.7); at 1.25 it would be 1, but its full-size float
# blur cost 4.8x on GL and 2.5x on OpenCL at 1080p (measured: 737 / 152 ms, 226 / 92 ms).
AMPLIFYING_GAIN = 2.0


def _transfer_gain(f: m.TransferFunction) -> float:
    """The steepest slope of one feFunc over [0, 1] (inf: unbounded, or a step)."""
    if f.type is m.TransferType.LINEAR:
        return abs(f.slope)
    if f.type is m.TransferType.GAMMA:
        return math.inf if 0 < f.exponent < 1 else abs(f.amplitude * f.exponent)
    values = np.asarray(f.table_values, np.float64)
    if f.type in (m.TransferType.TABLE, m.TransferType.DISCRETE) and len(values) >= 2:
        steepest = float(np.abs(np.diff(values)).max())
        if f.type is m.TransferType.DISCRETE:
            return math.inf if steepest > 0 else 0.0  # a rounding across a step moves a whole step
        return steepest * (len(values) - 1)
    return 1.0


def colour_gain(prim: m.ColorMatrix | m.ComponentTransfer) -> float:
    """How many times a change of its input can move ``prim``'s output at most (per
    channel, straight colour): a matrix's largest absolute row sum, a transfer's steepest slope."""
    if isinstance(prim, m.ColorMatrix):
        return float(np.abs(color_matrix(prim)[:, :4]).sum(axis=1).max())
    return max(_transfer_gain(f) for f in (prim.red, prim.green, prim.blue, prim.alpha))


def channel_transfer(f: m.TransferFunction) -> ChannelTransfer:
    """One feFunc as the svg_color pass runs it (a table or discrete function with no
    values is the identity, as the spec says)."""
    kind = _KINDS[f.type]
    if kind in (TransferKind.TABLE, TransferKind.DISCRETE):
        if not f.table_values:
            return ChannelTransfer()
        return ChannelTransfer(kind, table=tuple(float(v) for v in f.table_values))
    if kind is TransferKind.LINEAR:
        return ChannelTransfer(kind, (f.slope, f.intercept, 0.0))
    if kind is TransferKind.GAMMA:
        return ChannelTransfer(kind, (f.amplitude, f.exponent, f.offset))
    return ChannelTransfer()


class SpacePlanner:
    """Plans a graph's colour primitives and keeps what its colour spaces need: which
    images have black colour (a spatial primitive in linearRGB needs no conversion on them)."""

    def __init__(self, builder: _Builder, graph: FilterGraph) -> None:
        self.b = builder
        self.black: set[NodeInput] = {m.StandardInput.SOURCE_ALPHA}  # inputs whose colour is 0
        self.start = 0
        self.uses: dict[NodeInput, int] = {}  # live readers of each node's result
        self.readers: dict[NodeInput, list[m.Primitive]] = {}  # the primitives reading it, once each
        self.output = graph.output
        for node in graph.live_nodes():
            for i in node.inputs:
                self.uses[i] = self.uses.get(i, 0) + 1
            for i in dict.fromkeys(node.inputs):
                self.readers.setdefault(i, []).append(node.primitive)
        self.color_passes: dict[int, int] = {}  # node index -> where its svg colour pass is in the plan

    def refusal(self, prim: m.Primitive) -> str | None:
        """Why ``prim`` cannot run on the GPU in its colour space (None: it can)."""
        self.start = len(self.b.passes)
        if isinstance(prim, m.ComponentTransfer):
            size = 4 * SHADER_CONSTANTS["SVG_TABLE_SIZE"]
            values = sum(len(f.table_values) for f in (prim.red, prim.green, prim.blue, prim.alpha))
            if values > size:
                return f"transfer tables of {values} values in all (a GPU pass takes {size})"
        # Every primitive runs in linearRGB: per pixel, or converting each tap in its pass
        # (feGaussianBlur and fractional feOffset of an image with colour as compile_spatial's
        # convolve passes, feMorphology as linear morphology passes), feDropShadow as the
        # spec's graph merged in linear light (compile).
        return None

    def held_for(self, index: int) -> HeldFor:
        """Whether the blur of node ``index`` keeps its result in floats for what reads it
        (compile_linear): all its readers are lighting, or its one reader is a colour
        primitive that amplifies (over AMPLIFYING_GAIN)."""
        readers = self.readers.get(index, [])
        if index == self.output or not readers:
            return HeldFor.NOTHING
        if all(isinstance(r, (m.DiffuseLighting, m.SpecularLighting)) for r in readers):
            return HeldFor.LIGHTING
        if self.uses.get(index) == 1 and isinstance(readers[0], (m.ColorMatrix, m.ComponentTransfer)) \
                and colour_gain(readers[0]) > AMPLIFYING_GAIN:
            return HeldFor.COLOUR
        return HeldFor.NOTHING

    def plan(self, prim: m.Primitive, index: int, inputs: tuple[NodeInput, ...], source: str | None,
             linear: bool) -> str | None:
        """The image ``prim`` (node ``index``) writes when it is a colour primitive this
        module plans (None: ``filters.svg.compile`` plans it)."""
        if not isinstance(prim, (m.ColorMatrix, m.ComponentTransfer)):
            return None
        assert source is not None
        if isinstance(prim, m.ColorMatrix):
            step = SvgColorStep(matrix=tuple(float(v) for v in color_matrix(prim).reshape(-1)), linear=linear,
                                source=prim.tag)
        else:
            transfers = tuple(channel_transfer(f) for f in (prim.red, prim.green, prim.blue, prim.alpha))
            step = SvgColorStep(transfers=transfers, linear=linear, source=prim.tag)
        before = inputs[0]
        at = self.color_passes.get(before) if isinstance(before, int) and self.uses.get(before) == 1 else None
        if at is not None and SvgColorPass.fits((*self.b.passes[at].steps, step)):
            # The only reader of an svg colour (or turbulence, or a float blur's way back)
            # pass's result: one more step of that pass (it stays where it was: its input was ready there, and nothing
            # else reads it).
            previous = self.b.passes[at]
            self.b.passes[at] = replace(previous, steps=(*previous.steps, step))
            self.color_passes[index] = at
            return previous.output
        out = self.b.name("svgcolor")
        self.color_passes[index] = len(self.b.passes)
        self.b.passes.append(SvgColorPass((source,), out, (step,)))
        return out

    def planned(self, prim: m.Primitive, index: int, inputs: tuple[NodeInput, ...], linear: bool) -> None:
        """After ``prim`` (node ``index``) is planned: its combine passes join in its space,
        and its result is noted black when it keeps its black inputs' colour."""
        if linear and isinstance(prim, (m.Composite, m.Merge, m.Blend)):  # not feFlood: its colour is sRGB
            self.b.passes[self.start:] = [replace(p, linear=True) if isinstance(p, CombinePass) else p
                                          for p in self.b.passes[self.start:]]
        if isinstance(prim, _ALPHA_KEEPING) and inputs and all(i in self.black for i in inputs):
            self.black.add(index)
        if isinstance(prim, m.Turbulence) and isinstance(self.b.passes[-1], TurbulencePass):
            self.color_passes[index] = len(self.b.passes) - 1  # colour primitives may run in its pass
