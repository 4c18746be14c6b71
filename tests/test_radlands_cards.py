"""Per-card scenario tests of the Radlands kernel: every camp, person and event, Raiders and the
Water Silo, following the card rulings (subtleties §16) and the rules checklist (RAD-…).

Each test builds a position with the helpers of test_radlands_rules.py, drives the kernel
through legal actions only, and checks the result against the printed card.
"""

import pytest
from test_radlands_rules import (
    RAIDERS,
    R,
    act,
    card_total,
    choose,
    column,
    damaged,
    deciding,
    destroy_camp,
    discard,
    end_turn,
    fill_board,
    find,
    give,
    hand,
    hand_size,
    junk,
    legal,
    place,
    places,
    play,
    play_event,
    position,
    put,
    queue,
    rewards,
    select_column,
    select_event,
    select_hand,
    set_queue,
    stack,
    target,
    targets,
    top_of_deck,
    use,
)

from meeple_gym.radlands import data as D


def camps(*names):
    """Player 0's camps, padded with plain ones (Garage, then Supply Depot, then Railgun)."""
    plain = [n for n in ("garage", "supply_depot", "railgun") if n not in names]
    return tuple(names) + tuple(plain[: 3 - len(names)])


def opponent_turn(states):
    """Hand the actions phase to player 1 without running a turn boundary."""
    s = states[0]
    s["turn_player"] = s["current_player"] = 1


def next_own_turn(states):
    """End this turn and the opponent's (no actions) to reach the same player's next turn."""
    end_turn(states)
    end_turn(states)


# ==== camps ===================================================================================


def test_adrenaline_lab_uses_a_damaged_persons_ability_then_destroys_it():
    """Adrenaline Lab: pay the borrowed cost; the person is destroyed afterwards."""
    states = position(camps0=camps("adrenaline_lab"), water=1)
    vigilante = put(states, 0, 1, "vigilante", damaged=True)
    put(states, 0, 2, "muse")  # undamaged: not a candidate
    foe = put(states, 1, 0, "scout")
    act(states, use(0, 0))
    assert targets(states) == {(0, 1, 1)}
    act(states, target(0, 1, 1), target(1, 0, 1))
    assert damaged(states, foe)
    assert find(states, vigilante) is None and "vigilante" in discard(states)
    assert states[0]["water"] == 0


def test_adrenaline_lab_borrowed_restore_never_picks_the_person_itself():
    """Adrenaline Lab + Mutant: "this card" is the Mutant, which cannot restore itself."""
    states = position(camps0=camps("adrenaline_lab"), water=0)
    put(states, 0, 1, "mutant", damaged=True)
    states[0]["camp_state"][0, 2] = 1
    act(states, use(0, 0), target(0, 1, 1))
    act(states, choose(1))  # restore only
    assert targets(states) == {(0, 2, 0)}


def test_adrenaline_lab_reuses_a_person_that_already_used_its_ability():
    """A Mutant that damaged itself this turn is damaged (not ready): the Lab can still use it."""
    states = position(camps0=camps("adrenaline_lab"), water=0)
    mutant = put(states, 0, 1, "mutant")
    act(states, use(1, 1), choose(0), target(1, 1, 0))
    assert damaged(states, mutant) and states[0]["camp_state"][1, 1] == 1
    act(states, use(0, 0), target(0, 1, 1), choose(0), target(1, 1, 0))
    assert states[0]["camp_state"][1, 1] == 2
    assert find(states, mutant) is None


def test_arcade_gains_a_punk_only_with_at_most_one_person():
    """Arcade: punks count toward "0 or 1 people"."""
    states = position(camps0=camps("arcade"), water=3)
    put(states, 0, 1, "muse")
    act(states, use(0, 0), place(2, 1))
    assert column(states, 0, 2) == ["supply_depot", "punk"]
    next_own_turn(states)
    assert use(0, 0) not in legal(states)  # two people now (the punk counts)


def _punk_on_full_board(how):
    """Player 0 with all six places full reaches a GAIN_PUNK step through ``how``."""
    states = position(camps0=camps("cache") if how == "cache" else camps("garage"), water=3)
    fill_board(states, 0)
    if how == "junk icon":
        give(states, 0, "karli_blaze")  # junks for a punk
        act(states, junk("karli_blaze"))
    elif how == "uprising":
        set_queue(states, 0, ["uprising", None, None])
        next_own_turn(states)  # it resolves in player 0's events phase (RAD-T1)
    elif how in ("argo_yesky", "vanguard"):
        give(states, 0, how)  # enters play, then gains a punk
        act(states, play(how), target(0, 2, 1), place(2, 2))
    elif how == "rabble_rouser":
        s = states[0]
        s["ent_type"][0, 2, 2] = D.DECK_TYPE_ID["rabble_rouser"]  # in place of the Assassin
        s["deck"][list(s["deck"][: s["deck_n"]]).index(D.DECK_TYPE_ID["rabble_rouser"])] = (
            D.DECK_TYPE_ID["assassin"]
        )
        act(states, use(2, 2))
    elif how == "cache":
        act(states, use(0, 0), choose(2))  # Cache: damage itself, then gain a punk
    return states


@pytest.mark.parametrize(
    "how", ["junk icon", "uprising", "argo_yesky", "vanguard", "rabble_rouser", "cache"]
)
def test_gaining_a_punk_on_a_full_board_is_declined_before_the_sacrifice_only(how):
    """RAD-A2, RAD-G2, RAD-I6: with six people a punk is declined (SKIP) before one of yours
    is destroyed to make room; once a person is destroyed the punk must be placed, or the
    decline would be a free self-destroy."""
    states = _punk_on_full_board(how)
    assert deciding(states) == (R.PHASE_DECISION, 0)
    own_people = {(0, c, i) for c in range(3) for i in (1, 2)}
    assert targets(states) == own_people and R.A_SKIP in legal(states)
    declined = states.copy()
    act(declined, R.A_SKIP)
    assert sum(len(column(declined, 0, c)) for c in range(3)) == 9  # nobody destroyed
    act(states, target(0, 1, 1))
    assert R.A_SKIP not in legal(states) and places(states) == {(1, 1), (1, 2)}
    act(states, place(1, 2))
    assert column(states, 0, 1)[1:] == ["pyromaniac", "punk"]


def test_arcade_never_meets_a_full_board():
    """Arcade gains a punk only with 0 or 1 people: with six it is not usable, so its punk
    never needs room (RAD-A2)."""
    states = position(camps0=camps("arcade"), water=3)
    fill_board(states, 0)
    assert use(0, 0) not in legal(states)


def test_atomic_garden_restores_a_person_who_is_ready_at_once():
    states = position(camps0=camps("atomic_garden"), water=2)
    put(states, 0, 1, "muse", damaged=True)
    states[0]["camp_state"][0, 2] = 1  # camps are not Atomic Garden targets
    act(states, use(0, 0))
    assert targets(states) == {(0, 1, 1)}
    act(states, target(0, 1, 1))
    assert use(1, 1) in legal(states)


def test_blood_bank_needs_a_person_to_sacrifice():
    states = position(camps0=camps("blood_bank"), water=0)
    assert use(0, 0) not in legal(states)
    put(states, 0, 1, "muse")
    act(states, use(0, 0), target(0, 1, 1))
    assert states[0]["water"] == 1 and column(states, 0, 1) == ["garage"]


def test_bonfire_restores_others_and_is_never_restored():
    """Bonfire damages itself, restores any number of other cards; nothing restores it."""
    states = position(camps0=camps("bonfire"), water=0)
    muse = put(states, 0, 1, "muse", damaged=True)
    scout = put(states, 0, 2, "scout", damaged=True)
    states[0]["camp_state"][0, 1] = 1
    act(states, use(0, 0))
    assert states[0]["camp_state"][0, 0] == 1
    assert targets(states) == {(0, 1, 1), (0, 2, 1), (0, 1, 0)}
    act(states, target(0, 1, 1), target(0, 1, 0))
    assert targets(states) == {(0, 2, 1)} and R.A_SKIP in legal(states)
    act(states, R.A_SKIP)
    assert not damaged(states, muse) and damaged(states, scout)
    assert states[0]["camp_state"][0, 1] == 0
    give(states, 0, "gunner")  # a junk restore has no source card, still never Bonfire
    act(states, junk("gunner"))
    assert targets(states) == {(0, 2, 1)}


