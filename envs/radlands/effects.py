"""Radlands card effects as small programs of steps, compiled to integer bytecode.

Every ability, event, junk icon and "when this enters play" trait is a list of steps. A step
is ``(op, target_or_arg, who)``: ``who`` is ``OWNER`` (the program's owner decides) or
``OPPONENT`` (the owner's opponent decides, e.g. the camp Raiders damage). Target kinds are
read from the decider's point of view, so Vanguard's hit-back is simply
``(DAMAGE, UNPROT_ENEMY_CARD, OPPONENT)``.

Passive traits (Argo Yesky, Karli Blaze, Rescue Team, Holdout, Oasis, Vera Vosh, Zeto Khan,
Bonfire, Obelisk, Pillbox/Command Post discounts) are rules in the kernel, not programs.

The kernel (``envs/radlands/rules.py``) and the reference (``envs/radlands/reference.py``)
both interpret these tables; the semantics of each op are in docs/radlands.md.
"""

import numpy as np

from meeple_gym.radlands import data

# ---- ops ------------------------------------------------------------------------------------
OPS = (
    "DAMAGE",  # one hit on a chosen target (RAD-I2; injure = people-only target kinds, RAD-I4)
    "DESTROY",  # destroy a chosen target (RAD-I1)
    "RESTORE",  # arg = target kind; optional; never the source card (RAD-I3)
    "RESTORE_READY",  # Atomic Garden: restore a damaged person, who is then ready
    "RESTORE_MANY",  # Bonfire: restore other damaged cards until SKIP
    "DAMAGE_SET",  # one hit on every card of a set, chosen at once (arg = set kind)
    "DESTROY_SET",  # destroy every card of a set
    "COLUMN_DAMAGE",  # choose an enemy column; one hit on every card in it, camp included
    "COLUMN_DESTROY_PEOPLE",  # choose an enemy column; destroy every person in it
    "DRAW",  # draw arg cards (RAD-I5)
    "GAIN_PUNK",  # optional: put the deck's top card face down into a column (RAD-I6)
    "WATER",  # arg extra water this turn (RAD-I7)
    "RAID",  # RAD-I8
    "MILL_JUNK",  # Scientist: mill arg cards, then optionally use one of their junk icons
    "RETURN_TO_HAND",  # Rescue Team: one of your people (itself allowed) back to hand
    "ADVANCE_EVENT",  # Omen Clock: move any event one slot forward if the slot is free
    "PUSH_BACK",  # Doomsayer: optionally push each opponent event back one slot
    "FLIP_PUNK",  # Training Camp
    "REBUILD",  # Construction Yard: rebuild a destroyed camp, then destroy this camp
    "MIMIC",  # use the ability of another ready own person or an undamaged enemy person
    "ADRENALINE",  # use the ability of an own damaged person, then destroy that person
    "PARACHUTE",  # play a person from hand, use its ability, then damage it
    "REARRANGE",  # High Ground: move own people (pick one, then where) until SKIP
    "HIGH_GROUND",  # the opponent's cards count as unprotected for the owner this turn
    "JUGGERNAUT",  # move this camp forward; on the third move the opponent destroys a camp
    "TRUCE",  # every person in play returns to its owner's hand
    "FAMINE",  # owner, then opponent, keep one person each and destroy the rest
    "CHOOSE",  # the next arg steps are options; the decider runs exactly one of them
    "AND_OR",  # the next 2 steps: the decider runs the first, the second, or both
    "MERCENARY",  # the opponent destroys one of their cards or discards 2 (not the Silo)
    "IF",  # arg = condition; when false skip the next step
    "DISCARD_HAND",  # discard arg cards of your choice from hand (never the Water Silo)
    "DRAW_DISCARD",  # draw arg cards, then discard all but one of those drawn (Interrogate)
    "DRAW_2_DISCARD_1",  # Supply Depot
    "WAREHOUSE",  # discard 1 or more cards from hand, then draw that many plus one
    "BOMBARD_DRAW",  # draw 1 per destroyed opponent camp
    "OCTAGON",  # sacrifice a person; if you did, the opponent sacrifices one (their pick)
)
OP = {name: i for i, name in enumerate(OPS)}

# ---- target kinds (from the decider's point of view) ----------------------------------------
TARGETS = (
    "UNPROT_ENEMY_CARD",
    "UNPROT_ENEMY_PERSON",
    "UNPROT_ENEMY_CAMP",
    "UNPROT_DAMAGED_ENEMY_CARD",
    "ANY_ENEMY_CARD",
    "ANY_ENEMY_PERSON",
    "ANY_ENEMY_CAMP",
    "OWN_PERSON",
    "OWN_DAMAGED_CARD",
    "OWN_DAMAGED_PERSON",
    "OWN_CARD",  # any own person or undestroyed camp, protection ignored
    "OWN_CAMP",  # any own undestroyed camp
    "SELF",  # the source card
)
TARGET = {name: i for i, name in enumerate(TARGETS)}

