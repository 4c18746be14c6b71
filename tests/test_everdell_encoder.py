"""Everdell observation encoder: layout, relative seats, setup values, no hidden leaks, bounds,
batch.

Hidden from a player (subtleties §2, EVD-D1…D4): another player's hand cards (only the size is
public), the deck order and contents, the face-down discard pile, and the cards revealed to the
decider by an effect (Postal Pigeon, Teacher, Cemetery, Ancient Scrolls, the Meadow-pick forest
card, the cards a Post Office hands over). The leak tests change exactly those things in a copy
of a position and require every other observation to stay the same.
"""

import numpy as np
import pytest
from game_cases import (
    KernelGame,
    assert_batch_encode_equals_single,
    count_reshuffled_unseen,
    count_unseen_edits,
)

from meeple_gym.core.rng import game_key
from meeple_gym.encoders import everdell as enc
from meeple_gym.everdell import data as D
from meeple_gym.everdell.rules import (
    A_PLACE_CITY,
    A_PLACE_RUGWORT,
    CITY_SLOTS,
    DECK_SIZE,
    NUM_ACTIONS,
    PK_PAY,
    PK_TURN,
    RUGWORT,
    T_PLAY,
    legal_mask_into,
)

PLAYER_COUNTS = (1, 2, 3, 4)


GAME = KernelGame("everdell")


def new_game(num_players, seed, options=0):
    return GAME.new(num_players, game_key(seed), options)


def over(states):
    return GAME.over(states[0])


def random_positions(num_players, seed, every=4):
    """Copies of one uniform-random game every ``every`` decisions, end included (passing
    waits for autumn, EVD-E1, so the games run through the seasons)."""
    states = new_game(num_players, seed, options=1 + seed % 3)
    return GAME.random_positions(states, seed, every)


def all_positions(games_per_count=3, every=4):
    for num_players in PLAYER_COUNTS:
        for k in range(games_per_count):
            yield from random_positions(num_players, 100 * num_players + k, every)


observe = GAME.observe


def observers(states):
    """Seats that get observations: every player (Rugwort never decides)."""
    return range(max(1, states[0]["num_players"]))


def block(i):
    return i * enc.PLAYER_BLOCK


def slot(i, k):
    return block(i) + enc.P_CITY + k * enc.SLOT_BLOCK


# ---- layout ----------------------------------------------------------------------------------


