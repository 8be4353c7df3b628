"""Hypothesis settings for the fuzz suite: a fixed seed on CI (``CI`` set: the same
cases every run, so a failure is a change in Lamina, not luck), a fresh one locally.
A failing case prints its input and ``@reproduce_failure``; ``LAMINA_FUZZ_SEED=N``
replays a local run's seed (pytest prints it as "hypothesis-seed")."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=5000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
               print_blob=True)
settings.register_profile("ci", derandomize=True, database=None, **_COMMON)
settings.register_profile("dev", **_COMMON)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    seed = os.environ.get("LAMINA_FUZZ_SEED")
    if seed and not os.environ.get("CI"):
        config.option.hypothesis_seed = int(seed)
