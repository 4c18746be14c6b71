"""Rule-by-rule tests of the Radlands kernel (envs/radlands/rules.py).

Every rule ID of the rules checklist (RAD-…, see docs/radlands.md) is named by at least one
test here that fails when the rule is broken; per-card rulings are in test_radlands_cards.py,
which reuses the helpers below. Positions are built by editing the record (camps, people,
hands, queues, water); the kernel is then driven only through ``legal_mask_into`` and
``apply_action``, always checking that an action is legal before applying it. Expected values
come from the rule book and the printed cards, not from running the code.
"""

import numpy as np
import pytest
from game_cases import act_checked, legal_set, pull_from_deck

from meeple_gym.core.rng import game_key
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R

PERSON = D.PERSON_ID
CAMP = D.CAMP_ID
EVENT = D.EVENT_ID
DT = D.DECK_TYPE_ID  # person and event keys -> draw-deck type
RAIDERS = "raiders"

# Card facts restated from the printed cards, not read from the data tables.
PEOPLE_COUNT, EVENT_COUNT = 46, 20
DRAW_NUMBER = {
    "arcade": 1,
    "victory_totem": 1,
    "mercenary_camp": 0,
    "garage": 0,
    "railgun": 0,
    "supply_depot": 2,
    "obelisk": 3,
}

# Plain camps for hand-built positions: simple abilities, no trait that changes costs.
CAMPS_0 = ("railgun", "garage", "supply_depot")
CAMPS_1 = ("arcade", "victory_totem", "mercenary_camp")
ENT_FIELDS = (
    "ent_kind",
    "ent_type",
    "ent_uid",
    "ent_damaged",
    "ent_punk",
    "ent_not_ready",
    "ent_used_once",
)


# ---- building positions ---------------------------------------------------------------------


def new_game(seed=0, options=0):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, 2, game_key(seed), np.int64(options))
    return states


def position(camps0=CAMPS_0, camps1=CAMPS_1, turn=0, water=3, options=0, seed=0):
    """A blank mid-game position in ``turn``'s actions phase.

    Camps only (undamaged, not used), empty hands, queues and discard, and the full draw deck
    in type order (so its top is the last event type); hand-built cards are pulled out of it,
    which keeps all 66 cards accounted for.
    """
    states = new_game(seed, options)
    s = states[0]
    for p, names in enumerate((camps0, camps1)):
        for c, name in enumerate(names):
            s["camp"][p, c] = CAMP[name]
    s["camp_state"][:] = 0
    s["camp_used"][:] = 0
    s["col_len"][:] = 1
    for field in ENT_FIELDS:
        s[field][:] = 0
    s["ent_type"][:] = -1
    for p in range(2):
        for c in range(3):
            s["ent_kind"][p, c, 0] = R.CAMP
            s["ent_uid"][p, c, 0] = p * 3 + c + 1
    s["next_uid"] = 7
    s["juggernaut_moves"][:] = 0
    s["hand"][:] = 0
    s["silo_in_hand"][:] = 0
    deck = np.repeat(np.arange(D.N_DECK_TYPES), D.DECK_TYPE_COUNTS)
    s["deck"][:] = deck
    s["deck_n"] = len(deck)
    s["discard"][:] = -1
    s["discard_n"] = 0
    s["reshuffled"] = 0
    s["queue"][:] = -1
    s["water"] = water
    s["first_turn_done"] = 1
    s["first_player"] = 0
    for field in ("entered_this_turn", "raiders_resolved", "high_ground"):
        s[field][:] = 0
    for field in ("event_resolved", "zeto_used", "vera_used", "in_events_phase", "depth"):
        s[field] = 0
    s["revealed_n"] = 0
    s["pend_mask"][:] = 0
    s["turn_player"] = turn
    s["current_player"] = turn
    s["phase"] = R.PHASE_ACTIONS
    s["terminated"] = 0
    s["winner"] = -1
    return states


def pull(states, t):
    """Take one card of deck type ``t`` out of the draw deck (wherever it sits)."""
    pull_from_deck(states[0], t, D.DECK_TYPE_KEYS[t])


def stack(states, *keys):
    """Put these cards on top of the deck; ``keys[0]`` becomes the top card."""
    s = states[0]
    for key in reversed(keys):
        t = DT[key]
        pull(states, t)
        s["deck"][s["deck_n"]] = t
        s["deck_n"] += 1


def top_of_deck(states, n=1):
    s = states[0]
    k = int(s["deck_n"])
    return [D.DECK_TYPE_KEYS[int(t)] for t in s["deck"][k - n : k][::-1]]


def give(states, p, key, n=1):
    for _ in range(n):
        pull(states, DT[key])
        states[0]["hand"][p, DT[key]] += 1


def give_hand(states, p, **counts):
    """``give`` for several card types at once: ``give_hand(states, 0, muse=2, scout=1)``."""
    for key, n in counts.items():
        give(states, p, key, n)


def hand(states, p):
    """Player p's hand as {card key: count}."""
    return {D.DECK_TYPE_KEYS[t]: int(v) for t, v in enumerate(states[0]["hand"][p]) if v}


def hand_size(states, p):
    return int(states[0]["hand"][p].sum())


