"""Images are decoded only in the formats Lamina documents (PNG, JPEG, WebP, GIF, BMP),
told from their first bytes before Pillow sees them, and no image makes Lamina start a
process (Pillow runs Ghostscript for EPS). Every test here runs with starting a process
made to fail and recorded: a decode that tried would fail the test even where the
attempt itself was swallowed. Refusals are typed and never show the data's bytes."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess

import _posixsubprocess
import numpy as np
import pytest
from PIL import EpsImagePlugin, Image

from lamina import Layer, Scene, load_scene
from lamina.css.values import ImageRef
from lamina.errors import GoldenError, ImageFormatError, ImageLoadError, LaminaInputError
from lamina.golden.store import read_golden
from lamina.image_formats import ALLOWED_FORMATS, read_image_file, sniff_format
from lamina.images import load_image

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"


@pytest.fixture(autouse=True)
def no_processes(monkeypatch):
    """Every way Python starts a process raises, and says so in ``attempts``."""
    attempts: list[str] = []

    def refuse(name):
        def start(*args, **kwargs):
            attempts.append(name)
            raise PermissionError(f"test: {name} may not start a process")
        return start

    monkeypatch.setattr(subprocess, "Popen", refuse("subprocess.Popen"))
    monkeypatch.setattr(_posixsubprocess, "fork_exec", refuse("_posixsubprocess.fork_exec"))
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "popen", "execv", "execve", "execvp",
                 "execvpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse(f"os.{name}"))
    # As if Ghostscript were installed and not yet looked for: Pillow would run it.
    monkeypatch.setattr(EpsImagePlugin, "gs_binary", None)
    yield attempts
    assert attempts == [], f"a process was started: {attempts}"


def test_the_guard_catches_pillow_running_ghostscript(no_processes):
    """Without Lamina's check, Pillow tries to start gs for an EPS: the guard sees it."""
    with pytest.raises(Exception):
        with Image.open(io.BytesIO(_encoded("EPS"))) as im:
            im.load()
    assert no_processes, "Pillow read an EPS without trying to start Ghostscript: the guard proves nothing"
    no_processes.clear()


def _picture() -> np.ndarray:
    rgb = np.zeros((6, 8, 3), np.uint8)
    rgb[:, :4] = (200, 30, 40)
    rgb[:, 4:] = (20, 160, 220)
    return rgb


def _encoded(fmt: str, **options) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(_picture(), "RGB").save(buf, format=fmt, **options)
    return buf.getvalue()


ALLOWED = {  # format -> (Pillow save options, largest difference from the picture)
    "PNG": ({}, 0), "JPEG": ({"quality": 95, "subsampling": 0}, 12), "WEBP": ({"lossless": True}, 0), "GIF": ({}, 0), "BMP": ({}, 0),
}


def test_the_documented_formats_are_the_allowed_ones():
    assert set(ALLOWED_FORMATS) == set(ALLOWED)


@pytest.mark.parametrize("fmt", sorted(ALLOWED))
@pytest.mark.parametrize("source", ["bytes", "data-url", "scene-file"])
def test_every_allowed_format_decodes_without_a_process(tmp_path, fmt, source):
    options, tolerance = ALLOWED[fmt]
    data = _encoded(fmt, **options)
    assert sniff_format(data[:16]) == fmt
    if source == "bytes":
        pixels = load_image(ImageRef(data=data), layer="x")
    elif source == "data-url":
        pixels = load_image(ImageRef(url=f"data:image/x;base64,{base64.b64encode(data).decode()}"), layer="x")
    else:
        (tmp_path / "pic.img").write_bytes(data)
        scene = load_scene(_scene_file(tmp_path, "url(pic.img)"))
        scene.plan()  # decodes the image (no GPU)
        pixels = load_image(ImageRef(url="pic.img"), tmp_path, layer="pic")
    assert pixels.shape == (6, 8, 4)
    diff = np.abs(pixels[..., :3].astype(int) - _picture().astype(int)).max()
    assert diff <= tolerance, (fmt, diff)
    assert (pixels[..., 3] == 255).all()


def _scene_file(folder, url):
    path = folder / "scene.json"
    path.write_text(json.dumps({"lamina": 1, "width": 20, "height": 20, "layers": [
        {"id": "pic", "box": [0, 0, 8, 6], "style": f"background: {url}"}]}))
    return path


