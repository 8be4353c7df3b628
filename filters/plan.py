"""FilterChain -> FilterPlan: the GPU passes a chain compiles to, as plain data.

* Consecutive colour ops fuse into ONE pass that applies their matrices in order with
  the clamp to [0, 1] between steps (exact; a single product matrix is not).
* No-op ops are dropped (blur(0), grayscale(0), opacity(1), hue-rotate(0 or whole turns)).
* Blur is a separable Gaussian with kernel radius ceil(3 sigma). Above sigma = 4 the
  image is halved (2x2 box) until sigma <= 4 at that level, blurred there and
  upsampled once (bilinear), as WebRender and Skia do: cost stops growing with sigma.
  Sigma is capped at 100 px (WebRender's cap): beyond it a blur is a flat wash at any
  screen size, and the plan says when it capped.
* drop-shadow = blur of the input's alpha, offset, flood colour, composited under it.
* ``outsets`` (top, right, bottom, left) say how far the result reaches beyond the
  input, so a filtered layer's surface can include it and nothing is clipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from enum import Enum
from typing import Callable, ClassVar, Union

import numpy as np

from ..errors import InvalidValueError
from ..limits import MAX_COLOR_STEPS  # one shader variant per fused step count
from ..css.values import RGBA
from ..blending.modes import BlendMode
from ..named import NamedEnum

# BLUR_SIGMA_CAP and MIN_SIGMA live with the ops (their reach needs them); still importable from here.
from .svg.op import SvgFilterRef
from .svg.reference import linear_to_srgb, srgb_to_linear
from .ops import (BLUR_SIGMA_CAP, MIN_SIGMA, Blur, ColorOp, DropShadow, FilterOp, Morphology, MorphologyOperator, Reach,
                  pixel_sigma)

__all__ = [
    "PassKind",
    "Axis",
    "CostKind",
    "PASS_TYPES",
    "SHADER_CONSTANTS",
    "MAX_BLUR_RADIUS",
    "blur_norm",
    "BLUR_SIGMA_CAP",
    "MAX_LEVEL_SIGMA",
    "blur_levels_axes",
    "MAX_COLOR_STEPS",
    "ColorStep",
    "ColorPass",
    "ResamplePass",
    "BlurPass",
    "ShadowPass",
    "MorphologyPass",
    "LinearHold",
    "CombineOperator",
    "CombinePass",
    "OffsetPass",
    "SvgColorPass",
    "SvgColorStep",
    "TurbulencePass",
    "LightKind",
    "LightingPass",
    "DisplacePass",
    "ConvolvePass",
    "EdgeMode",
    "RegionPass",
    "ImagePass",
    "SpacePass",
    "ImageFormat",
    "image_format",
    "input_format",
    "ChannelTransfer",
    "TransferKind",
    "FilterPlan",
    "ProgramCall",
    "KernelArg",
    "KeyedPixels",
    "KernelCall",
    "Arg",
    "KERNEL_CONSTANTS",
    "FilterShader",
    "FilterProgram",
    "color_step_bucket",
    "plan_chain",
    "blur_levels",
    "image_size",
    "MARGIN",
]

MAX_LEVEL_SIGMA = 4.0  # blur at full size up to this sigma; above, halve until below it
LARGE_IMAGE = 512 * 512  # pixels from which sigma in [6, 8] halves twice
MAX_BLUR_RADIUS = math.ceil(3.0 * MAX_LEVEL_SIGMA)  # taps per side of any planned blur pass
MARGIN = 1  # texels around every reduced image (see shaders/filters/downsample.frag)

# What the GLSL passes and the OpenCL kernels must agree on, from this one source: both
# get them as #defines (gpu.programs for GLSL, gpu.opencl for OpenCL C), and neither
# source file defines them itself (tests/unit/test_filter_tasks.py checks).
SHADER_CONSTANTS: dict[str, int] = {
    "FILTER_MARGIN": MARGIN,
    "MAX_COLOR_STEPS": MAX_COLOR_STEPS,
    "MAX_BLUR_RADIUS": MAX_BLUR_RADIUS,
    "COLOR_STEP_FLOATS": 12,  # one clamped colour step: a 3x4 matrix, row by row
    "SVG_TABLE_SIZE": 256,  # vec4s of feComponentTransfer table / discrete values in one svg colour pass
    "SVG_COLOR_STEPS": 8,  # SVG colour primitives fused into one svg colour pass
    "SVG_STEP_FLOATS": 45,  # one svg colour step for the OpenCL kernel (SvgColorPass.cl)
    "PERLIN_N": 0x1000,  # feTurbulence: the spec's PerlinN (filters/svg/turbulence.py)
    "CONVOLVE_WEIGHTS": 1024,  # weights of one convolve pass: feConvolveMatrix's 32 x 32 (MAX_KERNEL_ORDER)
}


# What the OpenCL kernels alone need (-D build options, gpu.opencl), with their launch
# geometry below: a downsample work-item walks DOWN_RUN outputs of a row; blur_x tiles
# rows of BLUR_TILE_X pixels, blur_y blocks of BLUR_TILE_Y columns x rows (plus apron).
DOWN_RUN = 16
SRGB_TABLE_STEPS = 4096  # srgb_table's intervals over linear [0, 1] (SpacePass's kernel back to sRGB)
KERNEL_CONSTANTS: dict[str, int] = {"DOWN_RUN": DOWN_RUN, "SRGB_TABLE_STEPS": SRGB_TABLE_STEPS}
BLUR_TILE_X = 64
BLUR_TILE_Y = (16, 16)
# Local memory every OpenCL device has (CL_DEVICE_LOCAL_MEM_SIZE's minimum): a blur pass
# whose tile needs more (a per-axis SVG blur's wide axis) runs the untiled blur_wide kernel.
OPENCL_MIN_LOCAL_BYTES = 32 * 1024

class PassKind(NamedEnum):
    """What an executor runs for a planned pass: each planned pass names its kind, and
    each executor has one handler per kind (gpu.gl_filters and gpu.opencl ``HANDLERS``;
    a test checks that both cover every kind). With the executor, a kind keys the cost
    model (filter_costs.PassCost); a ``str`` (``PassKind.BLUR == "blur"``, same hash and
    format) so the stored model and reports read as they always did."""

    COLOR = "color"
    BLUR = "blur"
    DOWNSAMPLE = "down"
    UPSAMPLE = "up"
    SHADOW = "shadow"
    MORPHOLOGY = "morphology"
    COMBINE = "combine"
    OFFSET = "offset"
    SVG_COLOR = "svg-color"
    TURBULENCE = "turbulence"
    LIGHTING = "lighting"
    DISPLACE = "displace"
    CONVOLVE = "convolve"
    REGION = "region"
    IMAGE = "image"
    SPACE = "space"


class ImageFormat(NamedEnum):
    """How a plan image is stored (``engine.textures.TextureDesc.format`` holds it): 8-bit
    premultiplied sRGB, as every image between passes is by default, or 32-bit float, for
    premultiplied linearRGB between a ``SpacePass`` to linear and one back (8-bit linear
    would band the darks: sRGB 1/255 is linear 0.0003, under half of linear's 1/255).
    Float, not half float: llvmpipe's blur passes fetched RGBA16F texels 1.3x slower than
    RGBA8 ones and RGBA32F ones 1.15x (1080p, 25 taps, medians of 5 under load), and
    PoCL's blur kernels read float4 as fast. A ``str`` (``ImageFormat.RGBA8 == "rgba8"``),
    as texture formats were."""

    RGBA8 = "rgba8"
    RGBA32F = "rgba32f"

    @property
    def texel_bytes(self) -> int:
        return 4 if self is ImageFormat.RGBA8 else 16


class Axis(NamedEnum):
    """The direction one pass of a separable filter (a blur, a morphology) runs along.
    A ``str`` (``Axis.X == "x"``, same hash and format) so pass descriptions and image
    names read as they always did."""

    X = "x"
    Y = "y"


    @property
    def unit(self) -> tuple[int, int]:
        """The axis as a texel step: (1, 0) or (0, 1)."""
        return (1, 0) if self is Axis.X else (0, 1)


class CostKind(Enum):
    """What a pass's cost grows with, for the cost model (``filter_costs.work_units``):
    its output pixels, or its output pixels times its taps (a kernel reading ``taps``
    texels per output pixel). A PIXEL_TAPS pass reads each input texel ``taps`` times,
    so ``filters.apply`` converts a straight source in a pass of its own before it
    rather than in the pass (``graph.filter_tasks``)."""

    PIXELS = "pixels"
    PIXEL_TAPS = "pixel taps"


class FilterShader(Enum):
    """The fragment shader of a filter program (shaders/filters/<value>.frag); gpu.programs
    compiles each in its four alpha forms with SHADER_CONSTANTS (a new spatial pass adds
    its member here)."""

    COLOR = "color"
    BLUR = "blur"
    DOWNSAMPLE = "downsample"
    UPSAMPLE = "upsample"
    SHADOW = "shadow"
    SHADOW_LINEAR = "shadow_linear"  # merged in linearRGB
    MORPHOLOGY = "morphology"
    MORPHOLOGY_LINEAR = "morphology_linear"  # linearRGB taps
    COMBINE = "combine"
    OFFSET = "offset"
    SVG_COLOR = "svg_color"
    TURBULENCE = "turbulence"
    LIGHTING = "lighting"
    DISPLACE = "displace"
    CONVOLVE = "convolve"
    CONVOLVE_CONVERTED = "convolve_converted"  # preserveAlpha / linearRGB taps
    CONVOLVE_SPREAD = "convolve_spread"  # taps between pixels (fractional kernelUnitLength)
    CONVOLVE_SPREAD_CONVERTED = "convolve_spread_converted"  # the same, taps converted
    REGION = "region"
    IMAGE = "image"
    TO_LINEAR = "to_linear"  # 8-bit premultiplied sRGB -> float premultiplied linearRGB
    TO_SRGB = "to_srgb"  # and back


# Fused colour passes compile for these step counts; other counts are padded with
# identity steps (color_step_bucket).
COLOR_STEP_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16)


def color_step_bucket(steps: int) -> int:
    """Fused colour passes compile for 0-4, 6, 8, 12 and 16 steps; other counts are
    padded with identity steps (exact: the values are already clamped). An animation
    whose amounts cross a no-op (an amount reaching 1, say) then mostly keeps its
    program, and padding costs at most a third more arithmetic."""
    return next(b for b in COLOR_STEP_BUCKETS if b >= steps)


# SVG colour passes compile for these step counts (padded with identity steps, exact as
# for colour passes), each with and without linearRGB and transfer functions
# (FilterProgram.svg_color: shaders/filters/svg_color_steps.glsl says why).
SVG_STEP_BUCKETS = (1, 2, 4, 8)


def svg_step_bucket(steps: int) -> int:
    """The SVG colour program's step count for ``steps`` fused steps."""
    return next(b for b in SVG_STEP_BUCKETS if b >= steps)


# The program-name suffix of each alpha form: (straight source, straight output).
_ALPHA_SUFFIX = {(False, False): "", (True, False): ".straight-in", (False, True): ".straight-out",
                 (True, True): ".straight-in-out"}


@dataclass(frozen=True)
class FilterProgram:
    """The key of a filter pass's GL program: its shader, the colour step bucket (colour
    passes only), and its alpha form: whether it premultiplies a straight source as it
    reads it and / or un-premultiplies what it writes (the first and last passes of a
    ``filters.apply`` of straight pixels: shaders/common/alpha.glsl). ``str()`` is the
    program's name in reports ("filter.color4.straight-in")."""

    shader: FilterShader
    steps: int = 0  # COLOR: a color_step_bucket; SVG_COLOR, TURBULENCE, TO_SRGB: an svg_step_bucket (0 too but SVG_COLOR)
    straight_source: bool = False
    straight_output: bool = False
    svg_linear: bool = False  # SVG_COLOR: compiled with the linearRGB conversions
    svg_transfer: bool = False  # SVG_COLOR: compiled with the transfer functions

    @classmethod
    def color(cls, steps: int) -> "FilterProgram":
        """The colour program that runs ``steps`` fused steps (padded to its bucket)."""
        return cls(FilterShader.COLOR, color_step_bucket(steps))

    @classmethod
    def svg_color(cls, shader: FilterShader, steps: tuple["SvgColorStep", ...]) -> "FilterProgram":
        """The program of ``shader`` (SVG_COLOR, or TURBULENCE / TO_SRGB with ``steps``
        fused after their work, none being a form of its own) for ``steps``: only the code they need is compiled in (llvmpipe pays for
        every branch). Values never pick the program, only structure: a kind of transfer
        function (identity or not) and a colour space, so animating values never compiles."""
        if shader in (FilterShader.TURBULENCE, FilterShader.TO_SRGB) and not steps:
            return cls(shader)
        return cls(shader, svg_step_bucket(len(steps)), svg_linear=any(st.linear for st in steps),
                   svg_transfer=any(f.kind is not TransferKind.IDENTITY for st in steps for f in st.transfers))

    def svg_defines(self) -> tuple[tuple[str, int], ...]:
        """The #defines of shaders/filters/svg_color_steps.glsl for this program."""
        return (("STEPS", self.steps), ("SVG_LINEAR", int(self.svg_linear)), ("SVG_TRANSFER", int(self.svg_transfer)))

    def with_alpha(self, straight_source: bool, straight_output: bool) -> "FilterProgram":
        return replace(self, straight_source=bool(straight_source), straight_output=bool(straight_output))

    def __str__(self) -> str:
        steps = str(self.steps) if self.shader is FilterShader.COLOR or self.steps else ""
        steps += ".linear" * self.svg_linear + ".transfer" * self.svg_transfer
        return f"filter.{self.shader.value}{steps}{_ALPHA_SUFFIX[self.straight_source, self.straight_output]}"


@dataclass(frozen=True)
class ProgramCall:
    """What a GL runner draws for a planned pass, as plain data: the base program key
    (the runner picks its alpha variant), uniform values by name, the sampler uniform of
    each input in order, and programs to compile alongside. Carried by the pass so the
    runner needs no per-kind code for it (issue 21: a new spatial filter adds no GL
    runner code)."""

    program: FilterProgram
    uniforms: tuple[tuple[str, float | int | tuple[float, ...]], ...] = ()
    samplers: tuple[str, ...] = ("u_source",)
    warm: tuple[FilterProgram, ...] = ()
    # Pictures the pass reads besides its inputs (feImage): (sampler, key, straight RGBA8
    # pixels), uploaded by the runner once per key and bound after the inputs.
    textures: tuple[tuple[str, str, np.ndarray], ...] = ()


class Arg(Enum):
    """What one argument of an OpenCL kernel call is. Images and sizes are known only when
    the pass runs (the runner fills them in); the rest are values the plan computed."""

    INPUT = "input"  # the buffer of input ``value`` (an index into the pass's inputs)
    INPUT_WIDTH = "input width"  # that input's width, as an int
    INPUT_HEIGHT = "input height"
    OUTPUT = "output"  # the buffer the pass writes
    WIDTH = "width"  # the output's width, as an int
    HEIGHT = "height"
    INT = "int"
    FLOAT = "float"
    FLOAT4 = "float4"
    FLOATS = "floats"  # a read-only float32 buffer of ``value`` (weights, matrices)
    LOCAL = "local"  # ``value`` bytes of local memory per work-group
    PIXELS = "pixels"  # a read-only uchar4 buffer of ``value``, KeyedPixels (feImage's picture), kept by its key


@dataclass(frozen=True)
class KeyedPixels:
    """Straight RGBA8 ``pixels`` (H, W, 4) that a runner keeps uploaded by ``key`` (equal
    keys, equal pixels): an feImage's picture (its href and content checksum)."""

    key: str
    pixels: np.ndarray = field(compare=False, repr=False)


@dataclass(frozen=True)
class KernelArg:
    """One argument of a kernel call, in the kernel's parameter order; ``name`` is the
    kernel's name for it (for reading and for errors)."""

    kind: Arg
    value: int | float | tuple[float, ...] | KeyedPixels = 0
    name: str = ""


def _images(*names: str) -> tuple[KernelArg, ...]:
    """The arguments that name images or sizes, by their kernel parameter names."""
    table = {"src": KernelArg(Arg.INPUT, 0, "src"), "blurred": KernelArg(Arg.INPUT, 1, "blurred"),
             "sw": KernelArg(Arg.INPUT_WIDTH, 0, "sw"), "sh": KernelArg(Arg.INPUT_HEIGHT, 0, "sh"),
             "dst": KernelArg(Arg.OUTPUT, 0, "dst"), "w": KernelArg(Arg.WIDTH, 0, "w"), "h": KernelArg(Arg.HEIGHT, 0, "h")}
    return tuple(table[n] for n in names)


@dataclass(frozen=True)
class KernelCall:
    """What an OpenCL runner enqueues for a planned pass, as plain data: the kernel's
    name in shaders/opencl/filters.cl (without its ``filter_`` prefix), its arguments in
    order, and its launch geometry: work-groups of ``group`` items, each item writing
    ``per_item`` output pixels, over the output grown by ``extra`` pixels (so the grid
    along x is ceil((width + extra x) / per_item x), rounded up to whole groups). Carried
    by every planned pass so the runner needs no per-kind code (issue 21: a new spatial
    filter adds no OpenCL runner code)."""

    kernel: str
    args: tuple[KernelArg, ...]
    group: tuple[int, int] = (16, 16)
    per_item: tuple[int, int] = (1, 1)
    extra: tuple[int, int] = (0, 0)

    def grid(self, width: int, height: int) -> tuple[int, int]:
        """The global work size for an output of width x height."""
        out = []
        for size, group, per, extra in zip((width, height), self.group, self.per_item, self.extra):
            items = -(-(size + extra) // per)
            out.append(-(-items // group) * group)
        return (out[0], out[1])

    @property
    def local_bytes(self) -> int:
        """Local memory a work-group of this call uses."""
        return sum(int(a.value) for a in self.args if a.kind is Arg.LOCAL)


def blur_norm(sigma: float, radius: int) -> float:
    """1 / the sum of the 2 radius + 1 Gaussian weights of a blur pass (both executors
    normalise by it: GLSL as a uniform, OpenCL folded into its weights)."""
    i = np.arange(1, radius + 1, dtype=np.float64)
    return float(1.0 / (1.0 + 2.0 * np.exp(-(i * i) / (2.0 * sigma * sigma)).sum()))


@dataclass(frozen=True)
class ColorStep:
    """One clamped step of a fused colour pass: an affine map of straight RGB, 3x4 (rows
    R, G, B; columns R, G, B, 1), then the clamp to [0, 1]. ``ops`` are the CSS ops it
    applies: several only when the clamps between them provably do nothing."""

    ops: tuple[str, ...]
    matrix: tuple[tuple[float, ...], ...]

    @property
    def css(self) -> str:
        return " + ".join(self.ops)


@dataclass(frozen=True)
class ColorPass:
    """Consecutive colour ops in one pass. ``alpha`` is the product of their opacity
    amounts: no colour op reads alpha and opacity touches nothing else, so it commutes."""

    inputs: tuple[str, ...]
    output: str
    steps: tuple[ColorStep, ...]
    alpha: float = 1.0
    ops: tuple[str, ...] = ()
    scale: int = 1
    kind: ClassVar[str] = "color"  # the pass type's name in frame-graph pass names
    pass_kind: ClassVar[PassKind] = PassKind.COLOR
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["ColorPass", ...]:
        """Passes the cost model is measured with (gpu.calibrate keys each by its kind
        and step count): one clamped step, and eight (what each further step adds)."""
        step = ColorStep(("sepia(0.5)",), ((0.5, 0.3, 0.1, 0.0), (0.2, 0.6, 0.1, 0.0), (0.1, 0.2, 0.5, 0.0)))
        return (cls(("source",), "out", (step,), 0.9, ("sample",)), cls(("source",), "out", (step,) * 8, 0.9, ("sample",)))

    def matrices(self) -> np.ndarray:
        """The steps' 3x4 matrices, (n, 3, 4) float32: what both executors upload."""
        return np.array([s.matrix for s in self.steps], dtype=np.float32).reshape(-1, 3, 4)

    def cl(self) -> KernelCall:
        steps = self.matrices().reshape(-1) if self.steps else np.zeros(SHADER_CONSTANTS["COLOR_STEP_FLOATS"], np.float32)
        return KernelCall("color", (*_images("src", "dst", "w", "h"),
                                    KernelArg(Arg.FLOATS, tuple(float(v) for v in steps), "steps"),
                                    KernelArg(Arg.INT, len(self.steps), "n_steps"),
                                    KernelArg(Arg.FLOAT, self.alpha, "alpha_scale")))

    label = "colour"  # its short name: what describe() starts with, a DOT graph's node label

    def describe(self) -> str:
        chain = " -> ".join(self.ops)
        n = len(self.steps)
        how = f"{n} clamped step{'' if n == 1 else 's'}"
        if n != len(self.ops):
            how += " (clamps that cannot act merged)"
        if self.alpha != 1.0:
            how += f", alpha x {self.alpha:.4g}"
        return f"{self.label}  {chain}  [{how}]"


@dataclass(frozen=True)
class ResamplePass:
    """``down``: 2x2 box average to half size; ``up``: bilinear back to full size."""

    inputs: tuple[str, ...]
    output: str
    direction: PassKind  # DOWNSAMPLE | UPSAMPLE ("down" | "up" are read as them)
    scale: int  # output resolution divisor
    source_scale: int  # input resolution divisor
    held: ImageFormat = ImageFormat.RGBA8  # the format of its input and output (the maths is the same)
    kind: ClassVar[str] = "resample"  # the pass type's name in frame-graph pass names
    cost: ClassVar[CostKind] = CostKind.PIXELS

    def __post_init__(self) -> None:
        if self.direction is not PassKind.DOWNSAMPLE and self.direction is not PassKind.UPSAMPLE:
            direction = PassKind(self.direction)  # "down" / "up" are read as the kinds
            if direction not in (PassKind.DOWNSAMPLE, PassKind.UPSAMPLE):
                raise ValueError(f"a resample pass goes down or up, not {direction.value!r}")
            object.__setattr__(self, "direction", direction)

    @classmethod
    def samples(cls) -> tuple["ResamplePass", ...]:
        return (cls(("source",), "out", PassKind.DOWNSAMPLE, 2, 1), cls(("source",), "out", PassKind.UPSAMPLE, 1, 4))

    @property
    def pass_kind(self) -> PassKind:
        return self.direction

    @property
    def input_offset(self) -> int:
        """Downsample: output texel t reads input texels from 2 t + this offset. Output
        texel t starts at full-size x = (t - 1) * scale (a margin of MARGIN); the input's
        texel u at (u - margin) * source_scale, where only reduced inputs have a margin."""
        return -2 * MARGIN + (MARGIN if self.source_scale > 1 else 0)

    def gl(self) -> ProgramCall:
        if self.direction is PassKind.DOWNSAMPLE:
            return ProgramCall(FilterProgram(FilterShader.DOWNSAMPLE), (("u_offset", (self.input_offset, self.input_offset)),))
        return ProgramCall(FilterProgram(FilterShader.UPSAMPLE), (("u_scale", float(self.source_scale)),))

    def cl(self) -> KernelCall:
        if self.direction is PassKind.DOWNSAMPLE:
            return KernelCall("downsample", (*_images("src", "sw", "sh", "dst", "w", "h"),
                                             KernelArg(Arg.INT, self.input_offset, "offset")),
                              group=(8, 8), per_item=(DOWN_RUN, 1))
        # One item per low-resolution cell and full-size row: cells ceil((w + s // 2) / s).
        s = self.source_scale
        return KernelCall("upsample", (*_images("src", "sw", "sh", "dst", "w", "h"), KernelArg(Arg.INT, s, "scale")),
                          group=(16, 4), per_item=(s, 1), extra=(s // 2, 0))

    @property
    def label(self) -> str:
        return self.direction.value

    def describe(self) -> str:
        if self.direction is PassKind.DOWNSAMPLE:
            return f"{self.label:<6}  halve to 1/{self.scale} (2x2 box average)"
        return f"{self.label:<6}  bilinear back to full size"


@dataclass(frozen=True)
class BlurPass:
    """One direction of a separable Gaussian at resolution 1/scale."""

    inputs: tuple[str, ...]
    output: str
    axis: Axis
    sigma: float  # in this level's pixels
    radius: int  # taps on each side: ceil(3 sigma)
    scale: int = 1
    held: ImageFormat = ImageFormat.RGBA8  # the format of its input and output (the maths is the same)
    kind: ClassVar[str] = "blur"  # the pass type's name in frame-graph pass names
    pass_kind: ClassVar[PassKind] = PassKind.BLUR
    cost: ClassVar[CostKind] = CostKind.PIXEL_TAPS

    def __post_init__(self) -> None:
        if type(self.axis) is not Axis:
            object.__setattr__(self, "axis", Axis(self.axis))  # "x" / "y" are read as the axes

    @classmethod
    def samples(cls) -> tuple["BlurPass", ...]:
        return (cls(("source",), "out", Axis.X, 2.0, 6),)

    @property
    def taps(self) -> int:
        return 2 * self.radius + 1

    @property
    def norm(self) -> float:
        return blur_norm(self.sigma, self.radius)

    def weights(self) -> np.ndarray:
        """The 2 radius + 1 normalised tap weights, from -radius to radius."""
        i = np.arange(-self.radius, self.radius + 1, dtype=np.float64)
        return np.exp(-(i * i) / (2.0 * self.sigma * self.sigma)) * self.norm

    def gl(self) -> ProgramCall:
        uniforms = (("u_axis", self.axis.unit), ("u_radius", self.radius), ("u_sigma", self.sigma), ("u_norm", self.norm))
        # A blur animated past sigma 4 starts halving: compile those programs with the
        # blur so the animation does not hitch on a compile half way.
        return ProgramCall(FilterProgram(FilterShader.BLUR), uniforms,
                           warm=(FilterProgram(FilterShader.DOWNSAMPLE), FilterProgram(FilterShader.UPSAMPLE)))

    def cl(self) -> KernelCall:
        weights = KernelArg(Arg.FLOATS, tuple(float(v) for v in self.weights().astype(np.float32)), "weights")
        args = (*_images("src", "dst", "w", "h"), KernelArg(Arg.INT, self.radius, "r"), weights)
        lx, ly = BLUR_TILE_Y
        tile = (KernelArg(Arg.LOCAL, 16 * (BLUR_TILE_X + 2 * self.radius), "tile") if self.axis is Axis.X else
                KernelArg(Arg.LOCAL, 16 * lx * (ly + 2 * self.radius), "tile"))
        if tile.value > OPENCL_MIN_LOCAL_BYTES:  # a per-axis blur's wide axis (radius up to 300): no tile
            ax, ay = self.axis.unit
            return KernelCall("blur_wide", (*args, KernelArg(Arg.INT, ax, "ax"), KernelArg(Arg.INT, ay, "ay")))
        if self.axis is Axis.X:
            return KernelCall("blur_x", (*args, tile), group=(BLUR_TILE_X, 1))
        return KernelCall("blur_y", (*args, tile), group=(lx, ly))

    @property
    def label(self) -> str:
        return f"blur-{self.axis}"

    def describe(self) -> str:
        where = "full size" if self.scale == 1 else f"1/{self.scale} size"
        return f"{self.label}  sigma {self.sigma:.3g}px at {where}, {2 * self.radius + 1} taps"


@dataclass(frozen=True)
class ShadowPass:
    """Source over (flood colour x offset blurred alpha). With ``linear`` (SVG feDropShadow
    in linearRGB) ``color`` is linear premultiplied and the source is converted to linear
    light for the merge, the result written back as sRGB: the shadow's colour is never an
    8-bit image (at low alpha that loses its hue: 3 levels off after the merge, measured)."""

    inputs: tuple[str, ...]  # (source, blurred)
    output: str
    offset: tuple[float, float]
    color: tuple[float, float, float, float]  # premultiplied
    scale: int = 1
    linear: bool = False
    kind: ClassVar[str] = "shadow"  # the pass type's name in frame-graph pass names
    pass_kind: ClassVar[PassKind] = PassKind.SHADOW
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["ShadowPass", ...]:
        return (cls(("source", "source"), "out", (3.0, 2.0), (0.0, 0.0, 0.0, 0.5)),
                cls(("source", "source"), "out", (1.5, -2.0), (0.1, 0.2, 0.0, 0.5), linear=True))

    def gl(self) -> ProgramCall:
        shader = FilterShader.SHADOW_LINEAR if self.linear else FilterShader.SHADOW
        return ProgramCall(FilterProgram(shader), (("u_offset", self.offset), ("u_color", self.color)), ("u_source", "u_blurred"))

    def cl(self) -> KernelCall:
        return KernelCall("shadow", (*_images("src", "blurred", "dst", "w", "h"),
                                     KernelArg(Arg.FLOAT, self.offset[0], "dx"), KernelArg(Arg.FLOAT, self.offset[1], "dy"),
                                     KernelArg(Arg.FLOAT4, tuple(self.color), "color"),
                                     KernelArg(Arg.INT, int(self.linear), "linear_rgb")))

    label = "shadow"

    def describe(self) -> str:
        r, g, b, a = self.color
        rgb = " ".join(str(round(255 * c / a)) if a else "0" for c in (r, g, b))
        return (
            f"{self.label}  alpha of {self.inputs[1]} offset ({self.offset[0]:g}, {self.offset[1]:g}) "
            f"in rgb({rgb} / {a:.3g}), under {self.inputs[0]}"
        )


class LinearHold(Enum):
    """How a linearRGB morphology pass holds the image between its two passes: an 8-bit
    premultiplied sRGB image there re-encodes a min / max whose channels come from pixels
    of different alpha at the output's alpha, which magnified the rounding (an erode then
    a dilate 3-7 levels off); premultiplied linear through the sRGB curve is within half a
    level at any alpha (and keeps the darks, which 8-bit linear would band)."""

    NONE = 0  # reads and writes premultiplied sRGB
    WRITES = 1  # writes the held image (the first of two passes)
    READS = 2  # reads it (the second)


@dataclass(frozen=True)
class MorphologyPass:
    """One direction of feMorphology: the minimum (erode) or maximum (dilate) of each
    premultiplied channel over 2 radius + 1 pixels along ``axis``; transparent black
    outside the image, so an erode whose window leaves it gives transparent black. With
    ``linear`` (linearRGB) each tap is read as linear premultiplied and the result
    written back as sRGB premultiplied, or between two passes as ``hold`` says."""

    inputs: tuple[str, ...]
    output: str
    axis: Axis
    radius: int  # pixels on each side
    operator: MorphologyOperator
    scale: int = 1
    linear: bool = False
    hold: LinearHold = LinearHold.NONE  # linear only
    kind: ClassVar[str] = "morphology"  # the pass type's name in frame-graph pass names
    pass_kind: ClassVar[PassKind] = PassKind.MORPHOLOGY
    cost: ClassVar[CostKind] = CostKind.PIXEL_TAPS

    def __post_init__(self) -> None:
        if type(self.axis) is not Axis:
            object.__setattr__(self, "axis", Axis(self.axis))  # "x" / "y" are read as the axes

    @classmethod
    def samples(cls) -> tuple["MorphologyPass", ...]:
        return (cls(("source",), "out", Axis.X, 3, MorphologyOperator.DILATE),
                cls(("source",), "out", Axis.Y, 2, MorphologyOperator.ERODE, linear=True),
                cls(("source",), "out", Axis.X, 1, MorphologyOperator.DILATE, linear=True, hold=LinearHold.WRITES))

    @property
    def taps(self) -> int:
        return 2 * self.radius + 1

    @property
    def dilate(self) -> int:
        return int(self.operator is MorphologyOperator.DILATE)

    def gl(self) -> ProgramCall:
        uniforms = (("u_axis", self.axis.unit), ("u_radius", self.radius), ("u_dilate", self.dilate))
        if self.linear:
            return ProgramCall(FilterProgram(FilterShader.MORPHOLOGY_LINEAR), (*uniforms, ("u_hold", self.hold.value)))
        return ProgramCall(FilterProgram(FilterShader.MORPHOLOGY), uniforms)

    def cl(self) -> KernelCall:
        ax, ay = self.axis.unit
        return KernelCall("morphology", (*_images("src", "dst", "w", "h"), KernelArg(Arg.INT, ax, "ax"),
                                         KernelArg(Arg.INT, ay, "ay"), KernelArg(Arg.INT, self.radius, "r"),
                                         KernelArg(Arg.INT, self.dilate, "dilate"),
                                         KernelArg(Arg.INT, int(self.linear), "linear_rgb"),
                                         KernelArg(Arg.INT, self.hold.value, "hold")))

    @property
    def label(self) -> str:
        return f"{self.operator.value}-{self.axis}"

    def describe(self) -> str:
        how = "max" if self.dilate else "min"
        space = " in linearRGB" if self.linear else ""
        return f"{self.label}  radius {self.radius}px, {how} of {self.taps} taps{space}"


class CombineOperator(Enum):
    """How a combine pass joins its two premultiplied inputs A (``in``) and B (``in2``):
    feComposite's operators (Filter Effects 1), ``over`` also being feMerge's and feBlend
    normal's; ARITHMETIC is k1 A B + k2 A + k3 B + k4, clamped, colour to alpha (feFlood
    is ARITHMETIC with only k4); BLEND is feBlend's other modes, A blended over B
    (shaders/common/blend_modes.h). The value is the shaders' number for it."""

    OVER = 0
    IN = 1
    OUT = 2
    ATOP = 3
    XOR = 4
    LIGHTER = 5
    ARITHMETIC = 6
    BLEND = 7


@dataclass(frozen=True)
class CombinePass:
    """Two images of an SVG filter graph joined per pixel (``CombineOperator``)."""

    inputs: tuple[str, ...]  # (A, B)
    output: str
    operator: CombineOperator
    k: tuple[float, float, float] = (0.0, 0.0, 0.0)  # k1, k2, k3 (ARITHMETIC)
    k4: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # per channel (ARITHMETIC)
    source: str = ""  # the primitive it runs, for describe()
    scale: int = 1
    linear: bool = False  # joined in linearRGB: inputs converted from, the result to, sRGB in the pass
    blend_mode: BlendMode = BlendMode.NORMAL  # BLEND: the mode (its index is the shaders' number)
    kind: ClassVar[str] = "combine"  # the pass type's name in frame-graph pass names
    pass_kind: ClassVar[PassKind] = PassKind.COMBINE
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["CombinePass", ...]:
        return (cls(("source", "source"), "out", CombineOperator.ARITHMETIC, (0.5, 0.5, 0.5), (0.1,) * 4),)

    def gl(self) -> ProgramCall:
        return ProgramCall(FilterProgram(FilterShader.COMBINE),
                           (("u_operator", self.operator.value), ("u_k", self.k), ("u_k4", self.k4),
                            ("u_linear", int(self.linear)), ("u_blend_mode", self.blend_mode.index)),
                           ("u_source", "u_second"))

    def cl(self) -> KernelCall:
        return KernelCall("combine", (KernelArg(Arg.INPUT, 0, "src"), KernelArg(Arg.INPUT, 1, "second"),
                                      *_images("dst", "w", "h"), KernelArg(Arg.INT, self.operator.value, "op"),
                                      *(KernelArg(Arg.FLOAT, v, f"k{i}") for i, v in enumerate(self.k, 1)),
                                      KernelArg(Arg.FLOAT4, tuple(self.k4), "k4"),
                                      KernelArg(Arg.INT, int(self.linear), "linear_rgb"),
                                      KernelArg(Arg.INT, self.blend_mode.index, "blend_mode")))

    label = "combine"

    def describe(self) -> str:
        how = self.operator.name.lower()
        if self.operator is CombineOperator.BLEND:
            how += f" {self.blend_mode.value}"
        if self.operator is CombineOperator.ARITHMETIC:
            how += " k " + " ".join(f"{v:.4g}" for v in self.k) + " k4 (" + " ".join(f"{v:.4g}" for v in self.k4) + ")"
        space = " in linearRGB" if self.linear else ""
        return f"{self.label}  {self.source + ': ' if self.source else ''}{self.inputs[0]} {how} {self.inputs[1]}{space}"


@dataclass(frozen=True)
class OffsetPass:
    """An image moved by ``offset`` px (bilinear where fractional), transparent black
    coming in: feOffset."""

    inputs: tuple[str, ...]
    output: str
    offset: tuple[float, float]
    scale: int = 1
    kind: ClassVar[str] = "offset"  # the pass type's name in frame-graph pass names
    pass_kind: ClassVar[PassKind] = PassKind.OFFSET
    cost: ClassVar[CostKind] = CostKind.PIXEL_TAPS  # four bilinear taps: a straight source is converted first
    taps: ClassVar[int] = 4

    @classmethod
    def samples(cls) -> tuple["OffsetPass", ...]:
        return (cls(("source",), "out", (2.5, -1.5)),)

    def gl(self) -> ProgramCall:
        return ProgramCall(FilterProgram(FilterShader.OFFSET), (("u_offset", self.offset),))

    def cl(self) -> KernelCall:
        return KernelCall("offset", (*_images("src", "dst", "w", "h"), KernelArg(Arg.FLOAT, self.offset[0], "dx"),
                                     KernelArg(Arg.FLOAT, self.offset[1], "dy")))

    label = "offset"

    def describe(self) -> str:
        return f"{self.label}  by ({self.offset[0]:g}, {self.offset[1]:g}) px"


class TransferKind(Enum):
    """An feFunc's type as the svg_color pass numbers it (shaders/common/svg_color.h)."""

    IDENTITY = 0
    TABLE = 1
    DISCRETE = 2
    LINEAR = 3
    GAMMA = 4


@dataclass(frozen=True)
class ChannelTransfer:
    """One channel's transfer function: its kind, its parameters (slope and intercept for
    LINEAR; amplitude, exponent and offset for GAMMA) and its table values."""

    kind: TransferKind = TransferKind.IDENTITY
    params: tuple[float, float, float] = (0.0, 0.0, 0.0)
    table: tuple[float, ...] = ()


_IDENTITY_4X5 = tuple(float(v) for v in np.eye(4, 5).reshape(-1))


@dataclass(frozen=True)
class SvgColorStep:
    """One SVG colour primitive: a 4x5 matrix of straight RGBA (which may read and write
    alpha: feColorMatrix of any type) then a transfer function per channel
    (feComponentTransfer), each clamped to [0, 1], in linearRGB when ``linear``."""

    matrix: tuple[float, ...] = _IDENTITY_4X5  # 4x5 row by row
    transfers: tuple[ChannelTransfer, ...] = (ChannelTransfer(),) * 4  # R, G, B, A
    linear: bool = False
    source: str = ""  # the primitive, for describe()

    def describe(self) -> str:
        what = []
        if self.matrix != _IDENTITY_4X5:
            what.append("4x5 matrix")
        kinds = [f.kind.name.lower() for f in self.transfers]
        if any(k != "identity" for k in kinds):
            what.append("transfer " + "/".join(kinds))
        space = "linearRGB" if self.linear else "sRGB"
        return f"{self.source + ' ' if self.source else ''}{' then '.join(what) or 'identity'} in {space}"


def svg_step_tables(steps: tuple[SvgColorStep, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(SVG_TABLE_SIZE * 4,) float32 of every table value of ``steps``, and (steps, 4)
    int32: where each step's channel starts in it (both executors upload these)."""
    flat = np.zeros(4 * SHADER_CONSTANTS["SVG_TABLE_SIZE"], np.float32)
    first = np.zeros((len(steps), 4), np.int32)
    at = 0
    for i, step in enumerate(steps):
        for c, t in enumerate(step.transfers):
            first[i, c] = at
            flat[at:at + len(t.table)] = t.table
            at += len(t.table)
    return flat, first


def svg_step_uniforms(steps: tuple[SvgColorStep, ...], program: FilterProgram) -> tuple[tuple[str, object], ...]:
    """The uniforms of shaders/filters/svg_color_steps.glsl for ``steps`` in ``program``
    (FilterProgram.svg_color): arrays of its step count, padded with identity steps (the
    values are clamped already: exact), and only those its form compiles in."""
    if not program.steps:
        return ()
    padded = [*steps, *[SvgColorStep()] * (program.steps - len(steps))]  # uniform arrays are written whole
    mats = np.array([st.matrix for st in padded], np.float64).reshape(-1, 4, 5)
    out: list[tuple[str, object]] = [
        ("u_matrix", [tuple(m) for m in mats[:, :, :4].transpose(0, 2, 1).reshape(-1, 16).tolist()]),  # column-major
        ("u_bias", [tuple(b) for b in mats[:, :, 4].tolist()])]
    if program.svg_linear:
        out.append(("u_step_linear", [int(st.linear) for st in padded]))
    if program.svg_transfer:
        flat, first = svg_step_tables(steps)
        firsts = [*map(tuple, first.tolist()), *[(0, 0, 0, 0)] * (len(padded) - len(steps))]
        out += [("u_types", [tuple(f.kind.value for f in st.transfers) for st in padded]),
                ("u_first", firsts),
                ("u_counts", [tuple(len(f.table) for f in st.transfers) for st in padded]),
                *((f"u_p{i}", [tuple(float(f.params[i]) for f in st.transfers) for st in padded]) for i in range(3)),
                ("u_table", [tuple(row) for row in flat.reshape(-1, 4).tolist()])]
    if program.steps == 1:  # an array of one is set as its element (moderngl)
        out = [(name, value[0] if name != "u_table" else value) for name, value in out]
    return tuple(out)


def svg_step_args(steps: tuple[SvgColorStep, ...]) -> tuple[KernelArg, ...]:
    """The kernel arguments (steps, n_steps, table) of ``steps`` (shaders/opencl/filters.cl
    svg_color_steps: SVG_STEP_FLOATS a step)."""
    flat, first = svg_step_tables(steps)
    head = [0.0]  # an empty buffer cannot be made: one unused float when there are no steps
    if steps:
        head = []
    for i, st in enumerate(steps):
        head.extend(float(v) for v in st.matrix)
        for c, f in enumerate(st.transfers):
            head.extend((f.kind.value, int(first[i, c]), len(f.table), *f.params))
        head.append(float(st.linear))
    return (KernelArg(Arg.FLOATS, tuple(head), "steps"), KernelArg(Arg.INT, len(steps), "n_steps"),
            KernelArg(Arg.FLOATS, tuple(float(v) for v in flat), "table"))


@dataclass(frozen=True)
class SvgColorPass:
    """Consecutive SVG colour primitives (``SvgColorStep``) in one pass, on straight colour
    kept in float between them, so the spaces they compute in convert exactly: each
    linearRGB step converts the colour it reads from sRGB and its result back (what
    Filter Effects 1 does between primitives), and the images around the pass stay
    premultiplied 8-bit sRGB. At most SVG_COLOR_STEPS steps and SVG_TABLE_SIZE x 4 table
    values in all."""

    inputs: tuple[str, ...]
    output: str
    steps: tuple[SvgColorStep, ...]
    scale: int = 1
    kind: ClassVar[str] = "svg-color"
    pass_kind: ClassVar[PassKind] = PassKind.SVG_COLOR
    cost: ClassVar[CostKind] = CostKind.PIXELS

    def __post_init__(self) -> None:
        values = sum(len(t.table) for step in self.steps for t in step.transfers)
        if not 0 < len(self.steps) <= SHADER_CONSTANTS["SVG_COLOR_STEPS"] or values > 4 * SHADER_CONSTANTS["SVG_TABLE_SIZE"] \
                or any(len(st.matrix) != 20 or len(st.transfers) != 4 for st in self.steps):
            raise InvalidValueError(f"an svg-color pass takes 1 to {SHADER_CONSTANTS['SVG_COLOR_STEPS']} steps of a 4x5 "
                                    f"matrix and 4 transfer functions, {4 * SHADER_CONSTANTS['SVG_TABLE_SIZE']} table "
                                    f"values in all (got {len(self.steps)} steps, {values} values)", property="filter")

    @classmethod
    def fits(cls, steps: tuple[SvgColorStep, ...]) -> bool:
        """Can one pass run ``steps``?"""
        values = sum(len(t.table) for step in steps for t in step.transfers)
        return len(steps) <= SHADER_CONSTANTS["SVG_COLOR_STEPS"] and values <= 4 * SHADER_CONSTANTS["SVG_TABLE_SIZE"]

    @classmethod
    def samples(cls) -> tuple["SvgColorPass", ...]:
        step = SvgColorStep(transfers=(ChannelTransfer(TransferKind.TABLE, table=(0.0, 0.6, 1.0)),
                                       ChannelTransfer(TransferKind.GAMMA, (1.0, 0.5, 0.0)), ChannelTransfer(),
                                       ChannelTransfer()), linear=True)
        return (cls(("source",), "out", (step,)),)

    def gl(self) -> ProgramCall:
        program = FilterProgram.svg_color(FilterShader.SVG_COLOR, self.steps)
        return ProgramCall(program, svg_step_uniforms(self.steps, program))

    def cl(self) -> KernelCall:
        return KernelCall("svg_color", (*_images("src", "dst", "w", "h"), *svg_step_args(self.steps)))

    label = "svg colour"

    def describe(self) -> str:
        return f"{self.label}  {' -> '.join(st.describe() for st in self.steps)}"


@dataclass(frozen=True)
class TurbulencePass:
    """feTurbulence (Filter Effects 1's Perlin noise): the lattice ``selector`` (256 ints)
    and ``gradients`` (4 channels x 256 x 2) computed on the host by the spec's code
    (filters/svg/turbulence.py) and uploaded; each pixel sums ``octaves`` octaves. Pixel
    (i, j) samples user-space point ((i + .5) / ``pixel_scale``, (j + .5) / ...);
    ``base`` is the base frequency after stitching adjusted it; ``stitch`` (width, height,
    wrap x, wrap y) of the first octave, or None. In linearRGB the noise is linear colour
    and the pass writes it as sRGB. It reads no image (``inputs`` name the source only
    so that it has a size)."""

    inputs: tuple[str, ...]
    output: str
    selector: tuple[int, ...]
    gradients: tuple[float, ...]  # channel, entry, (x, y)
    base: tuple[float, float]
    octaves: int
    fractal: bool
    stitch: tuple[int, int, int, int] | None = None
    pixel_scale: float = 1.0
    linear: bool = False
    steps: tuple[SvgColorStep, ...] = ()  # colour primitives that alone read the noise, fused after it
    source: str = "feTurbulence"
    origin: tuple[float, float] = (0.0, 0.0)  # the element's pixel of image pixel (0, 0) (a filter region's corner)
    scale: int = 1
    kind: ClassVar[str] = "turbulence"
    pass_kind: ClassVar[PassKind] = PassKind.TURBULENCE
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["TurbulencePass", ...]:
        rng = np.random.default_rng(0)
        return (cls(("source",), "out", tuple(int(v) for v in rng.permutation(256)),
                    tuple(float(v) for v in rng.uniform(-1, 1, 2048)), (0.05, 0.05), 4, True),)

    def gl(self) -> ProgramCall:
        sel = np.array(self.selector, np.int32).reshape(-1, 4)
        grad = np.array(self.gradients, np.float32).reshape(-1, 4)
        stitch = self.stitch or (0, 0, 0, 0)
        program = FilterProgram.svg_color(FilterShader.TURBULENCE, self.steps)
        return ProgramCall(program, (
            ("u_selector", [tuple(int(v) for v in row) for row in sel]),
            ("u_gradient", [tuple(float(v) for v in row) for row in grad]),
            ("u_base", self.base), ("u_octaves", self.octaves), ("u_fractal", int(self.fractal)),
            ("u_stitching", int(self.stitch is not None)), ("u_stitch", stitch),
            ("u_pixel_scale", self.pixel_scale), ("u_linear", int(self.linear)), ("u_origin", self.origin),
            *svg_step_uniforms(self.steps, program)))

    def cl(self) -> KernelCall:
        stitch = self.stitch or (0, 0, 0, 0)
        return KernelCall("turbulence", (*_images("dst", "w", "h"),
                                         KernelArg(Arg.FLOATS, tuple(float(v) for v in self.selector), "selector"),
                                         KernelArg(Arg.FLOATS, self.gradients, "gradient"),
                                         KernelArg(Arg.FLOAT, self.base[0], "base_x"),
                                         KernelArg(Arg.FLOAT, self.base[1], "base_y"),
                                         KernelArg(Arg.INT, self.octaves, "octaves"),
                                         KernelArg(Arg.INT, int(self.fractal), "fractal"),
                                         KernelArg(Arg.INT, int(self.stitch is not None), "stitching"),
                                         *(KernelArg(Arg.INT, v, n) for v, n in zip(stitch, ("sw", "sh", "wx", "wy"))),
                                         KernelArg(Arg.FLOAT, self.pixel_scale, "pixel_scale"),
                                         KernelArg(Arg.INT, int(self.linear), "linear_rgb"),
                                         KernelArg(Arg.FLOAT, self.origin[0], "origin_x"),
                                         KernelArg(Arg.FLOAT, self.origin[1], "origin_y"),
                                         *svg_step_args(self.steps)))

    label = "turbulence"

    def describe(self) -> str:
        kind = "fractalNoise" if self.fractal else "turbulence"
        stitch = ", stitched" if self.stitch else ""
        space = "linearRGB" if self.linear else "sRGB"
        then = "".join(f" -> {st.describe()}" for st in self.steps)
        return (f"{self.label}  {kind} base frequency ({self.base[0]:g}, {self.base[1]:g}), {self.octaves} "
                f"octave(s){stitch}, in {space}{then}")


def _edge_rect(rect: tuple[int, int, int, int] | None) -> tuple[int, int, int, int]:
    """An input's pixels (x0, y0, x1, y1) whose edges a pass's kernel starts at, or all of
    any image for None (the passes clip it to theirs)."""
    return rect if rect is not None else (0, 0, 1 << 30, 1 << 30)


class LightKind(Enum):
    """An SVG light source as the lighting pass runs it (its value is the shaders' ``kind``)."""

    DISTANT = 0
    POINT = 1
    SPOT = 2


@dataclass(frozen=True)
class LightingPass:
    """feDiffuseLighting / feSpecularLighting (Filter Effects 1's normal and light
    equations; shaders/common/lighting.h, shared by the GLSL pass and the OpenCL kernel):
    the surface is ``surface_scale`` times the input's alpha, its normal the spec's Sobel
    kernels, reduced at the edges and corners of ``rect``: the input's pixels (x0, y0, x1,
    y1), its subregion (None: the whole image); a pixel outside it has a flat normal.
    ``light`` is the unit vector to a
    DISTANT light, or the POINT / SPOT light's position in this image's pixels (x, y from
    its top-left corner, z scaled alike); ``spot`` the unit direction a SPOT light points
    along; ``cone_cos`` the cosine of its limiting cone (-2: none). ``constant`` is kd or
    ks, ``exponent`` the specular exponent (1 for diffuse), ``color`` the lighting colour
    in the primitive's space; in linearRGB the pass writes its linear result as sRGB.
    ``unit`` is the normal's kernel step in pixels (kernelUnitLength; neighbours read
    bilinearly when it is not 1)."""

    inputs: tuple[str, ...]
    output: str
    specular: bool
    light_kind: LightKind
    light: tuple[float, float, float]
    surface_scale: float
    constant: float
    color: tuple[float, float, float]
    exponent: float = 1.0
    spot: tuple[float, float, float] = (0.0, 0.0, -1.0)
    spot_exponent: float = 1.0
    cone_cos: float = -2.0
    linear: bool = False
    unit: tuple[float, float] = (1.0, 1.0)
    source: str = "feDiffuseLighting"
    rect: tuple[int, int, int, int] | None = None  # the input's pixels (x0, y0, x1, y1) the edge kernels start at
    scale: int = 1
    # The input's format: a blur held in floats (RGBA32F) where the normal would amplify an
    # 8-bit image's rounding (filters.svg.compile); only its alpha is read, the same in
    # either colour space.
    reads: ImageFormat = ImageFormat.RGBA8
    kind: ClassVar[str] = "lighting"
    pass_kind: ClassVar[PassKind] = PassKind.LIGHTING
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["LightingPass", ...]:
        return (cls(("source",), "out", True, LightKind.SPOT, (40.0, 30.0, 60.0), 3.0, 1.2, (1.0, .9, .8), 12.0,
                    (0.0, 0.6, -0.8), 2.0, 0.5),)

    def values(self) -> tuple[float, ...]:
        """The pass's numbers in the order both executors read them (OpenCL ``light``)."""
        return (*self.light, *self.spot, self.spot_exponent, self.cone_cos, self.surface_scale, self.constant,
                self.exponent, *self.color, *self.unit)

    def gl(self) -> ProgramCall:
        return ProgramCall(FilterProgram(FilterShader.LIGHTING), (
            ("u_kind", self.light_kind.value), ("u_specular", int(self.specular)), ("u_linear", int(self.linear)),
            ("u_light", self.light), ("u_spot", self.spot), ("u_spot_exponent", self.spot_exponent),
            ("u_cone_cos", self.cone_cos), ("u_surface_scale", self.surface_scale), ("u_constant", self.constant),
            ("u_exponent", self.exponent), ("u_color", self.color), ("u_unit", self.unit),
            ("u_rect", _edge_rect(self.rect))))

    def cl(self) -> KernelCall:
        return KernelCall("lighting", (*_images("src", "dst", "w", "h"),
                                       KernelArg(Arg.FLOATS, tuple(float(v) for v in self.values()), "light"),
                                       KernelArg(Arg.INT, self.light_kind.value, "kind"),
                                       KernelArg(Arg.INT, int(self.specular), "specular"),
                                       KernelArg(Arg.INT, int(self.linear), "linear_rgb"),
                                       *(KernelArg(Arg.INT, v, n) for v, n in zip(_edge_rect(self.rect),
                                                                                  ("x0", "y0", "x1", "y1")))))

    label = "lighting"

    def describe(self) -> str:
        what = (f"specular ks {self.constant:g} exponent {self.exponent:g}" if self.specular
                else f"diffuse kd {self.constant:g}")
        where = ("towards ({:.3g}, {:.3g}, {:.3g})" if self.light_kind is LightKind.DISTANT
                 else "at ({:.4g}, {:.4g}, {:.4g}) px").format(*self.light)
        space = "linearRGB" if self.linear else "sRGB"
        unit = f", kernel unit {self.unit[0]:g} x {self.unit[1]:g} px" if self.unit != (1.0, 1.0) else ""
        edges = f", edges of the input's {self.rect}" if self.rect is not None else ""
        edges += ", input in floats" if self.reads is not ImageFormat.RGBA8 else ""
        return (f"{self.label}  {what}, surface scale {self.surface_scale:g}{unit}{edges}, "
                f"{self.light_kind.name.lower()} light {where}, in {space}")


@dataclass(frozen=True)
class DisplacePass:
    """feDisplacementMap: each pixel copies the pixel of image A (``inputs[0]``) nearest to
    itself moved by ``scale`` px x (the map's un-premultiplied channel - 0.5), the map
    being ``inputs[1]``, its channels ``channels`` (x, y: 0 R .. 3 A), its colour read in
    linearRGB when ``linear`` (A is copied, so its space does not matter); transparent
    outside."""

    inputs: tuple[str, ...]  # (image, map)
    output: str
    amount: tuple[float, float]  # the primitive's scale, in px along x and y
    channels: tuple[int, int]
    linear: bool = False
    scale: int = 1
    kind: ClassVar[str] = "displace"
    pass_kind: ClassVar[PassKind] = PassKind.DISPLACE
    cost: ClassVar[CostKind] = CostKind.PIXEL_TAPS  # a dependent read: a straight source is converted first
    taps: ClassVar[int] = 1

    @classmethod
    def samples(cls) -> tuple["DisplacePass", ...]:
        return (cls(("source", "source"), "out", (20.0, 20.0), (0, 1)),)

    def gl(self) -> ProgramCall:
        return ProgramCall(FilterProgram(FilterShader.DISPLACE), (("u_amount", self.amount), ("u_channels", self.channels),
                                                                   ("u_linear", int(self.linear))),
                           ("u_source", "u_second"))

    def cl(self) -> KernelCall:
        return KernelCall("displace", (KernelArg(Arg.INPUT, 0, "src"), KernelArg(Arg.INPUT, 1, "map"),
                                       *_images("dst", "w", "h"), KernelArg(Arg.FLOAT, self.amount[0], "sx"),
                                       KernelArg(Arg.FLOAT, self.amount[1], "sy"),
                                       KernelArg(Arg.INT, self.channels[0], "cx"),
                                       KernelArg(Arg.INT, self.channels[1], "cy"),
                                       KernelArg(Arg.INT, int(self.linear), "linear_rgb")))

    label = "displace"

    def describe(self) -> str:
        return (f"{self.label}  {self.inputs[0]} by map {self.inputs[1]} channels {'RGBA'[self.channels[0]]}"
                f"{'RGBA'[self.channels[1]]} scale ({self.amount[0]:g}, {self.amount[1]:g}) px"
                f"{' (map in linearRGB)' if self.linear else ''}")


class EdgeMode(Enum):
    """How a convolve pass reads past the image's edge, as shaders/common/convolve.h numbers it."""

    NONE = 0  # transparent black
    DUPLICATE = 1  # the nearest edge pixel
    WRAP = 2  # the opposite edge's


@dataclass(frozen=True)
class ConvolvePass:
    """feConvolveMatrix (and feGaussianBlur's edgeMode as a 1-D one along each axis): each
    pixel is the sum of ``weights`` (``order`` x by y, row by row) times the pixels at
    offset (j - target x, i - target y) for weight i * order x + j, read past the edge as
    ``edge`` says; then / ``divisor`` + ``bias``, clamped (colour to alpha). With
    ``preserve_alpha`` the sum is of straight colour and alpha is the pixel's own; with
    ``linear`` each tap is read in linearRGB and the result written back as sRGB."""

    inputs: tuple[str, ...]
    output: str
    order: tuple[int, int]
    weights: tuple[float, ...]
    target: tuple[int, int]
    divisor: float = 1.0
    bias: float = 0.0
    edge: EdgeMode = EdgeMode.NONE
    preserve_alpha: bool = False
    linear: bool = False
    spacing: tuple[float, float] = (1, 1)  # px between kernel cells (kernelUnitLength); fractional: bilinear taps
    source: str = "feConvolveMatrix"
    rect: tuple[int, int, int, int] | None = None  # the input's pixels (x0, y0, x1, y1) ``edge`` extends; None: all
    scale: int = 1
    kind: ClassVar[str] = "convolve"
    pass_kind: ClassVar[PassKind] = PassKind.CONVOLVE
    cost: ClassVar[CostKind] = CostKind.PIXEL_TAPS

    @property
    def taps(self) -> int:
        return self.order[0] * self.order[1]

    @classmethod
    def samples(cls) -> tuple["ConvolvePass", ...]:
        return (cls(("source",), "out", (3, 3), (0.0, -1.0, 0.0, -1.0, 5.0, -1.0, 0.0, -1.0, 0.0), (1, 1)),)

    def gl(self) -> ProgramCall:
        flat = np.zeros(SHADER_CONSTANTS["CONVOLVE_WEIGHTS"], np.float32)  # uniform arrays are written whole
        flat[:len(self.weights)] = self.weights
        converted = self.preserve_alpha or self.linear
        shader = FilterShader.CONVOLVE_CONVERTED if converted else FilterShader.CONVOLVE
        if self.spread:  # programs of their own: four reads a tap, which whole spacings need not pay
            shader = FilterShader.CONVOLVE_SPREAD_CONVERTED if converted else FilterShader.CONVOLVE_SPREAD
        spacing = tuple(float(v) for v in self.spacing) if self.spread else tuple(int(v) for v in self.spacing)
        return ProgramCall(FilterProgram(shader), (
            ("u_weights", [tuple(float(v) for v in row) for row in flat.reshape(-1, 4)]), ("u_order", self.order),
            ("u_target", self.target), ("u_spacing", spacing), ("u_divisor", self.divisor), ("u_bias", self.bias),
            ("u_edge", self.edge.value), ("u_preserve_alpha", int(self.preserve_alpha)), ("u_linear", int(self.linear)),
            ("u_rect", self.edge_rect)))

    @property
    def edge_rect(self) -> tuple[int, int, int, int]:
        """``rect``, or all of any image (the passes clip it to theirs)."""
        return _edge_rect(self.rect)

    def cl(self) -> KernelCall:
        return KernelCall("convolve", (*_images("src", "dst", "w", "h"), KernelArg(Arg.FLOATS, self.weights, "weights"),
                                       *(KernelArg(Arg.INT, v, n) for v, n in zip(
                                           (*self.order, *self.target), ("ox", "oy", "tx", "ty"))),
                                       *(KernelArg(Arg.FLOAT, float(v), n) for v, n in zip(self.spacing, ("spx", "spy"))),
                                       KernelArg(Arg.FLOAT, self.divisor, "divisor"), KernelArg(Arg.FLOAT, self.bias, "bias"),
                                       KernelArg(Arg.INT, self.edge.value, "edge"),
                                       KernelArg(Arg.INT, int(self.preserve_alpha), "preserve_alpha"),
                                       KernelArg(Arg.INT, int(self.linear), "linear_rgb"),
                                       *(KernelArg(Arg.INT, v, n) for v, n in zip(self.edge_rect, ("x0", "y0", "x1", "y1")))))

    label = "convolve"

    @property
    def spread(self) -> bool:
        """Whether a kernel cell falls between pixels (read bilinearly)."""
        return any(float(v) != math.floor(v) for v in self.spacing)

    def describe(self) -> str:
        spread = f" every {self.spacing[0]:g}x{self.spacing[1]:g} px" if tuple(self.spacing) != (1, 1) else ""
        edge = f" of the input's {self.rect}" if self.rect is not None else ""
        how = (f"{self.order[0]}x{self.order[1]}{spread} target ({self.target[0]}, {self.target[1]}) / {self.divisor:g} + "
               f"{self.bias:g}, edge {self.edge.name.lower()}{edge}")
        return (f"{self.label}  {self.source}: {how}{', alpha kept' if self.preserve_alpha else ''}"
                f"{' in linearRGB' if self.linear else ''}")


@dataclass(frozen=True)
class RegionPass:
    """An SVG primitive subregion (Filter Effects 1 §"filter primitive subregion"):
    the input kept inside ``rect`` (x0, y0, x1, y1, whole pixels of the image) and
    transparent black outside it; with ``tile`` (a pixel rect of the input), the
    input's ``tile`` rect repeated across ``rect`` from its corner (feTile), or with
    ``mirror`` reflected about its edges, edge pixels repeated (a backdrop-filter's
    functions after a graph read the graph's output mirrored at the box: filters.svg.route).

    A pass of its own after the primitive's passes, rather than a rect uniform on every
    pass kind: only primitives with a subregion that can clip something pay for it, and
    the other passes (shared with CSS chains, and changed by others) stay as they are."""

    inputs: tuple[str, ...]
    output: str
    rect: tuple[int, int, int, int]
    tile: tuple[int, int, int, int] | None = None
    source: str = ""  # the primitive it clips, for describe()
    scale: int = 1
    mirror: bool = False  # ``tile`` reflected rather than repeated
    kind: ClassVar[str] = "region"
    pass_kind: ClassVar[PassKind] = PassKind.REGION
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["RegionPass", ...]:
        return (cls(("source",), "out", (2, 3, 40, 30)), cls(("source",), "out", (0, 0, 64, 64), (3, 4, 19, 12)),
                cls(("source",), "out", (0, 0, 64, 64), (3, 4, 19, 12), mirror=True))

    @property
    def _tiling(self) -> int:
        """0: clip only; 1: the tile repeated; 2: the tile mirrored."""
        return 0 if self.tile is None else 2 if self.mirror else 1

    def gl(self) -> ProgramCall:
        tile = self.tile or (0, 0, 0, 0)
        return ProgramCall(FilterProgram(FilterShader.REGION),
                           (("u_rect", tuple(self.rect)), ("u_tile", tuple(tile)), ("u_tiled", self._tiling)))

    def cl(self) -> KernelCall:
        tile = self.tile or (0, 0, 0, 0)
        return KernelCall("region", (*_images("src", "dst", "w", "h"),
                                     *(KernelArg(Arg.INT, int(v), n) for v, n in zip(self.rect, ("x0", "y0", "x1", "y1"))),
                                     KernelArg(Arg.INT, self._tiling, "tiled"),
                                     *(KernelArg(Arg.INT, int(v), n) for v, n in zip(tile, ("tx0", "ty0", "tx1", "ty1")))))

    label = "region"

    def describe(self) -> str:
        x0, y0, x1, y1 = self.rect
        what = f"{self.source}: " if self.source else ""
        if self.tile is not None:
            tx0, ty0, tx1, ty1 = self.tile
            if self.mirror:
                return f"{self.label}  {what}mirrors [{tx0}, {ty0}, {tx1}, {ty1}) across [{x0}, {y0}, {x1}, {y1}) px"
            return f"{self.label}  {what}tiles [{tx0}, {ty0}, {tx1}, {ty1}) across [{x0}, {y0}, {x1}, {y1}) px"
        return f"{self.label}  {what}keeps [{x0}, {y0}, {x1}, {y1}) px, transparent outside"


@dataclass(frozen=True)
class ImagePass:
    """feImage: a picture (straight RGBA8 ``pixels``, uploaded once per ``key``) placed in
    the image: output pixel (i, j) samples the picture bilinearly at picture pixel
    (step x i + origin x, step y j + origin y) (0: pixel 0's centre; transparent black
    outside it), premultiplied, and is transparent black outside ``clip`` (x0, y0, x1,
    y1: the primitive's subregion in output pixels). It reads no image (``inputs`` name
    the source only so that it has a size)."""

    inputs: tuple[str, ...]
    output: str
    key: str  # the picture's identity (its href and content checksum): equal keys, equal pixels
    pixels: np.ndarray = field(compare=False, repr=False)
    step: tuple[float, float] = (1.0, 1.0)
    origin: tuple[float, float] = (0.0, 0.0)
    clip: tuple[int, int, int, int] = (0, 0, 0, 0)
    source: str = "feImage"
    scale: int = 1
    kind: ClassVar[str] = "image"
    pass_kind: ClassVar[PassKind] = PassKind.IMAGE
    cost: ClassVar[CostKind] = CostKind.PIXELS

    @classmethod
    def samples(cls) -> tuple["ImagePass", ...]:
        pixels = np.random.default_rng(0).integers(0, 256, (64, 64, 4), dtype=np.uint8)
        return (cls(("source",), "out", "sample", pixels, (0.7, 0.7), (-3.0, -2.0), (0, 0, 1 << 15, 1 << 15)),)

    @property
    def picture_size(self) -> tuple[int, int]:
        return int(self.pixels.shape[1]), int(self.pixels.shape[0])

    def gl(self) -> ProgramCall:
        return ProgramCall(FilterProgram(FilterShader.IMAGE), (
            ("u_step", self.step), ("u_origin", self.origin), ("u_clip", self.clip)),
            textures=(("u_picture", self.key, self.pixels),))

    def cl(self) -> KernelCall:
        iw, ih = self.picture_size
        return KernelCall("image", (KernelArg(Arg.PIXELS, KeyedPixels(self.key, self.pixels), "picture"),
                                    KernelArg(Arg.INT, iw, "pw"), KernelArg(Arg.INT, ih, "ph"), *_images("dst", "w", "h"),
                                    *(KernelArg(Arg.FLOAT, v, n) for v, n in zip((*self.step, *self.origin),
                                                                                  ("sx", "sy", "ox", "oy"))),
                                    *(KernelArg(Arg.INT, v, n) for v, n in zip(self.clip, ("x0", "y0", "x1", "y1")))))

    label = "image"

    def describe(self) -> str:
        iw, ih = self.picture_size
        x0, y0, x1, y1 = self.clip
        return (f"{self.label}  {self.source} {iw}x{ih} px picture, {1 / self.step[0]:.4g} x {1 / self.step[1]:.4g} "
                f"px per picture px, in pixels {x0}..{x1} x {y0}..{y1}")


@dataclass(frozen=True)
class SpacePass:
    """Colour space and format of a whole image, for work that reads each pixel many
    times and whose result must not be rounded to 8 bits in between: ``to_linear`` turns
    8-bit premultiplied sRGB into a float image (``ImageFormat.RGBA32F``), once a pixel,
    so the blur passes after it read its values as they are; the pass back writes 8-bit
    premultiplied sRGB. With ``linear`` the float image holds premultiplied linearRGB (an
    SVG blur in linearRGB, ``filters.svg.compile_linear``): un-premultiplied, converted by
    the sRGB transfer function and premultiplied again (common/svg_color.h, the maths the
    per-tap conversions of the other linear passes use); without it the same sRGB values,
    only held in floats (an sRGB blur whose result is amplified). ``steps``: the colour
    primitives that alone read the blur (``SvgColorStep``, as an svg colour pass runs
    them), run in float on the way back, before the 8-bit store: a matrix that multiplies
    alpha by 18 (the "gooey" graph) multiplies an 8-bit image's rounding by 18."""

    inputs: tuple[str, ...]
    output: str
    to_linear: bool
    source: str = ""  # the primitive it serves
    scale: int = 1
    linear: bool = True  # the float image holds linearRGB (False: sRGB, only the format changes)
    steps: tuple[SvgColorStep, ...] = ()  # the way back: colour work fused in float
    kind: ClassVar[str] = "space"
    pass_kind: ClassVar[PassKind] = PassKind.SPACE
    cost: ClassVar[CostKind] = CostKind.PIXELS

    def __post_init__(self) -> None:
        if self.steps and (self.to_linear or not SvgColorPass.fits(self.steps)):
            raise InvalidValueError(f"a space pass runs colour steps only on the way back to 8 bits, as many as an "
                                    f"svg colour pass takes (got {len(self.steps)}, to_linear={self.to_linear})",
                                    property="filter")

    @classmethod
    def samples(cls) -> tuple["SpacePass", ...]:
        return (cls(("source",), "out", True), cls(("source",), "out", False))

    @property
    def held(self) -> ImageFormat:
        """The format it writes."""
        return ImageFormat.RGBA32F if self.to_linear else ImageFormat.RGBA8

    @property
    def reads(self) -> ImageFormat:
        """The format it reads: the other one."""
        return ImageFormat.RGBA8 if self.to_linear else ImageFormat.RGBA32F

    def gl(self) -> ProgramCall:
        if self.to_linear:
            return ProgramCall(FilterProgram(FilterShader.TO_LINEAR), (("u_linear", int(self.linear)),))
        program = FilterProgram.svg_color(FilterShader.TO_SRGB, self.steps)
        return ProgramCall(program, (("u_linear", int(self.linear)), *svg_step_uniforms(self.steps, program)))

    def cl(self) -> KernelCall:
        # PoCL computes a power in ~70 ns (native_exp2 / log2 do not vectorise): 3 a pixel
        # took 350-600 ms at 1080p, more than the blur. The kernels read tables instead
        # (the identity's for an image that stays sRGB).
        if self.to_linear:
            table = linear_table() if self.linear else identity_table()
            return KernelCall("to_linear", (*_images("src", "dst", "w", "h"), KernelArg(Arg.FLOATS, table, "table")))
        table = srgb_table() if self.linear else np.linspace(0.0, 1.0, SRGB_TABLE_STEPS + 1, dtype=np.float32)
        steps, n_steps, step_table = svg_step_args(self.steps)
        return KernelCall("to_srgb", (*_images("src", "dst", "w", "h"), KernelArg(Arg.FLOATS, table, "table"),
                                      steps, n_steps, KernelArg(Arg.FLOATS, step_table.value, "step_table")))

    @property
    def label(self) -> str:
        return "space"

    def describe(self) -> str:
        space = "linearRGB" if self.linear else "sRGB"
        how = f"8-bit sRGB -> float {space}" if self.to_linear else f"float {space} -> 8-bit sRGB"
        then = "".join(f" -> {st.describe()}" for st in self.steps)
        return f"{self.label}  {how} (premultiplied){then}{'  ' + self.source if self.source else ''}"


PlannedPass = Union[ColorPass, ResamplePass, BlurPass, ShadowPass, MorphologyPass, CombinePass, OffsetPass,
                    SvgColorPass, TurbulencePass, DisplacePass, ConvolvePass, RegionPass, LightingPass, ImagePass,
                    SpacePass]
# Every planned pass type: calibration measures each one's samples(); a new one is added here.
PASS_TYPES: tuple[type, ...] = (ColorPass, BlurPass, ResamplePass, ShadowPass, MorphologyPass, CombinePass, OffsetPass,
                                SvgColorPass, TurbulencePass, DisplacePass, ConvolvePass, RegionPass,
                                LightingPass, ImagePass, SpacePass)


@lru_cache(maxsize=1)
def linear_table() -> np.ndarray:
    """(256 * 256,) float32: at a * 256 + p, the premultiplied linear value of the 8-bit
    premultiplied sRGB value p of alpha a (un-premultiplied and clamped as the reference
    does, float64): what the OpenCL pass to linear reads, exact for every 8-bit input."""
    a = np.arange(256, dtype=np.float64)[:, None]
    p = np.arange(256, dtype=np.float64)[None, :]
    straight = np.minimum(p / np.where(a > 0, a, 1.0), 1.0)
    return (srgb_to_linear(straight) * (a / 255.0)).astype(np.float32).reshape(-1)


@lru_cache(maxsize=1)
def identity_table() -> np.ndarray:
    """(256 * 256,) float32, laid out as ``linear_table``: the 8-bit premultiplied value p
    as a float, p / 255 (a SpacePass to a float sRGB image)."""
    return np.tile(np.arange(256, dtype=np.float64) / 255.0, 256).astype(np.float32)


@lru_cache(maxsize=1)
def srgb_table() -> np.ndarray:
    """(SRGB_TABLE_STEPS + 1,) float32: the sRGB value of linear i / SRGB_TABLE_STEPS
    (float64), which the OpenCL pass back reads between entries (linearly: within 2e-5 of
    the curve past its linear toe, where the two are the same line; 0.005 of a level)."""
    return linear_to_srgb(np.arange(SRGB_TABLE_STEPS + 1) / SRGB_TABLE_STEPS).astype(np.float32)


def image_format(p: PlannedPass) -> ImageFormat:
    """The format of the image ``p`` writes: 8-bit unless it says otherwise (``held``)."""
    return getattr(p, "held", ImageFormat.RGBA8)


def input_format(p: PlannedPass) -> ImageFormat:
    """The format of the images ``p`` reads: the one it writes unless it says otherwise
    (``reads``: a SpacePass converts between the two)."""
    return getattr(p, "reads", image_format(p))


@dataclass(frozen=True)
class FilterPlan:
    """The passes of a chain, the image each writes (``source`` is the input), what was
    dropped or capped, and how far the output reaches beyond the input."""

    passes: tuple[PlannedPass, ...]
    output: str
    outsets: tuple[int, int, int, int]  # top, right, bottom, left (px)
    notes: tuple[str, ...] = field(default=())
    spread: tuple[Reach, ...] = field(default=(), repr=False)  # each planned spatial op's reach, in order
    # The input must be exactly the element's box grown by ``outsets`` (an SVG filter
    # region, filters.svg.route): every pixel of it can matter, and nothing past it.
    region: bool = False

    def needed_input(self, rect: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """The input region (x0, y0, x1, y1) that can affect ``rect`` of the output,
        hulled over every step (all images of a plan share one size)."""
        for reach in reversed(self.spread):
            rect = reach.needed(rect)
        return rect

    def describe(self) -> str:
        if not self.passes:
            lines = ["no passes: the chain does nothing"]
        else:
            lines = [f"{len(self.passes)} pass(es):"]
            for i, p in enumerate(self.passes, 1):
                lines.append(f"  {i}. {p.describe()}   [{', '.join(p.inputs)} -> {p.output}]")
        t, r, b, l = self.outsets
        if any(self.outsets):
            lines.append(f"output grows by top {t}, right {r}, bottom {b}, left {l} px")
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    __str__ = describe

    def __repr__(self) -> str:
        return f"FilterPlan({len(self.passes)} passes, output={self.output!r})"


def image_size(width: int, height: int, scale: int) -> tuple[int, int]:
    """Size of a plan image at divisor ``scale`` for a width x height input: reduced
    images carry a margin so blurs reach just past the edge."""
    margin = 2 * MARGIN if scale > 1 else 0
    return (max(1, math.ceil(width / scale)) + margin, max(1, math.ceil(height / scale)) + margin)


def blur_levels(sigma: float, pixels: int | None = None) -> tuple[int, float]:
    """How many halvings a blur of ``sigma`` (full-size px) takes, and the sigma to
    blur with at that level so the whole pipeline's variance equals sigma^2.

    Variances, in full-size px^2: halving j adds (2^(j-1))^2 / 4 (a 2-tap box), the
    final bilinear upsample (2^k)^2 / 6 (a tent), and the level blur (2^k s)^2."""
    if sigma <= MAX_LEVEL_SIGMA:
        return 0, sigma
    k = 0
    while sigma / (2**k) > MAX_LEVEL_SIGMA:
        k += 1
    if k == 1 and sigma / 4.0 >= 1.5 and pixels is not None and pixels >= LARGE_IMAGE:
        # On a large image one halving leaves up to 25 taps on a quarter of its pixels,
        # the most expensive level there is; a second halving costs ~8x less (sigma 8 at
        # 1080p: 92 -> 41 ms). It blurs hard edges a little less exactly, which matters
        # on small images where edges are much of the picture, so only large ones.
        k = 2
    return k, level_sigma(sigma, k)


def level_sigma(sigma: float, k: int) -> float:
    """The sigma to blur with after ``k`` halvings so the pipeline's variance is sigma^2
    (0 where the halvings and the upsample already spread more than that)."""
    if k == 0:
        return sigma
    four_k = 4.0**k
    residual = sigma * sigma - (four_k - 1.0) / 12.0 - four_k / 6.0
    return math.sqrt(max(residual, 0.0) / four_k)


def blur_levels_axes(sigmas: tuple[float, float], pixels: int | None = None) -> tuple[int, tuple[float, float]]:
    """``blur_levels`` for a blur of ``sigmas`` (x, y; full-size px, SVG's per-axis
    stdDeviation): the halvings the smaller sigma takes, and each axis's level sigma.

    The halvings are shared (the resample passes scale both axes) and chosen by the
    smaller sigma so its axis stays exact: halving for the larger one would spread the
    smaller axis past its sigma (a sigma of 0 must not blur at all). The larger axis
    pays with more taps at that level (radius ceil(3 sigma / 2^k), past MAX_BLUR_RADIUS);
    see tests/benchmarks/test_svg_blur_axes_bench.py for what that costs."""
    k, _ = blur_levels(min(sigmas), pixels)
    return k, (level_sigma(sigmas[0], k), level_sigma(sigmas[1], k))


class _Builder:
    def __init__(self, pixels: int | None = None) -> None:
        self.passes: list[PlannedPass] = []
        self.count = 0
        self.pixels = pixels

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def blur(self, source: str, sigma: float) -> str:
        """Append the passes of a blur of ``source``; return the blurred image's name."""
        k, level = blur_levels(sigma, self.pixels)
        return self._blur_at(source, k, (level, level))

    def blur_axes(self, source: str, sigmas: tuple[float, float], held: ImageFormat = ImageFormat.RGBA8) -> str:
        """Append the passes of a blur of ``source`` by ``sigmas`` (x, y; full-size px,
        ``blur_levels_axes``), its images held as ``held``; return the blurred image's name."""
        if sigmas[0] == sigmas[1]:
            k, level = blur_levels(sigmas[0], self.pixels)
            return self._blur_at(source, k, (level, level), held)
        k, levels = blur_levels_axes(sigmas, self.pixels)
        return self._blur_at(source, k, levels, held)

    def _blur_at(self, source: str, k: int, levels: tuple[float, float],
                 held: ImageFormat = ImageFormat.RGBA8) -> str:
        current = source
        for j in range(1, k + 1):
            out = self.name("half")
            self.passes.append(ResamplePass((current,), out, PassKind.DOWNSAMPLE, 2**j, 2 ** (j - 1), held))
            current = out
        radii = [math.ceil(3.0 * s) for s in levels]
        if max(radii) > 0:
            for axis, sigma, radius in zip(Axis, levels, radii):
                if radius == 0:
                    continue  # this axis is not blurred (at this level)
                out = self.name(f"blur{axis}")
                self.passes.append(BlurPass((current,), out, axis, sigma, radius, 2**k, held))
                current = out
        if k:
            out = self.name("up")
            self.passes.append(ResamplePass((current,), out, PassKind.UPSAMPLE, 1, 2**k, held))
            current = out
        return current


def _capped(op: FilterOp, sigma: float, scale: float, notes: list[str]) -> float:
    """``sigma`` (CSS px) in pixels as planned, noting when it was capped."""
    if sigma * scale > BLUR_SIGMA_CAP:
        notes.append(f"{op.css()}: sigma capped at {BLUR_SIGMA_CAP:g}px (WebRender's cap)")
    return pixel_sigma(sigma, scale)


def _plan_blur(b: _Builder, op: Blur, current: str, scale: float, notes: list[str]) -> str:
    return b.blur(current, _capped(op, op.sigma, scale, notes))


def _plan_shadow(b: _Builder, op: DropShadow, current: str, scale: float, notes: list[str]) -> str:
    sigma = _capped(op, op.sigma, scale, notes)
    blurred = b.blur(current, sigma) if sigma > 0 else current
    out = b.name("shadow")
    b.passes.append(ShadowPass((current, blurred), out, op.pixel_offset(scale), op.color.premultiplied()))
    return out


def _plan_morphology(b: _Builder, op: Morphology, current: str, scale: float, notes: list[str],
                     linear: bool = False) -> str:
    axes = [(axis, radius) for axis, radius in zip(Axis, op.pixel_radii(scale)) if radius > 0]  # radius 0: as it is
    holds = (LinearHold.WRITES, LinearHold.READS) if linear and len(axes) == 2 else (LinearHold.NONE,) * 2
    for (axis, radius), hold in zip(axes, holds):
        out = b.name(f"{op.operator.value}{axis}")
        b.passes.append(MorphologyPass((current,), out, axis, radius, op.operator, linear=linear, hold=hold))
        current = out
    return current


# What each spatial op (every op but the colour ops, which fuse) plans to: appends its
# passes to the builder after ``current`` and returns the name of its result.
Planner = Callable[[_Builder, FilterOp, str, float, list], str]
PLANNERS: dict[type[FilterOp], Planner] = {
    Blur: _plan_blur,
    DropShadow: _plan_shadow,
    Morphology: _plan_morphology,
}


_SPLIT_NOTE = (f"more than {MAX_COLOR_STEPS} clamped colour steps in a row: split into several passes, with the "
               "image rounded to 8 bits between them")


def plan_chain(
    ops: tuple[FilterOp, ...],
    *,
    current_color: RGBA,
    scale: float = 1.0,
    size: tuple[int, int] | None = None,
) -> FilterPlan:
    """Plan ``ops`` for an input in a space where one CSS px is ``scale`` pixels.
    ``size`` (the input's, when known) lets cost rules depend on the pixel count.
    (``url(#id)`` ops are routed first by ``FilterChain.plan``: filters.svg.route.)"""
    if not (math.isfinite(scale) and scale > 0):
        raise InvalidValueError(f"filter scale must be a positive number, got {scale!r}", property="filter")
    if not isinstance(current_color, RGBA):
        raise InvalidValueError(f"current_color must be an RGBA colour, got {current_color!r}", property="filter")
    pixels = size[0] * size[1] if size else None
    b = _Builder(pixels)
    notes: list[str] = []
    spread: list[Reach] = []
    current = "source"
    top = right = bottom = left = 0
    pending: list[ColorOp] = []

    def flush() -> None:
        nonlocal current
        if not pending:
            return
        steps, alpha = color_steps(pending)
        ops_css = tuple(op.css() for op in pending)
        pending.clear()
        first = True
        while first or steps:
            run, steps = steps[:MAX_COLOR_STEPS], steps[MAX_COLOR_STEPS:]
            out = b.name("color")
            b.passes.append(ColorPass((current,), out, tuple(run), alpha if first else 1.0, ops_css))
            current, first = out, False
            if steps and _SPLIT_NOTE not in notes:  # said once per plan
                notes.append(_SPLIT_NOTE)

    for op in ops:
        op = op.resolved(current_color)
        if op.is_noop():
            notes.append(f"{op.css()} does nothing: dropped")
            continue
        why = op.dropped_at(scale)
        if why is not None:  # dropped before flushing: the colour ops around it still fuse
            notes.append(why)
            continue
        if isinstance(op, ColorOp):
            pending.append(op)
            continue
        if isinstance(op, SvgFilterRef):
            raise op.plan_error()  # before any pass: never a plan that renders part of the chain
        flush()
        planner = PLANNERS.get(type(op))
        if planner is None:
            raise InvalidValueError(f"{op!r}: no planner for {type(op).__name__} (filters.plan.PLANNERS)", property="filter")
        current = planner(b, op, current, scale, notes)
        reach = op.reach(scale)
        top, right, bottom, left = (a + g for a, g in zip((top, right, bottom, left), reach.outsets))
        spread.append(reach)
    flush()
    return FilterPlan(tuple(b.passes), current, (top, right, bottom, left), tuple(notes), tuple(spread))


def _cube_safe(m: np.ndarray) -> bool:
    """Does the affine RGB map send the unit cube into itself? (Then the clamp after it
    can never act.) An affine map's extremes on a box are at its corners."""
    corners = np.array([[x, y, z, 1.0] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    out = corners @ m.T
    return bool(np.all(out >= -1e-12) and np.all(out <= 1 + 1e-12))


def color_steps(ops) -> tuple[list[ColorStep], float]:
    """Clamped RGB steps and the alpha factor for a run of colour ops (exact).

    Each op is an affine map of straight RGBA; their alpha rows only scale alpha
    (opacity) and their colour rows never read alpha, so alpha is a product. Steps merge
    while the map so far sends [0, 1]^3 into itself: the clamp after it is then a no-op."""
    steps: list[ColorStep] = []
    alpha = 1.0
    group: np.ndarray | None = None
    names: list[str] = []
    for op in ops:
        m = op.matrix()
        assert np.allclose(m[:3, 3], 0) and np.allclose(m[3, [0, 1, 2, 4]], 0), op
        alpha *= float(m[3, 3])
        rgb = m[:3, [0, 1, 2, 4]]
        if group is not None and _cube_safe(group):
            group = rgb @ np.vstack([group, [0.0, 0.0, 0.0, 1.0]])  # rgb after group
            names.append(op.css())
            continue
        if group is not None:
            steps.append(ColorStep(tuple(names), tuple(map(tuple, group))))
        group, names = rgb, [op.css()]
    if group is not None and not (np.allclose(group, np.hstack([np.eye(3), np.zeros((3, 1))])) and len(names) == len(ops) and not steps):
        steps.append(ColorStep(tuple(names), tuple(map(tuple, group))))
    return steps, alpha
