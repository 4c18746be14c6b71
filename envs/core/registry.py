"""Game registry: ``register_game``, ``available_games``, ``get_spec``, ``make`` and
``make_batch``.

The registry starts empty and names no game: each game registers itself with one
``register_game`` call (the built-in games in ``meeple_gym.games``, a game of yours in its own
package, e.g. examples/minimal_game). A game registers by module path so that
``import meeple_gym`` stays cheap: its kernels load (from Numba's cache) only when that game is
first made. Registering also registers its Gymnasium id, ``meeple_gym/<Title>-v0``.
"""

from __future__ import annotations

import copyreg
import importlib
from collections.abc import Iterator, Mapping

from meeple_gym.core.errors import UnknownGameError
from meeple_gym.core.game import GameSpec, default_title, gym_id

# name -> module exposing ``SPEC`` (a GameSpec), or the GameSpec itself
_REGISTRY: dict[str, str | GameSpec] = {}
_TITLES: dict[str, str] = {}  # name -> title, known before the spec loads (for the gym id)
_LOADED: dict[str, GameSpec] = {}
_GYM_ENTRY = "meeple_gym.core.gym_env:SingleAgentEnv"
_GYM_VECTOR_ENTRY = "meeple_gym.core.vector_env:BatchVectorEnv"


def register_game(name: str, spec: str | GameSpec, *, title: str | None = None) -> None:
    """Register game ``name``: ``spec`` is its ``GameSpec`` or the path of a module with a
    ``SPEC`` attribute (loaded at the first ``get_spec``). ``title`` (CamelCase, default
    ``name.capitalize()``) names the Gymnasium id; a spec object brings its own. Registering
    the same name again with the same source does nothing; another source raises."""
    if not (isinstance(name, str) and name.isidentifier()):
        raise ValueError(f"a game name must be an identifier, got {name!r}")
    if isinstance(spec, GameSpec):
        if spec.name != name:
            raise ValueError(f"spec {spec.name!r} registered under another name, {name!r}")
        title = spec.title
    elif not isinstance(spec, str):
        raise TypeError(f"spec must be a GameSpec or a module path, got {type(spec).__name__}")
    title = title or default_title(name)
    if name in _REGISTRY:
        if _REGISTRY[name] is spec or _REGISTRY[name] == spec:
            return
        raise ValueError(f"game {name!r} is already registered (from {_REGISTRY[name]!r})")
    _REGISTRY[name] = spec
    _TITLES[name] = title
    if isinstance(spec, GameSpec):
        _LOADED[name] = spec
    _register_gym_id(name)


def unregister_game(name: str) -> None:
    """Forget game ``name`` and its Gymnasium id (for tests and plugin reloads)."""
    import gymnasium

    if name not in _REGISTRY:
        raise UnknownGameError(f"game {name!r} is not registered")
    gymnasium.registry.pop(gym_id(_TITLES[name]), None)
    del _REGISTRY[name], _TITLES[name]
    _LOADED.pop(name, None)


def _register_gym_id(name: str) -> None:
    """``meeple_gym/<Title>-v0`` for game ``name`` (idempotent). The ids end an episode as a
    loss on an illegal action (``illegal_action="lose"``), as PettingZoo's classic games do,
    so that Gymnasium's and SB3's ``check_env``, which step actions sampled without the
    mask, pass on defaults; ``illegal_action="raise"`` is there for debugging. The entry
    points are strings: nothing loads until ``gymnasium.make``."""
    import gymnasium

    env_id = gym_id(_TITLES[name])
    if env_id in gymnasium.registry:
        return
    gymnasium.register(
        id=env_id,
        entry_point=_GYM_ENTRY,
        vector_entry_point=_GYM_VECTOR_ENTRY,
        kwargs={"game": name, "illegal_action": "lose"},
    )


def register_gym_ids() -> None:
    """Register the Gymnasium id of every registered game (idempotent)."""
    for name in _REGISTRY:
        _register_gym_id(name)


class _GymIds(Mapping):
    """game -> Gymnasium id of every registered game, read live from the registry."""

    def __getitem__(self, name: str) -> str:
        return gym_id(_TITLES[name])

    def __iter__(self) -> Iterator[str]:
        return iter(list(_REGISTRY))

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __repr__(self) -> str:
        return repr(dict(self))


GAME_IDS: Mapping[str, str] = _GymIds()


def available_games() -> list[str]:
    """Names of the registered games, sorted."""
    return sorted(_REGISTRY)


def get_spec(name: str, observation: str | None = None) -> GameSpec:
    """The spec of game ``name``; ``observation`` (e.g. "compact") picks one of its other
    observations (``GameSpec.observations``), None the full one."""
    if not isinstance(name, str):
        raise UnknownGameError(f"game name must be a str, got {type(name).__name__}")
    if name not in _REGISTRY:
        raise UnknownGameError(
            f"unknown game {name!r}; available games: {', '.join(available_games())}"
        )
    if name not in _LOADED:
        spec = importlib.import_module(_REGISTRY[name]).SPEC
        if spec.name != name or spec.title != _TITLES[name]:
            raise ValueError(
                f"{_REGISTRY[name]}.SPEC is {spec.name!r} titled {spec.title!r}; registered "
                f"as {name!r} titled {_TITLES[name]!r}"
            )
        _LOADED[name] = spec
    if observation is not None:
        return _LOADED[name].with_observation(observation)
    return _LOADED[name]


def _reduce_spec(spec: GameSpec):
    # Pickle by name: the kernels are module-level dispatchers, found again on load.
    if spec.observation != "full":
        return (get_spec, (spec.name, spec.observation))
    return (get_spec, (spec.name,))


copyreg.pickle(GameSpec, _reduce_spec)


def check_num_players(spec: GameSpec, num_players) -> int:
    return spec.check_num_players(num_players)


def check_options(spec: GameSpec, options: dict, num_players: int) -> dict:
    return spec.check_options(options, num_players)


def make(name: str, num_players: int | None = None, render_mode: str | None = None, **options):
    """A PettingZoo AEC env for ``name`` (wrapped like PettingZoo's classic envs).
    ``illegal_action`` and ``observation_mode`` configure the env (``meeple_gym.core.aec``);
    ``observation`` picks the observation ("full", the default, or one the game adds, e.g.
    Everdell's "compact"); every other keyword is a game option."""
    from meeple_gym.core.aec import env as make_env
    from meeple_gym.core.aec import split_env_keywords

    spec = get_spec(name)
    if num_players is None:
        num_players = spec.default_players
    num_players = spec.check_num_players(num_players)
    env_kwargs = split_env_keywords(options)
    return make_env(
        spec,
        num_players=num_players,
        render_mode=render_mode,
        **env_kwargs,
        **spec.check_options(options, num_players),
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
    per step; the next step overwrites them) instead of fresh arrays. ``observation`` picks
    the observation as for ``make``."""
    from meeple_gym.core.batch import BatchEnv

    spec = get_spec(name)
    if num_players is None:
        num_players = spec.default_players
    num_players = spec.check_num_players(num_players)
    options = spec.check_options(options, num_players)
    spec = spec.with_observation(options.get("observation"))
    return BatchEnv(spec, batch_size, num_players, seed, copy, **options)
