"""Determinization of Radlands and Everdell (docs/radlands.md and docs/everdell.md,
Determinization): ``envs/<game>/determinize.py`` resamples what a seat may not know.

Checked at positions reached by uniform-random play: the seat's observation is unchanged,
card multisets are preserved, the draw is uniform over the unknown cards (chi-square at a
fixed seed), it depends only on the key (batch rows, threads), the result passes the snapshot
gate and plays on to the end, and the hidden cards really move.
"""

from collections import Counter

import numba
import numpy as np
import pytest
from scipy.stats import chisquare

from meeple_gym.core.rng import STREAM_DETERMINIZE, derive_key, game_key
from meeple_gym.everdell import determinize as everdell_det
from meeple_gym.everdell import rules as ER
from meeple_gym.everdell.snapshot import card_piles
from meeple_gym.everdell.spec import SPEC as EVERDELL
from meeple_gym.radlands import determinize as radlands_det
from meeple_gym.radlands import rules as RR
from meeple_gym.radlands.spec import SPEC as RADLANDS

GAMES = {
    "radlands": (RADLANDS, radlands_det, (2,)),
    "everdell": (EVERDELL, everdell_det, (1, 2, 3, 4)),
}
CASES = [(name, n) for name, (_, _, counts) in GAMES.items() for n in counts]


def _over(spec, s) -> bool:
    return bool(s["terminated"] or s["truncated"])


def _positions(spec, num_players, count, seed, every=7, options=0):
    """At least ``count`` copies of records reached by uniform-random play, one every
    ``every`` steps on average (draft and first steps included), from whole games."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(spec.num_actions, np.int8)
    out = []
    k = 0
    while len(out) < count:
        k += 1
        states = np.zeros(1, spec.state_dtype)
        spec.init_game(states, 0, num_players, game_key(seed, k), np.int64(options))
        while not _over(spec, states[0]):
            if rng.random() < 1.0 / every:
                out.append(states.copy())
            spec.legal_mask_into(states, 0, mask)
            spec.apply_action(states, 0, int(rng.choice(np.flatnonzero(mask))))
    return out


def _obs(spec, states, player):
    out = np.zeros(spec.obs_size, np.float32)
    spec.encode_into(states, 0, player, out)
    return out


def _mask(spec, states):
    out = np.zeros(spec.num_actions, np.int8)
    spec.legal_mask_into(states, 0, out)
    return out


def _det(module, states, player, key):
    copy = states.copy()
    module.determinize_into(copy, 0, player, np.uint64(key))
    return copy


# ---- card multisets --------------------------------------------------------------------------


def _radlands_cards(s) -> Counter:
    """Every draw-deck card wherever it is (as tests/test_radlands_invariants.py counts them).
    Camps are not cards of the deck: the opponent's draft offer is resampled, not kept."""
    seen = Counter()
    seen.update(("card", int(t)) for t in s["deck"][: int(s["deck_n"])])
    seen.update(("card", int(t)) for t in s["discard"][: int(s["discard_n"])])
    for p in range(2):
        for t in range(RR.N_DT):
            seen[("card", t)] += int(s["hand"][p, t])
        for c in range(RR.COLS):
            for i in range(int(s["col_len"][p, c])):
                if s["ent_kind"][p, c, i] == RR.PERSON:
                    seen[("card", int(s["ent_type"][p, c, i]))] += 1
        seen.update(("card", int(e)) for e in s["queue"][p] if 0 <= e < RR.RAIDERS)
    if s["lift_uid"] != 0:
        seen[("card", int(s["lift_type"]))] += 1
    for d in range(int(s["depth"])):
        if s["fr_fin"][d] == RR.FIN_DISCARD:
            seen[("card", int(s["fr_fin_arg"][d]))] += 1
        elif (
            s["fr_prog"][d] == RR.INTERNAL
            and s["fr_op"][d] == RR.I_RESOLVE_EVENT
            and s["fr_pc"][d] == 0
            and s["fr_arg"][d] < RR.RAIDERS
        ):
            seen[("card", int(s["fr_arg"][d]))] += 1
    return seen


