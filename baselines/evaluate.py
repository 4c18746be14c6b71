"""Head-to-head matches between agents, played through the batched env.

>>> from meeple_gym.baselines.evaluate import play_match
>>> result = play_match("century", 2, ["heuristic", "random"], num_games=1000, seed=0)
>>> result["win_rate"], result["ci_low"], result["ci_high"]

Seating. With one name per seat, game ``i`` seats agent ``j`` in seat ``(i + j) % n``, so
every agent sits in every seat equally often. With two names and more seats, the first agent
takes seat ``i % n`` in game ``i`` and the second agent fills all the other seats.

Agents. Each entry of ``agent_names`` is a name (``"random"``, ``"heuristic"``), an import
path ``"package.module:Name"``, or an agent object. An agent has ``act_batch(observations,
masks) -> actions`` (rows of the batched observation and int8 mask arrays, one action per row)
or just ``act(observation_dict) -> int`` on the PettingZoo dict ``{"observation",
"action_mask"}``, which is then called once per row (see docs/pettingzoo.md, "Agents"). A
search agent has ``act_states(states) -> actions`` instead and gets copies of the game records
of the rows it plays (``"ismcts[:key=value,...]"``, meeple_gym.baselines.ismcts).

Each game is the first game of its own batch slot, so game ``i`` of a match seeded with ``s``
deals the same cards whatever agents play it. Results are from the first agent's side: a draw
is a truncated game or a game without a single winner.

Batches. A match is played in batches of ``max_batch`` games (``match_chunks``); batch ``c``
has its own seed, and agents given by name are made afresh for each batch from that seed, so
every batch depends only on the match seed and its index. That is what lets
``meeple_gym.distributed`` play the batches of one match on different machines and get the
same results. Agent objects are used as they are, across all batches.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np

from meeple_gym.baselines.kernel_agent import game_heuristic
from meeple_gym.core.batch import MAX_SEED, check_seed
from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_agent_action, check_int
from meeple_gym.core.records import take_records
from meeple_gym.core.registry import available_games, check_num_players, get_spec, make_batch
from meeple_gym.core.rng import py_derive_key
from meeple_gym.core.sampling import policy_words, random_legal_actions

AGENT_NAMES = ("heuristic", "random", "ismcts", "net")
# Games per batch: large enough to amortise the per-step Python work, small enough for memory.
MAX_BATCH = 2048
# Game counts index int64 arrays (the seat table, the per-game results).
MAX_GAMES = (1 << 63) - 1
_CHUNK_STREAM = 0x4D41  # RNG stream id that derives the seed of each chunk after the first


class UnknownAgentError(OptionError):
    """An agent name that ``make_agent`` does not know."""


class ActBatchAdapter:
    """``act_batch`` for an agent that only has ``act(observation_dict) -> int``: one call per
    row, with ``{"observation": row, "action_mask": mask row}``."""

    def __init__(self, agent):
        self.agent = agent

    def act_batch(self, observations, masks) -> np.ndarray:
        masks = np.asarray(masks)
        out = np.empty(masks.shape[0], dtype=np.int64)
        who = f"agent {agent_label(self.agent)!r}"
        for i in range(masks.shape[0]):
            row = None if observations is None else observations[i]
            action = self.agent.act({"observation": row, "action_mask": masks[i]})
            out[i] = check_agent_action(action, masks[i], who)  # never int(7.9)
        return out


def is_search_name(name) -> bool:
    """Whether an agent name asks for the ISMCTS search (``"ismcts"`` or ``"ismcts:..."``)."""
    return isinstance(name, str) and (name == "ismcts" or name.startswith("ismcts:"))


def record_policy(agent):
    """``states -> actions`` of an agent that reads game records (has ``act_states``), else
    None. Records straight from the engine's own batch skip the snapshot check (``_search``)."""
    if not callable(getattr(agent, "act_states", None)):
        return None
    return getattr(agent, "_search", agent.act_states)


