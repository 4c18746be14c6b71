"""Game registry: ``available_games``, ``make`` and ``make_batch``.

Games register by module path so that ``import meeple_gym`` stays cheap: a game's kernels load
(from Numba's cache) only when that game is first made.
"""

from __future__ import annotations

import importlib

from meeple_gym.core.errors import OptionError, PlayerCountError, UnknownGameError
from meeple_gym.core.game import GameSpec
from meeple_gym.core.options import is_int, short_repr

# name -> module exposing ``SPEC`` (a GameSpec)
_REGISTRY: dict[str, str] = {
    "century": "meeple_gym.century.spec",
    "endeavor": "meeple_gym.endeavor.spec",
    "everdell": "meeple_gym.everdell.spec",
    "radlands": "meeple_gym.radlands.spec",
}
_LOADED: dict[str, GameSpec] = {}


def available_games() -> list[str]:
    """Names of the registered games, sorted."""
    return sorted(_REGISTRY)


def get_spec(name: str) -> GameSpec:
    if not isinstance(name, str):
        raise UnknownGameError(f"game name must be a str, got {type(name).__name__}")
    if name not in _REGISTRY:
        raise UnknownGameError(
            f"unknown game {name!r}; available games: {', '.join(available_games())}"
        )
    if name not in _LOADED:
        _LOADED[name] = importlib.import_module(_REGISTRY[name]).SPEC
    return _LOADED[name]


def check_num_players(spec: GameSpec, num_players) -> int:
    if not is_int(num_players):
        raise PlayerCountError(
            f"{spec.name}: num_players must be an int, got {type(num_players).__name__} "
            f"{short_repr(num_players)}"
        )
    num_players = int(num_players)
    if num_players not in spec.player_counts():
        raise PlayerCountError(
            f"{spec.name} supports {spec.min_players} to {spec.max_players} players, "
            f"not {num_players}"
        )
    return num_players


def check_options(spec: GameSpec, options: dict, num_players: int) -> dict:
    unknown = sorted(set(options) - set(spec.options))
    if unknown:
        known = ", ".join(sorted(spec.options)) or "none"
        # Worded as Python words it: libraries retry without a keyword whose TypeError says
        # "unexpected keyword argument '<name>'" (TorchRL's GymEnv with frameskip).
        unexpected = ", ".join(f"unexpected keyword argument {name!r}" for name in unknown)
        raise OptionError(f"{spec.name}: {unexpected} (known options: {known})")
    merged = dict(spec.options)
    merged.update(options)
    spec.options_code(merged, num_players)  # validates the values (OptionError names one)
    return merged


def make(name: str, num_players: int | None = None, render_mode: str | None = None, **options):
    """A PettingZoo AEC env for ``name`` (wrapped like PettingZoo's classic envs).
    ``illegal_action`` and ``observation_mode`` configure the env (``meeple_gym.core.aec``);
    every other keyword is a game option."""
    from meeple_gym.core.aec import env as make_env
    from meeple_gym.core.aec import split_env_keywords

    spec = get_spec(name)
    if num_players is None:
        num_players = spec.default_players
    num_players = check_num_players(spec, num_players)
    env_kwargs = split_env_keywords(options)
    return make_env(
        spec,
        num_players=num_players,
        render_mode=render_mode,
        **env_kwargs,
        **check_options(spec, options, num_players),
    )


def make_batch(
    name: str,
    batch_size: int,
    num_players: int | None = None,
    seed: int = 0,
    copy: bool = True,
    **options,
):
    """A batch of ``batch_size`` games stepped together in Numba (see ``meeple_gym.core.batch``).

    ``copy=False``: ``reset``/``step`` return read-only views of the batch's buffers (no copy
    per step; the next step overwrites them) instead of fresh arrays."""
    from meeple_gym.core.batch import BatchEnv

    spec = get_spec(name)
    if num_players is None:
        num_players = spec.default_players
    num_players = check_num_players(spec, num_players)
    return BatchEnv(
        spec, batch_size, num_players, seed, copy, **check_options(spec, options, num_players)
    )
