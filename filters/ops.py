"""Filter functions as immutable typed ops, with the maths of Filter Effects Module 1.

Colour ops are affine maps of *straight* (un-premultiplied) RGBA, written as 4x5
matrices (rows R, G, B, A; columns R, G, B, A, 1) exactly as the spec defines them:
grayscale and sepia with the spec's own coefficients (0.2126/0.7152/0.0722 family for
grayscale), saturate and hue-rotate through feColorMatrix (0.213/0.715/0.072),
brightness/contrast/invert/opacity as the linear component transfers they are.

Each op class is the record of its filter: its fields, its CSS function's grammar
(``from_css``, over tinycss2 tokens; filters.syntax finds it by name in ``OPS``) and CSS
text, its interpolation, its reach (``reach``: how far its result spreads beyond its
input, and which input pixels an output pixel reads), when it does nothing at a scale
(``dropped_at``), and its float64 numpy reference (``reference``, written from the spec; ``filters.reference``
runs chains with it). What the planner emits for it is in ``filters.plan`` (its passes,
their GLSL program and OpenCL kernel calls, their cost kind); the shaders in shaders/.

Adding a spatial filter: its op class here (in ``OPS`` if it is a CSS function), its
planner and pass in filters.plan, its fragment shader in shaders/filters/ and its kernel
in shaders/opencl/filters.cl (feMorphology was added so: those four files). A colour
function is its op class alone (``matrix``; the fused colour pass runs it).
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

import numpy as np
from tinycss2 import ast

from ..errors import FilterSyntaxError, InvalidValueError, StyleError
from ..css.readers import read_color
from ..css.tokens import TokenStream, describe
from ..css.values import RGBA

from .arguments import MAX_AMOUNT, error, length, single_argument

__all__ = [
    "FilterOp",
    "ColorOp",
    "Grayscale",
    "Sepia",
    "Saturate",
    "HueRotate",
    "Invert",
    "Opacity",
    "Brightness",
    "Contrast",
    "Blur",
    "DropShadow",
    "Morphology",
    "MorphologyOperator",
    "MAX_MORPHOLOGY_RADIUS",
    "OPS",
    "Reach",
    "BLUR_SIGMA_CAP",
    "MIN_SIGMA",
    "color_op",
    "gaussian_kernel",
    "gaussian_blur",
]

TRANSPARENT = RGBA(0.0, 0.0, 0.0, 0.0)
BLUR_SIGMA_CAP = 100.0  # px: beyond it a blur is a flat wash at any screen size (WebRender's cap)
MIN_SIGMA = 0.25  # px: below, the neighbour weight is < 4e-4: no 8-bit pixel changes
FAR_OFFSET = 1.0e6  # px: offsets beyond any texture cannot matter; kept finite for float32


@dataclass(frozen=True)
class Reach:
    """How far an op reaches at one scale, in pixels. ``outsets`` (top, right, bottom,
    left): how far its output extends beyond its input. An output pixel reads the input
    at itself and within ``radius`` (x, y) of the point ``offset`` (dx, dy) before it
    (a drop shadow reads its blurred alpha there)."""

    outsets: tuple[int, int, int, int] = (0, 0, 0, 0)
    radius: tuple[float, float] = (0, 0)  # ints where they are (the bounds they grow stay ints)
    offset: tuple[float, float] = (0, 0)

    def needed(self, rect: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """The input region (x0, y0, x1, y1) that output ``rect`` reads."""
        x0, y0, x1, y1 = rect
        (rx, ry), (dx, dy) = self.radius, self.offset
        return (min(x0, x0 - dx - rx), min(y0, y0 - dy - ry), max(x1, x1 - dx + rx), max(y1, y1 - dy + ry))


def _grow(r: int) -> Reach:
    """The reach of a kernel of radius ``r`` all round."""
    return Reach((r, r, r, r), (r, r))


def pixel_sigma(sigma: float, scale: float) -> float:
    """A blur's standard deviation in pixels as planned: none under MIN_SIGMA, capped
    at BLUR_SIGMA_CAP."""
    s = sigma * scale
    return 0.0 if s < MIN_SIGMA else min(s, BLUR_SIGMA_CAP)


# -- reference maths (float64, premultiplied RGBA, transparent black outside) -------------

def color_op(premult: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Un-premultiply, apply a 4x5 matrix to straight RGBA, clamp, re-premultiply."""
    a = premult[..., 3:4]
    straight = np.where(a > 0, premult / np.where(a > 0, a, 1.0), 0.0)
    straight[..., 3:4] = a
    rgba1 = np.concatenate([straight, np.ones_like(a)], axis=-1)
    out = np.clip(rgba1 @ np.asarray(matrix, dtype=np.float64).T, 0.0, 1.0)
    out[..., :3] *= out[..., 3:4]
    return out


