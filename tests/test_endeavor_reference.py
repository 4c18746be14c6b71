"""The Numba Endeavor kernel against the slow pure-Python reference (envs/endeavor/reference.py).

Both are driven with the same random actions over seeded games of 2-4 players. Before every step
the kernel's legal mask must equal the reference's legal list, and the kernel record, read into
the reference's ``projection()`` form, must equal it: decider, phase and sub-step, round, seat
order, tokens, lost tokens, roles and tokens placed, goods, ships, boards, empire and role hands,
role decks, regions (open flags and decks in order), every city slot (city, marker, upgrade),
the empire and building decks and markets, the role's remaining strength, the end flags and the
winners. The running score of every seat is compared each step (``rules.score_of``), and the
final scores and winners at the end.

Policies: ``uniform`` picks any legal action; ``busy`` takes ``A_DONE`` only when it is the only
choice or with probability 0.15, so roles are used to the full. Random full games run to the
round limit (END-E4), so ``short_decks`` games cut the city and empire decks the same way on
both sides to reach the END-E1 endings.

No kernel discrepancy was found: both engines agree on every compared game. Mutating the
reference (travel cost floor, defence cards, region-points scoring) is caught within a few
dozen games, so the comparison is sensitive to such rules.

The default run plays 150 fresh and 60 short-deck games; ``-m slow`` adds 1,200 and 600.
"""

import random
from collections import Counter

import game_cases
import numpy as np
import pytest

from meeple_gym.core.rng import game_key
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules
from meeple_gym.endeavor.reference import (
    BUILDING,
    CITY,
    EMPIRE,
    N_SLOTS,
    SLOT_REGION,
    ReferenceGame,
)
from meeple_gym.endeavor.rules import NUM_ACTIONS, PH_OVER, PH_ROLE, STATE_DTYPE, SUB_MAIN

SEED = 20250412
KIND_NAME = {rules.K_CITY: CITY, rules.K_BUILDING: BUILDING, rules.K_EMPIRE: EMPIRE}


# ---- the kernel record in the reference's projection form -------------------------------------


def _opt(x):
    x = int(x)
    return None if x < 0 else x


def _ints(values):
    return [int(x) for x in values]


def kernel_projection(record) -> dict:
    """``ReferenceGame.projection()`` built from one ``STATE_DTYPE`` record."""
    n = int(record["num_players"])
    phase = int(record["phase"])
    in_role = phase == PH_ROLE
    seats = range(n)
    return {
        "decider": None if phase == PH_OVER else int(record["current_player"]),
        "phase": phase,
        "sub": int(record["sub"]) if in_role else SUB_MAIN,
        "round": int(record["round"]),
        "first_player": int(record["first_player"]),
        "order": _ints(record["order"][:n]),
        "tokens": _ints(record["pool"][:n]),
        "lost": _ints(record["lost"][:n]),
        "roles": [_opt(x) for x in record["role"][:n]],
        "placed": _ints(record["placed"][:n]),
        "goods": [_ints(record["goods"][p]) for p in seats],
        "ships": [_ints(record["ships"][p]) for p in seats],
        "boards": [
            [
                (KIND_NAME[int(record["board_kind"][p, i])], int(record["board_id"][p, i]))
                for i in range(record["board_n"][p])
            ]
            for p in seats
        ],
        "empire_hands": [np.flatnonzero(record["empire_hand"][p]).tolist() for p in seats],
        "role_hands": [np.flatnonzero(record["role_hand"][p]).tolist() for p in seats],
        "role_decks": [_ints(record["role_deck"][p, : record["role_deck_n"][p]]) for p in seats],
        "role_aside": [np.flatnonzero(record["role_aside"][p]).tolist() for p in seats],
        "region_open": [bool(x) for x in record["region_open"]],
        "region_decks": [
            _ints(record["region_deck"][r, : record["region_deck_n"][r]])
            for r in range(D.N_REGIONS)
        ],
        "slots": [
            (
                _opt(record["slot_city"][k]),
                _opt(record["slot_owner"][k]),
                bool(record["slot_upgraded"][k]),
            )
            for k in range(N_SLOTS)
        ],
        "empire_deck": _ints(record["empire_deck"][: record["empire_deck_n"]]),
        "empire_market": [_opt(x) for x in record["empire_market"]],
        "building_deck": _ints(record["building_deck"][: record["building_deck_n"]]),
        "building_market": [_opt(x) for x in record["building_market"]],
        "strength": int(record["strength"]) if in_role else None,
        "terminated": bool(record["terminated"]),
        "truncated": bool(record["truncated"]),
        "winners": [p for p in seats if (int(record["winners"]) >> p) & 1],
    }