def test_layout_size_matches_documented_table():
    # Sizes as listed in the module docstring, summed independently of the offset constants.
    city_slot = 48 + 1 + 1 + 1 + 4 + 1 + 4
    player = 1 + 1 + 1 + 1 + 1 + 1 + 4 + 1 + 4 + 1 + 1 + 1 + 1 + 1 + 1
    player += 8 + 4 + 1 + 4 + 8 + 2 + 1 + 5 + 1 + 22 * city_slot
    shared = 8 * 50 + 4 * 11 + 4 * 16 + 20 * 4 + 20 + 1 + 1 + 1 + 4 + 1
    private = 48 + 1 + 8 * 48
    solo = 48 + 1 + 3 + 1
    task = 29 + 12 + 48 + 27 + 20 + 1 + 4 + 1 + 1 + 1 + 1 + 1 + 4 + 4
    parent = 12 + 48 + 27 + 20
    play = 1 + 48 + 6 + 7 + 1 + 4 + 1 + 4
    assert enc.SLOT_BLOCK == city_slot == 60
    assert enc.PLAYER_BLOCK == player == 1375
    assert enc.HAND == 4 * player + shared
    assert enc.PEND_KIND == 4 * player + shared + private + solo
    assert enc.OBS_SIZE == 4 * player + shared + private + solo + task + parent + play == 6935
    assert enc.OBS_HIGH.shape == (enc.OBS_SIZE,) and enc.OBS_LOW.shape == (enc.OBS_SIZE,)
    assert not enc.OBS_LOW.any() and (enc.OBS_HIGH >= 1).all()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_setup_values(num_players):
    states = new_game(num_players, seed=3)
    s = states[0]
    seats = 2 if num_players == 1 else num_players
    first = s["first_player"]
    for player in observers(states):
        obs = observe(states, player)
        assert obs.shape == (enc.OBS_SIZE,) and obs.dtype == np.float32
        for i in range(seats):
            q = (player + i) % seats
            b = block(i)
            assert obs[b + enc.P_PRESENT] == 1
            rugwort = num_players == 1 and q == RUGWORT
            assert obs[b + enc.P_RUGWORT] == rugwort
            if rugwort:
                # Solo setup: he blocks the 3-twig space and the first forest card.
                assert obs[b + enc.P_AT_BASIC + 0] == 1 and obs[b + enc.P_AT_FOREST + 0] == 1
                continue
            # EVD-S5: 2 workers, all available; EVD-S6: 5, 6, 7, 8 cards in turn order.
            assert obs[b + enc.P_WORKERS] == 2 and obs[b + enc.P_FREE] == 2
            assert obs[b + enc.P_HAND_N] == 5 + (q - first) % num_players
            assert obs[b + enc.P_SEASON + 0] == 1  # winter
            assert obs[b + enc.P_DECIDER] == (q == first)
            assert not obs[b + enc.P_RESOURCES : b + enc.P_RESOURCES + 4].any()
            assert obs[b + enc.P_SCORE] == enc.SCORE_SHIFT  # nothing scored yet
        for i in range(seats, 4):
            assert not obs[block(i) : block(i + 1)].any()
        np.testing.assert_array_equal(obs[enc.HAND : enc.HAND + 48], s["hand"][player])
        # EVD-S4: 8 Meadow cards; EVD-S2: 3 forest cards with 1-2 players, 4 with 3-4.
        meadow = obs[enc.MEADOW : enc.FOREST].reshape(8, enc.MEADOW_BLOCK)
        assert meadow[:, enc.M_PRESENT].sum() == 8
        assert meadow[:, enc.M_TYPE : enc.M_TYPE + 48].argmax(axis=1).tolist() == list(s["meadow"])
        forest = obs[enc.FOREST : enc.SPECIALS].reshape(4, 11)
        assert forest.sum() == (3 if num_players <= 2 else 4)
        # EVD-S3: 4 special events dealt, none achieved.
        assert obs[enc.SPECIALS : enc.EVENT_OWNER].sum() == 4
        assert not obs[enc.EVENT_OWNER : enc.EVENT_STORE].any()
        dealt = sum(5 + i for i in range(num_players))
        assert obs[enc.DECK_N] == DECK_SIZE - 8 - dealt and obs[enc.DISCARD_N] == 0
        assert obs[enc.NUM_PLAYERS_ONEHOT + num_players - 1] == 1
        assert obs[enc.PEND_KIND + PK_TURN] == 1 and obs[enc.GAME_OVER] == 0
        assert (obs[enc.RUG_CITY : enc.PEND_KIND].sum() > 0) == (num_players == 1)


def test_blocks_follow_relative_seats():
    # Block i is seat (player + i) % n, the same relative seats the actions use.
    for states in random_positions(4, seed=7, every=25):
        s = states[0]
        for player in range(4):
            obs = observe(states, player)
            for i in range(4):
                q = (player + i) % 4
                b = block(i)
                res = obs[b + enc.P_RESOURCES : b + enc.P_RESOURCES + 4]
                np.testing.assert_array_equal(res, np.minimum(s["resources"][q], 63))
                assert obs[b + enc.P_HAND_N] == s["hand_n"][q]
                for k in range(CITY_SLOTS):
                    t = s["city"][q, k]
                    row = obs[slot(i, k) : slot(i, k) + 48]
                    assert (row.argmax() == t and row.sum() == 1) if t >= 0 else not row.any()
            np.testing.assert_array_equal(obs[enc.HAND : enc.HAND + 48], s["hand"][player])
            for e in range(20):
                owner = s["event_owner"][e]
                row = obs[enc.EVENT_OWNER + 4 * e : enc.EVENT_OWNER + 4 * e + 4]
                if owner < 0:
                    assert not row.any()
                else:
                    assert row.argmax() == (owner - player) % 4 and row.sum() == 1


