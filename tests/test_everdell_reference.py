"""The Numba Everdell kernel against the slow pure-Python reference (envs/everdell/reference.py).

Both are driven with the same random actions over seeded games of 1-4 players (solo in all
three Rugwort years). After every step the kernel's legal mask must equal the reference's legal
list, and the kernel record, read into the reference's ``projection()`` form, must equal it:
decider, decision kind, turn player, hands, resources, point tokens, seasons, worker spots,
passes, every city slot (card, occupied token, tokens, Storehouse stock, prisoners), Rugwort's
city and workers, Meadow, deck and discard pile in order, forest, events and their owners. The
running score of every seat is compared each step (``rules.score_of``) and the final scores and
winner at the end.

Policies: ``avoid_pass`` picks A_PASS only when it is the only turn action; ``eager`` also
prefers playing a card or claiming an event; ``uniform`` picks any legal action. ``RichStart``
edits a fresh game the same way on both sides (resources, seasons, cities built from the deck,
Rugwort's city, a short deck) to reach full cities, rare cards and events and deck exhaustion.

Kernel discrepancies found and fixed: the Ranger's move and A Wee Run City's worker recall were
optional in the kernel (both cards make them compulsory). A Brilliant Marketing Plan asks, in
both engines, which opponent receives each resource.

The default run plays 150 fresh games, 60 rich starts and 3 full-city positions; ``-m slow``
adds 1,200 fresh games and 600 rich starts.
"""

import random

import game_cases
import numpy as np
import pytest

from meeple_gym.core.rng import game_key
from meeple_gym.everdell import rules
from meeple_gym.everdell.data import CARD_ID
from meeple_gym.everdell.reference import (
    CLOCK_TOWER,
    CONSTRUCTION,
    KIND,
    NT,
    TAKES_SPACE,
    CityCard,
    ReferenceGame,
)
from meeple_gym.everdell.rules import NUM_ACTIONS, PK_TURN, STATE_DTYPE

SEED = 20250311
CHAPEL = rules.CHAPEL
STOREHOUSE = rules.STOREHOUSE
NEW_WORKERS = (2, 1, 1, 2)  # EVD-S5 and EVD-F2..F4, by season entered


# ---- the kernel record in the reference's projection form -------------------------------------


def kernel_projection(record) -> dict:
    """``ReferenceGame.projection()`` built from one ``STATE_DTYPE`` record."""
    seats = int(record["seats"])
    cities = []
    for o in range(seats):
        row = []
        for k in range(rules.CITY_SLOTS):
            t = int(record["city"][o, k])
            if t < 0:
                row.append(None)
                continue
            row.append(
                (
                    t,
                    bool(record["city_occupied"][o, k]),
                    int(record["city_tokens"][o, k]),
                    tuple(int(x) for x in record["city_store"][o, k]),
                    int((record["city_jail"][o, k] >= 0).sum()),
                )
            )
        cities.append(row)
    over = bool(record["terminated"] or record["truncated"])
    winner = int(record["winner"])
    meadow_bits = int(record["rug_meadow"])
    return {
        "decider": None if over else int(record["current_player"]),
        "pend_kind": int(record["pend_kind"]),
        "turn_player": int(record["turn_player"]),
        "hands": [[int(x) for x in record["hand"][p]] for p in range(seats)],
        "resources": [[int(x) for x in record["resources"][p]] for p in range(seats)],
        "tokens": [int(record["tokens"][p]) for p in range(seats)],
        "seasons": [int(record["season"][p]) for p in range(seats)],
        "workers": [
            [int(x) for x in record["wloc"][p, : record["workers"][p]]] for p in range(seats)
        ],
        "passed": [bool(record["passed"][p]) for p in range(seats)],
        "cities": cities,
        "rug_city": [int(x) for x in record["rug_city"]],
        "meadow": [int(x) for x in record["meadow"]],
        "deck": [int(x) for x in record["deck"][: record["deck_n"]]],
        "discard": [int(x) for x in record["discard"][: record["discard_n"]]],
        "forest": [int(x) for x in record["forest"] if x >= 0],
        "specials": [int(x) for x in record["specials"]],
        "event_owner": [int(x) for x in record["event_owner"]],
        "rugwort": (
            int(record["rug_forest"]),
            int(record["rug_basic"]),
            int(record["rug_journey"]),
            [i for i in range(8) if (meadow_bits >> i) & 1],
        ),
        "terminated": bool(record["terminated"]),
        "truncated": bool(record["truncated"]),
        "winner": None if winner < 0 else winner,
    }


# ---- driving both implementations ---------------------------------------------------------


POLICIES = ("avoid_pass", "eager", "uniform")
EAGER = (rules.A_PLACE_EVENT, rules.A_PLACE_CITY, rules.A_PLAY_HAND, rules.A_PREPARE)


