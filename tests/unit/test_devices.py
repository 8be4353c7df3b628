"""The scheduler's devices (issue 22, item 1), from a fake OpenCL platform list: records,
"P:D" indexes, ids that key measured costs, and the transfer paths between devices."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from lamina.devices import Device, DeviceType, TransferKind, TransferPath
from lamina.gpu.devices import enumerate_devices, gl_device, opencl_devices, transfer_paths
from lamina.textures import Executor

INFO = SimpleNamespace(renderer="llvmpipe (LLVM 15.0.6, 256 bits)", vendor="Mesa/X.org",
                       version="4.5 (Core Profile) Mesa 22.3.6")


class FakePlatform:
    def __init__(self, name, devices, fails=False):
        self.name, self._devices, self._fails = name, devices, fails

    def get_devices(self):
        if self._fails:
            raise RuntimeError("CL_DEVICE_NOT_FOUND")
        return self._devices


def fake_device(name, driver, type_bits, extensions="", units=8):
    return SimpleNamespace(name=f" {name} ", driver_version=driver, type=type_bits, extensions=extensions,
                           max_compute_units=units)


PLATFORMS = [
    FakePlatform("NVIDIA CUDA", [fake_device("NVIDIA H200", "550.54", 4, "cl_khr_fp64 cl_khr_gl_sharing", 132)]),
    FakePlatform("Broken ICD", [], fails=True),
    FakePlatform("Portable Computing Language", [fake_device("pthread-skylake", "3.1+debian", 2, "cl_khr_fp64", 2)]),
]


def test_every_opencl_device_of_every_platform_is_a_device_record():
    gpu, cpu = opencl_devices(PLATFORMS)
    assert gpu == Device(Executor.OPENCL, "NVIDIA H200", "NVIDIA CUDA", "550.54", "0:0", DeviceType.GPU, 132, True)
    assert (cpu.index, cpu.type, cpu.gl_sharing, cpu.name) == ("2:0", DeviceType.CPU, False, "pthread-skylake")
    assert cpu.id == "opencl:Portable Computing Language / pthread-skylake", "the id does not hold the index"
    assert cpu.short == "OpenCL 2:0" and cpu.label.startswith("OpenCL 2:0 Portable")
    assert opencl_devices([]) == ()


def test_gl_comes_first_and_its_driver_is_gl_version():
    devices = enumerate_devices(INFO, PLATFORMS)
    gl = devices[0]
    assert [d.kind for d in devices] == [Executor.GL, Executor.OPENCL, Executor.OPENCL]
    assert gl == gl_device(INFO) and gl.driver_version == INFO.version and gl.type is DeviceType.CPU
    assert gl.id == "gl:Mesa/X.org / llvmpipe (LLVM 15.0.6, 256 bits)" and gl.short == "GL"
    assert len({d.id for d in devices}) == 3, "ids are keys"
    assert json.loads(json.dumps([d.to_dict() for d in devices]))[1]["kind"] == "opencl"
    assert enumerate_devices(INFO, []) == (gl,), "a machine without OpenCL has GL alone"


def test_transfer_paths_are_host_copies_and_gl_sharing_where_the_driver_has_it():
    gl, gpu, cpu = enumerate_devices(INFO, PLATFORMS)
    paths = transfer_paths((gl, gpu, cpu))
    copies = {(p.source, p.target) for p in paths if p.kind is TransferKind.HOST_COPY}
    assert copies == {(a.id, b.id) for a in (gl, gpu, cpu) for b in (gl, gpu, cpu) if a != b}
    sharing = {(p.source, p.target) for p in paths if p.kind is TransferKind.GL_SHARING}
    assert sharing == {(gl.id, gpu.id), (gpu.id, gl.id)}, "only the driver with cl_khr_gl_sharing"
    assert all(p.used == (p.kind is TransferKind.HOST_COPY) for p in paths)
    assert TransferPath(gl.id, cpu.id, "host copy").to_dict() == {"source": gl.id, "target": cpu.id, "kind": "host copy"}


def test_a_device_record_is_typed_and_frozen():
    d = Device("cl", "x", "p", "1.0", "0:0", "gpu")
    assert d.kind is Executor.OPENCL and d.type is DeviceType.GPU
    with pytest.raises(ValueError):
        Device("metal", "x", "p", "1.0")
    with pytest.raises(AttributeError):
        d.name = "y"
