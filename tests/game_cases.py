"""Kernel-level game drivers and agent checks shared by the per-game baseline tests.

Games are driven with the rules kernels directly (init_game / legal_mask_into / apply_action)
and the game's encoder, independent of the PettingZoo env. Each per-game test file keeps its
own seeds, player counts and thresholds; only the loops and the assertions live here.
"""

from importlib import import_module

import numpy as np
import pytest

from meeple_gym.baselines.random_agent import RandomAgent
from meeple_gym.core.rng import game_key


class KernelGame:
    """One game's rules module and encoder; ``over(s)`` says when a record's game has ended."""

    def __init__(self, name, over=None):
        self.rules = import_module(f"meeple_gym.{name}.rules")
        self.encoder = import_module(f"meeple_gym.encoders.{name}")
        self.num_actions = self.rules.NUM_ACTIONS
        self.obs_size = self.encoder.OBS_SIZE
        self._over = over

    def over(self, s):
        if self._over is not None:
            return self._over(s)
        return s["terminated"] == 1 or s["truncated"] == 1

    def new(self, num_players, key, options=0):
        states = np.zeros(1, self.rules.STATE_DTYPE)
        self.rules.init_game(states, 0, num_players, key, options)
        return states

    def random_positions(self, states, seed, every):
        """Copies of the uniform-random game played on from ``states`` (moves drawn from
        ``default_rng(seed)``) every ``every`` decisions, end included."""
        rng = np.random.default_rng(seed)
        mask = np.zeros(self.num_actions, np.int8)
        step = 0
        while not self.over(states[0]):
            if step % every == 0:
                yield states.copy()
            self.rules.legal_mask_into(states, 0, mask)
            self.rules.apply_action(states, 0, rng.choice(np.flatnonzero(mask)))
            step += 1
        yield states.copy()

    def observe(self, states, player):
        out = np.full(self.obs_size, -7.0, np.float32)  # junk: encode_into must overwrite all
        self.encoder.encode_into(states, 0, player, out)
        return out

    def assert_same_view(self, a, b, players):
        """Every seat in ``players`` gets the same observation of ``a`` and ``b``."""
        for player in players:
            np.testing.assert_array_equal(self.observe(a, player), self.observe(b, player))

    def assert_only_owner_sees(self, a, b, owner, num_players):
        """Of ``num_players`` seats only ``owner`` tells ``a`` and ``b`` apart: its secret."""
        self.assert_same_view(a, b, [p for p in range(num_players) if p != owner])
        assert not np.array_equal(self.observe(a, owner), self.observe(b, owner))

    def decide(self, agent, states, player=None):
        """The agent's action for the player to act (or ``player``), checked legal."""
        mask = np.zeros(self.num_actions, np.int8)
        self.rules.legal_mask_into(states, 0, mask)
        obs = np.zeros(self.obs_size, np.float32)
        seat = int(states[0]["current_player"]) if player is None else player
        self.encoder.encode_into(states, 0, seat, obs)
        action = agent.act({"observation": obs, "action_mask": mask})
        assert mask[action] == 1, (action, np.flatnonzero(mask))
        return action

    def play(self, states, agents, on_decision=None):
        """Play game 0 of ``states`` to the end; ``agents[player]`` is any agent with ``act``.

        ``on_decision(states, player, obs, mask, action)`` sees every decision."""
        s = states[0]
        mask = np.zeros(self.num_actions, np.int8)
        obs = np.zeros(self.obs_size, np.float32)
        while not self.over(s):
            player = int(s["current_player"])
            self.rules.legal_mask_into(states, 0, mask)
            self.encoder.encode_into(states, 0, player, obs)
            action = agents[player].act({"observation": obs, "action_mask": mask})
            assert mask[action] == 1, (action, np.flatnonzero(mask))
            if on_decision is not None:
                on_decision(states, player, obs, mask, action)
            self.rules.apply_action(states, 0, action)
        return s

    def heuristic_legal_on_random_games(self, agent, games, seed=5):
        """Uniform-random games from ``games`` (a list of ``states``); the agent answers for the
        player to act at every step, through the batch encoder and the batch agent. Returns the
        number of positions checked."""
        rng = np.random.default_rng(seed)
        checked = 0
        for states in games:
            mask = np.zeros((1, self.num_actions), np.int8)
            obs = np.zeros((1, self.obs_size), np.float32)
            while not self.over(states[0]):
                self.rules.legal_mask_into(states, 0, mask[0])
                self.encoder.encode_batch(states, states["current_player"].astype(np.int64), obs)
                assert mask[0, agent.act_batch(obs, mask)[0]] == 1
                self.rules.apply_action(states, 0, rng.choice(np.flatnonzero(mask[0])))
                checked += 1
        return checked