def test_cache_damages_itself_then_one_choice_and_dies_on_reuse():
    states = position(camps0=camps("cache"), water=0)
    stack(states, "sniper")
    act(states, use(0, 0))
    assert states[0]["camp_state"][0, 0] == 1
    # nothing is damaged (Cache cannot restore itself): draw or punk only
    assert choose(0) in legal(states) and choose(1) not in legal(states)
    act(states, choose(0))
    assert hand(states, 0) == {"sniper": 1}
    next_own_turn(states)
    act(states, use(0, 0), choose(2), place(1, 1))
    assert states[0]["camp_state"][0, 0] == 2
    assert column(states, 0, 1) == ["garage", "punk"]


def test_cannon_self_damage_first_can_lose_the_game():
    """Cannon: if its own hit destroys your last camp you lose before its damage lands."""
    states = position(camps0=camps("cannon"), water=1)
    states[0]["camp_state"][0, 0] = 1
    destroy_camp(states, 0, 1)
    destroy_camp(states, 0, 2)
    act(states, use(0, 0))
    s = states[0]
    assert s["terminated"] == 1 and s["winner"] == 1
    assert rewards(states) == [-1.0, 1.0]


def test_catapult_hits_any_enemy_card_then_sacrifices():
    states = position(camps0=camps("catapult"), water=2)
    assert use(0, 0) not in legal(states)  # no person to sacrifice
    put(states, 0, 1, "muse")
    put(states, 1, 0, "scout")
    act(states, use(0, 0))
    assert (1, 0, 0) in targets(states)  # protection ignored
    act(states, target(1, 0, 0))
    assert states[0]["camp_state"][1, 0] == 1
    assert targets(states) == {(0, 1, 1)}
    act(states, target(0, 1, 1))
    assert column(states, 0, 1) == ["garage"]


def test_command_post_costs_one_less_per_punk_down_to_zero():
    states = position(camps0=camps("command_post"), water=0)
    for c, key in enumerate(("muse", "muse", "scout")):
        put(states, 0, c, key, punk=True)
    assert use(0, 0) in legal(states)  # 3 - 3 punks = free
    act(states, use(0, 0), target(1, 0, 0))
    assert states[0]["water"] == 0 and states[0]["camp_state"][1, 0] == 1


def test_command_post_with_one_punk_costs_two():
    states = position(camps0=camps("command_post"), water=1)
    put(states, 0, 1, "muse", punk=True)
    assert use(0, 0) not in legal(states)
    states[0]["water"] = 2
    act(states, use(0, 0), target(1, 0, 0))
    assert states[0]["water"] == 0


def test_construction_yard_rebuilds_then_is_destroyed_only_while_undamaged():
    states = position(camps0=camps("construction_yard"), water=2)
    destroy_camp(states, 0, 1)
    act(states, use(0, 0))
    assert targets(states) == {(0, 1, 0)}
    act(states, target(0, 1, 0))
    s = states[0]
    assert s["camp_state"][0, 1] == 0 and s["camp_state"][0, 0] == 2
    assert use(1, 0) not in legal(states)  # the rebuilt camp counts as used this turn
    states2 = position(camps0=camps("construction_yard"), water=2)
    destroy_camp(states2, 0, 1)
    states2[0]["camp_state"][0, 0] = 1
    assert use(0, 0) not in legal(states2)


def test_garage_raids():
    states = position(camps0=camps("garage"), water=1)
    act(states, use(0, 0))
    assert queue(states, 0) == [None, None, RAIDERS]


def test_juggernaut_moves_forward_twice_then_resets_and_opponent_destroys_a_camp():
    """Juggernaut: people it passes end up behind it (protected); the third use resets it and
    the opponent destroys one of their own camps (their pick, protection ignored)."""
    states = position(camps0=camps("juggernaut"), water=1)
    muse = put(states, 0, 0, "muse")
    scout = put(states, 0, 0, "scout")
    put(states, 1, 1, "looter")
    act(states, use(0, 0))
    assert column(states, 0, 0) == ["muse", "juggernaut", "scout"]
    next_own_turn(states)
    act(states, use(0, 1))
    assert column(states, 0, 0) == ["muse", "scout", "juggernaut"]
    # the Juggernaut shields both people: a plain damage sees only the camp
    opponent_turn(states)
    states[0]["water"] = 2
    act(states, use(1, 1))  # the opponent's Looter
    assert {(1, 0, 0), (1, 0, 1)}.isdisjoint(targets(states)) and (1, 0, 2) in targets(states)
    act(states, target(1, 1, 0))
    end_turn(states)  # player 0's turn
    act(states, use(0, 2))
    assert column(states, 0, 0) == ["juggernaut", "muse", "scout"]
    assert deciding(states) == (R.PHASE_DECISION, 1)
    assert targets(states) == {(0, 0, 0), (0, 1, 0), (0, 2, 0)}
    act(states, target(0, 1, 0))  # behind the Sniper, still theirs to pick
    assert states[0]["camp_state"][1, 1] == 2
    assert find(states, muse) == (0, 0, 1) and find(states, scout) == (0, 0, 2)


def test_juggernaut_destroyed_goes_back_behind_the_people():
    states = position(camps0=camps("juggernaut"), water=1)
    put(states, 0, 0, "muse")
    act(states, use(0, 0))
    assert column(states, 0, 0) == ["muse", "juggernaut"]
    opponent_turn(states)
    states[0]["water"] = 1
    put(states, 1, 1, "molgur_stang")
    act(states, use(1, 1), target(1, 0, 1))
    assert column(states, 0, 0) == ["juggernaut", "muse"]
    assert states[0]["camp_state"][0, 0] == 2
    assert int(states[0]["juggernaut_moves"][0]) == 0  # back on its starting spot


def juggernaut_on_space(states, space):
    """Player 0's Juggernaut (column 1) moved ``space`` times, through its own ability."""
    for k in range(space):
        states[0]["water"] = 1
        i = column(states, 0, 0).index("juggernaut")
        act(states, use(0, i))
        if k + 1 < space:
            next_own_turn(states)
    states[0]["water"] = 3


def test_juggernaut_moves_one_space_even_in_an_empty_column():
    """Subtleties §15 / camps.json faq: Juggernaut occupies a space of its column; a move in
    an empty column still takes it forward, which changes where people may be placed."""
    states = position(camps0=camps("juggernaut"), water=1)
    give(states, 0, "muse")
    assert {p for p in places_for(states, "muse") if p[0] == 0} == {(0, 1)}
    juggernaut_on_space(states, 1)
    assert int(states[0]["juggernaut_moves"][0]) == 1
    # space 1: a newcomer may stand behind it (index 0) or in front of it (index 1)
    assert {p for p in places_for(states, "muse") if p[0] == 0} == {(0, 0), (0, 1)}
    next_own_turn(states)
    juggernaut_on_space(states, 1)
    # space 2, the front: nobody can stand in front of it any more
    assert {p for p in places_for(states, "muse") if p[0] == 0} == {(0, 0)}
    act(states, play("muse"), place(0, 0))
    assert column(states, 0, 0) == ["muse", "juggernaut"]
    give(states, 0, "scout")
    states[0]["water"] = 3
    act(states, play("scout"))
    assert {p for p in places(states) if p[0] == 0} == {(0, 0), (0, 1)}
    act(states, place(0, 1))
    assert column(states, 0, 0) == ["muse", "scout", "juggernaut"]


def places_for(states, key):
    """The PLACE options for playing ``key`` now, without playing it."""
    probe = states.copy()
    act(probe, play(key))
    return places(probe)


def test_juggernaut_placing_behind_a_moved_juggernaut_keeps_it_in_its_space():
    """Subtleties §15: after its first move a new person may go behind it; Juggernaut stays
    on its space (it is not pushed back to the front) and shields that person."""
    states = position(camps0=camps("juggernaut"), water=1)
    juggernaut_on_space(states, 1)
    give(states, 0, "muse")
    act(states, play("muse"), place(0, 0))
    assert column(states, 0, 0) == ["muse", "juggernaut"]
    assert int(states[0]["juggernaut_moves"][0]) == 1
    # the person behind it is shielded: a plain damage reaches only the Juggernaut
    opponent_turn(states)
    states[0]["water"] = 2
    put(states, 1, 1, "looter")
    act(states, use(1, 1))
    assert (1, 0, 0) not in targets(states) and (1, 0, 1) in targets(states)


