"""meeple-gym: unofficial research environments for modern tabletop games.

>>> import meeple_gym as mg
>>> mg.available_games()
['century', 'endeavor', 'everdell', 'radlands']
>>> env = mg.make("century", num_players=3)          # PettingZoo AEC env
>>> batch = mg.make_batch("century", 1024, 3, seed=0) # Numba-backed batch
>>> par = mg.make_parallel("century", num_players=3)  # PettingZoo Parallel env
"""

from meeple_gym.core.errors import (
    ActionError,
    GameOverError,
    IllegalActionError,
    MeepleError,
    OpponentError,
    OptionError,
    PlayerCountError,
    SnapshotError,
    UnknownGameError,
)
from meeple_gym.core.gym_env import SingleAgentEnv, register_envs
from meeple_gym.core.parallel import make_parallel
from meeple_gym.core.registry import (
    available_games,
    get_spec,
    make,
    make_batch,
    register_game,
    unregister_game,
)

# The built-in games (each registers its Gymnasium id: gymnasium.make("meeple_gym/Century-v0")
# works after this import) and the opponents-by-name the single-agent envs use.
from meeple_gym import games, opponents  # noqa: E402, F401  isort: skip

__all__ = [
    "ActionError",
    "GameOverError",
    "IllegalActionError",
    "MeepleError",
    "OpponentError",
    "OptionError",
    "PlayerCountError",
    "SingleAgentEnv",
    "SnapshotError",
    "UnknownGameError",
    "available_games",
    "get_spec",
    "make",
    "make_batch",
    "make_parallel",
    "register_envs",
    "register_game",
    "unregister_game",
]
