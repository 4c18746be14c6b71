"""meeple-gym's games as OpenSpiel (``pyspiel``) Python games.

>>> import pyspiel
>>> import meeple_gym.openspiel  # registers every registered game
>>> game = pyspiel.load_game("python_meeple_century(players=3,seed=7)")
>>> state = game.new_initial_state()
>>> state.apply_action(state.legal_actions()[0])

Games and parameters
--------------------
``python_meeple_<name>`` for every registered game: ``python_meeple_century``,
``python_meeple_radlands``, ``python_meeple_everdell`` and ``python_meeple_endeavor``, as
classes ``<GameSpec.title>Game`` here (``CenturyGame``, ...); a game registered after this
import joins with ``register_games()``. ``players`` (not for Radlands, always 2) defaults to
``meeple_gym.make``'s default (``GameSpec.default_players``: 2 in every game). Everdell's solo
game is ``players=1``: Rugwort, the automated opponent, plays inside the environment and is
never an OpenSpiel player.

``seed`` (default -1: a fresh random seed per loaded game; at most 2**31 - 1, OpenSpiel's int)
seeds the deals. A game's states take their deals in turn from the keys ``game_key(seed, 0, 0)``,
``game_key(seed, 0, 1)``, ... (``meeple_gym.core.rng``), so ``seed=s`` first deals what
``env.reset(seed=s)`` deals. A state takes its key when first used (read, observed, played,
cloned or serialized); clones and deserialized states copy their source's record and take none,
so searching does not move the sequence (each tensor-shape query takes one: pyspiel observes a
fresh state for it). The game options of ``meeple_gym.make`` are parameters too, with the same
names and defaults; Everdell's ``rugwort_year``, whose default is ``None``, is an int parameter
whose default 0 stands for ``None``.

Design
------
- Chance is ``SAMPLED_STOCHASTIC``: the deal, the decks and every later random event come from
  the RNG word in the game's state record, as everywhere in meeple-gym, so there are no chance
  nodes, and a clone copies the word and replays the same future. OpenSpiel's ``MCTSBot`` thus
  searches the true record, hidden cards and future draws included: a perfect-information
  baseline. ``ISMCTSBot`` is the fair one: it searches worlds drawn by
  ``resample_from_infostate``.
- Observation tensor: the AEC env's observation vector of the observing seat, from the game's
  encoder (``encoders/<game>.py``), which holds only what that seat may know (the public board,
  its own private cards, counts of hidden ones). The information-state tensor is the same
  vector, which is what the project's agents see: the encoders summarise what a seat knows in
  the present position. A history of the seats' actions is not added: some actions pick a
  hidden card, so their numbers could leak, and the algorithms that need exact perfect recall
  (tabular CFR and its kin) cannot handle game trees of this size anyway.
- Strings: the observation string is the seat, the seat to act, that seat's legal actions when
  the observer is to act (a player knows its own options; it also keeps an ISMCTS node's action
  set the same in every world) and the vector's nonzero entries as ``index:value``. The
  information-state string adds the number of decisions taken so far (``step_count``, which
  every player sees go by), so an information state never repeats within a game: Radlands can
  return to a position (junk a Water Silo, take it back), and ISMCTS keyed on a repeating string
  would descend that loop until Python's recursion limit. Nothing else of the record is read,
  so states that differ only in what the observer cannot see give it the same tensors and
  strings (tests/test_openspiel.py checks this with the game's determinization).
- ``resample_from_infostate(player, sampler)``: a clone whose hidden information is redrawn for
  ``player`` by the game's determinization kernel (``envs/<game>/determinize.py``), the one
  ``BatchEnv.determinize`` and the project's ISMCTS use: every arrangement of the unseen cards
  consistent with what ``player`` knows is equally likely, and the RNG word is redrawn, so
  future draws are unknown too. The 64-bit key comes from two draws of ``sampler`` (a
  ``pyspiel.UniformProbabilitySampler`` or any callable giving floats in [0, 1));
  ``make_resampler(seed)`` gives ``ISMCTSBot.set_resampler`` a seeded one, for repeatable
  searches.
- Serialization goes through the project's snapshots: ``state.serialize()`` pickles the state's
  one attribute, the record, which pickles as its ``to_dict`` JSON and loads back through
  ``from_dict`` behind the snapshot checks (``GameSpec.load``); ``game.deserialize_state`` and
  ``pickle`` round-trip exactly, RNG word included. What OpenSpiel 2.0 cannot do for any
  sampled-stochastic Python game is serialize the *game* with its RNG state (``GetRNGState`` is
  C++-only), which ``serialize_game_and_state`` and ``random_sim_test(serialize=True)`` need;
  run the latter with ``serialize=False`` (tests/test_openspiel.py does the state-level checks
  of ``serialize=True`` itself). ``to_dict(state)`` and ``game.new_initial_state(snapshot)``
  move positions between OpenSpiel and the AEC env.
- Returns are the game's terminal rewards (``rules.rewards_into``: +1 to the winner and shared
  negatives, 0 to all on a truncated or drawn game); ``max_game_length`` is the step cap
  (``GameSpec.step_cap``, after which a game is truncated); ``num_distinct_actions`` is the Discrete
  action count and ``legal_actions`` the legal-action mask; action strings are the AEC env's
  ``action_to_string``. ``str(state)`` is the full text board (``render``; like any OpenSpiel
  ``ToString`` it shows hidden cards).
- ``KernelRolloutEvaluator``: ``mcts.RandomRolloutEvaluator``'s uniform play-outs run in the
  game's Numba kernel, for ``MCTSBot`` and ``ISMCTSBot`` (20-120x faster per play-out).
"""

