"""The float64 reference of SVG filter graphs: every Filter Effects 1 primitive written
from the spec, in numpy, favouring being obviously right over being fast. It is the
oracle GPU passes of SVG filters are tested against.

The pixel model (Filter Effects 1 §"Filter region", §"Filter primitive subregion"):

* User space is the element's; ``scale`` pixels per user unit. Pixel (i, j) covers user
  [i, i + 1) / scale, and its centre is where position-dependent primitives (turbulence,
  lighting) evaluate it.
* Every intermediate image covers the *canvas*: the filter region rounded out to whole
  pixels. A primitive's result is transparent black outside its subregion (clipped to
  the filter region), and so is SourceGraphic outside the element.
* Images are premultiplied RGBA in [0, 1], each tagged with its colour space; an input is
  converted to the reading primitive's space (``color-interpolation-filters``; linearRGB
  by default) where it is read, on un-premultiplied colour, and the result goes back to
  sRGB at the end. Colours given in markup (flood-color, lighting-color) are sRGB and
  converted into the primitive's space. feDisplacementMap converts only its map (in2),
  and its result keeps the space of ``in``, as the spec says; it reads the map quantised
  to 8-bit premultiplied sRGB, as the GPU passes (and Chromium, 8-bit) hold it.
* Values in ``primitiveUnits="objectBoundingBox"`` are fractions of the bounding box
  (x and lengths by its width, y by its height, a light's z by its normalised diagonal).

Choices the spec leaves open, made here and said so: feOffset and feImage sample
bilinearly (feImage, as browsers draw an image, with its edge texels clamped inside its
fitted rect, whose edges are anti-aliased by the part of a pixel they cover); feDisplacementMap samples the nearest pixel; feConvolveMatrix adds ``bias``
to every component (as Skia, Chromium's, does) and clamps colour to alpha; feSpotLight's
cone edge is smoothed (the spec asks for "a smoothing technique such as anti-aliasing"):
the light fades to 0 over the last CONE_SMOOTHING of -L.S inside it, as Skia (Chromium's)
does; percentages in userSpaceOnUse (relative to a viewport Lamina
does not have) are refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...errors import SvgFilterError, UnsupportedFeatureError
from ...css.values import RGBA
from ...blending import reference as blending

from ..ops import BLUR_SIGMA_CAP, HueRotate, Saturate, color_op, gaussian_kernel, morphology, shift
from . import model as m
from .graph import FilterGraph, build_graph
from .turbulence import turbulence

__all__ = ["Canvas", "Result", "subregion", "make_canvas", "run_filter", "apply_filter", "srgb_to_linear", "linear_to_srgb", "PRIMITIVE_REFERENCES",
           "MAX_CANVAS"]

CONE_SMOOTHING = 0.016  # feSpotLight: -L.S over which the cone's edge fades (Skia's kAntiAliasThreshold)
DISPLACE_TIE = 1e-9  # px: lifts feDisplacementMap moves of exactly half a pixel over the tie
MAX_CANVAS = 16384  # px on a side: the GL texture limit (DESIGN "Facts")
ImageLoader = Callable[[str], np.ndarray]  # href -> (H, W, 4) float64 premultiplied sRGB


# -- colour spaces (sRGB transfer function, IEC 61966-2-1, as Filter Effects 1 cites) ---

def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    c = np.asarray(c, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(c, dtype=np.float64), 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1.0 / 2.4) - 0.055)


def _unpremultiply(img: np.ndarray) -> np.ndarray:
    a = img[..., 3:4]
    out = np.where(a > 0, img / np.where(a > 0, a, 1.0), 0.0)
    out[..., 3:4] = a
    return np.clip(out, 0.0, 1.0)


def _premultiply(img: np.ndarray) -> np.ndarray:
    out = img.copy()
    out[..., :3] *= out[..., 3:4]
    return out


def convert(img: np.ndarray, src: m.ColorSpace, dst: m.ColorSpace) -> np.ndarray:
    """Premultiplied RGBA from space ``src`` to ``dst`` (the transfer function applies to
    un-premultiplied colour)."""
    if src is dst:
        return img
    straight = _unpremultiply(img)
    f = srgb_to_linear if dst is m.ColorSpace.LINEAR_RGB else linear_to_srgb
    straight[..., :3] = f(straight[..., :3])
    return _premultiply(straight)


def _color_in(color: RGBA, opacity: float, space: m.ColorSpace) -> np.ndarray:
    """A markup colour (sRGB) as premultiplied RGBA in ``space``."""
    rgb = np.array([color.r, color.g, color.b], dtype=np.float64)
    if space is m.ColorSpace.LINEAR_RGB:
        rgb = srgb_to_linear(rgb)
    a = color.a * opacity
    return np.concatenate([rgb * a, [a]])


# -- geometry -------------------------------------------------------------------------

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass(frozen=True)
class Canvas:
    """Where the images of one run lie: ``bbox`` the element's bounding box (user units,
    x, y, width, height), ``scale`` pixels per user unit, ``origin`` the pixel (in the
    element's pixel space) of the canvas' pixel (0, 0), ``size`` (width, height), and
    ``region`` the filter region in user units (x0, y0, x1, y1)."""

    bbox: tuple[float, float, float, float]
    scale: float
    origin: tuple[int, int]
    size: tuple[int, int]
    region: Rect

    def pixel_rect(self, r: Rect) -> tuple[int, int, int, int]:
        """A user-space rect as canvas pixels (rounded out, clipped to the canvas)."""
        s, (ox, oy), (w, h) = self.scale, self.origin, self.size
        x0 = min(max(math.floor(r[0] * s + 1e-9) - ox, 0), w)
        y0 = min(max(math.floor(r[1] * s + 1e-9) - oy, 0), h)
        x1 = min(max(math.ceil(r[2] * s - 1e-9) - ox, x0), w)
        y1 = min(max(math.ceil(r[3] * s - 1e-9) - oy, y0), h)
        return x0, y0, x1, y1

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        """User-space x (1, W) and y (H, 1) of every canvas pixel's centre."""
        w, h = self.size
        xs = (np.arange(w, dtype=np.float64) + self.origin[0] + 0.5) / self.scale
        ys = (np.arange(h, dtype=np.float64) + self.origin[1] + 0.5) / self.scale
        return xs[None, :], ys[:, None]


@dataclass
class Result:
    """One primitive's result: canvas-sized premultiplied pixels, zero outside ``rect``
    (its subregion, user units), in colour space ``space``."""

    pixels: np.ndarray
    rect: Rect
    space: m.ColorSpace


def filter_region(element: m.FilterElement, bbox: tuple[float, float, float, float]) -> Rect:
    """The filter region in user units (x0, y0, x1, y1)."""
    bx, by, bw, bh = bbox
    defaults = (m.Coordinate(-10, True), m.Coordinate(-10, True), m.Coordinate(120, True), m.Coordinate(120, True))
    values = []
    for name, default in zip(("x", "y", "width", "height"), defaults):
        c = getattr(element.region, name) or default
        if element.filter_units is m.Units.BOUNDING_BOX:
            base, size = (bx, bw) if name in ("x", "width") else (by, bh)
            values.append((base if name in ("x", "y") else 0.0) + c.fraction() * size)
        elif c.percent:
            written = getattr(element.region, name) is not None
            raise UnsupportedFeatureError(
                f"{element.describe()}: with filterUnits=\"userSpaceOnUse\", {name} "
                f"{'as a percentage' if written else 'left out (its default is a percentage)'} is relative to a "
                "viewport, which Lamina does not have: write it in px", property=name, value=f"{c.value:g}%",
                element=element.describe())
        else:
            values.append(c.value)
    x, y, w, h = values
    return (x, y, x + w, y + h)


def _length(canvas: Canvas, units: m.Units, value: float, axis: str) -> float:
    """A length in the primitive units as pixels."""
    if units is m.Units.BOUNDING_BOX:
        bw, bh = canvas.bbox[2], canvas.bbox[3]
        value *= {"x": bw, "y": bh, "z": math.sqrt((bw * bw + bh * bh) / 2.0)}[axis]
    return value * canvas.scale


def _position(canvas: Canvas, units: m.Units, value: float, axis: str) -> float:
    """A coordinate in the primitive units as a user-space coordinate."""
    if units is m.Units.BOUNDING_BOX:
        bx, by, bw, bh = canvas.bbox
        if axis == "z":
            return value * math.sqrt((bw * bw + bh * bh) / 2.0)
        return (bx + value * bw) if axis == "x" else (by + value * bh)
    return value


def subregion(prim: m.Primitive, element: m.FilterElement, canvas: Canvas, inputs: list[Rect | None]) -> Rect:
    """The primitive's subregion in user units, clipped to the filter region; ``inputs``
    the subregions of the nodes it reads (None for SourceGraphic / SourceAlpha).

    Filter Effects 1 §"filter primitive subregion": x, y, width and height not written
    default to the union of the inputs' subregions; to the filter region when there is
    no input (feFlood, feImage, feTurbulence), when an input is a keyword
    (SourceGraphic, SourceAlpha), and for feTile (whose job is to fill more than its
    input's subregion)."""
    region = canvas.region
    node_inputs = [r for r in inputs if r is not None]
    if inputs and len(node_inputs) == len(inputs) and not isinstance(prim, m.Tile):
        default = (min(r[0] for r in node_inputs), min(r[1] for r in node_inputs),
                   max(r[2] for r in node_inputs), max(r[3] for r in node_inputs))
    else:
        default = region
    x0, y0, x1, y1 = default
    values = {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}
    for name in values:
        c = getattr(prim.subregion, name)
        if c is None:
            continue
        if element.primitive_units is m.Units.BOUNDING_BOX:
            bx, by, bw, bh = canvas.bbox
            base, size = (bx, bw) if name in ("x", "width") else (by, bh)
            values[name] = (base if name in ("x", "y") else 0.0) + c.fraction() * size
        elif c.percent:
            raise UnsupportedFeatureError(
                f"{prim.describe()}: a percentage {name} with primitiveUnits=\"userSpaceOnUse\" is relative to a "
                "viewport, which Lamina does not have: write it in px", property=name, value=f"{c.value:g}%",
                element=prim.describe())
        else:
            values[name] = c.value
    x0, y0 = values["x"], values["y"]
    x1, y1 = x0 + values["width"], y0 + values["height"]
    return (max(x0, region[0]), max(y0, region[1]), min(x1, region[2]), min(y1, region[3]))


def node_subregion(graph: FilterGraph, canvas: Canvas, rects: dict[int, Rect], i: int) -> Rect:
    """Node ``i``'s subregion (``subregion``), its inputs' computed first and every one
    kept in ``rects``; pruned nodes' too: a pass-through's map still sets its default."""
    if i not in rects:
        n = graph.nodes[i]
        rects[i] = subregion(n.primitive, graph.filter, canvas,
                             [None if isinstance(j, m.StandardInput) else node_subregion(graph, canvas, rects, j)
                              for j in n.inputs])
    return rects[i]


# -- helpers over canvas images ---------------------------------------------------------

def _clip_to(img: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = rect
    out = np.zeros_like(img)
    out[y0:y1, x0:x1] = img[y0:y1, x0:x1]
    return out


def _edge_indices(n: int, lo: int, hi: int, pad: int, mode: m.EdgeMode) -> tuple[np.ndarray, np.ndarray]:
    """For positions -pad .. n + pad - 1: the index read and whether it is inside."""
    pos = np.arange(-pad, n + pad)
    if hi <= lo:
        return np.zeros_like(pos), np.zeros(pos.shape, dtype=bool)
    if mode is m.EdgeMode.DUPLICATE:
        return np.clip(pos, lo, hi - 1), np.ones(pos.shape, dtype=bool)
    if mode is m.EdgeMode.WRAP:
        return lo + np.mod(pos - lo, hi - lo), np.ones(pos.shape, dtype=bool)
    inside = (pos >= lo) & (pos < hi)
    return np.clip(pos, lo, hi - 1), inside


def extended(img: np.ndarray, rect: tuple[int, int, int, int], mode: m.EdgeMode, pad_x: int, pad_y: int) -> np.ndarray:
    """The canvas image grown by (pad_x, pad_y) on each side, with the content of pixel
    ``rect`` extended past its edges by ``mode`` (none: transparent black)."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = rect
    xi, xin = _edge_indices(w, x0, x1, pad_x, mode)
    yi, yin = _edge_indices(h, y0, y1, pad_y, mode)
    out = img[yi[:, None], xi[None, :]]
    return np.where((yin[:, None] & xin[None, :])[..., None], out, 0.0)


def _convolve_axis(padded: np.ndarray, kernel: np.ndarray, axis: int, n: int) -> np.ndarray:
    out = 0.0
    for i, wgt in enumerate(kernel):
        out = out + wgt * np.take(padded, np.arange(i, i + n), axis=axis)
    return out


# -- the primitives ---------------------------------------------------------------------

@dataclass
class Context:
    """What a primitive's reference reads besides its inputs."""

    element: m.FilterElement
    canvas: Canvas
    space: m.ColorSpace  # the primitive's colour space
    rect: Rect  # its subregion (user units)
    pixel_rect: tuple[int, int, int, int]
    image_loader: ImageLoader | None = None

    @property
    def units(self) -> m.Units:
        return self.element.primitive_units


def _blend(p: m.Blend, ctx: Context, a: Result, b: Result) -> np.ndarray:
    return blending.blend(b.pixels, a.pixels, p.mode)  # in over in2


def color_matrix(p: m.ColorMatrix) -> np.ndarray:
    """The 4x5 matrix of an feColorMatrix (rows R, G, B, A; columns R, G, B, A, 1)."""
    if p.type is m.ColorMatrixType.MATRIX:
        return np.array(p.values, dtype=np.float64).reshape(4, 5) if p.values is not None else np.eye(4, 5)
    if p.type is m.ColorMatrixType.SATURATE:
        return Saturate(p.values[0] if p.values is not None else 1.0).matrix()
    if p.type is m.ColorMatrixType.HUE_ROTATE:
        return HueRotate(p.values[0] if p.values is not None else 0.0).matrix()
    out = np.zeros((4, 5))
    out[3, :3] = (0.2125, 0.7154, 0.0721)  # luminanceToAlpha: the spec's coefficients
    return out


def _color_matrix(p: m.ColorMatrix, ctx: Context, a: Result) -> np.ndarray:
    return color_op(a.pixels, color_matrix(p))


def transfer(f: m.TransferFunction, c: np.ndarray) -> np.ndarray:
    """One feFunc on un-premultiplied values in [0, 1], clamped to [0, 1]."""
    v = f.table_values
    if f.type is m.TransferType.TABLE and v:
        n = len(v) - 1
        if n == 0:
            return np.full_like(c, min(max(v[0], 0.0), 1.0))
        k = np.minimum(np.floor(c * n).astype(int), n - 1)
        table = np.array(v)
        out = table[k] + (c - k / n) * n * (table[k + 1] - table[k])
    elif f.type is m.TransferType.DISCRETE and v:
        n = len(v)
        k = np.minimum(np.floor(c * n).astype(int), n - 1)
        out = np.array(v)[k]
    elif f.type is m.TransferType.LINEAR:
        out = f.slope * c + f.intercept
    elif f.type is m.TransferType.GAMMA:
        out = f.amplitude * np.power(c, f.exponent) + f.offset
    else:  # identity, and table / discrete with no values
        out = c
    return np.clip(out, 0.0, 1.0)


def _component_transfer(p: m.ComponentTransfer, ctx: Context, a: Result) -> np.ndarray:
    straight = _unpremultiply(a.pixels)
    for i, f in enumerate((p.red, p.green, p.blue, p.alpha)):
        straight[..., i] = transfer(f, straight[..., i])
    return _premultiply(straight)


def _composite(p: m.Composite, ctx: Context, a: Result, b: Result) -> np.ndarray:
    A, B = a.pixels, b.pixels
    aa, ab = A[..., 3:4], B[..., 3:4]
    op = p.operator
    if op is m.CompositeOperator.OVER:
        return A + B * (1 - aa)
    if op is m.CompositeOperator.IN:
        return A * ab
    if op is m.CompositeOperator.OUT:
        return A * (1 - ab)
    if op is m.CompositeOperator.ATOP:
        return A * ab + B * (1 - aa)
    if op is m.CompositeOperator.XOR:
        return A * (1 - ab) + B * (1 - aa)
    if op is m.CompositeOperator.LIGHTER:
        return np.minimum(A + B, 1.0)
    out = np.clip(p.k1 * A * B + p.k2 * A + p.k3 * B + p.k4, 0.0, 1.0)
    out[..., :3] = np.minimum(out[..., :3], out[..., 3:4])  # premultiplied colour cannot exceed alpha
    return out


def kernel_spacing(p: m.ConvolveMatrix, pixels_per_unit: tuple[float, float]) -> tuple[float, float]:
    """Pixels between feConvolveMatrix's kernel cells (x, y): kernelUnitLength as pixels,
    1 without it. The spec scales the image so a kernel cell is kernelUnitLength, convolves
    and scales back, without saying how it resamples; Lamina reads that as the kernel
    sampling the image at its cells' positions, bilinearly between pixels (cell (i, j)
    reads the point (j - targetX, i - targetY) x the spacing away), as Gecko's
    FilterNodeConvolveMatrixSoftware does. Whole-pixel lengths read whole pixels: the
    exact resampling to kernel units and back."""
    if p.kernel_unit_length is None:
        return 1.0, 1.0
    sx, sy = (v * per_unit for v, per_unit in zip(p.kernel_unit_length, pixels_per_unit))
    return sx, sy


def _bilinear(padded: np.ndarray, pad: int, dx: float, dy: float, w: int, h: int) -> np.ndarray:
    """The padded image (``pad`` px on each side) read at (x + dx, y + dy) for every pixel
    (x, y) of the w x h image, bilinearly between pixels."""
    x0, y0 = math.floor(dx), math.floor(dy)
    fx, fy = dx - x0, dy - y0

    def at(ox: int, oy: int) -> np.ndarray:
        return padded[pad + oy: pad + oy + h, pad + ox: pad + ox + w]

    top = (1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0) if fx else at(x0, y0)
    if not fy:
        return top
    bottom = (1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1) if fx else at(x0, y0 + 1)
    return (1 - fy) * top + fy * bottom


def _edge_offset(d: float, n: int, span: int, mode: m.EdgeMode) -> float:
    """An offset of ``d`` px along an axis of ``n`` pixels, as short as reads the same
    pixels by edge ``mode`` (the input's subregion ``span`` px long): a whole number of
    wrap periods off, or past the image by at most 1 px (a read further out gives what the
    edge gives there), so a kernelUnitLength of 1e5 px pads by the image, not by 1e5 px."""
    if mode is m.EdgeMode.WRAP and span > 0:
        return d - span * math.floor(d / span)
    return min(max(d, -(n + 1.0)), n + 1.0)


def _convolve(p: m.ConvolveMatrix, ctx: Context, a: Result) -> np.ndarray:
    ox, oy = p.order
    tx, ty = p.targets()
    sx, sy = kernel_spacing(p, (_length(ctx.canvas, ctx.units, 1.0, "x"), _length(ctx.canvas, ctx.units, 1.0, "y")))
    kernel = np.array(p.kernel, dtype=np.float64).reshape(oy, ox)
    src = a.pixels
    if p.preserve_alpha:
        src = _unpremultiply(src)
    in_rect = ctx.canvas.pixel_rect(a.rect)
    h, w = src.shape[:2]
    # RESULT(x, y) = sum_{i, j} SOURCE(x - targetX + j, y - targetY + i) kernel[orderY-i-1][orderX-j-1]
    # (offsets times the kernel spacing, read bilinearly between pixels: kernel_spacing)
    taps = [(kernel[oy - i - 1, ox - j - 1],
             _edge_offset((j - tx) * sx, w, in_rect[2] - in_rect[0], p.edge_mode),
             _edge_offset((i - ty) * sy, h, in_rect[3] - in_rect[1], p.edge_mode))
            for i in range(oy) for j in range(ox)]
    pad = math.ceil(max(max(abs(dx), abs(dy)) for _, dx, dy in taps)) + 1
    padded = extended(src, in_rect, p.edge_mode, pad, pad)
    total = np.zeros_like(src)
    for k, dx, dy in taps:
        if k:
            total += k * _bilinear(padded, pad, dx, dy, w, h)
    out = total / p.resolved_divisor() + p.bias
    if p.preserve_alpha:
        out[..., 3] = src[..., 3]
        return _premultiply(np.clip(out, 0.0, 1.0))
    out = np.clip(out, 0.0, 1.0)
    out[..., :3] = np.minimum(out[..., :3], out[..., 3:4])
    return out


def surface_normals(alpha: np.ndarray, rect: tuple[int, int, int, int], surface_scale: float,
                    unit: tuple[float, float] = (1.0, 1.0)) -> tuple[np.ndarray, np.ndarray]:
    """(Nx, Ny) of the spec's Sobel-like normal at every pixel of ``rect``, with its
    reduced kernels at edges and corners (where a neighbour is missing, the centre
    stands in and the factor grows: 2 / (span * row weight), which is the spec's table
    of 1/4, 1/3, 1/2 and 2/3). ``unit`` is the kernel's dx, dy in pixels
    (kernelUnitLength; 1 without it): the neighbours are read that far away, bilinearly
    between pixel centres, and one is missing where it falls past the rect's first or
    last pixel centre (a choice: the spec leaves open how the image is resampled)."""
    h, w = alpha.shape
    nx = np.zeros((h, w))
    ny = np.zeros((h, w))
    x0, y0, x1, y1 = rect
    if x1 <= x0 or y1 <= y0:
        return nx, ny
    a = alpha[y0:y1, x0:x1]
    rh, rw = a.shape
    ux, uy = unit
    xs, ys = np.arange(rw, dtype=np.float64), np.arange(rh, dtype=np.float64)
    has_l, has_r = (xs - ux >= 0).astype(float), (xs + ux <= rw - 1).astype(float)
    has_u, has_d = (ys - uy >= 0).astype(float), (ys + uy <= rh - 1).astype(float)
    cols = [np.where(has_l > 0, xs - ux, xs), xs, np.where(has_r > 0, xs + ux, xs)]  # the centre stands in
    rows = [np.where(has_u > 0, ys - uy, ys), ys, np.where(has_d > 0, ys + uy, ys)]

    def sample(yq: np.ndarray, xq: np.ndarray) -> np.ndarray:
        """``a`` bilinearly at rows ``yq`` (H,) and columns ``xq`` (W,), pixel centres at integers."""
        yi = np.minimum(np.floor(yq).astype(int), rh - 1)
        xi = np.minimum(np.floor(xq).astype(int), rw - 1)
        fy, fx = (yq - yi)[:, None], (xq - xi)[None, :]
        y1_, x1_ = np.minimum(yi + 1, rh - 1), np.minimum(xi + 1, rw - 1)
        top = a[yi][:, xi] * (1 - fx) + a[yi][:, x1_] * fx
        bottom = a[y1_][:, xi] * (1 - fx) + a[y1_][:, x1_] * fx
        return top * (1 - fy) + bottom * fy

    k = [[sample(rows[j], cols[i]) for i in range(3)] for j in range(3)]  # k[row][column]
    # x: rows y (weight 2), y - dy and y + dy (weight 1 each, where they exist).
    gx = 2.0 * (k[1][2] - k[1][0]) + has_u[:, None] * (k[0][2] - k[0][0]) + has_d[:, None] * (k[2][2] - k[2][0])
    gy = 2.0 * (k[2][1] - k[0][1]) + has_l[None, :] * (k[2][0] - k[0][0]) + has_r[None, :] * (k[2][2] - k[0][2])
    span_x = (has_l + has_r)[None, :]
    span_y = (has_u + has_d)[:, None]
    weight_rows = (2.0 + has_u + has_d)[:, None]
    weight_cols = (2.0 + has_l + has_r)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        nx[y0:y1, x0:x1] = np.where(span_x > 0, -surface_scale * 2.0 / (span_x * weight_rows) * gx, 0.0)
        ny[y0:y1, x0:x1] = np.where(span_y > 0, -surface_scale * 2.0 / (span_y * weight_cols) * gy, 0.0)
    return nx, ny


def _lighting(p: m.DiffuseLighting | m.SpecularLighting, ctx: Context, a: Result) -> np.ndarray:
    canvas = ctx.canvas
    alpha = a.pixels[..., 3]
    in_rect = canvas.pixel_rect(a.rect)
    unit = (1.0, 1.0)
    if p.kernel_unit_length is not None:
        unit = (_length(canvas, ctx.units, p.kernel_unit_length[0], "x"),
                _length(canvas, ctx.units, p.kernel_unit_length[1], "y"))
    nx, ny = surface_normals(alpha, in_rect, p.surface_scale, unit)
    norm = np.sqrt(nx * nx + ny * ny + 1.0)
    n = np.stack([nx / norm, ny / norm, 1.0 / norm], axis=-1)
    xs, ys = canvas.centres()
    px = np.broadcast_to(xs * canvas.scale, alpha.shape)  # pixels, in the element's pixel space
    py = np.broadcast_to(ys * canvas.scale, alpha.shape)
    z = p.surface_scale * alpha
    color = _color_in(p.lighting_color, 1.0, ctx.space)[:3]
    light = p.light
    units = ctx.units
    if isinstance(light, m.DistantLight):
        az, el = math.radians(light.azimuth), math.radians(light.elevation)
        L = np.broadcast_to(np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)]),
                            alpha.shape + (3,))
        lc = np.broadcast_to(color, alpha.shape + (3,))
    else:
        lx = _position(canvas, units, light.x, "x") * canvas.scale
        ly = _position(canvas, units, light.y, "y") * canvas.scale
        lz = _position(canvas, units, light.z, "z") * canvas.scale
        L = np.stack([lx - px, ly - py, lz - z], axis=-1)
        L = L / np.maximum(np.linalg.norm(L, axis=-1, keepdims=True), 1e-300)
        lc = np.broadcast_to(color, alpha.shape + (3,))
        if isinstance(light, m.SpotLight):
            sx, sy, sz = (_position(canvas, units, v, ax) * canvas.scale for v, ax in zip(light.points_at, "xyz"))
            S = np.array([sx - lx, sy - ly, sz - lz])
            S = S / max(np.linalg.norm(S), 1e-300)
            minus_l_dot_s = -(L @ S)
            factor = np.power(np.maximum(minus_l_dot_s, 0.0), light.exponent)
            if light.limiting_cone_angle is not None:
                cos_cone = math.cos(math.radians(abs(light.limiting_cone_angle)))
                smooth = np.clip((minus_l_dot_s - cos_cone) / CONE_SMOOTHING, 0.0, 1.0)
                factor = np.where(minus_l_dot_s < cos_cone, 0.0, factor * smooth)
            lc = color * factor[..., None]
    if isinstance(p, m.DiffuseLighting):
        n_dot_l = np.sum(n * L, axis=-1, keepdims=True)
        rgb = np.clip(p.diffuse_constant * n_dot_l * lc, 0.0, 1.0)
        out = np.concatenate([rgb, np.ones(alpha.shape + (1,))], axis=-1)
    else:
        H = L + np.array([0.0, 0.0, 1.0])
        H = H / np.maximum(np.linalg.norm(H, axis=-1, keepdims=True), 1e-300)
        n_dot_h = np.sum(n * H, axis=-1, keepdims=True)
        rgb = np.clip(p.specular_constant * np.power(np.maximum(n_dot_h, 0.0), p.specular_exponent) * lc, 0.0, 1.0)
        # Sa = max(Sr, Sg, Sb): the colour never exceeds alpha, and the result is meant to be
        # added to a lit texture (feComposite arithmetic k2 = k3 = 1): it is taken as
        # premultiplied as it stands (so Skia, Chromium's, does).
        return np.concatenate([rgb, rgb.max(axis=-1, keepdims=True)], axis=-1)
    return out  # diffuse: opaque, so premultiplied already


