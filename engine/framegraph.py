"""The frame graph: plain data describing one frame's GPU work, built before anything runs.

Passes read and write ``TextureDesc`` handles (virtual textures); executors map them to
pooled GPU textures using the lifetimes computed here. Every pass says why it exists, so
the graph doubles as the frame's explanation (``FrameGraph.describe()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Union

from .blending import BlendMode
from .compositor.paint_data import GradientPaint, ImagePaint, LayerPaint
from .compositor.policy import AllPolicy, Policy
from .geometry import Affine
from .images import ImageResource

__all__ = [
    "TextureRole",
    "TextureDesc",
    "LayerPaint",
    "ImagePaint",
    "GradientPaint",
    "ClipShape",
    "DrawMask",
    "Draw",
    "RasterPass",
    "ShadowPass",
    "TileSet",
    "CompositePass",
    "FilterPass",
    "TransferPass",
    "UploadPass",
    "BackdropPass",
    "Executor",
    "SurfaceReason",
    "FrameGraph",
    "Decision",
    "LayerInfo",
]


class Executor(str, Enum):
    """Who runs a filter pass, and whose memory a texture lives in: a GL texture, or an
    OpenCL buffer. A ``str`` (``Executor.GL == "gl"``, same hash and format) so reports,
    JSON and cost-model keys read as they always did."""

    GL = "gl"
    OPENCL = "opencl"

    __str__ = str.__str__
    __format__ = str.__format__
    __hash__ = str.__hash__

    @property
    def short(self) -> str:
        """"gl" or "cl": how texture names and transfer directions spell the location."""
        return "cl" if self is Executor.OPENCL else "gl"

    @classmethod
    def of(cls, value: "Executor | str") -> "Executor":
        """The executor named by ``value`` (also its short form "cl")."""
        return cls.OPENCL if value == "cl" else cls(value)


class TextureRole(str, Enum):
    LAYER_CONTENT = "layer content"
    RENDER_SURFACE = "render surface"
    FILTER_OUTPUT = "filter output"
    UPLOAD = "uploaded image"
    BACKING = "backing"
    FRAME = "frame"
    BACKDROP = "backdrop copy"
    SHADOW = "box shadows"
    TILE = "tile"
    MASK = "mask"


@dataclass(frozen=True)
class TextureDesc:
    """A virtual texture. Two passes naming the same desc share the same texture."""

    name: str
    width: int
    height: int
    role: TextureRole
    format: str = "rgba8"
    retained: bool = False  # kept after the frame (a layer's raster, reused while unchanged)
    location: Executor = Executor.GL  # a GL texture, or an OpenCL buffer (filter passes run there)
    # Holds straight (not premultiplied) RGBA: the upload and result of a filters.apply of
    # straight pixels. Passes premultiply such an input as they read it and
    # un-premultiply such a target as they write it (lamina.filters.tasks).
    straight: bool = False

    @property
    def bytes(self) -> int:
        return self.width * self.height * {"rgba8": 4, "rgba16f": 8, "rgba32f": 16}[self.format]


@dataclass(frozen=True)
class ClipShape:
    """A rounded-rect clip evaluated per pixel: a layer's overflow clip (``kind``
    "overflow"), or a clip-path that is a rounded rect (inset, circle, ellipse: kind
    "clip-path", whose edges get area coverage in target pixels).

    ``to_local`` maps target px to the clipping layer's local px, where the clip is
    ``rect`` (x, y, w, h) with ``radii`` per corner."""

    layer_id: str
    to_local: Affine
    rect: tuple[float, float, float, float]
    radii: tuple[tuple[float, float], ...]
    px_per_target_px: tuple[float, float]  # one target pixel in local px, across x and y edges
    kind: str = "overflow"


@dataclass(frozen=True)
class DrawMask:
    """A mask multiplied into a draw's coverage (CSS Masking 1): ``texture`` (a
    mask-image rastered like a background, or a polygon clip-path's coverage, in the
    masking layer's own px) read at ``to_texel`` (target px -> mask texel), by its
    alpha or by its luminance (0.2125 R + 0.7154 G + 0.0721 B, times alpha). Nothing
    outside the texture shows."""

    texture: TextureDesc
    layer_id: str
    to_texel: Affine
    luminance: bool = False
    what: str = "mask-image"  # or "clip-path", for reports


@dataclass(frozen=True)
class Draw:
    """One textured quad composited into a pass's target: premultiplied source-over, or
    with a blend mode (Compositing and Blending 1), which reads ``backdrop`` — a copy of
    the target made just before this draw (a BackdropPass) whose texel (0, 0) is target
    px ``backdrop_origin``."""

    source: TextureDesc
    layer_id: str
    transform: Affine  # source texel space (px) -> target px
    opacity: float
    clips: tuple[ClipShape, ...] = ()
    note: str = ""
    blend: BlendMode = BlendMode.NORMAL
    backdrop: TextureDesc | None = None
    backdrop_origin: tuple[int, int] = (0, 0)
    # Edges (left, top, right, bottom) shared with a neighbouring tile: cut at pixel
    # centres instead of anti-aliased, so two tiles of a transformed layer meet without
    # a seam (cc's per-edge anti-aliasing flags on tile quads do the same).
    hard_edges: tuple[bool, bool, bool, bool] = (False, False, False, False)
    # Masks multiplied into its coverage (a mask-image, a polygon clip-path), applied
    # after the clips and before opacity and blending, as CSS orders them.
    masks: tuple[DrawMask, ...] = ()

    @property
    def quad_size(self) -> tuple[int, int]:
        return (self.source.width, self.source.height)


class SurfaceReason(str, Enum):
    """Why a composite pass (render surface) exists, modelled on cc's RenderSurfaceReason."""

    ROOT = "root"
    BACKING = "backing: layers painted together"
    FILTER = "filter"
    OPACITY_GROUP = "opacity < 1 over two or more drawing layers"
    BLEND = "mix-blend-mode: flatten, then blend with the backdrop"
    ISOLATION = "isolated group: what a blending descendant blends with"
    BACKDROP_FILTER = "backdrop-filter: the filtered backdrop, then the element"
    BACKDROP_ROOT = "backdrop root: what a backdrop-filtered descendant reads"
    MASK = "mask"  # a mask-image or a polygon clip-path: flattened, then drawn through the mask


