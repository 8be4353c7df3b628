"""The passes of a frame graph: the pass protocol (``GraphPass``) and one class per kind
of pass (``TaskKind``).

Every pass says why it exists (a ``Reason``) and presents itself: its line in
``FrameGraph.describe()``, its entry in ``to_dict()``, its DOT node and edges, its trace
event's lane and arguments (lamina.trace), what it adds to the debug overlays
(lamina.overlays). So a new kind of pass is its class here (and in ``Pass``), its
handler in each executor that claims the kind (lamina.gpu.executor ``TASK_HANDLERS``),
and the planner code that emits it; reports, traces and overlays need no change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, Union, get_args

from .blending import BlendMode
from .filters.plan import PlannedPass
from .geometry import Affine, Projective
from .textures import Draw, Executor, Place, TextureDesc, TextureRole, Transfer
from .named import NamedEnum

__all__ = ["TaskKind", "Reason", "SurfaceReason", "RasterPaint", "GraphPass", "OverlayPart", "RasterPass", "ShadowPass",
           "CompositePass", "FilterPass", "TransferPass", "UploadPass", "BackdropPass", "CapturePass", "Pass", "PASS_TYPES"]


class TaskKind(NamedEnum):
    """The kind of a frame-graph pass (a render task): one per pass class, the key of
    every executor's handler table (``lamina.gpu.executor.TASK_HANDLERS``). A ``str``
    (``TaskKind.RASTER == "raster"``, same hash and format), so reports, JSON and traces
    read as they always did. Not ``filters.plan.PassKind``: that is the kind of a planned
    filter pass, which one FilterPass carries."""

    RASTER = "raster"
    SHADOW = "shadow"
    FILTER = "filter"
    TRANSFER = "transfer"
    UPLOAD = "upload"
    COMPOSITE = "composite"
    BACKDROP = "backdrop"
    CAPTURE = "capture"


class Reason(str):
    """Why a pass exists, in words: the one type of every pass's ``reason``. A render
    surface's reasons are the fixed list ``SurfaceReason`` (Reasons too); the others are
    written by the planner ("layer content", "clip-path polygon of layer a (nonzero)")."""

    __slots__ = ()


def _reason(p: Any) -> None:
    """Make a pass's ``reason`` a Reason (the planner may hand plain text)."""
    if not isinstance(p.reason, Reason):
        object.__setattr__(p, "reason", Reason(p.reason))


class RasterPaint(Protocol):
    """What a raster or shadow pass paints, as the graph sees it: the compositor's
    ``LayerPaint`` or a mask's ``PolygonPaint`` (lamina.compositor). Executors read the
    whole paint; the graph only names it in its reports."""

    @property
    def summary(self) -> str: ...

    @property
    def shader_variant(self) -> str: ...


class SurfaceReason(Reason, Enum):
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
    # cc's k3dTransformFlattening: a flat member of a 3D rendering context with drawing
    # descendants is flattened into its plane first, then sorted (and split) as one plane.
    FLATTENING_3D = "3D flattening"

    __str__ = str.__str__
    __format__ = str.__format__
    __hash__ = str.__hash__


# -- the pass protocol -----------------------------------------------------------------------

@dataclass(frozen=True)
class OverlayPart:
    """What one pass adds to the debug overlays (lamina.overlays), given where its target
    lies in the frame: the quads it draws, each with its source-texel -> frame-px map,
    and the textures whose pixels reach the frame through it, each with its map."""

    quads: tuple[tuple["Draw", Affine], ...] = ()
    sources: tuple[tuple["TextureDesc", Affine], ...] = ()


def _kind(kind: TaskKind) -> property:
    """A pass class's ``kind``: a property that ignores its instance, so the class's kind
    reads without one too (``RasterPass.kind.fget(None)``)."""
    return property(lambda self: kind, doc=f"TaskKind.{kind.name}")


def _dot_quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


_DOT_NEWLINE = "\\n"  # a line break inside a DOT label


