"""Test-session setup shared by every test module."""

import os

# pytest-xdist runs two workers on two cores; with OpenMP's default busy-wait each worker's
# idle threads spin against the other worker. Passive waiting keeps the suite fast. It must be
# set before Numba first starts its OpenMP thread pool, hence here.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Big batches run on the requested thread count however busy the machine is, so the tests
# that compare thread counts exercise the parallel path (the default "auto" policy may fall
# back to one thread under load; tests/test_thread_policy.py tests it).
os.environ.setdefault("MEEPLE_GYM_THREADS", "batch")


def pytest_collection_modifyitems(config, items):
    # One xdist worker per game's search tests (``--dist loadgroup`` in pyproject.toml): the
    # ISMCTS search kernel of a game is the largest thing they compile, and two workers that
    # reach it at once would both compile it.
    import pytest

    for item in items:
        if item.module.__name__.rsplit(".", 1)[-1] == "test_ismcts":
            callspec = getattr(item, "callspec", None)
            game = callspec.params.get("game") if callspec else None
            item.add_marker(pytest.mark.xdist_group(f"search-{game or 'century'}"))
