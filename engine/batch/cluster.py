"""Where a batch job runs: in this process, on a LocalCluster Lamina starts (and stops)
for the job, or on an existing dask cluster (Lamina starts nothing).

dask and distributed are an optional extra (``pip install 'lamina[batch]'``; the test
extra includes it): without them a job that asks for workers fails with a typed
BatchUnavailableError that says what to install, and in-process jobs still run.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import LaminaEnvironmentError, LaminaInputError
from ..gpu.egl_devices import default_workers, egl_devices
from ..named import NamedEnum

__all__ = ["ClusterKind", "ClusterSpec", "BatchUnavailableError", "BatchClusterError", "INSTALL_HINT",
           "require_distributed", "open_client"]

INSTALL_HINT = "pip install 'lamina[batch]' (dask and distributed; the 'test' extra includes them)"


class BatchUnavailableError(LaminaEnvironmentError):
    """--workers or --scheduler was asked for, and dask.distributed is not installed."""


class BatchClusterError(LaminaInputError):
    """The cluster named cannot be reached or started (the address, the worker count)."""


def require_distributed() -> Any:
    """The ``distributed`` module, or a BatchUnavailableError naming what to install."""
    try:
        import distributed  # import here: an optional extra, and slow to import for jobs that do not need it
    except ImportError as err:
        raise BatchUnavailableError(f"distributed rendering needs dask.distributed, which is not installed "
                                    f"({err}): {INSTALL_HINT}") from None
    return distributed


class ClusterKind(NamedEnum):
    IN_PROCESS = "in-process"  # no dask: the tasks run here, one after another
    LOCAL = "local"            # a LocalCluster of worker processes started and stopped by Lamina
    REMOTE = "remote"          # an existing cluster's scheduler; Lamina starts nothing


@dataclass(frozen=True)
class ClusterSpec:
    """Where to run: ``workers`` processes of a LocalCluster (0: one per GPU with several
    EGL GPU devices, else as many as CPU cores),
    or the ``scheduler`` address of a running cluster, or neither (in-process).
    ``dashboard``: serve the LocalCluster's dashboard on 127.0.0.1 (a free port)."""

    workers: int | None = None
    scheduler: str | None = None
    dashboard: bool = True

    def __post_init__(self) -> None:
        if self.workers is not None and self.scheduler is not None:
            raise BatchClusterError("give --workers or --scheduler, not both (--scheduler uses the cluster's own workers)")
        if self.workers is not None and self.workers < 0:
            raise BatchClusterError(f"--workers must be 0 (one per CPU core) or more, got {self.workers}")
        if self.scheduler is not None and "://" not in self.scheduler:
            raise BatchClusterError(f"--scheduler {self.scheduler!r}: expected an address like tcp://HOST:8786")

    @property
    def kind(self) -> ClusterKind:
        if self.scheduler is not None:
            return ClusterKind.REMOTE
        return ClusterKind.IN_PROCESS if self.workers is None else ClusterKind.LOCAL

    def worker_count(self) -> int:
        """Workers a LocalCluster gets: the number asked for, else (0) one per GPU when
        EGL lists two or more GPU devices, else one per CPU core (lamina.gpu.egl_devices)."""
        return self.workers or default_workers(_cores(), egl_devices().devices)


def _cores() -> int:
    """CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _llvmpipe_threads(workers: int) -> dict[str, str]:
    """Environment for worker processes: Mesa's llvmpipe rasterizes with a thread per core
    in each process; N workers on N cores would each start N threads and fight over the
    cores, so each gets its share (unless the user set LP_NUM_THREADS)."""
    if "LP_NUM_THREADS" in os.environ:
        return {}
    return {"LP_NUM_THREADS": str(max(1, _cores() // max(1, workers)))}


@contextmanager
def open_client(spec: ClusterSpec, say: Callable[[str], None] = lambda line: None) -> Iterator[Any]:
    """A distributed.Client for ``spec`` (None in-process); a LocalCluster started here is
    closed on the way out, Ctrl-C and errors included."""
    if spec.kind is ClusterKind.IN_PROCESS:
        yield None
        return
    distributed = require_distributed()
    if spec.kind is ClusterKind.REMOTE:
        try:
            client = distributed.Client(spec.scheduler, timeout="10s")
        except (OSError, TimeoutError) as err:
            raise BatchClusterError(f"cannot reach the dask scheduler at {spec.scheduler}: {err}") from None
        try:
            workers = len(client.scheduler_info().get("workers", {}))
            say(f"connected to {spec.scheduler} ({workers} worker(s)); dashboard: {client.dashboard_link}")
            yield client
        finally:
            client.close()
        return
    n = spec.worker_count()
    # Workers are separate processes with one thread each: one GL context per process.
    cluster = distributed.LocalCluster(
        n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0" if spec.dashboard else None,
        silence_logs=logging.ERROR, env=_llvmpipe_threads(n),
    )
    try:
        client = distributed.Client(cluster)
        try:
            board = cluster.dashboard_link if spec.dashboard else "off"
            say(f"started a LocalCluster of {n} worker process(es) on 127.0.0.1; dashboard: {board}")
            yield client
        finally:
            client.close()
    finally:
        cluster.close()
