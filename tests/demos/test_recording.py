"""Recordings: a GIF's scene area does not depend on what the panels beside it show."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageSequence

from demos.ui.recording import HALF_PALETTE, write_gif


def _frames(path) -> list[np.ndarray]:
    with Image.open(path) as im:
        return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(im)]


def test_gif_scene_colours_do_not_depend_on_the_panels(tmp_path):
    rng = np.random.default_rng(7)
    scene = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)  # more colours than a half palette
    gifs = []
    for run in range(2):
        pngs = []
        for i in range(2):  # two frames (Pillow merges identical ones), one scene
            panels = rng.integers(0, 256, (60, 40, 3), dtype=np.uint8)  # live numbers: different every time
            pngs.append(tmp_path / f"run-{run}-{i}.png")
            Image.fromarray(np.concatenate([scene, panels], axis=1)).save(pngs[-1])
        gifs.append(write_gif(pngs, tmp_path / f"run-{run}.gif", split=80))
    first, second = (_frames(g) for g in gifs)
    assert len(first) == len(second) == 2
    assert np.array_equal(first[0][:, :80], second[0][:, :80]), "the scene is coloured from the scene alone"
    assert not np.array_equal(first[0][:, 80:], second[0][:, 80:]), "the panels are their own"
    colours = len(np.unique(first[0][:, :80].reshape(-1, 3), axis=0))
    assert 32 < colours <= HALF_PALETTE, f"the scene has half the palette: {colours} colours"
