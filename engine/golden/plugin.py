"""The pytest plugin (entry point ``pytest11: lamina``): the ``golden`` fixture, the
``golden`` marker for defaults, the ``--golden-*`` options and the HTML report.

    def test_card(golden):
        golden.check(scene.render(), "card", max_diff="0-1", max_pixels="0-20")
        golden.check(frame, "soft", max_diff="0-2")          # any number of pixels, each within 2
        golden.check(frame, "noisy", max_diff="0-8", max_pixel_ratio=0.01)  # at most 1% of them
        golden.assert_same(render_a, render_b)          # a reftest: no stored image

    @pytest.mark.golden(max_diff="0-2", dir="goldens/cards")   # defaults for a test/module

Tolerances (``lamina.fuzzy``): ``max_diff`` bounds every channel's difference; alone it
admits any number of pixels within it. ``max_pixels`` (a WPT range, ``"0-N"``) and
``max_pixel_ratio`` (a fraction of the image, as Playwright's) bound how many may differ.

Options: ``--golden-update=none|missing|changed|all``, ``--golden-force`` (write or compare
on a renderer other than the golden's), ``--golden-results=DIR`` (default
``golden-results`` in the rootdir). Ini: ``golden_dir`` (default: ``goldens`` beside each
test file), ``golden_results``. ``LAMINA_GOLDEN_STRICT=1`` fails checks that would be
skipped for running on another renderer.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from ..fuzzy import TOLERANCE_KEYS, Tolerance, compare
from .artefacts import ResultsDir
from .report import write_report
from .store import GoldenDir, Outcome, Status, as_premultiplied

__all__ = ["GoldenFixture"]

_RESULTS_KEY = pytest.StashKey["Any"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lamina-golden", "Lamina golden images")
    group.addoption("--golden-update", choices=["none", "missing", "changed", "all"], default=None,
                    help="write goldens: none (default), missing, changed (missing and failing), all")
    group.addoption("--golden-force", action="store_true", default=False,
                    help="write or compare goldens even on a renderer other than the one they were made on")
    group.addoption("--golden-results", default=None, metavar="DIR",
                    help="where failure artefacts and report.html go (default: golden-results)")
    parser.addini("golden_dir", "folder of golden PNGs, relative to the rootdir (default: goldens beside each test file)", default="")
    parser.addini("golden_results", "folder for failure artefacts and report.html, relative to the rootdir", default="golden-results")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "golden(max_diff=..., max_pixels=..., max_pixel_ratio=..., max_alpha_diff=..., dir=...): "
        "defaults for the golden fixture's checks",
    )
    folder = config.getoption("golden_results") or config.getini("golden_results")
    results = ResultsDir(Path(config.rootpath, folder))
    config.stash[_RESULTS_KEY] = results
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        results.start_run()


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput") or _RESULTS_KEY not in config.stash:
        return
    results = config.stash[_RESULTS_KEY]
    if results.run_log() or results.failures():
        write_report(results, title=str(config.rootpath.name))


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or _RESULTS_KEY not in config.stash:
        return
    results = config.stash[_RESULTS_KEY]
    log = results.run_log()
    if not log:
        return
    counts: dict[str, int] = {}
    for entry in log:
        counts[entry["status"]] = counts.get(entry["status"], 0) + 1
    line = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    terminalreporter.write_sep("-", "lamina golden images")
    terminalreporter.write_line(f"{line}; report: {results.folder / 'report.html'}")
    for entry in log:
        if entry["status"] in ("written", "updated"):
            terminalreporter.write_line(f"  {entry['status']}: {entry['golden']}")


class GoldenFixture:
    """Compares renders with golden PNGs (``check``) or with each other (``assert_same``)."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request
        config = request.config
        self._results = config.stash[_RESULTS_KEY]
        self._update = config.getoption("golden_update") or "none"
        self._force = bool(config.getoption("golden_force"))
        # Every golden marker from the module down to the test; the nearest wins per key.
        self._defaults: dict[str, Any] = {}
        for marker in request.node.iter_markers("golden"):  # nearest first
            if marker.args:
                raise pytest.UsageError(f"@pytest.mark.golden takes keyword arguments only, got {marker.args!r}")
            unknown = set(marker.kwargs) - {*TOLERANCE_KEYS, "dir"}
            if unknown:
                raise pytest.UsageError(f"@pytest.mark.golden: unknown argument {sorted(unknown)[0]!r}")
            for key, value in marker.kwargs.items():
                self._defaults.setdefault(key, value)

    def _tolerance(self, given: dict[str, Any]) -> Tolerance:
        """The check's own tolerance arguments over the markers' defaults (key by key)."""
        chosen = {key: self._defaults.get(key) if given.get(key) is None else given[key] for key in TOLERANCE_KEYS}
        return Tolerance.of(
            "0" if chosen["max_diff"] is None else chosen["max_diff"],
            chosen["max_pixels"], chosen["max_alpha_diff"], chosen["max_pixel_ratio"],
        )

    def folder(self, dir: str | Path | None = None) -> Path:
        """Where goldens of this test live."""
        config = self._request.config
        chosen = dir or self._defaults.get("dir") or config.getini("golden_dir")
        if chosen:
            path = Path(chosen)
            return path if path.is_absolute() else Path(config.rootpath, path)
        return Path(self._request.node.path).parent / "goldens"

    def _command(self, update: str, force: bool) -> str:
        cmd = f"python -m pytest {shlex.quote(self._request.node.nodeid)} --golden-update={update}"
        return cmd + (" --golden-force" if force else "")

    def check(self, image: Any, name: str, *, max_diff=None, max_pixels=None, max_alpha_diff=None,
              max_pixel_ratio=None, dir: str | Path | None = None, device_scale_factor: float | None = None) -> None:
        """Compare a Frame (or straight RGBA/RGB uint8 array, or Pillow image) with golden
        ``name`` (a PNG in the golden folder; ``/`` makes subfolders). The golden records
        the device pixel ratio it was made at (a Frame's own; an array's is
        ``device_scale_factor``, else 1) and only a golden of the same DPR compares."""
        folder = self.folder(dir)
        store = GoldenDir(folder, self._update, self._force)
        outcome = store.check(image, name, self._tolerance(dict(
            max_diff=max_diff, max_pixels=max_pixels, max_alpha_diff=max_alpha_diff, max_pixel_ratio=max_pixel_ratio)),
            device_scale_factor=device_scale_factor)
        missing = outcome.expected is None and not outcome.golden.is_file()
        accept = self._command("missing" if missing else "changed", outcome.needs_force)
        try:
            key = folder.relative_to(self._request.config.rootpath).as_posix() + "/" + name
        except ValueError:
            key = f"{folder.name}/{name}"
        artefacts = self._results.record(key, outcome, test=self._request.node.nodeid, accept=accept)
        if outcome.status is Status.FAILED:
            where = f"\n  artefacts: {artefacts}" if artefacts else ""
            pytest.fail(f"golden {name!r}: {outcome.message}{where}\n  accept: {accept}", pytrace=False)
        if outcome.status is Status.SKIPPED:
            pytest.skip(f"golden {name!r}: {outcome.message}")

    def assert_same(self, actual: Any, reference: Any, *, max_diff=None, max_pixels=None, max_alpha_diff=None,
                    max_pixel_ratio=None, name: str = "") -> None:
        """A reftest: two renders that must match within the tolerance (no stored image)."""
        a, fp = as_premultiplied(actual)
        b, _ = as_premultiplied(reference)
        label = name or self._request.node.name
        outcome = Outcome(Status.FAILED, "", label, None, a, expected=b, fingerprint=fp)  # type: ignore[arg-type]
        if a.shape != b.shape:
            outcome.message = f"size {a.shape[1]}x{a.shape[0]} differs from the reference's {b.shape[1]}x{b.shape[0]}"
        else:
            outcome.comparison = compare(a, b, self._tolerance(dict(
                max_diff=max_diff, max_pixels=max_pixels, max_alpha_diff=max_alpha_diff,
                max_pixel_ratio=max_pixel_ratio)))
            outcome.message = outcome.comparison.summary()
            if outcome.comparison.passed:
                outcome.status = Status.PASSED
        key = "reftest/" + self._request.node.nodeid + (f"/{name}" if name else "")
        artefacts = self._results.record(key, outcome, test=self._request.node.nodeid, accept="", kind="reftest")
        if outcome.status is Status.FAILED:
            pytest.fail(f"reftest {label!r}: {outcome.message}\n  artefacts: {artefacts}", pytrace=False)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> GoldenFixture:
    """Golden-image checks for this test; see ``lamina.golden``."""
    return GoldenFixture(request)