def as_agent(obj, label: str = "agent"):
    """``obj`` if it has ``act_batch`` or ``act_states``, an ``ActBatchAdapter`` if it only has
    ``act``."""
    if callable(getattr(obj, "act_batch", None)) or callable(getattr(obj, "act_states", None)):
        return obj
    if callable(getattr(obj, "act", None)):
        return ActBatchAdapter(obj)
    raise UnknownAgentError(
        f"{label} has neither act_batch(observations, masks) nor act(observation) "
        f"(got {type(obj).__name__})"
    )


def agent_label(agent) -> str:
    """How results name an agent: the string itself, else its ``name`` attribute or class."""
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) else type(agent).__name__


def make_agent(name, game: str, seed: int = 0):
    """A fresh agent: ``"random"`` (any game), ``"heuristic"`` (per game), ``"ismcts"`` or
    ``"ismcts:sims=200,rollout=heuristic,..."`` (the search agent, seeded with ``seed``), or
    ``"sb3:PATH.zip"`` (a saved PPO / MaskablePPO model, meeple_gym.baselines.sb3_agent),
    ``"net"`` / ``"net:PATH"`` (a trained network played with NumPy, the weights shipped for
    the game or a file; meeple_gym.baselines.net_agent),
    ``"package.module:Name"``: a class or factory of yours, called with ``game=...`` and
    ``seed=...`` if it takes those keywords (else with no arguments), or an agent object
    itself. An agent object passed as ``name`` is used as it is. Agents need ``act_batch``
    or ``act`` (module docstring); one with only ``act`` is wrapped in ``ActBatchAdapter``.
    ``seed``: 0 to 2**64 - 1."""
    seed = check_int("seed", seed, 0, MAX_SEED)
    if not isinstance(name, str):
        return as_agent(name)
    if is_search_name(name):
        from meeple_gym.baselines.ismcts import ISMCTSAgent

        return ISMCTSAgent.from_spec(name, game, seed)
    if name == "net" or name.startswith("net:"):  # numpy network weights (net_agent)
        from meeple_gym.baselines.net_agent import NetAgent

        return NetAgent.from_spec(name, game, seed)
    if name.startswith("sb3:"):  # a saved SB3 model; before import paths, as it has a colon
        from meeple_gym.baselines.sb3_agent import Sb3Agent

        return Sb3Agent.from_spec(name, game, seed)
    if ":" in name:
        return _import_agent(name, game, seed)
    if name == "random":
        from meeple_gym.baselines.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "heuristic":
        # The game's spec names its heuristic ("module:Class", GameSpec.heuristic).
        agent = game_heuristic(game) if game in available_games() else None
        if agent is None:
            raise UnknownAgentError(f"no heuristic agent for game {game!r}")
        return agent
    raise UnknownAgentError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")


def _import_agent(name: str, game: str, seed: int):
    import inspect

    module_name, _, attr = name.partition(":")
    if module_name in AGENT_NAMES:  # "heuristic:foo": a built-in name with parameters
        raise UnknownAgentError(
            f"agent {module_name!r} takes no parameters, got {name!r} (only ismcts:key=value does)"
        )
    if not (module_name and attr and all(p.isidentifier() for p in module_name.split("."))):
        raise UnknownAgentError(
            f"agent {name!r} is not an import path: use package.module:Name "
            f"(or one of {', '.join(AGENT_NAMES)})"
        )
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownAgentError(f"cannot import agent {name!r}: {exc}") from None
    if not inspect.isclass(cls) and (hasattr(cls, "act_batch") or hasattr(cls, "act")):
        return as_agent(cls, f"agent {name!r}")  # an agent object, not a factory
    if not callable(cls):
        raise UnknownAgentError(f"agent {name!r} is neither a class, a factory nor an agent")
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        signature = None
    params = signature.parameters if signature is not None else {}
    kwargs = {k: v for k, v in (("game", game), ("seed", seed)) if k in params}
    if signature is not None:
        try:  # a function that needs other arguments (json:dumps) is no agent factory
            signature.bind(**kwargs)
        except TypeError as exc:
            given = ", ".join(f"{k}=..." for k in kwargs) or "no arguments"
            raise UnknownAgentError(f"agent {name!r} cannot be made with {given}: {exc}") from None
    return as_agent(cls(**kwargs), f"agent {name!r}")