def _displacement(p: m.DisplacementMap, ctx: Context, a: Result, b: Result) -> np.ndarray:
    canvas = ctx.canvas
    dmap = _unpremultiply(b.pixels)  # in2 as 8 bits, in this primitive's space (both done by the caller), straight
    sx = _length(canvas, ctx.units, p.scale, "x")
    sy = _length(canvas, ctx.units, p.scale, "y")
    h, w = dmap.shape[:2]
    dx = sx * (dmap[..., p.x_channel.index] - 0.5)
    dy = sy * (dmap[..., p.y_channel.index] - 0.5)
    # An 8-bit map often moves by exactly half a pixel (e.g. 7.5 x (17/30 - .5)); such ties
    # round up, whatever float64 made of them (the GPU passes snap the same way).
    xs = np.floor(np.arange(w)[None, :] + 0.5 + dx + DISPLACE_TIE).astype(np.int64)
    ys = np.floor(np.arange(h)[:, None] + 0.5 + dy + DISPLACE_TIE).astype(np.int64)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    out = a.pixels[np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)]
    return np.where(inside[..., None], out, 0.0)


def _blur(img: np.ndarray, rect: tuple[int, int, int, int], sx: float, sy: float, mode: m.EdgeMode) -> np.ndarray:
    """Gaussian blur of a canvas image with standard deviations (sx, sy) px, each capped
    at BLUR_SIGMA_CAP as every blur Lamina plans and the CSS reference are, the content
    of pixel ``rect`` extended by ``mode``."""
    sx, sy = min(sx, BLUR_SIGMA_CAP), min(sy, BLUR_SIGMA_CAP)
    kx = gaussian_kernel(sx) if sx > 0 else np.ones(1)
    ky = gaussian_kernel(sy) if sy > 0 else np.ones(1)
    px, py = len(kx) // 2, len(ky) // 2
    h, w = img.shape[:2]
    padded = extended(img, rect, mode, px, py)
    rows = _convolve_axis(padded, kx, 1, w)
    return _convolve_axis(rows, ky, 0, h)


