"""Run planned filter passes with OpenCL (pyopencl): the second executor of the same plan.

The GL executor (``lamina.gpu.executor``) calls ``CLFilterRunner.run_pass`` for every
FilterPass placed on OpenCL, in scenes and in ``filters.apply`` graphs alike. Every
planned pass says its kernel call as data (``filters.plan.KernelCall``: kernel name,
arguments in order, launch geometry), so one generic handler runs them all; ``HANDLERS``
maps each ``PassKind`` to it.

Kernels live in ``shaders/opencl/filters.cl`` (one program, built once per device and
cached). Images are premultiplied RGBA8 ``uchar4`` buffers, as the GL passes keep RGBA8
textures, so both executors round the same way between passes; premultiplied linearRGB
images (``ImageFormat.RGBA32F``) are float buffers, as GL keeps them in RGBA32F
textures, and the passes on them run the kernels of ``shaders/opencl/linear.cl`` (a
second program: the blur and resampling kernels again on floats, and the
conversions into and out of linear light). The blur kernels tile
through local memory: a naive per-pixel kernel re-reads every tap from global memory.

The device is the one ``use_device(spec)`` chose for the process, else
``LAMINA_OPENCL_DEVICE``, else the first GPU, else the first device of any kind
(``select_device``). A spec is ``"P:D"`` (platform and device indices, as
``lamina info --opencl`` lists them) or text found in "platform / device".
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import LaminaInputError, OpenCLUnavailableError
from ..filters.plan import (KERNEL_CONSTANTS, MAX_BLUR_RADIUS, SHADER_CONSTANTS, Arg, ImageFormat, KernelCall, PassKind,
                            PlannedPass)
from .cl_queue import DeviceQueue, Ticket
from .pictures import KeptPictures
from .shader_source import expand

__all__ = [
    "CLAIMS",
    "CLImage",
    "CLFilterRunner",
    "DEVICE_ENV",
    "HANDLERS",
    "KERNEL_DEFINES",
    "default_runner",
    "device_index",
    "device_label",
    "list_devices",
    "select_device",
    "use_device",
]

DEVICE_ENV = "LAMINA_OPENCL_DEVICE"
INSTALL_HINT = "install an OpenCL driver, e.g. Debian's CPU one: apt-get install pocl-opencl-icd"
# The kernels' #defines: the constants shared with GLSL and the kernels' own (DOWN_RUN),
# both from filters.plan, which also gives each pass's launch geometry.
KERNEL_DEFINES: dict[str, int] = {**SHADER_CONSTANTS, **KERNEL_CONSTANTS}


def _cl():
    try:
        import pyopencl as cl  # import here: pyopencl takes ~140 ms to import; only OpenCL filter work needs it
    except ImportError as exc:  # pragma: no cover - pyopencl is a dependency
        raise OpenCLUnavailableError(f"pyopencl cannot be imported ({exc}); pip install pyopencl") from None
    return cl


def list_devices() -> list:
    """Every (platform, device) pair the installed ICDs offer, in index order."""
    cl = _cl()
    try:
        platforms = cl.get_platforms()
    except cl.Error as exc:
        raise OpenCLUnavailableError(f"no OpenCL platform found ({exc}); {INSTALL_HINT}") from None
    out = []
    for p in platforms:
        try:
            out.extend((p, d) for d in p.get_devices())
        except cl.Error:
            continue  # a platform with no devices
    return out


def device_label(platform, device) -> str:
    return f"{platform.name.strip()} / {device.name.strip()}"


def _by_index(pairs: list) -> dict[str, object]:
    """Each device of ``pairs`` (list_devices) by its "P:D" index."""
    by_index: dict[str, object] = {}
    for pi, p in enumerate(dict.fromkeys(p for p, _ in pairs)):
        for di, d in enumerate(d for q, d in pairs if q == p):
            by_index[f"{pi}:{di}"] = d
    return by_index


def device_index(device) -> str:
    """The "P:D" index of a pyopencl device ("" if no platform lists it): what tells two
    devices of the same name apart (two PoCL pthread devices, two like GPUs)."""
    return next((i for i, d in _by_index(list_devices()).items() if d == device), "")


def select_device(spec: str | None = None):
    """The OpenCL device to use (see the module docstring for ``spec``)."""
    cl = _cl()
    spec = spec if spec is not None else os.environ.get(DEVICE_ENV) or None
    pairs = list_devices()
    if not pairs:
        raise OpenCLUnavailableError(f"no OpenCL device found; {INSTALL_HINT}")
    if spec is None:
        gpus = [d for _, d in pairs if d.type & cl.device_type.GPU]
        return gpus[0] if gpus else pairs[0][1]
    by_index = _by_index(pairs)
    if spec in by_index:
        return by_index[spec]
    matches = [d for p, d in pairs if spec.lower() in device_label(p, d).lower()]
    if matches:
        return matches[0]
    available = "; ".join(f"{i} = {device_label(p, d)}" for i, (p, d) in zip(by_index, pairs))
    where = f"{DEVICE_ENV}={spec!r}" if spec == os.environ.get(DEVICE_ENV) else f"device {spec!r}"
    raise OpenCLUnavailableError(f"no OpenCL device matches {where}; available: {available}")


# The host array type of each image format's pixels (a buffer's bytes are a texture's).
_HOST_DTYPE = {ImageFormat.RGBA8: np.uint8, ImageFormat.RGBA32F: np.float32}


@dataclass
class CLImage:
    """A premultiplied image in an OpenCL buffer: RGBA8 sRGB, or float linearRGB."""

    buffer: object
    width: int
    height: int
    format: ImageFormat = ImageFormat.RGBA8

    @property
    def nbytes(self) -> int:
        return self.width * self.height * self.format.texel_bytes


_PROGRAMS: dict = {}  # device id -> (context, filters.cl's program, linear.cl's): once per device per process
KERNEL_PREFIX = "filter_"  # every kernel's name starts with it (OpenCL C has a built-in upsample())
WORK_GROUP = 256  # the largest work-group the kernels are launched with (16 x 16, 64 x 1 ...)


def _device_program(cl, device, label: str):
    """The device's shared context and filter program, built on first use."""
    entry = _PROGRAMS.get(device.int_ptr)
    if entry is None:
        try:
            context = cl.Context([device])
            options = ["-cl-std=CL1.2", *(f"-D{k}={v}" for k, v in sorted(KERNEL_DEFINES.items()))]
            program = cl.Program(context, expand("opencl/filters.cl")).build(options=options)
            linear = cl.Program(context, expand("opencl/linear.cl")).build(options=options)
        except cl.Error as exc:
            raise OpenCLUnavailableError(f"the filter kernels do not build on {label}: {exc}") from None
        entry = _PROGRAMS[device.int_ptr] = (context, program, linear)
    return entry


