"""What ``lamina info`` shows of the scheduler's devices: each device with its measured
speed per pass kind (the history cost model's mean and spread at the calibration's
largest size), and each transfer path with its measured copy speed.

Surveying calibrates what the stored history lacks (``gpu.calibrate``): about a second per
device the first time on a machine, nothing after.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cost_history import Estimate, HistoryModel
from ..cost_store import store_path
from ..devices import Device, TransferKind, TransferPath
from ..errors import OpenCLUnavailableError
from ..filter_costs import work_units
from ..filters.plan import image_size
from ..textures import Executor
from . import opencl as ocl
from .calibrate import CALIBRATION_SIZES, Calibration, _samples, calibrate_devices
from .devices import enumerate_devices, transfer_paths

__all__ = ["DeviceSpeed", "PathSpeed", "Survey", "survey"]


@dataclass(frozen=True)
class DeviceSpeed:
    """A device, and per calibration sample ("blur", "color8" ...) its estimate at
    ``size``; ``unusable`` says why Lamina cannot run filters there (then no speeds)."""

    device: Device
    size: tuple[int, int]
    speeds: tuple[tuple[str, Estimate, float], ...] = ()  # (sample, estimate, output pixels)
    unusable: str = ""

    def to_dict(self) -> dict:
        return {**self.device.to_dict(), "unusable": self.unusable or None, "size": list(self.size),
                "speeds": {s: {"mean_ms": e.mean, "std_ms": e.std, "samples": e.samples,
                               "mpx_per_s": px / e.mean / 1000 if e.mean > 0 else None}
                           for s, e, px in self.speeds}}


@dataclass(frozen=True)
class PathSpeed:
    """A transfer path and its measured copy of ``nbytes`` (None: not measured, as GL
    sharing and copies between OpenCL devices are not used yet)."""

    path: TransferPath
    nbytes: int
    estimate: Estimate | None

    @property
    def gb_per_s(self) -> float | None:
        e = self.estimate
        return self.nbytes / e.mean / 1e6 if e is not None and e.mean > 0 else None

    def to_dict(self) -> dict:
        e = self.estimate
        return {**self.path.to_dict(), "used": self.path.used, "bytes": self.nbytes,
                "mean_ms": e.mean if e else None, "std_ms": e.std if e else None, "samples": e.samples if e else 0,
                "gb_per_s": self.gb_per_s}


@dataclass(frozen=True)
class Survey:
    devices: tuple[DeviceSpeed, ...]
    paths: tuple[PathSpeed, ...]
    calibration: Calibration
    store: str

    def to_dict(self) -> dict:
        cal = self.calibration
        loaded = cal.loaded
        return {"devices": [d.to_dict() for d in self.devices], "transfer_paths": [p.to_dict() for p in self.paths],
                "cost_model": {"store": self.store, "status": loaded.status.value if loaded else "in memory",
                               "reason": loaded.reason if loaded else "", "measured": list(cal.measured)}}

    def lines(self) -> list[str]:
        w, h = CALIBRATION_SIZES[-1]
        out = [f"Devices (history cost model: mean ± spread of n runs, at {w}x{h})"]
        names: dict[str, str] = {}
        for d in self.devices:  # (devices of one id share a name: "OpenCL 0:0/0:1")
            names[d.device.id] = f"{names[d.device.id]}/{d.device.index}" if d.device.id in names else d.device.short
        for d in self.devices:
            dev = d.device
            extra = f", {dev.compute_units} compute units" if dev.compute_units else ""
            out.append(f"  {dev.label}  [{dev.type.value}{extra}, driver {dev.driver_version}]")
            if d.unusable:
                out.append(f"      not used: {d.unusable}")
            for sample, e, px in d.speeds:
                rate = f"{px / e.mean / 1000:8.1f} Mpx/s" if e.mean > 0 else ""
                out.append(f"      {sample:<10} {e.mean:8.2f} ms ± {e.std:5.2f} (n={e.samples})  {rate}")
        devices_gl = next(d.device.id for d in self.devices if d.device.kind is Executor.GL)
        out.append("Transfer paths")
        for p in self.paths:
            route = f"{names.get(p.path.source, p.path.source)} -> {names.get(p.path.target, p.path.target)}"
            e = p.estimate
            if e is not None:
                speed = (f"{p.nbytes / 2**20:.0f} MiB in {e.mean:.2f} ms ± {e.std:.2f} (n={e.samples}) = "
                         f"{p.gb_per_s:.1f} GB/s")
            elif p.path.source == p.path.target or (p.path.source != devices_gl and p.path.target != devices_gl
                                                     and p.path.kind is TransferKind.HOST_COPY):
                speed = "through the host: the copy to GL's memory, then from it (priced as the two)"
            else:
                speed = "not measured (not used yet: Lamina copies GL<->OpenCL through the host)"
            out.append(f"  {p.path.kind.value:<10} {route}: {speed}")
        cal = self.calibration
        state = cal.loaded.status.value if cal.loaded else "in memory"
        why = f" ({cal.loaded.reason})" if cal.loaded and cal.loaded.reason else ""
        out.append(f"Cost model: {self.store}: {state}{why}"
                   + (f"; measured now: {', '.join(cal.measured)}" if cal.measured else ""))
        return out


def survey(renderer, *, recalibrate: bool = False, repeats: int = 3) -> Survey:
    """Every device with its measured speeds and every transfer path with its copy speed,
    calibrating what is missing (everything again with ``recalibrate``)."""
    devices = enumerate_devices(renderer.info)
    runners, unusable = [], {}
    for dev in devices:
        if dev.kind is not Executor.OPENCL:
            continue
        try:
            runners.append(ocl.default_runner(ocl.select_device(dev.index)))
        except OpenCLUnavailableError as err:  # the kernels do not build or run there
            unusable[dev.id] = str(err)
    cal = calibrate_devices(renderer, runners, repeats=repeats, use_cache=not recalibrate)
    size = CALIBRATION_SIZES[-1]
    speeds = tuple(DeviceSpeed(d, size, _speeds(cal.model, d.id, size) if d.id not in unusable else (),
                               unusable.get(d.id, "")) for d in devices)
    nbytes = size[0] * size[1] * 4
    paths = tuple(PathSpeed(p, nbytes, cal.model.predict_copy(p.source, p.target, nbytes)
                            if p.kind is TransferKind.HOST_COPY and cal.model.has_copies(p.source, p.target) else None)
                  for p in transfer_paths(devices))
    return Survey(speeds, paths, cal, str(store_path(renderer.info.fingerprint)))


def _speeds(model: HistoryModel, device: str, size: tuple[int, int]) -> tuple[tuple[str, Estimate, float], ...]:
    out = []
    for sample, step in _samples().items():
        if not model.has_passes(device, [sample]):
            continue
        w, h = image_size(*size, step.scale)
        out.append((str(sample), model.predict(sample, device, work_units(step, *size)), float(w * h)))
    return tuple(out)