def test_juggernaut_newcomer_on_either_side_may_shove_a_person_past_it():
    """Subtleties §15: once moved, new people may be placed on either side of it, and taking
    the only spot on one side shoves the person there past it."""
    for start, spot, expected in (
        (["scout", "juggernaut"], 0, ["muse", "juggernaut", "scout"]),  # scout shoved forward
        (["scout", "juggernaut"], 2, ["scout", "juggernaut", "muse"]),
        (["juggernaut", "scout"], 0, ["muse", "juggernaut", "scout"]),
        (["juggernaut", "scout"], 2, ["scout", "juggernaut", "muse"]),  # scout shoved back
    ):
        states = position(camps0=camps("juggernaut"), water=1)
        juggernaut_on_space(states, 1)
        put(states, 0, 0, "scout", index=start.index("scout"))
        assert column(states, 0, 0) == start
        give(states, 0, "muse")
        act(states, play("muse"))
        assert {p for p in places(states) if p[0] == 0} == {(0, 0), (0, 2)}
        act(states, place(0, spot))
        assert column(states, 0, 0) == expected


def test_juggernaut_person_left_in_front_does_not_slide_past_it():
    """docs board model: a person in front of a moved Juggernaut stays in front when the one
    behind it leaves (only a move or a newcomer takes people past it)."""
    states = position(camps0=camps("juggernaut"), water=1)
    put(states, 0, 0, "rescue_team")
    scout = put(states, 0, 0, "scout")
    juggernaut_on_space(states, 1)
    assert column(states, 0, 0) == ["rescue_team", "juggernaut", "scout"]
    next_own_turn(states)
    act(states, use(0, 0), target(0, 0, 0))  # Rescue Team returns itself to hand
    assert column(states, 0, 0) == ["juggernaut", "scout"] and find(states, scout) == (0, 0, 1)
    # the Juggernaut is still on space 1: a newcomer may take the spot behind it
    give(states, 0, "muse")
    act(states, play("muse"))
    assert {p for p in places(states) if p[0] == 0} == {(0, 0), (0, 2)}


def test_juggernaut_count_restarts_when_it_is_destroyed():
    """Subtleties §15: destroyed, it goes back to its starting spot and its count to zero;
    rebuilt by Construction Yard after two moves, its next use is a first move, not the third
    (which would make the opponent destroy a camp)."""
    states = position(camps0=camps("juggernaut", "construction_yard"), water=1)
    juggernaut_on_space(states, 2)
    assert int(states[0]["juggernaut_moves"][0]) == 2
    states[0]["camp_state"][0, 0] = 1
    opponent_turn(states)
    states[0]["water"] = 2
    put(states, 1, 1, "looter")
    act(states, use(1, 1), target(1, 0, 0))
    assert states[0]["camp_state"][0, 0] == 2
    assert int(states[0]["juggernaut_moves"][0]) == 0
    end_turn(states)  # player 0's turn
    states[0]["water"] = 3
    act(states, use(1, 0), target(0, 0, 0))  # Construction Yard rebuilds the Juggernaut
    assert states[0]["camp_state"][0, 0] == 0
    next_own_turn(states)
    states[0]["water"] = 1
    camps_before = states[0]["camp_state"][1].copy()
    act(states, use(0, 0))
    assert deciding(states) == (R.PHASE_ACTIONS, 0)  # no camp for the opponent to destroy
    assert (states[0]["camp_state"][1] == camps_before).all()
    assert int(states[0]["juggernaut_moves"][0]) == 1


def test_labor_camp_sacrifices_then_restores_another_card():
    states = position(camps0=camps("labor_camp"), water=0)
    states[0]["camp_state"][0, 0] = 1  # Labor Camp itself damaged: never its own target
    put(states, 0, 1, "muse")
    scout = put(states, 0, 2, "scout", damaged=True)
    act(states, use(0, 0), target(0, 1, 1))
    assert targets(states) == {(0, 2, 1)}
    act(states, target(0, 2, 1))
    assert not damaged(states, scout)


def test_mercenary_camp_opponent_destroys_own_card():
    """Mercenary Camp: the opponent chooses; with under 2 cards (the Silo does not count)
    only the destroy option exists, and any of their cards may be picked."""
    states = position(camps0=camps("mercenary_camp"), water=2)
    give(states, 1, "muse")
    states[0]["silo_in_hand"][1] = 1
    put(states, 1, 0, "scout")
    act(states, use(0, 0))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    assert choose(0) in legal(states) and choose(1) not in legal(states)
    act(states, choose(0))
    assert targets(states) == {(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 2, 0)}
    act(states, target(0, 0, 0))  # a protected camp: their own pick
    assert states[0]["camp_state"][1, 0] == 2
    assert deciding(states) == (R.PHASE_ACTIONS, 0)


def test_mercenary_camp_opponent_discards_two():
    states = position(camps0=camps("mercenary_camp"), water=2)
    give(states, 1, "muse")
    give(states, 1, "banish")
    give(states, 1, "sniper")
    act(states, use(0, 0), choose(1))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    act(states, select_hand("banish"), select_hand("muse"))
    assert hand(states, 1) == {"sniper": 1}
    assert sorted(discard(states)) == ["banish", "muse"]
    assert deciding(states) == (R.PHASE_ACTIONS, 0)


def test_mulcher_sacrifices_then_draws():
    states = position(camps0=camps("mulcher"), water=0)
    assert use(0, 0) not in legal(states)
    put(states, 0, 1, "muse")
    stack(states, "sniper")
    act(states, use(0, 0), target(0, 1, 1))
    assert hand(states, 0) == {"sniper": 1} and "muse" in discard(states)


def test_nest_of_spies_needs_two_people_entered_this_turn_punks_included():
    states = position(camps0=camps("nest_of_spies"), water=3)
    give(states, 0, "muse")
    give(states, 0, "karli_blaze")
    act(states, play("muse"), place(1, 1))
    assert use(0, 0) not in legal(states)
    act(states, junk("karli_blaze"), place(2, 1))  # a punk counts as a person entering
    act(states, use(0, 0), target(1, 0, 0))
    assert states[0]["camp_state"][1, 0] == 1


def test_oasis_discount_only_in_its_column_while_it_holds_none_of_your_people():
    states = position(camps0=camps("oasis"), water=0)
    give(states, 0, "muse", 2)
    act(states, play("muse"))
    assert places(states) == {(0, 1)}
    act(states, place(0, 1))
    assert play("muse") not in legal(states)  # the column is no longer empty
    states2 = position(camps0=camps("oasis"), water=0)
    destroy_camp(states2, 0, 0)  # a destroyed Oasis has no trait
    give(states2, 0, "muse")
    assert play("muse") not in legal(states2)


def test_omen_clock_advances_any_event_into_a_free_slot():
    states = position(camps0=camps("omen_clock"), water=1)
    set_queue(states, 1, [None, "banish", None])
    set_queue(states, 0, ["famine", "napalm", None])
    act(states, use(0, 0))
    # own Napalm is blocked by Famine; own Famine leaves slot 1 (resolves); theirs moves up
    assert select_event(0, 2) not in legal(states)
    assert {select_event(0, 1), select_event(1, 2)} <= legal(states)
    act(states, select_event(1, 2))
    assert queue(states, 1) == ["banish", None, None]


def test_omen_clock_from_slot_one_resolves_for_the_events_owner():
    """Advancing the opponent's Uprising out of slot 1 gives *them* the punks, now."""
    states = position(camps0=camps("omen_clock"), water=1)
    set_queue(states, 1, ["uprising", None, None])
    act(states, use(0, 0), select_event(1, 1))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    act(states, place(0, 1), R.A_SKIP, R.A_SKIP)
    assert column(states, 1, 0) == ["arcade", "punk"]
    assert queue(states, 1) == [None, None, None] and "uprising" in discard(states)
    assert deciding(states) == (R.PHASE_ACTIONS, 0)


def test_outpost_raid_or_restore_one_per_turn_never_itself():
    states = position(camps0=camps("outpost"), water=4)
    states[0]["camp_state"][0, 0] = 1
    assert use(0, 0, 1) not in legal(states)  # the only damaged card is Outpost itself
    states[0]["camp_state"][0, 1] = 1
    act(states, use(0, 0, 1), target(0, 1, 0))
    assert states[0]["camp_state"][0, 1] == 0
    assert use(0, 0, 0) not in legal(states)  # used this turn: the raid waits
    next_own_turn(states)
    act(states, use(0, 0, 0))
    assert queue(states, 0) == [None, None, RAIDERS]