@dataclass(frozen=True)
class RasterPass:
    """Paint one layer's own content (background, image, border) into its texture."""

    name: str
    layer_id: str
    target: TextureDesc
    paint: LayerPaint
    reason: str = "layer content"
    # The layer raster's pixel at the texture's (0, 0): a tile, or the part of a large
    # layer a backing tile needs, is rastered from there (the paint is the same).
    origin: tuple[int, int] = (0, 0)
    # The layer's outer box shadows, already drawn (a ShadowPass, kept while they are
    # unchanged): copied under the paint instead of evaluated again. None: drawn here.
    shadows: "TextureDesc | None" = None

    @property
    def kind(self) -> str:
        return "raster"

    def reads(self) -> tuple[TextureDesc, ...]:
        return () if self.shadows is None else (self.shadows,)

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height


@dataclass(frozen=True)
class ShadowPass:
    """Draw a layer's outer box shadows alone (the analytic shader), into a texture the
    size of its grown raster that is kept while the shadows, box and radii do not
    change: repainting the layer (a new background, say) then copies them instead of
    evaluating the blur again, as WebRender caches its box-shadow render tasks."""

    name: str
    layer_id: str
    target: TextureDesc
    paint: LayerPaint
    origin: tuple[int, int] = (0, 0)
    reason: str = "outer box shadows, kept for repaints"

    @property
    def kind(self) -> str:
        return "shadow"

    def reads(self) -> tuple[TextureDesc, ...]:
        return ()

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height