def seat_table(num_games: int, num_players: int, num_agents: int) -> np.ndarray:
    """(num_games, num_players) index of the agent in each seat of each game."""
    check_int("num_games", num_games, 0, MAX_GAMES)
    check_int("num_players", num_players, 1, None)
    if num_agents not in (2, num_players):
        raise OptionError(f"num_agents must be 2 or num_players ({num_players}), got {num_agents}")
    games = np.arange(num_games)[:, None]
    seats = np.arange(num_players)[None, :]
    if num_agents == num_players:
        return (seats - games) % num_players  # seat (i + j) % n holds agent j
    return (seats != games % num_players).astype(np.int64)  # agent 0 in seat i % n


def winners_from_rewards(rewards: np.ndarray) -> np.ndarray:
    """Seat with the unique highest terminal reward, or -1 (all equal, tie, truncation).
    Solo (one column, a game against an automated opponent such as Everdell's Rugwort): 0 for
    a win, -2 for a loss to that opponent, -1 for a draw."""
    if rewards.shape[1] == 1:
        return np.where(rewards[:, 0] > 0, 0, np.where(rewards[:, 0] < 0, -2, -1))
    best = rewards.max(axis=1)
    unique = (rewards == best[:, None]).sum(axis=1) == 1
    return np.where(unique & (best > rewards.min(axis=1)), rewards.argmax(axis=1), -1)


