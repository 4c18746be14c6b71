"""The Numba Radlands kernel against the slow pure-Python reference (envs/radlands/reference.py).

Both are driven with the same uniformly random actions over many seeded games and all 16 option
combinations; after every sub-decision the kernel's legal mask must equal the reference's legal
list, and the kernel record, read back into the reference's ``projection()`` form, must equal
the reference's projection (board, hands, queues, deck and discard order, water, turn, decider,
end state).

Hand-built scenarios (``Position``) add rare cards and situations (Zeto Khan, Juggernaut, full
boards, borrowed abilities, Omen Clock, deck exhaustion) and are played out at random the same
way. Any difference fails the test.

Every run plays 1,000 games from the start and each scenario once per option combination;
``-m slow`` adds 39 more continuations per scenario and option combination.
"""

import random

import game_cases
import numpy as np
import pytest

from meeple_gym.core.rng import game_key
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules
from meeple_gym.radlands.effects import TARGET
from meeple_gym.radlands.reference import RAIDERS, Card, ReferenceGame
from meeple_gym.radlands.rules import NUM_ACTIONS, PHASE_DRAFT, PHASE_OVER, STATE_DTYPE

SEED = 20250101
N_OPTIONS = 16  # every combination of the four OPTION_* bits
CAMP, PERSON = 1, 2  # ent_kind codes of the record layout
OWN_DAMAGED_CARD = TARGET["OWN_DAMAGED_CARD"]


# ---- the kernel record in the reference's projection form -------------------------------------


def kernel_projection(record) -> dict:
    """``ReferenceGame.projection()`` built from one ``STATE_DTYPE`` record."""
    phase = int(record["phase"])
    over = phase == PHASE_OVER
    players = []
    for p in range(2):
        if phase == PHASE_DRAFT:
            n = int(record["kept_n"][p])
            players.append(
                {
                    "camps": [(int(record["camp"][p, c]), 0, False) for c in range(n)],
                    "columns": [],
                    "hand": {},
                    "silo": False,
                    "queue": [None, None, None],
                    "juggernaut_moves": 0,
                }
            )
            continue
        columns = []
        for c in range(3):
            column = []
            for i in range(int(record["col_len"][p, c])):
                kind = int(record["ent_kind"][p, c, i])
                if kind == CAMP:
                    column.append(("camp",))
                else:
                    assert kind == PERSON, f"entity kind {kind} inside a column"
                    damaged = bool(record["ent_damaged"][p, c, i])
                    ready = not damaged and not record["ent_not_ready"][p, c, i]
                    column.append(
                        (
                            "person",
                            int(record["ent_type"][p, c, i]),
                            damaged,
                            bool(record["ent_punk"][p, c, i]),
                            ready,
                        )
                    )
            columns.append(column)
        queue = []
        for j in range(3):
            code = int(record["queue"][p, j])
            queue.append(None if code < 0 else RAIDERS if code == rules.RAIDERS else code)
        players.append(
            {
                "camps": [
                    (
                        int(record["camp"][p, c]),
                        int(record["camp_state"][p, c]),
                        bool(record["camp_used"][p, c]),
                    )
                    for c in range(3)
                ],
                "columns": columns,
                "hand": {t: int(n) for t, n in enumerate(record["hand"][p]) if n},
                "silo": bool(record["silo_in_hand"][p]),
                "queue": queue,
                "juggernaut_moves": int(record["juggernaut_moves"][p]),
            }
        )
    lifted = None
    if int(record["lift_uid"]) > 0:
        damaged = bool(record["lift_damaged"])
        lifted = (
            "person",
            int(record["lift_type"]),
            damaged,
            bool(record["lift_punk"]),
            not damaged and not record["lift_not_ready"],
        )
    winner = int(record["winner"])
    return {
        "phase": phase,
        "players": players,
        "deck": [int(t) for t in record["deck"][: record["deck_n"]]],
        "discard": [int(t) for t in record["discard"][: record["discard_n"]]],
        "water": int(record["water"]),
        "turn_player": int(record["turn_player"]),
        "decider": None if over else int(record["current_player"]),
        "terminated": bool(record["terminated"]),
        "truncated": bool(record["truncated"]),
        "winner": None if winner < 0 else winner,
        "lifted": lifted,
    }