@dataclass(frozen=True)
class CompositePass:
    """Clear a target and draw quads into it, in order. ``origin`` is where the target's
    top-left sits in frame (screen) px."""

    name: str
    target: TextureDesc
    origin: tuple[int, int]
    clear: tuple[float, float, float, float]
    draws: tuple[Draw, ...]
    reason: SurfaceReason
    detail: str = ""
    # Redraw only this rect (x, y, w, h) of a target kept from the last frame; the rest
    # stays as it was. None: clear and draw everything.
    damage: tuple[int, int, int, int] | None = None
    # Go on drawing into the target as the previous pass left it (no clear): the pass
    # after a backdrop read-back, which had to stop the target's drawing for the copy.
    continues: bool = False

    @property
    def kind(self) -> str:
        return "composite"

    def reads(self) -> tuple[TextureDesc, ...]:
        backdrops = tuple(d.backdrop for d in self.draws if d.backdrop is not None)
        masks = tuple(m.texture for d in self.draws for m in d.masks)
        return tuple(d.source for d in self.draws) + backdrops + masks + ((self.target,) if self.continues else ())

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height


@dataclass(frozen=True)
class FilterPass:
    """One pass of a layer's filter plan (filters.plan): reads ``inputs``, writes
    ``target``. ``step`` is the planned pass (colour, resample, blur or shadow)."""

    name: str
    layer_id: str
    target: TextureDesc
    inputs: tuple[TextureDesc, ...]
    step: Any  # a filters.plan planned pass: it names its PassKind; each executor has a handler per kind
    reason: str = "filter"
    executor: Executor = Executor.GL  # a GLSL pass, or a kernel on OpenCL buffers
    why: str = ""  # why this executor (the filter_backend setting, or auto's estimate)

    @property
    def kind(self) -> str:
        return "filter"

    def reads(self) -> tuple[TextureDesc, ...]:
        return self.inputs

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height


@dataclass(frozen=True)
class TransferPass:
    """A copy between executors: a GL texture read back to the host and written to an
    OpenCL buffer, or the reverse (no cl_khr_gl_sharing zero-copy on this path)."""

    name: str
    layer_id: str
    target: TextureDesc
    source: TextureDesc
    reason: str = "transfer"

    @property
    def kind(self) -> str:
        return "transfer"

    @property
    def direction(self) -> str:
        return f"{self.source.location.short}->{self.target.location.short}"

    def reads(self) -> tuple[TextureDesc, ...]:
        return (self.source,)

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height

    @property
    def bytes(self) -> int:
        return self.source.bytes

    def describe(self) -> str:
        if self.source.location is Executor.GL:
            return f"GL texture -> host -> OpenCL buffer ({self.bytes / 1024:.0f} KB)"
        return f"OpenCL buffer -> host -> GL texture ({self.bytes / 1024:.0f} KB)"


@dataclass(frozen=True)
class UploadPass:
    """Host pixels written into ``target`` (a GL texture or an OpenCL buffer): the input
    of a graph that filters an image (``filters.apply``). ``image`` is premultiplied
    RGBA8, (H, W, 4); it is data the graph carries, not part of its identity."""

    name: str
    layer_id: str
    target: TextureDesc
    image: Any = field(compare=False, repr=False)
    reason: str = "upload"

    @property
    def kind(self) -> str:
        return "upload"

    def reads(self) -> tuple[TextureDesc, ...]:
        return ()

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height

    @property
    def bytes(self) -> int:
        return self.target.bytes

    def describe(self) -> str:
        where = "OpenCL buffer" if self.target.location is Executor.OPENCL else "GL texture"
        return f"host -> {where} ({self.bytes / 1024:.0f} KB)"


