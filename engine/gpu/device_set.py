"""Which OpenCL devices a renderer runs filter work on: by default the one selected
(``LAMINA_OPENCL_DEVICE``, else the first GPU, else the first device: gpu.opencl), and,
opted in, several (``LAMINA_OPENCL_DEVICES=0:0,0:1`` or ``all``, or
``Renderer(opencl_devices=...)``), over which the frame-wide schedule and forced
placements place passes (issue 22).

The setting is read once, where a renderer is made (the edge), into device records
(``lamina.devices.Device`` with their "P:D" indices); a bad value is an
``OpenCLDevicesError`` naming the entry and where it came from. ``lamina info`` says
which devices are in use.
"""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from ..devices import Device
from ..errors import OpenCLDevicesError
from .devices import opencl_devices

__all__ = ["DEVICES_ENV", "ALL", "parse_device_list", "opencl_devices_in_use"]

DEVICES_ENV = "LAMINA_OPENCL_DEVICES"
ALL = "all"


def parse_device_list(value: str | Sequence[str], available: Sequence[Device], *, where: str = DEVICES_ENV) -> tuple[Device, ...]:
    """The devices ``value`` names among ``available`` (OpenCL device records with
    indices): ``"all"``, or "P:D" indices separated by commas (a sequence of them from
    Python), each once, in the order given. An OpenCLDevicesError naming the entry and
    ``where`` otherwise; an empty list is one too (no device: say nothing instead)."""
    entries = [value] if isinstance(value, str) else list(value)
    if len(entries) == 1 and isinstance(entries[0], str) and entries[0].strip().lower() == ALL:
        if not available:
            raise OpenCLDevicesError(f"{where}={ALL!r}: this machine has no OpenCL device", value=ALL, where=where)
        return tuple(available)
    names = [e.strip() for entry in entries for e in (entry.split(",") if isinstance(entry, str) else [entry])]
    by_index = {d.index: d for d in available}
    shown = ", ".join(f"{d.index} ({d.platform} / {d.name})" for d in available) or "none"
    chosen: list[Device] = []
    for name in names:
        if not isinstance(name, str) or not name:
            raise OpenCLDevicesError(f"{where}: an empty entry in {value!r} (write {ALL!r} or P:D indices, comma "
                                     "separated, e.g. 0:0,0:1)", value=str(name), where=where)
        if name not in by_index:
            raise OpenCLDevicesError(f"{where}: no OpenCL device has index {name!r} (write {ALL!r} or P:D indices, "
                                     f"comma separated; this machine has: {shown})", value=name, where=where)
        if by_index[name] in chosen:
            raise OpenCLDevicesError(f"{where}: device {name!r} is named twice in {value!r}", value=name, where=where)
        chosen.append(by_index[name])
    return tuple(chosen)


def opencl_devices_in_use(setting: str | Sequence[str] | None, available: Iterable[Device] | None = None) -> tuple[Device, ...]:
    """The OpenCL devices a renderer uses, when it is told to use a list: ``setting``
    (a renderer's option), else ``LAMINA_OPENCL_DEVICES``; ``()`` when neither is given
    (the renderer uses its one selected device, as always). ``available``: the
    machine's OpenCL devices (default: gpu.devices.opencl_devices(), read only when a
    list is given)."""
    where = "opencl_devices" if setting is not None else DEVICES_ENV
    if setting is None:
        setting = os.environ.get(DEVICES_ENV) or None
    if setting is None:
        return ()
    if available is None:
        available = opencl_devices()  # (pyopencl loads only here: when a list is asked for)
    return parse_device_list(setting, tuple(available), where=where)
