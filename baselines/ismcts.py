"""Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) in Numba.

>>> from meeple_gym.baselines.ismcts import ISMCTSAgent
>>> agent = ISMCTSAgent("century", sims=400, rollout="random", seed=0)
>>> actions = agent.act_states(batch.get_states())      # one action per game, searched in prange

In the evaluator, ladder and CLI it is the agent name ``ismcts`` with parameters, e.g.
``ismcts:sims=400,rollout=heuristic,c=1.0,depth=0,epsilon=0.1``.

Why single-observer ISMCTS and not determinized UCT (PIMC)
----------------------------------------------------------
Every iteration draws a fresh determinization of the root for the player to act (the game's
``determinize_into``: hidden cards, deck orders and the RNG word resampled uniformly among the
arrangements that player cannot tell apart) and walks *one* tree whose edges are actions. The
statistics of a move are pooled over all the worlds it was tried in, so the search cannot plan a
different reply per hidden deal (PIMC's "strategy fusion") and needs no vote across separate
trees. Opponents' moves are edges of the same tree; their hidden information is resampled with
everything else. Legal moves differ between worlds (an opponent's hand, a drawn card), so a child
is scored with UCB over its *availability* count (how often it was legal when its parent was
visited), not over the parent's visits.

One iteration: copy the root record, determinize it, select by UCB while every legal move of the
node has a child, expand one untried move (chosen at random), play out with the rollout policy
(``random``: uniform over legal moves; ``heuristic``: the game's rule-of-thumb kernel on the
mover's own observation, random with probability ``epsilon``; the observation is the one the
game's search spec names in ``rollout_observation``, Everdell's compact one, or with
``rollout_view`` the heuristic's own decoded view written straight from the record, Radlands'
and Endeavor's; else the full one) until the game ends or ``depth`` moves were played, and back
the value up: each node adds the value of the player who made its move. Values are the game's
terminal rewards (+1 winner, shared negatives); at the depth cap they are ``tanh(margin /
scale)`` of each player's current score margin over the best other player (the game's own
score kernel). The move played is the root child with the most visits.

Forced moves (one legal action) are played without searching.

Hidden information. The search reads the true record only through ``determinize_into`` and the
root's legal mask, which is the acting player's own. The determinization of a given key is a
function of the record, though, so two records that differ only in hidden cards get different
(equally distributed) samples; the action's *distribution* over seeds does not depend on hidden
information, its value for one seed can. Each decision's key is derived from the agent's seed,
the game's RNG word and its step count, so an action depends only on (seed, record): never on
the batch size, the rows acting with it or the thread count.

Cost. The search kernel inlines the game's rules, so its first use compiles for a minute or two
(Radlands, Everdell) and is cached per game like every kernel (``meeple_gym.core.jit``). Each
iteration copies the root record with one record assignment: ``copy_record``'s byte loop cost
more than applying a move (benchmarks/README.md, "Performance round 3"); it is the kernel's
only one, so its unrolled code adds little to the compile. ``act_states`` checks each record
it is given like a restored snapshot (a Python round trip, about 3 ms for a Radlands record:
more than a 200-iteration search of it), except records that are byte for byte ones a batch
of this process handed out with ``get_states``; the evaluator passes its own batch's records
unchecked, and ``act_env`` its env's live record.
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Mapping

import numpy as np
from numba import prange

from meeple_gym.core.batch import MAX_SEED
from meeple_gym.core.errors import OptionError
from meeple_gym.core.jit import game_kernel, rebind
from meeple_gym.core.options import check_int, is_int, short_repr
from meeple_gym.core.registry import available_games, get_spec
from meeple_gym.core.rng import derive_key, next_u64, randint  # noqa: F401 - bound in templates
from meeple_gym.core.sampling import random_legal  # noqa: F401 - bound in templates
from meeple_gym.core.threads import check_fork_safe

STREAM_SEARCH = 0x49534D43  # RNG stream of the search keys ("ISMC")
_STEP_MIX = np.uint64(0x9E3779B97F4A7C15)
ROLLOUT_POLICIES = ("random", "heuristic")
# Seats a score margin is taken over (Everdell solo has Rugwort as a second seat).
MAX_SEATS = 8
MAX_SIMS = 1_000_000  # one tree node per iteration: bounds the search's memory per game
MAX_INT64 = (1 << 63) - 1  # the kernel takes depth as an int64

# Filled per game by ``_bind``; the templates below read these as globals.
NUM_ACTIONS = 1
OBS_SIZE = 1


# ---- templates: plain functions compiled once per game with that game's kernels as globals ----


def _search_row(
    states, g, key, sims, c, prior, rollout, epsilon, depth_cap, scale, net_prior, net, root_out
):
    """The action SO-ISMCTS picks in game ``g`` after ``sims`` iterations (-1: nothing legal).
    With ``net`` > 0, ``net_prior[g]`` (the network's policy at the root) orders the root's
    expansions and biases its children by ``net * p / (visits + 1)``. ``c``: the exploration
    constant; ``root_out``: the root's statistics (``_root_choice``)."""
    root = states[g]
    player = root.current_player
    root_mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask_into(states, g, root_mask)  # noqa: F821 - bound per game
    n_legal = 0
    only = -1
    for a in range(NUM_ACTIONS):
        if root_mask[a] != 0:
            n_legal += 1
            only = a
    if n_legal <= 1 or sims <= 0:
        return only if n_legal == 1 else (-1 if n_legal == 0 else _first_legal(root_mask))

    cap = sims + 1  # one node per iteration at most, plus the root
    first_child = np.full(cap, -1, np.int32)
    next_sibling = np.full(cap, -1, np.int32)
    edge = np.zeros(cap, np.int32)  # the action into the node
    mover = np.zeros(cap, np.int8)  # the player who made that action
    visits = np.zeros(cap, np.int32)
    available = np.zeros(cap, np.int32)
    total = np.zeros(cap, np.float64)
    path = np.zeros(cap, np.int32)
    tried = np.zeros(NUM_ACTIONS, np.int8)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    obs = new_rollout_buffer(OBS_SIZE if rollout == 1 or prior > 0.0 else 1)  # noqa: F821
    value = np.zeros(MAX_SEATS, np.float32)
    scores = np.zeros(MAX_SEATS, np.float64)
    words = np.zeros(1, np.uint64)
    words[0] = key
    work = states[g : g + 1].copy()
    n_nodes = 1

    for _ in range(sims):
        work[0] = states[g]  # not copy_record: module docs, "Cost"
        determinize_into(work, 0, player, next_u64(words, 0))  # noqa: F821
        node = 0
        depth = 0
        # Selection and expansion.
        while True:
            s = work[0]
            if s.terminated != 0 or s.truncated != 0:
                break
            legal_mask_into(work, 0, mask)  # noqa: F821
            tried[:] = 0
            child = first_child[node]
            while child >= 0:
                tried[edge[child]] = 1
                child = next_sibling[child]
            untried = 0
            for a in range(NUM_ACTIONS):
                if mask[a] != 0 and tried[a] == 0:
                    untried += 1
            guided = -1
            at_root_with_net = node == 0 and net > 0.0
            if prior > 0.0 and not at_root_with_net:
                # Progressive bias: the heuristic's move goes first, its bonus fades with visits.
                encode_into(work, 0, s.current_player, obs)  # noqa: F821
                guided = heuristic_action(obs, mask)  # noqa: F821
            if untried > 0:
                prior_row = net_prior[g] if at_root_with_net else net_prior[0, :0]
                action = _untried_move(mask, tried, untried, guided, prior_row, words)
                new = n_nodes
                n_nodes += 1
                edge[new] = action
                mover[new] = s.current_player
                available[new] = 1
                next_sibling[new] = first_child[node]
                first_child[node] = new
                apply_action(work, 0, action)  # noqa: F821
                path[depth] = new
                depth += 1
                break
            best = -1
            best_score = -np.inf
            child = first_child[node]
            while child >= 0:
                if mask[edge[child]] != 0:
                    available[child] += 1
                    n = visits[child]
                    spread = math.sqrt(math.log(available[child]) / n)
                    score = total[child] / n + c * spread
                    if edge[child] == guided:
                        score += prior / (n + 1)
                    if at_root_with_net:
                        score += net * net_prior[g, edge[child]] / (n + 1)
                    if score > best_score:
                        best_score = score
                        best = child
                child = next_sibling[child]
            if best < 0:  # a live position with no legal move: the engine never makes one
                break
            apply_action(work, 0, edge[best])  # noqa: F821
            node = best
            path[depth] = best
            depth += 1

        # Play-out.
        played = 0
        while True:
            s = work[0]
            if s.terminated != 0 or s.truncated != 0:
                break
            if depth_cap > 0 and played >= depth_cap:
                break
            legal_mask_into(work, 0, mask)  # noqa: F821
            if rollout == 1 and not (epsilon > 0.0 and _uniform(words) < epsilon):
                encode_into(work, 0, s.current_player, obs)  # noqa: F821
                action = heuristic_action(obs, mask)  # noqa: F821
            else:
                action = random_legal(mask, words, 0)
            if action < 0:
                break
            apply_action(work, 0, action)  # noqa: F821
            played += 1

        # Values and back-propagation.
        s = work[0]
        if s.terminated != 0 or s.truncated != 0:
            rewards_into(s, value)  # noqa: F821
        else:
            seats = scores_into(work, 0, scores)  # noqa: F821
            for p in range(seats):
                other = -np.inf
                for q in range(seats):
                    if q != p and scores[q] > other:
                        other = scores[q]
                value[p] = math.tanh((scores[p] - other) / scale)
        visits[0] += 1
        for k in range(depth):
            nd = path[k]
            visits[nd] += 1
            total[nd] += value[mover[nd]]

    return _root_choice(first_child, next_sibling, edge, visits, total, root_mask, root_out, g)


def _search_batch(
    states, seed, sims, c, prior, rollout, epsilon, depth_cap, scale, net_prior, net, root_out, out
):
    """``out[i]`` = the search's action in game ``i``; its key comes from (seed, the game's RNG
    word and step count), so it does not depend on the batch or the threads. ``net_prior``
    (float32, one row per game) is read only when ``net`` > 0; ``root_out`` (float32, zeros,
    (games, 2, actions), or no rows: not wanted) gets each root's visits and mean values."""
    for i in prange(states.shape[0]):
        out[i] = _search_row(
            states,
            i,
            _decision_key(states[i], seed, STREAM_SEARCH),
            sims,
            c,
            prior,
            rollout,
            epsilon,
            depth_cap,
            scale,
            net_prior,
            net,
            root_out,
        )


def _untried_move(mask, tried, untried, guided, prior_row, words):
    """The move a node expands: the likeliest untried one under ``prior_row`` (the network's
    policy, at the root with ``net``; empty otherwise), else the heuristic's ``guided`` move if
    untried, else one of the ``untried`` moves uniformly."""
    action = -1
    if prior_row.shape[0] > 0:
        best_p = -1.0
        for a in range(NUM_ACTIONS):
            if mask[a] != 0 and tried[a] == 0 and prior_row[a] > best_p:
                best_p = prior_row[a]
                action = a
    elif guided >= 0 and tried[guided] == 0:
        action = guided
    else:
        pick = randint(words, 0, untried)
        for a in range(NUM_ACTIONS):
            if mask[a] != 0 and tried[a] == 0:
                if pick == 0:
                    action = a
                    break
                pick -= 1
    return action


def _root_choice(first_child, next_sibling, edge, visits, total, root_mask, root_out, g):
    """The root's most visited legal move (the first legal one if none was visited); writes
    each legal root move's visits and mean value into ``root_out[g]`` when it has rows."""
    best = -1
    most = -1
    child = first_child[0]
    while child >= 0:
        a = edge[child]
        if root_mask[a] != 0 and visits[child] > most:
            most = visits[child]
            best = a
        if root_out.shape[0] > 0 and root_mask[a] != 0 and visits[child] > 0:
            root_out[g, 0, a] = visits[child]
            root_out[g, 1, a] = total[child] / visits[child]
        child = next_sibling[child]
    return best if best >= 0 else _first_legal(root_mask)


def _decision_key(s, seed, stream):
    """The RNG key of a decision on record ``s``: from the agent's ``seed``, the record's RNG
    word and step count and ``stream``, so it depends on nothing but (seed, record)."""
    index = s.rng[0] ^ (np.uint64(s.step_count) * _STEP_MIX)
    return derive_key(seed, index, np.uint64(stream))


def _first_legal(mask):
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


def _uniform(words):
    return (next_u64(words, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# Current scores for the depth-capped evaluation: fill ``out`` and return the number of seats.
def _scores_century(states, g, out):
    s = states[g]
    final_scores_into(s, out)  # noqa: F821
    return s.num_players


def _scores_radlands(states, g, out):
    s = states[g]
    record_scores(s)  # noqa: F821 - camps still standing (RAD-E1), into the work copy
    for p in range(2):
        out[p] = s.score[p]
    return 2


def _scores_score_of(states, g, out):
    s = states[g]
    seats = s.num_players
    if seats == 1:
        seats = 2  # Everdell solo: Rugwort is seat 1
    for p in range(seats):
        out[p] = score_of(s, p)  # noqa: F821
    return seats


def _observation_buffer(size):
    """The play-outs' observation vector (a game with ``rollout_view`` binds its own buffer)."""
    return np.zeros(size, np.float32)


_TEMPLATES = (_first_legal, _uniform, _untried_move, _root_choice, _decision_key)


def rollout_hooks(spec) -> dict:
    """What the play-out heuristic reads and how: ``encode_into(states, g, player, buffer)``,
    ``heuristic_action(buffer, mask)``, ``new_buffer(size)`` (None: a float32 vector of
    ``size``) and ``size``. By default the observation that ``rollout_observation`` names (the
    full one if absent) and the spec's ``rollout`` kernel; with ``rollout_view`` (``view_into``,
    ``new_view``, ``decide``: "module:attr" each) the heuristic's decoded view, filled from the
    record by the game's encoder without a vector between (Radlands, Endeavor)."""
    search = spec.search
    view = search.get("rollout_view")
    if view is not None:
        return {
            "encode_into": _resolve(view["view_into"]),
            "heuristic_action": _resolve(view["decide"]),
            "new_buffer": _resolve(view["new_view"]),
            "size": 1,
        }
    encoder = spec.with_observation(search.get("rollout_observation"))
    return {
        "encode_into": encoder.encode_into,
        "heuristic_action": _resolve(search["rollout"]),
        "new_buffer": None,
        "size": encoder.obs_size,
    }


def _resolve(path: str):
    """The object a ``"module:attr"`` path of a ``GameSpec.search`` names."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _search_spec(game):
    """The game's spec, if it has a search (``GameSpec.search``); else ``OptionError``."""
    spec = get_spec(game) if isinstance(game, str) and game in available_games() else None
    if spec is None or spec.search is None or spec.determinize_into is None:
        known = [g for g in available_games() if get_spec(g).search is not None]
        raise OptionError(f"no ISMCTS search for game {game!r}; known: {', '.join(known)}")
    return spec


class _SearchDefaults(Mapping):
    """game -> its ISMCTS default settings, read from the registered specs."""

    _KEYS = ("sims", "c", "prior", "epsilon", "depth", "scale")

    def _games(self) -> list[str]:
        return [g for g in available_games() if get_spec(g).search is not None]

    def __getitem__(self, game: str) -> dict:
        try:
            search = _search_spec(game).search
        except OptionError:
            raise KeyError(game) from None
        return {key: search[key] for key in self._KEYS}

    def __iter__(self):
        return iter(self._games())

    def __len__(self) -> int:
        return len(self._games())


@functools.cache
def search_kernel(game: str):
    """The compiled batch search of ``game``: ``(states, seed, sims, c, prior,
    rollout, epsilon, depth_cap, scale, net_prior, net, root_out, out)``, cached per game in the
    game's kernel cache group."""
    namespace = dict(play_out_namespace(game))
    namespace["_search_row"] = game_kernel(rebind(_search_row, namespace), game)
    return game_kernel(rebind(_search_batch, namespace), game, parallel=True)


@functools.cache
def play_out_namespace(game: str) -> dict:
    """The globals a template that plays ``game`` out reads: this module's, the game's rules
    kernels (``legal_mask_into``, ``apply_action``, ``rewards_into``, ``determinize_into``),
    the play-out heuristic (``encode_into``, ``heuristic_action``, ``new_rollout_buffer``),
    ``scores_into`` and the sizes ``NUM_ACTIONS`` and ``OBS_SIZE``; compiled per game."""
    spec = _search_spec(game)
    search = spec.search
    # The play-out heuristic reads the observation named by ``rollout_observation`` (the
    # game's default one if absent): Everdell's compact vector carries the same information at
    # a fifth of the writes, and its heuristic reads it without one-hot scans; or, with
    # ``rollout_view``, its decoded view filled from the record (``rollout_hooks``).
    hooks = rollout_hooks(spec)
    namespace = dict(globals())
    namespace.update(
        NUM_ACTIONS=spec.num_actions,
        OBS_SIZE=hooks["size"],
        legal_mask_into=spec.legal_mask_into,
        apply_action=spec.apply_action,
        rewards_into=spec.rewards_into,
        determinize_into=spec.determinize_into,
        encode_into=hooks["encode_into"],
        heuristic_action=hooks["heuristic_action"],
    )
    for name, path in search["score_kernels"].items():
        namespace[name] = _resolve(path)
    scores_template = _resolve(search["scores"])
    for template in _TEMPLATES:
        namespace[template.__name__] = game_kernel(rebind(template, namespace), game)
    namespace["new_rollout_buffer"] = hooks["new_buffer"] or game_kernel(
        rebind(_observation_buffer, namespace), game
    )
    namespace["scores_into"] = game_kernel(rebind(scores_template, namespace), game)
    return namespace


def _check_number(name: str, value, lo: float, hi: float = math.inf, lo_open=False) -> float:
    """``value`` as a finite float in [lo, hi] ((lo, hi] with ``lo_open``); refuses bools,
    strings, NaN and infinities with an ``OptionError`` naming ``name`` and the range."""
    if not (is_int(value) or isinstance(value, (float, np.floating))):
        raise OptionError(
            f"ismcts: {name} must be a number, got {type(value).__name__} {short_repr(value)}"
        )
    number = float(value)
    above = lo < number if lo_open else lo <= number
    if not (math.isfinite(number) and above and number <= hi):
        if math.isinf(hi):
            bounds = f"a finite number {'>' if lo_open else '>='} {lo:g}"
        else:
            bounds = f"in {'(' if lo_open else '['}{lo:g}, {hi:g}]"
        raise OptionError(f"ismcts: {name} must be {bounds}, got {number:g}")
    return number


def _parse_value(text: str, name: str, kind):
    try:
        return kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise OptionError(f"ismcts: {name} must be {what}, got {text!r}") from None


class ISMCTSAgent:
    """SO-ISMCTS over the game's rules kernels (module docs).

    ``sims`` iterations per decision; ``c`` the UCB exploration constant (values are in
    [-1, 1]); ``rollout`` ``"random"`` or ``"heuristic"``; ``epsilon`` the chance of a random
    move in a heuristic play-out; ``depth`` caps play-outs (0: to the end) and scores the cut
    position by ``tanh(score margin / scale)`` (``scale`` defaults per game); ``prior`` is the
    progressive bias toward the heuristic's move (0: off); ``net`` is the weight of the learned
    network's policy as the root's prior (0: off; ``net_path``: its weights, default the shipped
    ones): the root tries the network's likeliest moves first and each root child gets
    ``net * p(move) / (visits + 1)``. Parameters left out take the game's
    ``GameSpec.search`` (``DEFAULTS``). The agent reads game records (``act_states``), which the
    evaluator, the ladder and the Gymnasium envs pass to agents that have it;
    ``root_statistics`` also returns each root move's visits and mean value.
    """

    # Per-game defaults (sims, c, prior, epsilon, depth, scale) are the game's
    # ``GameSpec.search``; docs/baselines.md ("Defaults") has the trial matches that chose them.
    DEFAULTS = _SearchDefaults()
    DEFAULT_ROLLOUT = "heuristic"

    def __init__(
        self,
        game: str,
        sims: int | None = None,
        c: float | None = None,
        prior: float | None = None,
        rollout: str | None = None,
        epsilon: float | None = None,
        depth: int | None = None,
        scale: float | None = None,
        seed: int = 0,
        net: float = 0.0,
        net_path=None,
    ):
        spec = _search_spec(game)
        defaults = spec.search
        sims = defaults["sims"] if sims is None else sims
        c = defaults["c"] if c is None else c
        prior = defaults["prior"] if prior is None else prior
        rollout = self.DEFAULT_ROLLOUT if rollout is None else rollout
        epsilon = defaults["epsilon"] if epsilon is None else epsilon
        depth = defaults["depth"] if depth is None else depth
        scale = defaults["scale"] if scale is None else scale
        # Every range is checked here, not at the first move: the kernel takes sims and
        # depth as int64 and the seed as uint64.
        sims = check_int("ismcts: sims", sims, 1, MAX_SIMS)
        if not isinstance(rollout, str) or rollout not in ROLLOUT_POLICIES:
            raise OptionError(f"ismcts: rollout must be one of {ROLLOUT_POLICIES}, got {rollout!r}")
        c = _check_number("c", c, 0.0)
        prior = _check_number("prior", prior, 0.0)
        epsilon = _check_number("epsilon", epsilon, 0.0, 1.0)
        depth = check_int("ismcts: depth", depth, 0, MAX_INT64)
        scale = _check_number("scale", scale, 0.0, lo_open=True)
        seed = check_int("ismcts: seed", seed, 0, MAX_SEED)
        net = _check_number("net", net, 0.0)
        self._net_agent = None
        if net > 0 or net_path is not None:
            from meeple_gym.baselines.net_agent import NetAgent

            self._net_agent = NetAgent(game, path=net_path)
        self.game = game
        self.sims = sims
        self.c = c
        self.prior = prior
        self.rollout = rollout
        self.epsilon = epsilon
        self.depth = depth
        self.scale = scale
        self.seed = seed
        self.net = net
        self._spec = spec

    @property
    def name(self) -> str:
        name = (
            f"ismcts:sims={self.sims},rollout={self.rollout},c={self.c:g},prior={self.prior:g},"
            f"epsilon={self.epsilon:g},depth={self.depth}"
        )
        return name + (f",net={self.net:g}" if self.net > 0 else "")

    @classmethod
    def from_spec(cls, text: str, game: str, seed: int = 0) -> ISMCTSAgent:
        """``"ismcts"`` or ``"ismcts:sims=400,rollout=heuristic,c=1,epsilon=0.1,depth=0"``."""
        head, _, params = text.partition(":")
        if head != "ismcts":
            raise OptionError(f"not an ismcts agent: {text!r}")
        kinds = {"sims": int, "c": float, "prior": float, "rollout": str}
        kinds.update(epsilon=float, depth=int, scale=float, net=float)
        kwargs = {}
        for item in filter(None, params.split(",")):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq or key not in kinds:
                raise OptionError(
                    f"ismcts: bad parameter {item!r}; use key=value with keys {', '.join(kinds)}"
                )
            if key in kwargs:
                raise OptionError(f"ismcts: parameter {key!r} given twice")
            kwargs[key] = _parse_value(value.strip(), key, kinds[key])
        return cls(game, seed=seed, **kwargs)

    def act_states(self, states: np.ndarray) -> np.ndarray:
        """One action per game record of ``states`` (a 1-D array of the game's state dtype),
        for the player to act in each; the records are not changed."""
        return self._search(self._check_states(states))

    def root_statistics(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``act_states`` with what the search saw at each root: ``(actions, visits, values)``,
        ``visits[i, a]`` the iterations that went through move ``a`` of game ``i`` and
        ``values[i, a]`` their mean value for the player to act, in [-1, 1] (float32, (N,
        num_actions); zero for moves not searched, and for forced moves, which are not
        searched)."""
        states = self._check_states(states)
        root_out = np.zeros((states.shape[0], 2, self._spec.num_actions), dtype=np.float32)
        actions = self._search(states, root_out)
        return actions, root_out[:, 0], root_out[:, 1]

    def _search(self, states: np.ndarray, root_out: np.ndarray | None = None) -> np.ndarray:
        """``act_states`` on records the engine made itself (the evaluator's own batch): a
        contiguous writable copy, no validation. ``root_out``: a zeroed float32 (N, 2,
        num_actions) array for the roots' visits and values (``root_statistics``)."""
        out = np.empty(states.shape[0], dtype=np.int64)
        if root_out is None:
            root_out = np.zeros((0, 2, 0), dtype=np.float32)
        elif root_out.shape != (states.shape[0], 2, self._spec.num_actions):
            raise ValueError(f"root_out has shape {root_out.shape}, not (N, 2, num_actions)")
        if states.shape[0] == 0:
            return out
        kernel = search_kernel(self.game)
        net_prior = self._net_prior(states)
        check_fork_safe()
        kernel(
            states,
            np.uint64(self.seed),
            np.int64(self.sims),
            np.float64(self.c),
            np.float64(self.prior),
            np.int64(ROLLOUT_POLICIES.index(self.rollout)),
            np.float64(self.epsilon),
            np.int64(self.depth),
            np.float64(self.scale),
            net_prior,
            np.float64(self.net),
            root_out,
            out,
        )
        if (out < 0).any():
            raise ValueError("some games have no legal action (finished games?)")
        return out

    def _net_prior(self, states: np.ndarray) -> np.ndarray:
        """The network's policy for the player to act in each record (its own observation and
        legal moves), float32 (N, num_actions); a 1 x 1 placeholder when ``net`` is off."""
        if self.net <= 0:
            return np.zeros((1, 1), dtype=np.float32)
        spec = self._spec
        n = states.shape[0]
        masks = np.zeros((n, spec.num_actions), dtype=np.int8)
        obs = np.zeros((n, spec.obs_size), dtype=np.float32)
        spec.legal_masks_batch(states, masks)
        spec.encode_batch(states, states["current_player"].astype(np.int64), obs)
        return np.ascontiguousarray(self._net_agent.policy(obs, masks), dtype=np.float32)

    def act_env(self, env) -> int:
        """The action for the player to act in a meeple-gym AEC env (its record is copied)."""
        from meeple_gym.core.aec import MeepleAECEnv

        raw = env.unwrapped
        if not isinstance(raw, MeepleAECEnv) or raw.spec.name != self.game:
            return int(self.act_states(raw.state_array)[0])  # checked, or refused
        with raw.lock:
            record = raw.state_array.copy()
        if record["terminated"][0] != 0 or record["truncated"][0] != 0:
            raise ValueError("game 0 is over; nothing to search")
        # The env's own live record: its steps run the kernels on it as it is, so the search
        # takes it unchecked too (as the Gymnasium env's search opponent does).
        return int(self._search(record)[0])

    def _check_states(self, states) -> np.ndarray:
        return checked_records(self._spec, states)


def checked_records(spec, states) -> np.ndarray:
    """A private, writable, contiguous copy of ``states`` for a kernel that reads records: the
    kernel never sees the caller's memory, and the records are checked like any restored state
    (Numba does no bounds checks), except those that are byte for byte ones the engine handed
    out (``BatchEnv.get_states``). Finished games are refused."""
    from meeple_gym.core.gate import engine_records, validate_records

    if not isinstance(states, np.ndarray) or states.dtype != spec.state_dtype or states.ndim != 1:
        raise OptionError(
            f"states must be a 1-D {spec.name} state array, got "
            f"{type(states).__name__} of dtype {getattr(states, 'dtype', None)}"
        )
    copy = np.ascontiguousarray(states).copy()
    over = (copy["terminated"] != 0) | (copy["truncated"] != 0)
    if over.any():
        raise ValueError(f"game {int(np.flatnonzero(over)[0])} is over; nothing to search")
    return validate_records(spec, copy, engine_records(spec.name))
