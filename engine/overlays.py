"""Debug overlays, like browser DevTools', drawn from the frame graph on top of a frame:

* ``borders``   — every layer's quad outlined: green when it has a texture of its own,
  orange for backings holding several layers, blue for render surfaces, and each tile
  of a tiled layer or backing (a scroller's contents) in brown, as Chromium's tile borders;
* ``paint``     — paint flashing: what was rastered (or repainted) this frame, outlined
  and lightly tinted green (as Chromium's paint flashing), so the content stays visible;
* ``overdraw``  — a heat map of how many draws touched each pixel (1 blue ... 5+ red);
* ``surfaces``  — render surfaces outlined (filters, opacity groups, blend and isolation
  groups, backdrop-filters) in blue, draws that read their backdrop (blend modes) in magenta;
* ``raster-scale`` — each layer drawn from a raster at another scale than 1 (or held at
  one: compositor.raster_scale) outlined in the colour of why, with its contents scale
  written at its corner ("3x"): green ideal, yellow fixed by an animation, purple kept by
  will-change, cyan settled (re-rastered), grey kept within the threshold, red capped (an
  animating layer by memory, any by a texture side);
* ``splits``    — 3D rendering contexts (transform-style: preserve-3d): each piece of a
  layer split by another's plane (graph.contexts3d) outlined in red, so one sees where the
  BSP cut and which draws it added (contexts drawn into the frame itself; one flattened
  into a render surface is not outlined).

Everything is derived from the executed FrameGraph: each draw's quad is mapped to the
frame through the draws that carried its target there. Each pass says what it adds
(``GraphPass.overlay``: the quads it draws, the textures whose pixels reach the frame
through it; ``repaints``: whether paint flashing marks it), so a new kind of pass needs
nothing here. ``LEGENDS`` says what each
overlay's colours mean, for a legend beside the picture (the demos draw it on the canvas).
"""

from __future__ import annotations


import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .errors import InvalidValueError
from .framegraph import FrameGraph, TextureRole
from .geometry import Affine, Rect, clipped_polygon
from .named import NamedEnum

__all__ = ["Overlay", "OVERLAYS", "LEGENDS", "overlay", "screen_quads", "overdraw_counts"]


class Overlay(NamedEnum):
    """A debug overlay (see above), parsed once from its name. A ``str``
    (``Overlay.PAINT == "paint"``, same hash and format) so names read as they did."""

    BORDERS = "borders"
    PAINT = "paint"
    OVERDRAW = "overdraw"
    SURFACES = "surfaces"
    RASTER_SCALE = "raster-scale"
    SPLITS = "splits"


    @classmethod
    def parse(cls, value: "Overlay | str") -> "Overlay":
        """The overlay named ``value``; an InvalidValueError naming the choices otherwise."""
        try:
            return cls(value)
        except ValueError:
            raise InvalidValueError(f"unknown overlay {value!r} (choose from {', '.join(OVERLAYS)})",
                                    property="overlay") from None


OVERLAYS = tuple(o.value for o in Overlay)  # their names (the command line's choices)

_GREEN = (0, 200, 0)
_ORANGE = (255, 140, 0)
_BLUE = (40, 110, 255)
_BROWN = (150, 80, 20)  # tiles
_MAGENTA = (230, 0, 200)  # draws that read their backdrop (blend modes)
_FLASH = (0, 255, 0)
_YELLOW = (230, 190, 0)
_PURPLE = (140, 60, 200)
_CYAN = (0, 180, 200)
_GREY = (128, 128, 128)
_RED = (230, 20, 20)
# Why a layer is rastered at its scale (RasterScaleReason's value) -> its outline colour.
_SCALE_COLOURS = {"ideal": _GREEN, "animating: fixed": _YELLOW, "will-change: transform: kept": _PURPLE,
                  "settled: re-rastered": _CYAN, "kept: within 2% of ideal": _GREY}
# A painted quad keeps 3/4 of its own colour under the flash: a colour animation stays
# visible (at 1/2 a red card read as solid green), and the outline marks it for sure.
_FLASH_KEEP = 3
_HEAT = np.array([[40, 80, 255], [0, 200, 200], [80, 220, 0], [255, 200, 0], [255, 40, 0]], float)