class GraphPass:
    """What every pass of a frame graph is and says of itself. A pass is a frozen
    dataclass with at least ``name``, ``target`` (the TextureDesc it writes) and
    ``reason`` (a Reason); its class sets ``kind`` (``_kind(TaskKind.X)``) and says, by
    the methods below, what it reads and how it presents itself. The defaults here fit
    a pass that reads nothing, runs on GL and adds nothing to the overlays; each pass
    class overrides ``describe_line``, ``own_fields`` and ``dot_label`` (a test checks)."""

    name: str
    target: "TextureDesc"
    reason: Reason
    kind: Any  # a property per class: _kind(TaskKind.X)

    def reads(self) -> tuple["TextureDesc", ...]:
        """The textures it reads, in order (lifetimes and validation follow them)."""
        return ()

    @property
    def pixels(self) -> int:
        return self.target.width * self.target.height

    # -- describe() ---------------------------------------------------------------------
    def describe_line(self, ms: str = "") -> str:
        """Its line in FrameGraph.describe, after the number and the kind; ``ms`` is its
        measured time, formatted ("  0.52 ms"), or ""."""
        raise NotImplementedError(type(self).__name__)

    def describe_details(self) -> tuple[str, ...]:
        """Lines listed under its line (a composite pass's draws)."""
        return ()

    # -- to_dict() ----------------------------------------------------------------------
    def own_fields(self) -> dict[str, Any]:
        """Its kind's own facts in its ``to_dict`` entry (after the fields every pass has)."""
        raise NotImplementedError(type(self).__name__)

    def to_dict(self) -> dict[str, Any]:
        """Its entry in FrameGraph.to_dict()["passes"]: plain JSON data."""
        return {
            "name": self.name,
            "kind": self.kind.value,
            "target": self.target.name,
            "size": [self.target.width, self.target.height],
            "pixels": self.pixels,
            "reason": str(self.reason),
            **self.own_fields(),
        }

    # -- to_dot() -----------------------------------------------------------------------
    def dot_label(self) -> tuple[str, ...]:
        """The lines of its DOT node's label after "N. kind"."""
        raise NotImplementedError(type(self).__name__)

    def to_dot(self, index: int) -> list[str]:
        """Its DOT node (a rounded box) and edges: from each texture it reads, to the one
        it writes (the textures' nodes are the graph's)."""
        node = _dot_quote("pass:" + self.name)
        label = _DOT_NEWLINE.join((f"{index}. {self.kind}", *self.dot_label()))
        lines = [f"  {node} [shape=box, style=rounded, label={_dot_quote(label)}];"]
        lines += [f"  {_dot_quote('tex:' + t.name)} -> {node};" for t in self.reads()]
        lines.append(f"  {node} -> {_dot_quote('tex:' + self.target.name)};")
        return lines

    # -- the trace (lamina.trace) ----------------------------------------------------------
    def trace_lane(self) -> str:
        """The trace track it ran on: "GL", "OpenCL" or "transfers" (lamina.trace.TRACKS)."""
        return "GL"

    def trace_args(self) -> dict[str, Any]:
        """Its trace event's arguments: the scalar facts of its ``to_dict`` entry (and
        lists of them) a viewer's detail pane can show; a list of records (a composite's
        draws) is given as its count."""
        args: dict[str, Any] = {}
        for key, value in self.to_dict().items():
            if key == "name":
                continue  # the event's own name
            if isinstance(value, list) and any(isinstance(v, dict) for v in value):
                args[key] = len(value)
            elif not isinstance(value, dict):
                args[key] = value
        return args

    # -- the debug overlays (lamina.overlays) ---------------------------------------------
    def overlay(self, to_frame: Affine) -> OverlayPart:
        """What it adds to the overlays, given ``to_frame`` (its target's px -> frame px)."""
        return OverlayPart()

    @property
    def repaints(self) -> bool:
        """Does it paint content this frame (what paint flashing marks)?"""
        return False


def _layer_line(p: Any, rest: str) -> str:
    """The start every per-layer pass's describe line shares: the layer and the size."""
    return f"{p.layer_id:<16} {p.target.width}x{p.target.height} {rest}"


@dataclass(frozen=True)
class RasterPass(GraphPass):
    """Paint one layer's own content (background, image, border) into its texture."""

    name: str
    layer_id: str
    target: TextureDesc
    paint: RasterPaint
    reason: Reason = Reason("layer content")
    # The layer raster's pixel at the texture's (0, 0): a tile, or the part of a large
    # layer a backing tile needs, is rastered from there (the paint is the same).
    origin: tuple[int, int] = (0, 0)
    # The layer's outer box shadows, already drawn (a ShadowPass, kept while they are
    # unchanged): copied under the paint instead of evaluated again. None: drawn here.
    shadows: "TextureDesc | None" = None

    kind = _kind(TaskKind.RASTER)
    __post_init__ = _reason

    def reads(self) -> tuple[TextureDesc, ...]:
        return () if self.shadows is None else (self.shadows,)

    def describe_line(self, ms: str = "") -> str:
        under = f", shadows from {self.shadows.name}" if self.shadows is not None else ""
        return _layer_line(self, f"({self.paint.summary}{under}) -> {self.target.name}{ms}")

    def own_fields(self) -> dict[str, Any]:
        return {"layer": self.layer_id, "paint": self.paint.shader_variant,
                **({"shadows": self.shadows.name} if self.shadows is not None else {})}

    def dot_label(self) -> tuple[str, ...]:
        return (self.layer_id, str(self.reason))

    @property
    def repaints(self) -> bool:
        return True