def test_parachute_base_plays_uses_and_damages():
    """Parachute Base: pay the play cost and the ability cost, use it at once, then damage."""
    states = position(camps0=camps("parachute_base"), water=3)
    give(states, 0, "sniper")  # costs 1, ability 2
    act(states, use(0, 0), select_hand("sniper"), place(1, 1))
    assert deciding(states) == (R.PHASE_DECISION, 0)
    act(states, target(1, 0, 0))
    s = states[0]
    assert s["camp_state"][1, 0] == 1 and s["water"] == 0
    assert column(states, 0, 1) == ["garage", "sniper"] and s["ent_damaged"][0, 1, 1] == 1


def test_parachute_base_needs_a_target_for_the_dropped_persons_ability():
    """docs "usable" (subtleties §5): Parachute Base is not usable when the person it would
    drop has no legal target, rather than dropping it for its play cost alone."""
    states = position(camps0=camps("parachute_base"), water=3)
    give(states, 0, "assassin")  # destroys an unprotected enemy person: there is none
    give(states, 0, "doomsayer")  # needs an opponent event: the queue is empty
    assert use(0, 0) not in legal(states)
    with_enemy = states.copy()
    put(with_enemy, 1, 0, "muse")
    act(with_enemy, use(0, 0))
    assert {a for a in legal(with_enemy) if a >= R.A_SELECT_HAND} == {select_hand("assassin")}


def test_parachute_base_drops_cult_leader_who_may_sacrifice_himself():
    """Cult Leader's "destroy one of your people" can pick himself (subtleties §16), so with
    no other person of yours he still has a target once dropped."""
    states = position(camps0=camps("parachute_base"), water=3)
    give(states, 0, "cult_leader")
    act(states, use(0, 0), select_hand("cult_leader"), place(1, 1))
    assert targets(states) == {(0, 1, 1)}
    # Rescue Team "may return itself" (subtleties §16): the same holds for its return
    states = position(camps0=camps("parachute_base"), water=3)
    give(states, 0, "rescue_team")
    act(states, use(0, 0), select_hand("rescue_team"), place(1, 1))
    assert targets(states) == {(0, 1, 1)}


def test_parachute_base_destroys_a_wounded_soldier():
    """Wounded Soldier damages itself on entry, so the final damage destroys it."""
    states = position(camps0=camps("parachute_base"), water=2)
    give(states, 0, "wounded_soldier")
    stack(states, "muse")
    act(states, use(0, 0), select_hand("wounded_soldier"), place(2, 1))
    act(states, target(1, 1, 0))
    assert states[0]["camp_state"][1, 1] == 1
    assert column(states, 0, 2) == ["supply_depot"]
    assert hand(states, 0) == {"muse": 1}  # its entry draw happened


def test_parachute_base_placement_leaves_water_for_the_ability():
    """Holdout: free before a destroyed camp, 2 elsewhere; ability 1. With 2 water only the
    free column keeps the ability payable."""
    states = position(camps0=camps("parachute_base"), water=2)
    destroy_camp(states, 0, 1)
    give(states, 0, "holdout")
    act(states, use(0, 0), select_hand("holdout"))
    assert places(states) == {(1, 1)}


def test_parachute_base_full_board_sacrifice_only_where_the_person_fits():
    """With 1 water a Holdout (ability 1) can only go, free, before the destroyed camp."""
    states = position(camps0=camps("parachute_base"), water=1)
    fill_board(states, 0)
    destroy_camp(states, 0, 1)
    give(states, 0, "holdout")
    act(states, use(0, 0), select_hand("holdout"))
    assert targets(states) == {(0, 1, 1), (0, 1, 2)}


def test_pillbox_costs_one_less_per_destroyed_own_camp():
    states = position(camps0=camps("pillbox"), water=1)
    destroy_camp(states, 0, 1)
    assert use(0, 0) not in legal(states)  # 3 - 1 = 2
    destroy_camp(states, 0, 2)
    act(states, use(0, 0), target(1, 0, 0))  # 3 - 2 = 1
    assert states[0]["water"] == 0


def test_railgun_damages_an_unprotected_enemy_card():
    states = position(water=2)
    muse = put(states, 1, 0, "muse")
    act(states, use(0, 0))
    assert targets(states) == {(1, 0, 1), (1, 1, 0), (1, 2, 0)}
    act(states, target(1, 0, 1))
    assert damaged(states, muse) and states[0]["water"] == 0


def test_reactor_destroys_itself_and_every_person():
    states = position(camps0=camps("reactor"), water=2)
    put(states, 0, 1, "muse")
    put(states, 1, 0, "scout")
    put(states, 1, 0, "sniper", punk=True)
    act(states, use(0, 0))
    s = states[0]
    assert (s["col_len"] == 1).all() and s["camp_state"][0, 0] == 2
    assert top_of_deck(states) == ["sniper"] and sorted(discard(states)) == ["muse", "scout"]
    assert card_total(states) == 66


def test_resonator_only_unprotected_damaged_enemy_cards():
    states = position(camps0=camps("resonator"), water=2)
    put(states, 1, 0, "muse", damaged=True)
    put(states, 1, 0, "scout")  # protects the damaged Muse
    put(states, 1, 1, "sniper", damaged=True)
    states[0]["camp_state"][1, 2] = 1
    act(states, use(0, 0))
    assert targets(states) == {(1, 1, 1), (1, 2, 0)}
    act(states, target(1, 2, 0))
    assert states[0]["camp_state"][1, 2] == 2


def test_scavenger_camp_restore_only_after_own_raiders_resolved():
    states = position(camps0=camps("scavenger_camp"), water=2)
    states[0]["camp_state"][0, 1] = 1
    set_queue(states, 0, [RAIDERS, None, None])
    give(states, 0, "assassin")
    assert use(0, 0, 1) not in legal(states)
    act(states, junk("assassin"), target(0, 0, 0))  # raid from slot 1: they pick a camp
    act(states, use(0, 0, 1), target(0, 1, 0))
    assert states[0]["camp_state"][0, 1] == 0 and states[0]["water"] == 1


def test_scud_launcher_opponent_damages_one_of_their_cards_of_their_choice():
    states = position(camps0=camps("scud_launcher"), water=1)
    put(states, 1, 0, "muse")
    put(states, 1, 0, "scout")
    act(states, use(0, 0))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    assert targets(states) == {(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 0), (0, 2, 0)}
    act(states, target(0, 0, 1))
    assert states[0]["ent_damaged"][1, 0, 1] == 1


def test_supply_depot_draws_two_and_discards_one_of_them():
    states = position(camps0=camps("supply_depot"), water=2)
    give(states, 0, "banish")
    stack(states, "sniper", "muse")
    act(states, use(0, 0))
    assert {choose(0), choose(1)} <= legal(states) and choose(2) not in legal(states)
    act(states, choose(0))  # the first drawn card (Sniper) is discarded
    assert hand(states, 0) == {"banish": 1, "muse": 1}
    assert discard(states) == ["sniper"]


def test_the_octagon_both_sacrifice_the_opponent_picks():
    states = position(camps0=camps("the_octagon"), water=1)
    put(states, 0, 1, "muse")
    put(states, 1, 0, "scout")
    put(states, 1, 0, "sniper")
    act(states, use(0, 0), target(0, 1, 1))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    assert targets(states) == {(0, 0, 1), (0, 0, 2)}  # protection ignored, their choice
    act(states, target(0, 0, 1))
    assert column(states, 1, 0) == ["arcade", "sniper"]


def test_the_octagon_opponent_without_people_loses_nothing():
    states = position(camps0=camps("the_octagon"), water=1)
    put(states, 0, 1, "muse")
    act(states, use(0, 0), target(0, 1, 1))
    assert deciding(states) == (R.PHASE_ACTIONS, 0)
    assert (states[0]["camp_state"][1] == 0).all()


def test_the_octagon_needs_a_person_of_yours():
    states = position(camps0=camps("the_octagon"), water=1)
    put(states, 1, 0, "scout")
    assert use(0, 0) not in legal(states)


