"""lamina.batch without a cluster: the same tasks run here. Outputs are byte-identical to a
plain serial loop; a bad scene is one typed failure and the others render; costs, task
keys and frame ranges; atomic writes leave nothing behind; no dask, a typed error."""

from __future__ import annotations

import json
import sys

import pytest
from dask.utils import key_split
from PIL import Image

from lamina.batch import (BatchUnavailableError, ClusterSpec, CostClass, CostModel, FailureKind, OutputKind, cost_class,
                          parse_frames, plan_job, run_job)
from lamina.batch import cluster as cluster_module
from lamina.batch.jobs import FrameSpec, OutputKind, RenderTask, WorkItem
from lamina.batch.run import JobPlan
from lamina.output_files import PART_SUFFIX, atomic_path, part_owner
from lamina.cli import main
from lamina.errors import LaminaInputError

from .helpers import ANIMATED, pngs, serial, suite_scenes

pytestmark = pytest.mark.gl


def test_in_process_job_writes_what_a_serial_loop_writes(tmp_path, renderer):
    scenes = suite_scenes(4)
    (tmp_path / "ref").mkdir(), (tmp_path / "out").mkdir()
    expected = serial(tmp_path / "ref", scenes, ANIMATED, range(0, 12, 3))
    summary = run_job(plan_job(scenes, out=tmp_path / "out"))
    summary2 = run_job(plan_job([ANIMATED], out=tmp_path / "out", frames=range(0, 12, 3)))
    assert summary.ok and summary2.ok
    assert pngs(tmp_path / "out") == expected
    assert {f.path for f in summary2.outputs} == {str(tmp_path / "out" / f"{ANIMATED.stem}-{i:06d}.png")
                                                  for i in (0, 3, 6, 9)}


def test_a_bad_scene_is_one_typed_failure_and_the_others_render(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"width": 40, "height": 40, "layers": [{"id": "a", "box": [0, 0, 9, 9],
                                                                       "style": "opacity: banana"}]}))
    missing = tmp_path / "missing.json"  # valid, but its image is not there: found when rendered
    missing.write_text(json.dumps({"width": 40, "height": 40, "layers": [
        {"id": "a", "box": [0, 0, 9, 9], "style": "background-image: url(nothere.png)"}]}))
    out = tmp_path / "out"
    out.mkdir()
    good = suite_scenes(2)
    summary = run_job(plan_job([good[0], bad, missing, good[1]], out=out))
    assert sorted(pngs(out)) == sorted(f"{p.stem}.png" for p in good)
    assert [(f.scene, f.kind, f.error) for f in summary.failures] == [
        ("bad", FailureKind.BAD_INPUT, "SceneFileError"), ("missing", FailureKind.BAD_INPUT, "ImageLoadError")]
    assert "bad.json" in summary.failures[0].describe() and "opacity" in summary.failures[0].message
    assert "nothere.png" in summary.failures[1].message
    # The CLI: the summary names it, exit status 2 (bad input), the good scenes written.
    code = main(["render", str(good[0]), str(bad), "--out", str(tmp_path / "cli"), "--progress", "never"])
    assert code == 2 and (tmp_path / "cli" / f"{good[0].stem}.png").is_file()


def test_scene_images_travel_with_the_scene_and_stay_confined(tmp_path):
    (tmp_path / "img").mkdir()
    Image.new("RGBA", (4, 4), (255, 0, 0, 255)).save(tmp_path / "img" / "red.png")
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps({"width": 8, "height": 8, "layers": [
        {"id": "a", "box": [0, 0, 8, 8], "style": "background: url('img/red.png') 0 0 / cover"}]}))
    escape = tmp_path / "img" / "escape.json"
    escape.write_text(json.dumps({"width": 8, "height": 8, "layers": [
        {"id": "a", "box": [0, 0, 8, 8], "style": "background-image: url(../ok.json)"}]}))
    plan = plan_job([ok, escape], out=None)
    assert [f.error for f in plan.failures] == ["FileAccessError"]  # refused before anything is sent
    assert dict(plan.tasks[0].items[0].bundle.files).keys() == {str(tmp_path / "img" / "red.png")}
    summary = run_job(plan)
    (frame,) = summary.outputs
    assert tuple(frame.premultiplied[4, 4]) == (255, 0, 0, 255)


