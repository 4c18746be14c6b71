"""Info-layout comparison shared by tests/test_vector_env.py and tests/test_vector_autoreset.py:
our vector env against gymnasium's SyncVectorEnv over the single-agent env."""

import numpy as np


def info_layout(info):
    """Keys, dtypes and shapes of an info dict (nested dicts too). SingleAgentEnv's reset info
    also names each seat's pool entry ("opponents"); the vector env has one opponent kind and
    leaves it out."""
    return {
        k: info_layout(v) if isinstance(v, dict) else (np.asarray(v).dtype, np.shape(v))
        for k, v in info.items()
        if k not in ("opponents", "_opponents")
    }


def layouts_by_kind(env, act, file, steps):
    """``env``'s info layouts: at reset, then as ``file(layouts, obs, term, trunc, info)`` files
    them while ``act(obs, info)`` steps it, until three kinds are filed (or ``steps`` ran)."""
    obs, info = env.reset(seed=1)
    layouts = {"reset": info_layout(info)}
    for _ in range(steps):
        obs, _, term, trunc, info = env.step(act(obs, info))
        file(layouts, obs, term, trunc, info)
        if len(layouts) == 3:
            break
    return layouts
