"""A dask worker preload for the tests: a scene named ``killer*`` kills the worker process
that renders it (``os._exit``, as a driver crash would), every time and on every worker,
restarted ones included (a preload runs in each worker process as it starts). Named by
the test in ``DASK_DISTRIBUTED__WORKER__PRELOAD``; it changes nothing for other scenes."""

from __future__ import annotations

import os

from lamina.batch import worker



def _killing_scene(bundle):
    if bundle.name.startswith("killer"):
        os._exit(70)  # no cleanup, no exception: the process is gone mid-task
    return worker._scene_before_killer(bundle)


# dask may run a preload's file more than once in a process: wrap the original only once.
if not hasattr(worker, "_scene_before_killer"):
    worker._scene_before_killer = worker._scene
    worker._scene = _killing_scene