@dataclass(frozen=True)
class ShadowPass(GraphPass):
    """Draw a layer's outer box shadows alone (the analytic shader), into a texture the
    size of its grown raster that is kept while the shadows, box and radii do not
    change: repainting the layer (a new background, say) then copies them instead of
    evaluating the blur again, as WebRender caches its box-shadow render tasks."""

    name: str
    layer_id: str
    target: TextureDesc
    paint: RasterPaint
    origin: tuple[int, int] = (0, 0)
    reason: Reason = Reason("outer box shadows, kept for repaints")

    kind = _kind(TaskKind.SHADOW)
    __post_init__ = _reason

    def describe_line(self, ms: str = "") -> str:
        return _layer_line(self, f"outer box shadows -> {self.target.name}{ms}")

    def own_fields(self) -> dict[str, Any]:
        return {"layer": self.layer_id}

    def dot_label(self) -> tuple[str, ...]:
        return (self.layer_id, str(self.reason))


@dataclass(frozen=True)
class CompositePass(GraphPass):
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

    kind = _kind(TaskKind.COMPOSITE)

    def reads(self) -> tuple[TextureDesc, ...]:
        backdrops = tuple(d.backdrop for d in self.draws if d.backdrop is not None)
        masks = tuple(m.texture for d in self.draws for m in d.masks)
        return tuple(d.source for d in self.draws) + backdrops + masks + ((self.target,) if self.continues else ())

    def describe_line(self, ms: str = "") -> str:
        go_on = ", going on" if self.continues else ""
        return f"{len(self.draws)} draw(s) -> {self.target.name} {self.target.width}x{self.target.height}{go_on}{ms}"

    def describe_details(self) -> tuple[str, ...]:
        return tuple(_describe_draw(d) for d in self.draws)

    def own_fields(self) -> dict[str, Any]:
        return {"continues": self.continues, "origin": list(self.origin), "detail": self.detail,
                "draws": [_draw_dict(d) for d in self.draws]}

    def dot_label(self) -> tuple[str, ...]:
        return (str(self.reason),)

    def trace_args(self) -> dict[str, Any]:
        return {**super().trace_args(), "draws": len(self.draws)}  # a count, also when there are none

    def overlay(self, to_frame: Affine) -> OverlayPart:
        quads = tuple((d, to_frame @ d.transform) for d in self.draws)
        return OverlayPart(quads, tuple((d.source, m) for d, m in quads))

    @property
    def repaints(self) -> bool:
        # A backing or a tile is repainted from its layers' rasters (or in place): the
        # rest of what composite passes draw into are surfaces and the frame.
        return self.target.role in (TextureRole.BACKING, TextureRole.TILE)


def _describe_draw(d: Draw) -> str:
    bits = []
    if d.opacity < 1.0:
        bits.append(f"opacity {d.opacity:.3g}")
    if d.transform.__class__ is Projective:
        bits.append("projected: a 3D transform under perspective")
    elif not d.transform.is_translation():
        bits.append("transformed")
    if d.clips:
        bits.append("clipped by " + ", ".join(c.layer_id for c in d.clips))
    if d.masks:
        bits.append("masked by " + ", ".join(
            f"{m.texture.name} ({m.what} of {m.layer_id}, {'luminance' if m.luminance else 'alpha'})" for m in d.masks))
    if d.blend is not BlendMode.NORMAL:
        bits.append(f"mix-blend-mode {d.blend}, reading {d.backdrop.name if d.backdrop else '?'}")
    if d.split_planes:
        bits.append(f"a split piece, cut by {len(d.split_planes)} plane{'s' if len(d.split_planes) != 1 else ''}")
    if d.note:
        bits.append(d.note)
    return d.source.name + (f" ({'; '.join(bits)})" if bits else "")


def _draw_dict(d: Draw) -> dict[str, Any]:
    return {
        "layer": d.layer_id,
        "source": d.source.name,
        "opacity": round(d.opacity, 6),
        "transform": [round(v, 6) for v in d.transform.values()],
        "clips": [c.layer_id for c in d.clips],
        **({"note": d.note} if d.note else {}),
        **({"split_planes": [[round(v, 6) for v in plane] for plane in d.split_planes]} if d.split_planes else {}),
        **({"masks": [{"texture": m.texture.name, "layer": m.layer_id, "what": m.what,
                       "mode": "luminance" if m.luminance else "alpha"} for m in d.masks]}
           if d.masks else {}),
        **({"blend": d.blend.value, "backdrop": d.backdrop.name if d.backdrop else None}
           if d.blend is not BlendMode.NORMAL else {}),
    }