def observation_views(name, over=None):
    """``{"full": game, "compact": game}``: ``KernelGame(name, over)`` observed through its
    full encoder and through its compact one (``observation="compact"``)."""
    full, compact = KernelGame(name, over), KernelGame(name, over)
    compact.encoder = full.encoder.COMPACT
    compact.obs_size = full.encoder.COMPACT_OBS_SIZE
    return {"full": full, "compact": compact}


def view_fixture(views):
    """A fixture ``view``: each test that takes it runs once per game of ``views``
    (``observation_views``), the full and the compact observation."""

    @pytest.fixture(params=tuple(views))
    def view(request):
        return views[request.param]

    return view


def legal_set(rules, states):
    """The kernel's legal actions in game 0 of ``states``, as a set."""
    mask = np.zeros(rules.NUM_ACTIONS, np.int8)
    rules.legal_mask_into(states, 0, mask)
    return {int(a) for a in np.flatnonzero(mask)}


def act_checked(rules, states, actions, where=None):
    """Apply each action after checking that the kernel itself calls it legal (``where()``
    adds context to the failure message)."""
    for action in actions:
        context = "" if where is None else f" in {where(states)}"
        assert action in legal_set(rules, states), f"action {action} is not legal{context}"
        rules.apply_action(states, 0, action)


def assert_batch_encode_equals_single(encoder, states, players):
    """``encode_batch`` over rows of ``states`` (for ``players[g]``) equals ``encode_into``."""
    out = np.full((len(states), encoder.OBS_SIZE), -7.0, np.float32)  # junk to overwrite
    encoder.encode_batch(states, players, out)
    for g in range(len(states)):
        single = np.zeros(encoder.OBS_SIZE, np.float32)
        encoder.encode_into(states, g, players[g], single)
        np.testing.assert_array_equal(out[g], single)


def observation_bounds(encoder):
    """The encoder's bounds, checked equal to OBS_LOW/OBS_HIGH, float32, one per feature."""
    low, high = encoder.observation_space_bounds()
    np.testing.assert_array_equal(low, encoder.OBS_LOW)
    np.testing.assert_array_equal(high, encoder.OBS_HIGH)
    assert low.shape == high.shape == (encoder.OBS_SIZE,)
    assert low.dtype == high.dtype == np.float32
    assert np.all(low <= high)
    return low, high


def assert_within(obs, low, high):
    bad = np.flatnonzero((obs < low) | (obs > high))
    assert bad.size == 0, (bad, obs[bad], high[bad])


def reshuffled(states, rng):
    """A copy of ``states`` with the deck order (``deck[:deck_n]``) and the RNG word redrawn
    from ``rng``, or None when the deck has fewer than two different cards."""
    other = states.copy()
    s = other[0]
    n = s["deck_n"]
    if n < 2 or len(set(s["deck"][:n].tolist())) < 2:
        return None
    s["deck"][:n] = rng.permutation(s["deck"][:n])
    s["rng"][0] = np.uint64(rng.integers(1 << 62))
    return other


def pull_from_deck(s, t, name):
    """Take the copy of card type ``t`` nearest the top out of record ``s``'s draw deck
    (``deck[:deck_n]``, top last); returns the deck size before."""
    n = int(s["deck_n"])
    deck = [int(x) for x in s["deck"][:n]]
    assert t in deck, f"no {name} left in the deck"
    k = len(deck) - 1 - deck[::-1].index(t)
    del deck[k]
    s["deck"][: n - 1] = deck
    s["deck_n"] = n - 1
    return n


def count_reshuffled_unseen(positions, rng, assert_unseen, edit=None):
    """For each position with a deck to reshuffle, ``reshuffled`` copy (then ``edit`` its record
    in place, if given) and ``assert_unseen(original, copy)``; returns how many were checked."""
    checked = 0
    for states in positions:
        other = reshuffled(states, rng)
        if other is None:
            continue
        if edit is not None:
            edit(other[0])
        assert_unseen(states, other)
        checked += 1
    return checked


def count_unseen_edits(positions, edit, assert_unseen):
    """For each position, ``edit`` a copy's record in place (it returns whether it changed
    anything) and ``assert_unseen(original, copy)``; returns how many copies were edited."""
    checked = 0
    for states in positions:
        other = states.copy()
        if edit(other[0]):
            assert_unseen(states, other)
            checked += 1
    return checked


def assert_name_tables(tables):
    """Each (keys, names, key-to-id dict, count): unique keys and names, ids in key order,
    lower-case identifier keys."""
    for keys, names, index, n in tables:
        assert len(set(keys)) == len(set(names)) == len(keys) == n
        assert all(index[k] == i for i, k in enumerate(keys))
        assert all(k.isidentifier() and k == k.lower() for k in keys)