def _gaussian_blur(p: m.GaussianBlur, ctx: Context, a: Result) -> np.ndarray:
    sx = _length(ctx.canvas, ctx.units, p.std_deviation[0], "x")
    sy = _length(ctx.canvas, ctx.units, p.std_deviation[1], "y")
    if sx <= 0 and sy <= 0:
        return a.pixels.copy()  # "a value of zero disables the effect": the result is the input
    return _blur(a.pixels, ctx.canvas.pixel_rect(a.rect), sx, sy, p.edge_mode)


def _drop_shadow(p: m.DropShadow, ctx: Context, a: Result) -> np.ndarray:
    """The spec's equivalent graph: SourceAlpha of ``in`` blurred, offset, flooded with
    the colour, composited in, merged under ``in``."""
    canvas = ctx.canvas
    alpha = a.pixels[..., 3:4]
    sx = _length(canvas, ctx.units, p.std_deviation[0], "x")
    sy = _length(canvas, ctx.units, p.std_deviation[1], "y")
    if sx > 0 or sy > 0:
        alpha = _blur(alpha, canvas.pixel_rect(a.rect), sx, sy, m.EdgeMode.NONE)
    alpha = shift(alpha, _length(canvas, ctx.units, p.dx, "x"), _length(canvas, ctx.units, p.dy, "y"))
    shadow = alpha * _color_in(p.flood_color, p.flood_opacity, ctx.space)
    return a.pixels + shadow * (1.0 - a.pixels[..., 3:4])