def _refused() -> dict[str, bytes]:
    rng = np.random.default_rng(24)
    cases = {name: _encoded(fmt) for name, fmt in (("eps", "EPS"), ("pdf", "PDF"), ("tiff", "TIFF"), ("ico", "ICO"),
                                                   ("ppm", "PPM"), ("tga", "TGA"), ("pcx", "PCX"), ("jpeg2000", "JPEG2000"))}
    cases.update({
        "eps-text": b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n" + SECRET,
        "svg": b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>',
        "svg-bare": b'  <svg width="4" height="4"><!-- ' + SECRET + b" --></svg>",
        "html": b"<!DOCTYPE html><html>" + SECRET,
        "random": rng.integers(0, 256, 4096, dtype=np.uint8).tobytes(),
        "key": SECRET,
        "empty": b"",
        "png-header-garbage": b"\x89PNG\r\n\x1a\n" + SECRET + rng.integers(0, 256, 256, dtype=np.uint8).tobytes(),
        "png-cut-short": _encoded("PNG")[:60],
        "jpeg-header-garbage": b"\xff\xd8\xff\xe0" + SECRET,
        "gif-header-garbage": b"GIF89a" + SECRET,
        "webp-header-garbage": b"RIFF\x20\x00\x00\x00WEBPVP8 " + SECRET,
        "bmp-header-garbage": b"BM" + SECRET,
    })
    return cases


REFUSED = _refused()


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_every_refused_format_is_a_typed_error_without_a_process_or_its_bytes(tmp_path, name):
    data = REFUSED[name]
    for ref, base in ((ImageRef(data=data), None),
                      (ImageRef(url="data:image/png;base64," + base64.b64encode(data).decode()), None),
                      (ImageRef(url="given.png"), tmp_path)):
        (tmp_path / "given.png").write_bytes(data)
        with pytest.raises(ImageLoadError) as info:
            load_image(ref, base, layer="x")
        err = info.value
        assert isinstance(err, LaminaInputError)
        if sniff_format(data[:16]) is None:
            assert isinstance(err, ImageFormatError)
            assert "PNG, JPEG, WebP, GIF, BMP" in str(err) or "empty" in str(err)
        _assert_no_bytes(str(err), data)
    # From a scene file, the message says where the image was named.
    (tmp_path / "pic.png").write_bytes(data)
    with pytest.raises(ImageLoadError) as info:
        load_scene(_scene_file(tmp_path, "url(pic.png)")).plan()
    assert "$.layers[0].style" in str(info.value) and str(tmp_path / "pic.png") in str(info.value)
    _assert_no_bytes(str(info.value), data)


def _assert_no_bytes(message: str, data: bytes) -> None:
    assert "OPENSSH" not in message and "b3BlbnNz" not in message, message
    assert "\\x" not in message and "b'" not in message, message
    payload = base64.b64encode(data).decode()
    assert not payload or payload[:12] not in message, message


def test_eps_named_png_in_a_scene_folder_is_refused_as_eps(tmp_path):
    (tmp_path / "photo.png").write_bytes(REFUSED["eps"])
    with pytest.raises(ImageFormatError, match="PostScript/EPS, which Lamina does not decode"):
        load_scene(_scene_file(tmp_path, "url(photo.png)")).plan()


def test_a_pillow_image_opened_from_a_refused_format_is_refused_before_it_decodes():
    with Image.open(io.BytesIO(REFUSED["eps"]), formats=["EPS"]) as eps:  # the caller's own open: no decode yet
        layer = Layer("pic", box=(0, 0, 8, 6), image=eps)
        scene = Scene(20, 20)
        scene.root.add(layer)
        with pytest.raises(ImageFormatError, match="opened as EPS"):
            scene.plan()
    converted = Image.open(io.BytesIO(_encoded("TIFF")))
    assert load_image(ImageRef(data=converted.convert("RGBA")), layer="x").shape == (6, 8, 4)  # decoded by the caller


def test_a_huge_image_in_an_allowed_format_is_refused_before_decoding():
    buf = io.BytesIO()
    Image.new("L", (9000, 9000)).save(buf, format="PNG")
    with pytest.raises(ImageLoadError, match="Mpx"):
        load_image(ImageRef(data=buf.getvalue()), layer="x")


def test_reading_a_file_names_it_and_refuses_what_is_not_allowed(tmp_path):
    (tmp_path / "a.png").write_bytes(_encoded("PNG"))
    assert read_image_file(tmp_path / "a.png").size == (8, 6)
    (tmp_path / "b.png").write_bytes(REFUSED["tiff"])
    with pytest.raises(ImageFormatError, match="TIFF") as info:
        read_image_file(tmp_path / "b.png")
    assert str(tmp_path / "b.png") in str(info.value)
    with pytest.raises(ImageLoadError, match="cannot read"):
        read_image_file(tmp_path / "missing.png")


def test_a_golden_that_is_not_a_png_is_a_golden_error(tmp_path):
    for name, data in (("eps", REFUSED["eps"]), ("jpeg", _encoded("JPEG")), ("cut", REFUSED["png-cut-short"])):
        (tmp_path / f"{name}.png").write_bytes(data)
        with pytest.raises(GoldenError, match="not a"):
            read_golden(tmp_path / f"{name}.png")