@dataclass(frozen=True)
class BackdropPass:
    """Copy what lies under an element from ``source`` (the target drawn so far) into
    ``target``: the read-back a blend mode or a backdrop-filter needs (a pass cannot
    read the texture it draws into). ``to_source`` maps target texels to source px
    (a translation, or the element's own space when it is transformed); ``mirror``
    (x0, y0, x1, y1 in target texels), if given, is the box the copy is cut to, the
    texels outside it reflected in from inside (backdrop-filter's mirror edge mode)."""

    name: str
    layer_id: str
    source: TextureDesc
    target: TextureDesc
    to_source: Affine
    mirror: tuple[float, float, float, float] | None = None
    reason: str = ""

    @property
    def kind(self) -> str:
        return "backdrop"

    def reads(self) -> tuple[TextureDesc, ...]:
        return (self.source,)

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height


Pass = Union[RasterPass, ShadowPass, CompositePass, FilterPass, TransferPass, UploadPass, BackdropPass]


@dataclass(frozen=True)
class Decision:
    """A compositor decision about a layer that is not visible as a pass (e.g. an
    opacity folded into a draw, or a layer skipped because it is invisible)."""

    layer_id: str
    text: str


@dataclass(frozen=True)
class LayerInfo:
    """Where one layer's content went, under a policy with backings: is it composited
    (a backing of its own, or a squashing backing), why, and which texture it was
    painted into."""

    composited: bool
    reasons: tuple[str, ...]
    backing: str | None  # the texture it owns, if composited
    painted_into: str  # the texture its content is in


@dataclass(frozen=True)
class TileSet:
    """One tiled texture of the frame: a large layer's raster or a backing (a
    scroller's contents, say) cut into ``tile_size`` tiles on a grid fixed in its own
    space. Only the tiles touching the interest rect (what can show, grown by the
    interest margin) exist; ``grid`` is how many the whole content would need."""

    owner: str  # the layer, or the backing's label
    kind: str  # "layer" | "backing"
    tile_size: int
    grid: tuple[int, int]  # columns, rows over the whole content
    content: tuple[int, int]  # the whole content's size, px
    kept: int  # tiles that exist after this frame (inside the interest rect)
    rastered: int  # of those, painted this frame
    bytes: int  # of the kept tiles, RGBA8

    @property
    def reused(self) -> int:
        return self.kept - self.rastered

    def to_dict(self) -> dict[str, Any]:
        return {"owner": self.owner, "kind": self.kind, "tile_size": self.tile_size, "grid": list(self.grid),
                "content": list(self.content), "kept": self.kept, "rastered": self.rastered,
                "reused": self.reused, "bytes": self.bytes}


