"""Threads, processes and the renderer's lifecycle (issue 24, items 1-3), as the
renderer's docstring promises them: a renderer belongs to the thread that made it
(elsewhere: RendererThreadError), each thread's default renderer is its own so threads
rendering their own scenes all get exact pixels, a released renderer raises
RendererReleasedError and the default one is made anew, a child forked after a GL context
was made gets ForkedContextError at first use (never a hang), a spawned child renders,
and renderers made and dropped in a loop keep memory and GL objects flat."""

from __future__ import annotations

import gc
import multiprocessing
import threading
import time

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene, default_renderer, filters
from lamina.errors import ForkedContextError, RendererReleasedError, RendererThreadError, RendererUseError
from lamina.gpu.readback import LARGE_FRAME_BYTES

pytestmark = pytest.mark.gl


def _scene(seed: int, size: tuple[int, int] = (120, 80)) -> Scene:
    """A small page of its own per seed: cards of seeded colours, one blurred, one faded."""
    rng = np.random.default_rng(seed)
    scene = Scene(*size, "white")
    for i in range(4):
        r, g, b = (int(v) for v in rng.integers(0, 256, 3))
        css = f"background: rgb({r} {g} {b}); border-radius: {int(rng.integers(0, 8))}px"
        if i == 1:
            css += f"; filter: blur({1 + int(rng.integers(0, 3))}px)"
        if i == 2:
            css += "; opacity: 0.6"
        scene.root.add(Layer(f"c{i}", (6 + 28 * i, 10 + int(rng.integers(0, 20)), 24, 40), css))
    return scene


def _move(scene: Scene, frame: int) -> None:
    scene["c0"].style["transform"] = f"translate({frame * 3}px, {frame}px)"


def _alone(seed: int, frames: int) -> list[np.ndarray]:
    """The frames of one scene rendered alone, on a renderer of its own."""
    scene, out = _scene(seed), []
    with Renderer() as own:
        for f in range(frames):
            _move(scene, f)
            out.append(own.render(scene).image)
    return out