def _diff(ref_view, kernel_view):
    lines = []
    for key in ref_view:
        if key == "players":
            for p in range(2):
                for field, value in ref_view["players"][p].items():
                    other = kernel_view["players"][p][field]
                    if value != other:
                        lines.append(
                            f"  p{p}.{field}: reference {value}\n{'':>14}kernel    {other}"
                        )
        elif ref_view[key] != kernel_view[key]:
            lines.append(f"  {key}: reference {ref_view[key]} kernel {kernel_view[key]}")
    return "\n".join(lines)


# ---- driving both implementations ---------------------------------------------------------


def _kernel_game(seed, options, index):
    states = np.zeros(1, STATE_DTYPE)
    rules.init_game(states, 0, 2, game_key(seed, index), np.int64(options))
    return states


def compare_play(ref, states, rnd, label, max_steps=None):
    """Drive both sides from equal states with random legal actions, comparing every step
    (game_cases.compare_play); raises Mismatch at the first difference."""

    def check(ref, states, mask, fail):
        if states[0]["phase"] == rules.PHASE_DECISION:
            # snapshots recompute the pending decision (docs/radlands.md, Snapshots): it must
            # be the same one
            again = np.zeros(NUM_ACTIONS, np.int8)
            decider = rules.pending_mask_into(states, 0, again)
            if decider != states[0]["current_player"] or not np.array_equal(again, mask):
                fail(f"recomputed decision {np.flatnonzero(again).tolist()} for {decider}")

    def stop(history):
        return max_steps is not None and len(history) >= max_steps

    return game_cases.compare_play(
        ref,
        states,
        rules,
        label,
        projection=kernel_projection,
        choose=lambda ref, legal: rnd.choice(legal),
        check=check,
        diff=_diff,
        stop=stop,
        what="projections",
    )


def play_both(seed, options, index):
    """One uniformly random game from the start on both sides (see ``compare_play``)."""
    ref = ReferenceGame(seed, options, index)
    states = _kernel_game(seed, options, index)
    rnd = random.Random(seed * 1_000_003 + index * 17 + options)
    label = f"seed {seed} options {options} game {index}"
    return compare_play(ref, states, rnd, label)


def run_games(start, count, seed=SEED):
    """Play games start .. start+count-1, cycling through every option combination."""
    outcomes = {"won": 0, "drawn": 0, "truncated": 0}
    for index in range(start, start + count):
        ref = play_both(seed, index % N_OPTIONS, index)
        if ref.truncated:
            outcomes["truncated"] += 1
        elif ref.winner is None:
            outcomes["drawn"] += 1
        else:
            outcomes["won"] += 1
    return count, outcomes


# ---- hand-built positions on both sides ---------------------------------------------------