def gaussian_kernel(sigma: float) -> np.ndarray:
    radius = max(1, math.ceil(4.0 * sigma))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    k = np.exp(-(x * x) / (2.0 * sigma * sigma))
    return k / k.sum()


def _convolve_axis(img: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    radius = len(kernel) // 2
    pad = [(0, 0)] * img.ndim
    pad[axis] = (radius, radius)
    padded = np.pad(img, pad)  # zeros: transparent outside the image
    out = np.zeros_like(img)
    n = img.shape[axis]
    for i, w in enumerate(kernel):
        out += w * np.take(padded, np.arange(i, i + n), axis=axis)
    return out


def gaussian_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Separable Gaussian blur of an (H, W, C) float image, transparent edges."""
    sigma = min(sigma, BLUR_SIGMA_CAP)
    if sigma <= 0:
        return img.copy()
    k = gaussian_kernel(sigma)
    return _convolve_axis(_convolve_axis(img, k, 1), k, 0)


def shift(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``out[y, x] = img(y - dy, x - dx)`` with bilinear interpolation, zeros outside."""
    h, w = img.shape[:2]
    ys = np.arange(h, dtype=np.float64)[:, None] - dy
    xs = np.arange(w, dtype=np.float64)[None, :] - dx
    x0 = np.floor(xs).astype(int)
    y0 = np.floor(ys).astype(int)
    fx = xs - x0
    fy = ys - y0

    def at(yi, xi):
        valid = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        vals = img[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(valid[..., None], vals, 0.0)

    return (
        at(y0, x0) * ((1 - fx) * (1 - fy))[..., None]
        + at(y0, x0 + 1) * (fx * (1 - fy))[..., None]
        + at(y0 + 1, x0) * ((1 - fx) * fy)[..., None]
        + at(y0 + 1, x0 + 1) * (fx * fy)[..., None]
    )


def morphology(img: np.ndarray, rx: int, ry: int, *, dilate: bool) -> np.ndarray:
    """Max (dilate) or min (erode) over a (2 rx + 1) x (2 ry + 1) window, one axis at a
    time, of ``img`` padded with transparent black (float64 reference)."""
    pick = np.maximum if dilate else np.minimum
    out = np.asarray(img, dtype=np.float64)
    for axis, r in ((1, rx), (0, ry)):
        if r == 0:
            continue
        pad = [(0, 0)] * out.ndim
        pad[axis] = (r, r)
        padded = np.pad(out, pad)
        n = out.shape[axis]
        result = np.take(padded, np.arange(0, n), axis=axis)
        for i in range(1, 2 * r + 1):
            result = pick(result, np.take(padded, np.arange(i, i + n), axis=axis))
        out = result
    return out


def _num(v: float) -> str:
    """The shortest text that parses back to exactly ``v`` (so repr round-trips)."""
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def _color_css(c: RGBA) -> str:
    """Exact CSS for a colour: rgb() when the channels are whole 8-bit values."""
    channels = (c.r, c.g, c.b)
    if all(round(x * 255) / 255 == x for x in channels):
        rgb = " ".join(str(round(x * 255)) for x in channels)
        return f"rgb({rgb})" if c.a == 1.0 else f"rgb({rgb} / {_num(c.a)})"
    body = " ".join(_num(x) for x in channels)
    return f"color(srgb {body})" if c.a == 1.0 else f"color(srgb {body} / {_num(c.a)})"


def _lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


@dataclass(frozen=True)
class FilterOp(ABC):
    """One filter op: a CSS filter function, or an SVG filter primitive used from Python
    (Morphology). ``kind`` is "color", "blur", "shadow" or "morphology"."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = "color"

    @abstractmethod
    def css(self) -> str:
        """The op as CSS text that parses back to an equal op."""

    @classmethod
    def from_css(cls, fn: ast.FunctionBlock, ts: TokenStream) -> "FilterOp":
        """The op a CSS function of its name spells (``ts``: the value's stream, for
        columns); a FilterSyntaxError naming what was expected where."""
        raise error(ts, f"{fn.name}() is not a CSS filter function", fn)

    def is_noop(self) -> bool:
        return self == self.initial()

    def dropped_at(self, scale: float) -> str | None:
        """Why the op changes no 8-bit pixel at ``scale`` pixels per CSS px (a plan's
        note when it drops it), or None."""
        return None

    def reach(self, scale: float) -> Reach:
        """How far the op reaches at ``scale``, as planned (see Reach): nothing by default."""
        return Reach()

    def resolved(self, current_color: RGBA) -> "FilterOp":
        """The op with ``currentcolor`` resolved (only drop-shadow has one)."""
        return self

    @abstractmethod
    def reference(self, premult: np.ndarray) -> np.ndarray:
        """The op on float64 premultiplied RGBA in [0, 1] (H, W, 4), same size out: the
        oracle the GPU passes are tested against, written from the spec."""

    @classmethod
    def initial(cls) -> "FilterOp":
        """The op's initial value for interpolation (Filter Effects 1 §13)."""
        return cls()  # type: ignore[call-arg]

    @abstractmethod
    def interpolate(self, other: "FilterOp", t: float) -> "FilterOp":
        """The op at progress ``t`` from self to ``other`` (same kind)."""

    def __repr__(self) -> str:
        return self.css()

    def __post_init__(self) -> None:
        # Ops built directly (not parsed) get the parser's guarantees too.
        for name in ("amount", "sigma", "dx", "dy"):
            value = getattr(self, name, 0.0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InvalidValueError(f"{self.name}(): {name} must be a finite number, got {value!r}", property="filter")
        for name in ("amount", "sigma"):
            if getattr(self, name, 0.0) < 0 and not (name == "amount" and self.name == "hue-rotate"):
                raise InvalidValueError(f"{self.name}(): {name} must not be negative", property="filter")
        color = getattr(self, "color", None)
        if color is not None and not isinstance(color, RGBA):
            raise InvalidValueError(f"{self.name}(): color must be an RGBA, got {color!r}", property="filter")


@dataclass(frozen=True, repr=False)
class ColorOp(FilterOp):
    """A colour op with one amount; subclasses give the 4x5 matrix."""

    amount: float = 0.0
    kind: ClassVar[str] = "color"
    css_default: ClassVar[float] = 1.0  # the amount of the function written without one
    clamps_to_one: ClassVar[bool] = True  # amounts over 1 mean 1 (Filter Effects 1)

    @classmethod
    def from_css(cls, fn: ast.FunctionBlock, ts: TokenStream) -> "FilterOp":
        """``name( <number> | <percentage> )?``, not negative."""
        args = single_argument(fn, ts)
        if args.at_end():
            return cls(cls.css_default)
        tok = args.peek()
        if not isinstance(tok, (ast.NumberToken, ast.PercentageToken)):
            raise error(args, f"{fn.lower_name}() expects a number or percentage, got {describe(tok)}", tok)
        value = float(tok.value) / (100.0 if isinstance(tok, ast.PercentageToken) else 1.0)
        if not math.isfinite(value):
            raise error(args, f"{fn.lower_name}() value is not finite", tok)
        args.next()
        if value < 0:
            raise error(args, f"{fn.lower_name}() does not take negative values", tok)
        if args.peek() is not None:
            raise error(args, f"{fn.lower_name}() takes one value, got another: {describe(args.peek())}", args.peek())
        # Clamp per spec (amounts <= 1); the unbounded ones at 10000: beyond that only
        # colours within 1e-4 of grey could still change, while float32 matrices with
        # larger entries cancel badly (saturate(1e6) moved greys by 5 levels).
        return cls(min(value, 1.0) if cls.clamps_to_one else min(value, MAX_AMOUNT))

    @abstractmethod
    def matrix(self) -> np.ndarray:
        """The 4x5 matrix of this op on straight RGBA (rows R, G, B, A; columns R, G, B, A, 1)."""

    def css(self) -> str:
        return f"{self.name}({_num(self.amount)})"

    def reference(self, premult: np.ndarray) -> np.ndarray:
        return color_op(premult, self.matrix())

    def interpolate(self, other: "FilterOp", t: float) -> "FilterOp":
        assert type(other) is type(self)
        return type(self)(_lerp(self.amount, other.amount, t))


def _rgb_matrix(m3: np.ndarray) -> np.ndarray:
    out = np.zeros((4, 5))
    out[:3, :3] = m3
    out[3, 3] = 1.0
    return out


def _transfer(slope_rgb: float, intercept_rgb: float, slope_a: float = 1.0) -> np.ndarray:
    out = np.zeros((4, 5))
    out[0, 0] = out[1, 1] = out[2, 2] = slope_rgb
    out[:3, 4] = intercept_rgb
    out[3, 3] = slope_a
    return out


@dataclass(frozen=True, repr=False)
class Grayscale(ColorOp):
    amount: float = 0.0
    name: ClassVar[str] = "grayscale"

    def matrix(self) -> np.ndarray:
        k = 1.0 - self.amount
        return _rgb_matrix(
            np.array(
                [
                    [0.2126 + 0.7874 * k, 0.7152 - 0.7152 * k, 0.0722 - 0.0722 * k],
                    [0.2126 - 0.2126 * k, 0.7152 + 0.2848 * k, 0.0722 - 0.0722 * k],
                    [0.2126 - 0.2126 * k, 0.7152 - 0.7152 * k, 0.0722 + 0.9278 * k],
                ]
            )
        )


@dataclass(frozen=True, repr=False)
class Sepia(ColorOp):
    amount: float = 0.0
    name: ClassVar[str] = "sepia"

    def matrix(self) -> np.ndarray:
        k = 1.0 - self.amount
        return _rgb_matrix(
            np.array(
                [
                    [0.393 + 0.607 * k, 0.769 - 0.769 * k, 0.189 - 0.189 * k],
                    [0.349 - 0.349 * k, 0.686 + 0.314 * k, 0.168 - 0.168 * k],
                    [0.272 - 0.272 * k, 0.534 - 0.534 * k, 0.131 + 0.869 * k],
                ]
            )
        )


@dataclass(frozen=True, repr=False)
class Saturate(ColorOp):
    amount: float = 1.0
    name: ClassVar[str] = "saturate"
    clamps_to_one: ClassVar[bool] = False

    def matrix(self) -> np.ndarray:
        s = self.amount
        return _rgb_matrix(
            np.array(
                [
                    [0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s],
                    [0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s],
                    [0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s],
                ]
            )
        )


@dataclass(frozen=True, repr=False)
class HueRotate(ColorOp):
    """``amount`` is the angle in degrees (not normalised: 360deg stays 360deg)."""

    amount: float = 0.0
    name: ClassVar[str] = "hue-rotate"

    @classmethod
    def from_css(cls, fn: ast.FunctionBlock, ts: TokenStream) -> "FilterOp":
        """``hue-rotate( <angle> | <zero> )?``."""
        args = single_argument(fn, ts)
        if args.at_end():
            return cls(0.0)
        tok = args.peek()
        if isinstance(tok, ast.DimensionToken) and not math.isfinite(float(tok.value)):
            raise error(args, "hue-rotate() angle is not finite", tok)
        try:
            value = args.expect_angle()
        except FilterSyntaxError:
            raise
        except StyleError:
            raise error(args, f"hue-rotate() expects an angle (deg, rad, grad, turn), got {describe(tok)}", tok) from None
        if args.peek() is not None:
            raise error(args, f"hue-rotate() takes one angle, got another: {describe(args.peek())}", args.peek())
        return cls(value)

    def css(self) -> str:
        return f"hue-rotate({_num(self.amount)}deg)"

    def is_noop(self) -> bool:
        # Any whole turn is the identity matrix. The op itself keeps its angle (it
        # matters when interpolating); only plans drop it.
        return self.amount % 360.0 == 0.0

    def matrix(self) -> np.ndarray:
        rad = math.radians(math.fmod(self.amount, 360.0))  # exact reduction keeps huge angles right
        c, s = math.cos(rad), math.sin(rad)
        base = np.array([[0.213, 0.715, 0.072]] * 3)
        cos_part = np.array([[0.787, -0.715, -0.072], [-0.213, 0.285, -0.072], [-0.213, -0.715, 0.928]])
        sin_part = np.array([[-0.213, -0.715, 0.928], [0.143, 0.140, -0.283], [-0.787, 0.715, 0.072]])
        return _rgb_matrix(base + c * cos_part + s * sin_part)


@dataclass(frozen=True, repr=False)
class Invert(ColorOp):
    amount: float = 0.0
    name: ClassVar[str] = "invert"

    def matrix(self) -> np.ndarray:
        # C' = amount * (1 - C) + (1 - amount) * C = (1 - 2 amount) C + amount
        return _transfer(1.0 - 2.0 * self.amount, self.amount)


@dataclass(frozen=True, repr=False)
class Opacity(ColorOp):
    amount: float = 1.0
    name: ClassVar[str] = "opacity"

    def matrix(self) -> np.ndarray:
        return _transfer(1.0, 0.0, self.amount)


@dataclass(frozen=True, repr=False)
class Brightness(ColorOp):
    amount: float = 1.0
    name: ClassVar[str] = "brightness"
    clamps_to_one: ClassVar[bool] = False

    def matrix(self) -> np.ndarray:
        return _transfer(self.amount, 0.0)


@dataclass(frozen=True, repr=False)
class Contrast(ColorOp):
    amount: float = 1.0
    name: ClassVar[str] = "contrast"
    clamps_to_one: ClassVar[bool] = False

    def matrix(self) -> np.ndarray:
        # C' = (C - 0.5) * amount + 0.5
        return _transfer(self.amount, 0.5 - 0.5 * self.amount)


@dataclass(frozen=True, repr=False)
class Blur(FilterOp):
    """Gaussian blur; ``sigma`` is the standard deviation in px."""

    sigma: float = 0.0
    name: ClassVar[str] = "blur"
    kind: ClassVar[str] = "blur"

    @classmethod
    def from_css(cls, fn: ast.FunctionBlock, ts: TokenStream) -> "FilterOp":
        """``blur( <length> )?``, not negative."""
        args = single_argument(fn, ts)
        if args.at_end():
            return cls(0.0)
        tok = args.peek()
        value = length(args, "blur", minimum=0.0)
        if value is None:
            raise error(args, f"blur() expects a length in px, got {describe(tok)}", tok)
        if args.peek() is not None:
            raise error(args, f"blur() takes one length, got another: {describe(args.peek())}", args.peek())
        return cls(value)

    def css(self) -> str:
        return f"blur({_num(self.sigma)}px)"

    def dropped_at(self, scale: float) -> str | None:
        if self.sigma * scale < MIN_SIGMA:
            return f"{self.css()}: sigma under {MIN_SIGMA:g}px changes no 8-bit pixel: dropped"
        return None

    def reach(self, scale: float) -> Reach:
        return _grow(math.ceil(3.0 * pixel_sigma(self.sigma, scale)))

    def reference(self, premult: np.ndarray) -> np.ndarray:
        return gaussian_blur(premult, self.sigma)

    def interpolate(self, other: "FilterOp", t: float) -> "FilterOp":
        assert isinstance(other, Blur)
        return Blur(max(_lerp(self.sigma, other.sigma, t), 0.0))


@dataclass(frozen=True, repr=False)
class DropShadow(FilterOp):
    """``drop-shadow(dx dy sigma color)``: the input's alpha blurred with standard
    deviation ``sigma`` (as in the spec's feDropShadow markup equivalent), offset,
    coloured, composited under the input. ``color`` None means currentcolor."""

    dx: float = 0.0
    dy: float = 0.0
    sigma: float = 0.0
    color: RGBA | None = field(default=TRANSPARENT)
    name: ClassVar[str] = "drop-shadow"
    kind: ClassVar[str] = "shadow"

    @classmethod
    def from_css(cls, fn: ast.FunctionBlock, ts: TokenStream) -> "FilterOp":
        """``[ <color>? && <length>{2,3} ]``: the colour before or after the lengths."""
        args = single_argument(fn, ts)
        color = None
        have_color = False
        lengths_closed = False  # a colour after the lengths ends them
        lengths: list[float] = []
        while not args.at_end():
            tok = args.peek()
            if not have_color:
                c = read_color(args)
                if c is not None:
                    if len(lengths) == 1:
                        raise error(args, "drop-shadow() needs its 2 or 3 lengths together", tok)
                    color, have_color = (None if c == "currentcolor" else c), True
                    lengths_closed = bool(lengths)
                    continue
            if lengths_closed:
                raise error(args, f"unexpected {describe(tok)} after the colour", tok)
            if len(lengths) == 3:
                raise error(args, f"drop-shadow() takes at most 3 lengths, got {describe(tok)}", tok)
            value = length(args, "drop-shadow", minimum=0.0 if len(lengths) == 2 else None)
            if value is None:
                what = "a length" if have_color else "a colour or a length"
                raise error(args, f"drop-shadow() expects {what}, got {describe(tok)}", tok)
            lengths.append(value)
        if len(lengths) < 2:
            where = None if lengths else fn
            raise error(args, f"drop-shadow() needs an x and a y offset, got {len(lengths)} length(s)", where)
        dx, dy = lengths[0], lengths[1]
        sigma = lengths[2] if len(lengths) == 3 else 0.0
        return cls(dx, dy, sigma, color)

    def css(self) -> str:
        parts = [f"{_num(self.dx)}px", f"{_num(self.dy)}px", f"{_num(self.sigma)}px"]
        parts.append("currentcolor" if self.color is None else _color_css(self.color))
        return f"drop-shadow({' '.join(parts)})"

    def is_noop(self) -> bool:
        return self.color is not None and self.color.a == 0.0

    def resolved(self, current_color: RGBA) -> "DropShadow":
        if self.color is not None:
            return self
        return DropShadow(self.dx, self.dy, self.sigma, current_color)

    def pixel_offset(self, scale: float) -> tuple[float, float]:
        """The offset in pixels as planned (finite for float32 however far it is)."""
        return (min(max(self.dx * scale, -FAR_OFFSET), FAR_OFFSET), min(max(self.dy * scale, -FAR_OFFSET), FAR_OFFSET))

    def reach(self, scale: float) -> Reach:
        # The blurred alpha (same size as every image of a plan) spreads `r` on all
        # sides, and the shadow lands offset from it: room for both.
        r = math.ceil(3.0 * pixel_sigma(self.sigma, scale))
        dx, dy = self.pixel_offset(scale)
        outsets = (r + math.ceil(max(0.0, -dy)), r + math.ceil(max(0.0, dx)),
                   r + math.ceil(max(0.0, dy)), r + math.ceil(max(0.0, -dx)))
        return Reach(outsets, (r, r), (dx, dy))

    def reference(self, premult: np.ndarray) -> np.ndarray:
        """The input's alpha blurred, shifted by the offset (bilinear), times the
        premultiplied colour, with the input composited over it."""
        if self.color is None:
            raise ValueError("drop-shadow(): resolve currentcolor (resolved()) before running it")
        alpha = shift(gaussian_blur(premult[..., 3:4], self.sigma), self.dx, self.dy)
        under = alpha * np.array(self.color.premultiplied(), dtype=np.float64)
        return premult + under * (1.0 - premult[..., 3:4])

    def interpolate(self, other: "FilterOp", t: float) -> "FilterOp":
        assert isinstance(other, DropShadow)
        lengths = (
            _lerp(self.dx, other.dx, t),
            _lerp(self.dy, other.dy, t),
            max(_lerp(self.sigma, other.sigma, t), 0.0),
        )
        if self.color is None and other.color is None:
            return DropShadow(*lengths, None)  # currentcolor stays currentcolor
        if t == 0.0 or t == 1.0:
            return DropShadow(*lengths, self.color if t == 0.0 else other.color)
        # currentcolor against a real colour: approximated as black (Lamina resolves
        # currentcolor when painting, after interpolation).
        a = self.color if self.color is not None else RGBA(0, 0, 0, 1)
        b = other.color if other.color is not None else RGBA(0, 0, 0, 1)
        # Colours interpolate premultiplied (CSS Color 4 §12.3).
        pa, pb = a.premultiplied(), b.premultiplied()
        alpha = _lerp(pa[3], pb[3], t)
        rgb = [(_lerp(x, y, t) / alpha if alpha > 0 else 0.0) for x, y in zip(pa[:3], pb[:3])]
        color = RGBA(*(min(max(c, 0.0), 1.0) for c in rgb), min(max(alpha, 0.0), 1.0))
        return DropShadow(*lengths, color)


class MorphologyOperator(Enum):
    """feMorphology's ``operator``: erode takes the minimum, dilate the maximum."""

    ERODE = "erode"
    DILATE = "dilate"


MAX_MORPHOLOGY_RADIUS = 500.0  # px: a pass costs 2 r + 1 reads a pixel; beyond this, refused


@dataclass(frozen=True, repr=False)
class Morphology(FilterOp):
    """SVG's ``feMorphology`` (Filter Effects 1): each channel of the premultiplied
    input replaced by its minimum (erode) or maximum (dilate) over the rectangle of
    (2 rx + 1) x (2 ry + 1) pixels around it; outside the input is transparent black.
    Separable: a horizontal then a vertical pass. ``ry`` None is ``rx`` (``radius="r"``).

    A primitive of SVG filter graphs, which have no CSS function: it is used from Python
    in a chain (``FilterChain((Morphology("dilate", 2, 1),))``), so ``css()`` is a
    readable description that does not parse back. Radii are px (CSS px, scaled with
    the filter), whole pixels after scaling (truncated). An axis of radius 0 is left as
    it is, as Skia (Chromium's) runs only the other pass; both 0: the op does nothing.
    Negative radii are refused (the spec disables the primitive; here it is bad input).
    """

    operator: MorphologyOperator = MorphologyOperator.ERODE
    rx: float = 0.0
    ry: float | None = None
    name: ClassVar[str] = "morphology"
    kind: ClassVar[str] = "morphology"

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            operator = MorphologyOperator(self.operator)
        except ValueError:
            raise InvalidValueError(f"feMorphology: operator must be 'erode' or 'dilate', got {self.operator!r}",
                                    property="operator") from None
        object.__setattr__(self, "operator", operator)
        if self.ry is None:
            object.__setattr__(self, "ry", self.rx)
        for axis in ("rx", "ry"):
            value = getattr(self, axis)
            # Any real number (numpy's too), not a bool; stored as a Python float.
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise InvalidValueError(f"feMorphology: radius {axis} must be a finite number, got {value!r}", property="radius")
            value = float(value)
            object.__setattr__(self, axis, value)
            if value < 0:
                raise InvalidValueError(f"feMorphology: radius {axis} must not be negative, got {value!r}", property="radius")
            if value > MAX_MORPHOLOGY_RADIUS:
                raise InvalidValueError(f"feMorphology: radius {axis} = {value!r} is over the limit of "
                                        f"{MAX_MORPHOLOGY_RADIUS:g}px", property="radius")

    def css(self) -> str:
        return f"morphology({self.operator.value} {_num(self.rx)} {_num(self.ry)})"

    def pixel_radii(self, scale: float) -> tuple[int, int]:
        """The radii in whole pixels at ``scale`` (truncated; 1e-9 forgives float error)."""
        return (math.floor(self.rx * scale + 1e-9), math.floor(self.ry * scale + 1e-9))

    def is_noop(self) -> bool:
        return self.rx == 0 and self.ry == 0

    def dropped_at(self, scale: float) -> str | None:
        if self.pixel_radii(scale) == (0, 0):
            return f"{self.css()}: radii under 1px change nothing: dropped"
        return None

    def reach(self, scale: float) -> Reach:
        rx, ry = self.pixel_radii(scale)
        # A dilated input spreads by the radii; an eroded one does not (outside it, every
        # window holds transparent black).
        outsets = (ry, rx, ry, rx) if self.operator is MorphologyOperator.DILATE else (0, 0, 0, 0)
        return Reach(outsets, (rx, ry))

    def reference(self, premult: np.ndarray) -> np.ndarray:
        """Min or max over each axis in turn, of the input padded with transparent black."""
        rx, ry = self.pixel_radii(1.0)
        return morphology(premult, rx, ry, dilate=self.operator is MorphologyOperator.DILATE)

    def interpolate(self, other: "FilterOp", t: float) -> "FilterOp":
        # SVG animates the radii as numbers and the operator discretely.
        assert isinstance(other, Morphology)
        operator = self.operator if t < 0.5 else other.operator
        return Morphology(operator, max(_lerp(self.rx, other.rx, t), 0.0), max(_lerp(self.ry, other.ry, t), 0.0))


# CSS filter functions by name (Morphology has none: it is an SVG primitive).
OPS: dict[str, type[FilterOp]] = {
    cls.name: cls
    for cls in (Grayscale, Sepia, Saturate, HueRotate, Invert, Opacity, Brightness, Contrast, Blur, DropShadow)
}