def _flood(p: m.Flood, ctx: Context) -> np.ndarray:
    w, h = ctx.canvas.size
    return np.broadcast_to(_color_in(p.flood_color, p.flood_opacity, ctx.space), (h, w, 4)).copy()


def fit_image(align: str, mode: str, box: Rect, iw: int, ih: int) -> Rect:
    """preserveAspectRatio: where an iw x ih image lies in ``box`` (user units)."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    if align == "none":
        return box
    sx, sy = bw / iw, bh / ih
    s = min(sx, sy) if mode == "meet" else max(sx, sy)
    w, h = iw * s, ih * s
    fx = {"Min": 0.0, "Mid": 0.5, "Max": 1.0}[align[1:4]]
    fy = {"Min": 0.0, "Mid": 0.5, "Max": 1.0}[align[5:8]]
    x, y = x0 + (bw - w) * fx, y0 + (bh - h) * fy
    return (x, y, x + w, y + h)


def _image(p: m.Image, ctx: Context) -> np.ndarray:
    if ctx.image_loader is None:
        raise UnsupportedFeatureError(f"{p.describe()}: feImage needs its image ({p.href!r}); this run has no way "
                                      "to load images (give image_loader)", property="href", value=p.href,
                                      element=p.describe())
    src = np.asarray(ctx.image_loader(p.href), dtype=np.float64)  # premultiplied sRGB
    ih, iw = src.shape[:2]
    align, mode = p.preserve_aspect_ratio.split(" ")
    x0, y0, x1, y1 = fit_image(align, mode, ctx.rect, iw, ih)
    canvas = ctx.canvas
    if not (x1 > x0 and y1 > y0):  # an empty subregion (width or height 0): nothing drawn
        return np.zeros((canvas.size[1], canvas.size[0], 4))
    xs, ys = canvas.centres()
    # Canvas pixel centre -> image pixel coordinates. The picture is drawn into its fitted
    # rect as browsers draw an image (Skia): bilinear with the picture's edge texels
    # clamped, times the part of the pixel the rect covers (anti-aliased edges), not faded
    # into transparency past its edge texels' centres.
    u = (xs - x0) / (x1 - x0) * iw - 0.5
    v = (ys - y0) / (y1 - y0) * ih - 0.5
    w, h = canvas.size
    su, sv = iw / ((x1 - x0) * canvas.scale), ih / ((y1 - y0) * canvas.scale)  # picture px per pixel

    def covered(q: np.ndarray, step: float, n: int) -> np.ndarray:
        return np.clip((np.minimum(q + step / 2, n - 0.5) - np.maximum(q - step / 2, -0.5)) / step, 0.0, 1.0)

    coverage = covered(u, su, iw) * covered(v, sv, ih)
    out = shift_sample(src, np.broadcast_to(np.clip(u, 0, iw - 1), (h, w)),
                       np.broadcast_to(np.clip(v, 0, ih - 1), (h, w))) * coverage[..., None]
    if mode == "slice":
        out = _clip_to(out, ctx.pixel_rect)
    return convert(out, m.ColorSpace.SRGB, ctx.space)


def shift_sample(img: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``img`` at pixel coordinates (u, v) (0 is pixel 0's centre),
    transparent black outside."""
    h, w = img.shape[:2]
    x0 = np.floor(u).astype(np.int64)
    y0 = np.floor(v).astype(np.int64)
    fx, fy = (u - x0)[..., None], (v - y0)[..., None]

    def at(yy, xx):
        ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        return np.where(ok[..., None], img[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], 0.0)

    return (at(y0, x0) * (1 - fx) * (1 - fy) + at(y0, x0 + 1) * fx * (1 - fy)
            + at(y0 + 1, x0) * (1 - fx) * fy + at(y0 + 1, x0 + 1) * fx * fy)