def test_city_visit_actions_line_up_with_the_blocks():
    # EVD-W4: every legal worker placement on a city card points (relative seat, slot) at a
    # Destination (or own Storehouse) shown in that block; the decider's block shows it.
    checked = 0
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for states in all_positions(games_per_count=2, every=2):
        s = states[0]
        if over(states) or s["pend_kind"] != PK_TURN:
            continue
        legal_mask_into(states, 0, mask)
        player = s["current_player"]
        obs = observe(states, player)
        assert obs[block(0) + enc.P_DECIDER] == 1
        for a in np.flatnonzero(mask[A_PLACE_CITY:A_PLACE_RUGWORT]):
            rel, k = divmod(a, CITY_SLOTS)
            t = obs[slot(rel, k) : slot(rel, k) + 48].argmax()
            assert obs[slot(rel, k) + enc.S_PRESENT] == 1
            assert D.CARD_COLOR[t] == D.DESTINATION or t == D.CARD_ID["storehouse"]
            checked += 1
    assert checked > 20


def test_worker_counts_add_up():
    # Every worker of a player is counted once: available, on a spot, on a card, or out.
    for states in all_positions(games_per_count=2, every=6):
        s = states[0]
        for player in observers(states):
            obs = observe(states, player)
            for i in range(s["seats"]):
                q = (player + i) % s["seats"]
                if s["num_players"] == 1 and q == RUGWORT:
                    continue
                b = block(i)
                on_spots = obs[b + enc.P_FREE] + obs[b + enc.P_LIMBO]
                on_spots += obs[b + enc.P_AT_BASIC : b + enc.P_SPACES].sum()
                for j in range(s["seats"]):
                    for k in range(CITY_SLOTS):
                        on_spots += obs[slot(j, k) + enc.S_WORKERS + i]
                assert on_spots == obs[b + enc.P_WORKERS] == s["workers"][q]


def test_card_being_paid_for_is_shown():
    # EVD-P1: while a card is paid for, the top T_PLAY task shows it to every player.
    mask = np.zeros(NUM_ACTIONS, np.int8)
    found = 0
    for states in all_positions(games_per_count=3, every=1):
        s = states[0]
        if over(states) or s["pend_kind"] != PK_PAY:
            continue
        f = s["depth"] - 1
        assert s["fr_kind"][f] == T_PLAY
        legal_mask_into(states, 0, mask)
        for player in observers(states):
            obs = observe(states, player)
            assert obs[enc.PEND_KIND + PK_PAY] == 1
            assert obs[enc.PLAY_PRESENT] == 1
            assert obs[enc.PLAY_CARD + s["fr_a"][f]] == 1
            assert obs[enc.TOP_KIND + T_PLAY] == 1 and obs[enc.TOP_CARD + s["fr_a"][f]] == 1
        found += 1
    assert found > 10


# ---- no leaks --------------------------------------------------------------------------------


assert_unchanged = GAME.assert_same_view


def test_other_hands_do_not_leak():
    rng = np.random.default_rng(1)
    checked = 0
    for states in all_positions():
        s = states[0]
        for owner in range(s["num_players"]):
            held = np.flatnonzero(s["hand"][owner])
            if held.size == 0:
                continue
            other = states.copy()
            hand = other[0]["hand"][owner]
            # one card becomes another type: the hand size stays the same (EVD-D2)
            t = rng.choice(held)
            hand[t] -= 1
            hand[(t + 1 + rng.integers(47)) % 48] += 1
            GAME.assert_only_owner_sees(states, other, owner, len(observers(states)))
            checked += 1
    assert checked > 200


def test_deck_order_contents_and_rng_do_not_leak():
    def other_contents(s):  # one deck card becomes another: same size
        s["deck"][0] = (s["deck"][0] + 1) % 48

    def unseen(a, b):
        assert_unchanged(a, b, observers(a))

    rng = np.random.default_rng(2)
    assert count_reshuffled_unseen(all_positions(), rng, unseen, other_contents) > 200


def test_discard_pile_contents_do_not_leak():

    def face_down(s):
        n = s["discard_n"]
        if n == 0:
            return False
        s["discard"][:n] = (s["discard"][:n] + 5) % 48  # face down (subtleties §2)
        return True

    def unseen(states, other):
        assert_unchanged(states, other, observers(states))

    assert count_unseen_edits(all_positions(), face_down, unseen) > 100


def test_revealed_cards_only_for_the_decider():
    checked = 0
    for states in all_positions(games_per_count=6, every=1):
        s = states[0]
        n = s["revealed_n"]
        if over(states) or n == 0:
            continue
        decider = s["current_player"]
        obs = observe(states, decider)
        assert obs[enc.REVEALED_N] == n
        rows = obs[enc.REVEALED : enc.REVEALED + 8 * 48].reshape(8, 48)
        assert rows[:n].argmax(axis=1).tolist() == s["revealed"][:n].tolist()
        assert rows.sum() == n
        other = states.copy()
        other[0]["revealed"][:n] = (other[0]["revealed"][:n] + 1) % 48
        assert_unchanged(states, other, [p for p in observers(states) if p != decider])
        assert not np.array_equal(observe(other, decider), obs)
        checked += 1
    assert checked > 10


