"""Every file Lamina writes is written whole or not at all (lamina.output_files): a write
that fails part-way leaves the previous file byte for byte and no part file, and says
which path with an OutputFileError. Outputs that cannot hold a file written by name (a
folder, a FIFO, a device, no name at all) are refused at once, before anything renders."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import numpy as np
import pytest

import lamina.renderer
from lamina.cli import EXIT_BAD_INPUT, main
from lamina.errors import LaminaInputError, OutputFileError
from lamina.output_files import PART_SUFFIX, atomic_file, check_output, write_bytes, write_text
from lamina.png import write_png
from lamina.trace import write_trace


@contextmanager
def deadline(seconds: int):
    """Fail instead of hanging (a FIFO opened for writing waits for a reader)."""
    def expired(*_):
        raise AssertionError(f"still running after {seconds} s: a hang")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _unusable(tmp_path) -> dict[str, str]:
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    sock = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    os.symlink(tmp_path / "fifo", tmp_path / "link-to-fifo")
    return {
        "empty": "", "dot": ".", "dotdot": "..", "slash": "folder/", "dot-in-folder": str(tmp_path / "folder" / "."),
        "folder": str(tmp_path / "folder"), "fifo": str(tmp_path / "fifo"), "link-to-fifo": str(tmp_path / "link-to-fifo"),
        "socket": str(sock), "dev-null": "/dev/null", "dev-zero": "/dev/zero",
        "missing-folder": str(tmp_path / "nope" / "out.png"), "nul": "out\0.png",
    }


CASES = ["empty", "dot", "dotdot", "slash", "dot-in-folder", "folder", "fifo", "link-to-fifo", "socket", "dev-null",
         "dev-zero", "missing-folder", "nul"]


@pytest.mark.parametrize("case", CASES)
def test_outputs_that_cannot_hold_a_file_are_refused_at_once(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    path = _unusable(tmp_path)[case]
    started = time.perf_counter()
    with deadline(5):
        with pytest.raises(OutputFileError) as info:
            check_output(path)
        for write in (lambda: write_bytes(path, b"x"), lambda: write_png(path, 1, 1, [np.zeros((1, 1, 4), np.uint8)]),
                      lambda: write_trace({"traceEvents": []}, path)):
            with pytest.raises(OutputFileError):
                write()
    assert time.perf_counter() - started < 1.0
    assert isinstance(info.value, LaminaInputError) and info.value.path == path
    assert str(info.value).startswith("cannot write ")
    assert not [p for p in tmp_path.rglob("*") if PART_SUFFIX in p.name]


@pytest.fixture
def no_gpu(monkeypatch):
    def refuse():
        raise AssertionError("the CLI rendered before refusing its output")
    monkeypatch.setattr(lamina.renderer, "default_renderer", refuse)


SCENE = {"lamina": 1, "width": 64, "height": 48, "layers": [
    {"id": "a", "box": [0, 0, 64, 48], "style": "background: linear-gradient(45deg, red, blue)"}]}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("option", ["-o", "--report", "--trace"])
def test_the_cli_refuses_a_bad_output_before_rendering(tmp_path, monkeypatch, capsys, no_gpu, case, option):
    monkeypatch.chdir(tmp_path)
    path = _unusable(tmp_path)[case]
    (tmp_path / "s.json").write_text(json.dumps(SCENE))
    argv = ["render", "s.json", option, path] + (["-o", "fine.png"] if option != "-o" else [])
    started = time.perf_counter()
    with deadline(5):
        code = main(argv)
    assert time.perf_counter() - started < 1.0
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT and "Traceback" not in err
    assert err.startswith("lamina: error: cannot write"), err
    assert not (tmp_path / "fine.png").exists()


def test_explain_refuses_a_bad_dot_output_before_loading(tmp_path, capsys, no_gpu):
    os.mkfifo(tmp_path / "fifo")
    with deadline(5):
        assert main(["explain", str(tmp_path / "nothing.json"), "--dot", str(tmp_path / "fifo")]) == EXIT_BAD_INPUT
    assert "FIFO" in capsys.readouterr().err


def _parts(folder) -> list:
    return [p.name for p in folder.iterdir() if PART_SUFFIX in p.name]


def test_a_writer_that_fails_part_way_leaves_the_old_file(tmp_path):
    target = tmp_path / "out.png"
    target.write_bytes(b"the good old file")
    for failure, expected in ((OSError(errno.ENOSPC, "No space left on device"), OutputFileError),
                              (RuntimeError("encoder crashed"), RuntimeError)):
        with pytest.raises(expected) as info:
            with atomic_file(target) as out:
                out.write(b"half a new fi")
                raise failure
        assert target.read_bytes() == b"the good old file"
        assert _parts(tmp_path) == []
    with pytest.raises(OutputFileError, match=f"cannot write {target}: No space left on device"):
        with atomic_file(target) as out:
            raise OSError(errno.ENOSPC, "No space left on device")


def test_a_png_whose_strips_fail_part_way_leaves_the_old_file(tmp_path):
    target = tmp_path / "frame.png"
    target.write_bytes(b"previous frame")

    def strips():
        yield np.zeros((8, 16, 4), np.uint8)
        raise OSError(errno.EIO, "Input/output error")

    with pytest.raises(OutputFileError, match="frame.png: Input/output error"):
        write_png(target, 16, 16, strips())
    assert target.read_bytes() == b"previous frame" and _parts(tmp_path) == []


def _limited(code: str, limit: int, cwd) -> subprocess.CompletedProcess:
    """Run ``code`` in a Python whose files may not grow past ``limit`` bytes (a full disk)."""
    prelude = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_file_size_limit_mid_png_leaves_the_old_file_byte_identical(tmp_path):
    good = np.random.default_rng(1).integers(0, 256, (64, 64, 4), dtype=np.uint8)
    write_png(tmp_path / "out.png", 64, 64, [good])
    before = (tmp_path / "out.png").read_bytes()
    # Noise does not compress: 256x256x4 bytes cannot fit in 20 kB.
    result = _limited("import numpy as np\nfrom lamina.png import write_png\nfrom lamina.errors import OutputFileError\n"
                      "noise = np.random.default_rng(2).integers(0, 256, (256, 256, 4), dtype=np.uint8)\n"
                      "try:\n    write_png('out.png', 256, 256, [noise])\n"
                      "except OutputFileError as err:\n    print('typed:', err)\n", 20_000, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("typed: cannot write out.png: File too large"), result.stdout
    assert (tmp_path / "out.png").read_bytes() == before
    assert _parts(tmp_path) == []


@pytest.mark.gl
def test_render_o_under_a_file_size_limit_keeps_the_old_png(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({**SCENE, "width": 256, "height": 256, "layers": [
        {"id": "a", "box": [0, 0, 256, 256], "style": "background: conic-gradient(red, lime, blue, red)"}]}))
    (tmp_path / "out.png").write_bytes(b"yesterday's render")
    result = _limited("import sys\nfrom lamina.cli import main\nsys.exit(main(['render', 's.json', '-o', 'out.png']))",
                      3_000, tmp_path)
    assert result.returncode == EXIT_BAD_INPUT, (result.stdout, result.stderr)
    assert result.stderr.startswith("lamina: error: cannot write out.png: File too large"), result.stderr
    assert (tmp_path / "out.png").read_bytes() == b"yesterday's render"
    assert _parts(tmp_path) == []


def test_a_symlinked_output_is_written_through_and_modes_are_kept(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    os.chmod(real, 0o640)
    os.symlink(real, tmp_path / "link.json")
    write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and real.read_text() == "new"
    assert os.stat(real).st_mode & 0o777 == 0o640
    umask = os.umask(0o022)
    os.umask(umask)
    write_text(tmp_path / "fresh.json", "x")
    assert os.stat(tmp_path / "fresh.json").st_mode & 0o777 == 0o666 & ~umask
