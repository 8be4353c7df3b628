"""A frame-wide schedule drawn as a picture: one row per device, each pass a bar from
its predicted start to its finish (filter passes coloured by layer, GL-only passes
grey), the copies on a row of their own, and the makespans under it. Pillow only
(matplotlib is not a dependency)."""

from __future__ import annotations

import zlib
from pathlib import Path

from PIL import Image, ImageDraw

from .graph.frame_schedule import Schedule
from .output_files import atomic_file

__all__ = ["gantt_image", "save_gantt"]

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