def test_training_camp_flips_a_person_punk_which_enters_play():
    """The flipped Vanguard stays in place, is not ready, and its entry trait (a punk) fires."""
    states = position(camps0=camps("training_camp"), water=1)
    put(states, 0, 1, "vanguard", punk=True)
    act(states, use(0, 0), target(0, 1, 1))
    assert column(states, 0, 1) == ["garage", "vanguard"]
    assert deciding(states) == (R.PHASE_DECISION, 0) and R.A_SKIP in legal(states)
    act(states, place(2, 1))
    assert column(states, 0, 2) == ["supply_depot", "punk"]
    states[0]["water"] = 5
    assert use(1, 1) not in legal(states)


def test_training_camp_flipped_event_is_discarded_for_water_and_a_punk():
    states = position(camps0=camps("training_camp"), water=1)
    put(states, 0, 1, "banish", punk=True)
    act(states, use(0, 0), target(0, 1, 1))
    assert column(states, 0, 1) == ["garage"] and discard(states) == ["banish"]
    assert states[0]["water"] == 1  # 1 paid, 1 gained
    act(states, place(1, 1))
    assert column(states, 0, 1) == ["garage", "punk"]


def test_transplant_lab_needs_two_entries_and_never_restores_itself():
    states = position(camps0=camps("transplant_lab"), water=3)
    states[0]["camp_state"][0, 0] = 1
    give(states, 0, "muse", 2)
    act(states, play("muse"), place(1, 1), play("muse"), place(2, 1))
    assert use(0, 0) not in legal(states)  # only Transplant Lab itself is damaged
    states[0]["camp_state"][0, 1] = 1
    act(states, use(0, 0), target(0, 1, 0))
    assert states[0]["camp_state"][0, 1] == 0


def test_victory_totem_injure_or_raid_one_per_turn():
    states = position(camps0=camps("victory_totem"), water=4)
    muse = put(states, 1, 0, "muse")
    act(states, use(0, 0, 0))
    assert targets(states) == {(1, 0, 1)}  # injure: people only
    act(states, target(1, 0, 1))
    assert damaged(states, muse)
    assert use(0, 0, 1) not in legal(states)
    next_own_turn(states)
    act(states, use(0, 0, 1))
    assert queue(states, 0) == [None, None, RAIDERS]


def test_warehouse_discards_one_or_more_then_draws_one_more():
    """Warehouse: damages itself; the Water Silo is never one of the discards."""
    states = position(camps0=camps("warehouse"), water=0)
    assert use(0, 0) not in legal(states)  # nothing to discard
    give(states, 0, "muse")
    give(states, 0, "scout")
    states[0]["silo_in_hand"][0] = 1
    stack(states, "sniper", "looter", "gunner")
    act(states, use(0, 0))
    assert states[0]["camp_state"][0, 0] == 1
    assert R.A_SKIP not in legal(states)  # at least one card
    act(states, select_hand("muse"))
    assert R.A_SKIP in legal(states)
    act(states, R.A_SKIP)
    assert hand(states, 0) == {"scout": 1, "sniper": 1, "looter": 1}
    assert states[0]["silo_in_hand"][0] == 1


def test_watchtower_needs_an_event_resolved_this_turn():
    """Watchtower: a 0 event counts (as do Raiders and queued events)."""
    states = position(camps0=camps("watchtower"), water=3)
    give(states, 0, "strafe")
    assert use(0, 0) not in legal(states)
    act(states, play_event("strafe"))
    act(states, use(0, 0), target(1, 0, 0))
    assert states[0]["camp_state"][1, 0] == 1


def test_watchtower_counts_raiders():
    states = position(camps0=camps("watchtower"), water=1)
    set_queue(states, 0, [RAIDERS, None, None])
    give(states, 0, "assassin")
    assert use(0, 0) not in legal(states)
    act(states, junk("assassin"), target(0, 2, 0))
    assert use(0, 0) in legal(states)


# ==== people ==================================================================================


def test_argo_yesky_gains_a_punk_and_lends_his_damage_while_undamaged():
    states = position(water=3)
    give(states, 0, "argo_yesky")
    muse = put(states, 0, 1, "muse")
    act(states, play("argo_yesky"), place(0, 1))
    assert deciding(states) == (R.PHASE_DECISION, 0)  # his entry punk
    act(states, place(2, 1))
    assert states[0]["ent_punk"][0, 2, 1] == 1
    next_own_turn(states)
    # punk: slot 0; Muse: slot 1 (after its own); Argo: only his own ability
    assert {use(2, 1, 0), use(1, 1, 1), use(0, 1, 0)} <= legal(states)
    assert use(0, 1, 1) not in legal(states)
    act(states, use(2, 1, 0), target(1, 0, 0))
    assert states[0]["water"] == 2 and states[0]["camp_state"][1, 0] == 1
    assert find(states, muse) == (0, 1, 1)
    states[0]["ent_damaged"][0, 0, 1] = 1  # Argo damaged: the grant is off
    assert use(1, 1, 1) not in legal(states) and use(2, 1, 0) not in legal(states)


def test_argo_grant_makes_a_new_punk_not_ready():
    states = position(water=3)
    put(states, 0, 0, "argo_yesky")
    give(states, 0, "karli_blaze")
    act(states, junk("karli_blaze"), place(1, 1))
    assert not any(use(1, 1, k) in legal(states) for k in range(3))


def _used_on_a_full_column(card):
    """Seat 0 uses ``card`` (2 water) while the enemy's column 0 holds a Muse behind a Scout."""
    states = position(water=2)
    put(states, 0, 0, card)
    put(states, 1, 0, "muse")
    put(states, 1, 0, "scout")
    act(states, use(0, 1))
    return states


def test_assassin_destroys_an_unprotected_enemy_person():
    states = _used_on_a_full_column("assassin")
    assert targets(states) == {(1, 0, 2)}
    act(states, target(1, 0, 2))
    assert column(states, 1, 0) == ["arcade", "muse"]


def test_cult_leader_may_sacrifice_himself_and_still_damages():
    states = position(water=0)
    put(states, 0, 0, "cult_leader")
    act(states, use(0, 1))
    assert targets(states) == {(0, 0, 1)}
    act(states, target(0, 0, 1), target(1, 1, 0))
    assert column(states, 0, 0) == ["railgun"] and states[0]["camp_state"][1, 1] == 1


def test_doomsayer_pushes_events_back_on_entry_and_needs_an_enemy_event():
    states = position(water=2)
    set_queue(states, 1, ["banish", "famine", None])
    give(states, 0, "doomsayer")
    act(states, play("doomsayer"), place(0, 1))
    assert choose(0) in legal(states) and R.A_SKIP in legal(states)
    act(states, choose(0))
    assert queue(states, 1) == [None, "banish", "famine"]  # slot 2 moved first
    next_own_turn(states)
    act(states, use(0, 1), target(1, 1, 0))
    set_queue(states, 1, [None, None, None])
    next_own_turn(states)
    assert use(0, 1) not in legal(states)


def test_exterminator_destroys_every_damaged_enemy_person():
    states = position(water=1)
    put(states, 0, 0, "exterminator")
    put(states, 1, 0, "muse", damaged=True)
    put(states, 1, 0, "scout")  # protects Muse: "all" ignores it
    put(states, 1, 1, "sniper", damaged=True)
    states[0]["camp_state"][1, 2] = 1  # camps are not people
    act(states, use(0, 1))
    assert column(states, 1, 0) == ["arcade", "scout"]
    assert column(states, 1, 1) == ["victory_totem"]
    assert states[0]["camp_state"][1, 2] == 1


def test_gunner_injures_the_unprotected_people_fixed_before_the_first_hit():
    states = position(water=2)
    put(states, 0, 0, "gunner")
    back = put(states, 1, 0, "muse")
    put(states, 1, 0, "scout", punk=True)
    side = put(states, 1, 1, "sniper")
    act(states, use(0, 1))
    assert column(states, 1, 0) == ["arcade", "muse"] and not damaged(states, back)
    assert damaged(states, side)
    assert (states[0]["camp_state"][1] == 0).all()


def test_holdout_is_free_before_one_of_your_destroyed_camps():
    states = position(water=0)
    give(states, 0, "holdout")
    assert play("holdout") not in legal(states)
    destroy_camp(states, 1, 0)  # the opponent's destroyed camp does not count
    assert play("holdout") not in legal(states)
    destroy_camp(states, 0, 2)
    act(states, play("holdout"))
    assert places(states) == {(2, 1)}


