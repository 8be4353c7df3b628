"""A frame-wide schedule drawn as a picture: one row per device, each pass a bar from
its predicted start to its finish (filter passes coloured by layer, GL-only passes
grey), the copies on a row of their own, and the makespans under it. Pillow only
(matplotlib is not a dependency). And a frame as it ran, as text: one row per track of
its trace (lamina.trace), at the times measured (``measured_rows``)."""

from __future__ import annotations

import zlib
from pathlib import Path

from PIL import Image, ImageDraw

from .graph.frame_schedule import Schedule
from .output_files import atomic_file

__all__ = ["gantt_image", "measured_rows", "save_gantt"]

_ROW, _LABEL, _PAD = 34, 150, 12


def _colour(layer: str) -> tuple[int, int, int]:
    h = zlib.crc32(layer.encode())
    return (70 + h % 150, 70 + (h >> 8) % 150, 70 + (h >> 16) % 150)


def gantt_image(schedule: Schedule, width: int = 1100) -> Image.Image:
    """The schedule as an RGB picture ``width`` px wide."""
    rows = list(schedule.devices) + (["copies"] if schedule.copies else [])
    text_lines = [f"HEFT {schedule.makespan_ms:.2f} ms"] + [f"{k} {v:.2f} ms" for k, v in schedule.baselines]
    height = _PAD * 3 + _ROW * len(rows) + 20 + 14 * 2
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    span = schedule.makespan_ms or 1.0
    plot = width - _LABEL - _PAD
    x_of = lambda ms: _LABEL + int(ms / span * plot)  # noqa: E731
    for r, name in enumerate(rows):
        y = _PAD + r * _ROW
        draw.text((_PAD, y + 10), name[:22], fill="black")
        draw.rectangle((_LABEL, y, _LABEL + plot, y + _ROW - 6), outline=(200, 200, 200))
    for s in schedule.slots:
        y = _PAD + schedule.devices.index(s.device) * _ROW
        fill = (185, 185, 185) if s.pinned else _colour(s.layer)
        draw.rectangle((x_of(s.start_ms), y + 2, max(x_of(s.finish_ms) - 1, x_of(s.start_ms)), y + _ROW - 8),
                       fill=fill, outline=(60, 60, 60))
    if schedule.copies:
        y = _PAD + len(schedule.devices) * _ROW
        for c in schedule.copies:
            draw.rectangle((x_of(c.start_ms), y + 8, max(x_of(c.finish_ms), x_of(c.start_ms) + 1), y + _ROW - 14),
                           fill=(90, 140, 220))
    axis = _PAD + len(rows) * _ROW
    draw.text((_LABEL, axis), "0 ms", fill="black")
    draw.text((_LABEL + plot - 70, axis), f"{span:.2f} ms", fill="black")
    draw.text((_PAD, axis + 20), "makespans: " + "   ".join(text_lines), fill="black")
    draw.text((_PAD, axis + 34), "grey: GL-only passes; colours: filter passes by layer; blue: copies", fill="black")
    return img


def save_gantt(schedule: Schedule, path: str | Path, width: int = 1100) -> None:
    """Write the picture as PNG at ``path`` (atomically: lamina.output_files)."""
    with atomic_file(Path(path)) as stream:
        gantt_image(schedule, width).save(stream, format="PNG")


def measured_rows(trace: dict, width: int = 64) -> list[str]:
    """A rendered frame's work per track of its trace (``Frame.trace()``: GL, OpenCL,
    transfers...), as text rows ``width`` wide on one time axis, with each track's busy
    time: where the devices worked at once shows as marks in the same columns."""
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    spans: dict[str, list[tuple[float, float]]] = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and e["name"] != "frame" and names.get(e["tid"]) not in ("planning", "readback"):
            spans.setdefault(names[e["tid"]], []).append((e["ts"] / 1000, (e["ts"] + e["dur"]) / 1000))
    if not spans:
        return []
    t0 = min(a for s in spans.values() for a, _ in s)
    t1 = max(b for s in spans.values() for _, b in s)
    scale = width / max(t1 - t0, 1e-9)
    label = max(len(n) for n in spans)
    rows = []
    for name in sorted(spans, key=lambda n: min(a for a, _ in spans[n])):
        row = [" "] * width
        for a, b in spans[name]:
            lo = min(width - 1, int((a - t0) * scale))
            for k in range(lo, max(lo + 1, min(width, int(round((b - t0) * scale))))):
                row[k] = "#"
        busy = sum(b - a for a, b in spans[name])
        rows.append(f"{name:<{label}} |{''.join(row)}| {busy:6.2f} ms")
    rows.append(f"{'':<{label}}  {0.0:<8.2f}{'':>{max(0, width - 16)}}{t1 - t0:8.2f} ms")
    return rows