class DecisionLog:
    """An ``on_decision`` callback that keeps every observation and mask it sees."""

    def __init__(self):
        self.obs, self.masks = [], []

    def __call__(self, states, player, obs, mask, action):
        self.obs.append(obs.copy())
        self.masks.append(mask.copy())

    def assert_batch_matches_single(self, agent):
        """``act_batch`` over every logged row is legal and equals the one-at-a-time ``act``."""
        obs = np.stack(self.obs)
        masks = np.stack(self.masks)
        batch = agent.act_batch(obs, masks)
        assert batch.shape == (len(masks),)
        assert np.all(masks[np.arange(len(masks)), batch] == 1)
        pairs = zip(obs, masks, strict=True)
        singles = [agent.act({"observation": o, "action_mask": m}) for o, m in pairs]
        np.testing.assert_array_equal(batch, singles)


def assert_rejects_bad_inputs(agent, obs_size, num_actions):
    """No legal action, a short observation or mismatched batch rows raise ValueError."""
    empty = np.zeros(num_actions, np.int8)
    obs = np.zeros(obs_size, np.float32)
    with pytest.raises(ValueError):
        agent.act({"observation": obs, "action_mask": empty})
    with pytest.raises(ValueError):
        agent.act({"observation": obs[:10], "action_mask": empty})
    with pytest.raises(ValueError):
        agent.act_batch(obs[None, :], np.zeros((2, num_actions), np.int8))


def heuristic_win_rate(game, heuristic, games, seed, game_seed):
    """Share of 2-player games the heuristic wins against the random agent, seats swapped
    each game; game ``index`` is dealt from ``game_key(*game_seed(seed, index))``."""
    wins = 0
    for index in range(games):
        seat = index % 2
        agents = [RandomAgent(seed * 100_003 + index)] * 2
        agents[seat] = heuristic
        s = game.play(game.new(2, game_key(*game_seed(seed, index))), agents)
        wins += int(s["terminated"] == 1 and s["winner"] == seat)
    return wins / games


# ---- the reference implementations against the kernels -------------------------------------


class Mismatch(AssertionError):
    """The slow reference and the kernel disagree at some step."""


def flat_diff(ref_view, kernel_view):
    return "\n".join(
        f"  {key}:\n    reference {ref_view[key]}\n    kernel    {kernel_view[key]}"
        for key in ref_view
        if ref_view[key] != kernel_view[key]
    )


def compare_play(ref, states, rules, label, *, projection, choose, check=None, **how):
    """Drive the reference game ``ref`` and kernel game 0 of ``states`` with the same actions
    (``choose(ref, legal)``), comparing the projections and legal actions at every step;
    raises Mismatch at the first difference and returns the finished reference game.

    ``check(ref, states, mask, fail)`` adds a game's own checks at every step, the end
    included. ``how``: ``diff`` (of two projections, default ``flat_diff``), ``stop(history)``
    (ends early when true), ``history_len`` (actions quoted on failure, default 12) and
    ``what`` (the projections' name in the message, default "states")."""
    diff, stop = how.get("diff", flat_diff), how.get("stop")
    history_len, what = how.get("history_len", 12), how.get("what", "states")
    mask = np.zeros(rules.NUM_ACTIONS, np.int8)
    history = []

    def fail(message):
        tail = ", ".join(str(a) for a in history[-history_len:])
        raise Mismatch(f"{label} step {ref.step_count}: {message}\n  last actions: [{tail}]")

    while True:
        rules.legal_mask_into(states, 0, mask)
        kernel_legal = np.flatnonzero(mask).tolist()
        ref_view = ref.projection()
        kernel_view = projection(states[0])
        if ref_view != kernel_view:
            fail(f"{what} differ\n" + diff(ref_view, kernel_view))
        legal = ref.legal_actions()
        if kernel_legal != legal:
            fail(f"legal actions differ\n  reference {legal}\n  kernel    {kernel_legal}")
        if check is not None:
            check(ref, states, mask, fail)
        if ref.is_over or (stop is not None and stop(history)):
            return ref
        action = choose(ref, legal)
        history.append(action)
        ref.step(action)
        rules.apply_action(states, 0, action)


def assert_rejects_illegal_without_change(ref, actions):
    """Each of ``actions`` that is illegal for the reference game raises ValueError and
    leaves its projection as it was; returns how many were tried."""
    before = ref.projection()
    legal = set(ref.legal_actions())
    tried = 0
    for action in actions:
        if action in legal:
            continue
        with pytest.raises(ValueError):
            ref.step(action)
        tried += 1
    assert ref.projection() == before
    return tried