def test_holdout_with_a_full_board_makes_room_only_in_the_free_column():
    """RAD-A2 with Holdout: only a column where it can then be paid for is offered."""
    states = position(water=0)
    fill_board(states, 0)
    destroy_camp(states, 0, 1)
    give(states, 0, "holdout")
    act(states, play("holdout"))
    assert targets(states) == {(0, 1, 1), (0, 1, 2)}
    act(states, target(0, 1, 2), place(1, 2))
    assert column(states, 0, 1) == ["garage", "looter", "holdout"]


def test_karli_blaze_enters_ready_and_so_do_your_other_people():
    states = position(water=6)
    give(states, 0, "karli_blaze")
    give(states, 0, "muse")
    act(states, play("karli_blaze"), place(0, 1))
    assert use(0, 1) in legal(states)
    act(states, play("muse"), place(1, 1))
    assert use(1, 1) in legal(states)
    act(states, use(0, 1), target(1, 0, 0))
    assert states[0]["water"] == 1 and states[0]["camp_state"][1, 0] == 1


def test_karli_blaze_restored_is_not_ready():
    states = position(water=3)
    put(states, 0, 0, "karli_blaze", damaged=True)
    give(states, 0, "gunner")
    act(states, junk("gunner"), target(0, 0, 1))
    assert use(0, 1) not in legal(states)


def test_looter_draws_only_when_it_hit_a_camp():
    states = position(water=4)
    put(states, 0, 0, "looter")
    put(states, 1, 0, "muse")
    act(states, use(0, 1), target(1, 0, 1))
    assert hand_size(states, 0) == 0
    next_own_turn(states)
    before = hand_size(states, 0)
    top = top_of_deck(states)[0]
    act(states, use(0, 1), target(1, 1, 0))
    assert hand_size(states, 0) == before + 1 and hand(states, 0)[top] >= 1


def test_magnus_karv_damages_every_card_in_one_column():
    states = position(water=2)
    put(states, 0, 0, "magnus_karv")
    put(states, 1, 1, "muse", damaged=True)
    put(states, 1, 1, "scout", punk=True)
    put(states, 1, 2, "sniper")
    act(states, use(0, 1), select_column(1, 1))
    assert column(states, 1, 1) == ["victory_totem"]
    assert states[0]["camp_state"][1, 1] == 1
    assert states[0]["camp_state"][1, 2] == 0


def test_mimic_borrows_a_ready_own_ability_the_source_stays_ready():
    states = position(water=0)
    mimic = put(states, 0, 0, "mimic")
    put(states, 0, 1, "muse")
    act(states, use(0, 1), target(0, 1, 1))
    s = states[0]
    assert s["water"] == 1
    assert use(0, 1) not in legal(states) and use(1, 1) in legal(states)
    assert find(states, mimic) == (0, 0, 1)


def test_mimic_borrows_an_undamaged_enemy_ability_and_pays_it():
    states = position(water=2)
    put(states, 0, 0, "mimic")
    put(states, 1, 0, "sniper")
    put(states, 1, 1, "looter", damaged=True)  # damaged: not a candidate
    put(states, 1, 2, "muse", punk=True)  # a punk has no ability
    act(states, use(0, 1))
    assert targets(states) == {(1, 0, 1)}
    act(states, target(1, 0, 1), target(1, 1, 0))  # Sniper: any enemy card, even protected
    assert states[0]["camp_state"][1, 1] == 1 and states[0]["water"] == 0


def test_mimic_self_reference_is_the_mimic():
    """Mimicking a Mutant: the closing self-damage hits the Mimic."""
    states = position(water=0)
    mimic = put(states, 0, 0, "mimic")
    mutant = put(states, 1, 0, "mutant")
    act(states, use(0, 1), target(1, 0, 1), choose(0), target(1, 1, 0))
    assert damaged(states, mimic) and not damaged(states, mutant)


def test_molgur_stang_destroys_any_camp():
    states = position(water=1)
    put(states, 0, 0, "molgur_stang")
    put(states, 1, 0, "muse")
    act(states, use(0, 1))
    assert targets(states) == {(1, 0, 0), (1, 1, 0), (1, 2, 0)}
    act(states, target(1, 0, 0))
    assert states[0]["camp_state"][1, 0] == 2


def test_muse_gives_extra_water():
    states = position(water=0)
    put(states, 0, 0, "muse")
    act(states, use(0, 1))
    assert states[0]["water"] == 1


def test_mutant_damage_and_or_restore_then_damages_itself():
    states = position(water=0)
    mutant = put(states, 0, 0, "mutant")
    other = put(states, 0, 1, "muse", damaged=True)
    act(states, use(0, 1))
    assert {choose(0), choose(1), choose(2)} <= legal(states)
    act(states, choose(2), target(1, 2, 0))
    assert targets(states) == {(0, 1, 1)}  # never the Mutant itself
    act(states, target(0, 1, 1))
    assert states[0]["camp_state"][1, 2] == 1
    assert not damaged(states, other) and damaged(states, mutant)


def test_pyromaniac_damages_only_an_unprotected_enemy_camp():
    states = position(water=1)
    put(states, 0, 0, "pyromaniac")
    put(states, 1, 0, "muse")
    act(states, use(0, 1))
    assert targets(states) == {(1, 1, 0), (1, 2, 0)}
    act(states, target(1, 1, 0))
    assert states[0]["camp_state"][1, 1] == 1


def test_rabble_rouser_punk_or_damage_with_a_punk_one_per_turn():
    states = position(water=3)
    put(states, 0, 0, "rabble_rouser")
    assert use(0, 1, 1) not in legal(states)  # no punk yet
    act(states, use(0, 1, 0), place(1, 1))
    assert use(0, 1, 1) not in legal(states)  # used this turn
    next_own_turn(states)
    act(states, use(0, 1, 1), target(1, 0, 0))
    assert states[0]["camp_state"][1, 0] == 1


def test_repair_bot_restores_on_entry_and_never_itself():
    states = position(water=3)
    states[0]["camp_state"][0, 1] = 1
    give(states, 0, "repair_bot")
    act(states, play("repair_bot"), place(0, 1))
    assert targets(states) == {(0, 1, 0)} and R.A_SKIP in legal(states)
    act(states, target(0, 1, 0))
    assert states[0]["camp_state"][0, 1] == 0
    states2 = position(camps0=camps("adrenaline_lab"), water=2)
    put(states2, 0, 1, "repair_bot", damaged=True)
    assert use(0, 0) not in legal(states2)  # its borrowed restore would have no target


def test_rescue_team_enters_ready_and_returns_people_punks_face_up():
    states = position(water=1)
    give(states, 0, "rescue_team")
    put(states, 0, 1, "sniper", punk=True)
    act(states, play("rescue_team"), place(0, 1))
    act(states, use(0, 1))
    assert targets(states) == {(0, 0, 1), (0, 1, 1)}  # itself allowed
    act(states, target(0, 1, 1))
    assert hand(states, 0) == {"sniper": 1} and column(states, 0, 1) == ["garage"]


def test_scientist_mills_three_and_may_use_one_junk_icon():
    states = position(water=1)
    put(states, 0, 0, "scientist")
    stack(states, "muse", "scout", "assassin")  # injure, water, raid
    act(states, use(0, 1))
    assert {choose(0), choose(1), choose(2), R.A_SKIP} <= legal(states)
    act(states, choose(2))
    assert queue(states, 0) == [None, None, RAIDERS]
    assert discard(states) == ["muse", "scout", "assassin"]


def test_scientist_may_take_no_junk_effect():
    states = position(water=1)
    put(states, 0, 0, "scientist")
    stack(states, "muse", "scout", "looter")
    act(states, use(0, 1), R.A_SKIP)
    assert states[0]["water"] == 0 and len(discard(states)) == 3


def test_scout_raids():
    states = position(water=1)
    put(states, 0, 0, "scout")
    act(states, use(0, 1))
    assert queue(states, 0) == [None, None, RAIDERS]


def test_sniper_damages_any_enemy_card():
    states = _used_on_a_full_column("sniper")
    assert targets(states) == {(1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 1, 0), (1, 2, 0)}


