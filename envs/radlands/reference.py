"""Slow, plain-Python reference implementation of Radlands (2 players).

Written from docs/radlands.md (the engine contract), the rules checklist (RAD-… IDs), the card
tables in ``meeple_gym.radlands.data`` and the card programs in ``meeple_gym.radlands.effects``,
not from the Numba kernel in ``meeple_gym.radlands.rules``: only the action layout, phase
numbers, option bits and caps are imported from there, so both can be driven with the same
actions and compared through ``ReferenceGame.projection()`` (tests/test_radlands_reference.py).

The whole game is one Python generator: every decision is a ``yield`` of the deciding player
and the legal actions, and ``step`` sends the chosen action back in. That keeps each card
effect a straight-line function that reads like the rule it implements.

Where docs/radlands.md is silent or loose, these readings were settled (they match the kernel):

- the turn player stays 0 during the draft;
- "all people on both sides" hits player 0's people first, each side's columns in order;
- Mimic, Adrenaline Lab and Parachute Base borrow printed abilities only (not Argo's grant) and
  never a "?"-cost one, so Parachute Base never offers Mimic;
- Vera Vosh, first-use-per-turn reading: the first use *while her trait is active* stays ready;
- an event resolving when the game ends is still discarded.
"""

from __future__ import annotations

from dataclasses import dataclass

from meeple_gym.core.reference import FlowGame, shuffled
from meeple_gym.core.rng import STREAM_GAME, PyRng, py_derive_key
from meeple_gym.radlands import data as D
from meeple_gym.radlands import effects as FX
from meeple_gym.radlands.rules import (
    A_CHOOSE,
    A_DRAW,
    A_END_TURN,
    A_JUNK,
    A_JUNK_SILO,
    A_KEEP,
    A_PLACE,
    A_PLAY_EVENT,
    A_PLAY_PERSON,
    A_SELECT_COLUMN,
    A_SELECT_EVENT,
    A_SELECT_HAND,
    A_SKIP,
    A_TAKE_SILO,
    A_TARGET,
    A_USE,
    MAX_REARRANGE,
    OPTION_FIRST_GAME_CAMPS,
    OPTION_RAIDERS_SLOT_2,
    OPTION_VERA_PER_CARD,
    OPTION_ZETO_RESOLVED,
    PHASE_ACTIONS,
    PHASE_DECISION,
    PHASE_DRAFT,
    PHASE_OVER,
    STEP_CAP,
)

# ---- card tables as plain Python values -----------------------------------------------------
N_DECK_TYPES = D.N_DECK_TYPES
FIRST_EVENT = D.FIRST_EVENT_TYPE
PERSON_COST = D.PERSON_COST.tolist()
EVENT_COST = D.EVENT_COST.tolist()
EVENT_BOMB = D.EVENT_BOMB.tolist()
DECK_JUNK = D.DECK_TYPE_JUNK.tolist()
CAMP_DRAW = D.CAMP_DRAW.tolist()
RAIDERS = "raiders"  # the queue entry of a player's Raiders card

ARGO = D.PERSON_ID["argo_yesky"]
HOLDOUT = D.PERSON_ID["holdout"]
KARLI = D.PERSON_ID["karli_blaze"]
RESCUE_TEAM = D.PERSON_ID["rescue_team"]
VERA = D.PERSON_ID["vera_vosh"]
ZETO = D.PERSON_ID["zeto_khan"]
BONFIRE = D.CAMP_ID["bonfire"]
COMMAND_POST = D.CAMP_ID["command_post"]
JUGGERNAUT = D.CAMP_ID["juggernaut"]
OASIS = D.CAMP_ID["oasis"]
OBELISK = D.CAMP_ID["obelisk"]
PILLBOX = D.CAMP_ID["pillbox"]

OWNER = FX.OWNER
T = FX.TARGET  # target kind name -> code
SELF = T["SELF"]


def _program(steps):
    """Effect steps with op names instead of op codes: ``(op_name, arg, who)``."""
    return [(FX.OPS[op], arg, who) for op, arg, who in steps]


def _cost(printed):
    """A printed "?" cost is paid inside the program (Mimic, Adrenaline Lab, Parachute Base)."""
    return 0 if printed == D.VARIABLE_COST else int(printed)


# (program, printed cost) per ability slot, for every person type and camp id.
PERSON_ABILITIES = [
    [
        (_program(steps), _cost(D.PERSON_ABILITY_COST[t][k]))
        for k, steps in enumerate(FX.PERSON_ABILITIES[key])
    ]
    for t, key in enumerate(D.PERSON_KEYS)
]
CAMP_ABILITIES = [
    [
        (_program(steps), _cost(D.CAMP_ABILITY_COST[c][k]))
        for k, steps in enumerate(FX.CAMP_ABILITIES[key])
    ]
    for c, key in enumerate(D.CAMP_KEYS)
]
# Programs of "?"-cost person abilities (Mimic): Mimic, Adrenaline Lab and Parachute Base do
# not borrow them (the doc gives them no price; the kernel's reading).
PRICELESS = {
    id(PERSON_ABILITIES[t][k][0])
    for t in range(D.N_PERSON_TYPES)
    for k in range(len(PERSON_ABILITIES[t]))
    if D.PERSON_ABILITY_COST[t][k] == D.VARIABLE_COST
}
ARGO_ABILITY = PERSON_ABILITIES[ARGO][0]  # shared by Argo's trait
EVENT_PROGRAMS = [_program(FX.EVENTS[key]) for key in D.EVENT_KEYS]
JUNK_PROGRAMS = [_program(FX.JUNK_PROGRAMS[name]) for name in D.JUNK_NAMES]
ENTER_PROGRAMS = [_program(FX.ENTER_PLAY.get(key, [])) for key in D.PERSON_KEYS]
RAIDERS_PROGRAM = _program(FX.RAIDERS)

# Ops whose first decision picks a target: the usability rule looks at the first of these.
TARGETED_OPS = {
    "DAMAGE",
    "DESTROY",
    "RESTORE",
    "RESTORE_READY",
    "RESTORE_MANY",
    "COLUMN_DAMAGE",
    "COLUMN_DESTROY_PEOPLE",
    "RETURN_TO_HAND",
    "ADVANCE_EVENT",
    "FLIP_PUNK",
    "REBUILD",
    "MIMIC",
    "ADRENALINE",
    "PARACHUTE",
    "OCTAGON",
    "WAREHOUSE",
}


class _GameEnded(Exception):
    """Raised wherever the game ends (RAD-E1/E2) to unwind the running effects at once."""