Colour = tuple[int, int, int]

# overlay -> (colour, what it means) for each colour it draws, in the order a legend lists them
LEGENDS: dict[Overlay, tuple[tuple[Colour, str], ...]] = {
    Overlay.BORDERS: (
        (_GREEN, "green: a layer's own texture"),
        (_ORANGE, "orange: a backing shared by layers"),
        (_BLUE, "blue: a render surface or filter output"),
        (_BROWN, "brown: a tile of a tiled backing"),
    ),
    Overlay.PAINT: ((_FLASH, "green: repainted this frame"),),
    Overlay.OVERDRAW: tuple(
        (tuple(int(c) for c in heat), label)
        for heat, label in zip(_HEAT, ("blue: drawn once", "cyan: 2 draws", "green: 3 draws", "yellow: 4 draws",
                                       "red: 5 or more draws"))
    ),
    Overlay.SURFACES: (
        (_BLUE, "blue: a render surface (an offscreen pass)"),
        (_MAGENTA, "magenta: reads its backdrop (a read-back)"),
    ),
    Overlay.RASTER_SCALE: (
        (_GREEN, "green: rastered at its ideal scale (label: contents scale)"),
        (_YELLOW, "yellow: scale fixed while an animation runs"),
        (_PURPLE, "purple: scale kept under will-change: transform"),
        (_CYAN, "cyan: settled, re-rastered at its ideal scale"),
        (_GREY, "grey: kept, within 2% of its ideal scale"),
        (_RED, "red: capped (memory, animating; texture size)"),
    ),
    Overlay.SPLITS: ((_RED, "red: a piece of a layer split in a 3D rendering context"),),
}


def screen_quads(graph: FrameGraph):
    """(draw, pass, 4 corner points in frame px) for every draw of every composite pass
    that reaches the frame."""
    to_frame: dict[str, Affine] = {graph.output.name: Affine()}
    out = []
    # Walk from the frame back to the first pass: a texture's map to the frame is known
    # (from the draw that puts it there) before the passes that made it are visited.
    for p in reversed(graph.passes):
        m_target = to_frame.get(p.target.name)
        if m_target is None:
            continue
        part = p.overlay(m_target)
        for d, m in part.quads:
            w, h = d.quad_size
            # A projected quad is clipped where it reaches behind the eye, and then to
            # (a margin around) the frame: the cut may reach very far out.
            corners = _within(clipped_polygon(Rect(0, 0, w, h), m), graph.width, graph.height)
            if len(corners) >= 3:
                out.append((d, p, corners))
        for t, m in part.sources:
            to_frame.setdefault(t.name, m)
    return out


def _within(points: list[tuple[float, float]], width: int, height: int, margin: float = 4.0) -> list[tuple[float, float]]:
    """A convex polygon cut to the frame grown by ``margin`` (Sutherland-Hodgman, one
    edge of the box at a time); the same points when it lies inside."""
    lo_x, lo_y, hi_x, hi_y = -margin, -margin, width + margin, height + margin
    if all(lo_x <= x <= hi_x and lo_y <= y <= hi_y for x, y in points):
        return points
    for axis, bound, keep_below in ((0, lo_x, False), (0, hi_x, True), (1, lo_y, False), (1, hi_y, True)):
        out = []
        for k, p in enumerate(points):
            q = points[(k + 1) % len(points)]
            p_in = p[axis] <= bound if keep_below else p[axis] >= bound
            q_in = q[axis] <= bound if keep_below else q[axis] >= bound
            if p_in:
                out.append(p)
            if p_in != q_in:
                t = (bound - p[axis]) / (q[axis] - p[axis])
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
        points = out
        if not points:
            break
    return points


def overdraw_counts(graph: FrameGraph) -> np.ndarray:
    """(H, W) how many draws, in any pass that reaches the frame, cover each pixel."""
    count = np.zeros((graph.height, graph.width), int)
    for _, _, corners in screen_quads(graph):
        count += _inside(corners, graph.width, graph.height)
    return count


