"""A damaged frame's pixels out cost its damage rect: a change made through the API
(a card's colour, a move) composites the frame only where it changed, reads back only
that rect of the premultiplied frame and un-premultiplies only that rect for
``frame.image`` (the renderer patches its own copies of last frame's pixels, and each
frame gets copies of them) - and every byte equals a render of the same scene state
from scratch, and frames handed out earlier keep their own pixels."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.scene_file import scene_from_dict

from ..alpha_reference import count_unpremultiplied, unpremultiply_ref

W, H = 480, 300


def _cards_page(rng) -> Scene:
    """Twelve cards (rounded, bordered, some half transparent, two with text) in a 4 x 3 grid."""
    scene = Scene(W, H, "#f4f1ea")
    for i in range(12):
        col, row = i % 4, i // 4
        alpha = 1.0 if i % 3 else 0.6
        style = (f"background-color: hsl({int(rng.integers(0, 360))} 60% 60% / {alpha}); border-radius: 9px; "
                 "border: 2px solid rgb(0 0 0 / 25%); color: #222; font-size: 12px; font-family: sans-serif")
        scene.root.add(Layer(f"card{i}", (10 + col * 116, 10 + row * 96, 100, 80), style,
                             text=f"Card {i}" if i % 5 == 0 else None))
    return scene


def _from_scratch(renderer, scene: Scene):
    """The same scene state, drawn by ``renderer`` with nothing kept from earlier frames."""
    renderer.drop_caches()
    return scene_from_dict(scene.to_dict()).render(renderer)


def _area(rect) -> int:
    return 0 if rect is None else rect[2] * rect[3]


def _graph_damage(graph):
    (composite,) = [p for p in graph.passes if p.target.name == graph.output.name]
    return composite.damage


def _frame_damage(frame):
    return _graph_damage(frame.graph)


def test_damaged_frames_equal_frames_from_scratch(fresh, gl, rng):
    """Seeded colour changes and moves, one size change, with frames read and not read:
    every read frame's straight and premultiplied pixels are the from-scratch bytes, and
    a damaged frame read after a read one converts and reads only its damage rect."""
    scene = _cards_page(rng)
    first = scene.render(fresh)
    assert _frame_damage(first) is None, "a first frame draws all of it"
    assert np.array_equal(first.image, _from_scratch(gl, scene).image)
    assert first.stats.composited_px == first.stats.read_back_px == first.stats.unpremultiplied_px == W * H
    kept, last_read = [(first, first.image.copy())], True
    for step in range(14):
        card = scene[f"card{int(rng.integers(0, 12))}"]
        what = "resize" if step == 8 else rng.choice(["colour", "colour", "move"])
        if what == "colour":
            card.style["background-color"] = f"hsl({int(rng.integers(0, 360))} 70% 55%)"
        elif what == "move":
            box = card.box
            card.box = (box.x + int(rng.integers(-12, 13)), box.y + int(rng.integers(-12, 13)), box.width, box.height)
        else:  # a size change: the next frame is whole again
            scene.width, scene.height = W + 40, H - 20
            scene.root.box = (0, 0, W + 40, H - 20)
        frame = scene.render(fresh)
        damage = _frame_damage(frame)
        if what == "resize":
            assert damage is None and frame.stats.read_back_px == frame.width * frame.height
        else:
            assert damage is not None and frame.stats.composited_px == _area(damage)
            if what == "colour":
                assert _area(damage) <= 104 * 84, "a card's colour damages the card's box"
            assert frame.stats.read_back_px == _area(damage), "only the damage rect was read back"
        read = rng.random() < 0.7
        if read:
            expected = _from_scratch(gl, scene)
            assert np.array_equal(frame.premultiplied, expected.premultiplied), f"step {step} ({what})"
            assert np.array_equal(frame.image, expected.image), f"step {step} ({what})"
            if damage is not None and last_read:
                assert frame.stats.unpremultiplied_px == _area(damage), "only the damage rect was converted"
            kept.append((frame, expected.image))
        last_read = read
    for i, (frame, image) in enumerate(kept):
        assert np.array_equal(frame.image, image), f"frame {i} kept its own pixels"


def test_an_earlier_frames_arrays_do_not_change(fresh):
    """Frames get copies of the renderer's pixels: writing into one frame's arrays changes
    neither a later frame's nor what the renderer builds the next frame on."""
    scene = _cards_page(np.random.default_rng(5))
    first = scene.render(fresh)
    first_image, first_premultiplied = first.image.copy(), first.premultiplied.copy()
    scene["card3"].style["background-color"] = "rgb(200 30 40)"
    second = scene.render(fresh)
    second_image = second.image.copy()
    assert not np.array_equal(second_image, first_image)
    second.image[...] = 7  # a caller scribbling over its frame
    second.premultiplied[...] = 7
    scene["card7"].style["background-color"] = "rgb(20 130 240)"
    third = scene.render(fresh)
    assert np.array_equal(third.image, unpremultiply_ref(third.premultiplied))
    assert _area(_frame_damage(third)) == third.stats.read_back_px == third.stats.unpremultiplied_px
    x, y, w, h = _frame_damage(third)
    unchanged = np.ones((H, W), bool)
    unchanged[y:y + h, x:x + w] = False
    assert np.array_equal(third.image[unchanged], second_image[unchanged]), "built on the renderer's copy"
    assert np.array_equal(first.image, first_image) and np.array_equal(first.premultiplied, first_premultiplied)