@dataclass(eq=False)  # compared by identity: "this card" must survive columns sliding
class Card:
    """One entity of a column: a camp (``column`` = its home column) or a person."""

    is_camp: bool
    column: int = -1  # camps only
    ptype: int = -1  # people only: the deck type (hidden for punks)
    punk: bool = False
    damaged: bool = False  # people only; a camp's damage is in Player.camp_state
    not_ready: bool = False  # people only; camps use Player.camp_used
    used_once: bool = False  # Vera Vosh, per-card reading


@dataclass
class Player:
    camps: list  # camp ids in column order
    camp_state: list  # 0 intact, 1 damaged, 2 destroyed
    camp_used: list
    columns: list  # per column, a list of Cards from back to front (RAD-B2)
    hand: list  # count per deck type (RAD-G3: no limit)
    silo_in_hand: bool = False
    queue: list = None  # slot 1..3: None, a deck type or RAIDERS (RAD-B1)
    juggernaut_moves: int = 0


@dataclass
class Pending:
    decider: int
    actions: list
    phase: int
    context: str = ""  # what the decision is for, for tests and debugging


class ReferenceGame(FlowGame):
    """One 2-player game of Radlands with the action layout of ``meeple_gym.radlands.rules``."""

    step_cap = STEP_CAP

    def __init__(self, seed: int, options: int = 0, index: int = 0):
        self.options = int(options)
        self.raiders_slot = (
            D.RAIDERS_BOMB_PRINTED if self.options & OPTION_RAIDERS_SLOT_2 else D.RAIDERS_BOMB
        )
        self.vera_per_card = bool(self.options & OPTION_VERA_PER_CARD)
        self.zeto_resolved = bool(self.options & OPTION_ZETO_RESOLVED)
        first_game = bool(self.options & OPTION_FIRST_GAME_CAMPS)
        self.rng = PyRng(py_derive_key(seed, index, STREAM_GAME))

        # RNG order (docs/radlands.md "Chance"): camps, deck, first player.
        self.kept = [[], []]  # camp ids kept so far, in column order (RAD-S3)
        if first_game:
            self.offers = None
            self.kept = [list(D.FIRST_GAME_A), list(D.FIRST_GAME_B)]
        else:
            order = shuffled(self.rng, list(range(D.N_CAMPS)))
            self.offers = [order[0:6], order[6:12]]
        cards = [t for t in range(N_DECK_TYPES) for _ in range(int(D.DECK_TYPE_COUNTS[t]))]
        self.deck = shuffled(self.rng, cards)  # bottom .. top (RAD-S2)
        self.first_player = self.rng.randint(2)  # RAD-S5
        self.discard: list[int] = []
        self.reshuffled = False

        self.players: list[Player] = []
        self.turn_player = 0
        self.water = 0
        self.first_turn_done = False
        self.lifted: Card | None = None  # High Ground: the person being moved
        self._reset_turn_flags()

        self.terminated = False
        self.truncated = False
        self.winner: int | None = None
        self.step_count = 0
        self.turn_count = 0
        self._flow = self._game()
        self._pending: Pending | None = next(self._flow)

    # ---- public API -------------------------------------------------------------------------

    @property
    def phase(self) -> int:
        return PHASE_OVER if self._pending is None else self._pending.phase

    def _truncate(self) -> None:
        self.truncated = True

    def projection(self) -> dict:
        """The whole game state, public and hidden, in a canonical form for comparisons."""
        players = []
        for p, pl in enumerate(self.players or [None, None]):
            if pl is None:  # still drafting
                players.append(
                    {
                        "camps": [(camp, 0, False) for camp in self.kept[p]],
                        "columns": [],
                        "hand": {},
                        "silo": False,
                        "queue": [None, None, None],
                        "juggernaut_moves": 0,
                    }
                )
                continue
            players.append(
                {
                    "camps": [(pl.camps[c], pl.camp_state[c], pl.camp_used[c]) for c in range(3)],
                    "columns": [[self._card_view(card) for card in col] for col in pl.columns],
                    "hand": {t: n for t, n in enumerate(pl.hand) if n},
                    "silo": pl.silo_in_hand,
                    "queue": list(pl.queue),
                    "juggernaut_moves": pl.juggernaut_moves,
                }
            )
        over = self._pending is None
        return {
            "phase": self.phase,
            "players": players,
            "deck": list(self.deck),
            "discard": list(self.discard),
            "water": self.water,
            "turn_player": self.turn_player,
            "decider": None if over else self._pending.decider,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "winner": self.winner,
            "lifted": None if self.lifted is None else self._card_view(self.lifted),
        }

    @staticmethod
    def _card_view(card: Card):
        if card.is_camp:
            return ("camp",)
        ready = not card.damaged and not card.not_ready
        return ("person", card.ptype, card.damaged, card.punk, ready)

    # ---- the game as one generator ------------------------------------------------------------

    def _ask(self, decider, actions, phase=PHASE_DECISION, context=""):
        choice = yield Pending(decider, sorted(set(actions)), phase, context)
        return choice

    def _game(self):
        try:
            if self.offers is not None:
                yield from self._draft()
            self._setup()
            self.turn_player = self.first_player
            while True:
                yield from self._turn()
        except _GameEnded:
            return

    def _draft(self):
        # RAD-S3: player 0 keeps 3 of its 6, one at a time, then player 1.
        # The turn player stays 0 until the first turn (the doc leaves it open).
        for p in (0, 1):
            taken = set()
            for _ in range(3):
                options = [A_KEEP + k for k in range(6) if k not in taken]
                action = yield from self._ask(p, options, PHASE_DRAFT)
                taken.add(action - A_KEEP)
                self.kept[p].append(self.offers[p][action - A_KEEP])

    def _setup(self):
        for p in (0, 1):
            camps = list(self.kept[p])
            self.players.append(
                Player(
                    camps=camps,
                    camp_state=[0, 0, 0],
                    camp_used=[False] * 3,
                    columns=[[Card(is_camp=True, column=c)] for c in range(3)],
                    hand=[0] * N_DECK_TYPES,
                    queue=[None, None, None],
                )
            )
        for p in (0, 1):  # Obelisk is destroyed before play; its draw number still counts
            for c in range(3):
                if self.players[p].camps[c] == OBELISK:
                    self.players[p].camp_state[c] = 2
        for p in (0, 1):  # RAD-S4
            self._draw(p, sum(CAMP_DRAW[camp] for camp in self.players[p].camps))

    def _turn(self):
        p = self.turn_player
        pl = self.players[p]
        # RAD-T1: resolve slot 1, then everything moves one slot forward.
        if pl.queue[0] is not None:
            code = pl.queue[0]
            pl.queue[0] = None
            yield from self._resolve_event(p, code)
        pl.queue = [pl.queue[1], pl.queue[2], None]
        # RAD-T2
        self._draw(p, 1)
        first = p == self.first_player and not self.first_turn_done
        self.water = 1 if first else 3
        self.first_turn_done = True
        # RAD-T3
        while True:
            action = yield from self._ask(p, self._main_actions(p), PHASE_ACTIONS)
            if action == A_END_TURN:
                break
            yield from self._main_action(p, action)
        # RAD-T5
        self.water = 0
        self._reset_turn_flags()
        self.turn_count += 1
        self.turn_player = 1 - p

    def _reset_turn_flags(self):
        for pl in self.players:
            pl.camp_used = [False] * 3
            for col in pl.columns:
                for card in col:
                    card.not_ready = False
                    card.used_once = False
        self.entered = [0, 0]
        self.event_resolved = False
        self.raiders_resolved = [False, False]
        self.high_ground = [False, False]
        self.zeto_used = False
        self.vera_used = False

    # ---- board queries ------------------------------------------------------------------------

    def _cards(self, p):
        for c, col in enumerate(self.players[p].columns):
            for i, card in enumerate(col):
                yield c, i, card

    def _people(self, p):
        return [card for _, _, card in self._cards(p) if not card.is_camp]

    def _where(self, card):
        for p in (0, 1):
            for c, i, other in self._cards(p):
                if other is card:
                    return p, c, i
        return None

    def _camp_live(self, p, card):
        return card.is_camp and self.players[p].camp_state[card.column] != 2

    def _is_damaged(self, p, card):
        if card.is_camp:
            return self.players[p].camp_state[card.column] == 1
        return card.damaged

    def _unprotected(self, viewer, p, c, i):
        # RAD-B3; High Ground makes every opposing card unprotected for its owner.
        if p != viewer and self.high_ground[viewer]:
            return True
        return i == len(self.players[p].columns[c]) - 1

    def _trait_person(self, p, ptype):
        """An undamaged face-up person of this type of player p (RAD-K4)."""
        return any(
            card.ptype == ptype and not card.punk and not card.damaged for card in self._people(p)
        )

    def _board_full(self, p):
        return len(self._people(p)) == 6  # RAD-A2

    def _people_in(self, p, c):
        return sum(1 for card in self.players[p].columns[c] if not card.is_camp)

    def _camp_space(self, p, c):
        """Spaces of a column: 0 (the camp's starting spot), 1, 2. Only Juggernaut leaves
        space 0, one space per move (subtleties §15)."""
        pl = self.players[p]
        return pl.juggernaut_moves if pl.camps[c] == JUGGERNAUT else 0

    def _arrangements(self, p, c, n_people):
        """(people behind the camp, people in front) pairs a column may show with
        ``n_people`` people: the camp on space j leaves j spaces behind it, 2 - j in front."""
        j = self._camp_space(p, c)
        return [(k, n_people - k) for k in range(n_people + 1) if k <= j and n_people - k <= 2 - j]

    def _spots(self, p, c):
        """Final indexes a newcomer may take in column c (docs: board model)."""
        if self._people_in(p, c) >= 2:
            return []
        spots = set()
        for behind, _ in self._arrangements(p, c, self._people_in(p, c) + 1):
            # the camp sits at index ``behind``; the newcomer takes any other index
            spots.update(i for i in range(self._people_in(p, c) + 2) if i != behind)
        return sorted(spots)

    def _placements(self, p, columns=(0, 1, 2)):
        """(column, index) pairs where a person may be put (docs: board model)."""
        return [(c, i) for c in columns for i in self._spots(p, c)]

    def _insert(self, p, c, i, card):
        """Put ``card`` at final index i of column c: the people already there keep their
        order and the camp its space (a person may be shoved past a moved Juggernaut)."""
        col = self.players[p].columns[c]
        camp = next(x for x in col if x.is_camp)
        people = [x for x in col if not x.is_camp]
        behind = [k for k, _ in self._arrangements(p, c, len(people) + 1) if k != i][0]
        order = iter(people)
        col[:] = [
            card if k == i else camp if k == behind else next(order) for k in range(len(people) + 2)
        ]

    def _play_cost(self, p, ptype, c):
        pl = self.players[p]
        if ptype == HOLDOUT and pl.camp_state[c] == 2:
            return 0
        cost = PERSON_COST[ptype]
        if pl.camps[c] == OASIS and pl.camp_state[c] != 2 and self._people_in(p, c) == 0:
            cost -= 1
        return max(cost, 0)

    def _target_action(self, decider, card):
        p, c, i = self._where(card)
        side = 0 if p == decider else 1
        return A_TARGET + (side * 3 + c) * 3 + i

    def _targets(self, decider, kind, src):
        """Cards of a target kind, from the decider's view (docs: ops table)."""
        name = FX.TARGETS[kind]
        enemy = name.startswith("UNPROT_") or name.startswith("ANY_")
        p = 1 - decider if enemy else decider
        out = []
        for c, i, card in self._cards(p):
            person = not card.is_camp
            live_camp = self._camp_live(p, card)
            unprot = self._unprotected(decider, p, c, i)
            damaged = self._is_damaged(p, card)
            if name == "UNPROT_ENEMY_CARD":
                ok = unprot and (person or live_camp)
            elif name == "UNPROT_ENEMY_PERSON":
                ok = unprot and person
            elif name == "UNPROT_ENEMY_CAMP":
                ok = unprot and live_camp
            elif name == "UNPROT_DAMAGED_ENEMY_CARD":
                ok = unprot and damaged and (person or live_camp)
            elif name == "ANY_ENEMY_CARD":
                ok = person or live_camp
            elif name == "ANY_ENEMY_PERSON":
                ok = person
            elif name == "ANY_ENEMY_CAMP":
                ok = live_camp
            elif name == "OWN_PERSON":
                ok = person
            elif name == "OWN_DAMAGED_CARD":
                # RAD-I3: never the source; Bonfire can never be restored.
                bonfire = card.is_camp and self.players[p].camps[card.column] == BONFIRE
                ok = damaged and card is not src and not bonfire
            elif name == "OWN_DAMAGED_PERSON":
                ok = person and damaged and card is not src
            elif name == "OWN_CARD":
                ok = person or live_camp
            elif name == "OWN_CAMP":
                ok = live_camp
            else:
                raise ValueError(name)
            if ok:
                out.append(card)
        return out

    # ---- cards moving -------------------------------------------------------------------------

    def _take_top(self):
        """The deck's top card (RAD-E2: one reshuffle of the discard, then a draw game)."""
        if not self.deck and not self.reshuffled:
            self.reshuffled = True
            self.deck = shuffled(self.rng, self.discard)
            self.discard = []
        if not self.deck:
            self.terminated = True
            self.winner = None
            raise _GameEnded
        return self.deck.pop()

    def _draw(self, p, n):
        for _ in range(n):
            self.players[p].hand[self._take_top()] += 1

    def _check_camps(self):
        # RAD-E1, checked after every damage or destroy; both at once is a draw.
        lost = [all(state == 2 for state in pl.camp_state) for pl in self.players]
        if any(lost):
            self.terminated = True
            self.winner = None if all(lost) else lost.index(False)
            raise _GameEnded

    def _remove(self, card):
        p, c, i = self._where(card)
        del self.players[p].columns[c][i]  # the cards in front slide back
        return p

    def _destroy(self, card):
        p, _, _ = self._where(card)
        if card.is_camp:
            pl = self.players[p]
            pl.camp_state[card.column] = 2  # RAD-I1: it stays in its column
            if pl.camps[card.column] == JUGGERNAUT:
                # Subtleties §15: a destroyed Juggernaut goes back to its starting spot, behind
                # its people, and counts its moves from zero again.
                pl.juggernaut_moves = 0
                column = pl.columns[card.column]
                column.remove(card)
                column.insert(0, card)
            self._check_camps()
            return
        self._remove(card)
        if card.punk:
            self.deck.append(card.ptype)  # RAD-K3: back on top, face down
        else:
            self.discard.append(card.ptype)

    def _hit(self, card):
        """One damage (RAD-I2)."""
        p, _, _ = self._where(card)
        if card.is_camp and self.players[p].camp_state[card.column] == 0:
            self.players[p].camp_state[card.column] = 1
        elif card.is_camp or card.punk or card.damaged:
            self._destroy(card)
        else:
            card.damaged = True

    def _restore(self, card, ready=False):
        p, _, _ = self._where(card)
        if card.is_camp:
            self.players[p].camp_state[card.column] = 0
        else:
            card.damaged = False
            card.not_ready = not ready  # RAD-I3 (Atomic Garden: ready)

    def _enter(self, p, c, i, ptype, punk=False):
        """A person enters play at (c, i); its entry trait fires (subtleties §7)."""
        card = Card(is_camp=False, ptype=ptype, punk=punk)
        self._insert(p, c, i, card)
        self.entered[p] += 1
        karli = self._trait_person(p, KARLI)
        card.not_ready = not (karli or (ptype == RESCUE_TEAM and not punk))
        if not punk and ENTER_PROGRAMS[ptype]:
            yield from self._run(ENTER_PROGRAMS[ptype], p, card)
        return card

    # ---- decisions on cards ---------------------------------------------------------------------

    def _ask_card(self, decider, cards, optional=False, context=""):
        options = {self._target_action(decider, card): card for card in cards}
        actions = list(options) + ([A_SKIP] if optional else [])
        action = yield from self._ask(decider, actions, context=context)
        return options.get(action)

    def _pick_optional(self, decider, cards):
        """The card the decider picks among ``cards`` or None: none there, or they skip."""
        if not cards:
            return None
        return (yield from self._ask_card(decider, cards, optional=True))

    def _ask_place(self, decider, places, optional=False):
        options = {A_PLACE + c * 3 + i: (c, i) for c, i in places}
        actions = list(options) + ([A_SKIP] if optional else [])
        action = yield from self._ask(decider, actions)
        return options.get(action)

    def _ask_hand(self, decider, optional=False):
        hand = self.players[decider].hand
        actions = [A_SELECT_HAND + t for t in range(N_DECK_TYPES) if hand[t]]
        if optional:
            actions.append(A_SKIP)
        action = yield from self._ask(decider, actions)
        return None if action == A_SKIP else action - A_SELECT_HAND

    def _discard_from_hand(self, p, t):
        self.players[p].hand[t] -= 1
        self.discard.append(t)

    # ---- main actions (RAD-T3) ---------------------------------------------------------------

    def _main_actions(self, p):
        pl = self.players[p]
        actions = [A_END_TURN]
        for t in range(FIRST_EVENT):
            if pl.hand[t] and self._can_play_person(p, t, self.water):
                actions.append(A_PLAY_PERSON + t)
        for e in range(D.N_EVENT_TYPES):
            if pl.hand[FIRST_EVENT + e] and EVENT_COST[e] <= self.water:
                if self._event_slot(p, e) is not None:
                    actions.append(A_PLAY_EVENT + e)
        actions += [A_JUNK + t for t in range(N_DECK_TYPES) if pl.hand[t]]  # RAD-A5
        if pl.silo_in_hand:
            actions.append(A_JUNK_SILO)
        elif self.water >= D.WATER_SILO_TAKE_COST:
            actions.append(A_TAKE_SILO)  # RAD-A6
        if self.water >= 2:
            actions.append(A_DRAW)  # RAD-A3
        for c, i, card in self._cards(p):
            for k, (steps, cost) in enumerate(self._abilities(p, card)):
                if self._ready(p, card) and cost <= self.water and self._usable(steps, p, card):
                    actions.append(A_USE + (c * 3 + i) * 3 + k)
        return actions

    def _main_action(self, p, action):
        pl = self.players[p]
        if A_PLAY_PERSON <= action < A_PLAY_EVENT:
            yield from self._play_person(p, action - A_PLAY_PERSON)
        elif A_PLAY_EVENT <= action < A_JUNK:
            yield from self._play_event(p, action - A_PLAY_EVENT)
        elif A_JUNK <= action < A_JUNK_SILO:
            t = action - A_JUNK
            self._discard_from_hand(p, t)  # RAD-A5: discard, then the icon
            yield from self._run(JUNK_PROGRAMS[DECK_JUNK[t]], p, None)
        elif action == A_JUNK_SILO:
            pl.silo_in_hand = False  # RAD-A5: back to its owner's area
            yield from self._run(JUNK_PROGRAMS[D.WATER_SILO_JUNK], p, None)
        elif action == A_TAKE_SILO:
            self.water -= D.WATER_SILO_TAKE_COST
            pl.silo_in_hand = True
        elif action == A_DRAW:
            self.water -= 2
            self._draw(p, 1)
        else:
            slot, k = divmod(action - A_USE, 3)
            c, i = divmod(slot, 3)
            card = pl.columns[c][i]
            steps, cost = self._abilities(p, card)[k]
            self.water -= cost  # RAD-T4: pay and mark first
            self._mark_used(p, card)
            yield from self._run(steps, p, card)

    # -- people

    def _can_play_person(self, p, ptype, budget):
        if self._board_full(p):
            return any(self._play_cost(p, ptype, c) <= budget for c in range(3))
        return any(self._play_cost(p, ptype, c) <= budget for c, _ in self._placements(p))

    def _make_room(self, p, ptype, budget, optional=False, context="make room"):
        """RAD-A2: with 6 people one of them is destroyed first (a column you can afford)."""
        people = [
            card
            for c, _, card in self._cards(p)
            if not card.is_camp and (ptype is None or self._play_cost(p, ptype, c) <= budget)
        ]
        card = yield from self._ask_card(p, people, optional, context)
        if card is not None:
            self._destroy(card)
        return card

    def _play_person(self, p, ptype, context="play", reserve=0):
        """RAD-A1/A2: make room if full, place, pay, enter; returns the new person. Only
        columns where the play cost leaves ``reserve`` water are offered."""
        budget = self.water - reserve
        if self._board_full(p):
            yield from self._make_room(p, ptype, budget, context=f"make room: {context}")
        places = [(c, i) for c, i in self._placements(p) if self._play_cost(p, ptype, c) <= budget]
        c, i = yield from self._ask_place(p, places)
        self.water -= self._play_cost(p, ptype, c)
        self.players[p].hand[ptype] -= 1
        return (yield from self._enter(p, c, i, ptype))

    # -- events

    def _zeto_now(self, p):
        """Zeto Khan's trait applies to this event (the first of the turn)."""
        return self._trait_person(p, ZETO) and not self.zeto_used

    def _free_slot(self, p, bomb):
        """RAD-A4: the slot of the bomb number or the first free one behind it."""
        for j in range(bomb - 1, 3):
            if self.players[p].queue[j] is None:
                return j
        return None

    def _event_slot(self, p, e):
        """Where event e would go: "now", a queue index, or None when it cannot be played."""
        if EVENT_BOMB[e] == 0 or self._zeto_now(p):
            return "now"
        return self._free_slot(p, EVENT_BOMB[e])

    def _play_event(self, p, e):
        pl = self.players[p]
        where = self._event_slot(p, e)
        pl.hand[FIRST_EVENT + e] -= 1
        self.water -= EVENT_COST[e]
        if not self.zeto_resolved:
            self.zeto_used = True  # every event put out counts
        if where == "now":
            if self.zeto_resolved:
                self.zeto_used = True  # only an event gone off at once counts
            yield from self._resolve_event(p, FIRST_EVENT + e)
        else:
            pl.queue[where] = FIRST_EVENT + e

    def _resolve_event(self, p, code):
        """An event (or Raiders) resolves for its owner p, then is discarded / returned."""
        self.event_resolved = True
        if code == RAIDERS:
            self.raiders_resolved[p] = True
            yield from self._run(RAIDERS_PROGRAM, p, None)  # back beside the queue
        else:
            try:
                yield from self._run(EVENT_PROGRAMS[code - FIRST_EVENT], p, None)
            finally:  # discarded even when the game ends during it (the kernel's reading)
                self.discard.append(code)

    # -- abilities

    def _abilities(self, p, card):
        """(program, cost) per ability slot; Argo's trait adds his in the slot after."""
        pl = self.players[p]
        if card.is_camp:
            if pl.camp_state[card.column] == 2:
                return []
            camp = pl.camps[card.column]
            out = []
            for steps, cost in CAMP_ABILITIES[camp]:
                if camp == PILLBOX:
                    cost = max(0, cost - sum(1 for s in pl.camp_state if s == 2))
                elif camp == COMMAND_POST:
                    cost = max(0, cost - sum(1 for c in self._people(p) if c.punk))
                out.append((steps, cost))
            return out
        out = [] if card.punk else list(PERSON_ABILITIES[card.ptype])
        if (card.punk or card.ptype != ARGO) and self._trait_person(p, ARGO):
            out.append(ARGO_ABILITY)
        return out

    def _ready(self, p, card):
        if card.is_camp:  # RAD-R1
            return (
                self.players[p].camp_state[card.column] != 2
                and not self.players[p].camp_used[card.column]
            )
        return not card.damaged and not card.not_ready  # RAD-R2

    def _mark_used(self, p, card):
        """RAD-T4, with Vera Vosh's trait keeping the card ready (subtleties §16)."""
        vera = self._trait_person(p, VERA)
        if self.vera_per_card:
            keep = vera and not card.used_once
            if vera:
                card.used_once = True
        else:
            # "First use of the turn" counts uses while the trait is active (kernel's reading;
            # docs/radlands.md leaves it open).
            keep = vera and not self.vera_used
            if vera:
                self.vera_used = True
        if keep:
            return
        if card.is_camp:
            self.players[p].camp_used[card.column] = True
        else:
            card.not_ready = True

    def _usable(self, steps, owner, src):
        """docs "usable": IFs before the first targeted step hold and it has a target."""
        for op, arg, _ in steps:  # a compulsory sacrifice needs a person of yours
            if op == "DESTROY" and arg == T["OWN_PERSON"] and not self._people(owner):
                return False
        pc = 0
        ctx = {"happened": False, "hit_camp": False}
        while pc < len(steps):
            op, arg, who = steps[pc]
            if op == "IF":
                if not self._cond(arg, owner, ctx):
                    return False
            elif op == "CHOOSE":
                options = steps[pc + 1 : pc + 1 + arg]
                return any(self._has_target(s, owner, src) for s in options)
            elif op == "AND_OR":
                return any(self._has_target(s, owner, src) for s in steps[pc + 1 : pc + 3])
            elif op in ("DAMAGE", "DESTROY") and arg == SELF:
                pass  # self-damage steps are passed over
            elif op in TARGETED_OPS:
                return self._has_target(steps[pc], owner, src)
            pc += 1
        return True

    def _has_target(self, step, owner, src):
        op, arg, who = step
        decider = owner if who == OWNER else 1 - owner
        if op in ("DAMAGE", "DESTROY"):
            return arg == SELF or bool(self._targets(decider, arg, src))
        if op == "RESTORE":
            return bool(self._targets(decider, arg, src))
        if op == "RESTORE_READY":
            return bool(self._targets(decider, T["OWN_DAMAGED_PERSON"], src))
        if op == "RESTORE_MANY":
            return bool(self._targets(decider, T["OWN_DAMAGED_CARD"], src))
        if op == "COLUMN_DAMAGE":
            return bool(self._column_options(decider, people_only=False))
        if op == "COLUMN_DESTROY_PEOPLE":
            return bool(self._column_options(decider, people_only=True))
        if op in ("RETURN_TO_HAND", "OCTAGON"):
            return bool(self._people(decider))
        if op == "ADVANCE_EVENT":
            return bool(self._movable_events(decider))
        if op == "FLIP_PUNK":
            return any(card.punk for card in self._people(decider))
        if op == "REBUILD":
            pl = self.players[owner]
            return pl.camp_state[src.column] == 0 and 2 in pl.camp_state
        if op == "MIMIC":
            return bool(self._mimic_candidates(owner, src))
        if op == "ADRENALINE":
            return bool(self._adrenaline_candidates(owner))
        if op == "PARACHUTE":
            return bool(self._parachute_candidates(owner))
        if op == "WAREHOUSE":
            return any(self.players[owner].hand)
        return True

    def _cond(self, cond, owner, ctx):
        name = FX.CONDITIONS[cond]
        if name == "OWN_PEOPLE_AT_MOST_1":
            return len(self._people(owner)) <= 1
        if name == "ENTERED_THIS_TURN_AT_LEAST_2":
            return self.entered[owner] >= 2
        if name == "ANY_EVENT_RESOLVED":
            return self.event_resolved
        if name == "OWN_RAIDERS_RESOLVED":
            return self.raiders_resolved[owner]
        if name == "OPPONENT_HAS_EVENT":
            return any(e is not None for e in self.players[1 - owner].queue)
        if name == "OWN_PUNK":
            return any(card.punk for card in self._people(owner))
        if name == "PREVIOUS_HIT_CAMP":
            return ctx["hit_camp"]
        raise ValueError(name)

    # ---- the program interpreter --------------------------------------------------------------

    def _run(self, steps, owner, src):
        """Run a card program for ``owner``; ``src`` is "this card" (None for junk/events)."""
        ctx = {"happened": False, "hit_camp": False}
        pc = 0
        while pc < len(steps):
            op, arg, who = steps[pc]
            if op == "IF":
                pc += 1 if self._cond(arg, owner, ctx) else 2
                continue
            if op == "CHOOSE":
                options = steps[pc + 1 : pc + 1 + arg]
                valid = [k for k, s in enumerate(options) if self._has_target(s, owner, src)]
                if valid:
                    action = yield from self._ask(owner, [A_CHOOSE + k for k in valid])
                    yield from self._step(options[action - A_CHOOSE], owner, src, ctx)
                pc += 1 + arg
                continue
            if op == "AND_OR":
                first, second = steps[pc + 1], steps[pc + 2]
                ok = [self._has_target(first, owner, src), self._has_target(second, owner, src)]
                valid = [k for k in (0, 1) if ok[k]] + ([2] if all(ok) else [])
                if valid:
                    k = (yield from self._ask(owner, [A_CHOOSE + k for k in valid])) - A_CHOOSE
                    if k in (0, 2):
                        yield from self._step(first, owner, src, ctx)
                    if k in (1, 2):
                        yield from self._step(second, owner, src, ctx)
                pc += 3
                continue
            yield from self._step(steps[pc], owner, src, ctx)
            pc += 1

    def _step(self, step, owner, src, ctx):
        op, arg, who = step
        decider = owner if who == OWNER else 1 - owner
        ctx["happened"] = False
        ctx["hit_camp"] = False
        handler = getattr(self, "_op_" + op.lower())
        yield from handler(arg, owner, decider, src, ctx)

    # -- damage and destroy

    def _op_damage(self, arg, owner, decider, src, ctx):
        yield from self._strike(arg, decider, src, ctx, self._hit)

    def _op_destroy(self, arg, owner, decider, src, ctx):
        yield from self._strike(arg, decider, src, ctx, self._destroy)

    def _strike(self, arg, decider, src, ctx, hit):
        """Damage or destroy (``hit``) the source itself or a target the decider picks."""
        if arg == SELF:
            card = src if src is not None and self._where(src) else None
        else:
            targets = self._targets(decider, arg, src)
            if not targets:
                return
            card = yield from self._ask_card(decider, targets)
        if card is None:
            return
        ctx["happened"] = True
        ctx["hit_camp"] = card.is_camp
        hit(card)

    def _set_cards(self, set_code, owner):
        """The cards of a set, fixed before the first hit (subtleties §5)."""
        name = FX.SETS[set_code]
        enemy = 1 - owner
        if name == "ALL_UNPROT_ENEMY_PEOPLE":
            return [
                card
                for c, i, card in self._cards(enemy)
                if not card.is_camp and self._unprotected(owner, enemy, c, i)
            ]
        if name == "ALL_DAMAGED_ENEMY_PEOPLE":
            return [card for card in self._people(enemy) if card.damaged]
        if name == "ALL_ENEMY_CAMPS":
            return [card for _, _, card in self._cards(enemy) if self._camp_live(enemy, card)]
        if name == "ALL_PEOPLE":
            return self._people(0) + self._people(1)  # player 0's first (doc: any order)
        raise ValueError(name)

    def _op_damage_set(self, arg, owner, decider, src, ctx):
        for card in self._set_cards(arg, owner):
            if self._where(card) is not None:
                self._hit(card)
        yield from ()

    def _op_destroy_set(self, arg, owner, decider, src, ctx):
        for card in self._set_cards(arg, owner):
            if self._where(card) is not None:
                self._destroy(card)
        yield from ()

    def _column_options(self, decider, people_only):
        enemy = 1 - decider
        out = []
        for c, col in enumerate(self.players[enemy].columns):
            people = any(not card.is_camp for card in col)
            camp = any(self._camp_live(enemy, card) for card in col)
            if people or (camp and not people_only):
                out.append(c)
        return out

    def _ask_column(self, decider, columns):
        actions = [A_SELECT_COLUMN + 3 + c for c in columns]  # side 1: the other player's
        action = yield from self._ask(decider, actions)
        return action - A_SELECT_COLUMN - 3

    def _op_column_damage(self, arg, owner, decider, src, ctx):
        columns = self._column_options(decider, people_only=False)
        if not columns:
            return
        c = yield from self._ask_column(decider, columns)
        enemy = 1 - decider
        cards = [
            card
            for card in self.players[enemy].columns[c]
            if not card.is_camp or self._camp_live(enemy, card)
        ]
        for card in cards:
            self._hit(card)

    def _op_column_destroy_people(self, arg, owner, decider, src, ctx):
        columns = self._column_options(decider, people_only=True)
        if not columns:
            return
        c = yield from self._ask_column(decider, columns)
        for card in [card for card in self.players[1 - decider].columns[c] if not card.is_camp]:
            self._destroy(card)

    # -- restore

    def _op_restore(self, arg, owner, decider, src, ctx):
        # optional (RAD-I3)
        card = yield from self._pick_optional(decider, self._targets(decider, arg, src))
        if card is not None:
            self._restore(card)

    def _op_restore_ready(self, arg, owner, decider, src, ctx):
        targets = self._targets(decider, T["OWN_DAMAGED_PERSON"], src)
        card = yield from self._pick_optional(decider, targets)
        if card is not None:
            self._restore(card, ready=True)

    def _op_restore_many(self, arg, owner, decider, src, ctx):
        while True:
            targets = self._targets(decider, T["OWN_DAMAGED_CARD"], src)
            card = yield from self._pick_optional(decider, targets)
            if card is None:
                return
            self._restore(card)

    # -- cards, water, punks

    def _op_draw(self, arg, owner, decider, src, ctx):
        self._draw(owner, arg)
        yield from ()

    def _op_water(self, arg, owner, decider, src, ctx):
        self.water += arg  # RAD-I7
        yield from ()

    def _op_gain_punk(self, arg, owner, decider, src, ctx):
        # RAD-I6, optional; with 6 people one may be destroyed first (RAD-A2). The punk is
        # declined before that sacrifice, never after it (RAD-G2: no free self-destroy).
        made = None
        if self._board_full(owner):
            made = yield from self._make_room(owner, None, 0, optional=True)
            if made is None:
                return
        spot = yield from self._ask_place(owner, self._placements(owner), optional=made is None)
        if spot is None:
            return
        card = self._take_top()
        yield from self._enter(owner, spot[0], spot[1], card, punk=True)

    def _op_mill_junk(self, arg, owner, decider, src, ctx):
        milled = []
        for _ in range(arg):
            card = self._take_top()
            self.discard.append(card)
            milled.append(card)
        actions = [A_CHOOSE + k for k in range(len(milled))] + [A_SKIP]
        action = yield from self._ask(owner, actions)
        if action != A_SKIP:
            yield from self._run(JUNK_PROGRAMS[DECK_JUNK[milled[action - A_CHOOSE]]], owner, None)

    def _op_discard_hand(self, arg, owner, decider, src, ctx):
        for _ in range(arg):
            if not any(self.players[owner].hand):
                return
            t = yield from self._ask_hand(owner)
            self._discard_from_hand(owner, t)

    def _draw_revealed(self, p, n):
        """Draw n cards into hand one by one (a draw game may stop it) and list them."""
        drawn = []
        for _ in range(n):
            drawn.append(self._take_top())
            self.players[p].hand[drawn[-1]] += 1
        return drawn

    def _op_draw_discard(self, arg, owner, decider, src, ctx):
        drawn = self._draw_revealed(owner, arg)
        action = yield from self._ask(owner, [A_CHOOSE + k for k in range(len(drawn))])
        keep = action - A_CHOOSE
        for k, t in enumerate(drawn):
            if k != keep:
                self._discard_from_hand(owner, t)

    def _op_draw_2_discard_1(self, arg, owner, decider, src, ctx):
        drawn = self._draw_revealed(owner, 2)
        action = yield from self._ask(owner, [A_CHOOSE + k for k in range(len(drawn))])
        self._discard_from_hand(owner, drawn[action - A_CHOOSE])

    def _op_warehouse(self, arg, owner, decider, src, ctx):
        count = 0
        while any(self.players[owner].hand):
            t = yield from self._ask_hand(owner, optional=count > 0)
            if t is None:
                break
            self._discard_from_hand(owner, t)
            count += 1
        self._draw(owner, count + 1)

    def _op_bombard_draw(self, arg, owner, decider, src, ctx):
        self._draw(owner, sum(1 for s in self.players[1 - owner].camp_state if s == 2))
        yield from ()

    def _op_return_to_hand(self, arg, owner, decider, src, ctx):
        people = self._people(decider)
        if not people:
            return
        card = yield from self._ask_card(decider, people)
        self._remove(card)
        self.players[decider].hand[card.ptype] += 1  # a punk comes back face up

    def _op_truce(self, arg, owner, decider, src, ctx):
        for p in (0, 1):
            for card in self._people(p):
                self._remove(card)
                self.players[p].hand[card.ptype] += 1
        yield from ()

    def _op_flip_punk(self, arg, owner, decider, src, ctx):
        punks = [card for card in self._people(owner) if card.punk]
        if not punks:
            return
        card = yield from self._ask_card(owner, punks)
        if card.ptype < FIRST_EVENT:  # a person: face up in place, entering play
            card.punk = False
            self.entered[owner] += 1
            card.not_ready = not (self._trait_person(owner, KARLI) or card.ptype == RESCUE_TEAM)
            if ENTER_PROGRAMS[card.ptype]:
                yield from self._run(ENTER_PROGRAMS[card.ptype], owner, card)
        else:  # an event: discarded for 1 water and a new punk
            self._remove(card)
            self.discard.append(card.ptype)
            self.water += 1
            yield from self._op_gain_punk(0, owner, owner, src, ctx)

    # -- events and raids

    def _op_raid(self, arg, owner, decider, src, ctx):
        queue = self.players[owner].queue
        if RAIDERS in queue:  # RAD-I8: advance, or resolve from slot 1
            j = queue.index(RAIDERS)
            if j == 0:
                queue[0] = None
                yield from self._resolve_event(owner, RAIDERS)
            elif queue[j - 1] is None:
                queue[j - 1], queue[j] = RAIDERS, None
            return
        zeto = self._zeto_now(owner)
        slot = self._free_slot(owner, self.raiders_slot)
        if zeto:
            self.zeto_used = True
            yield from self._resolve_event(owner, RAIDERS)
        elif slot is not None:
            if not self.zeto_resolved:
                self.zeto_used = True
            queue[slot] = RAIDERS

    def _movable_events(self, decider):
        out = []
        for side, p in ((0, decider), (1, 1 - decider)):
            queue = self.players[p].queue
            for j in range(3):
                if queue[j] is not None and (j == 0 or queue[j - 1] is None):
                    out.append((side, p, j))
        return out

    def _op_advance_event(self, arg, owner, decider, src, ctx):
        movable = self._movable_events(decider)
        if not movable:
            return
        options = {A_SELECT_EVENT + side * 3 + j: (p, j) for side, p, j in movable}
        p, j = options[(yield from self._ask(decider, list(options)))]
        queue = self.players[p].queue
        code = queue[j]
        queue[j] = None
        if j == 0:
            yield from self._resolve_event(p, code)  # for its owner (subtleties §9)
        else:
            queue[j - 1] = code

    def _op_push_back(self, arg, owner, decider, src, ctx):
        queue = self.players[1 - owner].queue
        if not any(queue[j] is not None and queue[j + 1] is None for j in (0, 1)):
            return
        action = yield from self._ask(owner, [A_CHOOSE, A_SKIP])
        if action == A_SKIP:
            return
        for j in (1, 0):  # slot 2 before slot 1
            if queue[j] is not None and queue[j + 1] is None:
                queue[j + 1], queue[j] = queue[j], None

    def _op_high_ground(self, arg, owner, decider, src, ctx):
        self.high_ground[owner] = True
        yield from ()

    def _op_rearrange(self, arg, owner, decider, src, ctx):
        # "Rearrange your people as you like": a person dropped where a full column has a
        # person swaps places with it and that one is moved next, so full columns can trade
        # people. At most MAX_REARRANGE drops, the last one into a free spot.
        drops = 0
        while drops < MAX_REARRANGE:
            card = yield from self._pick_optional(owner, self._people(owner))
            if card is None:
                return
            self._remove(card)
            self.lifted = card
            while self.lifted is not None:
                free = self._placements(owner)
                swaps = []
                if drops + 1 < MAX_REARRANGE:
                    swaps = [
                        (c, i)
                        for c, col in enumerate(self.players[owner].columns)
                        if self._people_in(owner, c) == 2
                        for i, other in enumerate(col)
                        if not other.is_camp
                    ]
                c, i = yield from self._ask_place(owner, free + swaps)
                drops += 1
                if (c, i) in swaps:
                    col = self.players[owner].columns[c]
                    col[i], self.lifted = self.lifted, col[i]
                else:
                    self._insert(owner, c, i, self.lifted)
                    self.lifted = None

    # -- camps with their own machinery

    def _op_rebuild(self, arg, owner, decider, src, ctx):
        pl = self.players[owner]
        ruins = [
            card
            for _, _, card in self._cards(owner)
            if card.is_camp and pl.camp_state[card.column] == 2
        ]
        if not ruins:
            return
        card = yield from self._ask_card(owner, ruins)
        pl.camp_state[card.column] = 0
        pl.camp_used[card.column] = True
        self._destroy(src)

    def _op_juggernaut(self, arg, owner, decider, src, ctx):
        pl = self.players[owner]
        p, c, i = self._where(src)
        col = pl.columns[c]
        if pl.juggernaut_moves == 2:  # third use: back home, the opponent loses a camp
            pl.juggernaut_moves = 0
            col.remove(src)
            col.insert(0, src)
            enemy = 1 - owner
            camps = self._targets(enemy, T["OWN_CAMP"], None)
            card = yield from self._ask_card(enemy, camps)
            self._destroy(card)
            return
        # One space forward even in an empty column; whoever it passes drops behind it.
        pl.juggernaut_moves += 1
        if i + 1 < len(col):
            col[i], col[i + 1] = col[i + 1], col[i]

    def _op_famine(self, arg, owner, decider, src, ctx):
        for p in (owner, 1 - owner):
            people = self._people(p)
            if len(people) < 2:
                continue
            keep = yield from self._ask_card(p, people)
            for card in people:
                if card is not keep:
                    self._destroy(card)

    def _op_mercenary(self, arg, owner, decider, src, ctx):
        enemy = 1 - owner
        hand = self.players[enemy].hand
        actions = [A_CHOOSE] + ([A_CHOOSE + 1] if sum(hand) >= 2 else [])
        action = yield from self._ask(enemy, actions)
        if action == A_CHOOSE:
            card = yield from self._ask_card(enemy, self._targets(enemy, T["OWN_CARD"], None))
            self._destroy(card)
        else:
            for _ in range(2):
                t = yield from self._ask_hand(enemy)
                self._discard_from_hand(enemy, t)

    def _op_octagon(self, arg, owner, decider, src, ctx):
        for p in (owner, 1 - owner):
            people = self._people(p)
            if not people:
                return
            card = yield from self._ask_card(p, people)
            self._destroy(card)

    # -- borrowing abilities

    def _borrowable(self, person, user, this):
        """(slot, program, cost) of person's abilities that ``user`` can use and pay now.

        Only printed abilities: Argo's grant is a slot of the USE_ABILITY action (docs: main
        actions), not something Mimic, Adrenaline Lab or Parachute Base borrow."""
        out = []
        printed = [] if person.punk else PERSON_ABILITIES[person.ptype]
        for k, (steps, cost) in enumerate(printed):
            if id(steps) in PRICELESS:
                continue  # a "?" cost has no price of its own to pay: never borrowed
            if cost <= self.water and self._usable(steps, user, this):
                out.append((k, steps, cost))
        return out

    def _use_borrowed(self, person, user, this):
        """Choose one of person's abilities, pay it, run it with ``this`` as "this card"."""
        options = self._borrowable(person, user, this)
        if not options:
            return
        if len(options) > 1:
            action = yield from self._ask(user, [A_CHOOSE + k for k, _, _ in options])
            options = [o for o in options if o[0] == action - A_CHOOSE]
        _, steps, cost = options[0]
        self.water -= cost
        yield from self._run(steps, user, this)

    def _mimic_candidates(self, owner, mimic):
        out = []
        for p in (owner, 1 - owner):
            for card in self._people(p):
                if p == owner and (card is mimic or not self._ready(p, card)):
                    continue
                if p != owner and card.damaged:
                    continue
                if self._borrowable(card, owner, mimic):
                    out.append(card)
        return out

    def _op_mimic(self, arg, owner, decider, src, ctx):
        candidates = self._mimic_candidates(owner, src)
        if not candidates:
            return
        card = yield from self._ask_card(owner, candidates)
        yield from self._use_borrowed(card, owner, src)

    def _adrenaline_candidates(self, owner):
        return [
            card
            for card in self._people(owner)
            if card.damaged and self._borrowable(card, owner, card)
        ]

    def _op_adrenaline(self, arg, owner, decider, src, ctx):
        candidates = self._adrenaline_candidates(owner)
        if not candidates:
            return
        card = yield from self._ask_card(owner, candidates)
        yield from self._use_borrowed(card, owner, card)
        if self._where(card) is not None:
            self._destroy(card)

    def _cheapest_ability(self, ptype):
        printed = D.PERSON_ABILITY_COST[ptype][: len(PERSON_ABILITIES[ptype])]
        return min(int(cost) for cost in printed)

    def _parachute_candidates(self, owner):
        # A person whose ability costs "?" (Mimic) has no price to check: not offered.
        hand = self.players[owner].hand
        return [
            t
            for t in range(FIRST_EVENT)
            if hand[t]
            and self._cheapest_ability(t) >= 0
            and self._can_play_person(owner, t, self.water - self._cheapest_ability(t))
            and self._dropped_ability_usable(owner, t)
        ]

    def _dropped_ability_usable(self, owner, ptype):
        """docs "usable", for the person Parachute Base would drop, judged on the board before
        the drop; a step on one of your own people (Cult Leader's sacrifice, Rescue Team's
        return) may pick the newcomer itself."""
        for steps, _ in PERSON_ABILITIES[ptype]:
            if id(steps) in PRICELESS:
                continue
            op, arg, _ = steps[0]
            if (op, arg) == ("DESTROY", T["OWN_PERSON"]) or op == "RETURN_TO_HAND":
                return True
            if self._usable(steps, owner, None):
                return True
        return False

    def _op_parachute(self, arg, owner, decider, src, ctx):
        candidates = self._parachute_candidates(owner)
        if not candidates:
            return
        action = yield from self._ask(owner, [A_SELECT_HAND + t for t in candidates])
        # Placed where the play cost leaves enough for its cheapest ability (docs: PARACHUTE).
        ptype = action - A_SELECT_HAND
        reserve = self._cheapest_ability(ptype)
        person = yield from self._play_person(owner, ptype, "parachute", reserve)
        if self._where(person) is not None:
            yield from self._use_borrowed(person, owner, person)
        if self._where(person) is not None:
            self._hit(person)