def _inside(corners, width: int, height: int) -> np.ndarray:
    """Boolean mask of pixel centres inside a convex quad."""
    mask = np.zeros((height, width), bool)
    box, inside = _inside_box(corners, width, height)
    if box is not None:
        mask[box] = inside
    return mask


def _inside_box(corners, width: int, height: int):
    """The quad's bounding box in the frame (a pair of slices, or None when it misses)
    and the mask of pixel centres inside the quad there: only the box is worked out,
    a page's quads being small against the frame."""
    xs_all = [c[0] for c in corners]
    ys_all = [c[1] for c in corners]
    x0, x1 = max(int(np.floor(min(xs_all))), 0), min(int(np.ceil(max(xs_all))), width)
    y0, y1 = max(int(np.floor(min(ys_all))), 0), min(int(np.ceil(max(ys_all))), height)
    if x0 >= x1 or y0 >= y1:
        return None, None
    px, py = np.meshgrid(np.arange(x0, x1) + 0.5, np.arange(y0, y1) + 0.5)
    inside_pos = np.ones(px.shape, bool)
    inside_neg = np.ones(px.shape, bool)
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        inside_pos &= cross >= 0
        inside_neg &= cross <= 0
    return (slice(y0, y1), slice(x0, x1)), inside_pos | inside_neg


def _clip_segment(p0, p1, left: float, top: float, right: float, bottom: float):
    """The part of the segment p0-p1 inside the rect (Liang-Barsky), or None."""
    (x0, y0), (x1, y1) = p0, p1
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0.0:
            if q < 0.0:
                return None
            continue
        t = q / p
        if p < 0.0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return (x0 + t0 * dx, y0 + t0 * dy), (x0 + t1 * dx, y0 + t1 * dy)


