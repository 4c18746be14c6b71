"""Determinization, a public primitive: the core API (``raw_env.determinize``,
``BatchEnv.determinize``, ``GameSpec.determinize_*``) and the Century and Endeavor kernels.

Each property is the issue's: the determinized state's observation for the player is the
original's, card multisets are preserved, the resampling is uniform over the unknown cards
(chi-square at a fixed seed), results depend only on (seed, row), the state is legal (the
snapshot gate accepts it and play continues to the end), and hidden information does change.
Radlands and Everdell are in tests/test_determinize_radlands_everdell.py.
"""

import dataclasses
from collections import Counter

import numba
import numpy as np
import pytest
from scipy.stats import chisquare

import meeple_gym as mg
from meeple_gym.core.aec import MeepleAECEnv
from meeple_gym.core.errors import GameOverError, NotResetError, OptionError
from meeple_gym.core.registry import get_spec
from meeple_gym.core.rng import STREAM_DETERMINIZE, game_key, py_derive_key

GAMES = ("century", "endeavor")
PLAYER_COUNTS = {"century": (2, 3, 5), "endeavor": (2, 3, 4)}
# Chi-square tests use fixed seeds, so they are deterministic; this bound only has to hold
# for those seeds (a wrong sampler gives p-values many orders of magnitude lower).
P_MIN = 1e-3


def _key(seed: int, row: int = 0) -> np.uint64:
    return np.uint64(py_derive_key(seed, row, STREAM_DETERMINIZE))


def _over(states) -> bool:
    return bool(states[0]["terminated"] or states[0]["truncated"])


def _play(spec, states, rng, steps=None):
    """Random legal moves: ``steps`` of them (fewer if the game ends), or to the end."""
    mask = np.zeros(spec.num_actions, np.int8)
    done = 0
    while not _over(states) and (steps is None or done < steps):
        spec.legal_mask_into(states, 0, mask)
        spec.apply_action(states, 0, int(rng.choice(np.flatnonzero(mask))))
        done += 1


def _positions(name, num_players, count, seed, per_game=4):
    """``count`` positions of games in progress, taken at random steps of random games."""
    spec = get_spec(name)
    rng = np.random.default_rng(seed)
    mask = np.zeros(spec.num_actions, np.int8)
    out = []
    game = 0
    while len(out) < count:
        states = np.zeros(1, spec.state_dtype)
        spec.init_game(states, 0, num_players, game_key(seed, 0, game), 0)
        game += 1
        seen = [states.copy()]
        while not _over(states):
            spec.legal_mask_into(states, 0, mask)
            spec.apply_action(states, 0, int(rng.choice(np.flatnonzero(mask))))
            if not _over(states):
                seen.append(states.copy())
        for i in rng.choice(len(seen), size=min(per_game, len(seen)), replace=False):
            out.append(seen[i])
    return out[:count]


def _determinized(name, states, player, seed):
    out = states.copy()
    get_spec(name).determinize_into(out, 0, player, _key(seed))
    return out


def _observation(name, states, player):
    spec = get_spec(name)
    out = np.empty(spec.obs_size, np.float32)
    spec.encode_into(states, 0, player, out)
    return out


# ---- card multisets, counted independently of the kernels ----------------------------------


def _century_cards(s) -> Counter:
    from meeple_gym.century import rules as R

    cards = Counter()
    cards.update(("merchant", int(t)) for t in s["merchant_deck"][s["merchant_deck_top"] :])
    cards.update(("merchant", int(t)) for t in s["market"] if t >= 0)
    for p in range(int(s["num_players"])):
        owned = np.flatnonzero(s["cards"][p] != R.NOT_OWNED)
        cards.update(("merchant", int(t), "seat", p) for t in owned)
    cards.update(("point", int(c)) for c in s["point_deck"][s["point_deck_top"] :])
    cards.update(("point", int(c)) for c in s["point_row"] if c >= 0)
    owners = s["point_owner"]
    cards.update(("point", int(c), "seat", int(o)) for c, o in enumerate(owners) if o >= 0)
    return cards


