"""The ``lamina`` command line.

    lamina render scene.json -o out.png [--explain] [--report report.json] [--trace trace.json]
                                       [--dump-textures DIR]
    lamina render scene.json --frames START:STOP[:STEP] --out DIR [--fps 60]   an animation's frames
        with --dpr, --overlay or --report frames.json: rendered in order on one renderer
    lamina render a.json b.json ... --out DIR         many scenes (batch: lamina.batch)
        batch jobs take --workers N (a LocalCluster Lamina starts and stops) or
        --scheduler tcp://HOST:PORT (a running dask cluster), and --report perf.html
    lamina explain scene.json              render, then print what the compositor did
    lamina explain scene.json --plan-only  the same decisions and passes, planned without the GPU
    lamina explain scene.json -t 1.0 --from 0 [--fps 60]   the frames from 0 to 1 s rendered in
                                           order on one renderer, the last explained (an
                                           animation's raster scale, its settle)
    render and explain take --placement NAME[:SEED] (all-opencl, alternate, random:7...): each
        filter pass forced onto a device (lamina.forced_placement), for comparing pixels
    lamina info [--json] [--recalibrate]   renderer fingerprint and limits, the devices with their
                                           measured speeds, the transfer paths with copy speeds,
                                           the EGL devices (each batch worker's GPU)
    lamina info --opencl [--json]          the OpenCL devices only, as LAMINA_OPENCL_DEVICE indexes them
    lamina info --profile FILE             also write this machine's devices and cost model as a
                                           device profile (for lamina schedule --devices)
    lamina schedule scene.json --devices profile.json [--out gantt.png] [--json]
                                           plan a frame and schedule it (HEFT) on a profile's
                                           modelled devices: a Gantt chart and the makespans
    lamina check DIR [--update]            compare DIR's scenes with their goldens
                     [--workers N | --scheduler tcp://HOST:PORT]   rendered on dask workers
    lamina demo [NAME] [--headless ...]    the interactive demos (no NAME: list them); needs
                                           the 'demos' extra: pip install 'lamina[demos]'

render, explain and check read a scene file's images only inside its folder; each
``--allow-files DIR`` (repeatable) allows one more (see lamina.file_access).

Exit status: 0 success; 2 bad input (one line naming the problem, no traceback);
1 when the machine cannot render (missing EGL: the line says what to install) or on an
internal error (with a traceback, to report); for ``check``, 1 also when a scene does not
match its golden.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from PIL import Image

from .batch import ClusterSpec, FailureKind, frame_path, open_client, parse_frames, plan_job, run_job
from .compositor.policy import POLICIES
from .demos.options import INSTALL_HINT as DEMOS_INSTALL_HINT
from .demos.options import DemosUnavailableError, add_demo_arguments
from .errors import LaminaEnvironmentError, LaminaInputError, OpenCLUnavailableError, RendererUseError
from .filters.backend import FILTER_BACKENDS
from .forced_placement import STRATEGIES, ForcedPlacement
from .gpu.egl_devices import egl_devices
from .gpu.opencl import device_label, list_devices, select_device
from .golden.check import check_directory
from .overlays import OVERLAYS
from .output_files import atomic_file, check_output, write_text
from .png import check_format
from .progress import report as report_progress
from .gpu.survey import survey
from .gpu.device_set import DEVICES_ENV
from .device_profile import load_profile, record_profile
from .gantt import save_gantt
from .simulate import simulate
from .renderer import Renderer, default_renderer
from .device_scale import check_frame_fits, parse_device_scale
from .request import FrameRequest
from .scene import MAX_VIEWPORT
from .scene_file import load_scene
from .suggest import did_you_mean
from .version import __version__

__all__ = ["main"]

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def _is_batch(args: argparse.Namespace) -> bool:
    """Many scenes, frames, an output folder or a cluster: a batch job (lamina.batch)."""
    return (len(args.scene) > 1 or args.frames is not None or args.out is not None
            or args.workers is not None or args.scheduler is not None)


def _cluster(args: argparse.Namespace) -> ClusterSpec | None:
    if args.workers is None and args.scheduler is None:
        return None
    return ClusterSpec(workers=args.workers, scheduler=args.scheduler, dashboard=not args.no_dashboard)


def _in_order(args: argparse.Namespace) -> bool:
    """One scene's --frames with --dpr, --overlay or a JSON --report and no cluster: its
    frames rendered in order on one renderer (_render_frames), so what carries from frame
    to frame (an animation's raster scale, its settle) is what a browser shows."""
    json_report = args.report is not None and Path(args.report).suffix.lower() != ".html"
    return (args.frames is not None and len(args.scene) == 1 and args.workers is None and args.scheduler is None
            and bool(args.dpr is not None or args.overlay or json_report))


def _render_batch(args: argparse.Namespace) -> int:
    if _in_order(args):
        return _render_frames(args)
    for flag, given in (("-o", args.output), ("--explain", args.explain), ("--trace", args.trace),
                        ("--overlay", args.overlay), ("--dump-textures", args.dump_textures),
                        ("--filter-backend", args.filter_backend), ("--placement", args.placement),
                        ("--dpr", args.dpr)):
        if given:
            hint = "" if flag in ("--overlay", "--dpr") else " (OUT: --out DIR)"
            also = "; --dpr and --overlay also go with one scene's --frames on no cluster (frames rendered in order)" \
                if flag in ("--overlay", "--dpr") else ""
            raise LaminaInputError(f"{flag} is for one frame: a batch job (several scenes, --frames, --out, "
                                   f"--workers or --scheduler) writes OUT/NAME.png or OUT/NAME-000123.png{hint}{also}")
    if args.report is not None and Path(args.report).suffix.lower() != ".html":
        raise LaminaInputError(f"--report {args.report}: in a batch job --report writes dask's performance "
                               "report, an HTML file (perf.html)")
    frames = parse_frames(args.frames) if args.frames is not None else None
    if frames is None and args.fps != 60.0:
        raise LaminaInputError("--fps needs --frames (it sets t = frame / fps)")
    out = Path(args.out or ".")
    if not out.is_dir():
        if out.exists() or not out.parent.is_dir():
            raise LaminaInputError(f"cannot write into {out}: "
                                   + ("it is not a folder" if out.exists() else f"folder {out.parent} does not exist"))
        out.mkdir()
    spec = _cluster(args) or ClusterSpec()
    stream = None if args.progress == "never" else sys.stderr
    plan = None
    try:
        with open_client(spec, say=lambda line: print(f"lamina: {line}", file=sys.stderr)) as client:
            workers = len(client.scheduler_info().get("workers", {})) if client is not None else 1
            plan = plan_job(args.scene, out=out, frames=frames, fps=args.fps, t=args.t, policy=args.policy,
                            allow_files=args.allow_files, workers=max(1, workers))
            summary = run_job(plan, client, progress=stream, perf_report=args.report)
    finally:
        if plan is not None:
            plan.sweep()  # after the cluster closed: no worker of ours can still be writing
    for line in summary.lines():
        print(line)
    if args.report:
        print(f"performance report: {args.report}")
    kinds = {f.kind for f in summary.failures}
    if kinds - {FailureKind.BAD_INPUT}:
        return EXIT_INTERNAL
    return EXIT_BAD_INPUT if kinds else EXIT_OK


def _render_frames(args: argparse.Namespace) -> int:
    """One scene's --frames in order on one renderer: OUT/NAME-000123.png each (its
    --overlay drawn on it when given), at --dpr, and a JSON --report of every frame's."""
    for flag, given in (("-o", args.output), ("--explain", args.explain), ("--trace", args.trace),
                        ("--dump-textures", args.dump_textures)):
        if given:
            raise LaminaInputError(f"{flag} is for one frame; --frames writes OUT/NAME-000123.png (OUT: --out DIR)")
    frames = parse_frames(args.frames)
    placement = _placement(args)
    out = Path(args.out or ".")
    if not out.is_dir():
        raise LaminaInputError(f"cannot write into {out}: "
                               + ("it is not a folder" if out.exists() else "folder does not exist"))
    if args.report is not None:
        check_output(args.report)
    scene_path = args.scene[0]
    scene = load_scene(scene_path, allow_files=args.allow_files)
    _dpr(args, scene)
    name = Path(scene_path).stem
    reports = []
    with _progress(args), Renderer() as renderer:
        for index in frames:
            t = index / args.fps
            frame = renderer.render(scene, t=t, policy=args.policy, filter_backend=args.filter_backend,
                                    placement=placement)
            target = frame_path(out, name, index)  # as a batch job names it
            if args.overlay:
                with atomic_file(target) as stream:
                    Image.fromarray(frame.overlay(args.overlay), "RGBA").save(stream, format="PNG")
            else:
                frame.save(target)
            if args.report is not None:
                reports.append({"frame": index, "t": t, "report": frame.report})
    if args.report is not None:
        write_text(args.report, json.dumps({"scene": scene_path, "frames": reports}, indent=2) + "\n")
    print(f"rendered {len(frames)} frame(s) of {scene_path} in order on one renderer -> {out}/{name}-NNNNNN.png"
          + (f"; reports: {args.report}" if args.report is not None else ""))
    return EXIT_OK


def _render(args: argparse.Namespace) -> int:
    if _is_batch(args):
        return _render_batch(args)
    args.scene = args.scene[0]
    placement = _placement(args)
    # By default into the current folder, never beside the scene (a demo's tracked PNG).
    # `-o ''` and `-o .` are refused by check_output, not replaced by the default name.
    output = args.output if args.output is not None else Path(args.scene).stem + ".png"
    report = args.report
    trace = args.trace
    # Every output is checked before rendering: a folder, FIFO (a hang) or device named
    # by mistake costs nothing, and a good render is never lost to a bad report path.
    for path in (p for p in (output, report, trace) if p is not None):
        check_output(path)
    out = Path(output)
    check_format(out)
    scene = load_scene(args.scene, allow_files=args.allow_files)
    _dpr(args, scene)
    dump = Path(args.dump_textures) if args.dump_textures else None
    if dump is not None and not dump.is_dir():  # said before rendering (Frame.save_textures says it too)
        raise LaminaInputError(f"cannot write textures into {dump}: "
                               + ("it is not a folder" if dump.exists() else "folder does not exist"))
    with _progress(args):
        frame = scene.render(t=args.t, policy=args.policy, filter_backend=args.filter_backend,
                             capture_textures=dump is not None, placement=placement)
        # Each write is atomic (lamina.output_files): a failure is an OutputFileError
        # naming the file, and leaves what was there before.
        if args.overlay:
            with atomic_file(out) as stream:
                Image.fromarray(frame.overlay(args.overlay), "RGBA").save(stream, format="PNG")
        else:
            frame.save(out)
        # After the save, so the report and the trace hold the PNG encode too.
        if report is not None:
            write_text(report, json.dumps(frame.report, indent=2) + "\n")
        if trace is not None:
            frame.trace(trace)
        dumped = frame.save_textures(dump) if dump is not None else []
    s = frame.stats
    dpr = f" at DPR {scene.device_scale_factor:g}: {frame.image.shape[1]}x{frame.image.shape[0]} device px" \
        if scene.device_scale_factor != 1.0 else ""
    print(f"rendered {args.scene} ({scene.width}x{scene.height}{dpr}, {len(scene.layers())} layers) -> {out} "
          f"in {s.frame_ms:.1f} ms (rendering {s.plan_ms + s.total_ms:.1f} ms, pixels out {s.after_ms():.1f} ms)")
    if dump is not None:
        print(f"wrote {len(dumped)} texture(s) the frame was composited from to {dump}")
    if args.explain:
        print(frame.explain())
    return EXIT_OK


def _explain(args: argparse.Namespace) -> int:
    if args.dot is not None:
        check_output(args.dot)  # before any work, as render's outputs
    placement = _placement(args)
    scene = load_scene(args.scene, allow_files=args.allow_files)
    _dpr(args, scene)
    if args.start is not None and args.plan_only:
        raise LaminaInputError("--from renders the frames before -t (what carries between them is what it shows): "
                               "not with --plan-only")
    if args.start is None and args.fps != 60.0:
        raise LaminaInputError("--fps needs --from (the frames from --from to -t, 1/fps apart)")
    if args.plan_only:  # what scene.plan() returns: no GL context, no pass executed
        graph = scene.plan(t=args.t, policy=args.policy, filter_backend=args.filter_backend, placement=placement)
        report = {"planned_only": True, "graph": graph.to_dict()}
        text = ("Planned only (lamina explain --plan-only): no GPU work was done, so there are no timings.\n"
                + graph.describe())
    elif args.start is not None:  # the animation up to t, in order on one renderer: explain its last frame
        times = _frame_times(args.start, args.t, args.fps)
        with _progress(args), Renderer() as renderer:
            for t in times:
                frame = renderer.render(scene, t=t, policy=args.policy, filter_backend=args.filter_backend,
                                        placement=placement)
        graph, report = frame.graph, frame.report
        report = {**report, "frames_rendered": {"from": args.start, "to": args.t, "fps": args.fps, "count": len(times)}}
        text = (f"Rendered {len(times)} frame(s) in order on one renderer, t = {args.start:g} .. {args.t:g} s "
                f"at {args.fps:g} fps; the last (t = {args.t:g}):\n" + frame.explain())
    else:
        with _progress(args):
            frame = scene.render(t=args.t, policy=args.policy, filter_backend=args.filter_backend,
                                 placement=placement)
        graph, report, text = frame.graph, frame.report, None
    if args.dot is not None:
        write_text(args.dot, graph.to_dot())
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(text if text is not None else frame.explain())
    return EXIT_OK


MAX_EXPLAIN_FRAMES = 10000  # explain --from: frames rendered before the one explained, at most


def _frame_times(start: float, end: float, fps: float) -> list[float]:
    """The frame times from ``start`` to ``end`` (both included) at ``fps``: ``start``,
    ``start + 1/fps``, ... and ``end`` last; a typed error naming --from or --fps."""
    if not (math.isfinite(start) and math.isfinite(end)) or start > end:
        raise LaminaInputError(f"--from {start:g}: must be a finite time no later than -t {end:g}")
    if not math.isfinite(fps) or fps <= 0:
        raise LaminaInputError(f"--fps {fps:g}: must be a positive number of frames per second")
    steps = math.floor((end - start) * fps + 1e-9)
    if steps + 1 > MAX_EXPLAIN_FRAMES:
        raise LaminaInputError(f"--from {start:g} to -t {end:g} at --fps {fps:g} is {steps + 1} frames; "
                               f"at most {MAX_EXPLAIN_FRAMES}")
    times = [start + i / fps for i in range(steps + 1)]
    if times[-1] < end - 1e-9:
        times.append(end)
    else:
        times[-1] = end
    return times


def _placement(args: argparse.Namespace) -> ForcedPlacement | None:
    """``--placement``, parsed once, before any work: a PlacementError naming a bad
    strategy or seed, a LaminaInputError beside a --filter-backend other than gl."""
    if args.placement is None:
        return None
    placement = ForcedPlacement.parse(args.placement)
    FrameRequest(filter_backend=args.filter_backend, placement=placement)  # (refuses the pair)
    return placement


def _info(args: argparse.Namespace) -> int:
    if args.opencl:
        try:
            pairs = list_devices()
        except OpenCLUnavailableError as err:
            print(f"no OpenCL devices: {err}")
            return EXIT_OK
        try:
            chosen = select_device() if pairs else None
        except OpenCLUnavailableError as err:  # a bad LAMINA_OPENCL_DEVICE: list anyway
            chosen = None
            print(f"(none selected: {err})")
        platforms = list(dict.fromkeys(p for p, _ in pairs))
        rows = []
        for pi, p in enumerate(platforms):
            for di, d in enumerate(d for q, d in pairs if q == p):
                rows.append({"index": f"{pi}:{di}", "device": device_label(p, d), "version": d.version.strip(),
                             "compute_units": d.max_compute_units, "gl_sharing": "cl_khr_gl_sharing" in d.extensions,
                             "selected": d == chosen})
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for r in rows:
                mark = "*" if r["selected"] else " "
                print(f"{mark} {r['index']}  {r['device']}  ({r['version']}, {r['compute_units']} compute units"
                      f"{', GL sharing' if r['gl_sharing'] else ''})")
            if not rows:
                print("no OpenCL devices")
        return EXIT_OK
    if args.profile is not None:
        check_output(args.profile)  # before measuring anything
    renderer = default_renderer()
    info = renderer.info
    found = survey(renderer, recalibrate=args.recalibrate)
    if args.profile is not None:
        usable = tuple(d.device for d in found.devices if not d.unusable)
        data = record_profile(usable, found.calibration.model, name=f"recorded: {info.renderer}",
                              recorded={"renderer": info.renderer, "gl_version": info.version, "lamina": __version__})
        write_text(args.profile, json.dumps(data, indent=2) + "\n")
    egl = egl_devices()
    in_use = _opencl_in_use(renderer)
    if args.json:
        print(json.dumps({"lamina": __version__, **info.to_dict(), **found.to_dict(), "egl_devices": egl.to_dict(),
                          "opencl_in_use": in_use},
                         indent=2))
    else:
        print(f"Lamina {__version__}")
        print(f"GL_RENDERER          {info.renderer}")
        print(f"GL_VERSION           {info.version}")
        print(f"GL_VENDOR            {info.vendor}")
        print(f"version code         {info.version_code}")
        print(f"GL_MAX_TEXTURE_SIZE  {info.max_texture_size}")
        print(f"GL_MAX_VIEWPORT_DIMS {info.max_viewport[0]}x{info.max_viewport[1]}")
        print(f"GL_MAX_SAMPLES       {info.max_samples}")
        print(f"context              {info.backend} (headless)")
        print("\n".join(found.lines()))
        print("\n".join(egl.lines()))
        print(f"OpenCL devices in use: {', '.join(in_use) or 'none'}"
              + ("" if len(in_use) > 1 else f" (several: {DEVICES_ENV}=all or P:D,P:D)"))
        if args.profile is not None:
            print(f"Device profile written to {args.profile} (lamina schedule SCENE --devices {args.profile})")
    return EXIT_OK


def _opencl_in_use(renderer) -> list[str]:
    """The OpenCL devices ``renderer`` runs filter work on ("P:D platform / name"): the
    list it was given (LAMINA_OPENCL_DEVICES), else the one selected; none without one."""
    if renderer.opencl_devices:
        return [f"{d.index} {d.platform} / {d.name}" for d in renderer.opencl_devices]
    try:
        return [renderer.executor.opencl_runner.label]
    except OpenCLUnavailableError:
        return []


def _schedule(args: argparse.Namespace) -> int:
    for path in (p for p in (args.out,) if p is not None):
        check_output(path)  # before any work, as render's outputs
    if args.out is not None:
        check_format(Path(args.out))
    profile = load_profile(args.devices)
    scene = load_scene(args.scene, allow_files=args.allow_files)
    sim = simulate(scene, profile, t=args.t, policy=args.policy)
    if args.out is not None:
        save_gantt(sim.schedule, args.out)
    if args.json:
        print(json.dumps({"scene": args.scene, "profile": profile.name, "schedule": sim.schedule.to_dict()}, indent=2))
    else:
        print(f"{args.scene}: {scene.width}x{scene.height}, {len(scene.layers())} layers")
        print(sim.text())
        if args.out is not None:
            print(f"wrote the Gantt chart to {args.out}")
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    return check_directory(
        args.folder,
        update=args.update,
        force=args.force,
        max_diff=args.max_diff,
        max_pixels=args.max_pixels,
        max_alpha_diff=args.max_alpha_diff,
        max_pixel_ratio=args.max_pixel_ratio,
        results=args.results,
        only=args.only,
        allow_files=args.allow_files,
        show_progress={"auto": None, "always": True, "never": False}[args.progress],
        cluster=_cluster(args),
    )


@contextmanager
def _progress(args: argparse.Namespace) -> Iterator[None]:
    """Show the progress of work that takes over 2 s on stderr (lamina.progress): on a
    terminal as one line redrawn in place, else (``--progress always``) a line each."""
    tty = sys.stderr.isatty()
    if args.progress == "never" or (args.progress == "auto" and not tty):
        yield
        return

    def show(line: str) -> None:
        if tty:
            sys.stderr.write(f"\r\x1b[Klamina: {line}")
            sys.stderr.flush()
        else:
            print(f"lamina: {line}", file=sys.stderr, flush=True)

    with report_progress(show) as progress:
        try:
            yield
        finally:
            if tty and progress.lines:
                sys.stderr.write("\n")


def _demo(args: argparse.Namespace) -> int:
    try:
        # Only this command needs the optional 'demos' extra (Dear ImGui): the others run without it.
        from .demos.launcher import run as run_demo  # import here: needs the optional 'demos' extra
    except ImportError as err:
        if (err.name or "").split(".")[0] != "imgui_bundle":
            raise
        raise DemosUnavailableError(
            f"lamina demo needs Dear ImGui (imgui-bundle), which is not installed: {DEMOS_INSTALL_HINT}") from None
    return run_demo(args, "lamina demo")


def _frame_options(p: argparse.ArgumentParser) -> None:
    """How a frame is made: the options render and explain share."""
    p.add_argument("-t", "--time", "--t", dest="t", type=float, default=0.0, metavar="SECONDS",
                   help="time at which to sample animations")
    p.add_argument("--policy", default=None, choices=POLICIES, help="compositing policy (default: browser)")
    p.add_argument("--filter-backend", choices=FILTER_BACKENDS, default=None,
                   help="where filter passes run: gl, opencl, auto (default: the scene's, else gl)")
    p.add_argument("--placement", default=None, metavar="NAME[:SEED]",
                   help="force where each filter pass runs instead: " + ", ".join(STRATEGIES)
                        + " (random:SEED draws each pass's device from SEED)")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="show the progress of work over 2 s on stderr (auto: when stderr is a terminal)")
    p.add_argument("--dpr", default=None, metavar="FACTOR",
                   help="device pixel ratio: device px per CSS px of the frame, in (0, 8] (default: the scene's "
                        "device_scale_factor, else 1); as Chromium's --force-device-scale-factor")