def _merge(p: m.Merge, ctx: Context, *layers: Result) -> np.ndarray:
    w, h = ctx.canvas.size
    out = np.zeros((h, w, 4))
    for layer in layers:
        out = layer.pixels + out * (1.0 - layer.pixels[..., 3:4])
    return out


def _morphology(p: m.Morphology, ctx: Context, a: Result) -> np.ndarray:
    rx = math.floor(_length(ctx.canvas, ctx.units, p.radius[0], "x") + 1e-9)
    ry = math.floor(_length(ctx.canvas, ctx.units, p.radius[1], "y") + 1e-9)
    if p.radius[0] <= 0 or p.radius[1] <= 0:
        return a.pixels.copy()  # "a negative or zero value disables the effect": the input
    # transparent black outside the canvas
    return morphology(a.pixels, rx, ry, dilate=p.operator is m.MorphologyOperator.DILATE)


def _offset(p: m.Offset, ctx: Context, a: Result) -> np.ndarray:
    return shift(a.pixels, _length(ctx.canvas, ctx.units, p.dx, "x"), _length(ctx.canvas, ctx.units, p.dy, "y"))


def _tile(p: m.Tile, ctx: Context, a: Result) -> np.ndarray:
    x0, y0, x1, y1 = ctx.canvas.pixel_rect(a.rect)
    w, h = ctx.canvas.size
    if x1 <= x0 or y1 <= y0:
        return np.zeros((h, w, 4))
    xs = x0 + np.mod(np.arange(w) - x0, x1 - x0)
    ys = y0 + np.mod(np.arange(h) - y0, y1 - y0)
    return a.pixels[ys[:, None], xs[None, :]]


