"""A frame graph runs with nothing beside it (issue 21): it carries its decoded images
(FrameGraph.images, referenced by ImagePaint.key), so it can be pickled and executed
by another renderer, with the sources gone; uploads stay cached by key; a frame owns
its stats; and the next execution does not read back an earlier frame's pixels (a
large frame holds its texture: lamina.gpu.readback)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Renderer, Scene
from lamina.gpu.readback import READBACK_WORK
from lamina.images import ImageResource


def _picture(rng, w: int, h: int) -> np.ndarray:
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., 3] = rng.integers(128, 256, (h, w), dtype=np.uint8)
    return img


def _image_scene(tmp_path, rng) -> tuple[Scene, np.ndarray]:
    """A scene drawing an in-memory array (twice) and a PNG file."""
    array = _picture(rng, 12, 10)
    Image.fromarray(_picture(rng, 9, 7), "RGBA").save(tmp_path / "tile.png")
    scene = Scene(80, 60, "#f4f1ea", base_dir=tmp_path)
    scene.root.add(Layer("array", (4, 4, 24, 20), image=array))
    scene.root.add(Layer("again", (30, 4, 12, 10), image=array))
    scene.root.add(Layer("file", (8, 30, 50, 24), "background: url(tile.png) repeat; border-radius: 6px"))
    return scene, array


def test_a_pickled_graph_runs_elsewhere_with_its_images(gl, tmp_path, rng):
    scene, array = _image_scene(tmp_path, rng)
    with Renderer() as renderer:
        expected = scene.render(renderer).premultiplied
    graph = scene.plan()
    assert sorted(k[0] for k in graph.images) == ["data", "file"], "one resource per image, drawn twice or not"
    assert all(isinstance(r, ImageResource) and r.pixels.shape == (r.height, r.width, 4) for r in graph.images.values())
    data = pickle.dumps(graph)
    array[...] = 0  # the sources change, or go: the graph has what it was planned with
    (tmp_path / "tile.png").unlink()
    again = pickle.loads(data)
    assert again == graph
    with Renderer() as elsewhere:
        elsewhere.gpu.activate()
        pixels, stats = elsewhere.executor.execute(again, frame=True)
        assert np.array_equal(pixels.premultiplied(), expected)
        assert stats.images_uploaded == 2


def test_a_graph_keeps_the_pixels_it_was_planned_with(tmp_path, rng):
    scene, array = _image_scene(tmp_path, rng)
    graph = scene.plan()
    (resource,) = [r for k, r in graph.images.items() if k[0] == "data"]
    planned = array.copy()
    array[...] = 7
    assert np.array_equal(resource.pixels[..., :4], planned), "copied from the caller's array"
    assert not resource.pixels.flags.writeable


def test_an_unchanged_image_is_uploaded_once(fresh, tmp_path, rng):
    scene, array = _image_scene(tmp_path, rng)
    first = scene.render(fresh)
    assert first.stats.images_uploaded == 2
    scene["array"].box = (6, 4, 26, 22)  # re-rastered, same pixels: the upload is kept
    scene["file"].style["border-radius"] = "9px"
    moved = scene.render(fresh)
    assert moved.graph.images and moved.stats.images_uploaded == 0
    array[0, 0] = (1, 2, 3, 255)  # changed in place: up again, that one
    assert scene.render(fresh).stats.images_uploaded == 1


def test_the_frame_owns_its_stats(fresh, tmp_path):
    scene = Scene(40, 30, "#abc")
    scene.root.add(Layer("card", (4, 4, 20, 10), "background: #f80"))
    frame = scene.render(fresh)
    stats = frame.stats
    assert stats.plan_ms > 0 and stats.total_ms > 0 and stats.after == []
    frame.save(tmp_path / "f.png")
    assert [what for what, _, _ in stats.after] == ["un-premultiply", "encode PNG"]
    later = scene.render(fresh)
    assert later.stats is not stats and len(stats.after) == 2, "the next frame writes only its own"


@pytest.fixture
def large_frames(fresh, monkeypatch):
    """Every frame counts as large: read lazily, when asked."""
    monkeypatch.setattr(fresh.executor.reader, "large_bytes", 0)
    return fresh


def _card_scene() -> Scene:
    scene = Scene(120, 90, "#f4f1ea")
    scene.root.add(Layer("card", (10, 10, 40, 30), "background: linear-gradient(#f06, #48f); will-change: transform"))
    scene.root.add(Layer("still", (70, 50, 30, 20), "background: #0a0"))
    return scene


def test_the_next_frame_does_not_read_back_the_last(large_frames, monkeypatch):
    """A large frame not read yet keeps its pixels while later frames render — into its
    own texture (the kept frame texture, composited again where the card moved) — and
    nothing is read back until it is asked for."""
    renderer = large_frames
    scene = _card_scene()
    expected = []
    for x in (0, 30, 60):
        scene["card"].style["transform"] = f"translate({x}px, 0)"
        with Renderer() as own:
            expected.append(scene.render(own).premultiplied)
    reads = []
    real = renderer.executor.reader.read_premultiplied
    monkeypatch.setattr(renderer.executor.reader, "read_premultiplied", lambda f: reads.append(f) or real(f))
    frames = []
    for x in (0, 30, 60):
        scene["card"].style["transform"] = f"translate({x}px, 0)"
        frames.append(scene.render(renderer))
    assert reads == [] and all(READBACK_WORK not in [w for w, _, _ in f.stats.after] for f in frames)
    assert any(p.damage is not None for p in frames[1].graph.composite_passes()), "drawn into the kept frame texture"
    for frame, want in zip(frames, expected):
        assert np.array_equal(frame.premultiplied, want)
    assert len(reads) == 3 and all(READBACK_WORK in [w for w, _, _ in f.stats.after] for f in frames)


def test_a_large_frame_gives_its_texture_back_when_read_or_dropped(large_frames):
    """Under the "none" policy nothing is kept: a large frame's texture is its own, out
    of the pool while the frame may still read it."""
    renderer, scene = large_frames, _card_scene()
    pool = renderer.executor.pool
    frame = scene.render(renderer, policy="none")
    assert pool.in_use == 1 and not renderer.executor._retained
    frame.premultiplied  # noqa: B018 - its pixels come to the host: the texture goes back
    assert pool.in_use == 0
    dropped = scene.render(renderer, policy="none")
    assert pool.in_use == 1
    del dropped
    kept = scene.render(renderer, policy="none")  # the next execution takes the dropped one's back
    assert pool.in_use == 1 and kept.premultiplied.shape == (90, 120, 4)


def test_a_large_frame_outlives_its_renderer(rng):
    scene = _card_scene()
    with Renderer() as renderer:
        expected = scene.render(renderer).premultiplied
        renderer.executor.reader.large_bytes = 0
        frame = scene.render(renderer)
    assert np.array_equal(frame.premultiplied, expected), "read when the renderer was released"
    assert frame.image.shape == (90, 120, 4)