def test_costs_classes_keys_and_chunks():
    plan = plan_job([ANIMATED], out=None, frames=range(0, 600), workers=2)
    assert plan.frames_total == 600 == sum(t.frame_count for t in plan.tasks)
    assert len(plan.tasks) >= 8  # enough tasks for two workers to balance the end
    for task in plan.tasks:
        assert task.key.startswith(f"lamina-frames-{task.cost_class}-") and task.output is OutputKind.PIXELS
        frames = [f.index for f in task.items[0].frames]
        assert frames == list(range(frames[0], frames[0] + len(frames)))  # runs of consecutive frames
    assert cost_class(1.0) is CostClass.TINY and cost_class(1000.0) is CostClass.HUGE
    # dask learns durations per key prefix: the class is in it
    assert key_split(plan.tasks[0].key) == f"lamina-frames-{plan.tasks[0].cost_class}"


def test_frame_ranges():
    assert parse_frames("0:600") == range(0, 600) and parse_frames("10:20:5") == range(10, 20, 5)
    for bad in ("5", "a:b", "5:5", "0:10:0", "-1:3"):
        with pytest.raises(LaminaInputError, match="--frames"):
            parse_frames(bad)


def test_atomic_writes_leave_no_temporary_file(tmp_path):
    # A batch output is written as every Lamina file is (lamina.output_files); the job's
    # sweep removes what a killed writer left beside its own outputs, and only that.
    target = tmp_path / "x.png"

    def write(fails: bool) -> None:
        with atomic_path(target) as part:
            part.write_bytes(b"half" if fails else b"png")
            if fails:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write(True)
    assert list(tmp_path.iterdir()) == []
    write(False)
    write(False)  # a retry: one file, same bytes
    assert target.read_bytes() == b"png"
    (tmp_path / f".x.png.0123abcd{PART_SUFFIX}").write_bytes(b"left by a killed worker")
    (tmp_path / f".y.png.0123abcd{PART_SUFFIX}").write_bytes(b"another job's")
    assert part_owner(f".x.png.0123abcd{PART_SUFFIX}") == "x.png" and part_owner("x.png") is None
    task = RenderTask("k", None, 0.0, (WorkItem(None, (FrameSpec(0.0, 0, str(target)),)),), OutputKind.PNG, "job1")
    plan = JobPlan([task], [], 1, "job1", (tmp_path,))
    assert [p.name for p in plan.sweep()] == [f".x.png.0123abcd{PART_SUFFIX}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".y.png.0123abcd{PART_SUFFIX}", "x.png"]


def test_without_dask_a_typed_error_says_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(BatchUnavailableError, match=r"lamina\[batch\]"):
        cluster_module.require_distributed()
    code = main(["render", str(ANIMATED), "--frames", "0:2", "--out", str(tmp_path), "--workers", "2"])
    assert code == 1 and "lamina[batch]" in capsys.readouterr().err
    with pytest.raises(LaminaInputError, match="not both"):
        ClusterSpec(workers=2, scheduler="tcp://127.0.0.1:1")


def test_cli_batch_flags_are_checked(tmp_path, capsys):
    assert main(["render", str(ANIMATED), "--frames", "0:2", "--out", str(tmp_path), "-o", "x.png"]) == 2
    assert "--out DIR" in capsys.readouterr().err
    # Several scenes go to the batch workers, where --report is dask's HTML performance report
    two = [str(ANIMATED), str(ANIMATED.with_name("animation-filter.json"))]
    assert main(["render", *two, "--frames", "0:2", "--out", str(tmp_path), "--report", str(tmp_path / "x.json")]) == 2
    assert "performance report" in capsys.readouterr().err
    assert main(["render", str(ANIMATED), "--frames", "0:2", "--out", str(tmp_path), "--progress", "never"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{ANIMATED.stem}-000000.png", f"{ANIMATED.stem}-000001.png"]


def test_a_lost_task_is_isolated_one_scene_per_task():
    from lamina.batch import isolate
    scenes = suite_scenes(3)
    plan = plan_job(scenes, out=None, workers=1, model=CostModel(task_s=10.0, tasks_per_worker=1))
    (task,) = plan.tasks  # all three in one task
    alone = isolate(task)
    assert [[i.bundle.name for i in t.items] for t in alone] == [[p.stem] for p in scenes]
    assert [t.key for t in alone] == [task.key.replace(f"-{task.job}", f"-{i}-{task.job}") for i in range(3)]
    assert len({key_split(t.key) for t in (task, *alone)}) == 1  # same cost class for dask's estimates
    assert sum(t.predicted_s for t in alone) == pytest.approx(task.predicted_s)


def test_fe_image_pictures_travel_with_the_scene_and_stay_confined(tmp_path):
    """An feImage href relative to the scene's folder is read in the submitting process
    and sent with the scene (workers render from a mirror of the folder); one leading out
    of the folder is the SvgImageError the render would raise, before anything is sent."""
    (tmp_path / "img").mkdir()
    Image.new("RGBA", (4, 4), (0, 0, 255, 255)).save(tmp_path / "img" / "blue.png")
    Image.new("RGBA", (4, 4), (0, 255, 0, 255)).save(tmp_path / "green.png")

    def scene(path, href):
        svg = (f"<svg xmlns='http://www.w3.org/2000/svg'><filter id='pic' x='0' y='0' width='1' height='1'>"
               f"<feImage href='{href}' preserveAspectRatio='none'/></filter></svg>")
        path.write_text(json.dumps({"width": 8, "height": 8, "svg": svg, "layers": [
            {"id": "a", "box": [0, 0, 8, 8], "style": "background: red; filter: url(#pic)"}]}))
        return path

    ok = scene(tmp_path / "ok.json", "img/blue.png")
    escape = scene(tmp_path / "img" / "escape.json", "../green.png")
    plan = plan_job([ok, escape], out=None)
    assert [(f.scene, f.error) for f in plan.failures] == [("escape", "SvgImageError")]
    assert "../green.png" in plan.failures[0].message
    assert dict(plan.tasks[0].items[0].bundle.files).keys() == {str(tmp_path / "img" / "blue.png")}
    summary = run_job(plan)
    (frame,) = summary.outputs
    assert [f.scene for f in summary.failures] == ["escape"], summary.lines()
    assert tuple(frame.premultiplied[4, 4]) == (0, 0, 255, 255), "the picture, not the red card"


def test_an_fe_image_in_a_filter_no_layer_names_is_not_read_nor_refused(tmp_path):
    """A scene whose SVG holds a filter no layer names, its feImage's file missing,
    renders serially (that filter is never planned): the bundle neither reads nor refuses
    it, so the batch renders the scene as serial does; a named filter's picture travels."""
    Image.new("RGBA", (4, 4), (0, 0, 255, 255)).save(tmp_path / "blue.png")
    svg = ("<svg xmlns='http://www.w3.org/2000/svg'>"
           "<filter id='unused' x='0' y='0' width='1' height='1'><feImage href='missing.png'/></filter>"
           "<filter id='pic' x='0' y='0' width='1' height='1'><feImage href='blue.png' preserveAspectRatio='none'/>"
           "</filter></svg>")
    path = tmp_path / "scene.json"
    path.write_text(json.dumps({"width": 8, "height": 8, "svg": svg, "layers": [
        {"id": "a", "box": [0, 0, 8, 8], "style": "background: red",
         "animations": [{"keyframes": {"0%": {"filter": "url(#pic)"}, "100%": {"filter": "url(#pic)"}},
                         "duration": 1}]}]}))
    plan = plan_job([path], out=None)
    assert plan.failures == []
    assert dict(plan.tasks[0].items[0].bundle.files).keys() == {str(tmp_path / "blue.png")}, \
        "the filter an animation names travels; the unnamed one is not read"
    summary = run_job(plan)
    assert summary.failures == [], summary.lines()


def test_absolute_image_paths_render_in_the_batch_as_serially(tmp_path):
    """A CSS image and an feImage named by absolute path and by file: URL (inside the
    scene's folder, so the policy lets them be read): the bundle carries the files, and the
    worker finds them under its mirror (FileAccess.mirror) instead of refusing the
    submitter's absolute path as one leading out of the mirror."""
    Image.new("RGBA", (4, 4), (0, 0, 255, 255)).save(tmp_path / "blue.png")
    Image.new("RGBA", (4, 4), (0, 255, 0, 255)).save(tmp_path / "green.png")
    blue, green = tmp_path / "blue.png", tmp_path / "green.png"
    svg = (f"<svg xmlns='http://www.w3.org/2000/svg'><filter id='pic' x='0' y='0' width='1' height='1'>"
           f"<feImage href='{green.as_uri()}' preserveAspectRatio='none'/></filter></svg>")
    path = tmp_path / "scene.json"
    path.write_text(json.dumps({"width": 8, "height": 8, "svg": svg, "layers": [
        {"id": "css", "box": [0, 0, 4, 8], "style": f"background-image: url('{blue}'); background-size: 100% 100%"},
        {"id": "svg", "box": [4, 0, 4, 8], "style": "background: red; filter: url(#pic)"}]}))
    plan = plan_job([path], out=None)
    assert plan.failures == [] and dict(plan.tasks[0].items[0].bundle.files).keys() == {str(blue), str(green)}
    summary = run_job(plan)
    assert summary.failures == [], summary.lines()
    (frame,) = summary.outputs
    assert tuple(frame.premultiplied[4, 1]) == (0, 0, 255, 255) and tuple(frame.premultiplied[4, 6]) == (0, 255, 0, 255)