def _endeavor_cards(s) -> Counter:
    from meeple_gym.endeavor import rules as R

    cards = Counter()
    n = int(s["num_players"])
    for r in range(R.NR):
        cards.update(("city", int(c)) for c in s["region_deck"][r][: s["region_deck_n"][r]])
    cards.update(("city", int(c)) for c in s["slot_city"] if c >= 0)
    cards.update(("empire", int(e)) for e in s["empire_deck"][: s["empire_deck_n"]])
    cards.update(("empire", int(e)) for e in s["empire_market"] if e >= 0)
    cards.update(("building", int(b)) for b in s["building_deck"][: s["building_deck_n"]])
    cards.update(("building", int(b)) for b in s["building_market"] if b >= 0)
    kinds = {R.K_CITY: "city", R.K_BUILDING: "building", R.K_EMPIRE: "empire"}
    for p in range(n):
        cards.update(("empire", int(e)) for e in np.flatnonzero(s["empire_hand"][p]))
        for i in range(s["board_n"][p]):
            cards[(kinds[int(s["board_kind"][p, i])], int(s["board_id"][p, i]))] += 1
        cards.update(("role", p, int(r)) for r in s["role_deck"][p][: s["role_deck_n"][p]])
        cards.update(("role", p, int(r)) for r in np.flatnonzero(s["role_hand"][p]))
        cards.update(("role", p, int(r)) for r in np.flatnonzero(s["role_aside"][p]))
    return cards


CARD_COUNTS = {"century": _century_cards, "endeavor": _endeavor_cards}


# ---- the kernels' properties, every game ----------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_observation_and_cards_are_kept(name):
    """At random positions of random games (every tested player count), each seat's
    observation of its determinized state equals its observation of the real one, and every
    card is still counted once per zone kind (the multisets are preserved)."""
    for n in PLAYER_COUNTS[name]:
        for k, states in enumerate(_positions(name, n, 24, seed=100 + n)):
            before = CARD_COUNTS[name](states[0])
            for player in range(n):
                for seed in (k, k + 1000):
                    det = _determinized(name, states, player, seed)
                    np.testing.assert_array_equal(
                        _observation(name, det, player), _observation(name, states, player)
                    )
                    assert CARD_COUNTS[name](det[0]) == before


def test_endeavor_every_card_exists_once():
    """An independent check of the multiset count itself: in a determinized Endeavor
    state each city, empire card and building is somewhere exactly once, and each player holds
    each of the 6 roles exactly once (hand, deck or set aside)."""
    from meeple_gym.endeavor import rules as R

    for states in _positions("endeavor", 3, 12, seed=5):
        det = _determinized("endeavor", states, 1, 9)
        cards = _endeavor_cards(det[0])
        want = Counter({("city", c): 1 for c in range(R.NC)})
        want.update({("empire", e): 1 for e in range(R.NEMP)})
        want.update({("building", b): 1 for b in range(R.NB)})
        want.update({("role", p, r): 1 for p in range(3) for r in range(R.N_ROLES)})
        assert cards == want


@pytest.mark.parametrize("name", GAMES)
def test_determinized_state_is_legal_and_plays_on(name):
    """The determinized state passes the snapshot gate (to_dict, then from_dict with
    every rule re-validated) and random play from it runs to the end."""
    spec = get_spec(name)
    rng = np.random.default_rng(3)
    for n in PLAYER_COUNTS[name]:
        for k, states in enumerate(_positions(name, n, 10, seed=200 + n)):
            det = _determinized(name, states, k % n, k)
            loaded = spec.load(spec.to_dict(det, 0))
            assert loaded.tobytes() == det.tobytes()
            _play(spec, loaded, rng)
            assert _over(loaded)


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_result_and_batch_rows(name):
    """The same (seed, row) gives the same state; batch row i equals
    ``determinize_into`` with key derive_key(seed, i, STREAM_DETERMINIZE); 1 or 2 threads give
    the same batch."""
    spec = get_spec(name)
    n = 3
    rows = _positions(name, n, 16, seed=300)
    states = np.concatenate(rows)
    players = np.arange(len(rows), dtype=np.int64) % n
    one = _determinized(name, rows[5], 2, 77)
    assert one.tobytes() == _determinized(name, rows[5], 2, 77).tobytes()
    outputs = []
    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            out = states.copy()
            spec.determinize_batch(out, players, np.uint64(77))
            outputs.append(out)
    finally:
        numba.set_num_threads(previous)
    for out in outputs[1:]:
        assert out.tobytes() == outputs[0].tobytes()
    for i, row in enumerate(rows):
        want = row.copy()
        spec.determinize_into(want, 0, int(players[i]), _key(77, i))
        assert outputs[0][i : i + 1].tobytes() == want.tobytes()


