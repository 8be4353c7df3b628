"""Device profiles: the devices of a machine and what their passes and copies cost, as a
file, so a frame can be scheduled against hardware this machine lacks
(``lamina schedule scene.json --devices profile.json``, ``lamina.simulate``).

A profile is JSON, written by ``lamina info --profile FILE`` on a real machine (its
devices and their calibrated history model) or by hand (speeds per pass kind)::

    {"lamina_profile": 1,
     "name": "discrete GPU + CPU OpenCL", "note": "illustrative numbers, not measured",
     "devices": [
       {"id": "gpu", "kind": "gl", "name": "Discrete GPU", "type": "gpu", "launch_ms": 0.01,
        "speeds": {"color": 6000, "blur": 40000, "down": 8000, "up": 8000, "shadow": 5000,
                   "morphology": 20000, "raster": 6000, "composite": 8000}},
       {"id": "cpu-cl", "kind": "opencl", "name": "8-core CPU (PoCL)", "type": "cpu",
        "launch_ms": 0.05, "speeds": {"color": 400, "blur": 3000, ...}}],
     "transfers": [{"from": "gpu", "to": "cpu-cl", "gb_per_s": 12, "latency_ms": 0.03},
                   {"from": "cpu-cl", "to": "gpu", "gb_per_s": 12, "latency_ms": 0.03}]}

Speeds are millions of work units per second, a unit being what the cost model counts
(``filter_costs.work_units``): an output pixel, and for a blur an output pixel times its
taps. A pass costs ``launch_ms`` plus its units over its speed. ``color`` is a one-step
colour pass; ``color8`` eight fused clamped steps (default: half the one-step speed, as
fused steps are arithmetic on pixels already read). ``raster``, ``composite``,
``backdrop`` and ``box-shadow`` (GL device only) price the passes only GL runs (default:
the one-step colour proxy of ``lamina.frame_costs``). A copy costs ``latency_ms`` plus
its bytes over ``gb_per_s``. Every OpenCL device needs a copy each way with the GL
device. A recorded profile lists its devices as ``lamina.devices.Device.to_dict`` writes
them and the model as ``HistoryModel.to_dict`` (``"history"``); a device may have both
speeds and history (the speeds then win for what they name).

Anything else is a ``DeviceProfileError`` naming the key: an unknown key, a speed that is
not a positive number, a negative latency, a transfer or history entry naming a device
the profile does not list, no GL device, an OpenCL device with no copy to or from GL.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .cost_history import COLOR_SAMPLE_STEPS, HistoryModel, ModelFormatError, Sample
from .devices import Device, DeviceType
from .errors import DeviceProfileError
from .frame_costs import HistoryCosts, PinnedKind, PinnedRate
from .filters.plan import PassKind
from .textures import Executor

__all__ = ["DeviceProfile", "PROFILE_VERSION", "load_profile", "parse_profile", "record_profile"]

PROFILE_VERSION = 1
_TOP_KEYS = {"lamina_profile", "name", "note", "devices", "transfers", "history", "recorded"}
_DEVICE_KEYS = {"id", "kind", "name", "label", "platform", "driver_version", "index", "type", "compute_units", "gl_sharing",
                "launch_ms", "speeds", "note"}
_TRANSFER_KEYS = {"from", "to", "gb_per_s", "latency_ms"}
_FILTER_SPEEDS = {k.value for k in PassKind} | {f"color{COLOR_SAMPLE_STEPS}"}
_PINNED_SPEEDS = {k.value for k in PinnedKind}
# Units at which hand-written speeds are written into the history model: two size classes
# make its line through them exactly launch + units / speed at every size.
_SYNTH_UNITS = (float(1 << 16), float(1 << 22))
_SYNTH_BYTES = (float(1 << 18), float(1 << 24))


@dataclass(frozen=True)
class DeviceProfile:
    """A parsed profile: devices (GL first), their keys in ``model`` and their names in a
    schedule's rows, the history model (recorded, or made from speeds), the GL-only pass
    speeds given, and the profile's own name and note."""

    name: str
    devices: tuple[Device, ...]
    keys: tuple[str, ...]
    names: tuple[str, ...]
    model: HistoryModel
    pinned: Mapping[PinnedKind, PinnedRate] = field(default_factory=dict)
    note: str = ""

    def costs(self) -> HistoryCosts:
        """The scheduler's prices for these devices (lamina.frame_costs)."""
        return HistoryCosts(self.devices, self.keys, self.model, self.names, self.pinned,
                            label=f"profile {self.name!r}")


