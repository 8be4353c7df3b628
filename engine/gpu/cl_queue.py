"""An OpenCL device's work, queued without waiting, so it runs while the GL thread draws.

The executor (``gpu.executor``) runs a frame graph in order on the GL thread, where the
GL context is current. Work placed on an OpenCL device is enqueued on the device's
in-order command queue and not waited for: the OpenCL runtime runs it on the device (on
this machine PoCL's own threads, on the CPU) while the GL thread goes on with the next
pass, so GL work and OpenCL work that do not depend on each other run at the same time.
This is hardware scheduling as CUDA streams do it: a command queue per device and events
as the dependencies between queues.

(Why not a Python thread feeding the queue: moderngl holds the GIL while GL finishes —
measured here, another Python thread ran at 3 % of its idle rate during a ``finish()``
— so a feeding thread would enqueue a pass only after GL's next pass ended. Enqueuing
takes microseconds and does not wait; the runtime's threads are the device's own.)

Dependencies are the graph's edges, and only those are waited for:

* GL -> OpenCL (a texture copied to a buffer): the GL thread reads the texture (GL is in
  order, so that waits for GL's own work on it, nothing else) into host memory and
  enqueues the write behind the OpenCL work already queued: a write never overtakes a
  pass still reading the buffer it reuses.
* OpenCL -> GL (a buffer copied into a texture): the GL thread waits for the ``Ticket``
  (the events) of the pass that wrote the buffer and copies it through a second command
  queue of the same context, so the copy does not also wait behind later, independent
  OpenCL passes queued after the one it needs.
* OpenCL -> OpenCL on one device: the command queue is in order.

Each item's ``Ticket`` gives its start and end on the host's clock (``time.perf_counter``)
from the events' profiling times, which the device measures on its own clock. An event's
"queued" time is read on the device's clock just after the host's clock was read, so
each item gives a sample of the offset between the clocks that is late by the time the
enqueue took; the queue keeps the smallest of its recent samples (the clocks may drift
apart slowly: a window, not all time). That is what the trace draws on the device's
track and what the cost model learns from.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = ["DeviceQueue", "Ticket"]

_SAMPLED = object()  # a waited ticket's ``keep``: nothing held, its clock sample taken


@dataclass(eq=False)
class Ticket:
    """One item queued on a device: ``what`` it is, its OpenCL ``events`` in queue order
    (the last one done means the item is: the queue is in order), the host clock
    (``time.perf_counter_ns``) when it was queued, and what must stay alive until it is
    done (the host memory a write reads)."""

    what: str
    events: tuple[Any, ...]
    queued_ns: int
    queue: "DeviceQueue"
    keep: Any = field(default=None, repr=False)

    def wait(self) -> "Ticket":
        """Block until the device has done the item (the GIL is released meanwhile)."""
        if self.events:
            self.events[-1].wait()
            if self.keep is not _SAMPLED:  # (profiling times are there once it is done)
                self.queue._offsets.append(self.events[0].profile.queued - self.queued_ns)
        self.keep = _SAMPLED
        return self

    @property
    def done(self) -> bool:
        """Has the device finished the item? (Asked without waiting.)"""
        return not self.events or self.events[-1].command_execution_status == 0  # CL_COMPLETE

    def _host(self, device_ns: int) -> float:
        """A device profiling time as a ``time.perf_counter()`` value."""
        return (device_ns - self.queue.offset_ns) / 1e9

    @property
    def start(self) -> float:
        """When the device began the item (``time.perf_counter()`` seconds); once waited for."""
        return self._host(self.events[0].profile.start) if self.events else self.queued_ns / 1e9

    @property
    def end(self) -> float:
        """When the device had finished the item; once waited for."""
        return self._host(self.events[-1].profile.end) if self.events else self.queued_ns / 1e9

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000.0


class DeviceQueue:
    """One device's in-order command queue as the executor feeds it (module docstring).
    ``submit`` runs ``work`` now, on the caller's thread: it enqueues commands and
    returns their events, without waiting for any."""

    WINDOW = 64  # offset samples kept

    def __init__(self, name: str) -> None:
        self.name = name
        self._offsets: deque[int] = deque(maxlen=self.WINDOW)  # device clock - host clock, ns

    @property
    def offset_ns(self) -> int:
        """The device clock minus the host's, in ns: the best recent sample."""
        return min(self._offsets) if self._offsets else 0

    def submit(self, what: str, work: Callable[[], Sequence[Any]], keep: Any = None) -> Ticket:
        queued_ns = time.perf_counter_ns()
        events = tuple(e for e in work() if e is not None)
        return Ticket(what, events, queued_ns, self, keep)