def _kernels(program) -> dict:
    """Every kernel of ``program`` by its name without the prefix: a kernel call names one."""
    return {k.function_name[len(KERNEL_PREFIX):]: k for k in program.all_kernels()
            if k.function_name.startswith(KERNEL_PREFIX)}


class CLFilterRunner:
    """Executes filter plans on one OpenCL device, with a pool of buffers by size."""

    def __init__(self, device=None) -> None:
        cl = _cl()
        self.cl = cl
        self.device = device if device is not None else select_device()
        self.index = device_index(self.device)  # (two devices may share a name: the index tells them apart)
        self.context, self.program, linear = _device_program(cl, self.device, self.label)
        try:
            # The passes' queue, profiled: an item's times come from its events (gpu.cl_queue).
            self.queue = cl.CommandQueue(self.context, properties=cl.command_queue_properties.PROFILING_ENABLE)
            # Copies into GL textures go through their own queue: one waits for the pass
            # that wrote its buffer (its ticket), not for later passes queued after it.
            self.copies = cl.CommandQueue(self.context)
            self.kernels = _kernels(self.program)
            # The passes that read or write float images run linear.cl's kernels.
            self.float_kernels = _kernels(linear)
            limit = min(k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)
                        for k in (*self.kernels.values(), *self.float_kernels.values()))
        except cl.Error as exc:
            raise OpenCLUnavailableError(f"cannot run the filter kernels on {self.label}: {exc}") from None
        if limit < WORK_GROUP:
            raise OpenCLUnavailableError(
                f"{self.label} runs at most {limit} work-items per group; the filter kernels need {WORK_GROUP}: "
                f"choose another device with {DEVICE_ENV}"
            )
        self._free: dict[int, list] = {}  # bytes -> [(buffer, frame it was released in)]
        self._pool_lock = threading.Lock()  # (renderers of several threads may share the runner)
        self.feeder = DeviceQueue(self.label)
        self.frame = 0
        self.keep_frames = 2
        self.allocations = 0
        # feImage pictures by their content key (gpu.pictures), aged with the pool's buffers
        self.pictures: KeptPictures = KeptPictures(self._buffer, lambda buffer: buffer.release())

    @property
    def label(self) -> str:
        """"0:1 Portable Computing Language / pthread-...": the index first, as
        ``lamina info`` lists devices (two PoCL devices have the same name)."""
        name = f"{self.device.platform.name.strip()} / {self.device.name.strip()}"
        return f"{self.index} {name}" if getattr(self, "index", "") else name

    # -- buffers ------------------------------------------------------------------------
    def acquire(self, width: int, height: int, fmt: ImageFormat = ImageFormat.RGBA8) -> CLImage:
        fmt = ImageFormat(fmt)
        nbytes = width * height * fmt.texel_bytes
        with self._pool_lock:
            free = self._free.get(nbytes)
            if free:
                return CLImage(free.pop()[0], width, height, fmt)
            self.allocations += 1
        try:
            buffer = self.cl.Buffer(self.context, self.cl.mem_flags.READ_WRITE, nbytes)
        except self.cl.Error as exc:
            raise OpenCLUnavailableError(f"cannot allocate a {width}x{height} image on {self.label}: {exc}") from None
        return CLImage(buffer, width, height, fmt)

    def release(self, image: CLImage) -> None:
        """Back to the pool: the next user of the buffer is queued after every user so far
        (one in-order queue takes all the passes), so it may be handed out at once."""
        with self._pool_lock:
            self._free.setdefault(image.nbytes, []).append((image.buffer, self.frame))

    def end_frame(self) -> None:
        """Free buffers nobody used for ``keep_frames`` frames (as the GL texture pool
        does), so an animated size does not leave a buffer per size behind. Called with
        nothing of the frame still queued (the executor drains its tickets first)."""
        self.frame += 1
        with self._pool_lock:
            self._age()
            self.pictures.age(self.frame, self.keep_frames)

    def _age(self) -> None:
        for nbytes in list(self._free):
            keep = []
            for buffer, released in self._free[nbytes]:
                if self.frame - released > self.keep_frames:
                    buffer.release()
                else:
                    keep.append((buffer, released))
            if keep:
                self._free[nbytes] = keep
            else:
                del self._free[nbytes]

    @property
    def free_count(self) -> int:
        return sum(len(v) for v in self._free.values())

    def trim(self) -> None:
        """Free every buffer not in use."""
        self.drain()  # (a buffer released to the pool may still be read by a queued pass)
        with self._pool_lock:
            for buffers in self._free.values():
                for buffer, _ in buffers:
                    buffer.release()
            self._free.clear()
            self.pictures.clear()

    def upload(self, pixels: np.ndarray) -> CLImage:
        """Host premultiplied (H, W, 4) uint8 -> a device image."""
        h, w = pixels.shape[:2]
        image = self.acquire(w, h)
        self.write(image, pixels)
        return image

    def write(self, image: CLImage, pixels: np.ndarray) -> None:
        """Host premultiplied (H, W, 4) uint8 -> an acquired device image."""
        self.cl.enqueue_copy(self.queue, image.buffer, np.ascontiguousarray(pixels)).wait()

    def download(self, image: CLImage, out: np.ndarray | None = None) -> np.ndarray:
        out = np.empty((image.height, image.width, 4), np.uint8) if out is None else out
        self.cl.enqueue_copy(self.queue, out, image.buffer).wait()
        return out

    # -- GL <-> OpenCL, as the executor moves images (and calibration times them) ------------
    # Through host memory. To OpenCL: GL reads the texture into host memory and the
    # write is queued behind the device's passes (mapping the buffer would save a copy,
    # 1.4x at 1080p, but a map on the passes' queue waits for everything queued there:
    # GL would wait for OpenCL work it does not need; on the copy queue it could
    # overtake a queued pass still reading the pooled buffer). To GL: once the pass
    # that wrote the buffer is done, it is mapped through the copy queue and uploaded.
    @staticmethod
    def read_texture(texture, width: int, height: int, fmt: ImageFormat = ImageFormat.RGBA8) -> np.ndarray:
        """A GL texture's premultiplied pixels (RGBA8, or floats) into host memory (the
        GL thread's half of a copy to OpenCL; waits for GL's work on it, as any GL read)."""
        pixels = np.empty((height, width, 4), _HOST_DTYPE[ImageFormat(fmt)])
        texture.read_into(pixels, alignment=1)
        return pixels

    def queue_write(self, image: CLImage, pixels: np.ndarray) -> Ticket:
        """Host pixels into ``image``, queued behind the device's work, not waited for."""
        return self.feeder.submit(f"write {image.width}x{image.height}",
                                  lambda: [self.cl.enqueue_copy(self.queue, image.buffer, pixels, is_blocking=False)],
                                  keep=pixels)

    def queue_pass(self, p: PlannedPass, inputs: list[CLImage], target: CLImage, **forms: bool) -> Ticket:
        """``run_pass`` as a queued item with its events (gpu.cl_queue)."""
        return self.feeder.submit(str(p.kind), lambda: self.run_pass(p, inputs, target, **forms))

    def read_buffer(self, image: CLImage) -> np.ndarray:
        """``image`` into host memory through the copy queue: call once the pass that
        wrote it is done (its ticket waited for)."""
        pixels = np.empty((image.height, image.width, 4), _HOST_DTYPE[image.format])
        self.cl.enqueue_copy(self.copies, pixels, image.buffer).wait()
        return pixels

    def buffer_to_texture(self, image: CLImage, texture) -> None:
        """``image`` uploaded into a GL texture from the buffer mapped through the copy
        queue (one copy: 1.6x faster at 1080p than reading it out first); call once the
        pass that wrote it is done. Nothing queued later writes it before this returns:
        the buffer goes back to the pool only after."""
        mapped, _ = self.cl.enqueue_map_buffer(self.copies, image.buffer, self.cl.map_flags.READ, 0,
                                               (image.height, image.width, 4), _HOST_DTYPE[image.format])
        try:
            texture.write(mapped)
        finally:
            mapped.base.release()

    def from_texture(self, texture, image: CLImage) -> None:
        """GL texture -> OpenCL buffer, both halves, waited for."""
        self.queue_write(image, self.read_texture(texture, image.width, image.height, image.format)).wait()

    def to_texture(self, image: CLImage, texture) -> None:
        """OpenCL buffer -> GL texture, once everything queued on the device is done."""
        self.drain()
        self.buffer_to_texture(image, texture)

    def drain(self) -> None:
        """Wait for everything queued on the device."""
        self.queue.finish()

    # -- passes -------------------------------------------------------------------------
    def run_pass(self, p: PlannedPass, inputs: list[CLImage], target: CLImage, *,
                 straight_source: bool = False, straight_output: bool = False) -> list:
        """Enqueue one planned pass writing ``target`` (not waited for); its events. With
        ``straight_source`` the first input holds straight RGBA and is premultiplied
        first; with ``straight_output`` the result is un-premultiplied into ``target``
        (the kernels' rounding is lamina.images'). The in-between buffers go back to the
        pool at once: the queue is in order, so a later user of one runs after."""
        scratch, events = [], []
        if straight_source:
            scratch.append(self.acquire(inputs[0].width, inputs[0].height))
            events.append(self._alpha("premultiply", inputs[0], scratch[-1]))
            inputs = [scratch[-1], *inputs[1:]]
        out = target
        if straight_output:
            out = self.acquire(target.width, target.height)
            scratch.append(out)
        events.append(HANDLERS[p.pass_kind](self, p, inputs, out))
        if straight_output:
            events.append(self._alpha("unpremultiply", out, target))
        for image in scratch:
            self.release(image)
        return events

    def _alpha(self, kernel: str, source: CLImage, target: CLImage):
        n = source.width * source.height
        return self.kernels[kernel](self.queue, (_round_up(n, WORK_GROUP),), (WORK_GROUP,), source.buffer, target.buffer,
                             np.int32(n))

    def _buffer(self, host: np.ndarray):
        return self.cl.Buffer(self.context, self.cl.mem_flags.READ_ONLY | self.cl.mem_flags.COPY_HOST_PTR, hostbuf=host)

    # -- the handler of every pass kind ------------------------------------------------------
    def _call(self, p: PlannedPass, inputs: list[CLImage], target: CLImage):
        """Enqueue the kernel call ``p`` carries (filters.plan.KernelCall), its image and
        size arguments filled in from ``inputs`` and ``target``."""
        call: KernelCall = p.cl()
        if call.local_bytes > self.device.local_mem_size:
            raise LaminaInputError(
                f"a {p.kind} pass ({call.kernel}) needs {call.local_bytes} bytes of local memory; {self.label} has "
                f"{self.device.local_mem_size} (plans keep blur radii at {MAX_BLUR_RADIUS} or less)"
            )
        args = [self._argument(a, inputs, target) for a in call.args]
        floats = any(image.format is not ImageFormat.RGBA8 for image in (*inputs, target))
        kernels = self.float_kernels if floats else self.kernels
        if call.kernel not in kernels:
            raise AssertionError(f"a {p.kind} pass ({call.kernel}) has no kernel for "
                                 f"{'float' if floats else 'RGBA8'} images (filters.plan.ImageFormat)")
        return kernels[call.kernel](self.queue, call.grid(target.width, target.height), call.group, *args)

    def _argument(self, a, inputs: list[CLImage], target: CLImage):
        kind, value = a.kind, a.value
        if kind is Arg.INPUT:
            return inputs[value].buffer
        if kind is Arg.OUTPUT:
            return target.buffer
        if kind in (Arg.INPUT_WIDTH, Arg.INPUT_HEIGHT):
            image = inputs[value]
            return np.int32(image.width if kind is Arg.INPUT_WIDTH else image.height)
        if kind in (Arg.WIDTH, Arg.HEIGHT):
            return np.int32(target.width if kind is Arg.WIDTH else target.height)
        if kind is Arg.INT:
            return np.int32(value)
        if kind is Arg.FLOAT:
            return np.float32(value)
        if kind is Arg.FLOAT4:
            return self.cl.cltypes.make_float4(*np.array(value, np.float32))
        if kind is Arg.FLOATS:
            return self._buffer(np.array(value, np.float32))
        if kind is Arg.PIXELS:  # uploaded once per key (KeyedPixels), as the GL runner's textures
            with self._pool_lock:
                return self.pictures.get(value.key, value.pixels, self.frame)
        if kind is Arg.LOCAL:
            return self.cl.LocalMemory(int(value))
        raise AssertionError(f"unknown kernel argument {a!r}")  # pragma: no cover - Arg is closed