@dataclass(frozen=True)
class FilterPass(GraphPass):
    """One pass of a layer's filter plan (filters.plan): reads ``inputs``, writes
    ``target``. ``step`` is the planned pass (colour, resample, blur or shadow): it names
    its ``filters.plan.PassKind``, and each executor of filter passes has a handler per
    kind."""

    name: str
    layer_id: str
    target: TextureDesc
    inputs: tuple[TextureDesc, ...]
    step: PlannedPass
    reason: Reason = Reason("filter")
    executor: Executor = Executor.GL  # a GLSL pass, or a kernel on OpenCL buffers
    why: str = ""  # why this executor (the filter_backend setting, or auto's estimate)
    # The OpenCL device's "P:D" index ("": the renderer's own OpenCL device; "" on GL),
    # when a frame places filter work on several (textures.Place).
    device: str = ""

    kind = _kind(TaskKind.FILTER)

    def __post_init__(self) -> None:
        _reason(self)
        if self.device and self.executor is not Executor.OPENCL:
            raise ValueError(f"{self.name}: a GL pass names no OpenCL device (got {self.device!r})")

    @property
    def place(self) -> Place:
        """Where it runs: GL, or an OpenCL device."""
        return Place(self.executor, self.device)

    def reads(self) -> tuple[TextureDesc, ...]:
        return self.inputs

    def describe_line(self, ms: str = "") -> str:
        where = f"  [{self.place.label}]" if self.executor is Executor.OPENCL else ""
        why = f"  ({self.why})" if self.why else ""
        return _layer_line(self, f"{self.step.describe()}{where}{ms}{why}")

    def own_fields(self) -> dict[str, Any]:
        return {"layer": self.layer_id, "inputs": [t.name for t in self.inputs], "step": self.step.describe(),
                "executor": self.executor.value, **({"device": self.device} if self.device else {}),
                **({"why": self.why} if self.why else {})}

    def dot_label(self) -> tuple[str, ...]:
        opencl = f" ({self.place.label})" if self.executor is Executor.OPENCL else ""
        return (self.layer_id, self.step.label + opencl)

    def trace_lane(self) -> str:
        # One track per OpenCL device: "OpenCL" (the renderer's own), "OpenCL 0:1"...
        return self.place.label

    def overlay(self, to_frame: Affine) -> OverlayPart:
        # A filter's images share the surface's pixels (reduced ones are never drawn).
        return OverlayPart(sources=tuple((t, to_frame) for t in self.inputs))


@dataclass(frozen=True)
class TransferPass(GraphPass):
    """A copy between executors: a GL texture read back to the host and written to an
    OpenCL buffer, or the reverse (no cl_khr_gl_sharing zero-copy on this path)."""

    name: str
    layer_id: str
    target: TextureDesc
    source: TextureDesc
    reason: Reason = Reason("transfer")

    kind = _kind(TaskKind.TRANSFER)
    __post_init__ = _reason

    @property
    def direction(self) -> Transfer:
        return Transfer.to(self.target.location)

    def reads(self) -> tuple[TextureDesc, ...]:
        return (self.source,)

    @property
    def bytes(self) -> int:
        return self.source.bytes

    def describe(self) -> str:
        def end(t: TextureDesc) -> str:
            return "GL texture" if t.location is Executor.GL else f"{t.place.label} buffer"
        return f"{end(self.source)} -> host -> {end(self.target)} ({self.bytes / 1024:.0f} KB)"

    def describe_line(self, ms: str = "") -> str:
        return _layer_line(self, f"{self.describe()}{ms}")

    def own_fields(self) -> dict[str, Any]:
        devices = {k: t.device for k, t in (("from_device", self.source), ("to_device", self.target)) if t.device}
        return {"layer": self.layer_id, "source": self.source.name, "direction": self.direction, "bytes": self.bytes,
                **devices}

    def dot_label(self) -> tuple[str, ...]:
        return (self.layer_id, self.direction)

    def trace_lane(self) -> str:
        return "transfers"

    def overlay(self, to_frame: Affine) -> OverlayPart:
        return OverlayPart(sources=((self.source, to_frame),))  # the same pixels on the other executor