# ---- uniformity ---------------------------------------------------------------------------


def _chi_square_uniform(values, support):
    counts = Counter(int(v) for v in values)
    assert set(counts) <= set(support), "a value outside the unknown cards"
    observed = [counts.get(v, 0) for v in support]
    return chisquare(observed).pvalue


def _century_early(num_players, seed, steps=40):
    """A Century position early enough that both face-down decks still hold many cards
    (random play empties the merchant deck long before the end)."""
    spec = get_spec("century")
    states = np.zeros(1, spec.state_dtype)
    spec.init_game(states, 0, num_players, game_key(seed), 0)
    _play(spec, states, np.random.default_rng(seed), steps=steps)
    return states


def test_century_decks_are_uniform():
    """At a fixed Century position, the top card of each face-down deck after
    determinization is uniform over the cards still in that deck (chi-square, fixed seeds)."""
    states = _century_early(3, seed=11)
    s = states[0]
    merchant = sorted(int(t) for t in s["merchant_deck"][s["merchant_deck_top"] :])
    points = sorted(int(c) for c in s["point_deck"][s["point_deck_top"] :])
    assert len(merchant) > 5 and len(points) > 5
    tops_m, tops_p = [], []
    for seed in range(4000):
        d = _determinized("century", states, seed % 3, seed)[0]
        tops_m.append(d["merchant_deck"][d["merchant_deck_top"]])
        tops_p.append(d["point_deck"][d["point_deck_top"]])
        # The dealt prefixes are public history.
        assert (
            d["merchant_deck"][: s["merchant_deck_top"]]
            == s["merchant_deck"][: s["merchant_deck_top"]]
        ).all()
    assert _chi_square_uniform(tops_m, merchant) > P_MIN
    assert _chi_square_uniform(tops_p, points) > P_MIN


def _endeavor_planning_position(n=3):
    """A round-2+ planning position where seat 0 has not planned and another seat has, whose
    role deck is not empty (so its hand is not simply the roles it has not set aside)."""
    from meeple_gym.endeavor import rules as R

    for states in _positions("endeavor", n, 400, seed=17, per_game=40):
        s = states[0]
        if s["phase"] == R.PH_PLAN_ROLE and s["round"] >= 2 and s["pick_index"] >= 1:
            order = list(s["order"][:n])
            q = order[0]
            if order.index(0) >= int(s["pick_index"]) and q != 0 and s["role_deck_n"][q]:
                return states
    raise AssertionError("no such position found")


def test_endeavor_hidden_information_is_uniform():
    """At a fixed Endeavor planning position, seen from seat 0: the top of the
    empire deck is uniform over the empire cards seat 0 cannot see (deck and other hands);
    another player's hidden role pick is uniform over its roles not set aside, and its hidden
    token count over 0..its pool; a region deck's top card is uniform over that deck."""
    from meeple_gym.endeavor import rules as R

    states = _endeavor_planning_position()
    s = states[0]
    n = int(s["num_players"])
    unseen = sorted(
        [int(e) for e in s["empire_deck"][: s["empire_deck_n"]]]
        + [int(e) for q in range(1, n) for e in np.flatnonzero(s["empire_hand"][q])]
    )
    q = int(s["order"][0])  # planned first, so role and tokens are hidden from seat 0
    assert q != 0 and s["role"][q] >= 0
    roles = [r for r in range(R.N_ROLES) if not s["role_aside"][q, r]]
    tokens = list(range(min(int(s["pool"][q]), R.MAX_TOKENS) + 1))
    region = int(np.argmax(s["region_deck_n"]))
    cities = sorted(int(c) for c in s["region_deck"][region][: s["region_deck_n"][region]])
    empire_tops, picks, placed, city_tops = [], [], [], []
    for seed in range(6000):
        d = _determinized("endeavor", states, 0, seed)[0]
        empire_tops.append(d["empire_deck"][d["empire_deck_n"] - 1])
        picks.append(d["role"][q])
        placed.append(d["placed"][q])
        city_tops.append(d["region_deck"][region][d["region_deck_n"][region] - 1])
        assert (d["empire_hand"][0] == s["empire_hand"][0]).all()
        assert (d["role_hand"][0] == s["role_hand"][0]).all()
    assert _chi_square_uniform(empire_tops, unseen) > P_MIN
    assert _chi_square_uniform(picks, roles) > P_MIN
    assert _chi_square_uniform(placed, tokens) > P_MIN
    assert _chi_square_uniform(city_tops, cities) > P_MIN