@dataclass
class FrameGraph:
    """Passes in execution order, the texture they produce last (the frame), and the
    compositor's decisions. Plain data: printable, comparable, testable without a GPU."""

    width: int
    height: int
    passes: list[Pass]
    output: TextureDesc
    decisions: list[Decision] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)  # retained textures from earlier frames
    released: list[str] = field(default_factory=list)  # retained textures freed after this frame
    policy: Policy = field(default_factory=AllPolicy)
    layer_info: dict[str, LayerInfo] = field(default_factory=dict)  # per layer id, under policies with backings
    tiles: list[TileSet] = field(default_factory=list)  # the tiled layers and backings
    # The decoded images its raster passes sample, by ImagePaint.key: the graph carries
    # them, so an executor runs it with nothing beside it (lamina.images.ImageResource).
    images: dict[Any, ImageResource] = field(default_factory=dict)

    # -- derived facts ------------------------------------------------------------------
    def textures(self) -> list[TextureDesc]:
        seen: dict[str, TextureDesc] = {}
        for p in self.passes:
            for t in (p.target, *p.reads()):
                seen.setdefault(t.name, t)
        return list(seen.values())

    def lifetimes(self) -> dict[str, tuple[int, int]]:
        """Texture name -> (index of first pass that uses it, index of the last)."""
        spans: dict[str, tuple[int, int]] = {}
        for i, p in enumerate(self.passes):
            for t in (p.target, *p.reads()):
                first, _ = spans.get(t.name, (i, i))
                spans[t.name] = (first, i)
        return spans

    def peak_texture_bytes(self) -> int:
        """Most texture memory alive at once if textures are pooled by lifetime."""
        spans = self.lifetimes()
        sizes = {t.name: t.bytes for t in self.textures()}
        peak = 0
        for i in range(len(self.passes)):
            peak = max(peak, sum(sizes[n] for n, (a, b) in spans.items() if a <= i <= b))
        return peak

    def raster_passes(self) -> list[RasterPass]:
        return [p for p in self.passes if isinstance(p, RasterPass)]

    def composite_passes(self) -> list[CompositePass]:
        return [p for p in self.passes if isinstance(p, CompositePass)]

    def filter_passes(self) -> list[FilterPass]:
        return [p for p in self.passes if isinstance(p, FilterPass)]

    def transfer_passes(self) -> list[TransferPass]:
        return [p for p in self.passes if isinstance(p, TransferPass)]

    def backdrop_passes(self) -> list[BackdropPass]:
        return [p for p in self.passes if isinstance(p, BackdropPass)]

    def validate(self) -> None:
        """Every texture is written before it is read (topological order); textures
        reused from earlier frames count as written."""
        written: set[str] = set(self.reused)
        for p in self.passes:
            for t in p.reads():
                if t.name not in written:
                    raise AssertionError(f"pass {p.name} reads {t.name} before it is written")
            written.add(p.target.name)
        if self.output.name not in written:
            raise AssertionError("the frame texture is never written")

    def totals(self) -> dict[str, int]:
        """Frame totals: what was rastered, filtered and composited, and the textures."""
        rasters = self.raster_passes()
        composites = self.composite_passes()
        textures = self.textures()
        return {
            "layers_rastered": len(rasters),
            "pixels_rastered": sum(p.pixels for p in rasters),
            "filter_passes": len(self.filter_passes()),
            "opencl_filter_passes": sum(p.executor is Executor.OPENCL for p in self.filter_passes()),
            "transfers": len(self.transfer_passes()),
            "transfer_bytes": sum(p.bytes for p in self.transfer_passes()),
            "backdrop_reads": len(self.backdrop_passes()),
            "backdrop_pixels": sum(p.pixels for p in self.backdrop_passes()),
            "composite_passes": len(composites),
            "composite_draws": sum(len(p.draws) for p in composites),
            "textures": len(textures),
            "texture_bytes": sum(t.bytes for t in textures),
            "textures_reused": len(self.reused),
            "tiles": sum(t.kept for t in self.tiles),
            "tiles_rastered": sum(t.rastered for t in self.tiles),
            "tiles_reused": sum(t.reused for t in self.tiles),
            "tile_bytes": sum(t.bytes for t in self.tiles),
        }

    def layer_table(self) -> list[dict[str, Any]]:
        """Per drawn layer: its texture (own backing), size and bytes, whether it was
        rastered this frame or reused from an earlier one, and what it was drawn into;
        under the "browser" policy also whether it is composited, why, and the backing
        it paints into."""
        if self.policy.uses_backings:
            return self._browser_table()
        rows: dict[str, dict[str, Any]] = {}
        rastered = {p.layer_id: p for p in self.passes if isinstance(p, RasterPass)}
        for p in self.passes:
            if not isinstance(p, CompositePass):
                continue
            for d in p.draws:
                if d.source.role not in (TextureRole.LAYER_CONTENT,):
                    continue
                t = d.source
                rows[d.layer_id] = {
                    "layer": d.layer_id,
                    "texture": t.name,
                    "size": [t.width, t.height],
                    "bytes": t.bytes,
                    "retained": t.retained,
                    "this_frame": "rastered" if d.layer_id in rastered else ("reused" if t.name in self.reused else "-"),
                    "drawn_into": p.target.name,
                    "opacity": round(d.opacity, 6),
                    "clipped_by": [c.layer_id for c in d.clips],
                }
        return list(rows.values())

    def _browser_table(self) -> list[dict[str, Any]]:
        sizes = {t.name: t for t in self.textures()}
        rastered = {p.layer_id for p in self.passes if isinstance(p, RasterPass)}
        rows = []
        for layer_id, info in self.layer_info.items():
            backing = sizes.get(info.backing) if info.backing else None
            into = sizes.get(info.painted_into)
            rows.append(
                {
                    "layer": layer_id,
                    "composited": info.composited,
                    "reasons": list(info.reasons),
                    "backing": info.backing,
                    "size": [backing.width, backing.height] if backing else None,
                    "bytes": backing.bytes if backing else 0,
                    "painted_into": info.painted_into,
                    "this_frame": "rastered" if layer_id in rastered else ("reused" if into and into.name in self.reused else "-"),
                    "painted_into_size": [into.width, into.height] if into else None,
                }
            )
        return rows

    # -- presentation -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        passes = []
        for p in self.passes:
            entry: dict[str, Any] = {
                "name": p.name,
                "kind": p.kind,
                "target": p.target.name,
                "size": [p.target.width, p.target.height],
                "pixels": p.pixels,
                "reason": p.reason.value if isinstance(p.reason, Enum) else p.reason,
            }
            if isinstance(p, RasterPass):
                entry["layer"] = p.layer_id
                entry["paint"] = p.paint.shader_variant
                if p.shadows is not None:
                    entry["shadows"] = p.shadows.name
            elif isinstance(p, ShadowPass):
                entry["layer"] = p.layer_id
            elif isinstance(p, FilterPass):
                entry["layer"] = p.layer_id
                entry["inputs"] = [t.name for t in p.inputs]
                entry["step"] = p.step.describe()
                entry["executor"] = p.executor.value
                if p.why:
                    entry["why"] = p.why
            elif isinstance(p, TransferPass):
                entry["layer"] = p.layer_id
                entry["source"] = p.source.name
                entry["direction"] = p.direction
                entry["bytes"] = p.bytes
            elif isinstance(p, UploadPass):
                entry["layer"] = p.layer_id
                entry["bytes"] = p.bytes
            elif isinstance(p, BackdropPass):
                entry["layer"] = p.layer_id
                entry["source"] = p.source.name
                entry["to_source"] = [round(v, 6) for v in p.to_source.values()]
                entry["mirror"] = list(p.mirror) if p.mirror is not None else None
            else:
                entry["continues"] = p.continues
                entry["origin"] = list(p.origin)
                entry["detail"] = p.detail
                entry["draws"] = [
                    {
                        "layer": d.layer_id,
                        "source": d.source.name,
                        "opacity": round(d.opacity, 6),
                        "transform": [round(v, 6) for v in d.transform.values()],
                        "clips": [c.layer_id for c in d.clips],
                        **({"note": d.note} if d.note else {}),
                        **({"masks": [{"texture": m.texture.name, "layer": m.layer_id, "what": m.what,
                                       "mode": "luminance" if m.luminance else "alpha"} for m in d.masks]}
                           if d.masks else {}),
                        **({"blend": d.blend.value, "backdrop": d.backdrop.name if d.backdrop else None}
                           if d.blend is not BlendMode.NORMAL else {}),
                    }
                    for d in p.draws
                ]
            passes.append(entry)
        return {
            "size": [self.width, self.height],
            "output": self.output.name,
            "passes": passes,
            "textures": [
                {"name": t.name, "size": [t.width, t.height], "format": t.format, "role": t.role.value, "bytes": t.bytes,
                 "location": t.location.short}
                for t in self.textures()
            ],
            "peak_texture_bytes": self.peak_texture_bytes(),
            "reused": list(self.reused),
            "released": list(self.released),
            "policy": str(self.policy),
            "totals": self.totals(),
            "decisions": [{"layer": d.layer_id, "text": d.text} for d in self.decisions],
            "layers": self.layer_table(),
            "tiles": [t.to_dict() for t in self.tiles],
        }

    def to_dot(self) -> str:
        """The frame graph in Graphviz DOT: passes are boxes, textures ellipses; edges
        show what each pass reads and writes; retained textures are drawn doubled."""
        newline = "\\n"  # a line break inside a DOT label

        def q(text: str) -> str:
            return '"' + text.replace('"', "'") + '"'

        lines = ["digraph frame {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
        for t in self.textures():
            shape = "doublecircle" if t.retained else "ellipse"
            reused = " (reused)" if t.name in self.reused else ""
            label = f"{t.name}{reused}{newline}{t.width}x{t.height} {t.format}"
            lines.append(f"  {q('tex:' + t.name)} [shape={shape}, label={q(label)}];")
        for i, p in enumerate(self.passes, 1):
            parts = [f"{i}. {p.kind}"]
            if isinstance(p, (RasterPass, ShadowPass, FilterPass, TransferPass, UploadPass, BackdropPass)):
                parts.append(p.layer_id)
            if isinstance(p, FilterPass):
                parts.append(p.step.describe().split("  ")[0] + (" (OpenCL)" if p.executor is Executor.OPENCL else ""))
            elif isinstance(p, TransferPass):
                parts.append(p.direction)
            elif isinstance(p, UploadPass):
                parts.append(p.describe())
            elif isinstance(p, BackdropPass):
                parts.append(p.reason)
            else:
                parts.append(p.reason.value if isinstance(p.reason, Enum) else p.reason)
            lines.append(f"  {q('pass:' + p.name)} [shape=box, style=rounded, label={q(newline.join(parts))}];")
            for t in p.reads():
                lines.append(f"  {q('tex:' + t.name)} -> {q('pass:' + p.name)};")
            lines.append(f"  {q('pass:' + p.name)} -> {q('tex:' + p.target.name)};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def describe(self, timings: dict[str, float] | None = None) -> str:
        """A plain-words account of the frame: surfaces, passes, textures, decisions."""
        lines = []
        textures = self.textures()
        total = sum(t.bytes for t in textures)
        rasters = self.raster_passes()
        composites = self.composite_passes()
        filters = self.filter_passes()
        lines.append(
            f"Frame {self.width}x{self.height}: {len(rasters)} raster passes, {len(filters)} filter passes, "
            f"{len(composites)} composite passes, {sum(len(c.draws) for c in composites)} draws, "
            f"{len(textures)} textures ({_mb(total)}; peak alive {_mb(self.peak_texture_bytes())})"
        )
        lines.append("Render surfaces and backings:")
        for c in composites:
            if c.continues:
                continue  # the same target, drawn on after a read-back
            extra = f" - {c.detail}" if c.detail else ""
            lines.append(
                f"  {c.target.name} {c.target.width}x{c.target.height} at {c.origin[0]},{c.origin[1]}: "
                f"{c.reason.value}{extra}"
            )
        lines.append("Passes, in execution order:")
        for i, p in enumerate(self.passes, 1):
            ms = f"  {timings[p.name]:.2f} ms" if timings and p.name in timings else ""
            if isinstance(p, RasterPass):
                under = f", shadows from {p.shadows.name}" if p.shadows is not None else ""
                lines.append(
                    f"  {i:>2}. raster    {p.layer_id:<16} {p.target.width}x{p.target.height} "
                    f"({p.paint.summary}{under}) -> {p.target.name}{ms}"
                )
            elif isinstance(p, ShadowPass):
                lines.append(
                    f"  {i:>2}. shadow    {p.layer_id:<16} {p.target.width}x{p.target.height} "
                    f"outer box shadows -> {p.target.name}{ms}"
                )
            elif isinstance(p, FilterPass):
                where = "  [OpenCL]" if p.executor is Executor.OPENCL else ""
                why = f"  ({p.why})" if p.why else ""
                lines.append(
                    f"  {i:>2}. filter    {p.layer_id:<16} {p.target.width}x{p.target.height} "
                    f"{p.step.describe()}{where}{ms}{why}"
                )
            elif isinstance(p, (TransferPass, UploadPass)):
                lines.append(
                    f"  {i:>2}. {p.kind:<9} {p.layer_id:<16} {p.target.width}x{p.target.height} {p.describe()}{ms}"
                )
            elif isinstance(p, BackdropPass):
                lines.append(
                    f"  {i:>2}. backdrop  {p.layer_id:<16} {p.target.width}x{p.target.height} read back from "
                    f"{p.source.name}{' (mirrored edges)' if p.mirror else ''}: {p.reason}{ms}"
                )
            else:
                go_on = ", going on" if p.continues else ""
                lines.append(
                    f"  {i:>2}. composite {len(p.draws)} draw(s) -> {p.target.name} "
                    f"{p.target.width}x{p.target.height}{go_on}{ms}"
                )
                for d in p.draws:
                    bits = []
                    if d.opacity < 1.0:
                        bits.append(f"opacity {d.opacity:.3g}")
                    if not d.transform.is_translation():
                        bits.append("transformed")
                    if d.clips:
                        bits.append("clipped by " + ", ".join(c.layer_id for c in d.clips))
                    if d.masks:
                        bits.append("masked by " + ", ".join(
                            f"{m.texture.name} ({m.what} of {m.layer_id}, {'luminance' if m.luminance else 'alpha'})"
                            for m in d.masks))
                    if d.blend is not BlendMode.NORMAL:
                        bits.append(f"mix-blend-mode {d.blend}, reading {d.backdrop.name if d.backdrop else '?'}")
                    if d.note:
                        bits.append(d.note)
                    tail = f" ({'; '.join(bits)})" if bits else ""
                    lines.append(f"        - {d.source.name}{tail}")
        table = self.layer_table()
        if table and self.policy.uses_backings:
            lines.append(f"Layers (policy {self.policy}: promoted layers have backings; others paint into them):")
            lines.append(f"  {'layer':<16} {'composited':<10} {'this frame':<10} {'painted into':<28} reasons")
            for row in table:
                lines.append(
                    f"  {row['layer']:<16} {'yes' if row['composited'] else 'no':<10} {row['this_frame']:<10} "
                    f"{row['painted_into']:<28} {'; '.join(row['reasons']) or '-'}"
                )
        elif table:
            lines.append(f"Layers (policy {self.policy}: each drawing layer has a texture of its own):")
            lines.append(f"  {'layer':<16} {'texture size':>12} {'KB':>8}  {'this frame':<10} drawn into")
            for row in table:
                w, h = row["size"]
                lines.append(
                    f"  {row['layer']:<16} {f'{w}x{h}':>12} {row['bytes'] / 1024:>8.1f}  {row['this_frame']:<10} {row['drawn_into']}"
                )
        if self.tiles:
            lines.append("Tiles (only those touching the interest rect exist):")
            for t in self.tiles:
                lines.append(
                    f"  {t.owner} ({t.kind}, {t.content[0]}x{t.content[1]} px): {t.kept} of {t.grid[0] * t.grid[1]} "
                    f"{t.tile_size} px tiles kept, {t.rastered} rastered this frame, {t.reused} reused, {_mb(t.bytes)}"
                )
        if self.reused:
            lines.append(f"Reused from earlier frames (content unchanged, not rastered): {', '.join(self.reused)}")
        if self.decisions:
            lines.append("Decisions:")
            for d in self.decisions:
                lines.append(f"  {d.layer_id}: {d.text}")
        return "\n".join(lines)


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.2f} MB"