from __future__ import annotations

import json
import secrets
from fractions import Fraction

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from meeple_gym.core.errors import IllegalActionError, OptionError
from meeple_gym.core.registry import available_games, check_num_players, check_options, get_spec
from meeple_gym.core.rng import game_key
from meeple_gym.core.sampling import ALL_SEATS_RANDOM
from meeple_gym.core.threads import check_fork_safe

# The games registered with pyspiel by this module (register_games adds later ones).
GAMES: tuple[str, ...] = ()
# Rewards are +-1/k for small k; float32 rounds them, and OpenSpiel checks that zero-sum returns
# add up to 0 within 1e-9, so each is snapped back to its fraction.
_MAX_DENOMINATOR = 64
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def short_name(game: str) -> str:
    return f"python_meeple_{game}"


def _option_parameters(spec) -> dict:
    # pyspiel parameters are bool/int/float/str: a None default becomes int 0.
    return {name: (0 if default is None else default) for name, default in spec.options.items()}


def _min_utility(game: str, num_players: int) -> float:
    # One winner and n-1 losers sharing -1 (GameSpec.losers_share_loss), or -1 to each loser.
    if get_spec(game).losers_share_loss and num_players > 1:
        return -1.0 / (num_players - 1)
    return -1.0


class _Context:
    """What the states of one loaded game share: the spec, the options and the deal sequence."""

    def __init__(self, spec, num_players: int, options_code, seed: int):
        self.spec = spec
        self.num_players = num_players
        self.options_code = options_code
        self.seed = np.uint64(seed)
        self.dealt = 0

    def deal(self) -> np.ndarray:
        states = np.zeros(1, dtype=self.spec.state_dtype)
        key = game_key(self.seed, 0, self.dealt)
        self.dealt += 1
        self.spec.init_game(states, 0, self.num_players, key, self.options_code)
        return states


def _restore(game: str, snapshot_json: str) -> _Record:
    spec = get_spec(game)
    return _Record(spec, None, spec.load(json.loads(snapshot_json)))


class _Record:
    """A state's game record (a structured array of one row), dealt on first use.

    OpenSpiel clones a Python state by making a new initial state and deep-copying its
    attributes, and deserializes one by unpickling them; this class makes the copy a plain
    array copy and the pickle a project snapshot, and keeps the throwaway initial state of a
    clone from taking a deal."""

    __slots__ = ("spec", "context", "_states", "mask", "strings", "player")

    def __init__(self, spec, context: _Context | None, states: np.ndarray | None = None):
        self.spec = spec
        self.context = context
        self._states = states
        # The position's player to act, legal-action mask and observation strings, once
        # computed: pyspiel and search ask for them many times per position. They are replaced,
        # never edited, when the record changes (``changed``), so a copy may share them.
        self.player = None
        self.mask = None
        self.strings = None

    def changed(self) -> None:
        self.player = None
        self.mask = None
        self.strings = None

    @property
    def states(self) -> np.ndarray:
        if self._states is None:
            self._states = self.context.deal()
        return self._states

    def __deepcopy__(self, memo):
        twin = _Record(self.spec, self.context, self.states.copy())
        twin.player = self.player
        twin.mask = self.mask
        twin.strings = self.strings
        return twin

    def __reduce__(self):
        snapshot = self.spec.to_dict(self.states, 0)
        return _restore, (self.spec.name, json.dumps(snapshot, separators=(",", ":")))