def test_threads_rendering_their_own_scenes_all_get_exact_pixels(gl):
    threads, frames = 4, 6
    expected = {seed: _alone(seed, frames) for seed in range(threads)}
    got: dict[int, list] = {}
    failures: list[BaseException] = []
    start = threading.Barrier(threads)

    def work(seed: int) -> None:
        try:
            scene, mine = _scene(seed), []
            start.wait()  # all at once
            for f in range(frames):
                _move(scene, f)
                mine.append(scene.render().image)  # this thread's default renderer
            got[seed] = mine
            default_renderer().release()  # (its context goes with the thread's work)
        except BaseException as exc:  # reported in the main thread
            failures.append(exc)

    pool = [threading.Thread(target=work, args=(s,)) for s in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(120)
    assert not failures, failures
    for seed in range(threads):
        for f in range(frames):
            assert np.array_equal(got[seed][f], expected[seed][f]), f"thread {seed}, frame {f}"


def test_threads_rendering_one_shared_scene_all_get_its_pixels(gl):
    # One Scene, rendered by several threads at once (each with its own default
    # renderer): planning takes turns on the scene, execution runs side by side.
    scene = _scene(11)
    expected = _alone(11, 1)[0]
    seen: list = []
    start = threading.Barrier(3)

    def work() -> None:
        try:
            start.wait()
            seen.extend(scene.render().image for _ in range(5))
            default_renderer().release()
        except BaseException as exc:
            seen.append(exc)

    pool = [threading.Thread(target=work) for _ in range(3)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(120)
    assert len(seen) == 15 and all(isinstance(i, np.ndarray) and np.array_equal(i, expected) for i in seen)


def test_filters_apply_in_a_worker_thread_gives_the_main_threads_pixels(gl):
    image = (np.random.default_rng(7).random((48, 64, 4)) * 255).astype(np.uint8)
    image[..., 3] = 255
    here = filters.apply(image, "blur(2px) saturate(150%)")
    there: list = []
    t = threading.Thread(target=lambda: there.append(filters.apply(image, "blur(2px) saturate(150%)")))
    t.start()
    t.join(60)
    assert there and np.array_equal(there[0], here) and there[0].any()


def test_a_renderer_used_from_another_thread_is_refused_and_stays_usable(gl):
    scene = _scene(3)
    with Renderer() as mine:
        first = mine.render(scene).image
        errors: list[BaseException] = []

        def misuse() -> None:
            for call in (lambda: mine.render(scene), lambda: mine.plan(scene), mine.drop_caches, mine.release):
                try:
                    call()
                except BaseException as exc:
                    errors.append(exc)

        t = threading.Thread(target=misuse, name="intruder")
        t.start()
        t.join(60)
        assert len(errors) == 4 and all(isinstance(e, RendererThreadError) for e in errors), errors
        assert "thread 'MainThread'" in str(errors[0]) and "'intruder'" in str(errors[0])
        assert np.array_equal(mine.render(scene).image, first), "still this thread's, and right"


def test_a_small_frame_is_read_in_another_thread_a_large_one_is_refused(gl):
    small = gl.render(_scene(4))
    expected = small.image.copy()
    small = gl.render(_scene(4))  # pixels not read yet
    side = int((LARGE_FRAME_BYTES // 4) ** 0.5) + 8
    large = gl.render(_scene(5, (side, side)))
    seen: list = []

    def read() -> None:
        seen.append(small.image)  # on the host already: un-premultiplied there
        try:
            large.image
        except RendererThreadError as exc:
            seen.append(exc)

    t = threading.Thread(target=read)
    t.start()
    t.join(60)
    assert np.array_equal(seen[0], expected)
    assert isinstance(seen[1], RendererThreadError)
    assert large.image.shape == (side, side, 4), "in its own thread it is read"


def test_a_released_renderer_raises_a_typed_error_and_the_default_is_made_anew():
    scene = _scene(6)
    own = Renderer()
    own.render(scene)
    own.release()
    own.release()  # twice: nothing more to do
    for call in (lambda: own.render(scene), lambda: own.plan(scene), own.drop_caches, own.warm_up):
        with pytest.raises(RendererReleasedError, match="was released"):
            call()

    def default_released() -> tuple:
        first = default_renderer()
        first.release()
        return first, default_renderer(), scene.render().image  # a new default renders

    out: list = []
    t = threading.Thread(target=lambda: out.append(default_released()))  # (not the suite's default)
    t.start()
    t.join(60)
    first, second, image = out[0]
    assert second is not first and image[40, 20, 3] == 255


def _render_in_child(queue) -> None:
    try:
        queue.put(("ok", _scene(1).render().image[30, 10].tolist()))
    except RendererUseError as exc:
        queue.put((type(exc).__name__, str(exc)))
    except BaseException as exc:  # untyped: the test fails with it
        queue.put(("untyped", repr(exc)))


@pytest.mark.slow
def test_a_forked_child_gets_a_typed_error_at_once_never_a_hang(gl):
    gl.render(_scene(1))  # this process has a GL context
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_render_in_child, args=(queue,))
    began = time.perf_counter()
    child.start()
    child.join(30)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung")
    kind, message = queue.get(timeout=5)
    assert kind == ForkedContextError.__name__, message
    assert "spawn" in message and time.perf_counter() - began < 10


@pytest.mark.slow
def test_a_spawned_child_renders_the_same_pixels(gl):
    expected = _scene(1).render().image[30, 10].tolist()
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_render_in_child, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=120) == ("ok", expected)
    finally:
        child.join(30)
        if child.is_alive():
            child.kill()


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def _live_contexts() -> int:
    import moderngl  # import here: only this count needs moderngl's types
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, moderngl.Context)
               and not isinstance(getattr(o, "mglo", None), moderngl.mgl.InvalidObject))


@pytest.mark.slow
@pytest.mark.parametrize("release", [True, False], ids=["released", "dropped"])
def test_renderers_made_and_dropped_in_a_loop_keep_memory_and_contexts_flat(release):
    scene = _scene(8)

    def cycle() -> None:
        renderer = Renderer()
        renderer.render(scene).image
        if release:
            renderer.release()

    for _ in range(20):  # warm-up: the driver's and Python's own caches
        cycle()
    gc.collect()
    Renderer().release()  # (a safe point: dropped ones made here are released)
    rss, contexts = _rss(), _live_contexts()
    for _ in range(1000):  # the soak: a headless context is used again, so each cycle is cheap
        cycle()
    gc.collect()
    Renderer().release()
    grown = _rss() - rss
    assert _live_contexts() <= contexts + 1, "a dropped renderer's context was not released"
    assert grown < 8 * 2**20, f"RSS grew {grown / 2**20:.1f} MB over 1,000 renderers (was ~6 MB each)"