def _outline(img: np.ndarray, corners, color, width: int = 2) -> None:
    """A ``width``-pixel line along each edge of the quad: two samples per pixel of the
    edge's length, each setting the pixels of a small square (vectorised per edge)."""
    h, w = img.shape[:2]
    offsets = np.arange(-(width // 2), (width + 1) // 2)
    for edge in zip(corners, corners[1:] + corners[:1]):
        clipped = _clip_segment(*edge, -width, -width, w + width, h + width)
        if clipped is None:
            continue  # off the image
        (x0, y0), (x1, y1) = clipped  # (a huge layer's edge is sampled only where it shows)
        n = int(max(abs(x1 - x0), abs(y1 - y0))) * 2 + 2
        s = np.linspace(0.0, 1.0, n)
        xi = np.floor(x0 + (x1 - x0) * s).astype(int)
        yi = np.floor(y0 + (y1 - y0) * s).astype(int)
        rows = (yi[:, None, None] + offsets[None, :, None]).repeat(len(offsets), axis=2).ravel()
        cols = (xi[:, None, None] + offsets[None, None, :]).repeat(len(offsets), axis=1).ravel()
        keep = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
        img[rows[keep], cols[keep], :3] = color


def overlay(frame, kind: "Overlay | str") -> np.ndarray:
    """The frame's straight RGBA image with the ``kind`` overlay drawn on it."""
    kind = Overlay.parse(kind)
    graph: FrameGraph = frame.graph
    h, w = frame.image.shape[:2]
    quads = screen_quads(graph)
    if kind is Overlay.OVERDRAW:
        img = frame.image.astype(np.float64)
        count = overdraw_counts(graph)
        grey = img[..., :3].mean(axis=-1, keepdims=True) * 0.5
        heat = _HEAT[np.clip(count, 1, 5) - 1]
        img[..., :3] = np.where(count[..., None] > 0, 0.45 * grey + 0.55 * heat, grey)
        img[..., 3] = 255
        return img.astype(np.uint8)
    if kind is Overlay.RASTER_SCALE:
        return _raster_scales(frame.image.copy(), graph, quads)
    if kind is Overlay.SPLITS:
        img = frame.image.copy()
        for context in getattr(graph, "contexts3d", ()):
            if context.target != "frame":
                continue  # drawn into a surface: its px are not the frame's
            for piece in context.outlines:
                _outline(img, _within(list(piece), w, h), _RED)
        return img
    img = frame.image.copy()  # outlines and flashes are exact in 8 bits: no float image
    painted = {p.target.name for p in graph.passes if p.repaints}
    # Paint flashing tints each pixel once, however many painted quads cover it (a layer
    # rastered into a backing that is repainted is two), then outlines each quad.
    flashed = np.zeros((h, w), bool) if kind is Overlay.PAINT else None
    outlines = []
    for d, _, corners in quads:
        role = d.source.role
        if kind is Overlay.PAINT:
            if d.source.name in painted:
                box, mask = _inside_box(corners, w, h)
                if box is not None:
                    flashed[box] |= mask
                    outlines.append(corners)
        elif kind is Overlay.BORDERS:
            if role == TextureRole.LAYER_CONTENT:
                _outline(img, corners, _GREEN)
            elif role == TextureRole.BACKING:
                _outline(img, corners, _ORANGE)
            elif role == TextureRole.TILE:
                _outline(img, corners, _BROWN)
            else:
                _outline(img, corners, _BLUE)
        elif kind is Overlay.SURFACES and d.backdrop is not None:
            _outline(img, corners, _MAGENTA, width=3)  # reads what lies under it (a read-back)
        elif kind is Overlay.SURFACES and role in (TextureRole.RENDER_SURFACE, TextureRole.FILTER_OUTPUT):
            _outline(img, corners, _BLUE, width=3)
    if outlines:
        # 3/4 the pixel, 1/4 the flash colour, rounded down.
        flash = np.array(_FLASH, np.uint16)
        img[flashed, :3] = (img[flashed, :3].astype(np.uint16) * _FLASH_KEEP + flash) // (_FLASH_KEEP + 1)
        img[flashed, 3] = np.maximum(img[flashed, 3], 64)
        for corners in outlines:
            _outline(img, corners, _FLASH)
    return img


def _raster_scales(img: np.ndarray, graph: FrameGraph, quads) -> np.ndarray:
    """The raster-scale overlay: each scaled layer outlined where it is on this frame
    (FrameGraph.scaled_quads: its ink rect under its screen matrix, so also on a frame that
    reuses its raster or backing and draws no pass of it) in the colour of its reason, its
    contents scale written at its top-left corner (held inside the frame). ``quads`` (this
    frame's draws) serve a graph made without scaled_quads."""
    h, w = img.shape[:2]
    scaled = graph.scaled_layers()
    where = dict(getattr(graph, "scaled_quads", {}) or {})
    for d, _, corners in quads:  # a graph without scaled_quads: this frame's draws of the layer
        if (d.layer_id in scaled and d.layer_id not in where
                and d.source.role in (TextureRole.LAYER_CONTENT, TextureRole.TILE, TextureRole.BACKING)):
            where[d.layer_id] = tuple(corners)
    labels = []
    for layer_id, decision in scaled.items():
        corners = where.get(layer_id)
        if corners is None:
            continue
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        if max(xs) < 0 or max(ys) < 0 or min(xs) >= w or min(ys) >= h:
            continue  # off the frame
        colour = _RED if decision.capped_from is not None else _SCALE_COLOURS.get(decision.reason.value, _GREEN)
        _outline(img, list(corners), colour)
        at = (min(max(0, int(min(xs))), w - 1) + 3, min(max(0, int(min(ys))), h - 1) + 3)
        labels.append((layer_id, at, f"{decision.contents_scale:.3g}x", colour))
    if labels:
        picture = Image.fromarray(img)
        pen = ImageDraw.Draw(picture)
        font = ImageFont.load_default(size=13)  # Pillow's own font: readable at DPR 1
        for _, at, text, colour in labels:
            box = pen.textbbox(at, text, font=font)
            pen.rectangle((box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1), fill=(255, 255, 255, 255))
            pen.text(at, text, fill=(*colour, 255), font=font)
        img = np.asarray(picture).copy()
    return img