def _turbulence(p: m.Turbulence, ctx: Context) -> np.ndarray:
    canvas = ctx.canvas
    xs, ys = canvas.centres()
    w, h = canvas.size
    px, py = np.broadcast_to(xs, (h, w)), np.broadcast_to(ys, (h, w))
    x0, y0, x1, y1 = ctx.rect
    if x1 <= x0 or y1 <= y0:
        return np.zeros((h, w, 4))  # an empty subregion (stitching would divide by its size)
    fractal = p.type is m.TurbulenceType.FRACTAL_NOISE
    seed = int(p.seed)  # truncated toward zero, as the spec says
    out = np.empty((h, w, 4))
    for ch in range(4):
        v = turbulence(ch, px, py, p.base_frequency[0], p.base_frequency[1], p.num_octaves, fractal,
                       p.stitch_tiles, (x0, y0, x1 - x0, y1 - y0), seed)
        out[..., ch] = (v + 1.0) / 2.0 if fractal else v
    return _premultiply(np.clip(out, 0.0, 1.0))  # the noise is un-premultiplied RGBA


PRIMITIVE_REFERENCES: dict[type[m.Primitive], Callable[..., np.ndarray]] = {
    m.Blend: _blend,
    m.ColorMatrix: _color_matrix,
    m.ComponentTransfer: _component_transfer,
    m.Composite: _composite,
    m.ConvolveMatrix: _convolve,
    m.DiffuseLighting: _lighting,
    m.SpecularLighting: _lighting,
    m.DisplacementMap: _displacement,
    m.DropShadow: _drop_shadow,
    m.Flood: _flood,
    m.GaussianBlur: _gaussian_blur,
    m.Image: _image,
    m.Merge: _merge,
    m.Morphology: _morphology,
    m.Offset: _offset,
    m.Tile: _tile,
    m.Turbulence: _turbulence,
}
assert set(PRIMITIVE_REFERENCES) == set(m.PRIMITIVES.values())