def visible_edits(states):
    """Copies with one public change each (cities, workers, resources, board, events)."""
    base = states[0]
    n = base["num_players"]
    farm = D.CARD_ID["farm"]
    edits = {}

    def edit(name, fn):
        other = states.copy()
        fn(other[0])
        edits[name] = other

    q = n - 1  # the last seat (not Rugwort)
    edit("resources", lambda s: s["resources"].__setitem__((q, 2), base["resources"][q, 2] + 1))
    edit("point tokens", lambda s: s["tokens"].__setitem__(q, base["tokens"][q] + 1))
    edit("city card", lambda s: s["city"].__setitem__((q, CITY_SLOTS - 1), farm))

    def hand_grows(s):
        s["hand"][q, 0] += 1
        s["hand_n"][q] += 1

    edit("hand size", hand_grows)
    edit("season", lambda s: s["season"].__setitem__(q, base["season"][q] + 1))
    edit("passed", lambda s: s["passed"].__setitem__(q, 1))
    edit("worker placed", lambda s: s["wloc"].__setitem__((q, 0), D.LOCATION_ID["haven"]))
    edit("meadow", lambda s: s["meadow"].__setitem__(3, (base["meadow"][3] + 1) % 48))
    edit("event achieved", lambda s: s["event_owner"].__setitem__(1, q))
    edit("deck size", lambda s: s.__setitem__("deck_n", base["deck_n"] - 1))
    return edits


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_visible_changes_show_for_every_player(num_players):
    states = new_game(num_players, seed=11)
    for name, other in visible_edits(states).items():
        for player in observers(states):
            assert not np.array_equal(observe(states, player), observe(other, player)), name


# ---- solo ------------------------------------------------------------------------------------


def test_solo_shows_rugwort():
    # Solo: his city by type, his year, his blocking workers, the Meadow cards he blocks.
    for states in random_positions(1, seed=5, every=10):
        s = states[0]
        obs = observe(states, 0)
        np.testing.assert_array_equal(obs[enc.RUG_CITY : enc.RUG_CITY + 48], s["rug_city"])
        assert obs[enc.RUG_CARDS] == s["rug_city"].sum()
        assert obs[enc.RUG_YEAR + int(s["rug_year"]) - 1] == 1
        b = block(1)
        assert obs[b + enc.P_RUGWORT] == 1
        assert obs[b + enc.P_AT_FOREST : b + enc.P_AT_HAVEN].sum() == (s["rug_forest"] >= 0)
        assert obs[b + enc.P_AT_JOURNEY : b + enc.P_AT_EVENT].sum() == (s["rug_journey"] >= 0)
        blocked = obs[enc.MEADOW : enc.FOREST].reshape(8, enc.MEADOW_BLOCK)[:, enc.M_BLOCKED]
        assert blocked.tolist() == [(s["rug_meadow"] >> i) & 1 for i in range(8)]


# ---- bounds and batch ------------------------------------------------------------------------


def test_bounds_contain_observations_over_random_games():
    positions = 0
    for states in all_positions(games_per_count=3, every=1):
        for player in observers(states):
            obs = observe(states, player)
            assert obs.dtype == np.float32
            assert (obs >= enc.OBS_LOW).all(), np.flatnonzero(obs < enc.OBS_LOW)
            assert (obs <= enc.OBS_HIGH).all(), np.flatnonzero(obs > enc.OBS_HIGH)
            positions += 1
        if over(states):
            obs = observe(states, 0)
            assert obs[enc.GAME_OVER] == 1 and not obs[block(0) + enc.P_DECIDER]
    assert positions > 3000


def test_batch_encode_equals_single():
    rows = [st for st in all_positions(games_per_count=1, every=9)]
    states = np.concatenate(rows)
    rng = np.random.default_rng(4)
    players = np.array([rng.integers(max(1, s["num_players"])) for s in states], np.int64)
    assert_batch_encode_equals_single(enc, states, players)