def match_chunks(num_games: int, seed: int, max_batch: int = MAX_BATCH) -> list[tuple]:
    """``(start, stop, chunk_seed)`` of each batch a match of ``num_games`` is played in:
    games ``start..stop-1`` are slots ``0..stop-start-1`` of a batch seeded ``chunk_seed``."""
    num_games = check_int("num_games", num_games, 1, MAX_GAMES)
    seed = int(check_seed(seed))
    max_batch = check_int("max_batch", max_batch, 1, None)
    return [
        (start, min(num_games, start + max_batch), seed if c == 0 else chunk_seed(seed, c))
        for c, start in enumerate(range(0, num_games, max_batch))
    ]


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of batch ``chunk`` (>= 1) of a match seeded ``seed``; batch 0 uses ``seed``."""
    chunk = check_int("chunk", chunk, 1, None)
    return py_derive_key(int(check_seed(seed)), chunk, _CHUNK_STREAM)


def agent_seed(seed: int, k: int) -> int:
    """The seed of agent ``k`` of a match or batch seeded ``seed``: ``seed + k``, wrapped to
    stay in 0 .. 2**64 - 1 (every seed is; the search agent takes no larger one)."""
    return (int(check_seed(seed)) + k) & MAX_SEED


def chunk_agents(agent_names, game: str, seed: int) -> list:
    """The agents of one batch seeded ``seed``: names made fresh (agent ``k`` seeded
    ``agent_seed(seed, k)``), objects as they are."""
    return [make_agent(name, game, agent_seed(seed, k)) for k, name in enumerate(agent_names)]


class MatchProgress:
    """The progress bar of a match or rollout: it moves at every step, not only when a game
    ends. It counts steps (one per live game per step); its total is estimated from the mean
    length of the games finished so far (the running games at least one step more), so the
    ETA firms up as games end and is left blank before. The first step of each batch loads
    the kernels (compiles them, if the cache is cold): it is shown as its own phase, and the
    first one is kept out of the rate."""

    def __init__(self, num_games: int, desc: str, enabled: bool = True, stream=None):
        from tqdm import tqdm

        self.num_games = num_games
        self.desc = desc
        self.steps = 0  # steps counted so far, over all games
        self.live = 0  # games playing in the current batch, and the step they are at
        self.at = 0
        self.ended = 0
        self.ended_steps = 0
        self.truncated = 0
        self.started = False
        self.bar = tqdm(
            total=None,
            desc=desc,
            unit="step",
            unit_scale=True,
            file=sys.stderr if stream is None else stream,
            disable=not enabled,
            leave=False,
        )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.bar.close()

    def batch_starting(self, game: str) -> None:
        if not self.started:
            self.bar.set_description_str(f"{self.desc} (loading {game} kernels)")

    def step(self, live: int, step: int) -> None:
        """``live`` games played step ``step`` of their batch."""
        if not self.started:
            self.started = True
            self.bar.set_description_str(self.desc)
            self.bar.reset(total=None)  # the loading time stays out of the rate and the ETA
        self.steps += live
        self.live, self.at = live, step
        if self.bar.disable:  # counted all the same (callers and tests read the counts)
            return
        if self.ended:
            self._estimate()
        self.bar.set_postfix_str(
            f"{self.ended}/{self.num_games} games, step {step}, {live} playing, "
            f"{self.truncated} truncated",
            refresh=False,
        )
        self.bar.update(live)

    def games_ended(self, lengths: np.ndarray, truncated: int) -> None:
        self.ended += lengths.size
        self.ended_steps += int(lengths.sum())
        self.truncated += truncated
        self.live -= lengths.size
        self._estimate()

    def _estimate(self) -> None:
        # The games still playing last at least one more step, the rest a mean game each.
        mean = self.ended_steps / self.ended
        unstarted = self.num_games - self.ended - self.live
        estimate = self.steps + self.live * max(mean - self.at, 1) + unstarted * mean
        self.bar.total = max(round(estimate), self.steps)


def _play_chunk(game, num_players, agents, seats, seed, progress, record=None):
    """Play one game per slot of a batch; returns (winner seat, scores, lengths, truncated).
    ``progress`` (a ``MatchProgress`` or None) hears of every step and every finished game.
    ``record(rows, players, actions, observations, masks)``, if given, sees every decision
    of a counted game before it is played (rows: slots of this batch)."""
    size = seats.shape[0]
    if progress is not None:
        progress.batch_starting(game)
    batch = make_batch(game, size, num_players, seed)
    obs = batch.reset()
    done = np.zeros(size, dtype=bool)
    winner = np.full(size, -1, dtype=np.int64)
    scores = np.zeros((size, num_players), dtype=np.int64)
    lengths = np.zeros(size, dtype=np.int64)
    truncated = np.zeros(size, dtype=bool)
    actions = np.zeros(size, dtype=np.int64)
    # Slots whose counted game is over still need legal actions until the chunk ends.
    filler_words = policy_words(seed, size)
    rows = np.arange(size)
    step = 0
    while not done.all():
        random_legal_actions(batch.legal_mask, filler_words, actions)
        to_act = seats[rows, batch.current_player]
        for k, agent in enumerate(agents):
            idx = np.flatnonzero((to_act == k) & ~done)
            if idx.size == 0:
                continue
            search = record_policy(agent)
            if search is not None:  # it determinizes the records itself
                out = search(take_records(batch.states, idx))
            else:
                out = agent.act_batch(obs[idx], batch.legal_mask[idx])
            # Assigning into the int64 array would silently truncate floats: check first.
            who = f"agent {agent_label(agent)!r}"
            actions[idx] = check_agent_action(out, batch.legal_mask[idx], who)
        if record is not None:
            live = np.flatnonzero(~done)
            mask = batch.legal_mask
            record(live, batch.current_player[live], actions[live], obs[live], mask[live])
        obs, rewards, term, trunc = batch.step(actions)
        step += 1  # every game of a chunk starts together: the live games are all at `step`
        if progress is not None:
            progress.step(size - int(done.sum()), step)
        ended = np.flatnonzero((term | trunc) & ~done)
        if ended.size:
            done[ended] = True
            winner[ended] = winners_from_rewards(rewards[ended])
            winner[ended[trunc[ended]]] = -1
            scores[ended] = batch.final_scores[ended][:, :num_players]
            lengths[ended] = batch.final_lengths[ended]
            truncated[ended] = trunc[ended]
            if progress is not None:
                progress.games_ended(lengths[ended], int(trunc[ended].sum()))
    return winner, scores, lengths, truncated


def match_progress(num_games: int, desc: str, progress) -> MatchProgress:
    """``progress`` itself if it is a ``MatchProgress`` (tests pass their own), else a new
    one, shown on stderr if ``progress`` is true."""
    if isinstance(progress, MatchProgress):
        return progress
    return MatchProgress(num_games, desc, enabled=bool(progress))


def check_match(game: str, num_players: int, agent_names, num_games, seed) -> list:
    """Check a match's arguments (clear errors, nothing played); returns the agent list."""
    check_num_players(get_spec(game), num_players)
    check_seed(seed)
    agent_names = list(agent_names)
    if len(agent_names) not in (2, num_players):
        raise OptionError(
            f"give {num_players} agents (one per seat) or 2 (first agent vs the rest), "
            f"got {len(agent_names)}"
            if num_players != 2
            else f"give 2 agents (one per seat), got {len(agent_names)}"
        )
    check_int("num_games", num_games, 1, MAX_GAMES)
    return agent_names