def test_a_frame_not_read_then_one_read_converts_both_damage_rects(fresh, monkeypatch):
    scene = _cards_page(np.random.default_rng(11))
    scene.render(fresh).image
    scene["card0"].style["background-color"] = "rgb(10 200 30)"
    unread = scene.render(fresh)
    scene["card11"].style["background-color"] = "rgb(200 10 30)"
    converted = count_unpremultiplied(monkeypatch, fresh)
    frame = scene.render(fresh)
    image = frame.image
    both = _area(_frame_damage(unread)) + _area(_frame_damage(frame))
    assert sum(converted) == frame.stats.unpremultiplied_px == both
    assert np.array_equal(image, unpremultiply_ref(frame.premultiplied))
    assert np.array_equal(unread.image, unpremultiply_ref(unread.premultiplied)), "its own pixels, converted whole"
    assert unread.stats.unpremultiplied_px == W * H


@pytest.mark.parametrize("policy", ["none", "all"])
def test_a_frame_not_kept_is_read_whole(fresh, policy):
    """Under policy "none" nothing is kept, the frame included: each frame is drawn,
    read and converted whole, as before; under "all" the frame is kept and a colour
    change costs the card's box."""
    scene = _cards_page(np.random.default_rng(3))
    scene.render(fresh, policy=policy).image
    scene["card4"].style["background-color"] = "rgb(90 90 250)"
    frame = scene.render(fresh, policy=policy)
    image = frame.image
    assert np.array_equal(image, unpremultiply_ref(frame.premultiplied))
    s = frame.stats
    if policy == "none":
        assert _frame_damage(frame) is None
        assert s.composited_px == s.read_back_px == s.unpremultiplied_px == W * H
    else:
        assert _frame_damage(frame) == (10, 106, 100, 80), "card 4's box"
        assert s.composited_px == s.read_back_px == s.unpremultiplied_px == 100 * 80


def test_frames_not_read_until_later_keep_their_pixels(fresh, gl, rng):
    """A damaged frame's premultiplied pixels are put together when asked for, from
    what earlier frames read: forty frames asked only at the end (past the point where
    the patches get a new base) are each the from-scratch bytes of their own state."""
    scene = _cards_page(rng)
    scene.render(fresh)
    frames, expected = [], []
    for step in range(40):
        card = scene[f"card{int(rng.integers(0, 12))}"]
        card.style["background-color"] = f"rgb({int(rng.integers(0, 256))} {int(rng.integers(0, 256))} 90 / 0.8)"
        frame = scene.render(fresh)
        assert frame.stats.read_back_px == _area(_frame_damage(frame)) <= 104 * 84, f"step {step}"
        frames.append(frame)
        expected.append(_from_scratch(gl, scene).premultiplied)
    for step in rng.permutation(len(frames)):
        assert np.array_equal(frames[step].premultiplied, expected[step]), f"frame {step}"
        assert np.array_equal(frames[step].image, unpremultiply_ref(expected[step])), f"frame {step}"


def test_a_graph_executed_outside_a_frame_leaves_the_next_frame_whole(fresh, gl):
    """A frame's graph executed again directly draws into the kept frame texture where
    the frame reader does not see it: the next frame is read whole, and right. (A
    rendered frame's graph: ``Renderer.plan`` is a look that records nothing, so its
    graph run directly would draw what the renderer does not know it keeps.)"""
    scene = _cards_page(np.random.default_rng(19))
    scene.render(fresh).image
    scene["card2"].style["background-color"] = "rgb(250 200 0)"
    graph = scene.render(fresh).graph
    assert _area(_graph_damage(graph)) > 0, "drawn into the kept frame texture"
    fresh.executor.execute(graph)
    scene["card9"].style["background-color"] = "rgb(0 120 90)"
    frame = scene.render(fresh)
    expected = _from_scratch(gl, scene)
    assert np.array_equal(frame.premultiplied, expected.premultiplied)
    assert np.array_equal(frame.image, expected.image)
    assert frame.stats.read_back_px == frame.stats.unpremultiplied_px == W * H


def test_a_large_frame_between_damaged_frames(fresh, gl, monkeypatch):
    """A frame read lazily (large) in the middle: the reader keeps nothing of it on the
    host, so the small frame after it is read whole; every frame has its own bytes."""
    scene = _cards_page(np.random.default_rng(23))
    scene.render(fresh).image
    frames, expected = [], []
    for step, large in enumerate([False, True, False, False]):
        monkeypatch.setattr(fresh.executor.reader, "large_bytes", 0 if large else W * H * 4)
        scene[f"card{step + 1}"].style["background-color"] = f"rgb({40 * step} 90 200)"
        frames.append(scene.render(fresh))
        expected.append(_from_scratch(gl, scene))
    after_large, last = frames[2].stats, frames[3].stats
    assert after_large.read_back_px == W * H, "nothing kept of the large frame's pixels on the host"
    assert last.read_back_px == _area(_frame_damage(frames[3])), "then patches again"
    for step in (3, 1, 0, 2):
        assert np.array_equal(frames[step].premultiplied, expected[step].premultiplied), f"frame {step}"
        assert np.array_equal(frames[step].image, expected[step].image), f"frame {step}"
