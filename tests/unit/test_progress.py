"""lamina.progress: long work reports steps to whoever listens; nothing is shown before
the work has run ``after_s`` seconds, and then at most a line per ``every_s``."""

from __future__ import annotations

from lamina import progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_quiet_first_then_throttled_and_the_last_step_always():
    clock, lines = Clock(), []
    with progress.report(lines.append, after_s=2.0, every_s=0.5, clock=clock):
        for i in range(1, 11):
            clock.now += 0.3
            progress.step("rendering: passes", i, 10)
    # Steps at 0.3 s intervals: 2.1 s is the first past 2 s, then every 0.6 s, then the last.
    assert lines == ["rendering: passes: 7/10 (70 %), 2.1 s", "rendering: passes: 9/10 (90 %), 2.7 s",
                     "rendering: passes: 10/10 (100 %), 3.0 s"]


def test_quick_work_says_nothing_and_steps_without_a_listener_are_free():
    clock, lines = Clock(), []
    progress.step("anything", 1, 2)  # nobody listens: nothing happens
    with progress.report(lines.append, clock=clock) as p:
        clock.now += 1.0
        progress.step("writing PNG", 5, 5)
    assert lines == [] and p.lines == 0
    progress.step("after the block", 1, 1)
    assert lines == []


def test_nested_reports_send_to_the_innermost():
    outer, inner, clock = [], [], Clock()
    with progress.report(outer.append, after_s=0, every_s=0, clock=clock):
        with progress.report(inner.append, after_s=0, every_s=0, clock=clock):
            progress.step("a", 1, 1)
        progress.step("b", 1, 1)
    assert [line.split(":")[0] for line in inner] == ["a"] and [line.split(":")[0] for line in outer] == ["b"]