class MeepleGame(pyspiel.Game):
    """One meeple-gym game as a pyspiel game (see the module docs)."""

    def __init__(self, game: str, params: dict | None = None):
        spec = get_spec(game)
        params = dict(params or {})
        variable = spec.min_players < spec.max_players
        num_players = params.pop("players", spec.default_players) if variable else spec.min_players
        num_players = check_num_players(spec, num_players)
        seed = params.pop("seed", -1)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < -1:
            raise OptionError(f"{short_name(game)}: seed must be an int >= -1, got {seed!r}")
        options = {}
        for name, value in params.items():
            if name not in spec.options:
                raise OptionError(f"{short_name(game)}: unknown parameter {name!r}")
            options[name] = None if spec.options[name] is None and value == 0 else value
        options = check_options(spec, options, num_players)
        self.game_name = game
        self.spec = spec
        self.num_seats = num_players
        self._context = _Context(
            spec,
            num_players,
            spec.options_code(options, num_players),
            secrets.randbits(64) if seed == -1 else seed,
        )
        solo = num_players == 1
        game_type = _game_type(game, solo)
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=0,
            num_players=num_players,
            min_utility=_min_utility(game, num_players),
            max_utility=1.0,
            utility_sum=None if solo else 0.0,
            max_game_length=spec.step_cap,
        )
        full = {"seed": seed, **_option_parameters(spec), **params}
        if variable:
            full["players"] = num_players
        super().__init__(game_type, info, full)

    def new_initial_state(self, snapshot_json: str | dict | None = None) -> MeepleState:
        """A fresh deal (taken on first use), or the position of a project snapshot (the JSON
        text or dict of ``env.unwrapped.to_dict()``) with an empty OpenSpiel history."""
        state = MeepleState(self)
        if snapshot_json is not None:
            snapshot = (
                json.loads(snapshot_json) if isinstance(snapshot_json, str) else snapshot_json
            )
            states = self.spec.load(snapshot)
            n = int(states[0]["num_players"])
            if n != self.num_seats:
                raise OptionError(f"snapshot has {n} players; this game has {self.num_seats}")
            state._r = _Record(self.spec, None, states)
        return state

    def __reduce__(self):
        # pyspiel pickles a game through Game::Serialize, which a sampled-stochastic Python
        # game cannot provide (module docs); the game string is enough (a seed of -1 draws anew).
        return pyspiel.load_game, (str(self),)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and not (
            iig_obs_type.public_info
            and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "meeple-gym games provide one observer: public information plus the observing "
                "seat's own (the encoder's vector); other observation types are not available"
            )
        # OpenSpiel asks for perfect recall for information states (module docs).
        return MeepleObserver(self.spec, bool(iig_obs_type and iig_obs_type.perfect_recall))


