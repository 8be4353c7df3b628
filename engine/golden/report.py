"""The self-contained HTML failure report: every image embedded as a data: URL, views to
compare (side by side, flicker, slider) and, per failure, the command that accepts the
new image. Built from the results folder, so parallel workers' checks are all in it."""

from __future__ import annotations

import base64
import html
import json
from collections import Counter
from pathlib import Path
from string import Template
from typing import Any

from ..image_formats import open_image
from ..output_files import write_text

from .artefacts import ResultsDir, stamp

__all__ = ["write_report"]

TEMPLATE = Path(__file__).with_name("report_template.html")
REPORT = "report.html"


def _img(folder: Path, name: str | None, scale: int, alt: str, cls: str = "px") -> str:
    if not name or not (folder / name).is_file():
        return f"<em>no {html.escape(alt)} image</em>"
    raw = (folder / name).read_bytes()
    with open_image(raw, resolved=str(folder / name)) as im:  # checked like any image Lamina decodes
        w, h = im.size
    data = base64.b64encode(raw).decode("ascii")
    return (f'<img class="{cls}" alt="{html.escape(alt)}" width="{w * scale}" height="{h * scale}" '
            f'src="data:image/png;base64,{data}">')


def _scale(folder: Path, files: dict[str, str]) -> int:
    name = files.get("actual")
    if not name or not (folder / name).is_file():
        return 1
    with open_image((folder / name).read_bytes(), resolved=str(folder / name)) as im:
        longest = max(im.size)
    return max(1, min(4, 384 // max(longest, 1)))


def _failure(record: dict[str, Any]) -> str:
    folder = Path(record["folder"])
    files = record.get("files", {})
    s = _scale(folder, files)
    figs = "".join(
        f"<figure>{_img(folder, files.get(k), s, k)}<figcaption>{caption}</figcaption></figure>"
        for k, caption in (("expected", "expected (golden)"), ("actual", "actual"), ("diff", "difference, amplified"),
                           ("mask", "red: over tolerance, yellow: within, blue: the region"))
    )
    stack = (f'{_img(folder, files.get("expected"), s, "expected")}'
             f'{_img(folder, files.get("actual"), s, "actual", "px top")}')
    # The slider starts half way: the top (actual) image is clipped to the right half.
    slide = stack.replace('class="px top"', 'class="px top" style="clip-path: inset(0 0 0 50%)"')
    metrics = record.get("metrics", {})
    rows = "".join(
        f"<tr><td>{html.escape(k.replace('_', ' '))}</td><td>{html.escape(json.dumps(v) if not isinstance(v, str) else v)}</td></tr>"
        for k, v in metrics.items() if k not in ("message", "histogram")
    )
    hist = metrics.get("histogram")
    if hist:
        rows += f"<tr><td>histogram (difference: pixels)</td><td>{html.escape(', '.join(f'{k}: {v}' for k, v in hist.items()))}</td></tr>"
    fp, gfp = record.get("fingerprint"), record.get("golden_fingerprint")
    fps = ""
    if fp:
        fps += f"<tr><td>this renderer</td><td>{html.escape(fp['GL_RENDERER'] + ' | ' + fp['GL_VERSION'])}</td></tr>"
    if gfp:
        fps += f"<tr><td>golden made on</td><td>{html.escape(gfp['GL_RENDERER'] + ' | ' + gfp['GL_VERSION'])} (Lamina {html.escape(gfp.get('lamina', ''))})</td></tr>"
    accept = record.get("accept")
    accept_html = f'<div>Accept the new image:<code class="cmd">{html.escape(accept)}</code></div>' if accept else ""
    views = ""
    if files.get("expected"):
        views = (
            '<div class="views"><button class="on" data-view="side">side by side</button>'
            '<button data-view="flicker">flicker</button><button data-view="slide">slider</button></div>'
            f'<div class="view on" data-view="side">{figs}</div>'
            f'<div class="view" data-view="flicker"><div class="stack flicker">{stack}</div>'
            "<figcaption>alternates expected / actual every half second</figcaption></div>"
            f'<div class="view" data-view="slide"><div><div class="stack slide">{slide}</div>'
            '<input class="slider" type="range" min="0" max="100" value="50" aria-label="reveal">'
            "<figcaption>left of the line: expected; right: actual</figcaption></div></div>"
        )
    else:
        views = f'<div class="view on">{figs}</div>'
    return (
        f'<section class="check" id="{html.escape(Path(record["folder"]).name)}">'
        f'<h2 class="failed">{html.escape(record.get("name") or record["key"])}</h2>'
        f'<div>test: <code>{html.escape(record.get("test", ""))}</code> &middot; {html.escape(record.get("time", ""))}</div>'
        f'<div class="message">{html.escape(record.get("message", ""))}</div>'
        f"{views}<table class=\"metrics\">{rows}{fps}</table>{accept_html}</section>"
    )


def write_report(results: ResultsDir, title: str = "") -> Path:
    """Write ``report.html`` in the results folder and return its path."""
    failures = results.failures()
    log = results.run_log()
    counts = Counter(entry["status"] for entry in log)
    count_html = "".join(
        f'<span class="{k if k in ("failed", "passed", "skipped") else ""}">{counts.get(k, 0)} {k}</span>'
        for k in ("passed", "failed", "skipped", "written", "updated")
    )
    run_keys = {entry["key"] for entry in log}
    stale = [f for f in failures if f["key"] not in run_keys]
    body = []
    if not failures:
        body.append("<p class=\"passed\">No failures.</p>")
    for record in failures:
        body.append(_failure(record))
    if stale:
        body.append(f"<p>{len(stale)} of these did not run this time; they are from an earlier run.</p>")
    skips = [e for e in log if e["status"] == "skipped"]
    if skips:
        items = "".join(f"<li>{html.escape(e['name'])}: {html.escape(e['message'])}</li>" for e in skips)
        body.append(f'<h2 class="skipped">Skipped</h2><ul class="skips">{items}</ul>')
    page = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        title=html.escape(title or "results"),
        subtitle=html.escape(f"{title} - {stamp()}" if title else stamp()),
        counts=count_html,
        body="\n".join(body),
    )
    path = results.folder / REPORT
    results.folder.mkdir(parents=True, exist_ok=True)
    write_text(path, page)
    return path