def _dpr(args: argparse.Namespace, scene) -> None:
    """``--dpr`` onto ``scene``: a GeometryError (not a number in (0, 8]) or a
    TextureTooLargeError (the frame would exceed a texture) naming --dpr."""
    if getattr(args, "dpr", None) is None:
        return
    try:
        value = float(args.dpr)
    except ValueError:
        value = args.dpr
    scale = parse_device_scale(value, "--dpr")
    check_frame_fits(scene.width, scene.height, scale, MAX_VIEWPORT, "--dpr")
    scene.device_scale_factor = scale


def _cluster_options(p: argparse.ArgumentParser) -> None:
    """Where a batch job runs (lamina.batch): the options of render and check."""
    p.add_argument("--workers", type=int, metavar="N",
                   help="render on a LocalCluster of N worker processes (one GL context each), started and "
                        "stopped by Lamina; 0: one per GPU when EGL lists several (worker i on GPU i mod n), "
                        "else one per CPU core")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="render on the workers of a running dask cluster (Lamina starts nothing)")
    p.add_argument("--no-dashboard", action="store_true", help="do not serve the LocalCluster's dashboard")


def _file_options(p: argparse.ArgumentParser) -> None:
    """Where a scene file's images may come from: the options of every command that loads scenes."""
    p.add_argument("--allow-files", action="append", default=[], metavar="DIR",
                   help="also let the scene's url() images come from DIR (repeatable); by default "
                        "only files inside the scene file's own folder are read")


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