class MeepleState(pyspiel.State):
    """A position of a meeple-gym game. Its one attribute is the record (``_r``)."""

    def __init__(self, game: MeepleGame):
        super().__init__(game)
        self._r = _Record(game.spec, game._context)

    # ---- the pyspiel State API --------------------------------------------------------------
    def current_player(self) -> int:
        r = self._r
        if r.player is None:
            record = r.states[0]
            over = record["terminated"] or record["truncated"]
            r.player = _TERMINAL if over else int(record["current_player"])
        return r.player

    def _mask(self) -> np.ndarray:
        r = self._r
        if r.mask is None:
            r.mask = np.zeros(r.spec.num_actions, dtype=np.int8)
            r.spec.legal_mask_into(r.states, 0, r.mask)
        return r.mask

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(self._mask()).tolist()

    def _apply_action(self, action: int) -> None:
        # The kernels trust their input (as the AEC env's fast path does after its own check).
        mask = self._mask()
        if not 0 <= action < mask.shape[0] or not mask[action]:
            legal = np.flatnonzero(mask).tolist()
            raise IllegalActionError(f"action {action} is illegal now; legal: {legal}")
        r = self._r
        r.spec.apply_action(r.states, 0, int(action))
        r.changed()

    def _action_to_string(self, player: int, action: int) -> str:
        return self._r.spec.action_to_string(self._r.states, 0, int(action))

    def is_terminal(self) -> bool:
        return self.current_player() == _TERMINAL

    def returns(self) -> list[float]:
        spec = self._r.spec
        record = self._r.states[0]
        n = int(record["num_players"])
        if not (record["terminated"] or record["truncated"]):
            return [0.0] * n
        out = np.zeros(spec.max_players, dtype=np.float32)
        spec.rewards_into(record, out)
        return [float(Fraction(float(x)).limit_denominator(_MAX_DENOMINATOR)) for x in out[:n]]

    def __str__(self) -> str:
        return self._r.spec.render(self._r.states, 0)

    # ---- beyond the core API ----------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler) -> MeepleState:
        """A clone with the hidden information redrawn for ``player_id`` (module docs)."""
        n = self.get_game().num_players()
        if not 0 <= player_id < n:  # the kernel indexes by it, unchecked
            raise OptionError(f"player_id must be a seat in [0, {n}), got {player_id}")
        twin = self.clone()
        if twin.is_terminal():
            return twin
        key = 0
        for _ in range(2):
            key = (key << 32) | min(int(probability_sampler() * 2**32), 2**32 - 1)
        r = twin._r
        r.spec.determinize_into(r.states, 0, int(player_id), np.uint64(key))
        r.changed()  # others' choices can depend on the redrawn cards
        return twin

    def __reduce__(self):
        # As for the game: through the state's own serialization, not SerializeGameAndState.
        return _unpickle_state, (str(self.get_game()), self.serialize())

    @property
    def record(self) -> np.ndarray:
        """The game record (a one-row structured array; read or copy it, do not edit it)."""
        return self._r.states


class KernelRolloutEvaluator(mcts.RandomRolloutEvaluator):
    """``mcts.RandomRolloutEvaluator`` with its play-outs run in the game's Numba kernel.

    The same uniform-random play to the end of the game and the same uniform prior, for
    ``MCTSBot`` and ``ISMCTSBot``; a Python play-out costs tens of microseconds per move through
    pyspiel, 20-120 times the kernel's (docs/openspiel.md). Each play-out draws its RNG word from
    ``random_state``, so a seeded evaluator repeats itself. Only for meeple-gym states.
    """

    def __init__(self, n_rollouts: int = 1, random_state=None):
        super().__init__(n_rollouts=n_rollouts, random_state=random_state)
        self._buffers = {}

    def _arrays(self, spec) -> dict:
        arrays = self._buffers.get(spec.name)
        if arrays is None:
            arrays = self._buffers[spec.name] = {
                "states": np.zeros(1, dtype=spec.state_dtype),
                "actions": np.full(1, -1, dtype=np.int64),
                "masks": np.zeros((1, spec.num_actions), dtype=np.int8),
                "rewards": np.zeros((1, spec.max_players), dtype=np.float32),
                "terminated": np.zeros(1, dtype=np.bool_),
                "truncated": np.zeros(1, dtype=np.bool_),
                "episodes": np.zeros(1, dtype=np.int64),
                "final_scores": np.zeros((1, spec.max_players), dtype=np.int32),
                "final_lengths": np.zeros(1, dtype=np.int64),
                "seats": np.full(1, ALL_SEATS_RANDOM, dtype=np.int64),
                "words": np.zeros(1, dtype=np.uint64),
            }
        return arrays

    def evaluate(self, state: MeepleState) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns())
        spec = state._r.spec
        a = self._arrays(spec)
        n = int(state._r.states[0]["num_players"])
        total = np.zeros(n)
        check_fork_safe()
        for _ in range(self.n_rollouts):
            a["states"][:] = state._r.states
            a["words"][0] = self._random_state.randint(0, 2**63, dtype=np.int64)
            # No action of ours; seat ALL_SEATS_RANDOM plays every seat to the end and leaves
            # the finished game in place (no re-deal, so seed and options go unused).
            spec.step_batch(
                a["states"],
                a["actions"],
                a["masks"],
                a["rewards"],
                a["terminated"],
                a["truncated"],
                n,
                np.uint64(0),
                a["episodes"],
                a["final_scores"],
                a["final_lengths"],
                a["states"][:0],
                np.int64(0),
                a["seats"],
                a["seats"],
                a["words"],
            )
            total += a["rewards"][0, :n]
        return total / self.n_rollouts