def test_vanguard_gains_a_punk_on_entry_and_the_opponent_hits_back():
    states = position(water=1)
    give(states, 0, "vanguard")
    act(states, play("vanguard"), place(0, 1), R.A_SKIP)
    next_own_turn(states)
    act(states, use(0, 1), target(1, 0, 0))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    assert targets(states) == {(1, 0, 1), (1, 1, 0), (1, 2, 0)}  # p0's unprotected cards
    act(states, target(1, 0, 1))
    assert states[0]["ent_damaged"][0, 0, 1] == 1
    assert deciding(states) == (R.PHASE_ACTIONS, 0)


def test_vigilante_injures():
    states = position(water=1)
    put(states, 0, 0, "vigilante")
    muse = put(states, 1, 2, "muse")
    act(states, use(0, 1), target(1, 2, 1))
    assert damaged(states, muse)


def test_wounded_soldier_draws_then_damages_itself_on_entry():
    states = position(water=3)
    give(states, 0, "wounded_soldier")
    stack(states, "sniper")
    act(states, play("wounded_soldier"), place(0, 1))
    assert hand(states, 0) == {"sniper": 1}
    assert states[0]["ent_damaged"][0, 0, 1] == 1
    next_own_turn(states)
    assert use(0, 1) not in legal(states)  # damaged, so never ready


@pytest.mark.parametrize("per_card", [False, True])
def test_vera_vosh_both_readings(per_card):
    """Vera Vosh, reading A (default): only the turn's first ability use leaves its card ready;
    reading B: each card's first use each turn leaves it ready."""
    states = position(water=10, options=R.OPTION_VERA_PER_CARD if per_card else 0)
    put(states, 0, 0, "vera_vosh")
    put(states, 0, 1, "muse")
    act(states, use(0, 0, 0), target(1, 0, 0))  # Railgun, first use of the turn
    assert use(0, 0) in legal(states)
    act(states, use(0, 0), target(1, 1, 0))
    assert use(0, 0) not in legal(states)  # a second use is never free
    act(states, use(1, 1))
    assert (use(1, 1) in legal(states)) == per_card
    next_own_turn(states)
    states[0]["ent_damaged"][0, 0, 1] = 1  # a damaged Vera grants nothing
    act(states, use(1, 1))
    assert use(1, 1) not in legal(states)


def test_zeto_khan_draws_three_then_discards_three_not_the_silo():
    states = position(water=1)
    put(states, 0, 0, "zeto_khan")
    give(states, 0, "banish")
    states[0]["silo_in_hand"][0] = 1
    stack(states, "sniper", "muse", "scout")
    act(states, use(0, 1))
    assert hand(states, 0) == {"banish": 1, "sniper": 1, "muse": 1, "scout": 1}
    act(states, select_hand("banish"), select_hand("muse"), select_hand("scout"))
    assert hand(states, 0) == {"sniper": 1} and states[0]["silo_in_hand"][0] == 1


def test_zeto_khan_first_event_resolves_at_once_the_second_is_queued():
    states = position(water=4)
    put(states, 0, 0, "zeto_khan")
    put(states, 1, 1, "muse")
    give(states, 0, "banish", 2)
    act(states, play_event("banish"))
    assert deciding(states) == (R.PHASE_DECISION, 0)
    act(states, target(1, 1, 1))
    assert column(states, 1, 1) == ["victory_totem"]
    act(states, play_event("banish"))
    assert queue(states, 0) == ["banish", None, None]


def test_zeto_khan_makes_the_first_raiders_resolve_at_once():
    states = position(water=0)
    put(states, 0, 0, "zeto_khan")
    give(states, 0, "assassin")
    act(states, junk("assassin"))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    act(states, target(0, 0, 0))
    assert queue(states, 0) == [None, None, None]


@pytest.mark.parametrize("resolved_reading", [False, True])
def test_zeto_khan_both_readings(resolved_reading):
    """An event queued before Zeto entered: reading "first event placed" (default) has used
    the turn's chance; reading "first event resolved" has not."""
    states = position(water=10, options=R.OPTION_ZETO_RESOLVED if resolved_reading else 0)
    give(states, 0, "banish")
    give(states, 0, "zeto_khan")
    give(states, 0, "uprising")
    act(states, play_event("banish"), play("zeto_khan"), place(0, 1))
    act(states, play_event("uprising"))
    if resolved_reading:
        assert deciding(states) == (R.PHASE_DECISION, 0)  # Uprising's punks, now
        assert queue(states, 0) == ["banish", None, None]
    else:
        assert queue(states, 0) == ["banish", "uprising", None]


# ==== events ==================================================================================


def resolve_at_turn_start(states, slot1):
    """Put ``slot1`` in player 0's slot 1 and start player 0's turn from player 1's."""
    set_queue(states, 0, [slot1, None, None])
    end_turn(states)


def test_banish_destroys_any_enemy_person():
    states = position(turn=1)
    put(states, 1, 0, "muse")
    put(states, 1, 0, "scout")
    resolve_at_turn_start(states, "banish")
    assert deciding(states) == (R.PHASE_DECISION, 0)
    assert targets(states) == {(1, 0, 1), (1, 0, 2)}
    act(states, target(1, 0, 1))
    assert column(states, 1, 0) == ["arcade", "scout"]
    assert sorted(discard(states)) == ["banish", "muse"]


def test_bombardment_damages_every_camp_then_draws_per_destroyed_camp():
    states = position(turn=1)
    destroy_camp(states, 1, 0)
    states[0]["camp_state"][1, 1] = 1
    put(states, 1, 2, "muse")  # protection does not matter
    resolve_at_turn_start(states, "bombardment")
    s = states[0]
    assert list(s["camp_state"][1]) == [2, 2, 1]
    assert hand_size(states, 0) == 2 + 1  # two destroyed camps, then the turn's draw


def test_bombardment_that_wins_draws_nothing():
    states = position(turn=1)
    destroy_camp(states, 1, 0)
    destroy_camp(states, 1, 1)
    states[0]["camp_state"][1, 2] = 1
    resolve_at_turn_start(states, "bombardment")
    s = states[0]
    assert s["winner"] == 0 and hand_size(states, 0) == 0


def test_famine_owner_then_opponent_keep_one_each():
    states = position(turn=1)
    keep0 = put(states, 0, 0, "muse")
    put(states, 0, 1, "scout", punk=True)
    put(states, 1, 0, "sniper")
    keep1 = put(states, 1, 0, "looter")
    put(states, 1, 2, "gunner")
    resolve_at_turn_start(states, "famine")
    assert deciding(states) == (R.PHASE_DECISION, 0)
    act(states, target(0, 0, 1))
    assert deciding(states) == (R.PHASE_DECISION, 1)
    assert targets(states) == {(0, 0, 1), (0, 0, 2), (0, 2, 1)}
    act(states, target(0, 0, 2))
    assert find(states, keep0) and find(states, keep1)
    assert sum(len(column(states, p, c)) for p in range(2) for c in range(3)) == 8
    # the punk went back on top of the deck, so the turn's replenish draw takes it
    assert hand(states, 0) == {"scout": 1}
    assert card_total(states) == 66


def test_high_ground_rearranges_then_the_opponent_is_unprotected_this_turn():
    states = position(turn=1)
    muse = put(states, 0, 0, "muse")
    put(states, 0, 1, "scout")
    put(states, 1, 0, "sniper")
    put(states, 1, 0, "looter")
    resolve_at_turn_start(states, "high_ground")
    assert R.A_SKIP in legal(states)
    act(states, target(0, 0, 1))
    assert (1, 2) in places(states) and (1, 1) in places(states)
    act(states, place(1, 2), R.A_SKIP)
    assert column(states, 0, 1) == ["garage", "scout", "muse"] and find(states, muse)
    act(states, use(0, 0))
    assert {(1, 0, 0), (1, 0, 1), (1, 0, 2)} <= targets(states)
    act(states, target(1, 0, 1))
    next_own_turn(states)
    act(states, use(0, 0))
    assert (1, 0, 0) not in targets(states)  # over at the end of that turn


def test_high_ground_swaps_people_between_two_full_columns():
    """High Ground, "rearrange your people as you like" (subtleties §16): with all six places
    full, a person dropped on the place of a person in another full column swaps with it."""
    states = position(turn=1)
    fill_board(states, 0)
    resolve_at_turn_start(states, "high_ground")
    act(states, target(0, 0, 1))  # lift the Muse
    # its own column has room again; each person of the two other full columns is a swap
    assert places(states) == {(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)}
    act(states, place(1, 1))  # onto the Looter, who is lifted in turn
    assert column(states, 0, 1) == ["garage", "muse", "pyromaniac"]
    assert R.A_SKIP not in legal(states)  # the Looter must land somewhere
    act(states, place(0, 1), R.A_SKIP)
    assert column(states, 0, 0) == ["railgun", "looter", "scout"]
    assert deciding(states) == (R.PHASE_ACTIONS, 0)