class Position:
    """A reference game and a kernel record edited the same way, at the first player's first
    actions phase (first-game camps, so no draft). Columns are filled back to front."""

    def __init__(self, index=0, options=0):
        options |= rules.OPTION_FIRST_GAME_CAMPS
        self.label = f"position {index} options {options}"
        self.ref = ReferenceGame(SEED, options, index)
        self.states = _kernel_game(SEED, options, index)
        self.me = self.ref.turn_player
        self.other = 1 - self.me
        self.record = self.states[0]
        for p in range(2):  # hands are rebuilt from the deck so no card is ever conjured
            self.hand(p, [])

    def _sync_deck(self):
        deck = self.ref.deck
        self.record["deck"][: len(deck)] = deck
        self.record["deck_n"] = len(deck)

    def _take(self, t):
        """Take a card of type t out of the deck for the board, a hand or a queue."""
        self.ref.deck.remove(t)  # ValueError: no copy left to place
        self._sync_deck()

    def camps(self, p, names, states=(0, 0, 0)):
        ids = [D.CAMP_ID[name] for name in names]
        self.ref.players[p].camps = list(ids)
        self.ref.players[p].camp_state = list(states)
        self.record["camp"][p] = ids
        self.record["camp_state"][p] = states
        return self

    def person(self, p, c, name, damaged=False, punk=False, not_ready=False):
        t = D.DECK_TYPE_ID[name]
        self._take(t)
        card = Card(is_camp=False, ptype=t, punk=punk, damaged=damaged, not_ready=not_ready)
        self.ref.players[p].columns[c].append(card)
        r = self.record
        i = int(r["col_len"][p, c])
        r["ent_kind"][p, c, i] = PERSON
        r["ent_type"][p, c, i] = t
        r["ent_uid"][p, c, i] = r["next_uid"]
        r["next_uid"] += 1
        r["ent_damaged"][p, c, i] = damaged
        r["ent_punk"][p, c, i] = punk
        r["ent_not_ready"][p, c, i] = not_ready
        r["ent_used_once"][p, c, i] = 0
        r["col_len"][p, c] = i + 1
        return self

    def hand(self, p, names):
        for t, n in enumerate(self.ref.players[p].hand):
            self.ref.deck[:0] = [t] * n  # the old hand goes under the deck
        self._sync_deck()
        counts = [0] * D.N_DECK_TYPES
        for name in names:
            counts[D.DECK_TYPE_ID[name]] += 1
            self._take(D.DECK_TYPE_ID[name])
        self.ref.players[p].hand = list(counts)
        self.record["hand"][p] = counts
        return self

    def water(self, n):
        self.ref.water = n
        self.record["water"] = n
        return self

    def queue(self, p, slots):
        codes = [
            None if x is None else RAIDERS if x == RAIDERS else D.DECK_TYPE_ID[x] for x in slots
        ]
        for code in codes:
            if code not in (None, RAIDERS):
                self._take(code)
        self.ref.players[p].queue = list(codes)
        self.record["queue"][p] = [
            -1 if x is None else rules.RAIDERS if x == RAIDERS else x for x in codes
        ]
        return self

    def deck(self, names):
        """Cut the draw deck down to these cards, bottom to top (the rest leave the game)."""
        types = [D.DECK_TYPE_ID[name] for name in names]
        self.ref.deck = list(types)
        self._sync_deck()
        return self

    def discard(self, names, reshuffled=False):
        """The discard pile, bottom to top; taken from the deck (call before ``deck``)."""
        types = [D.DECK_TYPE_ID[name] for name in names]
        for t in types:
            self._take(t)
        self.ref.discard = list(types)
        self.ref.reshuffled = reshuffled
        self.record["discard"][: len(types)] = types
        self.record["discard_n"] = len(types)
        self.record["reshuffled"] = reshuffled
        return self

    def play_random(self, seed, max_steps):
        """Random continuation on both sides, compared step by step."""
        self._refresh()
        rnd = random.Random(seed)
        label = f"{self.label} continuation {seed}"
        return compare_play(self.ref, self.states, rnd, label, max_steps)

    def legal(self):
        """Both legal lists (reference, kernel) after checking the two states agree."""
        self._refresh()
        assert kernel_projection(self.record) == self.ref.projection(), _diff(
            self.ref.projection(), kernel_projection(self.record)
        )
        mask = np.zeros(NUM_ACTIONS, np.int8)
        rules.legal_mask_into(self.states, 0, mask)
        return self.ref.legal_actions(), np.flatnonzero(mask).tolist()

    def _refresh(self):
        ref = self.ref
        if ref.phase == rules.PHASE_ACTIONS:  # the menu was computed before the edits
            ref._pending.actions = sorted(ref._main_actions(ref.turn_player))

    def step(self, action):
        self._refresh()
        self.ref.step(action)
        rules.apply_action(self.states, 0, action)
        return self


def use(c, i, k=0):
    return rules.A_USE + (c * 3 + i) * 3 + k