def _unpickle_state(game_string: str, serialized: str) -> MeepleState:
    return pyspiel.load_game(game_string).deserialize_state(serialized)


class MeepleObserver:
    """The PyObserver of every meeple-gym game: the encoder's vector of the observing seat."""

    def __init__(self, spec, count_decisions: bool = False):
        self.spec = spec
        self.count_decisions = count_decisions
        self.tensor = np.zeros(spec.obs_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MeepleState, player: int) -> None:
        self.spec.encode_into(state._r.states, 0, int(player), self.tensor)

    def string_from(self, state: MeepleState, player: int) -> str:
        r = state._r
        if r.strings is None:
            r.strings = {}
        key = (int(player), self.count_decisions)
        text = r.strings.get(key)
        if text is None:
            text = r.strings[key] = self._string(state, int(player))
        return text

    def _string(self, state: MeepleState, player: int) -> str:
        obs = np.zeros(self.spec.obs_size, dtype=np.float32)
        states = state._r.states
        self.spec.encode_into(states, 0, player, obs)
        record = states[0]
        over = record["terminated"] or record["truncated"]
        to_act = -1 if over else int(record["current_player"])
        parts = [f"player {player}", f"to act {to_act}"]
        if self.count_decisions:
            parts.append(f"decision {int(record['step_count'])}")
        if to_act == player:
            parts.append("legal " + " ".join(map(str, state._legal_actions(player))))
        # index:value for the nonzero entries; the encoders' values are whole numbers, so they
        # print as ints (others as Python floats, which are exact for float32).
        index = np.flatnonzero(obs)
        values = obs[index]
        whole = values.astype(np.int64)
        shown = whole.tolist() if (whole == values).all() else values.tolist()
        pairs = zip(map(str, index.tolist()), map(str, shown), strict=True)
        parts.append("obs " + " ".join(map(":".join, pairs)))
        return " | ".join(parts)


def _game_type(game: str, solo: bool) -> pyspiel.GameType:
    spec = get_spec(game)
    params = {"seed": -1, **_option_parameters(spec)}
    if spec.min_players < spec.max_players:
        params["players"] = spec.default_players
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"meeple-gym {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        # Solo Everdell scores one player against Rugwort: nothing to sum to zero.
        utility=(
            pyspiel.GameType.Utility.GENERAL_SUM if solo else pyspiel.GameType.Utility.ZERO_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def to_dict(state: MeepleState) -> dict:
    """The project snapshot of ``state`` (what ``env.unwrapped.to_dict()`` gives; load it with
    ``env.unwrapped.from_dict`` or ``game.new_initial_state(snapshot)``)."""
    return state._r.spec.to_dict(state._r.states, 0)


def make_resampler(seed: int):
    """A callback for ``ISMCTSBot.set_resampler``: ``(state, player) -> resampled clone``, drawing
    its keys from a ``pyspiel.UniformProbabilitySampler`` seeded with ``seed``, so a bot with a
    seeded ``random_state`` repeats its searches."""
    sampler = pyspiel.UniformProbabilitySampler(int(seed), 0.0, 1.0)

    def resample(state: MeepleState, player: int) -> MeepleState:
        return state.resample_from_infostate(player, sampler)

    return resample


def _game_class(game: str) -> type:
    """``<Title>Game``: the pyspiel creator of ``game``, a module-level class of this module."""
    name = f"{get_spec(game).title}Game"

    def __init__(self, params=None):
        MeepleGame.__init__(self, game, params)

    cls = type(name, (MeepleGame,), {"__init__": __init__, "__module__": __name__})
    globals()[name] = cls
    return cls


def register_games() -> None:
    """Register ``python_meeple_<name>`` with pyspiel for every registered game (idempotent)."""
    # Classes, as OpenSpiel's own Python games register: pyspiel holds the creator until the
    # interpreter exits, and a creator that is freed then (a lambda, a closure) aborts the exit;
    # each class stays a global of this module.
    global GAMES
    registered = set(pyspiel.registered_names())
    for game in available_games():
        if short_name(game) not in registered:
            pyspiel.register_game(_game_type(game, False), _game_class(game))
        if game not in GAMES:
            GAMES = (*GAMES, game)


register_games()