@dataclass(frozen=True)
class UploadPass(GraphPass):
    """Host pixels written into ``target`` (a GL texture or an OpenCL buffer): the input
    of a graph that filters an image (``filters.apply``). ``image`` is premultiplied
    RGBA8, (H, W, 4); it is data the graph carries, not part of its identity."""

    name: str
    layer_id: str
    target: TextureDesc
    image: Any = field(compare=False, repr=False)
    reason: Reason = Reason("upload")

    kind = _kind(TaskKind.UPLOAD)
    __post_init__ = _reason

    @property
    def bytes(self) -> int:
        return self.target.bytes

    def describe(self) -> str:
        where = "OpenCL buffer" if self.target.location is Executor.OPENCL else "GL texture"
        return f"host -> {where} ({self.bytes / 1024:.0f} KB)"

    def describe_line(self, ms: str = "") -> str:
        return _layer_line(self, f"{self.describe()}{ms}")

    def own_fields(self) -> dict[str, Any]:
        return {"layer": self.layer_id, "bytes": self.bytes}

    def dot_label(self) -> tuple[str, ...]:
        return (self.layer_id, self.describe())

    def trace_lane(self) -> str:
        return "transfers"


@dataclass(frozen=True)
class BackdropPass(GraphPass):
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
    reason: Reason = Reason("")
    # Copy only these texels (x, y, w, h): what a split piece needs (graph.reads.piece_region).
    region: tuple[int, int, int, int] | None = None

    kind = _kind(TaskKind.BACKDROP)
    __post_init__ = _reason

    def reads(self) -> tuple[TextureDesc, ...]:
        return (self.source,)

    def describe_line(self, ms: str = "") -> str:
        mirrored = " (mirrored edges)" if self.mirror else ""
        part = f", only the {self.region[2]}x{self.region[3]} px its piece needs" if self.region else ""
        return _layer_line(self, f"read back from {self.source.name}{mirrored}{part}: {self.reason}{ms}")

    def own_fields(self) -> dict[str, Any]:
        return {"layer": self.layer_id, "source": self.source.name,
                "to_source": [round(v, 6) for v in self.to_source.values()],
                "mirror": list(self.mirror) if self.mirror is not None else None,
                **({"region": list(self.region)} if self.region is not None else {})}

    def dot_label(self) -> tuple[str, ...]:
        return (self.layer_id, str(self.reason))


@dataclass(frozen=True)
class CapturePass(GraphPass):
    """Read one texture of the frame back to the host, to show what it holds, as
    DevTools' Layers panel does: ``source`` (a layer's raster, a backing, a tile, a
    render surface) is un-premultiplied on the GPU into ``target`` (its straight RGBA8
    copy, alive for this pass only) and read from there, top row first, as
    ``Frame.image`` is. The executor hands the pixels back under ``label`` (what
    ``Frame.textures`` is keyed by). Planned only when a request asks for it
    (``FrameRequest.capture_textures``), after every other pass, so ``source`` holds
    what the frame drew from it, and lives until then."""

    name: str
    layer_id: str
    source: TextureDesc
    target: TextureDesc
    reason: Reason = Reason("capture_textures: what the frame drew from, read back")

    kind = _kind(TaskKind.CAPTURE)
    __post_init__ = _reason

    def reads(self) -> tuple[TextureDesc, ...]:
        return (self.source,)

    @property
    def label(self) -> str:
        """Its readable name: the texture, what it is and whose ("layer:a#1 (layer
        content of a)")."""
        return f"{self.source.name} ({self.source.role.value} of {self.layer_id or 'no layer'})"

    @property
    def bytes(self) -> int:
        return self.target.bytes  # what reaches the host: RGBA8

    def describe_line(self, ms: str = "") -> str:
        return _layer_line(self, f"read back {self.source.name} ({self.source.role.value}) -> host, straight RGBA8 "
                                 f"({self.bytes / 1024:.0f} KB){ms}")

    def own_fields(self) -> dict[str, Any]:
        return {"layer": self.layer_id, "source": self.source.name, "role": self.source.role.value,
                "label": self.label, "bytes": self.bytes}

    def dot_label(self) -> tuple[str, ...]:
        return (self.layer_id, f"read back ({self.source.role.value})")

    def trace_lane(self) -> str:
        return "readback"  # GPU -> host, as the frame's own read-back


Pass = Union[RasterPass, ShadowPass, CompositePass, FilterPass, TransferPass, UploadPass, BackdropPass, CapturePass]
# Every pass kind -> its class (one each: tests/unit/test_pass_protocol.py checks).
PASS_TYPES: dict[TaskKind, type] = {cls.kind.fget(None): cls for cls in get_args(Pass)}