def _everdell_cards(s) -> Counter:
    """Every card wherever it is: piles, Meadow, hands, cities, jails, Rugwort, revealed, and
    the card a play task holds (EVD-S4)."""
    n = int(s["seats"])
    seen = Counter()
    for pile in card_piles(s, n):
        seen.update(int(t) for t in pile if t >= 0)
    for t in range(ER.NT):
        seen[t] += int(s["hand"][:n, t].sum()) + int(s["rug_city"][t])
    for f in range(int(s["depth"])):
        if s["fr_kind"][f] == ER.T_PLAY:
            seen[("task", f, int(s["fr_a"][f]))] += 1
    return seen


CARDS = {"radlands": _radlands_cards, "everdell": _everdell_cards}


def _hidden(name, s, player):
    """What ``player`` may not see, as bytes: deck order and other hands, plus punks and the
    opponent's draft (Radlands) or the discard pile (Everdell)."""
    parts = [s["deck"][: int(s["deck_n"])], s["hand"]]
    if name == "radlands":
        parts += [s["ent_type"][s["ent_punk"] == 1], s["offer"][1 - player], s["first_player"]]
    else:
        parts += [s["discard"][: int(s["discard_n"])], s["revealed"]]
    return b"".join(np.asarray(x).tobytes() for x in parts)


@pytest.fixture(scope="module")
def positions():
    cache = {}

    def get(name, num_players):
        if (name, num_players) not in cache:
            spec = GAMES[name][0]
            cache[name, num_players] = _positions(spec, num_players, 120, seed=13 + num_players)
        return cache[name, num_players]

    return get


# ---- (1) observation kept, (2) cards kept, (5) legal ------------------------------------------


@pytest.mark.parametrize("name,num_players", CASES)
def test_observation_and_cards_kept(name, num_players, positions):
    """The determinized state's observation for ``player`` equals the original's,
    the legal actions of a deciding ``player`` are the same, and every card is still counted
    once (the same multiset across all zones)."""
    spec, module, _ = GAMES[name]
    found = positions(name, num_players)
    assert len(found) > 50
    for k, states in enumerate(found):
        for player in range(num_players):
            det = _det(module, states, player, derive_key(k, player, 0))
            assert np.array_equal(_obs(spec, states, player), _obs(spec, det, player)), (k, player)
            assert CARDS[name](det[0]) == CARDS[name](states[0])
            if not _over(spec, states[0]) and states[0]["current_player"] == player:
                assert np.array_equal(_mask(spec, states), _mask(spec, det))
            assert np.array_equal(det[0]["hand"][player], states[0]["hand"][player])
            if name == "radlands":  # 12 distinct camps offered, kept ones among them
                offered = det[0]["offer"][det[0]["offer"] >= 0]
                assert len(set(offered.tolist())) == offered.size


