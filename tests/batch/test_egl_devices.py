"""Which EGL device each batch worker takes (lamina.gpu.egl_devices), on fake device
lists (no GPU needed): one worker per GPU with two or more GPUs, worker i on GPU
i mod n, the software device never counted; `lamina info` lists this machine's EGL
devices; GLCONTEXT_DEVICE_INDEX and device indexes past the list are typed errors."""

from __future__ import annotations

import json

import pytest

from lamina.batch import ClusterSpec
from lamina.batch import cluster as cluster_module
from lamina.cli import main
from lamina.errors import GPUUnavailableError
from lamina.gpu.context import GPUContext
from lamina.gpu.egl_devices import (EGLDevice, EGLDeviceKind, EGLDevices, assign_devices, default_workers,
                                    device_for_worker, egl_devices, gpu_indices, worker_ordinal)

SOFTWARE = EGLDevice(0, EGLDeviceKind.SOFTWARE, extensions=("EGL_MESA_device_software",))


def _gpu(i: int) -> EGLDevice:
    return EGLDevice(i, EGLDeviceKind.GPU, drm_file=f"/dev/dri/card{i}", extensions=("EGL_EXT_device_drm",))


def test_with_several_gpus_worker_i_takes_gpu_i_mod_n():
    # EGL order as glvnd may give it: two NVIDIA GPUs, then Mesa's software device, then a third GPU.
    devices = [_gpu(0), _gpu(1), EGLDevice(2, EGLDeviceKind.SOFTWARE), _gpu(3)]
    assert gpu_indices(devices) == (0, 1, 3)
    assert assign_devices(7, devices) == [0, 1, 3, 0, 1, 3, 0]  # the software device is never given out
    assert default_workers(16, devices) == 3  # one worker per GPU, not per core
    assert device_for_worker(None, devices) is None  # a worker without a number: the default device
    # One GPU listed by two vendors' drivers (the same DRM device file) is one GPU.
    twice = [_gpu(0), EGLDevice(1, EGLDeviceKind.GPU, drm_file="/dev/dri/card0"), _gpu(2)]
    assert gpu_indices(twice) == (0, 2) and assign_devices(3, twice) == [0, 2, 0]


def test_with_one_gpu_or_none_every_worker_is_on_the_default_device():
    for devices in ([], [SOFTWARE], [SOFTWARE, _gpu(1)], [EGLDevice(0, EGLDeviceKind.UNKNOWN)]):
        assert assign_devices(3, devices) == [None, None, None]
        assert default_workers(16, devices) == 16  # one per CPU core
    assert default_workers(0, []) == 1


def test_worker_numbers_from_dask_names():
    assert [worker_ordinal(n) for n in (0, 3, "2", "render-5", "gpu_1")] == [0, 3, 2, 5, 1]
    assert worker_ordinal("tcp://127.0.0.1:40123") is None and worker_ordinal("alpha") is None
    assert worker_ordinal(-1) is None


def test_workers_zero_counts_gpus_else_cores(monkeypatch):
    monkeypatch.setattr(cluster_module, "egl_devices", lambda: EGLDevices((_gpu(0), _gpu(1), SOFTWARE)))
    assert ClusterSpec(workers=0).worker_count() == 2
    assert ClusterSpec(workers=5).worker_count() == 5  # asked for: as asked
    monkeypatch.setattr(cluster_module, "egl_devices", lambda: EGLDevices((SOFTWARE,)))
    monkeypatch.setattr(cluster_module, "_cores", lambda: 6)
    assert ClusterSpec(workers=0).worker_count() == 6


def test_device_lines_say_what_was_found_and_the_rule():
    none = EGLDevices((), "this EGL has no EGL_EXT_device_enumeration").lines()
    assert "none found: this EGL has no EGL_EXT_device_enumeration" in none[1]
    assert "one per CPU core" in none[-1]
    several = EGLDevices((_gpu(0), _gpu(1)), env_index="1").lines()
    assert "0  gpu       /dev/dri/card0" in several[1] and "GPU i mod 2" in several[3]
    assert "GLCONTEXT_DEVICE_INDEX=1 is set" in several[-1]


@pytest.mark.gl
def test_lamina_info_lists_this_machines_egl_devices(capsys):
    found = egl_devices()
    assert main(["info"]) == 0
    text = capsys.readouterr().out
    section = text[text.index("EGL devices (EGL_EXT_device_enumeration"):].splitlines()
    if found.devices:  # here: Mesa's software device, index 0
        assert [line.split()[0] for line in section[1:1 + len(found.devices)]] == [str(d.index) for d in found.devices]
    else:
        assert "none found:" in section[1]
    assert any("batch --workers 0:" in line for line in section)
    assert main(["info", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["egl_devices"]
    assert [d["index"] for d in data["devices"]] == [d.index for d in found.devices]
    assert data["gpus"] == list(found.gpus)


@pytest.mark.gl
def test_device_index_past_the_list_and_a_bad_environment_are_typed_errors(monkeypatch):
    past = len(egl_devices().devices) + 5
    with pytest.raises(GPUUnavailableError, match=f"on EGL device {past}"):
        GPUContext.headless(past)
    monkeypatch.setenv("GLCONTEXT_DEVICE_INDEX", "first")
    with pytest.raises(GPUUnavailableError, match="GLCONTEXT_DEVICE_INDEX='first'"):
        GPUContext.headless(past)
