"""meeple-gym: unofficial research environments for modern tabletop games.

>>> import envs
>>> envs.available_games()
['century', 'endeavor', 'everdell', 'radlands']
>>> env = envs.make("century", num_players=3)          # PettingZoo AEC env
>>> batch = envs.make_batch("century", 1024, 3, seed=0) # Numba-backed batch
"""

from envs.core.errors import (
    ActionError,
    GameOverError,
    IllegalActionError,
    MeepleError,
    OptionError,
    PlayerCountError,
    SnapshotError,
    UnknownGameError,
)
from envs.core.gym_env import SingleAgentEnv, register_envs
from envs.core.registry import available_games, get_spec, make, make_batch

register_envs()  # gymnasium.make("meeple_gym/Century-v0", ...) works after this import

__all__ = [
    "ActionError",
    "GameOverError",
    "IllegalActionError",
    "MeepleError",
    "OptionError",
    "PlayerCountError",
    "SingleAgentEnv",
    "SnapshotError",
    "UnknownGameError",
    "available_games",
    "get_spec",
    "make",
    "make_batch",
    "register_envs",
]