def put(states, p, c, key, index=None, damaged=False, punk=False, not_ready=False):
    """Put a person (or a punk whose face is ``key``) into column c at ``index`` (front by
    default), shifting whatever stands there forward. Returns its uid."""
    s = states[0]
    t = DT[key]
    pull(states, t)
    n = int(s["col_len"][p, c])
    assert n < R.DEPTH, "column already holds 2 people"
    i = n if index is None else index
    for j in range(n, i, -1):
        for field in ENT_FIELDS:
            s[field][p, c, j] = s[field][p, c, j - 1]
    uid = int(s["next_uid"])
    s["next_uid"] = uid + 1
    values = (R.PERSON, t, uid, damaged, punk, not_ready, 0)
    for field, value in zip(ENT_FIELDS, values, strict=True):
        s[field][p, c, i] = value
    s["col_len"][p, c] = n + 1
    return uid


def set_queue(states, p, slots):
    """``slots`` = 3 entries for slots 1..3: None, RAIDERS or an event key."""
    for j, key in enumerate(slots):
        if key is None:
            code = -1
        elif key == RAIDERS:
            code = R.RAIDERS
        else:
            code = DT[key]
            pull(states, code)
        states[0]["queue"][p, j] = code


def queue(states, p):
    out = []
    for code in states[0]["queue"][p]:
        code = int(code)
        out.append(None if code < 0 else RAIDERS if code == R.RAIDERS else D.DECK_TYPE_KEYS[code])
    return out


def destroy_camp(states, p, c):
    states[0]["camp_state"][p, c] = 2


def column(states, p, c):
    """Column c of player p, back to front: camp keys, person keys, or "punk"."""
    s = states[0]
    out = []
    for i in range(int(s["col_len"][p, c])):
        if s["ent_kind"][p, c, i] == R.CAMP:
            out.append(D.CAMP_KEYS[int(s["camp"][p, c])])
        elif s["ent_punk"][p, c, i]:
            out.append("punk")
        else:
            out.append(D.DECK_TYPE_KEYS[int(s["ent_type"][p, c, i])])
    return out


def find(states, uid):
    """(p, c, i) of the card with this uid, or None once it has left play."""
    s = states[0]
    for p in range(2):
        for c in range(3):
            for i in range(int(s["col_len"][p, c])):
                if s["ent_uid"][p, c, i] == uid:
                    return p, c, i
    return None


def damaged(states, uid):
    p, c, i = find(states, uid)
    return bool(states[0]["ent_damaged"][p, c, i])


def discard(states):
    s = states[0]
    return [D.DECK_TYPE_KEYS[int(t)] for t in s["discard"][: int(s["discard_n"])]]


def card_total(states):
    """Every draw-deck card, wherever it is: must stay 66 (Raiders are not deck cards)."""
    s = states[0]
    on_board = int((s["ent_kind"] == R.PERSON).sum())
    queued = int(((s["queue"] >= 0) & (s["queue"] != R.RAIDERS)).sum())
    return int(s["deck_n"]) + int(s["discard_n"]) + int(s["hand"].sum()) + on_board + queued


# ---- actions ----------------------------------------------------------------------------


def use(c, i, k=0):
    return R.A_USE + (c * 3 + i) * 3 + k


def target(side, c, i):
    """Entity (c, i) of the decider's own side (0) or the other side (1)."""
    return R.A_TARGET + (side * 3 + c) * 3 + i


def place(c, i):
    return R.A_PLACE + c * 3 + i


def choose(k):
    return R.A_CHOOSE + k


def select_hand(key):
    return R.A_SELECT_HAND + DT[key]


def select_column(side, c):
    return R.A_SELECT_COLUMN + side * 3 + c


def select_event(side, slot):
    """The event in queue slot ``slot`` (1..3) of side ``side``."""
    return R.A_SELECT_EVENT + side * 3 + slot - 1


def play(key):
    return R.A_PLAY_PERSON + PERSON[key]


def play_event(key):
    return R.A_PLAY_EVENT + EVENT[key]


def junk(key):
    return R.A_JUNK + DT[key]


def legal(states):
    return legal_set(R, states)


def act(states, *actions):
    """Apply each action after checking that the kernel itself calls it legal."""
    act_checked(R, states, actions)