# ---- driving both implementations ---------------------------------------------------------


def choose(rnd, policy, legal):
    """One action of the named random policy."""
    if policy == "busy" and len(legal) > 1 and rules.A_DONE in legal and rnd.random() >= 0.15:
        legal = [a for a in legal if a != rules.A_DONE]
    return rnd.choice(legal)


def compare_play(ref, states, rnd, label, policy, taken=None):
    """Drive both sides from equal states with the same random actions, comparing every step
    (game_cases.compare_play); raises Mismatch at the first difference. Returns the finished
    reference game. ``taken`` (a Counter) collects (phase, sub, action family) of every step."""
    n = ref.num_players

    def check(ref, states, mask, fail):
        record = states[0]
        for p in range(n):  # END-E2 on every intermediate state
            ours, theirs = ref.score(p), int(rules.score_of(record, p))
            if ours != theirs:
                fail(f"seat {p} scores {ours} in the reference, {theirs} in the kernel")
        if ref.is_over:
            kernel_scores = _ints(record["score"][:n])
            if kernel_scores != ref.scores:
                fail(f"final scores {ref.scores} vs kernel {kernel_scores}")
            kernel_winner = _opt(record["winner"])
            if kernel_winner != ref.winner:
                fail(f"winner {ref.winner} vs kernel {kernel_winner}")

    def pick(ref, legal):
        action = choose(rnd, policy, legal)
        if taken is not None:
            taken[action_family(ref, action)] += 1
        return action

    return game_cases.compare_play(
        ref, states, rules, label, projection=kernel_projection, choose=pick, check=check
    )


def action_family(ref, action):
    """(role or phase name, action kind) of a step, for the coverage check."""
    if ref.phase != PH_ROLE:
        return (rules.PHASE_NAMES[ref.phase], "")
    role = D.ROLES[ref.players[ref.decider].role]
    starts = [
        ("token", rules.A_TOKENS),
        ("slot", rules.A_SLOT),
        ("empire", rules.A_EMPIRE),
        ("region", rules.A_REGION),
        ("home", rules.A_HOME),
        ("good", rules.A_GOOD),
        ("building", rules.A_BUILDING),
        ("upgrade", rules.A_UPGRADE),
        ("attack ship", rules.A_ATTACK_SHIP),
        ("pay token", rules.A_PAY_TOKEN),
        ("done", rules.A_DONE),
    ]
    kind = [name for name, start in starts if action >= start][-1]
    if ref.sub == rules.SUB_GOV_MOVE:
        kind = "move marker"
    return (role, kind)