def play_match(
    game: str,
    num_players: int,
    agent_names: list,
    num_games: int,
    seed: int = 0,
    progress: bool = True,
    max_batch: int = MAX_BATCH,
) -> dict:
    """Play ``num_games`` games and report them from the first agent's side. ``agent_names``
    holds names, import paths or agent objects (module docstring); results name objects by
    their ``name`` attribute or class name. Objects are used as they are (their own state and
    randomness carry over between calls); names are made fresh for each batch of
    ``max_batch`` games, seeded from that batch's seed (``match_chunks``), so results depend
    on ``max_batch`` only for matches longer than one batch. ``progress``: show a bar on
    stderr, or a ``MatchProgress`` to report to."""
    agent_names = check_match(game, num_players, agent_names, num_games, seed)
    max_batch = check_int("max_batch", max_batch, 1, None)
    agents = chunk_agents(agent_names, game, seed)
    labels = [agent_label(name) for name in agent_names]
    seats = seat_table(num_games, num_players, len(agents))

    winner = np.empty(num_games, dtype=np.int64)
    scores = np.empty((num_games, num_players), dtype=np.int64)
    lengths = np.empty(num_games, dtype=np.int64)
    truncated = np.empty(num_games, dtype=bool)
    with match_progress(num_games, f"{game} {' vs '.join(labels)}", progress) as bar:
        for c, (start, stop, c_seed) in enumerate(match_chunks(num_games, seed, max_batch)):
            if c > 0:
                agents = chunk_agents(agent_names, game, c_seed)
            part = _play_chunk(game, num_players, agents, seats[start:stop], c_seed, bar)
            for dest, values in zip((winner, scores, lengths, truncated), part, strict=True):
                dest[start:stop] = values
    return match_summary(game, num_players, labels, seed, seats, winner, scores, lengths, truncated)


def match_summary(game, num_players, labels, seed, seats, winner, scores, lengths, truncated):
    """``play_match``'s result from the per-game arrays of a whole match."""
    from scipy.stats import binomtest

    num_games = seats.shape[0]
    first_seat = np.argmax(seats == 0, axis=1)  # the first agent holds exactly one seat
    has_winner = winner >= 0
    wins = int(np.sum(has_winner & (winner == first_seat)))
    draws = int(np.sum(winner == -1))  # -2: a solo game lost to the automated opponent
    losses = num_games - wins - draws
    ci = binomtest(wins, num_games).proportion_ci(confidence_level=0.95, method="wilson")
    rows = np.arange(num_games)
    mean_scores = [float(scores[seats == k].mean()) for k in range(len(labels))]
    return {
        "game": game,
        "num_players": num_players,
        "agents": labels,
        "games": num_games,
        "seed": seed,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / num_games,
        "ci_low": float(ci.low),
        "ci_high": float(ci.high),
        "truncated": int(truncated.sum()),
        "mean_score": float(scores[rows, first_seat].mean()),
        "mean_scores": mean_scores,
        "mean_length": float(lengths.mean()),
        # Per game: index (into ``agents``) of the agent in the winning seat, or -1 (no single
        # winner) / -2 (a solo game lost to the automated opponent).
        "winning_agent": np.where(winner >= 0, seats[rows, np.maximum(winner, 0)], winner).tolist(),
        "wins_by_seat": [
            int(np.sum((first_seat == p) & (winner == p))) for p in range(num_players)
        ],
    }
