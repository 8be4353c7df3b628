"""Virtual textures and the draws that read them: the handles frame-graph passes read
and write. Not GPU objects: an executor maps each ``TextureDesc`` to a pooled GL texture
or OpenCL buffer (by ``location``) for its lifetime in the graph (lamina.framegraph).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .blending import BlendMode
from .css.values import ClipKind
from .geometry import Affine
from .named import NamedEnum

__all__ = ["Executor", "Place", "GL_PLACE", "Transfer", "MaskKind", "TextureRole", "TextureDesc", "ClipShape", "DrawMask", "Draw", "CompositeProgram"]


class Executor(NamedEnum):
    """Who runs a filter pass, and whose memory a texture lives in: a GL texture, or an
    OpenCL buffer. A ``str`` (``Executor.GL == "gl"``, same hash and format) so reports,
    JSON and cost-model keys read as they always did."""

    GL = "gl"
    OPENCL = "opencl"


    @property
    def short(self) -> str:
        """"gl" or "cl": how texture names and transfer directions spell the location."""
        return "cl" if self is Executor.OPENCL else "gl"

    @classmethod
    def of(cls, value: "Executor | str") -> "Executor":
        """The executor named by ``value`` (also its short form "cl")."""
        if type(value) is cls:  # (most callers hold one already: an enum lookup is not free)
            return value
        return cls.OPENCL if value == "cl" else cls(value)


@dataclass(frozen=True)
class Place:
    """Where a filter pass runs and where a texture lives: GL, or one OpenCL device.
    ``device`` is the OpenCL device's "P:D" index (as ``LAMINA_OPENCL_DEVICES`` and
    ``lamina info`` name it); "" is the renderer's own OpenCL device (the selected one,
    what a frame on one OpenCL device uses). GL has no index: it is one context.

    Written (``key``, and what ``of`` reads) "gl", "opencl", or "opencl:P:D"."""

    executor: Executor = Executor.GL
    device: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "executor", Executor.of(self.executor))
        if self.executor is Executor.GL and self.device:
            raise ValueError(f"GL is one device: it takes no index (got {self.device!r})")

    @property
    def suffix(self) -> str:
        """What a texture's name gets on this device: "" on GL, "@cl" on the renderer's
        OpenCL device, "@cl0:1" on device 0:1 (graph.placed names copies so)."""
        if self.executor is Executor.GL:
            return ""
        return f"@cl{self.device}"

    @property
    def short(self) -> str:
        """How transfer names spell it: "gl", "cl", "cl0:1"."""
        return self.executor.short + self.device

    @property
    def key(self) -> str:
        """"gl", "opencl" or "opencl:0:1": what ``of`` reads back."""
        return self.executor.value + (f":{self.device}" if self.device else "")

    @property
    def label(self) -> str:
        """How reports name it: "GL", "OpenCL", "OpenCL 0:1"."""
        return ("GL" if self.executor is Executor.GL else "OpenCL") + (f" {self.device}" if self.device else "")

    @classmethod
    def of(cls, value: "Place | Executor | str") -> "Place":
        """The place ``value`` names: a Place, an Executor (its default device), or
        "gl" / "opencl" / "cl" / "opencl:P:D" / "cl:P:D" (any case). ValueError otherwise."""
        if isinstance(value, Place):
            return value
        if isinstance(value, Executor):
            return cls(value)
        if not isinstance(value, str):
            raise ValueError(f"not a device: {value!r}")
        kind, _, device = value.strip().lower().partition(":")
        device = device.strip()
        if device and not _is_index(device):
            raise ValueError(f"an OpenCL device is written P:D (platform and device indices), got {device!r}")
        return cls(Executor.of(kind), device)

    def __str__(self) -> str:
        return self.key


def _is_index(text: str) -> bool:
    """Is ``text`` an OpenCL "P:D" index (two whole numbers)?"""
    platform, colon, device = text.partition(":")
    return bool(colon) and platform.isdigit() and device.isdigit()


GL_PLACE = Place()


class Transfer(NamedEnum):
    """A copy of a filter image between the executors' memories, by direction (a
    TransferPass's, and a cost-model entry's). A ``str`` (``Transfer.TO_OPENCL ==
    "gl->cl"``, same hash and format) so reports, JSON and the stored cost model read as
    they always did."""

    TO_OPENCL = "gl->cl"
    TO_GL = "cl->gl"


    @classmethod
    def to(cls, executor: "Executor | str") -> "Transfer":
        """The copy that brings an image to ``executor`` from the other one."""
        if type(executor) is not Executor:
            executor = Executor.of(executor)
        return cls.TO_OPENCL if executor is Executor.OPENCL else cls.TO_GL

    @property
    def source(self) -> Executor:
        return Executor.GL if self is Transfer.TO_OPENCL else Executor.OPENCL

    @property
    def target(self) -> Executor:
        return Executor.OPENCL if self is Transfer.TO_OPENCL else Executor.GL


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


_TEXEL_BYTES = {"rgba8": 4, "rgba16f": 8, "rgba32f": 16}  # bytes per texel, by format


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
    # Which OpenCL device's buffer, by its "P:D" index ("": the renderer's own OpenCL
    # device; always "" on GL): a frame may place filter work on several (Place).
    device: str = ""
    # Holds straight (not premultiplied) RGBA: the upload and result of a filters.apply of
    # straight pixels. Passes premultiply such an input as they read it and
    # un-premultiply such a target as they write it (lamina.filters.tasks).
    straight: bool = False

    @property
    def place(self) -> Place:
        """Where it lives: GL, or an OpenCL device."""
        return Place(self.location, self.device)

    @property
    def bytes(self) -> int:
        return self.width * self.height * _TEXEL_BYTES[self.format]


@dataclass(frozen=True)
class ClipShape:
    """A rounded-rect clip evaluated per pixel: a layer's overflow clip (``kind``
    OVERFLOW), or a clip-path that is a rounded rect (inset, circle, ellipse: kind
    CLIP_PATH, whose edges get area coverage in target pixels).

    ``to_local`` maps target px to the clipping layer's local px, where the clip is
    ``rect`` (x, y, w, h) with ``radii`` per corner."""

    layer_id: str
    to_local: Affine
    rect: tuple[float, float, float, float]
    radii: tuple[tuple[float, float], ...]
    px_per_target_px: tuple[float, float]  # one target pixel in local px, across x and y edges
    kind: ClipKind = ClipKind.OVERFLOW


class MaskKind(NamedEnum):
    """What made a draw's mask (CSS Masking 1): a ``mask-image``, or a ``clip-path``
    that is a polygon. A ``str`` (``MaskKind.CLIP_PATH == "clip-path"``, same hash and
    format) so reports, JSON and mask texture names read as they always did."""

    MASK_IMAGE = "mask-image"
    CLIP_PATH = "clip-path"


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
    what: MaskKind = MaskKind.MASK_IMAGE


@dataclass(frozen=True)
class CompositeProgram:
    """The key of the quad program a draw needs (composite/quad.frag): how many clips it
    evaluates, a blend mode or not, and how many masks it multiplies in (0: the programs
    every unmasked draw always had). ``str()`` is the program's name in reports
    ("composite.blend.mask1.clip2"). ``edge_area`` False: the inset cell of a split
    projected draw, whose pixels all lie inside its edges ("composite.inset.clip0"):
    no exact-area edge code (the executor picks it; a Draw's program has it)."""

    clips: int
    blend: bool = False
    masks: int = 0
    edge_area: bool = True

    def __str__(self) -> str:
        return (f"composite.{'blend.' if self.blend else ''}{'' if self.edge_area else 'inset.'}"
                f"{f'mask{self.masks}.' if self.masks else ''}clip{self.clips}")


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
    # A piece of a layer split by the planes of a 3D rendering context (graph.contexts3d):
    # half-planes (a, b, c) in target px, the piece is where a x + b y + c >= 0 for all.
    # Cut at pixel centres, not anti-aliased (cc anti-aliases only a layer's real edges).
    split_planes: tuple[tuple[float, float, float], ...] = ()
    # The layer a backing's draw belongs to where ``layer_id`` is the backing's label, not
    # a layer: a composited scroller's contents (the scroller), a squashing backing (its
    # first layer). A 3D rendering context sorts and splits the draw with the member that
    # layer lies in (graph.contexts3d), as cc sorts every quad of a layer in its plane.
    owner_id: str = ""

    @property
    def quad_size(self) -> tuple[int, int]:
        return (self.source.width, self.source.height)

    @property
    def program(self) -> CompositeProgram:
        """The key of the quad program that draws this (an executor may draw a plain
        one at whole pixels another way)."""
        return CompositeProgram(len(self.clips), self.blend is not BlendMode.NORMAL, len(self.masks))