SETS = (
    "ALL_UNPROT_ENEMY_PEOPLE",  # computed once, then all hit (subtleties §5)
    "ALL_DAMAGED_ENEMY_PEOPLE",
    "ALL_ENEMY_CAMPS",
    "ALL_PEOPLE",  # both sides
)
SET = {name: i for i, name in enumerate(SETS)}

CONDITIONS = (
    "OWN_PEOPLE_AT_MOST_1",
    "ENTERED_THIS_TURN_AT_LEAST_2",
    "ANY_EVENT_RESOLVED",
    "OWN_RAIDERS_RESOLVED",
    "OPPONENT_HAS_EVENT",
    "OWN_PUNK",
    "PREVIOUS_HIT_CAMP",
)
CONDITION = {name: i for i, name in enumerate(CONDITIONS)}

OWNER, OPPONENT = 0, 1


def _s(op, arg=0, who=OWNER):
    return (OP[op], arg, who)


def damage(target="UNPROT_ENEMY_CARD", who=OWNER):
    return _s("DAMAGE", TARGET[target], who)


def injure():
    return _s("DAMAGE", TARGET["UNPROT_ENEMY_PERSON"])


def destroy(target, who=OWNER):
    return _s("DESTROY", TARGET[target], who)


def restore(target="OWN_DAMAGED_CARD"):
    return _s("RESTORE", TARGET[target])


def draw(n=1):
    return _s("DRAW", n)


def when(condition):
    return _s("IF", CONDITION[condition])


def op(name, arg=0, who=OWNER):
    return _s(name, arg, who)


# ---- the programs ---------------------------------------------------------------------------
JUNK_PROGRAMS = {
    "raid": [op("RAID")],
    "draw": [draw()],
    "restore": [restore()],
    "injure": [injure()],
    "water": [op("WATER", 1)],
    "gain_punk": [op("GAIN_PUNK")],
}

PERSON_ABILITIES = {
    "argo_yesky": [[damage()]],
    "assassin": [[destroy("UNPROT_ENEMY_PERSON")]],
    "cult_leader": [[destroy("OWN_PERSON"), damage()]],
    "doomsayer": [[when("OPPONENT_HAS_EVENT"), damage()]],
    "exterminator": [[op("DESTROY_SET", SET["ALL_DAMAGED_ENEMY_PEOPLE"])]],
    "gunner": [[op("DAMAGE_SET", SET["ALL_UNPROT_ENEMY_PEOPLE"])]],
    "holdout": [[damage()]],
    "karli_blaze": [[damage()]],
    "looter": [[damage(), when("PREVIOUS_HIT_CAMP"), draw()]],
    "magnus_karv": [[op("COLUMN_DAMAGE")]],
    "mimic": [[op("MIMIC")]],
    "molgur_stang": [[destroy("ANY_ENEMY_CAMP")]],
    "muse": [[op("WATER", 1)]],
    "mutant": [[op("AND_OR"), damage(), restore(), damage("SELF")]],
    "pyromaniac": [[damage("UNPROT_ENEMY_CAMP")]],
    "rabble_rouser": [[op("GAIN_PUNK")], [when("OWN_PUNK"), damage()]],
    "repair_bot": [[restore()]],
    "rescue_team": [[op("RETURN_TO_HAND")]],
    "scientist": [[op("MILL_JUNK", 3)]],
    "scout": [[op("RAID")]],
    "sniper": [[damage("ANY_ENEMY_CARD")]],
    "vanguard": [[damage(), damage("UNPROT_ENEMY_CARD", OPPONENT)]],
    "vera_vosh": [[injure()]],
    "vigilante": [[injure()]],
    "wounded_soldier": [[damage()]],
    "zeto_khan": [[draw(3), op("DISCARD_HAND", 3)]],
}

ENTER_PLAY = {
    "argo_yesky": [op("GAIN_PUNK")],
    "doomsayer": [op("PUSH_BACK")],
    "repair_bot": [restore()],
    "vanguard": [op("GAIN_PUNK")],
    "wounded_soldier": [draw(), damage("SELF")],
}