# The planned pass kinds this runner executes: all of them (it runs every FilterPass
# placed on its executor). A kind it claims without a handler fails
# tests/unit/test_pass_protocol.py.
CLAIMS: frozenset[PassKind] = frozenset(PassKind)

# Every planned pass carries its kernel call: one generic handler for every kind.
HANDLERS: dict[PassKind, Callable[[CLFilterRunner, PlannedPass, list, CLImage], object]] = {  # -> its event
    kind: CLFilterRunner._call for kind in PassKind
}


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


_DEFAULT: dict = {}


_CHOSEN: list = []  # the device use_device() chose for this process, if any
_SELECTED: dict = {}  # LAMINA_OPENCL_DEVICE value -> the device it selects


def use_device(spec=None) -> None:
    """Choose the OpenCL device for everything that does not name one (scenes, and
    ``filters.apply`` without ``device=``): a pyopencl Device, a spec as for
    ``select_device``, or None to go back to ``LAMINA_OPENCL_DEVICE`` / the default.
    Renderers pick it up for their next frame that uses OpenCL."""
    _CHOSEN[:] = [] if spec is None else [spec if not isinstance(spec, str) else select_device(spec)]


def default_runner(device=None) -> CLFilterRunner:
    """The process-wide runner for ``device``, else the one ``use_device`` chose, else
    ``select_device()``'s (contexts and programs are built once per device)."""
    if device is None and _CHOSEN:
        device = _CHOSEN[0]
    if device is None:  # the environment's choice, looked up again only when it changes
        env = os.environ.get(DEVICE_ENV)
        if env not in _SELECTED:
            _SELECTED.clear()
            _SELECTED[env] = select_device()
        device = _SELECTED[env]
    dev = device
    key = dev.int_ptr
    runner = _DEFAULT.get(key)
    if runner is None:
        runner = _DEFAULT[key] = CLFilterRunner(dev)
    return runner