def game_setup(index):
    """Players (2-4) and policy of game ``index``."""
    return index % 3 + 2, ("busy", "busy", "uniform")[(index // 3) % 3]


def new_pair(index, seed=SEED):
    num_players, _ = game_setup(index)
    ref = ReferenceGame(num_players, seed, index)
    states = np.zeros(1, STATE_DTYPE)
    rules.init_game(states, 0, num_players, game_key(seed, index), 0)
    return ref, states


def play_pair(setup, name, mix, index, seed, taken):
    """Game ``index`` as ``setup(index, seed)`` builds it on both sides, played with its policy
    (moves drawn from a ``random.Random`` seeded by ``seed * mix + index``) and compared."""
    num_players, policy = game_setup(index)
    ref, states = setup(index, seed)
    rnd = random.Random(seed * mix + index)
    label = f"{name} {index} ({num_players} players, {policy})"
    return compare_play(ref, states, rnd, label, policy, taken)


def play_fresh(index, seed=SEED, taken=None):
    return play_pair(new_pair, "game", 1_000_003, index, seed, taken)


# ---- short decks, edited the same way on both sides -------------------------------------------


def short_decks(index, seed=SEED):
    """A fresh game whose region decks keep only their top 0-1 cards and whose empire deck keeps
    its top 0-5 (the rest leave the game), edited the same way on both sides before the first
    action: random play then reaches the END-E1 endings (city decks or empire deck empty) that
    a full game, always cut off after round 12 (END-E4), does not."""
    ref, states = new_pair(index, seed)
    record = states[0]
    rnd = random.Random(seed * 7_919 + index)
    for r, deck in enumerate(ref.region_decks):
        keep = rnd.randint(0, 1)
        del deck[: len(deck) - keep]
        record["region_deck"][r] = -1
        record["region_deck"][r, :keep] = deck
        record["region_deck_n"][r] = keep
    keep = rnd.randint(0, 5)
    del ref.empire_deck[: len(ref.empire_deck) - keep]
    record["empire_deck"][:] = -1
    record["empire_deck"][:keep] = ref.empire_deck
    record["empire_deck_n"] = keep
    return ref, states


def play_short(index, seed=SEED, taken=None):
    return play_pair(short_decks, "short decks", 31, index, seed, taken)


def _ending(ref):
    """Which END-E1/E4 condition ended a finished game."""
    if not any(ref.region_decks):
        return "cities"
    if not ref.empire_deck:
        return "empire"
    return "round limit"


# ---- tests ------------------------------------------------------------------------------------

# Every role choice that random play should reach within 50 games, so a chunk that passes has
# really compared it.
EXPECTED_FAMILIES = {
    ("sailor", "region"),
    ("merchant", "slot"),
    ("merchant", "home"),
    ("merchant", "good"),
    ("craftsman", "building"),
    ("craftsman", "slot"),
    ("craftsman", "upgrade"),
    ("commander", "slot"),
    ("commander", "attack ship"),
    ("politician", "empire"),
    ("governor", "slot"),
    ("governor", "good"),
    ("governor", "pay token"),
    ("governor", "move marker"),
}


def _run_fresh(start, count):
    taken = Counter()
    outcomes = Counter()
    for index in range(start, start + count):
        ref = play_fresh(index, taken=taken)
        outcomes["truncated" if ref.truncated else "shared" if len(ref.winners) > 1 else "won"] += 1
    return taken, outcomes


@pytest.mark.parametrize("start", range(0, 150, 50))
def test_fresh_games_match_kernel(start):
    taken, outcomes = _run_fresh(start, 50)
    assert outcomes["truncated"] == 0  # random games end long before the step cap
    assert outcomes["won"] > 0
    missing = EXPECTED_FAMILIES - set(taken)
    assert not missing, f"not reached: {sorted(missing)}"


@pytest.mark.slow
@pytest.mark.parametrize("start", range(150, 1350, 150))
def test_many_fresh_games_match_kernel(start):
    _, outcomes = _run_fresh(start, 150)
    assert outcomes["truncated"] == 0


def _run_short(start, count):
    endings = Counter()
    for index in range(start, start + count):
        ref = play_short(index)
        assert ref.terminated
        endings[_ending(ref)] += 1
    return endings


@pytest.mark.parametrize("start", range(0, 60, 30))
def test_short_decks_match_kernel(start):
    endings = _run_short(start, 30)
    assert endings["cities"] > 0 and endings["empire"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("start", range(60, 660, 150))
def test_many_short_decks_match_kernel(start):
    _run_short(start, 150)


def test_every_player_count_and_policy_is_played():
    assert {game_setup(i) for i in range(50)} == {
        (n, policy) for n in (2, 3, 4) for policy in ("busy", "uniform")
    }


def test_reference_rejects_illegal_actions_without_change():
    ref, _ = new_pair(4)
    assert game_cases.assert_rejects_illegal_without_change(ref, range(NUM_ACTIONS)) > 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_setup_matches_the_rules(num_players):
    # END-S1..S4, END-R2/R4: tokens by player count, Europe's 4 and West Africa's 3 slots dealt
    # and no other, 3 roles in hand, 3 (4 with 2 players) empire cards before the returns.
    for seed in range(5):
        ref = ReferenceGame(num_players, seed, 7)
        tokens = {2: 15, 3: 18, 4: 15}[num_players]
        assert [pl.tokens for pl in ref.players] == [tokens] * num_players
        dealt = [k for k, s in enumerate(ref.slots) if s.city is not None]
        assert [SLOT_REGION[k] for k in dealt] == [D.EUROPE] * 4 + [D.WEST_AFRICA] * 3
        assert ref.region_open == [True, True] + [False] * 5
        for pl in ref.players:
            assert len(pl.role_hand) == 3 and len(pl.role_deck) == 3
            assert len(pl.empire_hand) == (4 if num_players == 2 else 3)
        # END-S3: the first pick is the first player's, of any of the 7 open cities.
        assert ref.decider == ref.first_player
        assert ref.legal_actions() == [rules.A_SLOT + k for k in range(7)]


def _play_to_planning(ref, rnd):
    while ref.phase != rules.PH_PLAN_ROLE:
        ref.step(rnd.choice(ref.legal_actions()))


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_after_setup_every_player_holds_two_empire_cards_and_markets_are_dealt(num_players):
    # END-S3: 2 starting cities each (1 with 4 players); END-S4: 2 empire cards kept, 3 face
    # up; END-S5: 3 buildings face up; every empire card accounted for.
    rnd = random.Random(num_players)
    ref = ReferenceGame(num_players, 11, 0)
    _play_to_planning(ref, rnd)
    per_player = {2: 2, 3: 2, 4: 1}[num_players]
    for p, pl in enumerate(ref.players):
        assert len(pl.empire_hand) == 2
        assert ref.cities_held(p) == per_player
    assert None not in ref.empire_market and None not in ref.building_market
    held = sum(len(pl.empire_hand) for pl in ref.players)
    assert held + len(ref.empire_market) + len(ref.empire_deck) == D.N_EMPIRE


def _check_execution_order(ex, roles, placed, planning_order):
    """END-O3: roles in number order; on the same role more tokens first; equal tokens keep the
    order the round was planned in (the previous round's)."""
    assert sorted(ex) == sorted(planning_order)
    keys = [(roles[p], -placed[p]) for p in ex]
    assert keys == sorted(keys)
    for a, b in zip(ex, ex[1:], strict=False):
        if (roles[a], placed[a]) == (roles[b], placed[b]):
            assert planning_order.index(a) < planning_order.index(b)
    return len(keys) - len(set(keys))


def test_execution_order_follows_role_then_tokens_then_last_order():
    rnd = random.Random(5)
    rounds = ties = 0
    for index in range(30):
        ref = ReferenceGame(index % 3 + 2, 9, index)
        seen = None
        while not ref.is_over:
            legal = ref.legal_actions()
            if ref.phase == rules.PH_PLAN_ROLE and all(pl.role is None for pl in ref.players):
                planning_order = list(ref.order)  # a new round's planning starts
                roles, placed = {}, dict.fromkeys(planning_order, 0)  # 0: no token to place
            if ref.phase == rules.PH_PLAN_TOKENS:  # few tokens, so equal counts happen
                legal = [a for a in legal if a <= rules.A_TOKENS + 2]
            action = rnd.choice(legal)
            if ref.phase == rules.PH_PLAN_ROLE:
                roles[ref.decider] = action - rules.A_ROLE
            elif ref.phase == rules.PH_PLAN_TOKENS:
                placed[ref.decider] = action - rules.A_TOKENS
            ref.step(action)
            if getattr(ref, "exec_order", None) is not None and ref.exec_order is not seen:
                seen = ref.exec_order
                ties += _check_execution_order(seen, roles, placed, planning_order)
                rounds += 1
    assert rounds > 300 and ties > 0