CAMP_ABILITIES = {
    "adrenaline_lab": [[op("ADRENALINE")]],
    "arcade": [[when("OWN_PEOPLE_AT_MOST_1"), op("GAIN_PUNK")]],
    "atomic_garden": [[op("RESTORE_READY")]],
    "blood_bank": [[destroy("OWN_PERSON"), op("WATER", 1)]],
    "bonfire": [[damage("SELF"), op("RESTORE_MANY")]],
    "cache": [[damage("SELF"), op("CHOOSE", 3), draw(), restore(), op("GAIN_PUNK")]],
    "cannon": [[damage("SELF"), damage()]],
    "catapult": [[damage("ANY_ENEMY_CARD"), destroy("OWN_PERSON")]],
    "command_post": [[damage()]],
    "construction_yard": [[op("REBUILD")]],
    "garage": [[op("RAID")]],
    "juggernaut": [[op("JUGGERNAUT")]],
    "labor_camp": [[destroy("OWN_PERSON"), restore()]],
    "mercenary_camp": [[op("MERCENARY")]],
    "mulcher": [[destroy("OWN_PERSON"), draw()]],
    "nest_of_spies": [[when("ENTERED_THIS_TURN_AT_LEAST_2"), damage()]],
    "oasis": [],
    "obelisk": [],
    "omen_clock": [[op("ADVANCE_EVENT")]],
    "outpost": [[op("RAID")], [restore()]],
    "parachute_base": [[op("PARACHUTE")]],
    "pillbox": [[damage()]],
    "railgun": [[damage()]],
    "reactor": [[op("DESTROY_SET", SET["ALL_PEOPLE"]), destroy("SELF")]],
    "resonator": [[destroy("UNPROT_DAMAGED_ENEMY_CARD")]],
    "scavenger_camp": [[op("RAID")], [when("OWN_RAIDERS_RESOLVED"), restore()]],
    "scud_launcher": [[damage("OWN_CARD", OPPONENT)]],
    "supply_depot": [[op("DRAW_2_DISCARD_1")]],
    "the_octagon": [[op("OCTAGON")]],
    "training_camp": [[op("FLIP_PUNK")]],
    "transplant_lab": [[when("ENTERED_THIS_TURN_AT_LEAST_2"), restore()]],
    "victory_totem": [[injure()], [op("RAID")]],
    "warehouse": [[damage("SELF"), op("WAREHOUSE")]],
    "watchtower": [[when("ANY_EVENT_RESOLVED"), damage()]],
}

EVENTS = {
    "banish": [destroy("ANY_ENEMY_PERSON")],
    "bombardment": [op("DAMAGE_SET", SET["ALL_ENEMY_CAMPS"]), op("BOMBARD_DRAW")],
    "famine": [op("FAMINE")],
    "high_ground": [op("REARRANGE"), op("HIGH_GROUND")],
    "interrogate": [op("DRAW_DISCARD", 4)],
    "napalm": [op("COLUMN_DESTROY_PEOPLE")],
    "radiation": [op("DAMAGE_SET", SET["ALL_PEOPLE"])],
    "strafe": [op("DAMAGE_SET", SET["ALL_UNPROT_ENEMY_PEOPLE"])],
    "truce": [op("TRUCE")],
    "uprising": [op("GAIN_PUNK"), op("GAIN_PUNK"), op("GAIN_PUNK")],
}

RAIDERS = [damage("OWN_CAMP", OPPONENT)]


# ---- compilation ----------------------------------------------------------------------------
MAX_STEPS = 6


def _check_tables():
    assert set(PERSON_ABILITIES) == set(data.PERSON_KEYS), "every person type needs abilities"
    assert set(CAMP_ABILITIES) == set(data.CAMP_KEYS), "every camp needs an entry"
    assert set(EVENTS) == set(data.EVENT_KEYS), "every event type needs a program"
    assert set(JUNK_PROGRAMS) == set(data.JUNK_NAMES), "every junk icon needs a program"


def compile_programs():
    """All programs as one (n, MAX_STEPS, 3) int16 array plus index tables into it.

    Program 0 is empty. Returns a dict of arrays: ``code``, ``length``, ``person_ability``
    (26, 2), ``camp_ability`` (34, 2), ``event`` (10), ``junk`` (6), ``enter_play`` (26),
    ``raiders`` (scalar); -1 where a card has no such program.
    """
    _check_tables()
    programs = [[]]

    def add(steps):
        assert len(steps) <= MAX_STEPS, steps
        programs.append(steps)
        return len(programs) - 1

    person_ability = np.full((len(data.PERSON_KEYS), 2), -1, np.int16)
    for t, key in enumerate(data.PERSON_KEYS):
        for k, steps in enumerate(PERSON_ABILITIES[key]):
            person_ability[t, k] = add(steps)
    camp_ability = np.full((len(data.CAMP_KEYS), 2), -1, np.int16)
    for c, key in enumerate(data.CAMP_KEYS):
        for k, steps in enumerate(CAMP_ABILITIES[key]):
            camp_ability[c, k] = add(steps)
    event = np.array([add(EVENTS[key]) for key in data.EVENT_KEYS], np.int16)
    junk = np.array([add(JUNK_PROGRAMS[name]) for name in data.JUNK_NAMES], np.int16)
    enter_play = np.full(len(data.PERSON_KEYS), -1, np.int16)
    for t, key in enumerate(data.PERSON_KEYS):
        if key in ENTER_PLAY:
            enter_play[t] = add(ENTER_PLAY[key])
    raiders = add(RAIDERS)
    code = np.zeros((len(programs), MAX_STEPS, 3), np.int16)
    length = np.zeros(len(programs), np.int16)
    for i, steps in enumerate(programs):
        length[i] = len(steps)
        for j, step in enumerate(steps):
            code[i, j] = step
    return {
        "code": code,
        "length": length,
        "person_ability": person_ability,
        "camp_ability": camp_ability,
        "event": event,
        "junk": junk,
        "enter_play": enter_play,
        "raiders": np.int16(raiders),
    }