@pytest.mark.parametrize("name,num_players", CASES)
def test_determinized_state_is_legal_and_plays_on(name, num_players, positions):
    """A determinized state passes the snapshot gate (every field and invariant
    re-validated, pending options recomputed) and random play from it reaches the end."""
    spec, module, _ = GAMES[name]
    rng = np.random.default_rng(5)
    found = positions(name, num_players)
    for k in range(0, len(found), max(1, len(found) // 25)):
        states = found[k]
        player = int(rng.integers(num_players))
        det = _det(module, states, player, derive_key(99, k, 0))
        loaded = spec.load(spec.to_dict(det, 0))
        assert loaded.tobytes() == det.tobytes()
        mask = np.zeros(spec.num_actions, np.int8)
        while not _over(spec, det[0]):
            spec.legal_mask_into(det, 0, mask)
            legal = np.flatnonzero(mask)
            assert legal.size > 0
            spec.apply_action(det, 0, int(rng.choice(legal)))


# ---- (6) hidden information moves -----------------------------------------------------------


@pytest.mark.parametrize("name,num_players", CASES)
def test_hidden_information_changes_across_seeds(name, num_players, positions):
    """Where something is hidden (two unknown cards of different kinds), different
    seeds give different hidden arrangements, and the seat's own private cards never move."""
    spec, module, _ = GAMES[name]
    moved = 0
    for k, states in enumerate(positions(name, num_players)[::3]):
        player = k % num_players
        s = states[0]
        if int(s["deck_n"]) < 2 or len(set(s["deck"][: int(s["deck_n"])].tolist())) < 2:
            continue
        variants = {
            _hidden(name, _det(module, states, player, seed)[0], player) for seed in range(8)
        }
        assert len(variants) > 1, k
        moved += 1
    assert moved > 5


# ---- (4) determinism ------------------------------------------------------------------------


@pytest.mark.parametrize("name,num_players", CASES)
def test_depends_only_on_the_key(name, num_players, positions):
    """The same key gives the same state; batch row i equals ``determinize_into``
    with ``derive_key(seed, i, STREAM_DETERMINIZE)``; the thread count does not matter."""
    spec, module, _ = GAMES[name]
    found = positions(name, num_players)[:40]
    batch = np.concatenate(found)
    players = np.arange(len(found), dtype=np.int64) % num_players
    seed = 2024
    expected = batch.copy()
    for i in range(len(found)):
        key = np.uint64(derive_key(seed, i, STREAM_DETERMINIZE))
        module.determinize_into(expected, i, int(players[i]), key)
    again = batch.copy()
    for i in range(len(found)):
        key = np.uint64(derive_key(seed, i, STREAM_DETERMINIZE))
        module.determinize_into(again, i, int(players[i]), key)
    assert again.tobytes() == expected.tobytes()
    threads = numba.get_num_threads()
    try:
        for n in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(n)
            out = batch.copy()
            module.determinize_batch(out, players, np.uint64(seed))
            assert out.tobytes() == expected.tobytes(), n
    finally:
        numba.set_num_threads(threads)
    assert expected.tobytes() != batch.tobytes()


# ---- (3) uniformity -------------------------------------------------------------------------

DRAWS = 3000


def _uniform(observed: Counter, weights: Counter):
    """Chi-square of ``observed`` against draws proportional to ``weights``."""
    kinds = sorted(t for t, w in weights.items() if w > 0)
    total = sum(weights.values())
    n = sum(observed.values())
    assert set(observed) <= set(kinds)
    obs = np.array([observed[t] for t in kinds], float)
    exp = np.array([n * weights[t] / total for t in kinds])
    return chisquare(obs, exp).pvalue


def _first_position(positions, name, num_players, want):
    for states in positions(name, num_players):
        if want(states[0]):
            return states
    raise AssertionError("no such position in the random games")


def test_radlands_uniform_over_unknown_cards(positions):
    """At a fixed mid-game position, the deck's top card, the opponent's hand and a
    punk each follow the multiset of cards seat 0 cannot see (chi-square, fixed seed)."""

    def want(s):
        punks = int(((s["ent_punk"] == 1) & (s["ent_kind"] == RR.PERSON)).sum())
        return s["phase"] == RR.PHASE_ACTIONS and s["hand"][1].sum() >= 2 and punks >= 1

    states = _first_position(positions, "radlands", 2, want)
    s = states[0]
    pool = Counter(int(t) for t in s["deck"][: int(s["deck_n"])])
    for t in range(RR.N_DT):
        pool[t] += int(s["hand"][1, t])
    punk_at = np.argwhere((s["ent_punk"] == 1) & (s["ent_kind"] == RR.PERSON))
    for p, c, i in punk_at:
        pool[int(s["ent_type"][p, c, i])] += 1
    p, c, i = punk_at[0]
    top, punk, hand = Counter(), Counter(), Counter()
    for seed in range(DRAWS):
        d = _det(radlands_det, states, 0, derive_key(7, seed, 0))[0]
        top[int(d["deck"][int(d["deck_n"]) - 1])] += 1
        punk[int(d["ent_type"][p, c, i])] += 1
        for t in np.flatnonzero(d["hand"][1]):
            hand[int(t)] += int(d["hand"][1, t])
    assert _uniform(top, pool) > 1e-3
    assert _uniform(punk, pool) > 1e-3
    # hand cards are drawn without replacement: the aggregate is still proportional
    assert _uniform(hand, pool) > 1e-3


def test_radlands_draft_uniform(positions):
    """The Radlands draft: during the draft the opponent's offer is uniform over
    the 28 camps seat 1 was not offered, and the first player is a fair coin (RAD-S5)."""
    states = _first_position(positions, "radlands", 2, lambda s: s["phase"] == RR.PHASE_DRAFT)
    own = set(states[0]["offer"][1].tolist())
    slot0, first = Counter(), Counter()
    for seed in range(DRAWS):
        d = _det(radlands_det, states, 1, derive_key(8, seed, 0))[0]
        slot0[int(d["offer"][0, 0])] += 1
        first[int(d["first_player"])] += 1
        assert not own & set(d["offer"][0].tolist())
    assert _uniform(slot0, Counter({c: 1 for c in range(RR.N_CAMPS) if c not in own})) > 1e-3
    assert _uniform(first, Counter({0: 1, 1: 1})) > 1e-3


@pytest.mark.parametrize("num_players", [1, 3])
def test_everdell_uniform_over_unknown_cards(num_players, positions):
    """At a fixed Everdell position, the deck's top card and the discard pile's top
    follow the multiset of cards seat 0 cannot see: deck, discard and other hands (chi-square,
    fixed seed)."""

    def want(s):
        return s["deck_n"] > 10 and s["discard_n"] >= 1 and s["current_player"] == 0

    states = _first_position(positions, "everdell", num_players, want)
    s = states[0]
    pool = Counter(int(t) for t in s["deck"][: int(s["deck_n"])])
    pool.update(int(t) for t in s["discard"][: int(s["discard_n"])])
    for q in range(1, num_players):
        for t in range(ER.NT):
            pool[t] += int(s["hand"][q, t])
    top, bottom = Counter(), Counter()
    for seed in range(DRAWS):
        d = _det(everdell_det, states, 0, derive_key(9, seed, 0))[0]
        top[int(d["deck"][int(d["deck_n"]) - 1])] += 1
        bottom[int(d["discard"][0])] += 1
    assert _uniform(top, pool) > 1e-3
    assert _uniform(bottom, pool) > 1e-3


# ---- the public forms -----------------------------------------------------------------------


@pytest.mark.parametrize("name,num_players", [("radlands", 2), ("everdell", 3)])
def test_public_api(name, num_players):
    """The spec carries both kernels; ``raw_env.determinize(player, seed)`` is
    ``determinize_into`` with key ``derive_key(seed, 0, STREAM_DETERMINIZE)`` on a clone, and
    ``BatchEnv.determinize`` is ``determinize_batch`` on a copy of the records."""
    import meeple_gym as mg

    spec, module, _ = GAMES[name]
    assert spec.determinize_into is module.determinize_into
    assert spec.determinize_batch is module.determinize_batch
    env = mg.make(name, num_players=num_players)
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(30):
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
    raw = env.unwrapped
    before = raw.state_array.copy()
    twin = raw.determinize(1, 12)
    want = _det(module, before, 1, derive_key(12, 0, STREAM_DETERMINIZE))
    assert twin.state_array.tobytes() == want.tobytes()
    assert raw.state_array.tobytes() == before.tobytes()

    batch = mg.make_batch(name, 4, num_players, seed=5)
    batch.reset()
    records = batch.get_states()
    players = np.arange(4) % num_players
    out = batch.determinize(players, 9)
    expected = records.copy()
    module.determinize_batch(expected, players.astype(np.int64), np.uint64(9))
    assert out.tobytes() == expected.tobytes()
