"""Test-session setup shared by every test module."""

import os

# pytest-xdist runs two workers on two cores; with OpenMP's default busy-wait each worker's
# idle threads spin against the other worker. Passive waiting keeps the suite fast. It must be
# set before Numba first starts its OpenMP thread pool, hence here.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