def choose(rnd, policy, kind, legal):
    """One action of the named random policy."""
    if kind == PK_TURN and policy != "uniform" and len(legal) > 1:
        legal = [a for a in legal if a != rules.A_PASS]
        if policy == "eager" and rnd.random() < 0.7:
            # card plays and events: A_PLACE_EVENT .. A_PLACE_CITY and A_PLAY_HAND .. A_PREPARE
            good = [a for a in legal if EAGER[0] <= a < EAGER[1] or EAGER[2] <= a < EAGER[3]]
            legal = good or legal
    return rnd.choice(legal)


def compare_play(ref, states, rnd, label, policy):
    """Drive both sides from equal states with the same random actions, comparing every step
    (game_cases.compare_play); raises Mismatch at the first difference. Returns the finished
    reference game."""

    def check(ref, states, mask, fail):
        record = states[0]
        for p in range(ref.seats):  # EVD-E2 on every intermediate state
            ours, theirs = ref.score(p), int(rules.score_of(record, p))
            if ours != theirs:
                fail(f"seat {p} scores {ours} in the reference, {theirs} in the kernel")
        if ref.is_over:
            kernel_scores = [int(x) for x in record["score"][: ref.seats]]
            if kernel_scores != ref.scores:
                fail(f"final scores {ref.scores} vs kernel {kernel_scores}")

    def pick(ref, legal):
        return choose(rnd, policy, ref.pend_kind, legal)

    return game_cases.compare_play(
        ref, states, rules, label, projection=kernel_projection, choose=pick, check=check
    )


