"""Headless recordings as animations: the frames a demo wrote, as one GIF (Pillow) or
one MP4 (H.264 through imageio-ffmpeg).

imageio-ffmpeg is chosen for MP4 because it is maintained with imageio, installs from
PyPI with an ffmpeg binary inside the wheel (no system ffmpeg, no network at run time),
and takes raw RGB frames through a pipe — nothing else is needed to encode H.264.

A GIF frame has one palette of 256 colours. Given where the scene ends (``split``), the
scene and the panels each get half of it, quantized without dithering: the panels' live
numbers (timings differ from run to run) then cannot change how the scene is coloured,
so two recordings of one lesson show the same scene."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from lamina.image_formats import read_image_file
from lamina.output_files import atomic_file, atomic_path
from PIL import Image

__all__ = ["write_gif", "write_mp4", "RecordingUnavailable"]


class RecordingUnavailable(RuntimeError):
    """An MP4 was asked for and imageio-ffmpeg is not installed (the message says how)."""


def _frames(pngs: list[Path]) -> list[np.ndarray]:
    return [np.asarray(read_image_file(p).convert("RGB")) for p in pngs]


HALF_PALETTE = 128


def _half_palette(part: Image.Image) -> tuple[np.ndarray, list[int]]:
    """``part`` in at most HALF_PALETTE colours: its indices and its palette (RGB triples,
    padded to HALF_PALETTE entries). Median cut, no dithering: the same pixels give the
    same result, and a pixel's index depends on no neighbour."""
    quantized = part.quantize(HALF_PALETTE, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    palette = quantized.getpalette()[: 3 * HALF_PALETTE]
    return np.asarray(quantized), palette + [0] * (3 * HALF_PALETTE - len(palette))


def _gif_frame(picture: Image.Image, split: int) -> Image.Image:
    """One palette frame: columns before ``split`` on the first half of the palette,
    the rest on the second."""
    rgb = np.asarray(picture)
    left, left_palette = _half_palette(Image.fromarray(np.ascontiguousarray(rgb[:, :split])))
    right, right_palette = _half_palette(Image.fromarray(np.ascontiguousarray(rgb[:, split:])))
    frame = Image.fromarray(np.concatenate([left, right.astype(np.uint8) + HALF_PALETTE], axis=1), "P")
    frame.putpalette(left_palette + right_palette)
    return frame


def write_gif(pngs: list[Path], path: Path, fps: float = 30.0, *, split: int | None = None) -> Path:
    """The PNGs as one looping GIF; ``split``: the x where the scene ends and the panels
    begin (each then has half the palette; without it Pillow quantizes each frame whole)."""
    pictures = [read_image_file(p).convert("RGB") for p in pngs]
    if split is not None and 0 < split < pictures[0].width:
        pictures = [_gif_frame(picture, split) for picture in pictures]
    with atomic_file(path) as out:
        pictures[0].save(out, format="GIF", save_all=True, append_images=pictures[1:], duration=int(1000 / fps),
                         loop=0)
    return path


def write_mp4(pngs: list[Path], path: Path, fps: float = 30.0) -> Path:
    """H.264 (yuv420p, so every player shows it); odd sizes are padded by one black
    pixel, as the codec needs even dimensions."""
    try:
        import imageio_ffmpeg  # import here: optional (the 'record' extra); only --mp4 needs it
    except ImportError:
        raise RecordingUnavailable("--mp4 needs imageio-ffmpeg: pip install 'lamina[record]'") from None
    frames = _frames(pngs)
    h, w = frames[0].shape[:2]
    ew, eh = w + w % 2, h + h % 2
    # ffmpeg writes the file by name (and seeks in it): into a part file beside it,
    # renamed over ``path`` once whole (imageio-ffmpeg passes -y: the part file exists, empty).
    with atomic_path(path, suffix=".mp4") as part:
        writer = imageio_ffmpeg.write_frames(str(part), (ew, eh), fps=fps, codec="libx264", pix_fmt_out="yuv420p",
                                             macro_block_size=1, output_params=["-loglevel", "error"])
        writer.send(None)  # start the encoder
        try:
            for frame in frames:
                padded = np.zeros((eh, ew, 3), np.uint8)
                padded[:h, :w] = frame
                writer.send(np.ascontiguousarray(padded))
        finally:
            writer.close()
    return path