# Hand-built starting points rich in cards that uniform play from a fresh deal seldom
# combines; each is played out at random on both sides under every option combination.


def _zeto_and_raids(pos):  # Zeto Khan's first event, Raiders placement, full queue slots
    me, op = pos.me, pos.other
    pos.camps(me, ["garage", "omen_clock", "watchtower"])
    pos.person(me, 0, "zeto_khan").person(me, 1, "scout").person(op, 0, "looter")
    pos.person(op, 1, "vigilante", damaged=True)
    pos.hand(me, ["banish", "famine", "napalm", "uprising", "high_ground", "bombardment"])
    pos.queue(me, [None, "napalm", None]).water(9)


def _zeto_full_queue(pos):  # Zeto Khan's first event with no free slot behind its bomb
    me, op = pos.me, pos.other
    pos.camps(me, ["scavenger_camp", "victory_totem", "outpost"])
    pos.person(me, 2, "zeto_khan").person(op, 1, "gunner")
    pos.hand(me, ["banish", "uprising", "radiation", "strafe", "high_ground"])
    pos.queue(me, ["famine", "napalm", RAIDERS]).water(7)


def _juggernaut(pos):  # three Juggernaut moves, Vera's extra use, Construction Yard
    me, op = pos.me, pos.other
    pos.camps(me, ["juggernaut", "construction_yard", "omen_clock"], states=(0, 0, 2))
    pos.person(me, 0, "vera_vosh").person(me, 1, "muse")
    pos.camps(op, ["pillbox", "scud_launcher", "mercenary_camp"]).person(op, 0, "holdout")
    pos.hand(me, ["holdout", "rescue_team", "karli_blaze", "gunner"]).water(8)


def _traits(pos):  # Argo's granted ability, Karli, cost discounts, Doomsayer's push
    me, op = pos.me, pos.other
    pos.camps(me, ["pillbox", "command_post", "oasis"], states=(0, 0, 0))
    pos.person(me, 0, "argo_yesky").person(me, 0, "karli_blaze").person(me, 1, "muse", punk=True)
    pos.hand(me, ["holdout", "vera_vosh", "rabble_rouser", "wounded_soldier", "doomsayer"])
    pos.person(op, 0, "sniper").person(op, 2, "repair_bot", damaged=True)
    pos.queue(op, ["famine", None, RAIDERS]).water(10)


def _full_board(pos):  # RAD-A2 room-making for plays, punks and flips
    me, op = pos.me, pos.other
    pos.camps(me, ["arcade", "training_camp", "cache"], states=(1, 0, 0))
    pos.person(me, 0, "muse", punk=True).person(me, 0, "vigilante")
    pos.person(me, 1, "banish", punk=True).person(me, 1, "looter")
    pos.person(me, 2, "rescue_team").person(me, 2, "mutant", damaged=True)
    pos.hand(me, ["uprising", "scout", "holdout", "argo_yesky"]).person(op, 1, "gunner")
    pos.water(10)


def _borrowing(pos):  # Mimic, Adrenaline Lab, Parachute Base, Mercenary Camp
    me, op = pos.me, pos.other
    pos.camps(me, ["adrenaline_lab", "parachute_base", "mercenary_camp"])
    pos.person(me, 0, "mimic").person(me, 1, "wounded_soldier", damaged=True)
    pos.person(me, 1, "sniper", damaged=True).person(me, 2, "muse")
    pos.hand(me, ["assassin", "exterminator", "scientist", "mimic", "rescue_team"])
    pos.person(op, 0, "vanguard").person(op, 1, "cult_leader")
    pos.person(op, 1, "magnus_karv", damaged=True).person(op, 2, "rabble_rouser")
    pos.hand(op, ["truce", "muse"]).water(10)


