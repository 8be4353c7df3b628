"""The EGL devices of this machine (EGL_EXT_device_enumeration), and which one each
batch worker's GL context takes.

A headless context is made on an EGL device: glcontext's EGL backend (what
``moderngl.create_standalone_context(backend="egl", device_index=i)`` calls) asks EGL for
its devices with ``eglQueryDevicesEXT`` and opens a display on device ``i``
(``eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, ...)``; 0 when not given; an index
past the list fails with "requested device index i, but found n devices"). Indexes are
EGL's order, which is not CUDA's nor ``nvidia-smi``'s.

``GLCONTEXT_DEVICE_INDEX`` (glcontext 3.1, ``glcontext/__init__.py``: ``_apply_env_var``)
is read at each context's creation, in the process that makes it, as
``os.environ.get("GLCONTEXT_DEVICE_INDEX", device_index)``: when it is set to a non-empty
value it replaces the ``device_index`` argument, whatever that was ("0" included: it is a
non-empty string); empty or unset, the argument stands. So it pins every context of a
process (and of the worker processes that inherit it) to one device and overrides
Lamina's per-worker choice; to spread a hand-started cluster's workers over GPUs, start
each ``dask worker`` with its own ``GLCONTEXT_DEVICE_INDEX``.

Lamina's rule (``device_for_worker``): when two or more EGL devices are GPUs (a DRM device
file, or NVIDIA's CUDA device extension), worker ``i`` takes the ``i mod n``-th of them and
``--workers 0`` starts one worker per GPU; with one GPU or none (llvmpipe's software
device) contexts are made as before, on glcontext's default device, and ``--workers 0``
starts one worker per CPU core. Enumerating devices makes no GL context (safe before a
fork) and costs a millisecond or so; the result is kept per process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from ..named import NamedEnum

__all__ = ["EGLDeviceKind", "EGLDevice", "EGLDevices", "egl_devices", "gpu_indices", "default_workers",
           "device_for_worker", "assign_devices", "worker_ordinal", "DEVICE_ENV"]

DEVICE_ENV = "GLCONTEXT_DEVICE_INDEX"
_MAX_DEVICES = 64
# EGL enums (EGL_EXT_device_query, EGL_EXT_device_drm, EGL_EXT_device_drm_render_node,
# EGL_EXT_device_query_name)
_EGL_EXTENSIONS = 0x3055
_EGL_VENDOR = 0x3053
_EGL_DRM_DEVICE_FILE = 0x3233
_EGL_DRM_RENDER_NODE_FILE = 0x3377
_EGL_RENDERER = 0x335F


class EGLDeviceKind(NamedEnum):
    GPU = "gpu"            # a DRM device file or a CUDA device behind it: hardware
    SOFTWARE = "software"  # EGL_MESA_device_software: llvmpipe on the CPU
    UNKNOWN = "unknown"    # neither said: not counted as a GPU


@dataclass(frozen=True)
class EGLDevice:
    """One EGL device: ``index`` as ``device_index`` and GLCONTEXT_DEVICE_INDEX take it,
    what it is, its DRM files (where it has them), its name and vendor (where the driver
    says: EGL_EXT_device_query_name) and its device extensions."""

    index: int
    kind: EGLDeviceKind
    drm_file: str = ""
    render_node: str = ""
    name: str = ""
    vendor: str = ""
    extensions: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        what = self.name or self.drm_file or self.render_node or ("Mesa software (llvmpipe)"
                                                                   if self.kind is EGLDeviceKind.SOFTWARE else "?")
        return f"{self.index}  {self.kind.value:8s}  {what}" + (f" ({self.vendor})" if self.vendor else "")

    def to_dict(self) -> dict:
        return {"index": self.index, "kind": self.kind.value, "drm_file": self.drm_file,
                "render_node": self.render_node, "name": self.name, "vendor": self.vendor,
                "extensions": list(self.extensions)}


@dataclass(frozen=True)
class EGLDevices:
    """What enumeration found: the devices, or none and ``reason`` why (no libEGL, no
    EGL_EXT_device_enumeration, the query failed)."""

    devices: tuple[EGLDevice, ...] = ()
    reason: str = ""
    env_index: str | None = field(default=None)  # GLCONTEXT_DEVICE_INDEX as set, if it is

    @property
    def gpus(self) -> tuple[int, ...]:
        return gpu_indices(self.devices)

    def lines(self) -> list[str]:
        """The devices for ``lamina info``, one a line."""
        head = "EGL devices (EGL_EXT_device_enumeration; a context's device_index / GLCONTEXT_DEVICE_INDEX)"
        out = [head + ":"]
        if not self.devices:
            out.append(f"  none found: {self.reason}")
        out += [f"  {d.label}" for d in self.devices]
        n = len(self.gpus)
        rule = (f"one per GPU ({n} EGL GPU devices; worker i takes GPU i mod {n})" if n >= 2
                else f"one per CPU core ({n} EGL GPU device{'s' if n != 1 else ''}: every worker on the default device)")
        out.append(f"  batch --workers 0: {rule}")
        if self.env_index is not None:
            out.append(f"  {DEVICE_ENV}={self.env_index} is set: every context this process (and its workers) "
                       "makes is on that device, whatever Lamina asks for")
        return out

    def to_dict(self) -> dict:
        return {"devices": [d.to_dict() for d in self.devices], "reason": self.reason, "gpus": list(self.gpus),
                DEVICE_ENV: self.env_index}


def _kind(extensions: Sequence[str], drm_file: str) -> EGLDeviceKind:
    if "EGL_MESA_device_software" in extensions:
        return EGLDeviceKind.SOFTWARE
    if drm_file or "EGL_NV_device_cuda" in extensions:
        return EGLDeviceKind.GPU
    return EGLDeviceKind.UNKNOWN


def _enumerate() -> EGLDevices:
    env = os.environ.get(DEVICE_ENV) or None
    name = ctypes.util.find_library("EGL")
    if name is None:
        return EGLDevices(reason="libEGL not found (apt-get install -y libegl1 libegl-mesa0)", env_index=env)
    try:
        egl = ctypes.CDLL(name)
    except OSError as err:
        return EGLDevices(reason=f"cannot load {name}: {err}", env_index=env)
    egl.eglQueryString.restype = ctypes.c_char_p
    egl.eglQueryString.argtypes = [ctypes.c_void_p, ctypes.c_int]
    egl.eglGetProcAddress.restype = ctypes.c_void_p
    egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
    client = (egl.eglQueryString(None, _EGL_EXTENSIONS) or b"").decode("ascii", "replace").split()
    if "EGL_EXT_device_enumeration" not in client and "EGL_EXT_device_base" not in client:
        return EGLDevices(reason="this EGL has no EGL_EXT_device_enumeration", env_index=env)
    query_devices = egl.eglGetProcAddress(b"eglQueryDevicesEXT")
    query_string = egl.eglGetProcAddress(b"eglQueryDeviceStringEXT")
    if not query_devices or not query_string:
        return EGLDevices(reason="eglQueryDevicesEXT or eglQueryDeviceStringEXT is missing", env_index=env)
    devices_fn = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_int))(query_devices)
    string_fn = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int)(query_string)
    handles = (ctypes.c_void_p * _MAX_DEVICES)()
    count = ctypes.c_int(0)
    if not devices_fn(_MAX_DEVICES, handles, ctypes.byref(count)):
        return EGLDevices(reason="eglQueryDevicesEXT failed", env_index=env)

    def text(handle: int, what: int) -> str:
        value = string_fn(handle, what)
        return value.decode("utf-8", "replace") if value else ""

    found = []
    for i in range(count.value):
        ext = tuple(text(handles[i], _EGL_EXTENSIONS).split())
        drm = text(handles[i], _EGL_DRM_DEVICE_FILE) if "EGL_EXT_device_drm" in ext else ""
        node = text(handles[i], _EGL_DRM_RENDER_NODE_FILE) if "EGL_EXT_device_drm_render_node" in ext else ""
        named = "EGL_EXT_device_query_name" in ext
        found.append(EGLDevice(i, _kind(ext, drm), drm, node, text(handles[i], _EGL_RENDERER) if named else "",
                               text(handles[i], _EGL_VENDOR) if named else "", ext))
    return EGLDevices(tuple(found), "" if found else "EGL lists no device", env_index=env)


@lru_cache(maxsize=1)
def egl_devices() -> EGLDevices:
    """This machine's EGL devices (enumerated once per process; no GL context made)."""
    return _enumerate()