def _arrangement(states):
    s = states[0]
    return tuple(
        tuple(int(u) for u in s["ent_uid"][0, c, : int(s["col_len"][0, c])]) for c in range(3)
    )


def _rearrangements(states):
    """Every arrangement of player 0's people High Ground can end in, by a search over its
    decisions from ``states`` (a REARRANGE step waiting for a pick); each node is reached
    with its fewest drops, which leaves it the most options (MAX_REARRANGE)."""
    from collections import deque

    start = states.copy()
    seen = {(_arrangement(start), 0)}
    finals = set()
    todo = deque([start])
    while todo:
        node = todo.popleft()
        for a in sorted(legal(node)):
            nxt = node.copy()
            R.apply_action(nxt, 0, a)
            if a == R.A_SKIP or nxt[0]["phase"] != R.PHASE_DECISION:
                finals.add(_arrangement(nxt if a != R.A_SKIP else node))
                continue
            key = (_arrangement(nxt), int(nxt[0]["lift_uid"]))
            if key in seen:
                continue
            seen.add(key)
            if R.A_PLACE <= a < R.A_CHOOSE:
                todo.append(nxt)  # one more drop
            else:
                todo.appendleft(nxt)  # a pick costs no drop
    return finals


def _all_arrangements(camp_uids, people, spaces):
    """Every legal arrangement (docs board model): each column holds at most 2 of
    ``people``; the camp on space j has between n + j - 2 and j of them behind it."""
    from itertools import permutations, product

    out = set()
    for cols in product(range(3), repeat=len(people)):
        if any(cols.count(c) > 2 for c in range(3)):
            continue
        groups = [[u for u, c in zip(people, cols, strict=True) if c == k] for k in range(3)]
        options = []
        for c, group in enumerate(groups):
            n, j = len(group), spaces[c]
            column = set()
            for order in permutations(group):
                for behind in range(max(0, n + j - 2), min(j, n) + 1):
                    column.add(order[:behind] + (camp_uids[c],) + order[behind:])
            options.append(column)
        out.update(product(*options))
    return out


def test_high_ground_reaches_every_arrangement_of_a_full_board():
    """Every arrangement of six people (two per column, 720 of them) is reachable within
    MAX_REARRANGE drops."""
    states = position(turn=1)
    fill_board(states, 0)
    resolve_at_turn_start(states, "high_ground")
    people = sorted(int(u) for u in states[0]["ent_uid"][0].ravel() if u >= 7)
    expected = _all_arrangements((1, 2, 3), people, (0, 0, 0))
    assert len(expected) == 720
    assert _rearrangements(states) == expected


def test_high_ground_reaches_every_arrangement_around_a_moved_juggernaut():
    """Three people, a Juggernaut on space 1 (subtleties §15): every arrangement with at most
    two per column, on either side of the Juggernaut, is reachable."""
    states = position(camps0=camps("juggernaut"), turn=1)
    states[0]["juggernaut_moves"][0] = 1
    put(states, 0, 0, "muse", index=0)  # behind the Juggernaut
    put(states, 0, 1, "scout")
    put(states, 0, 1, "looter")
    resolve_at_turn_start(states, "high_ground")
    people = sorted(int(u) for u in states[0]["ent_uid"][0].ravel() if u >= 7)
    expected = _all_arrangements((1, 2, 3), people, (1, 0, 0))
    assert len(expected) > 42  # more than without the Juggernaut: its two sides differ
    assert _rearrangements(states) == expected


def test_interrogate_draws_four_keeps_one_of_them():
    states = position(water=1)
    give(states, 0, "interrogate")
    give(states, 0, "banish")
    stack(states, "sniper", "muse", "scout", "looter")
    act(states, play_event("interrogate"))
    assert {choose(k) for k in range(4)} <= legal(states)
    act(states, choose(1))
    assert hand(states, 0) == {"banish": 1, "muse": 1}
    assert sorted(discard(states)) == ["interrogate", "looter", "scout", "sniper"]


def test_napalm_destroys_every_enemy_person_in_one_column():
    states = position(turn=1)
    put(states, 1, 0, "muse")
    put(states, 1, 0, "scout", damaged=True)
    put(states, 1, 1, "sniper")
    put(states, 0, 2, "looter")
    resolve_at_turn_start(states, "napalm")
    legal_columns = {a for a in legal(states) if R.A_SELECT_COLUMN <= a < R.A_SELECT_EVENT}
    assert legal_columns == {select_column(1, 0), select_column(1, 1)}
    act(states, select_column(1, 0))
    assert column(states, 1, 0) == ["arcade"] and states[0]["camp_state"][1, 0] == 0
    assert column(states, 1, 1) == ["victory_totem", "sniper"]


def test_radiation_injures_every_person_both_sides():
    states = position(turn=1)
    mine = put(states, 0, 0, "muse")
    put(states, 0, 1, "scout", punk=True)
    theirs = put(states, 1, 0, "sniper")
    put(states, 1, 0, "looter", damaged=True)
    resolve_at_turn_start(states, "radiation")
    assert damaged(states, mine) and damaged(states, theirs)
    assert column(states, 0, 1) == ["garage"] and column(states, 1, 0) == ["arcade", "sniper"]
    assert (states[0]["camp_state"] == 0).all()


def test_strafe_injures_every_unprotected_enemy_person():
    states = position(water=2)
    give(states, 0, "strafe")
    back = put(states, 1, 0, "muse")
    put(states, 1, 0, "scout", punk=True)
    side = put(states, 1, 2, "sniper")
    mine = put(states, 0, 0, "looter")
    act(states, play_event("strafe"))
    assert not damaged(states, back) and damaged(states, side) and not damaged(states, mine)
    assert column(states, 1, 0) == ["arcade", "muse"]


def test_truce_returns_every_person_to_its_owners_hand():
    states = position(water=2)
    give(states, 0, "truce")
    put(states, 0, 0, "muse", damaged=True)
    put(states, 1, 0, "scout")
    put(states, 1, 1, "sniper", punk=True)
    act(states, play_event("truce"))
    s = states[0]
    assert (s["col_len"] == 1).all()
    assert hand(states, 0) == {"muse": 1}
    assert hand(states, 1) == {"scout": 1, "sniper": 1}
    assert card_total(states) == 66


def test_uprising_gains_three_punks_sacrificing_once_the_board_is_full():
    states = position(turn=1)
    for c, key in ((0, "muse"), (0, "scout"), (1, "looter"), (1, "pyromaniac"), (2, "gunner")):
        put(states, 0, c, key)
    resolve_at_turn_start(states, "uprising")
    assert targets(states) == set() and places(states) == {(2, 1), (2, 2)}
    act(states, place(2, 2))
    assert targets(states) == {(0, c, i) for c in range(3) for i in (1, 2)}
    act(states, target(0, 0, 1), place(0, 2))
    act(states, R.A_SKIP)
    assert column(states, 0, 0)[2] == "punk" and column(states, 0, 2)[2] == "punk"
    assert card_total(states) == 66


# ==== Raiders and the Water Silo ==============================================================


def test_raiders_resolve_in_the_events_phase_and_return():
    states = position(turn=1)
    set_queue(states, 0, [None, RAIDERS, None])
    end_turn(states)
    assert queue(states, 0) == [RAIDERS, None, None]
    next_own_turn(states)
    assert deciding(states) == (R.PHASE_DECISION, 1)
    act(states, target(0, 0, 0))
    assert states[0]["camp_state"][1, 0] == 1 and queue(states, 0) == [None, None, None]
    assert RAIDERS not in discard(states)


def test_water_silo_take_and_junk():
    states = position(water=1)
    act(states, R.A_TAKE_SILO)
    assert states[0]["silo_in_hand"][0] == 1 and states[0]["water"] == 0
    act(states, R.A_JUNK_SILO)
    assert states[0]["silo_in_hand"][0] == 0 and states[0]["water"] == 1
    assert discard(states) == []
