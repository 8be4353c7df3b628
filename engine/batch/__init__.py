"""lamina.batch: many scenes and many frames, rendered in parallel on dask.distributed.

    from distributed import Client
    from lamina.batch import plan_job, run_job, results, submit
    plan = plan_job(["a.json", "b.json"], out="frames")                 # bundle and cost, no GPU
    plan = plan_job(["anim.json"], out="frames", frames=range(0, 600))  # frames at t = i / fps
    with Client(n_workers=2, threads_per_worker=1) as client:
        for result in results(client, plan):    # TaskResults as they complete
            print(result.frames, result.failures)
        # or: summary = run_job(plan, client)   (a JobSummary: per worker, per cost class)

Without a client the same tasks run in this process. The CLI's ``lamina render ...
--out DIR [--frames A:B] [--workers N | --scheduler ADDR]`` and ``lamina check DIR
--workers N`` are built on this. dask and distributed are the optional 'batch' extra;
only jobs given a cluster need them.
"""

from .cluster import BatchClusterError, BatchUnavailableError, ClusterKind, ClusterSpec, open_client
from .costs import CostModel, FrameCost, cost_class, frame_cost, make_tasks
from .jobs import (BatchSceneError, CostClass, FailureKind, FrameDone, FrameSpec, OutputKind, RenderTask,
                   SceneBundle, SceneFailure, TaskResult, WorkItem, bundle_scene, parse_frames)
from .run import JobPlan, ProgressLine, frame_path, isolate, plan_job, results, run_job, submit
from .summary import ClassCost, JobSummary, WorkerLoad
from .worker import run_task

__all__ = [
    "BatchClusterError", "BatchUnavailableError", "ClusterKind", "ClusterSpec", "open_client",
    "CostModel", "FrameCost", "cost_class", "frame_cost", "make_tasks",
    "BatchSceneError", "CostClass", "FailureKind", "FrameDone", "FrameSpec", "OutputKind", "RenderTask",
    "SceneBundle", "SceneFailure", "TaskResult", "WorkItem", "bundle_scene", "parse_frames",
    "JobPlan", "ProgressLine", "frame_path", "isolate", "plan_job", "results", "run_job", "submit",
    "ClassCost", "JobSummary", "WorkerLoad", "run_task",
]
