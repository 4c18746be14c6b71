"""The contract between a game module and the shared machinery (AEC env, batch, CLI).

Every game provides one ``GameSpec``. Its state is a NumPy structured dtype; a batch is a
1-D array of it. The dtype must have the fields ``num_players``, ``current_player``,
``terminated``, ``truncated``, ``winner``, ``step_count`` and ``score``.

Kernel signatures (all Numba dispatchers, ``g`` is a game index in ``states``):

- ``init_game(states, g, num_players, key, options)``: fresh deal from RNG word ``key``
  (uint64); ``options`` is the int64 that ``encode_options(options, num_players)`` packs the
  game options into.
- ``legal_mask_into(states, g, mask)``: int8 0/1 legal actions of the player to act.
- ``apply_action(states, g, action)``: apply a legal action.
- ``rewards_into(record, out)``: terminal rewards (float32, length max_players).
- ``reset_batch(states, num_players, seed, first_index, episodes, options)`` and
  ``legal_masks_batch(states, masks)``.
- ``step_batch(states, actions, masks, rewards, terminated, truncated, num_players, seed,
  episodes, final_scores, final_lengths, final_states, options, seats, next_seats, words)``:
  step, keep the terminal record of a finished game in ``final_states``, auto-reset it,
  refresh masks; a game whose action is negative is skipped. ``seats`` (int64, -1 = off)
  puts a uniform-random opponent in game ``i`` (the vector env's): after the action (if any),
  while the player to act is not seat ``seats[i]``, it plays ``random_legal(masks[i], words,
  i)`` (``words`` uint64, advanced in place). After an end the learner sits in
  ``next_seats[i]``; ``rewards``/``terminated``/``truncated`` and the ``final_*`` arrays keep
  that first end. If the next game ends too before the learner acts, the game is re-dealt
  and left for the caller (who knows the seat after it). With every ``seats[i]`` = -1 this is
  the plain batch step. ``seats[i] = ALL_SEATS_RANDOM`` (meeple_gym.core.sampling) plays
  every seat at random until game ``i`` ends and leaves the finished game in place: the
  in-kernel random rollout (``meeple_gym.core.batch.play_random_games``) is this, so each
  game's interpreter is compiled into one parallel kernel, not two.
  The four games build ``reset_batch``, ``legal_masks_batch`` and ``step_batch`` from their
  own kernels with ``meeple_gym.core.stepping.batch_kernels``: one copy of each loop.
- ``encode_into(states, g, player, out)`` and ``encode_batch(states, players, out)``: the
  float32 observation of ``player`` (from ``encoders/<game>``).

Python helpers: ``action_to_string(states, g, action)``, ``render(states, g)``,
``to_dict(states, g)`` and ``from_dict(snapshot) -> states`` (a batch of one).

Determinization (optional). A game may provide ``envs/<game>/determinize.py`` and
pass it as ``GameSpec.from_modules(..., determinize=module)``, which fills the spec's
``determinize_into`` and ``determinize_batch`` (both None for a game without one):

- ``determinize_into(states, g, player, key)``: a serial kernel (``meeple_gym.core.jit.kernel``)
  that resamples, in place, everything in game ``g`` that seat ``player`` may not know (deck
  orders, opposing hands, face-down or hidden picks, hidden plans, ...), uniformly over the
  arrangements consistent with what ``player`` knows, and replaces the record's RNG word (the
  future chance events are unknown too). It keeps the public history and ``player``'s own private
  information, preserves every card multiset, leaves ``player``'s observation
  (``encode_into``) unchanged, and leaves a state the snapshot gate accepts (the pending
  decision recomputed where it depends on resampled cards). ``key`` is a uint64 RNG word
  (``meeple_gym.core.rng``, e.g. ``derive_key(seed, index, STREAM_DETERMINIZE)``); draw from it
  with the helpers there (``shuffle``, ``randint``, ``next_u64``) through a local
  ``words = np.zeros(1, np.uint64); words[0] = key``.
- ``determinize_batch(states, players, seed)``: a parallel kernel
  (``meeple_gym.core.jit.parallel_kernel``) with a ``prange`` over rows; row ``i`` is
  ``determinize_into(states, i, players[i], derive_key(seed, i, STREAM_DETERMINIZE))``, so
  results depend only on (seed, row), never on the thread count.

The public forms are ``raw_env.determinize(player, seed)`` (envs/core/aec.py: a determinized
clone, key ``derive_key(seed, 0, STREAM_DETERMINIZE)``) and ``BatchEnv.determinize(players,
seed)`` (envs/core/batch.py: a determinized copy of the batch's records).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeple_gym.core.errors import OptionError, PlayerCountError
from meeple_gym.core.options import is_int, short_repr

# The keyword every entry point accepts next to the game options: which observation to encode.
OBSERVATION_KEYWORD = "observation"

REQUIRED_FIELDS = (
    "num_players",
    "current_player",
    "terminated",
    "truncated",
    "winner",
    "step_count",
    "score",
)


def default_title(name: str) -> str:
    return name.capitalize()


def gym_id(title: str) -> str:
    return f"meeple_gym/{title}-v0"


@dataclass(frozen=True)
class GameSpec:
    name: str
    min_players: int
    max_players: int
    num_actions: int
    obs_size: int
    obs_high: Any  # upper bounds of the observation (scalar or array); lower bound is 0
    state_dtype: np.dtype
    init_game: Callable
    legal_mask_into: Callable
    apply_action: Callable
    rewards_into: Callable
    reset_batch: Callable
    legal_masks_batch: Callable
    step_batch: Callable
    encode_into: Callable
    encode_batch: Callable
    action_to_string: Callable[[np.ndarray, int, int], str]
    render: Callable[[np.ndarray, int], str]
    to_dict: Callable[[np.ndarray, int], dict]
    from_dict: Callable[[dict], np.ndarray]
    # Option name -> default value; ``make(..., **options)`` accepts exactly these.
    options: dict[str, Any] = field(default_factory=dict)
    # Checks the full option dict for a player count and packs it into the int64 the kernels
    # take; raises OptionError naming a bad value. None: the game has no options (always 0).
    encode_options: Callable[[dict, int], int] | None = None
    docs: str = ""
    # Seats at the table for a player count when it differs (Everdell solo: Rugwort sits too).
    seats_for: Callable[[int], int] | None = None
    # Determinization kernels (see the module docs); None: the game has none.
    determinize_into: Callable | None = None
    determinize_batch: Callable | None = None
    # Steps after which a game is truncated (``rules.STEP_CAP``); 0: not given.
    step_cap: int = 0
    # ---- Facts the layers above core read (FACT_FIELDS). Paths are "module:attr" strings so
    # that core never imports a baseline, an encoder or another game.
    # CamelCase name: the Gymnasium id ``meeple_gym/<title>-v0`` and OpenSpiel's ``<title>Game``;
    # "" means ``name.capitalize()``.
    title: str = ""
    # "module:Class" of the rule-of-thumb agent (``opponent="heuristic"``); None: none.
    heuristic: str | None = None
    # ISMCTS (baselines/ismcts.py): default settings ``sims``, ``c``, ``prior``, ``epsilon``,
    # ``depth``, ``scale``; ``scores``: "module:function", the plain-Python template of the
    # current scores ``(states, g, out) -> seats``; ``score_kernels``: global name ->
    # "module:attr" of the kernels that template calls; ``rollout``: "module:attr" of the
    # heuristic's ``heuristic_action`` kernel; ``rollout_observation`` (optional): the
    # observation that kernel reads (a key of ``observations``; default "full");
    # ``rollout_view`` (optional): "module:attr" of ``view_into``, ``new_view`` and ``decide``,
    # play-outs on the heuristic's decoded view filled from the record (ismcts.rollout_hooks).
    # None: no search for this game.
    search: dict | None = None
    # The learned agent's trainer (baselines/net_train.py): its settings for this game, the
    # ones that made the weights shipped for ``net`` (``rounds``, ``sims``, ``round_games``,
    # ``imitation_games``, ``hidden``, ...). None: the trainer's general defaults.
    training: dict | None = None
    # ``(num_players, seed, index) -> game``: the slow reference rules (``legal_actions()``,
    # ``step(action)``, ``is_over``) that ``meeple bench`` times; None: none.
    reference: Callable | None = None
    # ``meeple bench`` targets: measure name -> value (envs/bench.py ``_targets``).
    bench_targets: dict = field(default_factory=dict)
    # Terminal rewards: the n-1 losers share -1 (True) or each loser gets -1 (False);
    # OpenSpiel's ``min_utility`` reads it.
    losers_share_loss: bool = False
    # Pictures (docs/pictures.md): ``draw(states, g, viewer) -> str``, the SVG of game ``g``
    # as seat ``viewer`` sees it (None: the public view; hidden information face down), and
    # ``scores_now(states, g) -> list[int]``, each seat's score so far (for charts). None:
    # the game has no pictures (``render_mode="rgb_array"`` is refused).
    draw: Callable | None = None
    scores_now: Callable | None = None
    # Alternative observations (the ``observation=<name>`` keyword of ``make``, ``make_batch``
    # and the Gymnasium envs): name -> "module:attr" of a namespace with ``OBS_SIZE``,
    # ``OBS_HIGH``, ``encode_into`` and ``encode_batch`` (same signatures as above), imported
    # only when asked for. "full" (the fields above) is every game's default.
    observations: dict = field(default_factory=dict)
    # The observation this spec encodes ("full", or a key of ``observations``).
    observation: str = "full"

    @classmethod
    def from_modules(
        cls,
        name: str,
        rules,
        encoder,
        snapshot,
        *,
        min_players: int,
        max_players: int,
        options: dict | None = None,
        encode_options: Callable[[dict, int], int] | None = None,
        docs: str = "",
        seats_for: Callable[[int], int] | None = None,
        determinize=None,
        drawing=None,
        **facts,
    ) -> GameSpec:
        """The spec of a game laid out the usual way: its kernels in ``rules``, observation in
        ``encoder``, snapshots and text in ``snapshot``, under the names this contract uses
        (and ``rules.STEP_CAP``, if there, as ``step_cap``);
        ``determinize`` is the game's determinization module and ``drawing`` its picture module
        (``draw`` and ``scores``), if it has them; ``facts`` are the
        remaining fields (``title``, ``heuristic``, ``search``, ...)."""
        return cls(
            name=name,
            min_players=min_players,
            max_players=max_players,
            num_actions=rules.NUM_ACTIONS,
            obs_size=encoder.OBS_SIZE,
            obs_high=encoder.OBS_HIGH,
            state_dtype=rules.STATE_DTYPE,
            step_cap=int(getattr(rules, "STEP_CAP", 0)),
            init_game=rules.init_game,
            legal_mask_into=rules.legal_mask_into,
            apply_action=rules.apply_action,
            rewards_into=rules.rewards_into,
            reset_batch=rules.reset_batch,
            legal_masks_batch=rules.legal_masks_batch,
            step_batch=rules.step_batch,
            encode_into=encoder.encode_into,
            encode_batch=encoder.encode_batch,
            action_to_string=snapshot.action_to_string,
            render=snapshot.render,
            to_dict=snapshot.to_dict,
            from_dict=snapshot.from_dict,
            options=dict(options or {}),
            encode_options=encode_options,
            docs=docs,
            seats_for=seats_for,
            determinize_into=None if determinize is None else determinize.determinize_into,
            determinize_batch=None if determinize is None else determinize.determinize_batch,
            draw=None if drawing is None else drawing.draw,
            scores_now=None if drawing is None else drawing.scores,
            **facts,
        )

    def __post_init__(self):
        missing = [f for f in REQUIRED_FIELDS if f not in self.state_dtype.names]
        if missing:
            raise TypeError(f"{self.name}: state dtype lacks fields {missing}")
        if not self.title:
            object.__setattr__(self, "title", default_title(self.name))
        if self.observation == "full":
            # One spec per observation, shared by all (identity stays stable for caches).
            object.__setattr__(self, "_variants", {"full": self})

    def observation_names(self) -> tuple[str, ...]:
        return ("full", *self.observations)

    def check_observation(self, name) -> str:
        """``name`` if this game has that observation (None: "full"), else ``OptionError``."""
        if name is None:
            return "full"
        if not isinstance(name, str) or name not in self.observation_names():
            raise OptionError(
                f"{self.name}: observation must be one of {self.observation_names()}, "
                f"got {short_repr(name)}"
            )
        return name

    def with_observation(self, name=None) -> GameSpec:
        """This game's spec encoding observation ``name`` (None: "full")."""
        name = self.check_observation(name)
        variants = self._variants
        if name not in variants:
            module, attr = self.observations[name].split(":")
            enc = getattr(importlib.import_module(module), attr)
            variant = dataclasses.replace(
                self,
                obs_size=int(enc.OBS_SIZE),
                obs_high=enc.OBS_HIGH,
                encode_into=enc.encode_into,
                encode_batch=enc.encode_batch,
                observation=name,
            )
            object.__setattr__(variant, "_variants", variants)
            variants[name] = variant
        return variants[name]

    @property
    def gym_id(self) -> str:
        """The Gymnasium id of the single-agent env (registered with the game)."""
        return gym_id(self.title)

    def options_code(self, options: dict, num_players: int) -> np.int64:
        if self.encode_options is None:
            return np.int64(0)
        # ``observation`` picks the encoder, not the game: the kernels never see it.
        options = {k: v for k, v in options.items() if k != OBSERVATION_KEYWORD}
        return np.int64(self.encode_options(options, num_players))

    def seats(self, num_players: int) -> int:
        """Score columns of a game: the players, plus an automated opponent if there is one."""
        return num_players if self.seats_for is None else self.seats_for(num_players)

    def check_num_players(self, num_players) -> int:
        """``num_players`` as an int, or ``PlayerCountError``."""
        if not is_int(num_players):
            raise PlayerCountError(
                f"{self.name}: num_players must be an int, got {type(num_players).__name__} "
                f"{short_repr(num_players)}"
            )
        num_players = int(num_players)
        if num_players not in self.player_counts():
            raise PlayerCountError(
                f"{self.name} supports {self.min_players} to {self.max_players} players, "
                f"not {num_players}"
            )
        return num_players

    def check_options(self, options: dict, num_players: int) -> dict:
        """The defaults updated with ``options``, checked; ``OptionError`` names a bad one."""
        self.check_observation(options.get(OBSERVATION_KEYWORD))
        unknown = sorted(set(options) - set(self.options) - {OBSERVATION_KEYWORD})
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            # Worded as Python words it: libraries retry without a keyword whose TypeError says
            # "unexpected keyword argument '<name>'" (TorchRL's GymEnv with frameskip).
            unexpected = ", ".join(f"unexpected keyword argument {name!r}" for name in unknown)
            raise OptionError(f"{self.name}: {unexpected} (known options: {known})")
        merged = dict(self.options)
        merged.update(options)
        self.options_code(merged, num_players)  # validates the values (OptionError names one)
        return merged

    def load(self, snapshot) -> np.ndarray:
        """``from_dict`` behind the shared checks (``meeple_gym.core.gate.load_snapshot``)."""
        from meeple_gym.core.gate import load_snapshot

        return load_snapshot(self, snapshot)

    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    @property
    def default_players(self) -> int:
        """The player count every entry point uses when none is given (``make``,
        ``make_batch``, the Gymnasium ids, the CLI): two where the game allows it, so that a
        solo mode (Everdell against Rugwort) is asked for, never stumbled into."""
        return max(self.min_players, 2) if self.max_players >= 2 else self.min_players