def game_setup(index):
    """Players (1-4), Rugwort's year (1-3) and policy of game ``index``."""
    num_players = index % 4 + 1
    year = (index // 4) % 3 + 1
    policy = ("uniform", "eager", "eager", "eager")[index % 8] if index % 8 < 4 else "avoid_pass"
    return num_players, year, policy


def new_pair(index, seed=SEED):
    num_players, year, _ = game_setup(index)
    # every other block of 12 games plays the fool_bonuses reading, one game in 5 the
    # pass_anytime reading of EVD-E1 (docs/everdell.md, Options)
    options = year | (rules.OPTION_FOOL_BONUSES if (index // 12) % 2 else 0)
    options |= rules.OPTION_PASS_ANYTIME if index % 5 == 4 else 0
    key = game_key(seed, index)
    ref = ReferenceGame.from_key(int(key), num_players, options)
    states = np.zeros(1, STATE_DTYPE)
    rules.init_game(states, 0, num_players, key, np.int64(options))
    return ref, states


def play_fresh(index, seed=SEED):
    num_players, year, policy = game_setup(index)
    ref, states = new_pair(index, seed)
    rnd = random.Random(seed * 1_000_003 + index)
    label = f"game {index} ({num_players} players, year {year}, {policy})"
    return compare_play(ref, states, rnd, label, policy)


# ---- hand-edited starts on both sides -------------------------------------------------------


class RichStart:
    """A fresh game edited the same way on both sides before the first action. Cards are only
    ever moved out of the deck, so all 128 stay accounted for (minus any cut from the deck)."""

    def __init__(self, index, seed=SEED):
        self.index = index
        self.ref, self.states = new_pair(index, seed)
        self.record = self.states[0]
        self.rnd = random.Random(seed * 7_919 + index)

    def _sync_piles(self):
        r, ref = self.record, self.ref
        r["deck"][:] = -1
        r["deck"][: len(ref.deck)] = ref.deck
        r["deck_n"] = len(ref.deck)
        r["discard"][:] = -1
        r["discard"][: len(ref.discard)] = ref.discard
        r["discard_n"] = len(ref.discard)

    def _take(self, t):
        """A card of type t from the deck, else from the Meadow (refilled from the deck)."""
        ref = self.ref
        if t in ref.deck:
            ref.deck.remove(t)
            return
        i = ref.meadow.index(t)  # ValueError: no copy left
        ref.meadow[i] = ref.deck.pop()
        self.record["meadow"][i] = ref.meadow[i]

    def resources(self, p, amounts):
        self.ref.players[p].resources = list(amounts)
        self.record["resources"][p] = amounts

    def tokens(self, p, n):
        self.ref.players[p].tokens = n
        self.record["tokens"][p] = n

    def season(self, p, season):
        """Enter ``season`` with every worker on hand (solo: Rugwort moves with it)."""
        ref, r = self.ref, self.record
        workers = sum(NEW_WORKERS[: season + 1])
        if ref.solo and ref.rug_year == 3 and season == 3:
            workers -= 1
        ref.players[p].season = season
        ref.players[p].workers = [rules.W_FREE] * workers
        ref.players[p].permanent = [False] * workers
        r["season"][p] = season
        r["workers"][p] = workers
        r["wloc"][p] = rules.W_FREE
        r["wperm"][p] = 0
        if ref.solo:
            for s in range(1, season + 1):
                ref._rugwort_season(s)
            for e, owner in enumerate(ref.event_owner):
                r["event_owner"][e] = owner
            r["rug_forest"] = ref.rug_forest
            r["rug_basic"] = ref.rug_basic
            r["rug_journey"] = ref.rug_journey
            r["rug_meadow"] = sum(1 << i for i in ref.rug_meadow)

    def city_card(self, p, t, occupied=False, tokens=0):
        self._take(t)
        k = self.ref._free_slot(p)
        if t == CLOCK_TOWER:
            tokens = 3
        self.ref.cities[p][k] = CityCard(t, occupied=occupied, tokens=tokens)
        self.record["city"][p, k] = t
        self.record["city_occupied"][p, k] = occupied
        self.record["city_tokens"][p, k] = tokens

    def hand(self, p, names):
        """Replace p's hand (the old cards go under the deck) by these cards from the deck."""
        ref = self.ref
        for t, n in enumerate(ref.players[p].hand):
            ref.deck[:0] = [t] * n
        counts = [0] * NT
        for name in names:
            t = CARD_ID[name]
            self._take(t)
            counts[t] += 1
        ref.players[p].hand = counts
        self.record["hand"][p] = counts
        self.record["hand_n"][p] = sum(counts)
        self._sync_piles()

    def rugwort_card(self, t):
        self._take(t)
        self.ref.rug_city[t] += 1
        self.record["rug_city"][t] += 1

    def random_city(self, p, size):
        for _ in range(size):
            candidates = sorted(t for t in set(self.ref.deck) if self.ref._fits(p, t))
            if not candidates:
                return
            t = self.rnd.choice(candidates)
            occupied = KIND[t] == CONSTRUCTION and self.rnd.random() < 0.3
            tokens = self.rnd.randint(0, 2) if t == CHAPEL else 0
            self.city_card(p, t, occupied, tokens)

    def cut_deck(self, keep, to_discard):
        """The deck keeps its top ``keep`` cards; ``to_discard`` of the next ones go to the
        discard pile; the rest leave the game."""
        deck = self.ref.deck
        top = deck[len(deck) - keep :] if keep else []
        below = deck[: len(deck) - keep]
        self.ref.discard = below[len(below) - to_discard :] if to_discard else []
        self.ref.deck = top
        self._sync_piles()

    def build(self):
        """Random resources, seasons, cities, Rugwort's city and pile sizes."""
        rnd, ref = self.rnd, self.ref
        for p in range(ref.num_players):
            self.resources(p, [rnd.randint(0, 8) for _ in range(4)])
            self.tokens(p, rnd.randint(0, 3))
            if rnd.random() < 0.5:
                self.season(p, rnd.choice((1, 2, 3)))
            self.random_city(p, rnd.choice((0, 3, 6, 10, 13, 15, 15)))
        if ref.solo:
            for _ in range(rnd.randint(0, 8)):
                self.rugwort_card(rnd.choice(sorted(set(ref.deck))))
        if rnd.random() < 0.4:
            self.cut_deck(rnd.randint(0, 25), rnd.randint(0, 20))
        self._sync_piles()
        self.refresh()
        return self

    def refresh(self):
        """Both turn menus recomputed after the edits."""
        self.ref.refresh_turn()
        rules._turn_mask(self.record, int(self.record["current_player"]))

    def play(self, seed=SEED):
        _, year, policy = game_setup(self.index)
        rnd = random.Random(seed * 31 + self.index)
        label = f"rich start {self.index} ({self.ref.num_players} players, year {year}, {policy})"
        return compare_play(self.ref, self.states, rnd, label, policy)


# ---- tests ------------------------------------------------------------------------------------


def _run_fresh(start, count):
    outcomes = {"won": 0, "drawn": 0, "truncated": 0}
    for index in range(start, start + count):
        ref = play_fresh(index)
        key = "truncated" if ref.truncated else "drawn" if ref.winner is None else "won"
        outcomes[key] += 1
    return outcomes


def _run_rich(start, count):
    for index in range(start, start + count):
        RichStart(index).build().play()


@pytest.mark.parametrize("start", range(0, 150, 50))
def test_fresh_games_match_kernel(start):
    outcomes = _run_fresh(start, 50)
    assert outcomes["truncated"] == 0  # random games end long before the step cap
    assert outcomes["won"] > 0


@pytest.mark.parametrize("start", range(0, 60, 30))
def test_rich_starts_match_kernel(start):
    _run_rich(start, 30)


@pytest.mark.slow
@pytest.mark.parametrize("start", range(150, 1350, 100))
def test_many_fresh_games_match_kernel(start):
    _run_fresh(start, 100)


@pytest.mark.slow
@pytest.mark.parametrize("start", range(60, 660, 100))
def test_many_rich_starts_match_kernel(start):
    _run_rich(start, 100)


def test_every_player_count_and_year_is_played():
    setups = {game_setup(i)[:2] for i in range(150)}
    assert setups == {(n, y) for n in range(1, 5) for y in range(1, 4)}


def test_reference_rejects_illegal_actions_without_change():
    ref, _ = new_pair(3)
    assert game_cases.assert_rejects_illegal_without_change(ref, range(NUM_ACTIONS)) > 0


def test_setup_matches_the_rules():
    # EVD-S2..S6: forest cards by player count, 4 special events, 8 Meadow cards, hands of
    # 5, 6, 7, 8 from the first player on, 2 workers each; every card accounted for.
    for index in range(8):
        ref, _ = new_pair(index)
        n = ref.num_players
        assert len(ref.forest) == (3 if n <= 2 else 4)
        assert len(ref.specials) == 4 and len(set(ref.specials)) == 4
        assert all(t >= 0 for t in ref.meadow)
        for i in range(n):
            p = (ref.first_player + i) % n
            assert ref.players[p].hand_n == 5 + i
            assert ref.players[p].workers == [rules.W_FREE] * 2
        held = sum(pl.hand_n for pl in ref.players)
        assert len(ref.deck) + len(ref.meadow) + held == 128


def test_rich_starts_keep_every_card():
    # A RichStart only moves cards between piles: deck, discard, Meadow, hands, cities and
    # Rugwort's city never hold more than the 128 printed cards of each type's copies.
    for index in range(12):
        ref = RichStart(index).build().ref
        counts = [0] * NT
        for t in ref.deck + ref.discard + [t for t in ref.meadow if t >= 0]:
            counts[t] += 1
        for p in range(ref.seats):
            for t in range(NT):
                counts[t] += ref.players[p].hand[t] + ref.rug_city[t] * (p == 0)
            for card in ref.cities[p]:
                if card is not None:
                    counts[card.ctype] += 1
        assert all(counts[t] <= int(rules.COPIES[t]) for t in range(NT))
        for city in ref.cities:  # EVD-P4: Wanderers take no space, a Husband-Wife pair one
            types = [c.ctype for c in city if c is not None]
            pairs = min(types.count(CARD_ID["husband"]), types.count(CARD_ID["wife"]))
            assert sum(TAKES_SPACE[t] for t in types) - pairs <= 15


# ---- full cities (EVD-P4 and its exceptions) on both sides --------------------------------------

FIFTEEN = ["farm"] * 5 + ["mine"] * 3 + ["twig_barge"] * 3 + ["resin_refinery"] * 3
PLAY = rules.A_PLAY_HAND


@pytest.mark.parametrize(
    "city, hand, playable, not_playable",
    [
        # 15 spaces taken: a Wanderer needs no space and Ruins takes the space of the
        # Construction it replaces; a Farm or a lone Husband has no room.
        (FIFTEEN + ["general_store"], ["wanderer", "ruins", "farm", "husband"],
         ["wanderer", "ruins"], ["farm", "husband"]),
        # A Husband shares the space of a Wife who has no partner yet.
        (FIFTEEN + ["wife"], ["husband", "wife", "farm"], ["husband"], ["wife", "farm"]),
        # The Innkeeper leaves the city as payment, which makes room for the Critter.
        (FIFTEEN + ["innkeeper"], ["shepherd", "farm"], ["shepherd"], ["farm"]),
    ],
)  # fmt: skip
def test_full_city_exceptions_match_kernel(city, hand, playable, not_playable):
    start = RichStart(1)  # two players
    p = start.ref.turn_player
    start.resources(p, [9, 9, 9, 9])
    for q in range(2):
        start.hand(q, [])
    for name in city:
        start.city_card(p, CARD_ID[name])
    start.hand(p, hand)
    start.refresh()
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask_into(start.states, 0, mask)
    assert np.flatnonzero(mask).tolist() == start.ref.legal_actions()
    for name in playable:
        assert PLAY + CARD_ID[name] in start.ref.legal_actions(), name
    for name in not_playable:
        assert PLAY + CARD_ID[name] not in start.ref.legal_actions(), name
    if "innkeeper" in city:  # only the Innkeeper's way of paying is left
        start.ref.step(PLAY + CARD_ID["shepherd"])
        rules.apply_action(start.states, 0, PLAY + CARD_ID["shepherd"])
        assert start.ref.pend_kind != rules.PK_PAY  # one way to pay: taken at once
        assert not start.ref._has(p, CARD_ID["innkeeper"])
        assert start.ref._has(p, CARD_ID["shepherd"])
    start.play()