class _Parser(argparse.ArgumentParser):
    """argparse, with a near match suggested for a misspelt choice or flag."""

    def error(self, message: str):  # type: ignore[override]
        m = _INVALID_CHOICE.search(message)
        if m is not None:
            hint = did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
            message += f"; {hint}" if hint else ""
        super().error(message)

    def reject_unknown(self, extras: list[str]) -> None:
        """Exit with argparse's error for arguments nobody took, naming the flag meant."""
        flags = [o for o in self._option_string_actions if o.startswith("--")]
        hints = [did_you_mean(e.split("=", 1)[0], flags) for e in extras if e.startswith("--")]
        hint = "; ".join(h for h in hints if h)
        self.error(f"unrecognized arguments: {' '.join(extras)}" + (f" ({hint})" if hint else ""))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lamina", description="Browser-style GPU compositing of CSS-styled layer trees.")
    parser.add_argument("--version", action="version", version=f"lamina {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("render", help="render scene files to PNG (one, many, or an animation's frames)")
    p.add_argument("scene", nargs="+", help="scene JSON file(s)")
    p.add_argument("-o", "--output", help="PNG to write (default: the scene's name with .png, in the current folder)")
    p.add_argument("--out", metavar="DIR", help="batch: write OUT/NAME.png (or OUT/NAME-000123.png with --frames)")
    p.add_argument("--frames", metavar="START:STOP[:STEP]",
                   help="batch: render these frames (STOP not included) at t = frame / fps")
    p.add_argument("--fps", type=float, default=60.0, help="frames per second of --frames (default 60)")
    p.add_argument("--explain", action="store_true", help="print the frame graph, surfaces and timings")
    p.add_argument("--report", metavar="FILE",
                   help="also write the frame report as JSON; in a batch job, dask's performance report (HTML)")
    p.add_argument("--trace", metavar="JSON", help="also write the frame's work as Chrome Trace Event JSON (Perfetto)")
    _frame_options(p)
    p.add_argument("--overlay", choices=OVERLAYS, help="draw a debug overlay like DevTools' on the picture")
    p.add_argument("--dump-textures", metavar="DIR",
                   help="also write what each layer raster, backing, tile and render surface holds, one PNG "
                        "each, into the folder DIR (as DevTools' Layers panel shows them)")
    _cluster_options(p)
    _file_options(p)
    p.set_defaults(run=_render)

    p = sub.add_parser("explain", help="render a scene and print what the compositor decided")
    p.add_argument("scene", help="scene JSON file")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument("--plan-only", action="store_true",
                   help="only plan the frame (scene.plan()): decisions and passes with no GPU work and no timings")
    p.add_argument("--dot", metavar="FILE", help="also write the frame graph as Graphviz DOT")
    p.add_argument("--from", dest="start", type=float, default=None, metavar="SECONDS",
                   help="render the frames from this time up to -t in order on one renderer (at --fps) and "
                        "explain the last: what carries between frames (an animation's raster scale) shows")
    p.add_argument("--fps", type=float, default=60.0, help="frames per second of --from (default 60)")
    _frame_options(p)
    _file_options(p)
    p.set_defaults(run=_explain)

    p = sub.add_parser("check", help="render a folder of scenes and compare them with their goldens")
    p.add_argument("folder", help="folder of scene files; goldens are in FOLDER/goldens/NAME.png")
    p.add_argument("--update", action="store_true", help="accept: write missing goldens and replace failing ones")
    p.add_argument("--force", action="store_true", help="write or compare even on a renderer other than the golden's")
    p.add_argument("--only", nargs="+", action="extend", metavar="NAME",
                   help="check only these scenes (repeatable)")
    p.add_argument("--max-diff", default="0", metavar="RANGE",
                   help="largest channel difference, WPT range a-b (default 0); alone it admits any number of pixels")
    p.add_argument("--max-pixels", default=None, metavar="RANGE", help="how many pixels may differ, WPT range a-b")
    p.add_argument("--max-pixel-ratio", default=None, metavar="FRACTION",
                   help="at most this fraction of the pixels may differ (0-1, as Playwright's maxDiffPixelRatio)")
    p.add_argument("--max-alpha-diff", default=None, metavar="RANGE", help="alpha's own range (default: --max-diff)")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress bar on stderr (auto: only when stderr is a terminal)")
    p.add_argument("--results", default="golden-results", metavar="DIR", help="artefacts and report.html (default golden-results)")
    _cluster_options(p)
    _file_options(p)
    p.set_defaults(run=_check)

    p = sub.add_parser("info", help="print the renderer fingerprint and limits, and the devices with their speeds")
    p.add_argument("--json", action="store_true")
    p.add_argument("--opencl", action="store_true", help="list the OpenCL devices instead (* = the one used)")
    p.add_argument("--recalibrate", action="store_true",
                   help="measure the devices' speeds again instead of reading the stored cost history")
    p.add_argument("--profile", metavar="FILE",
                   help="also write the devices and their cost model as a device profile (lamina schedule --devices)")
    p.set_defaults(run=_info)

    p = sub.add_parser("schedule", help="schedule a scene's frame on a profile's modelled devices (HEFT vs baselines)")
    p.add_argument("scene", help="scene JSON file")
    p.add_argument("--devices", required=True, metavar="PROFILE",
                   help="device profile JSON (lamina info --profile, or one of profiles/)")
    p.add_argument("--out", metavar="PNG", help="also draw the schedule as a Gantt chart picture")
    p.add_argument("--json", action="store_true", help="the schedule as JSON")
    p.add_argument("-t", "--time", "--t", dest="t", type=float, default=0.0, metavar="SECONDS",
                   help="time at which animations are sampled (default 0)")
    p.add_argument("--policy", default=None, choices=POLICIES, help="compositing policy (default: browser)")
    _file_options(p)
    p.set_defaults(run=_schedule)

    p = sub.add_parser("demo", help="run an interactive demo in a window or headless (no NAME: list them)",
                       description=f"Lamina's interactive demos (they need the 'demos' extra: {DEMOS_INSTALL_HINT}).")
    add_demo_arguments(p)
    p.set_defaults(run=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:  # said by the subcommand's parser, which knows the flags that were meant
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].reject_unknown(extras)
    try:
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except LaminaInputError as err:
        print(f"lamina: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (LaminaEnvironmentError, RendererUseError) as err:
        print(f"lamina: cannot render here: {err}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`lamina explain scene.json | head`): not an error of ours.
        # Point stdout at devnull so the interpreter's final flush does not complain.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # as a process killed by SIGPIPE
    except Exception:
        print("lamina: internal error (please report it with this traceback):", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