def _queues(pos):  # Omen Clock on both queues, resolving out of slot 1, Watchtower
    me, op = pos.me, pos.other
    pos.camps(me, ["omen_clock", "scavenger_camp", "watchtower"])
    pos.queue(me, [RAIDERS, "banish", None]).queue(op, ["high_ground", None, "bombardment"])
    pos.person(me, 0, "doomsayer").person(me, 1, "scout").person(op, 2, "exterminator")
    pos.hand(me, ["doomsayer", "strafe", "truce", "famine"]).water(8)


def _deck_out(pos, reshuffled):  # RAD-E2: the one reshuffle, then the draw game
    me = pos.me
    pos.camps(me, ["supply_depot", "warehouse", "mulcher"])
    pos.person(me, 0, "scientist").person(me, 1, "zeto_khan").person(me, 2, "looter")
    pos.hand(me, ["interrogate", "muse", "gunner"])
    pos.discard(["sniper", "famine", "assassin", "holdout", "vigilante"], reshuffled)
    pos.deck(["muse", "banish", "scout"])
    pos.water(10)


def _destruction(pos):  # sets, columns, self-damage and sacrifices near the end of a game
    me, op = pos.me, pos.other
    pos.camps(me, ["reactor", "bonfire", "labor_camp"], states=(0, 1, 0))
    pos.camps(op, ["blood_bank", "catapult", "cannon"], states=(1, 0, 2))
    pos.person(me, 0, "gunner").person(me, 1, "magnus_karv").person(op, 0, "muse", punk=True)
    pos.person(op, 0, "pyromaniac", damaged=True).person(op, 1, "exterminator")
    pos.hand(me, ["radiation", "strafe", "napalm", "bombardment", "famine", "truce"])
    pos.hand(op, ["high_ground", "mimic"]).water(10)


SCENARIOS = {
    "zeto_and_raids": _zeto_and_raids,
    "zeto_full_queue": _zeto_full_queue,
    "juggernaut": _juggernaut,
    "traits": _traits,
    "full_board": _full_board,
    "borrowing": _borrowing,
    "queues": _queues,
    "deck_out": lambda pos: _deck_out(pos, reshuffled=False),
    "deck_out_again": lambda pos: _deck_out(pos, reshuffled=True),
    "destruction": _destruction,
}


def run_scenarios(names, seeds):
    played = 0
    for name in names:
        for options in range(N_OPTIONS):
            for seed in seeds:
                pos = Position(index=seed, options=options)
                pos.label = f"scenario {name} options {options} seed {seed}"
                SCENARIOS[name](pos)
                pos.play_random(seed, max_steps=None)
                played += 1
    return played


# ---- tests --------------------------------------------------------------------------------


def test_fresh_games_match_kernel():
    # RAD-S3: a drafting game shows no camps kept yet, and the whole 66-card deck (RAD-S2).
    ref = ReferenceGame(SEED, 0, 0)
    assert kernel_projection(_kernel_game(SEED, 0, 0)[0]) == ref.projection()
    assert ref.projection()["phase"] == PHASE_DRAFT
    assert sorted(ref.projection()["deck"]) == sorted(
        t for t in range(D.N_DECK_TYPES) for _ in range(D.DECK_TYPE_COUNTS[t])
    )
    # First-game camps: no draft; each set's draw numbers add up to 2 (RAD-S3, RAD-S4), and
    # the first player has drawn 1 more for the first turn (RAD-T2) with 1 water.
    first_game = ReferenceGame(SEED, rules.OPTION_FIRST_GAME_CAMPS, 0)
    view = first_game.projection()
    assert kernel_projection(_kernel_game(SEED, rules.OPTION_FIRST_GAME_CAMPS, 0)[0]) == view
    me = view["turn_player"]
    assert [sum(p["hand"].values()) for p in view["players"]][me] == 3
    assert [sum(p["hand"].values()) for p in view["players"]][1 - me] == 2
    assert view["water"] == 1


def test_reference_rejects_illegal_actions_without_change():
    ref = ReferenceGame(SEED, 0, 0)
    # no turn during the draft
    assert game_cases.assert_rejects_illegal_without_change(ref, [rules.A_END_TURN]) == 1
    assert ref.legal_actions() == [rules.A_KEEP + k for k in range(6)]