def test_endeavor_hidden_information_changes():
    """The other seats' secrets really are resampled (an opponent's empire hand and
    role hand differ across seeds), while the observer's own hands never change."""
    states = _endeavor_planning_position()
    s = states[0]
    q = int(s["order"][0])
    hands, roles = set(), set()
    for seed in range(50):
        d = _determinized("endeavor", states, 0, seed)[0]
        hands.add(d["empire_hand"][q].tobytes())
        roles.add(d["role_hand"][q].tobytes())
        assert d["empire_hand"][0].tobytes() == s["empire_hand"][0].tobytes()
        assert d["rng"][0] != s["rng"][0]
    assert len(hands) > 1 and len(roles) > 1


def test_century_hidden_information_changes():
    """Century's face-down deck orders change across seeds (nothing else is hidden:
    hands and caravans are public, so the rest of the record stays as it was)."""
    states = _century_early(2, seed=23)
    orders = set()
    for seed in range(20):
        d = _determinized("century", states, 0, seed)
        orders.add(d[0]["merchant_deck"].tobytes())
        for field in ("cards", "caravan", "market", "point_row", "score", "current_player"):
            assert (d[0][field] == states[0][field]).all()
    assert len(orders) > 1


def test_endeavor_own_returned_empire_cards_stay_in_the_deck():
    """During the setup return (END-S4) a player knows the cards it put back on the
    deck; its determinization keeps them there, another player's does not."""
    from meeple_gym.endeavor import rules as R

    spec = get_spec("endeavor")
    rng = np.random.default_rng(0)
    mask = np.zeros(spec.num_actions, np.int8)
    for game in range(200):
        states = np.zeros(1, spec.state_dtype)
        spec.init_game(states, 0, 2, game_key(31, 0, game), 0)
        while states[0]["phase"] != R.PH_EMPIRE_RETURN or states[0]["pick_index"] != 1:
            spec.legal_mask_into(states, 0, mask)
            spec.apply_action(states, 0, int(rng.choice(np.flatnonzero(mask))))
        s = states[0]
        first = int(s["order"][0])
        base = R.NEMP - 2 * int(R.EMPIRE_DRAW[2])
        returned = s["empire_deck"][base : s["empire_deck_n"]].copy()
        assert len(returned) >= R.EMPIRE_DRAW[2] - 2
        moved = False
        for seed in range(30):
            mine = _determinized("endeavor", states, first, seed)[0]
            assert (mine["empire_deck"][base : s["empire_deck_n"]] == returned).all()
            theirs = _determinized("endeavor", states, 1 - first, seed)[0]
            moved |= bool((theirs["empire_deck"][base : s["empire_deck_n"]] != returned).any())
        assert moved
        return
    raise AssertionError("no setup return reached")


# ---- the public API (Century: the fastest game to compile) ------------------------------------


def _century_env(num_players=3, steps=30):
    env = mg.make("century", num_players=num_players)
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    return env


def test_aec_determinize_returns_a_determinized_clone():
    """``raw_env.determinize(player, seed)`` returns a new env whose record is
    ``determinize_into`` with key derive_key(seed, 0, STREAM_DETERMINIZE) for that seat; the
    original env is unchanged; the clone observes and plays like any env; a seat index and an
    agent name give the same result."""
    env = _century_env()
    raw = env.unwrapped
    before = raw.state_array.copy()
    twin = raw.determinize("player_1", 12)
    assert isinstance(twin, MeepleAECEnv) and twin is not raw
    assert raw.state_array.tobytes() == before.tobytes()
    want = _determinized("century", before, 1, 12)
    assert twin.state_array.tobytes() == want.tobytes()
    assert raw.determinize(1, 12).state_array.tobytes() == want.tobytes()
    assert twin.state_array.tobytes() != before.tobytes()
    assert twin.agent_selection == raw.agent_selection
    np.testing.assert_array_equal(
        twin.observe("player_1")["observation"], raw.observe("player_1")["observation"]
    )
    np.testing.assert_array_equal(twin.action_masks(), raw.action_masks())
    rng = np.random.default_rng(2)
    while twin.agents:
        agent = twin.agent_selection
        done = twin.terminations[agent] or twin.truncations[agent]
        twin.step(None if done else int(rng.choice(np.flatnonzero(twin.action_masks()))))
    assert raw.state_array.tobytes() == before.tobytes()