# -- whole graphs -----------------------------------------------------------------------

def make_canvas(element: m.FilterElement, bbox: tuple[float, float, float, float], scale: float = 1.0) -> Canvas:
    region = filter_region(element, bbox)
    x0, y0 = math.floor(region[0] * scale + 1e-9), math.floor(region[1] * scale + 1e-9)
    x1, y1 = math.ceil(region[2] * scale - 1e-9), math.ceil(region[3] * scale - 1e-9)
    w, h = max(x1 - x0, 0), max(y1 - y0, 0)
    if w > MAX_CANVAS or h > MAX_CANVAS:
        raise SvgFilterError(f"the filter region is {w}x{h} px, over the {MAX_CANVAS} px a texture may have",
                             element=element.describe(), attribute="width" if w > MAX_CANVAS else "height",
                             value=f"{w}x{h}")
    return Canvas(bbox, scale, (x0, y0), (w, h), region)


def run_filter(element: m.FilterElement | FilterGraph, source: np.ndarray, *,
               bbox: tuple[float, float, float, float] | None = None, scale: float = 1.0,
               image_loader: ImageLoader | None = None,
               source_origin: tuple[int, int] = (0, 0), source_tainted: bool = False) -> tuple[np.ndarray, Canvas]:
    """Run a filter on ``source`` (float64 premultiplied sRGB, (H, W, 4), pixel (0, 0) at
    the element's pixel ``source_origin``: (0, 0), the user space's origin, unless the
    source holds more than the element, as a chain grown by other functions does); the
    result (premultiplied sRGB) over the canvas, and the canvas. ``bbox`` defaults to
    the source's extent in user units. ``source_tainted``: the source is a backdrop, which
    Filter Effects 1 §16.3 taints: an feDisplacementMap whose map reads it passes its
    ``in`` through, unclipped (§16.4; ``FilterGraph.with_tainted_source``)."""
    graph = element if isinstance(element, FilterGraph) else build_graph(element)
    if source_tainted:
        graph = graph.with_tainted_source()
    element = graph.filter
    src = np.asarray(source, dtype=np.float64)
    sh, sw = src.shape[:2]
    if bbox is None:
        bbox = (0.0, 0.0, sw / scale, sh / scale)
    canvas = make_canvas(element, bbox, scale)
    w, h = canvas.size
    # SourceGraphic on the canvas: transparent outside the source's pixels.
    placed = np.zeros((h, w, 4))
    ox, oy = canvas.origin[0] - source_origin[0], canvas.origin[1] - source_origin[1]  # in source pixels
    sx0, sy0 = max(0, ox), max(0, oy)
    sx1, sy1 = min(sw, ox + w), min(sh, oy + h)
    if sx1 > sx0 and sy1 > sy0:
        placed[sy0 - oy:sy1 - oy, sx0 - ox:sx1 - ox] = src[sy0:sy1, sx0:sx1]
    # The keyword inputs count as covering the filter region (a primitive reading one
    # defaults to the filter region as its subregion).
    keywords = {
        m.StandardInput.SOURCE_GRAPHIC: Result(placed, canvas.region, m.ColorSpace.SRGB),
        m.StandardInput.SOURCE_ALPHA: Result(placed * np.array([0.0, 0.0, 0.0, 1.0]), canvas.region, m.ColorSpace.SRGB),
    }
    if graph.output is None or w == 0 or h == 0:
        return np.zeros((h, w, 4)), canvas  # an empty filter (or region) makes the element transparent
    results: dict[int, Result] = {}
    rects: dict[int, Rect] = {}
    for node in graph.live_nodes():
        prim = node.primitive
        space = element.space_of(prim)
        rect = node_subregion(graph, canvas, rects, node.index)
        if node.index in graph.passed_through:  # the map is tainted: ``in`` as it is
            read = node.inputs[0]
            passed = keywords[read] if isinstance(read, m.StandardInput) else results[read]
            results[node.index] = Result(passed.pixels, rect, passed.space)
            continue
        raw = [keywords[i] if isinstance(i, m.StandardInput) else results[i] for i in node.inputs]
        if isinstance(prim, m.DisplacementMap):
            # Only the map is converted; the displaced image keeps its space (and so does the result).
            # The map is read as the GPU passes hold it, an 8-bit premultiplied sRGB image, as Chromium
            # holds it too (Skia's displacement map is an 8-bit premultiplied image): where its alpha
            # is low, that rounding moves its straight colour a lot, so an exact float64 map would
            # move pixels by up to ~2 px more than any browser does.
            held = np.floor(convert(raw[1].pixels, raw[1].space, m.ColorSpace.SRGB) * 255.0 + 0.5) / 255.0
            inputs = [raw[0], Result(convert(held, m.ColorSpace.SRGB, space), raw[1].rect, space)]
            out_space = raw[0].space
        else:
            inputs = [Result(convert(r.pixels, r.space, space), r.rect, space) for r in raw]
            out_space = space
        ctx = Context(element, canvas, space, rect, canvas.pixel_rect(rect), image_loader)
        pixels = PRIMITIVE_REFERENCES[type(prim)](prim, ctx, *inputs)
        results[node.index] = Result(_clip_to(pixels, ctx.pixel_rect), rect, out_space)
    final = results[graph.output]
    return convert(final.pixels, final.space, m.ColorSpace.SRGB), canvas


def apply_filter(element: m.FilterElement | FilterGraph, source: np.ndarray, *, scale: float = 1.0,
                 image_loader: ImageLoader | None = None, grow: bool = False) -> tuple[np.ndarray, tuple[int, int]]:
    """The filter on float64 premultiplied ``source``, cropped to the source's extent (or,
    with ``grow``, the whole filter region); and where the result's pixel (0, 0) lies in
    the source's pixels."""
    out, canvas = run_filter(element, source, scale=scale, image_loader=image_loader)
    if grow:
        return out, canvas.origin
    sh, sw = source.shape[:2]
    ox, oy = canvas.origin
    crop = np.zeros((sh, sw, 4))
    x0, y0 = max(0, ox), max(0, oy)
    x1, y1 = min(sw, ox + canvas.size[0]), min(sh, oy + canvas.size[1])
    if x1 > x0 and y1 > y0:
        crop[y0:y1, x0:x1] = out[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
    return crop, (0, 0)