def _fail(key: str, message: str, file: str | None) -> DeviceProfileError:
    return DeviceProfileError(message, key=key, file=file)


def _check_keys(obj: Any, allowed: set[str], key: str, file: str | None) -> dict:
    if not isinstance(obj, dict):
        raise _fail(key, f"expected an object, got {type(obj).__name__}", file)
    for k in obj:
        if k not in allowed:
            raise _fail(f"{key}.{k}", f"unknown key {k!r} (known: {', '.join(sorted(allowed))})", file)
    return obj


def _number(value: Any, key: str, file: str | None, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(key, f"expected a number, got {value!r}", file)
    if value < 0 or (positive and value == 0):
        raise _fail(key, f"must be {'positive' if positive else 'zero or more'}, got {value!r}", file)
    return float(value)


def _text(obj: dict, name: str, key: str, file: str | None, default: str = "") -> str:
    value = obj.get(name, default)
    if not isinstance(value, str):
        raise _fail(f"{key}.{name}", f"expected a string, got {value!r}", file)
    return value


def parse_profile(data: Any, *, file: str | None = None) -> DeviceProfile:
    """The profile ``data`` (parsed JSON) describes; DeviceProfileError naming the key
    otherwise."""
    top = _check_keys(data, _TOP_KEYS, "$", file)
    version = top.get("lamina_profile")
    if version != PROFILE_VERSION:
        raise _fail("$.lamina_profile", f"expected {PROFILE_VERSION} (a Lamina device profile), got {version!r}", file)
    raw_devices = top.get("devices")
    if not isinstance(raw_devices, list) or not raw_devices:
        raise _fail("$.devices", "expected a list of devices, GL first", file)
    model = HistoryModel()
    if "history" in top:
        try:
            model = HistoryModel.from_dict(top["history"])
        except ModelFormatError as err:
            raise _fail("$.history", str(err), file) from None
    devices, keys, names, pinned, speeds_of = [], [], [], {}, {}
    for i, raw in enumerate(raw_devices):
        key = f"$.devices[{i}]"
        d = _check_keys(raw, _DEVICE_KEYS, key, file)
        kind_text = _text(d, "kind", key, file)
        try:
            kind = Executor.of(kind_text)
        except ValueError:
            raise _fail(f"{key}.kind", f"expected 'gl' or 'opencl', got {kind_text!r}", file) from None
        dev_id = _text(d, "id", key, file)
        if not dev_id:
            raise _fail(f"{key}.id", "every device needs an id (what transfers and the history name it by)", file)
        if dev_id in keys:
            raise _fail(f"{key}.id", f"device id {dev_id!r} is listed twice", file)
        type_text = _text(d, "type", key, file, "unknown")
        try:
            dtype = DeviceType(type_text)
        except ValueError:
            raise _fail(f"{key}.type", f"expected one of {', '.join(t.value for t in DeviceType)}, got {type_text!r}",
                        file) from None
        units = d.get("compute_units", 0)
        if isinstance(units, bool) or not isinstance(units, int) or units < 0:
            raise _fail(f"{key}.compute_units", f"expected a whole number, zero or more, got {units!r}", file)
        name = _text(d, "name", key, file, dev_id)
        devices.append(Device(kind, name, _text(d, "platform", key, file, "profile"),
                              _text(d, "driver_version", key, file, "profile"), _text(d, "index", key, file), dtype,
                              units, bool(d.get("gl_sharing", False))))
        keys.append(dev_id)
        names.append(_text(d, "label", key, file) or (("GL" if kind is Executor.GL else "OpenCL") + f" {dev_id}"))
        launch = _number(d.get("launch_ms", 0.0), f"{key}.launch_ms", file, positive=False)
        speeds = d.get("speeds")
        if speeds is not None:
            speeds = _check_keys(speeds, _FILTER_SPEEDS | (_PINNED_SPEEDS if kind is Executor.GL else set()),
                                 f"{key}.speeds", file)
            speeds_of[dev_id] = {s: _number(v, f"{key}.speeds.{s}", file, positive=True) for s, v in speeds.items()}
            for s, v in speeds_of[dev_id].items():
                if s in _PINNED_SPEEDS:
                    pinned[PinnedKind(s)] = PinnedRate(launch, 1.0 / (v * 1000.0))
                    continue
                model = _synthesise(model, Sample.parse(s), dev_id, launch, v)
            one, many = "color", f"color{COLOR_SAMPLE_STEPS}"
            if one in speeds_of[dev_id] and many not in speeds_of[dev_id]:
                model = _synthesise(model, Sample.parse(many), dev_id, launch, speeds_of[dev_id][one] / 2)
    if devices[0].kind is not Executor.GL:
        gl = [i for i, d in enumerate(devices) if d.kind is Executor.GL]
        if len(gl) != 1:
            raise _fail("$.devices", f"a profile has one GL device (every frame runs there), found {len(gl)}", file)
        j = gl[0]
        for seq in (devices, keys, names):
            seq.insert(0, seq.pop(j))
    elif sum(d.kind is Executor.GL for d in devices) != 1:
        raise _fail("$.devices", "a profile has one GL device (every frame runs there)", file)
    known = set(keys)
    transfers = top.get("transfers", [])
    if not isinstance(transfers, list):
        raise _fail("$.transfers", f"expected a list of copies, got {type(transfers).__name__}", file)
    for i, raw in enumerate(transfers):
        key = f"$.transfers[{i}]"
        t = _check_keys(raw, _TRANSFER_KEYS, key, file)
        ends = []
        for end in ("from", "to"):
            if end not in t:
                raise _fail(f"{key}.{end}", f"missing: the device the copy goes {end}", file)
            if t[end] not in known:
                raise _fail(f"{key}.{end}", f"names no device of the profile: {t[end]!r} (devices: {', '.join(keys)})",
                            file)
            ends.append(t[end])
        if "gb_per_s" not in t:
            raise _fail(f"{key}.gb_per_s", "missing: the copy speed", file)
        rate = _number(t["gb_per_s"], f"{key}.gb_per_s", file, positive=True)
        latency = _number(t.get("latency_ms", 0.0), f"{key}.latency_ms", file, positive=False)
        for nbytes in _SYNTH_BYTES:
            model = model.observe_copy(ends[0], ends[1], int(nbytes), latency + nbytes / (rate * 1e6))
    for i, row in enumerate(model.to_dict()["passes"]):
        if row["device"] not in known:
            raise _fail(f"$.history.passes[{i}].device", f"names no device of the profile: {row['device']!r}", file)
    for i, row in enumerate(model.to_dict()["copies"]):
        for end, name in (("source", row["source"]), ("target", row["target"])):
            if name not in known:
                raise _fail(f"$.history.copies[{i}].{end}", f"names no device of the profile: {name!r}", file)
    for i, (dev, dev_id) in enumerate(zip(devices, keys)):
        if dev.kind is Executor.OPENCL and not (model.has_copies(keys[0], dev_id) and model.has_copies(dev_id, keys[0])):
            raise _fail("$.transfers", f"device {dev_id!r} has no copy to and from the GL device {keys[0]!r}", file)
        if not any(k.device == dev_id for k in model.passes) and dev.kind is Executor.OPENCL:
            raise _fail(f"$.devices[{i}].speeds", f"device {dev_id!r} has no speeds and no history: nothing says what "
                                                  "its passes cost", file)
    return DeviceProfile(_text(top, "name", "$", file, "unnamed profile"), tuple(devices), tuple(keys), tuple(names),
                         model, pinned, _text(top, "note", "$", file))


def _synthesise(model: HistoryModel, sample: Sample, device: str, launch: float, speed: float) -> HistoryModel:
    for units in _SYNTH_UNITS:
        model = model.observe_pass(sample, device, units, launch + units / (speed * 1000.0))
    return model


def load_profile(path: str | Path) -> DeviceProfile:
    """The profile in the JSON file at ``path``."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise DeviceProfileError(f"cannot read the profile: {err.strerror or err}", file=file) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise DeviceProfileError(f"not JSON: {err.msg} at line {err.lineno}, column {err.colno}", file=file) from None
    return parse_profile(data, file=file)


def record_profile(devices: tuple[Device, ...], model: HistoryModel, *, name: str, recorded: Mapping[str, Any]) -> dict:
    """A profile of this machine: its devices (GL first) and their history model, as
    ``lamina info --profile`` writes it (``recorded``: the renderer and the date)."""
    used = model.devices()
    rows = [{**d.to_dict(), "label": d.short} for d in devices if d.kind is Executor.GL or d.id in used]
    ids = {r["id"] for r in rows}
    model = HistoryModel({k: v for k, v in model.passes.items() if k.device in ids},
                         {k: v for k, v in model.copies.items() if k.source in ids and k.target in ids})
    return {"lamina_profile": PROFILE_VERSION, "name": name,
            "note": "recorded by lamina info --profile: the devices' calibrated history model (mean ms per size class)",
            "recorded": dict(recorded), "devices": rows, "history": model.to_dict()}
