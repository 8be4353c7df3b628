"""The devices on this machine (GL on llvmpipe, PoCL's OpenCL), calibrated briefly and
listed with their speeds, and ``lamina info`` showing them (issue 22, items 1 and 2)."""

from __future__ import annotations

import json

import pytest

import lamina.gpu.calibrate as calibrate_mod
import lamina.gpu.opencl as ocl
from lamina.cli import main
from lamina.cost_store import CostModelWarning, LoadStatus, Stamp, load, store_path, thread_settings
from lamina.devices import TransferKind
from lamina.gpu.devices import enumerate_devices, runner_device
from lamina.gpu.survey import survey
from lamina.textures import Executor


@pytest.mark.opencl
def test_a_short_calibration_lists_every_device_with_its_speeds(gl, tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(calibrate_mod, "_MODELS", {})
    path = store_path(gl.info.fingerprint)
    path.write_text("{ half a file", encoding="utf-8")  # a crash mid-write of an old version: ignored, measured again
    with pytest.warns(CostModelWarning, match="is not JSON"):
        found = survey(gl, repeats=1)
    devices = enumerate_devices(gl.info)
    assert [d.device for d in found.devices] == list(devices)
    assert runner_device(ocl.default_runner()) in devices, "the device filters run on is one of them"
    for d in found.devices:
        if d.unusable:
            continue
        assert {s for s, _, _ in d.speeds} == {str(s) for s in calibrate_mod._samples()}
        assert all(e.mean > 0 and e.samples == 1 for _, e, _ in d.speeds)
    assert any(d.device.kind is Executor.OPENCL and d.speeds for d in found.devices), "PoCL is measured"
    copies = [p for p in found.paths if p.path.kind is TransferKind.HOST_COPY and Executor.GL.value in p.path.source]
    assert copies and all(p.gb_per_s and p.gb_per_s > 0 for p in copies)
    assert found.calibration.loaded.status is LoadStatus.CORRUPT and found.calibration.measured
    stored = load(Stamp(gl.info.fingerprint, thread_settings(), {d.id: d.driver_version for d in devices}))
    assert stored.status is LoadStatus.LOADED and stored.model == found.calibration.model, "rewritten whole"
    monkeypatch.setattr(calibrate_mod, "_MODELS", {})
    again = survey(gl)
    assert again.calibration.measured == () and again.calibration.loaded.status is LoadStatus.LOADED
    text = "\n".join(again.lines())
    assert "Mpx/s" in text and "GB/s" in text and "loaded" in text


@pytest.mark.opencl
def test_info_cli_lists_devices_speeds_and_transfer_paths(gl, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert gl.info.renderer in out and "Devices (history cost model" in out and "Transfer paths" in out
    assert "OpenCL 0:0" in out and "Mpx/s" in out and "host copy  GL -> OpenCL 0:0" in out and "GB/s" in out
    assert main(["info", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["renderer"] == gl.info.renderer
    assert data["devices"][0]["kind"] == "gl" and any(d["kind"] == "opencl" for d in data["devices"])
    assert all(v["mean_ms"] > 0 for d in data["devices"] for v in d["speeds"].values())
    assert any(p["gb_per_s"] for p in data["transfer_paths"]) and data["cost_model"]["store"].endswith(".json")
