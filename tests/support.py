"""Small helpers shared by tests that run subprocesses, load example scripts or start Ray."""

import importlib.util
import json
import subprocess
import sys

import pytest


def run_json(args, env, timeout=900):
    """Run ``python *args`` in ``env``, check that it succeeded, and return the JSON report on
    the last line of its output with the finished process (for its stderr)."""
    result = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1]), result


def load_script(name, path):
    """Import a script (examples/*.py) as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def local_ray(on_start=None):
    """A fixture body: Ray on 2 local CPUs unless a session runs already (then that one is
    used and left running); ``on_start()`` runs once Ray is up."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    if on_start is not None:
        on_start()
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