@pytest.mark.parametrize("start", range(0, 1000, 250))
def test_uniform_random_games_match_kernel(start):
    # 1,000 seeded games in four chunks (pytest-xdist spreads them); every option combination
    # comes up many times, and uniform play ends well before the step cap
    played, outcomes = run_games(start, count=250)
    assert outcomes["won"] + outcomes["drawn"] == played == 250


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_match_kernel(name):
    assert run_scenarios([name], seeds=range(1)) == N_OPTIONS


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_many_scenarios_match_kernel(name):
    assert run_scenarios([name], seeds=range(1, 40)) == 39 * N_OPTIONS


# ---- rules the comparison once disagreed on ---------------------------------------------


def _camp_use_position(camp_names, camp_states=(0, 0, 0), people=()):
    pos = Position()
    pos.camps(pos.me, camp_names, camp_states).hand(pos.me, []).water(3)
    for column, name in people:
        pos.person(pos.me, column, name)
    return pos


def test_reference_bonfire_needs_another_damaged_card():
    # docs "usable": the first targeted step (RESTORE_MANY, after the passed-over self-damage)
    # needs a legal target; Bonfire itself never counts (RAD-I3, subtleties §16).
    bare = _camp_use_position(["bonfire", "garage", "supply_depot"])
    assert use(0, 0) not in bare.legal()[0]
    damaged = _camp_use_position(["bonfire", "garage", "supply_depot"], (0, 1, 0))
    assert use(0, 0) in damaged.legal()[0]
    ref_legal, kernel_legal = damaged.legal()
    assert ref_legal == kernel_legal


def test_kernel_bonfire_needs_another_damaged_card():
    ref_legal, kernel_legal = _camp_use_position(["bonfire", "garage", "supply_depot"]).legal()
    assert use(0, 0) not in kernel_legal


def test_octagon_needs_a_person_to_sacrifice():
    # docs "usable": a program with a compulsory sacrifice needs a person of yours.
    ref_legal, kernel_legal = _camp_use_position(["the_octagon", "garage", "railgun"]).legal()
    assert use(0, 0) not in ref_legal
    assert kernel_legal == ref_legal
    with_person = _camp_use_position(["the_octagon", "garage", "railgun"], people=[(1, "muse")])
    ref_legal, kernel_legal = with_person.legal()
    assert use(0, 0) in ref_legal
    assert kernel_legal == ref_legal


def _holdout_full_board():
    """Six people, Warehouse (column 1) destroyed, 1 water, Holdout in hand: Holdout is free
    only in column 1, so only a person there may be destroyed to make room (RAD-A2)."""
    pos = Position()
    me = pos.me
    pos.camps(me, ["parachute_base", "warehouse", "catapult"], (0, 2, 0))
    for c, names in enumerate([("muse", "vigilante"), ("scout", "looter"), ("sniper", "gunner")]):
        for name in names:
            pos.person(me, c, name)
    return pos.hand(me, ["holdout"]).water(1)


AFFORDABLE_ROOM = [rules.A_TARGET + 3 + 1, rules.A_TARGET + 3 + 2]  # own column 1, both people


def test_makes_room_only_where_the_person_is_affordable():
    # Play action: the doc's rule for RAD-A2 room-making.
    play = _holdout_full_board()
    play.step(rules.A_PLAY_PERSON + D.PERSON_ID["holdout"])
    ref_legal, kernel_legal = play.legal()
    assert ref_legal == AFFORDABLE_ROOM
    assert kernel_legal == ref_legal
    # Parachute Base: the same, with Holdout's 1-water ability cost kept back (docs: PARACHUTE).
    parachute = _holdout_full_board()
    parachute.step(use(0, 0)).step(rules.A_SELECT_HAND + D.PERSON_ID["holdout"])
    ref_legal, kernel_legal = parachute.legal()
    assert ref_legal == AFFORDABLE_ROOM
    assert kernel_legal == ref_legal
