"""Find the scheduler's devices on this machine: the GL context's renderer, and every OpenCL
device the installed ICDs offer (PoCL on the CPU; a GPU's OpenCL when present), as
``lamina.devices.Device`` records, with the transfer paths between them.

OpenCL platforms are read through pyopencl, or from a list given by the caller (objects
with pyopencl's attributes: a test's fake platforms), so enumeration is testable without
a driver.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Sequence

from ..devices import Device, DeviceType, TransferKind, TransferPath
from ..errors import OpenCLUnavailableError
from ..textures import Executor
from .context import RendererInfo
from .opencl import _cl

__all__ = ["GL_SHARING", "cl_device", "enumerate_devices", "gl_device", "opencl_devices", "transfer_paths"]

GL_SHARING = "cl_khr_gl_sharing"
# pyopencl's device_type bits (the OpenCL constants), so fake devices need no pyopencl.
_TYPE_BITS = ((1 << 2, DeviceType.GPU), (1 << 1, DeviceType.CPU), (1 << 3, DeviceType.ACCELERATOR))


def gl_device(info: RendererInfo) -> Device:
    """The GL context as a device: its renderer, vendor and GL_VERSION (which names the
    driver: "4.5 (Core Profile) Mesa 23.0.4")."""
    kind = DeviceType.CPU if "llvmpipe" in info.renderer.lower() or "softpipe" in info.renderer.lower() else DeviceType.GPU
    return Device(Executor.GL, info.renderer, info.vendor, info.version, type=kind)


def cl_device(platform, device, index: str = "") -> Device:
    """One OpenCL device (pyopencl's, or an object with its attributes) as a record."""
    bits = int(getattr(device, "type", 0))
    kind = next((t for bit, t in _TYPE_BITS if bits & bit), DeviceType.UNKNOWN)
    return Device(Executor.OPENCL, str(device.name).strip(), str(platform.name).strip(),
                  str(device.driver_version).strip(), index, kind, int(getattr(device, "max_compute_units", 0)),
                  GL_SHARING in str(getattr(device, "extensions", "")).split())


def opencl_devices(platforms: Iterable | None = None) -> tuple[Device, ...]:
    """Every OpenCL device, indexed "P:D" as ``LAMINA_OPENCL_DEVICE`` takes them; none
    when no driver is installed. ``platforms``: pyopencl's (default) or fakes."""
    if platforms is None:
        cl = _cl()
        try:
            platforms = cl.get_platforms()
        except cl.Error:
            return ()  # no ICD: no OpenCL device (a machine with GL only)
        errors: tuple = (cl.Error,)
    else:
        errors = (RuntimeError,)  # a fake platform without devices raises this
    found = []
    for pi, platform in enumerate(platforms):
        try:
            devices = platform.get_devices()
        except errors:
            continue  # a platform with no devices
        found.extend(cl_device(platform, d, f"{pi}:{di}") for di, d in enumerate(devices))
    return tuple(found)


def enumerate_devices(info: RendererInfo, platforms: Iterable | None = None) -> tuple[Device, ...]:
    """The scheduler's devices: GL first (every frame runs there), then each OpenCL one."""
    try:
        cl_devices = opencl_devices(platforms)
    except OpenCLUnavailableError:  # pyopencl missing: GL alone
        cl_devices = ()
    return (gl_device(info), *cl_devices)


def transfer_paths(devices: Sequence[Device]) -> tuple[TransferPath, ...]:
    """The ways images move between ``devices``: a host copy each way between GL and each
    OpenCL device, and between OpenCL devices; GL sharing too where an OpenCL driver has
    ``cl_khr_gl_sharing`` (listed, not used yet: Lamina copies through the host)."""
    paths: list[TransferPath] = []
    for a in devices:
        for b in devices:
            # Two devices of one id (two PoCL pthread devices) are one path's two ends:
            # listed once, as their shared history keys it.
            if a is b or TransferPath(a.id, b.id) in paths:
                continue
            paths.append(TransferPath(a.id, b.id))
            cl = b if a.kind is Executor.GL else a if b.kind is Executor.GL else None
            if cl is not None and cl.kind is Executor.OPENCL and cl.gl_sharing:
                paths.append(TransferPath(a.id, b.id, TransferKind.GL_SHARING))
    return tuple(paths)


def runner_device(runner) -> Device:
    """The device an OpenCL filter runner (gpu.opencl.CLFilterRunner) runs on, with its
    "P:D" index."""
    device = runner.device
    record = cl_device(device.platform, device)
    index = getattr(runner, "index", "")  # (by the device itself: two devices may have one id)
    return replace(record, index=index or next((d.index for d in opencl_devices() if d.id == record.id), ""))
