"""The devices of the scheduler, as data: every executor Lamina can drive (the GL context,
and each OpenCL device found) and the paths an image can take between them.

Plain records, with no GPU handle in them: the cost model is keyed by ``Device.id``, the
planner may hold devices, and a profile of another machine can be written as these. They
are found on this machine by ``lamina.gpu.devices``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .named import NamedEnum
from .textures import Executor

__all__ = ["Device", "DeviceType", "TransferKind", "TransferPath"]


class DeviceType(NamedEnum):
    """What kind of hardware runs a device's work, as OpenCL names it (GL does not say:
    its renderer string does, and is kept as the device's name)."""

    GPU = "gpu"
    CPU = "cpu"
    ACCELERATOR = "accelerator"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Device:
    """One device of the scheduler. ``kind`` is the executor that drives it (GL or OpenCL);
    ``name`` its renderer (GL_RENDERER) or device name; ``platform`` the GL vendor or the
    OpenCL platform; ``driver_version`` GL_VERSION (it names the driver, e.g. Mesa 23.0.4)
    or the OpenCL device's driver version; ``index`` the OpenCL "P:D" index (as
    ``LAMINA_OPENCL_DEVICE`` takes it; "" for GL). ``id`` is the key measured costs are
    stored under: the kind, platform and name (not the index, which shifts when drivers
    are added), so the same device keeps its history across processes."""

    kind: Executor
    name: str
    platform: str
    driver_version: str
    index: str = ""
    type: DeviceType = DeviceType.UNKNOWN
    compute_units: int = 0
    gl_sharing: bool = False  # an OpenCL device whose driver has cl_khr_gl_sharing

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Executor.of(self.kind))
        object.__setattr__(self, "type", DeviceType(self.type))

    @property
    def id(self) -> str:
        return f"{self.kind.value}:{self.platform} / {self.name}"

    @property
    def label(self) -> str:
        """How reports name it: "GL llvmpipe (...)", "OpenCL 0:0 Portable ... / pthread-..."."""
        if self.kind is Executor.GL:
            return f"GL {self.name}"
        return f"OpenCL {self.index} {self.platform} / {self.name}".replace("  ", " ")

    @property
    def short(self) -> str:
        """"GL", or "OpenCL 0:0": how a list of transfer paths names it."""
        return "GL" if self.kind is Executor.GL else f"OpenCL {self.index or self.name}"

    def to_dict(self) -> dict:
        return {**asdict(self), "kind": self.kind.value, "type": self.type.value, "id": self.id}


class TransferKind(NamedEnum):
    """How an image moves between two devices' memories: read into host memory and written
    to the other (what Lamina does), or shared in place (``cl_khr_gl_sharing``: an OpenCL
    image made from the GL texture; listed where the driver offers it, not used yet)."""

    HOST_COPY = "host copy"
    GL_SHARING = "GL sharing"


@dataclass(frozen=True)
class TransferPath:
    """A way an image goes from device ``source`` to device ``target`` (their ids)."""

    source: str
    target: str
    kind: TransferKind = TransferKind.HOST_COPY

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", TransferKind(self.kind))

    @property
    def used(self) -> bool:
        """Whether Lamina's executors move images this way today (host copies only)."""
        return self.kind is TransferKind.HOST_COPY

    def to_dict(self) -> dict:
        return {"source": self.source, "target": self.target, "kind": self.kind.value}