def gpu_indices(devices: Sequence[EGLDevice]) -> tuple[int, ...]:
    """The EGL indexes of the devices that are GPUs, in EGL order; a GPU listed twice (two
    vendors' EGL drivers behind glvnd naming the same DRM device file) counts once, at
    its first index."""
    seen: set[str] = set()
    out = []
    for d in devices:
        if d.kind is EGLDeviceKind.GPU and not (d.drm_file and d.drm_file in seen):
            out.append(d.index)
            seen.add(d.drm_file)
    return tuple(out)


def default_workers(cores: int, devices: Sequence[EGLDevice]) -> int:
    """``--workers 0``: one worker per GPU when there are two or more, else one per core."""
    gpus = gpu_indices(devices)
    return len(gpus) if len(gpus) >= 2 else max(1, cores)


def device_for_worker(ordinal: int | None, devices: Sequence[EGLDevice]) -> int | None:
    """The EGL device index worker ``ordinal`` makes its context on: the ``ordinal mod n``-th
    of the n GPUs when there are two or more; None (glcontext's default device, or
    GLCONTEXT_DEVICE_INDEX) with fewer, or for a worker without an ordinal."""
    gpus = gpu_indices(devices)
    if len(gpus) < 2 or ordinal is None:
        return None
    return gpus[ordinal % len(gpus)]


def assign_devices(workers: int, devices: Sequence[EGLDevice]) -> list[int | None]:
    """Each of ``workers`` workers' device (``device_for_worker`` of 0..workers-1)."""
    return [device_for_worker(i, devices) for i in range(workers)]


_TRAILING_NUMBER = re.compile(r"(?:^|[-_:])(\d+)$")


def worker_ordinal(name: object) -> int | None:
    """A worker's number from its dask name: a LocalCluster's are 0..N-1; ``dask worker
    --name W --nworkers N`` makes W-0..W-(N-1). None for a name without one (an address)."""
    if isinstance(name, int) and not isinstance(name, bool):
        return name if name >= 0 else None
    text = str(name)
    if "://" in text:  # a worker named by its address: the port is no ordinal
        return None
    m = _TRAILING_NUMBER.search(text)
    return int(m.group(1)) if m else None