def test_aec_determinize_errors():
    """Clear errors for a bad player or seed, before reset, after the game is over,
    and for a game without a determinization kernel; none changes the env."""
    fresh = mg.make("century", num_players=2)
    with pytest.raises(NotResetError):
        fresh.unwrapped.determinize(0, 1)
    env = _century_env(num_players=2, steps=5)
    raw = env.unwrapped
    before = raw.state_array.tobytes()
    for bad in ("player_2", "nobody", 2, -1, True, 1.0, None):
        with pytest.raises(OptionError):
            raw.determinize(bad, 1)
    for bad in (-1, 2**64, 1.5, None):
        with pytest.raises(OptionError):
            raw.determinize(0, bad)
    assert raw.state_array.tobytes() == before
    spec = dataclasses.replace(get_spec("century"), determinize_into=None, determinize_batch=None)
    bare = MeepleAECEnv(spec, num_players=2)
    bare.reset(seed=1)
    with pytest.raises(NotImplementedError, match="century"):
        bare.determinize(0, 1)
    rng = np.random.default_rng(0)
    while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
        env.step(int(rng.choice(np.flatnonzero(raw.action_masks()))))
    with pytest.raises(GameOverError):
        raw.determinize(0, 1)


def test_batch_determinize():
    """``BatchEnv.determinize(players, seed)`` returns a fresh copy of the records,
    row i determinized for players[i] with key (seed, i); the batch is unchanged; the copy is
    accepted by ``set_states``; bad arguments raise."""
    batch = mg.make_batch("century", 16, 3, seed=5)
    batch.reset()
    for _ in range(40):
        legal = batch.legal_mask
        actions = np.array([np.flatnonzero(m)[0] for m in legal])
        batch.step(actions)
    before = batch.get_states()
    players = np.arange(16) % 3
    out = batch.determinize(players, 9)
    assert out.dtype == before.dtype and out.shape == before.shape and out.flags.writeable
    assert batch.states.tobytes() == before.tobytes()
    for i in range(16):
        want = before[i : i + 1].copy()
        get_spec("century").determinize_into(want, 0, int(players[i]), _key(9, i))
        assert out[i : i + 1].tobytes() == want.tobytes()
    assert out.tobytes() != before.tobytes()
    batch.set_states(out)
    assert batch.states.tobytes() == out.tobytes()
    for bad in (np.zeros(15, int), np.full(16, 3), np.full(16, -1), np.zeros(16, float)):
        with pytest.raises(OptionError):
            batch.determinize(bad, 0)
    with pytest.raises(OptionError):
        batch.determinize(players, -1)
    spec = dataclasses.replace(get_spec("century"), determinize_batch=None)
    bare = mg.core.batch.BatchEnv(spec, 4, 2)
    bare.reset()
    with pytest.raises(NotImplementedError):
        bare.determinize(np.zeros(4, int), 0)


@pytest.mark.parametrize("name", GAMES)
def test_spec_has_the_kernels(name):
    """The games pass their determinize module to GameSpec.from_modules."""
    spec = get_spec(name)
    module = __import__(f"meeple_gym.{name}.determinize", fromlist=["x"])
    assert spec.determinize_into is module.determinize_into
    assert spec.determinize_batch is module.determinize_batch


def test_endeavor_other_deciders_keep_a_real_choice():
    """While another player executes the Politician its choices depend on its secret
    empire hand; every determinization leaves it at least two legal actions (the rules take a
    lone action at once, so the position shows it has a choice) and the pending mask is the
    one the rules compute for the new hand (the snapshot gate recomputes and compares it)."""
    from meeple_gym.endeavor import rules as R

    spec = get_spec("endeavor")
    found = 0
    for states in _positions("endeavor", 2, 600, seed=41, per_game=60):
        s = states[0]
        q = int(s["current_player"])
        if s["phase"] != R.PH_ROLE or s["role"][q] != R.POLITICIAN or s["sub"] != R.SUB_MAIN:
            continue
        found += 1
        for seed in range(40):
            det = _determinized("endeavor", states, 1 - q, seed)
            assert int(det[0]["pend_mask"].sum()) >= 2
            spec.load(spec.to_dict(det, 0))
    assert found