def targets(states):
    """Pending TARGET choices as a set of (side, c, i)."""
    out = set()
    for a in legal(states):
        if R.A_TARGET <= a < R.A_PLACE:
            k = a - R.A_TARGET
            out.add((k // 9, (k % 9) // 3, k % 3))
    return out


def places(states):
    return {
        ((a - R.A_PLACE) // 3, (a - R.A_PLACE) % 3)
        for a in legal(states)
        if R.A_PLACE <= a < R.A_CHOOSE
    }


def deciding(states):
    """(phase, decider)."""
    return int(states[0]["phase"]), int(states[0]["current_player"])


def rewards(states):
    out = np.zeros(2, np.float32)
    R.rewards_into(states[0], out)
    return [float(x) for x in out]


def end_turn(states):
    act(states, R.A_END_TURN)


# ---- setup (RAD-S1..S5, RAD-K1) -------------------------------------------------------------


def test_rad_s1_offers_are_distinct_base_camps():
    """RAD-S1: 34 base camps; each player is offered 6 different ones (no Cult of Chrome)."""
    seen = set()
    for seed in range(30):
        s = new_game(seed)[0]
        offered = [int(x) for x in s["offer"].ravel()]
        assert len(set(offered)) == 12
        assert all(0 <= x < 34 for x in offered)
        seen.update(offered)
        assert s["phase"] == R.PHASE_DRAFT and s["current_player"] == 0
    assert seen == set(range(34))


def test_rad_s2_draw_deck_is_46_people_and_20_events():
    """RAD-S2."""
    orders = set()
    for seed in range(5):
        s = new_game(seed)[0]
        deck = [int(t) for t in s["deck"][: int(s["deck_n"])]]
        assert len(deck) == PEOPLE_COUNT + EVENT_COUNT
        assert sum(t < D.FIRST_EVENT_TYPE for t in deck) == PEOPLE_COUNT
        assert sum(t >= D.FIRST_EVENT_TYPE for t in deck) == EVENT_COUNT
        assert s["discard_n"] == 0
        orders.add(tuple(deck))
    assert len(orders) == 5  # shuffled


def test_rad_s3_keep_three_of_six_in_column_order():
    """RAD-S3: keeping order is column order; the other three camps leave the game."""
    states = new_game(3)
    s = states[0]
    offer0 = [int(x) for x in s["offer"][0]]
    offer1 = [int(x) for x in s["offer"][1]]
    act(states, R.A_KEEP + 4, R.A_KEEP + 0)
    assert R.A_KEEP + 4 not in legal(states)  # a kept camp cannot be kept twice
    act(states, R.A_KEEP + 5)
    assert deciding(states) == (R.PHASE_DRAFT, 1)
    act(states, R.A_KEEP + 1, R.A_KEEP + 2, R.A_KEEP + 3)
    assert [int(x) for x in s["camp"][0]] == [offer0[4], offer0[0], offer0[5]]
    assert [int(x) for x in s["camp"][1]] == [offer1[1], offer1[2], offer1[3]]
    assert s["phase"] == R.PHASE_ACTIONS
    for p in range(2):
        for c in range(3):
            assert s["col_len"][p, c] == 1 and s["ent_kind"][p, c, 0] == R.CAMP


def test_rad_s3_first_game_camps_option():
    """RAD-S3 option: fixed first-game camps, no draft."""
    states = new_game(0, R.OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    names = [{D.CAMP_KEYS[int(x)] for x in s["camp"][p]} for p in range(2)]
    assert names[0] == {"arcade", "victory_totem", "mercenary_camp"}
    assert names[1] == {"garage", "railgun", "supply_depot"}
    assert s["phase"] == R.PHASE_ACTIONS


@pytest.mark.parametrize("seed", range(4))
def test_rad_s4_k1_starting_hand_is_the_sum_of_draw_numbers(seed):
    """RAD-S4 / RAD-K1: 3 water, Silo and Raiders beside the board, cards = draw numbers."""
    states = new_game(seed, R.OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    first = int(s["first_player"])
    for p in range(2):
        expected = sum(DRAW_NUMBER[D.CAMP_KEYS[int(x)]] for x in s["camp"][p])
        expected += 1 if p == first else 0  # the first turn's replenish draw (RAD-T2)
        assert hand_size(states, p) == expected
        assert s["silo_in_hand"][p] == 0
        assert queue(states, p) == [None, None, None]  # Raiders start beside the queue
    assert card_total(states) == 66


def test_rad_s4_drafted_camps_set_the_hand_size():
    """RAD-S4 after a real draft (camp draw numbers from the card table)."""
    for seed in range(6):
        states = new_game(seed)
        for _ in range(6):
            act(states, min(a for a in legal(states)))
        s = states[0]
        first = int(s["first_player"])
        for p in range(2):
            expected = sum(int(D.CAMP_DRAW[int(x)]) for x in s["camp"][p]) + (p == first)
            assert hand_size(states, p) == expected


def test_rad_s5_first_player_is_random_and_takes_the_first_turn():
    """RAD-S5."""
    firsts = set()
    for seed in range(20):
        s = new_game(seed, R.OPTION_FIRST_GAME_CAMPS)[0]
        firsts.add(int(s["first_player"]))
        assert s["turn_player"] == s["first_player"] == s["current_player"]
    assert firsts == {0, 1}


def test_rad_s3_obelisk_destroyed_at_setup_but_its_cards_are_drawn():
    """Obelisk (RAD-S3 / RAD-S4): destroyed before play, its draw number 3 still counts."""
    obelisk = CAMP["obelisk"]
    seed = next(x for x in range(500) if obelisk in new_game(x)[0]["offer"][0])
    states = new_game(seed)
    s = states[0]
    k = [int(x) for x in s["offer"][0]].index(obelisk)
    others = [j for j in range(6) if j != k][:2]
    act(states, R.A_KEEP + k, *(R.A_KEEP + j for j in others))
    act(states, R.A_KEEP + 0, R.A_KEEP + 1, R.A_KEEP + 2)
    assert s["camp"][0, 0] == obelisk and s["camp_state"][0, 0] == 2
    assert (s["camp_state"][0, 1:] == 0).all()
    draws = DRAW_NUMBER["obelisk"] + sum(int(D.CAMP_DRAW[int(s["camp"][0, c])]) for c in (1, 2))
    assert hand_size(states, 0) == draws + (s["first_player"] == 0)


# ---- card kinds (RAD-K2..K5) ----------------------------------------------------------------


def test_rad_k2_person_played_in_front_of_a_destroyed_camp():
    """RAD-K2: a person costs water and may stand before a destroyed camp."""
    states = position(water=1)
    destroy_camp(states, 0, 1)
    give(states, 0, "vigilante")
    act(states, play("vigilante"))
    assert (1, 1) in places(states)
    act(states, place(1, 1))
    assert column(states, 0, 1) == ["garage", "vigilante"]
    assert states[0]["water"] == 0


def test_rad_k3_punk_is_the_deck_top_face_down_and_returns_on_top():
    """RAD-K3: a punk is the top deck card face down, has no ability, dies to any damage and
    goes back face down on top of the deck."""
    states = position(water=3)
    stack(states, "sniper")
    give(states, 0, "argo_yesky")
    act(states, junk("argo_yesky"))  # junk icon: gain a punk
    act(states, place(0, 1))
    s = states[0]
    assert column(states, 0, 0) == ["railgun", "punk"]
    assert s["ent_type"][0, 0, 1] == DT["sniper"]  # the card is kept, face down
    assert not any(use(0, 1, k) in legal(states) for k in range(3))  # no abilities
    # the opponent damages it: one hit destroys a punk
    s["turn_player"] = s["current_player"] = 1
    put(states, 1, 0, "vigilante")
    deck_n = int(s["deck_n"])
    act(states, use(0, 1), target(1, 0, 1))
    assert column(states, 0, 0) == ["railgun"]
    assert int(s["deck_n"]) == deck_n + 1 and top_of_deck(states) == ["sniper"]
    assert "sniper" not in discard(states)
    assert card_total(states) == 66


def test_rad_k4_traits_off_while_a_person_is_damaged_on_while_a_camp_is_damaged():
    """RAD-K4: a damaged Karli Blaze grants nothing; a damaged Oasis still gives its discount."""
    states = position(camps0=("oasis", "garage", "railgun"), water=0)
    put(states, 0, 1, "karli_blaze", damaged=True)
    states[0]["camp_state"][0, 0] = 1  # Oasis damaged, not destroyed
    give(states, 0, "muse")
    act(states, play("muse"))
    assert places(states) == {(0, 1)}  # only Oasis's column is affordable with 0 water
    act(states, place(0, 1))
    assert use(0, 1) not in legal(states)  # Karli is damaged: Muse is not ready


def test_rad_k5_bomb_number_is_the_queue_slot():
    """RAD-K5 / RAD-A4: an event enters the slot its bomb number names."""
    states = position(water=10)
    for key in ("banish", "uprising", "bombardment"):
        give(states, 0, key)
    act(states, play_event("banish"), play_event("uprising"), play_event("bombardment"))
    assert queue(states, 0) == ["banish", "uprising", "bombardment"]
    assert states[0]["water"] == 10 - 1 - 1 - 4


# ---- board (RAD-B1..B3) ---------------------------------------------------------------------


def test_rad_b1_queue_counts_down_in_its_owners_turns():
    """RAD-B1 / RAD-T1: an event in slot 2 resolves at the start of its owner's 2nd turn."""
    states = position(water=1)
    give(states, 0, "uprising")
    act(states, play_event("uprising"))
    assert queue(states, 0) == [None, "uprising", None]
    end_turn(states)  # player 1's turn: player 0's queue does not move
    assert queue(states, 0) == [None, "uprising", None]
    end_turn(states)
    assert queue(states, 0) == ["uprising", None, None]
    assert deciding(states) == (R.PHASE_ACTIONS, 0)
    end_turn(states)
    end_turn(states)  # player 0's turn: Uprising resolves (three optional punks)
    assert queue(states, 0) == [None, None, None]
    assert deciding(states) == (R.PHASE_DECISION, 0)
    act(states, place(0, 1), R.A_SKIP, R.A_SKIP)
    assert column(states, 0, 0) == ["railgun", "punk"]
    assert discard(states)[-1] == "uprising"
    assert deciding(states) == (R.PHASE_ACTIONS, 0)
    assert states[0]["water"] == 3


def test_rad_b2_at_most_two_people_per_column():
    """RAD-B2."""
    states = position(water=3)
    put(states, 0, 0, "muse")
    put(states, 0, 0, "scout")
    give(states, 0, "vigilante")
    act(states, play("vigilante"))
    assert places(states) == {(1, 1), (2, 1)}


def muse_behind_scout(states):
    """The enemy's column 0: a Muse, protected by a Scout in front of it."""
    put(states, 1, 0, "muse")
    put(states, 1, 0, "scout")


def test_rad_b3_only_the_front_card_of_a_column_is_unprotected():
    """RAD-B3: Railgun (plain damage) reaches the front person or an empty column's camp."""
    states = position(water=3)
    muse_behind_scout(states)
    put(states, 1, 1, "sniper")
    act(states, use(0, 0))
    assert targets(states) == {(1, 0, 2), (1, 1, 1), (1, 2, 0)}


# ---- effect icons (RAD-I1..I8) --------------------------------------------------------------


def test_rad_i1_destroy_person_to_discard_camp_flips_punk_to_deck():
    """RAD-I1."""
    states = position(water=10)
    put(states, 0, 0, "assassin")
    put(states, 0, 1, "molgur_stang")
    put(states, 1, 0, "sniper")
    put(states, 1, 1, "gunner", punk=True)
    act(states, use(0, 1), target(1, 0, 1))  # Assassin: person -> discard
    assert column(states, 1, 0) == ["arcade"] and discard(states) == ["sniper"]
    act(states, use(1, 1), target(1, 2, 0))  # Molgur Stang: camp flips, stays in its column
    s = states[0]
    assert s["camp_state"][1, 2] == 2 and column(states, 1, 2) == ["mercenary_camp"]
    # the destroyed camp is no longer a target (RAD-I2: only undestroyed camps)
    put(states, 0, 2, "sniper")
    act(states, use(2, 1))
    assert (1, 2, 0) not in targets(states) and (1, 1, 1) in targets(states)
    act(states, target(1, 1, 1))  # Sniper on the punk: it goes face down on top of the deck
    assert top_of_deck(states) == ["gunner"] and discard(states) == ["sniper"]


def test_rad_i2_damage_turns_then_destroys():
    """RAD-I2: first hit damages, second destroys; a damaged person is not ready."""
    states = position(water=10, turn=1)
    muse = put(states, 0, 0, "muse")
    put(states, 1, 0, "sniper")
    put(states, 1, 1, "pyromaniac")
    act(states, use(0, 1), target(1, 0, 1))
    assert damaged(states, muse)
    end_turn(states)  # player 0's turn: the damaged Muse cannot use its ability
    assert use(0, 1) not in legal(states)
    end_turn(states)
    act(states, use(0, 1), target(1, 0, 1))
    assert find(states, muse) is None and "muse" in discard(states)
    act(states, use(1, 1), target(1, 2, 0))  # Pyromaniac: camp damaged, then destroyed
    s = states[0]
    assert s["camp_state"][0, 2] == 1
    end_turn(states)
    end_turn(states)
    act(states, use(1, 1), target(1, 2, 0))
    assert s["camp_state"][0, 2] == 2


def test_rad_i2_damage_targets_only_unprotected_opponent_cards():
    """RAD-I2 / RAD-G2: own cards are never offered to a plain damage."""
    states = position(water=3)
    put(states, 0, 1, "muse")
    act(states, use(0, 0))
    assert all(side == 1 for side, _, _ in targets(states))
    assert targets(states) == {(1, 0, 0), (1, 1, 0), (1, 2, 0)}


def test_rad_i3_restore_own_damaged_card_restored_person_not_ready():
    """RAD-I3: junk restore (Gunner's icon) straightens one of your own damaged cards."""
    states = position(water=3)
    muse = put(states, 0, 0, "muse", damaged=True)
    states[0]["camp_state"][0, 1] = 1
    put(states, 1, 0, "scout", damaged=True)  # an opponent's card is never restored
    states[0]["camp_state"][1, 2] = 1
    give(states, 0, "gunner")
    act(states, junk("gunner"))
    assert targets(states) == {(0, 0, 1), (0, 1, 0)}
    assert R.A_SKIP in legal(states)  # restoring is optional
    act(states, target(0, 0, 1))
    assert not damaged(states, muse)
    assert use(0, 1) not in legal(states)  # restored this turn: not ready (RAD-R2)


def test_rad_i4_injure_hits_only_people():
    """RAD-I4: Vigilante's injure never offers a camp, even an unprotected one."""
    states = position(water=3)
    put(states, 0, 0, "vigilante")
    put(states, 1, 1, "muse")
    act(states, use(0, 1))
    assert targets(states) == {(1, 1, 1)}


def test_rad_i5_draw_takes_the_top_card():
    """RAD-I5: junk draw (Cult Leader's icon)."""
    states = position(water=0)
    stack(states, "sniper")
    give(states, 0, "cult_leader")
    act(states, junk("cult_leader"))
    assert hand(states, 0) == {"sniper": 1}
    assert discard(states) == ["cult_leader"]


def test_rad_i6_gain_punk_is_optional_and_goes_in_any_column():
    """RAD-I6."""
    states = position(water=0)
    stack(states, "muse", "scout")
    give(states, 0, "karli_blaze", 1)
    give(states, 0, "magnus_karv", 1)
    act(states, junk("karli_blaze"))
    assert places(states) == {(0, 1), (1, 1), (2, 1)}
    act(states, R.A_SKIP)
    assert all(column(states, 0, c) == [CAMPS_0[c]] for c in range(3))
    assert top_of_deck(states) == ["muse"]  # skipping takes no card
    act(states, junk("magnus_karv"), place(2, 1))
    assert column(states, 0, 2) == ["supply_depot", "punk"]
    assert states[0]["ent_type"][0, 2, 1] == DT["muse"]


def test_rad_i7_t5_extra_water_lasts_this_turn_only():
    """RAD-I7 / RAD-T5: Looter's water icon gives 1 water; unspent water is not carried over."""
    states = position(water=2)
    give(states, 0, "looter")
    act(states, junk("looter"))
    assert states[0]["water"] == 3
    end_turn(states)
    assert states[0]["turn_player"] == 1 and states[0]["water"] == 3
    end_turn(states)
    assert states[0]["turn_player"] == 0 and states[0]["water"] == 3


def test_rad_i8_raid_places_advances_and_resolves_with_the_opponent_choosing():
    """RAD-I8: slot 3 by default; each raid advances; from slot 1 the Raiders resolve, the
    opponent picks which of their camps is damaged, and Raiders come back."""
    states = position(water=0)
    give(states, 0, "assassin", 2)
    give(states, 0, "vigilante", 2)
    give(states, 0, "holdout", 1)
    put(states, 1, 1, "muse")  # protection does not matter: the opponent picks any camp
    act(states, junk("assassin"))
    assert queue(states, 0) == [None, None, RAIDERS]
    act(states, junk("assassin"))
    assert queue(states, 0) == [None, RAIDERS, None]
    act(states, junk("vigilante"))
    assert queue(states, 0) == [RAIDERS, None, None]
    act(states, junk("vigilante"))
    assert deciding(states) == (R.PHASE_DECISION, 1)  # the opponent decides
    assert targets(states) == {(0, 0, 0), (0, 1, 0), (0, 2, 0)}
    act(states, target(0, 1, 0))
    assert states[0]["camp_state"][1, 1] == 1
    assert deciding(states) == (R.PHASE_ACTIONS, 0)
    assert queue(states, 0) == [None, None, None]  # returned, not discarded
    act(states, junk("holdout"))  # and can be raided out again the same turn
    assert queue(states, 0) == [None, None, RAIDERS]
    assert card_total(states) == 66


def _raid_with_queue(events, options=0):
    """Seat 0's event queue after junking an Assassin (raid) with ``events`` queued."""
    states = position(water=0, options=options)
    set_queue(states, 0, events)
    give(states, 0, "assassin")
    act(states, junk("assassin"))
    return queue(states, 0)


def test_rad_i8_raiders_printed_slot_two_option():
    """RAD-I8 option: the printed card's slot 2."""
    states = position(water=0, options=R.OPTION_RAIDERS_SLOT_2)
    give(states, 0, "assassin", 2)
    act(states, junk("assassin"))
    assert queue(states, 0) == [None, RAIDERS, None]
    act(states, junk("assassin"))
    assert queue(states, 0) == [RAIDERS, None, None]
    # slot 2 taken: the first free slot behind it, like any event (RAD-A4)
    after = _raid_with_queue([None, "uprising", None], R.OPTION_RAIDERS_SLOT_2)
    assert after == [None, "uprising", RAIDERS]


def test_rad_i8_raiders_blocked_by_an_event_in_front():
    """RAD-I8: Raiders do not advance into an occupied slot."""
    assert _raid_with_queue([None, "uprising", RAIDERS]) == [None, "uprising", RAIDERS]


def test_rad_i8_raiders_in_the_events_phase():
    """RAD-I8 / RAD-T1: queued Raiders resolve in the owner's events phase."""
    states = position(turn=1)
    set_queue(states, 0, [RAIDERS, None, None])
    end_turn(states)
    assert deciding(states) == (R.PHASE_DECISION, 1)
    act(states, target(0, 2, 0))
    s = states[0]
    assert s["camp_state"][1, 2] == 1
    assert deciding(states) == (R.PHASE_ACTIONS, 0) and s["water"] == 3
    assert queue(states, 0) == [None, None, None]


# ---- turn (RAD-T1..T5) ----------------------------------------------------------------------


def test_rad_t1_slot_one_resolves_then_the_queue_advances():
    """RAD-T1: Radiation in slot 1 resolves and is discarded; slot 3 moves to slot 2."""
    states = position(turn=1)
    mine = put(states, 0, 0, "muse")
    theirs = put(states, 1, 0, "scout")
    set_queue(states, 0, ["radiation", None, "bombardment"])
    end_turn(states)
    assert damaged(states, mine) and damaged(states, theirs)
    assert queue(states, 0) == [None, "bombardment", None]
    assert "radiation" in discard(states)
    assert deciding(states) == (R.PHASE_ACTIONS, 0)


def test_rad_t2_replenish_draw_then_three_water_first_player_one():
    """RAD-T2."""
    states = new_game(5, R.OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    first = int(s["first_player"])
    second = 1 - first
    assert s["water"] == 1  # the first player's very first turn
    before = hand_size(states, second)
    end_turn(states)
    assert s["turn_player"] == second and s["water"] == 3
    assert hand_size(states, second) == before + 1
    before = hand_size(states, first)
    end_turn(states)
    assert s["turn_player"] == first and s["water"] == 3
    assert hand_size(states, first) == before + 1


def test_rad_t3_actions_in_any_order_any_number_of_times():
    """RAD-T3: the same action may repeat; END_TURN is always offered."""
    states = position(water=6)
    give(states, 0, "muse", 2)
    assert R.A_END_TURN in legal(states)
    act(states, R.A_DRAW, play("muse"), place(0, 1), R.A_DRAW, play("muse"), place(1, 1))
    assert states[0]["water"] == 0
    assert R.A_END_TURN in legal(states)


def test_rad_t4_a_zero_cost_ability_still_marks_the_card_used():
    """RAD-T4: Muse (0 water) and Mulcher (0 water) are not ready after use."""
    states = position(camps0=("mulcher", "garage", "railgun"), water=0)
    put(states, 0, 0, "muse")
    put(states, 0, 1, "scout")
    act(states, use(0, 1))
    assert states[0]["water"] == 1
    assert use(0, 1) not in legal(states)
    act(states, use(0, 0), target(0, 1, 1))
    assert use(0, 0) not in legal(states)


# ---- actions (RAD-A1..A7) -------------------------------------------------------------------


def test_rad_a1_play_pays_and_enters_not_ready_in_front_or_behind():
    """RAD-A1: cost paid; not ready; in front of or behind a lone person; sliding back."""
    states = position(water=4)
    old = put(states, 0, 0, "muse")
    give(states, 0, "scout", 2)
    act(states, play("scout"))
    assert places(states) >= {(0, 1), (0, 2)}
    assert (0, 0) not in places(states)  # never behind the camp
    act(states, place(0, 1))  # behind Muse: Muse moves to the front
    assert column(states, 0, 0) == ["railgun", "scout", "muse"]
    assert states[0]["water"] == 3
    assert use(0, 1) not in legal(states) and use(0, 2) in legal(states)
    act(states, play("scout"), place(1, 1))
    assert column(states, 0, 1) == ["garage", "scout"]
    # destroying the back person slides the front one back toward the camp
    s = states[0]
    s["turn_player"] = s["current_player"] = 1
    put(states, 1, 0, "sniper")
    s["ent_damaged"][0, 0, 1] = 1
    act(states, use(0, 1), target(1, 0, 1))  # Sniper finishes the protected back Scout
    assert column(states, 0, 0) == ["railgun", "muse"]
    assert find(states, old) == (0, 0, 1)


FULL_BOARD = (("muse", "scout"), ("looter", "pyromaniac"), ("exterminator", "assassin"))


def fill_board(states, p):
    """Six people, two per column (RAD-B2), from FULL_BOARD."""
    for c, pair in enumerate(FULL_BOARD):
        for key in pair:
            put(states, p, c, key)


def test_rad_a2_destroy_to_make_room_only_when_all_six_places_are_full():
    """RAD-A2: with room anywhere nobody is destroyed; with 6 people one is destroyed first."""
    states = position(water=3)
    for c, pair in enumerate(FULL_BOARD[:2]):
        for key in pair:
            put(states, 0, c, key)
    put(states, 0, 2, "exterminator")
    give(states, 0, "vigilante", 2)
    act(states, play("vigilante"))
    assert deciding(states) == (R.PHASE_DECISION, 0)
    assert targets(states) == set() and places(states) == {(2, 1), (2, 2)}
    act(states, place(2, 2))
    # now all six places are full: the next play first destroys one of your people
    act(states, play("vigilante"))
    assert places(states) == set()
    assert targets(states) == {(0, c, i) for c in range(3) for i in (1, 2)}
    act(states, target(0, 1, 1))
    assert places(states) == {(1, 1), (1, 2)}
    act(states, place(1, 2))
    assert column(states, 0, 1) == ["garage", "pyromaniac", "vigilante"]
    assert "looter" in discard(states)


def test_rad_a2_applies_to_punks_too():
    """RAD-A2: a gained punk with a full board may replace one of your people (optional)."""
    states = position(water=0)
    fill_board(states, 0)
    give(states, 0, "argo_yesky")
    give(states, 0, "karli_blaze")
    act(states, junk("argo_yesky"))
    assert R.A_SKIP in legal(states)
    assert targets(states) == {(0, c, i) for c in range(3) for i in (1, 2)}
    act(states, R.A_SKIP)
    assert sum(column(states, 0, c).count("punk") for c in range(3)) == 0
    act(states, junk("karli_blaze"), target(0, 2, 2), place(2, 2))
    assert column(states, 0, 2) == ["supply_depot", "exterminator", "punk"]


def test_rad_a3_draw_costs_two_water():
    """RAD-A3."""
    states = position(water=3)
    stack(states, "sniper")
    act(states, R.A_DRAW)
    assert hand(states, 0) == {"sniper": 1} and states[0]["water"] == 1
    assert R.A_DRAW not in legal(states)


def test_rad_a4_occupied_slot_pushes_back_full_queue_blocks_zero_resolves_now():
    """RAD-A4."""
    states = position(water=20)
    give_hand(states, 0, banish=2, famine=1, napalm=1, strafe=1)
    act(states, play_event("banish"), play_event("banish"))
    assert queue(states, 0) == ["banish", "banish", None]
    act(states, play_event("famine"))
    assert queue(states, 0) == ["banish", "banish", "famine"]
    assert play_event("napalm") not in legal(states)  # no free slot at or behind 1
    assert play_event("strafe") in legal(states)  # bomb 0 does not need a slot
    act(states, play_event("strafe"))
    assert queue(states, 0) == ["banish", "banish", "famine"]
    assert discard(states) == ["strafe"]


def test_rad_a4_event_needs_its_cost():
    states = position(water=3)
    give(states, 0, "bombardment")
    assert play_event("bombardment") not in legal(states)  # costs 4
    states[0]["water"] = 4
    assert play_event("bombardment") in legal(states)


def test_rad_a5_junk_discards_and_silo_goes_back():
    """RAD-A5: a junked card goes to the discard; a junked Water Silo does not."""
    states = position(water=1)
    give(states, 0, "scout")
    act(states, junk("scout"))
    assert discard(states) == ["scout"] and states[0]["water"] == 2
    act(states, R.A_TAKE_SILO, R.A_JUNK_SILO)
    s = states[0]
    assert s["silo_in_hand"][0] == 0 and discard(states) == ["scout"]
    assert s["water"] == 2
    assert R.A_TAKE_SILO in legal(states)


def test_rad_a6_silo_costs_one_and_stays_in_hand_across_turns():
    """RAD-A6."""
    states = position(water=1)
    act(states, R.A_TAKE_SILO)
    s = states[0]
    assert s["water"] == 0 and s["silo_in_hand"][0] == 1
    assert R.A_TAKE_SILO not in legal(states)
    end_turn(states)
    end_turn(states)
    assert s["turn_player"] == 0 and s["silo_in_hand"][0] == 1
    act(states, R.A_JUNK_SILO)
    assert s["water"] == 4


def test_rad_a7_ability_needs_a_ready_card_and_its_cost():
    """RAD-A7: pay the cost, the card is then not ready; "enemy" means people only."""
    states = position(water=1)
    put(states, 0, 1, "assassin")  # destroy an unprotected enemy: 2 water
    put(states, 1, 2, "muse")
    assert use(1, 1) not in legal(states)
    states[0]["water"] = 2
    act(states, use(1, 1))
    assert targets(states) == {(1, 2, 1)}  # camps are never "enemies"
    act(states, target(1, 2, 1))
    assert states[0]["water"] == 0
    states[0]["water"] = 5
    assert use(1, 1) not in legal(states)


# ---- ready (RAD-R1, RAD-R2) -----------------------------------------------------------------


def test_rad_r1_damaged_camp_is_ready_used_camp_is_not():
    """RAD-R1."""
    states = position(water=10)
    states[0]["camp_state"][0, 0] = 1  # Railgun damaged
    act(states, use(0, 0), target(1, 0, 0))
    assert use(0, 0) not in legal(states)
    end_turn(states)
    end_turn(states)
    assert use(0, 0) in legal(states)


def test_rad_r2_people_ready_again_next_turn_unless_damaged():
    """RAD-R2: played, used or restored this turn, or damaged: not ready."""
    states = position(water=10)
    give(states, 0, "scout")
    played = put(states, 0, 0, "muse")
    hurt = put(states, 0, 1, "sniper", damaged=True)
    act(states, play("scout"), place(2, 1))
    assert use(2, 1) not in legal(states)  # played this turn
    assert use(1, 1) not in legal(states)  # damaged
    act(states, use(0, 1))
    assert use(0, 1) not in legal(states)  # used
    end_turn(states)
    end_turn(states)
    assert {use(0, 1), use(2, 1)} <= legal(states)
    assert use(1, 1) not in legal(states) and damaged(states, hurt)
    assert find(states, played) == (0, 0, 1)


# ---- end (RAD-E1, RAD-E2) -------------------------------------------------------------------


def test_rad_e1_win_at_once_when_the_third_camp_falls():
    """RAD-E1: +1 / -1 and nothing more to do."""
    states = position(water=2)
    destroy_camp(states, 1, 0)
    destroy_camp(states, 1, 1)
    states[0]["camp_state"][1, 2] = 1
    act(states, use(0, 0), target(1, 2, 0))
    s = states[0]
    assert s["terminated"] == 1 and s["winner"] == 0 and s["phase"] == R.PHASE_OVER
    assert rewards(states) == [1.0, -1.0]
    assert legal(states) == set()


def test_rad_e1_vanguard_gets_no_hit_back_after_winning():
    """RAD-E1 mid-effect: Vanguard's damage wins, the opponent's hit-back never happens."""
    states = position(water=2)
    vanguard = put(states, 0, 0, "vanguard")
    destroy_camp(states, 1, 0)
    destroy_camp(states, 1, 1)
    states[0]["camp_state"][1, 2] = 1
    act(states, use(0, 1), target(1, 2, 0))
    assert states[0]["winner"] == 0 and legal(states) == set()
    assert not damaged(states, vanguard)


def test_rad_e2_deck_runs_out_reshuffle_once_then_draw():
    """RAD-E2: the discard becomes the deck once; the second time the game is a draw."""
    states = position(water=6)
    s = states[0]
    keep = [int(t) for t in s["deck"][:5]]
    s["discard"][:5] = keep
    s["discard_n"] = 5
    s["deck_n"] = 0  # the other cards are out of the game for this test
    act(states, R.A_DRAW)
    assert s["reshuffled"] == 1 and s["deck_n"] == 4 and s["discard_n"] == 0
    assert sorted(s["deck"][:4].tolist() + [int(np.argmax(s["hand"][0]))]) == sorted(keep)
    s["deck_n"] = 0
    act(states, R.A_DRAW)
    assert s["terminated"] == 1 and s["winner"] == -1
    assert rewards(states) == [0.0, 0.0]


def test_rad_e2_gaining_a_punk_from_an_exhausted_deck_is_a_draw():
    """RAD-E2: any card taken from the deck counts, punks included."""
    states = position(water=0)
    give(states, 0, "argo_yesky")
    s = states[0]
    s["deck_n"] = 0
    s["reshuffled"] = 1
    act(states, junk("argo_yesky"), place(0, 1))
    assert s["terminated"] == 1 and s["winner"] == -1


# ---- general rules (RAD-G1..G4) -------------------------------------------------------------


def test_rad_g1_any_ignores_protection_plain_damage_does_not():
    """RAD-G1: Sniper ("any") reaches a protected card; Railgun does not."""
    states = position(water=10)
    put(states, 0, 0, "sniper")
    muse_behind_scout(states)
    act(states, use(0, 0))
    assert (1, 0, 1) not in targets(states) and (1, 0, 0) not in targets(states)
    act(states, target(1, 0, 2))
    act(states, use(0, 1))
    assert {(1, 0, 0), (1, 0, 1), (1, 0, 2)} <= targets(states)
    assert all(side == 1 for side, _, _ in targets(states))


def test_rad_g2_no_friendly_fire_and_no_restoring_the_opponent():
    """RAD-G2: Cannon's own hit and Repair Bot's restore stay on the right side."""
    states = position(camps0=("cannon", "garage", "railgun"), water=10)
    put(states, 0, 1, "muse")
    put(states, 0, 2, "repair_bot")
    put(states, 1, 0, "scout", damaged=True)
    act(states, use(0, 0))  # Cannon damages itself, then an unprotected enemy card
    assert all(side == 1 for side, _, _ in targets(states))
    act(states, target(1, 1, 0))
    assert states[0]["camp_state"][0, 0] == 1
    act(states, use(2, 1))  # Repair Bot: only own damaged cards (the Cannon)
    assert targets(states) == {(0, 0, 0)}


def test_rad_g3_no_hand_limit():
    """RAD-G3: a big hand is kept through the end of the turn."""
    states = position(water=0)
    give_hand(states, 0, muse=2, scout=2, sniper=2, looter=2, banish=2, strafe=2)
    end_turn(states)
    assert deciding(states) == (R.PHASE_ACTIONS, 1)
    assert hand_size(states, 0) == 12


def test_rad_g4_kernel_keeps_what_the_encoder_must_hide_or_show():
    """RAD-G4 belongs to the encoder; the kernel must keep the fields it needs: the punk flag
    (and the card under it), hand counts per player, deck size and the top discard."""
    states = position(water=0)
    stack(states, "sniper")
    give(states, 0, "argo_yesky")
    give(states, 1, "muse")
    give(states, 1, "scout", 2)
    act(states, junk("argo_yesky"), place(1, 1))
    s = states[0]
    assert s["ent_punk"][0, 1, 1] == 1 and s["ent_type"][0, 1, 1] == DT["sniper"]
    assert s["ent_kind"][0, 1, 1] == R.PERSON
    assert [hand_size(states, p) for p in range(2)] == [0, 3]
    assert int(s["deck_n"]) == 66 - 1 - 3 - 1
    assert discard(states)[-1] == "argo_yesky"
