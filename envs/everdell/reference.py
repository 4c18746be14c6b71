"""Slow, plain-Python reference implementation of Everdell (1-4 players; solo against Rugwort).

Written from the rules checklist (EVD-… IDs), the card, event and location facts
of the project's reference sheets and the tables in ``meeple_gym.everdell.data``, not from the Numba
kernel in ``meeple_gym.everdell.rules``. Only the *protocol* is shared with the kernel, so that both
can be driven with the same actions and compared step by step
(tests/test_everdell_reference.py): the action layout (``A_*``, ``PAY_*``), the decision kinds
(``PK_*``), the worker location codes (``W_*``), the sizes and the step cap.

The whole game is one Python generator: every decision is a ``yield`` of the deciding player,
its kind and the legal actions; ``step`` sends the chosen action back in. Card effects are
straight-line functions that read like the card text.

Protocol followed (the kernel's conventions; where the rules leave a choice, this is the one):

- Decisions: a decision with exactly one legal action is taken at once and is not a step; a turn
  decision (``PK_TURN``) is always a step: before autumn the Haven or Prepare for Season is
  always open, and from autumn on passing is (EVD-E1; option pass_anytime: from the first turn).
  Every sub-decision belongs to the player whose turn it is.
- Chance, in ``PyRng`` order: at setup ``randint(n)`` for the first player, then a Fisher-Yates
  shuffle of the 11 forest ids, of the 16 special event ids and of the 128 cards listed in type
  order; then the Meadow is dealt (positions 0..7), then hands of 5, 6, 7, 8 from the first
  player on. Cards are drawn from the end of the deck list. A draw from an empty deck first
  shuffles the discard pile (in discard order) into a new deck. A draw into a full hand is not
  attempted. Rugwort's d8 is ``randint(8)``.
- Slots: a city has 22 numbered slots; a new card takes the lowest free slot, Ruins takes the
  slot of the Construction it replaces. Workers have fixed indices; a placement uses the lowest
  free one; season workers are appended. Husbands pair with Wives in slot order (which Husband
  produces). An occupied token is taken from the lowest slot that offers one.
- Paying: one method per play (``PAY_*``). A card that leaves the city as payment (Innkeeper,
  Crane, a Dungeon prisoner) frees its space and its name first. Discount abilities are never
  offered for a card that costs nothing (Ruins). Resource discounts (Crane, Dungeon, Inn,
  forest Meadow pick) are taken one resource at a time; "done" is offered once the rest is
  affordable; a discount as large as the remaining cost ends the reduction at once. Judge: pick
  the resource to replace, then its substitute. A Shepherd's berries go to an opponent.
- Order inside a play: pay, place the card, then Historian / Shopkeeper / Courthouse (not for
  the card itself, never for a Fool sent to another city), then the card's own effect. Ruins
  removes its Construction and draws 2 when placed.
- Fool: goes to an opponent with room and no Fool, passed or not. Solo: it is discarded
  and the player removes one card of Rugwort's city (discarded too).
- Giving: only to opponents who have not passed, cards only to a hand below 8; Rugwort never
  receives. With nobody to receive, given resources go to the supply and given cards to the
  discard pile, and the giver still scores what the card or event promises (solo: Monk,
  Monastery, A Brilliant Marketing Plan). Resources are given to one opponent.
- Teacher: keep one of the 2 drawn (discarded if the hand is full), the other goes to an
  opponent with room. Post Office: pick 2 cards one at a time, one receiver for both (the second
  is discarded if the first fills that hand), then discard any number, then draw up to 8.
- Copies: Chip Sweep fires another green card of its own city, but not a Chip Sweep; Miner Mole
  fires a green card of another city (Rugwort's too), but not a Chip Sweep, a Miner Mole or a
  Storehouse; conditions are read in the copied card's city.
- Visits need their action to be possible: Inn (a Meadow card playable at 3 less), Queen (a card
  worth up to 3 that fits), Post Office (2 cards in hand), Monastery (2 resources), University
  (another card in the city), Cemetery (a card in deck or discard pile); the forest Meadow pick
  needs a Meadow card playable at 1 less (for placing, Lookout, Ranger and Clock Tower alike).
- Forest Meadow pick: take 2 Meadow cards one at a time (the second must be playable at 1 less
  if the first is not), refill, play one, the other goes to the hand. Forest copy-basic: choose a
  basic space, draw 1, then resolve it. Lookout copies any basic space or forest card.
- Cemetery: deck (legal if deck or discard pile holds a card) or discard pile; the top 4 are
  revealed and one that fits must be played free; with none, all are discarded.
- Undertaker: discard 3 Meadow cards one at a time, refill, take 1 (if the hand has room),
  refill. Solo: Meadow cards under Rugwort's workers cannot be played, taken or discarded by
  the player. Ranger: the move is compulsory when a worker can move (the kernel lets it be
  declined, see OPTIONAL_WORKER_MOVE in the test); the worker may not go back to its own spot.
- Prepare for season: Clock Tower first (optional, a basic/forest location holding one of the
  player's workers), then the season's production (green cards in the player's order) or the
  summer Meadow picks (up to 2, then refill), then recall, then new workers (solo year 3: one
  less in autumn), then Rugwort's season move.
- A card removed from a city takes its tokens, stock and prisoners with it (prisoners are
  discarded first); workers on it stay deployed until their owner's next recall; permanent ones
  move onto the University that removed the card, or stay on the Ruins that replaced it;
  otherwise (Croak Wart Cure, Acorn Thieves) they are out of play for good.
- Events: the claiming worker returns at the next recall. Ancient Scrolls: revealed cards are
  taken one at a time (the last revealed card fills the gap). A Wee Run City takes back one
  other deployed, non-permanent worker (compulsory when there is one; the kernel lets it be
  declined). A Brilliant Marketing Plan gives to one opponent (the event allows a split; the
  action layout has no way to express one).
- Solo: Rugwort plays one Meadow card per card the player put into play during the turn, at the
  end of that turn (an empty position plays nothing); a Fool he plays goes into the player's city
  if it fits, else to the discard pile. After each of the player's seasons he claims the basic
  events his colours meet, blocks Meadow position 0 (spring), 1 (summer), 2 and 3 (autumn),
  moves his forest worker to the next forest position (autumn: to Journey 3/4/5 by year) and his
  basic worker to 2 resin, 1 pebble, then berry + card (year 3: off the board).
- Ties (EVD-E3): points, then events, then leftover resources; equal on all three is a draw.
  Solo: the player wins with more points than Rugwort; equal is a draw. A game past the step cap
  is truncated (no winner), scores still counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from meeple_gym.core.reference import FlowGame, shuffled
from meeple_gym.core.rng import STREAM_GAME, PyRng, py_derive_key
from meeple_gym.everdell import data as D
from meeple_gym.everdell.rules import (
    A_CARD,
    A_CITY,
    A_DONE,
    A_MEADOW,
    A_NUMBER,
    A_PASS,
    A_PAY,
    A_PLACE_BASIC,
    A_PLACE_CITY,
    A_PLACE_EVENT,
    A_PLACE_FOREST,
    A_PLACE_HAVEN,
    A_PLACE_JOURNEY,
    A_PLACE_RUGWORT,
    A_PLAY_HAND,
    A_PLAY_MEADOW,
    A_PLAYER,
    A_PREPARE,
    A_RESOURCE,
    A_REVEALED,
    A_WORKER,
    ARCHITECT,
    BARD,
    BARGE_TOAD,
    CASTLE,
    CEMETERY,
    CHAPEL,
    CHIP_SWEEP,
    CITY_SLOTS,
    CLOCK_TOWER,
    COURTHOUSE,
    CRANE,
    DOCTOR,
    DUNGEON,
    EV_ACORN,
    EV_CHAPEL_CEILING,
    EV_CROAK,
    EV_FALLEN,
    EV_FIREWORKS,
    EV_FLYING_DOCTOR,
    EV_GAMES,
    EV_GRADUATION,
    EV_MARKETING,
    EV_MINISTERING,
    EV_NEW_MANAGEMENT,
    EV_PERFORMER,
    EV_PILGRIMS,
    EV_SCROLLS,
    EV_TAX_RELIEF,
    EV_WEE_RUN,
    EVER_TREE,
    F_COPY_BASIC,
    F_DISCARD_DRAW,
    F_DISCARD_GAIN,
    F_MEADOW_PICK,
    FAIRGROUNDS,
    FARM,
    FOOL,
    GENERAL_STORE,
    HISTORIAN,
    HUSBAND,
    INN,
    INNKEEPER,
    JUDGE,
    KING,
    LOC_1_PEBBLE,
    LOC_2_RESIN,
    LOC_3_TWIG,
    LOC_BERRY_CARD,
    LOOKOUT,
    MINE,
    MINER_MOLE,
    MONASTERY,
    MONK,
    PALACE,
    PAY_CRANE,
    PAY_DUNGEON,
    PAY_EVER_TREE,
    PAY_INNKEEPER,
    PAY_JUDGE,
    PAY_NORMAL,
    PAY_TOKEN,
    PEDDLER,
    PK_COPY_GREEN,
    PK_COURTHOUSE,
    PK_DISCARD,
    PK_FOOL_TARGET,
    PK_GAIN,
    PK_GIVE_CARD,
    PK_GIVE_RESOURCE,
    PK_GIVE_TO,
    PK_HAND_OR_MEADOW,
    PK_JAIL,
    PK_JUDGE_FROM,
    PK_JUDGE_TO,
    PK_LOCATION,
    PK_MEADOW,
    PK_NONE,
    PK_NUMBER,
    PK_PAY,
    PK_PEDDLER_PAY,
    PK_PILE,
    PK_PLACE,
    PK_PRODUCE_ORDER,
    PK_REDUCE,
    PK_REMOVE,
    PK_REVEALED,
    PK_RUG_REMOVE,
    PK_RUINS,
    PK_STOREHOUSE,
    PK_TURN,
    PK_WORKER,
    POST_OFFICE,
    POSTAL_PIGEON,
    QUEEN,
    RANGER,
    RESIN_REFINERY,
    RUINS,
    SCHOOL,
    SHEPHERD,
    SHOPKEEPER,
    STEP_CAP,
    STOREHOUSE,
    TEACHER,
    THEATER,
    TWIG_BARGE,
    UNDERTAKER,
    UNIVERSITY,
    W_CITY,
    W_EVENT,
    W_FREE,
    W_LIMBO,
    W_RUG_INN,
    W_RUG_POST,
    WANDERER,
    WIFE,
    WOODCARVER,
)

# ---- tables as plain Python values -------------------------------------------------------------
NT = D.N_CARD_TYPES
KIND = D.CARD_KIND.tolist()
COLOR = D.CARD_COLOR.tolist()
UNIQUE = [bool(u) for u in D.CARD_UNIQUE]
COST = D.CARD_COST.tolist()
POINTS = D.CARD_POINTS.tolist()
TAKES_SPACE = [bool(x) for x in D.CARD_CITY_SPACE]
OPEN_TO_OTHERS = [bool(x) for x in D.CARD_OPEN]
PERMANENT = [bool(x) for x in D.CARD_PERMANENT_WORKER]
HOME = D.CRITTER_HOME.tolist()
EV_SPECIAL = [bool(x) for x in D.EVENT_IS_SPECIAL]
EV_REQ_COLOR = D.EVENT_REQ_COLOR.tolist()
EV_REQ_COUNT = D.EVENT_REQ_COUNT.tolist()
EV_REQ_CARDS = [[c for c in row if c >= 0] for row in D.EVENT_REQ_CARDS.tolist()]
EV_COST_BERRY = D.EVENT_COST_BERRY.tolist()
LOC_KIND = D.LOCATION_KIND.tolist()
LOC_EXCLUSIVE = [bool(x) for x in D.LOCATION_EXCLUSIVE]
LOC_GAIN = D.LOCATION_GAIN.tolist()
LOC_ANY = D.LOCATION_ANY.tolist()
LOC_CARDS = D.LOCATION_CARDS.tolist()
LOC_POINTS = D.LOCATION_POINTS.tolist()
LOC_DISCARD = D.LOCATION_DISCARD.tolist()
BASIC_LOCS = list(D.BASIC_LOCATIONS)
FOREST_LOCS = list(D.FOREST_LOCATIONS)
JOURNEY_LOCS = list(D.JOURNEY_LOCATIONS)  # the 5, 4, 3, 2 point spaces
BASIC_EVENTS = list(D.BASIC_EVENTS)
SPECIAL_EVENTS = list(D.SPECIAL_EVENTS)
HAVEN = D.HAVEN

TWIG, RESIN, PEBBLE, BERRY = D.TWIG, D.RESIN, D.PEBBLE, D.BERRY
ALL_RESOURCES = (TWIG, RESIN, PEBBLE, BERRY)
CRITTER, CONSTRUCTION = D.CRITTER, D.CONSTRUCTION
TRAVELER, PRODUCTION, DESTINATION, GOVERNANCE, PROSPERITY = range(5)
WINTER, SPRING, SUMMER, AUTUMN = D.WINTER, D.SPRING, D.SUMMER, D.AUTUMN
HAND_LIMIT = D.HAND_LIMIT  # EVD-D2
CITY_LIMIT = D.CITY_LIMIT  # EVD-P4
MEADOW_SIZE = D.MEADOW_SIZE
RUGWORT = 1  # solo: the seat of the automated opponent

# Workers gained on entering each season (EVD-S5, EVD-F2..F4) and the seasons that produce.
NEW_WORKERS = {WINTER: 2, SPRING: 1, SUMMER: 1, AUTUMN: 2}
PRODUCTION_SEASONS = (SPRING, AUTUMN)

_L = D.LOCATION_ID

# Solo (Rugwort): Journey space by year and points per special event the player missed.
RUG_JOURNEY = {1: _L["journey_3"], 2: _L["journey_4"], 3: _L["journey_5"]}
RUG_MISSED_SPECIAL = {1: 3, 2: 6, 3: 6}

# How a card comes into play.
FROM_HAND, FROM_MEADOW, FREE, VIA_INN, VIA_FOREST = range(5)


def city_code(owner: int, slot: int) -> int:
    return W_CITY + owner * 32 + slot


@dataclass(eq=False)
class CityCard:
    """One card in a city slot."""

    ctype: int
    occupied: bool = False  # its occupied token was used (EVD-P3)
    tokens: int = 0  # point tokens on it (Chapel, Clock Tower)
    store: list = field(default_factory=lambda: [0, 0, 0, 0])  # Storehouse stock
    jail: list = field(default_factory=list)  # Dungeon prisoners, in cell order


@dataclass
class Player:
    hand: list  # count per card type
    resources: list = field(default_factory=lambda: [0, 0, 0, 0])
    tokens: int = 0  # point tokens in front of the player
    season: int = WINTER
    workers: list = field(default_factory=list)  # location code per worker (W_FREE: on hand)
    permanent: list = field(default_factory=list)  # the worker never returns
    passed: bool = False

    @property
    def hand_n(self) -> int:
        return sum(self.hand)


@dataclass
class Pending:
    decider: int
    actions: list
    kind: int


class ReferenceGame(FlowGame):
    """One game of Everdell with the action layout of ``meeple_gym.everdell.rules``."""

    step_cap = STEP_CAP

    def __init__(self, seed: int, num_players: int, options: int = 0, index: int = 0):
        self.rng = PyRng(py_derive_key(seed, index, STREAM_GAME))
        self._setup(num_players, options)
        self._flow = self._game()
        self._pending: Pending | None = next(self._flow)

    @classmethod
    def from_key(cls, key: int, num_players: int, options: int = 0) -> ReferenceGame:
        """A game from a raw RNG word (the ``key`` given to the kernel's ``init_game``)."""
        game = cls.__new__(cls)
        game.rng = PyRng(int(key))
        game._setup(num_players, options)
        game._flow = game._game()
        game._pending = next(game._flow)
        return game

    def _setup(self, num_players: int, options: int) -> None:
        if not 1 <= num_players <= 4:
            raise ValueError("Everdell takes 1 to 4 players")
        self.num_players = num_players
        self.solo = num_players == 1
        self.seats = 2 if self.solo else num_players
        year = options & 3
        self.rug_year = 1 if year == 0 else year
        self.fool_bonuses = bool(options & 4)  # option fool_bonuses
        self.pass_anytime = bool(options & 8)  # option pass_anytime (EVD-E1 read literally)
        self.step_count = 0
        self.turn_count = 0
        self.terminated = False
        self.truncated = False
        self.winner: int | None = None
        self.scores: list[int] | None = None

        # EVD-S7, S2, S3, S4 in this order of chance.
        self.first_player = self.rng.randint(num_players)
        forest = shuffled(self.rng, FOREST_LOCS)
        self.forest = forest[: 3 if num_players <= 2 else 4]
        self.specials = shuffled(self.rng, SPECIAL_EVENTS)[: D.SPECIAL_EVENTS_DEALT]
        cards = [t for t in range(NT) for _ in range(int(D.CARD_COPIES[t]))]
        self.deck = shuffled(self.rng, cards)  # bottom .. top
        self.discard: list[int] = []
        self.meadow = [-1] * MEADOW_SIZE
        self.players = [Player(hand=[0] * NT) for _ in range(self.seats)]
        self.cities: list[list[CityCard | None]] = [[None] * CITY_SLOTS for _ in range(self.seats)]
        self.rug_city = [0] * NT  # solo: Rugwort's cards, kept by type
        self.event_owner = [-1] * D.N_EVENTS
        self.event_points_kept = [0] * D.N_EVENTS  # points fixed when an event was claimed
        self.plays_this_turn = 0
        self._refill_meadow()
        for i in range(num_players):  # EVD-S6
            p = (self.first_player + i) % num_players
            self._draw(p, 5 + i)
        for p in range(num_players):  # EVD-S5
            self.players[p].workers = [W_FREE] * NEW_WORKERS[WINTER]
            self.players[p].permanent = [False] * NEW_WORKERS[WINTER]
        # Solo: Rugwort's workers block the first forest card and the 3-twig space.
        self.rug_forest = 0 if self.solo else -1  # forest position, -1 gone
        self.rug_basic = LOC_3_TWIG if self.solo else -1
        self.rug_journey = -1
        self.rug_meadow: set[int] = set()
        self.turn_player = self.first_player

    # ---- public API -----------------------------------------------------------------------------

    @property
    def pend_kind(self) -> int:
        return PK_NONE if self._pending is None else self._pending.kind

    def score(self, p: int) -> int:
        """EVD-E2 for seat ``p`` in the current state (solo seat 1: Rugwort's score)."""
        if self.solo and p == RUGWORT:
            return self._rugwort_score()
        return self._player_score(p)

    def projection(self) -> dict:
        """The state in a canonical form that the test also builds from a kernel record."""
        cities = []
        for o in range(self.seats):
            cities.append(
                [
                    None
                    if card is None
                    else (card.ctype, card.occupied, card.tokens, tuple(card.store), len(card.jail))
                    for card in self.cities[o]
                ]
            )
        return {
            "decider": self.decider,
            "pend_kind": self.pend_kind,
            "turn_player": self.turn_player,
            "hands": [list(pl.hand) for pl in self.players],
            "resources": [list(pl.resources) for pl in self.players],
            "tokens": [pl.tokens for pl in self.players],
            "seasons": [pl.season for pl in self.players],
            "workers": [list(pl.workers) for pl in self.players],
            "passed": [pl.passed for pl in self.players],
            "cities": cities,
            "rug_city": list(self.rug_city),
            "meadow": list(self.meadow),
            "deck": list(self.deck),
            "discard": list(self.discard),
            "forest": list(self.forest),
            "specials": list(self.specials),
            "event_owner": list(self.event_owner),
            "rugwort": (self.rug_forest, self.rug_basic, self.rug_journey, sorted(self.rug_meadow)),
            "terminated": self.terminated,
            "truncated": self.truncated,
            "winner": self.winner,
        }

    # ---- decisions ------------------------------------------------------------------------------

    def _ask(self, decider, actions, kind):
        """A decision; one legal action is taken at once without a step."""
        actions = sorted(set(actions))
        if not actions:
            raise RuntimeError(f"decision {kind} with no legal action")
        if len(actions) == 1:
            return actions[0]
        choice = yield Pending(decider, actions, kind)
        return choice

    def _rel(self, p, q):
        return (q - p) % self.seats

    def _abs(self, p, rel):
        return (p + rel) % self.seats

    # ---- cards and piles ------------------------------------------------------------------------

    def _draw_one(self) -> int:
        """The top card of the deck, or -1; an empty deck is rebuilt from the discard pile
        (EVD-D4)."""
        if not self.deck and self.discard:
            self.deck = shuffled(self.rng, self.discard)
            self.discard = []
        if not self.deck:
            return -1
        return self.deck.pop()

    def _draw(self, p, n):
        """EVD-D1/D2: draw up to n; the hand limit stops the draw."""
        pl = self.players[p]
        for _ in range(n):
            if pl.hand_n >= HAND_LIMIT:
                return
            card = self._draw_one()
            if card < 0:
                return
            pl.hand[card] += 1

    def _take_card(self, p, card):
        """A card that comes to p's hand by any route other than a draw: discarded when the
        hand is full or p has passed (EVD-D2, EVD-E1)."""
        pl = self.players[p]
        if pl.hand_n < HAND_LIMIT and not pl.passed:
            pl.hand[card] += 1
        else:
            self.discard.append(card)

    def _refill_meadow(self):
        """EVD-D3: every empty Meadow position takes the top card."""
        for i in range(MEADOW_SIZE):
            if self.meadow[i] < 0:
                self.meadow[i] = self._draw_one()

    def _reveal(self, n):
        out = []
        for _ in range(n):
            card = self._draw_one()
            if card < 0:
                break
            out.append(card)
        return out

    def _meadow_open(self, i):
        """Meadow position i holds a card the player may take (solo: not under Rugwort)."""
        return self.meadow[i] >= 0 and i not in self.rug_meadow

    # ---- cities ---------------------------------------------------------------------------------

    def _is_rugwort(self, o):
        return self.solo and o == RUGWORT

    def _slots(self, o):
        """(slot, card) for every card in o's city."""
        return [(k, c) for k, c in enumerate(self.cities[o]) if c is not None]

    def _count(self, o, ctype):
        if self._is_rugwort(o):
            return self.rug_city[ctype]
        return sum(1 for _, c in self._slots(o) if c.ctype == ctype)

    def _slot_of(self, o, ctype):
        for k, c in self._slots(o):
            if c.ctype == ctype:
                return k
        return -1

    def _has(self, o, ctype):
        return self._count(o, ctype) > 0

    def _color_count(self, o, color):
        if self._is_rugwort(o):
            return sum(n for t, n in enumerate(self.rug_city) if COLOR[t] == color)
        return sum(1 for _, c in self._slots(o) if COLOR[c.ctype] == color)

    def _pairs(self, o):
        """Husband-Wife pairs (one of each shares a space)."""
        return min(self._count(o, HUSBAND), self._count(o, WIFE))

    def _fits(self, o, ctype, leaving=-1):
        """EVD-P2 (one copy of a Unique card) and EVD-P4 (15 spaces; Wanderer takes none, a
        Husband and a Wife share one), with the card in slot ``leaving`` gone first."""
        cards = [c.ctype for k, c in self._slots(o) if k != leaving]
        if UNIQUE[ctype] and ctype in cards:
            return False
        if not TAKES_SPACE[ctype]:
            return True
        husbands, wives = cards.count(HUSBAND), cards.count(WIFE)
        if ctype == HUSBAND and wives > husbands:
            return True  # joins a Wife who has no partner yet
        if ctype == WIFE and husbands > wives:
            return True
        used = sum(1 for t in cards if TAKES_SPACE[t]) - min(husbands, wives)
        return used < CITY_LIMIT

    def _fool_targets(self, p):
        """Opponents whose city can take p's Fool (unique per city, a free space); one who
        has passed too (EVD-E1)."""
        return [q for q in range(self.num_players) if q != p and self._fits(q, FOOL)]

    def _enters(self, p, ctype, leaving=-1):
        """The card can be put into play by p: its city, an opponent's (Fool), or a Construction
        to replace (Ruins)."""
        if ctype == FOOL:
            return self.solo or bool(self._fool_targets(p))
        if ctype == RUINS:
            return any(KIND[c.ctype] == CONSTRUCTION for _, c in self._slots(p))
        return self._fits(p, ctype, leaving)

    def _free_slot(self, o):
        return self.cities[o].index(None)

    def _remove_card(self, o, k, perm_dest=-1, to_discard=True):
        """Take the card in o's slot k out of the city; see the module docstring."""
        card = self.cities[o][k]
        code = city_code(o, k)
        for pl in self.players:
            for w, loc in enumerate(pl.workers):
                if loc == code:
                    pl.workers[w] = perm_dest if pl.permanent[w] and perm_dest >= 0 else W_LIMBO
        for prisoner in card.jail:
            self.discard.append(prisoner)
        self.cities[o][k] = None
        if to_discard:
            self.discard.append(card.ctype)
        return card.ctype

    def _husband_paired(self, o, k):
        """The Husband in o's slot k has a Wife (Husbands take Wives in slot order)."""
        wives = self._count(o, WIFE)
        if k < 0:
            return wives > 0
        rank = sum(1 for j, c in self._slots(o) if j < k and c.ctype == HUSBAND)
        return rank < wives

    # ---- resources and paying -------------------------------------------------------------------

    def _shortfall(self, p, cost):
        res = self.players[p].resources
        return sum(max(0, cost[r] - res[r]) for r in ALL_RESOURCES)

    def _affordable(self, p, cost):
        return self._shortfall(p, cost) == 0

    def _judge_swaps(self, p, cost, r):
        """Kinds that may replace one unit of kind r of ``cost`` (Judge) with the result
        affordable."""
        if cost[r] == 0:
            return []
        out = []
        for b in ALL_RESOURCES:
            if b != r:
                swapped = list(cost)
                swapped[r] -= 1
                swapped[b] += 1
                if self._affordable(p, swapped):
                    out.append(b)
        return out

    def _prisoner_slots(self, p, ctype):
        """Critters of p's city that may go to the Dungeon to pay for ``ctype``."""
        dk = self._slot_of(p, DUNGEON)
        if dk < 0:
            return []
        cells = 2 if self._has(p, RANGER) else 1
        held = len(self.cities[p][dk].jail)
        if held >= cells:
            return []
        out = []
        for k, c in self._slots(p):
            if KIND[c.ctype] != CRITTER:
                continue
            if c.ctype == RANGER and held == 1:
                continue  # the Ranger cannot fill the cell it opens
            if self._enters(p, ctype, k):
                out.append(k)
        return out

    def _pay_options(self, p, ctype):
        """EVD-P1, EVD-P3 and the card-playing abilities, one per play."""
        out = []
        cost = COST[ctype]
        critter = KIND[ctype] == CRITTER
        enters = self._enters(p, ctype)
        if enters and self._affordable(p, cost):
            out.append(PAY_NORMAL)
        if critter and enters:
            hosts = [c for _, c in self._slots(p) if not c.occupied]
            if any(c.ctype == HOME[ctype] for c in hosts):
                out.append(PAY_TOKEN)
            if any(c.ctype == EVER_TREE for c in hosts):
                out.append(PAY_EVER_TREE)
        if sum(cost) == 0:
            return out
        if critter:
            k = self._slot_of(p, INNKEEPER)
            less = list(cost)
            less[BERRY] = max(0, less[BERRY] - 3)
            if k >= 0 and self._affordable(p, less) and self._enters(p, ctype, k):
                out.append(PAY_INNKEEPER)
        else:
            k = self._slot_of(p, CRANE)
            if k >= 0 and self._shortfall(p, cost) <= 3 and self._enters(p, ctype, k):
                out.append(PAY_CRANE)
        if self._shortfall(p, cost) <= 3 and self._prisoner_slots(p, ctype):
            out.append(PAY_DUNGEON)
        if self._has(p, JUDGE) and enters:
            if any(self._judge_swaps(p, cost, r) for r in ALL_RESOURCES):
                out.append(PAY_JUDGE)
        return out

    def _playable_discounted(self, p, ctype, discount):
        """Playable with ``discount`` resources of any kinds off (Inn 3, forest Meadow pick 1)."""
        return self._shortfall(p, COST[ctype]) <= discount and self._enters(p, ctype)

    def _playable_free(self, p, ctype):
        """Printed value at most 3, played without paying (Queen, Postal Pigeon)."""
        return POINTS[ctype] <= 3 and self._enters(p, ctype)

    def _receivers(self, p, cards):
        """Opponents who may receive from p (EVD-E1, EVD-D2); never Rugwort."""
        return [
            q
            for q in range(self.num_players)
            if q != p
            and not self.players[q].passed
            and (not cards or self.players[q].hand_n < HAND_LIMIT)
        ]

    # ---- workers and places ---------------------------------------------------------------------

    def _occupants(self, code):
        n = sum(pl.workers.count(code) for pl in self.players)
        if self.solo:  # Rugwort's workers block their spaces
            n += code == self.rug_basic
            n += self.rug_forest >= 0 and self.forest[self.rug_forest] == code
            n += code == self.rug_journey
        return n

    def _card_spots(self, o, ctype):
        """Cemetery and Monastery open a second spot with Undertaker / Monk (EVD-W4)."""
        if ctype == CEMETERY and self._has(o, UNDERTAKER):
            return 2
        if ctype == MONASTERY and self._has(o, MONK):
            return 2
        return 1

    def _meadow_pick_ok(self, p):
        return any(
            self._meadow_open(i) and self._playable_discounted(p, self.meadow[i], 1)
            for i in range(MEADOW_SIZE)
        )

    def _location_usable(self, p, loc):
        return loc != F_MEADOW_PICK or self._meadow_pick_ok(p)

    def _event_ok(self, p, e):
        """EVD-W5: unclaimed, requirements met, cost affordable."""
        if self.event_owner[e] >= 0:
            return False
        if self.players[p].resources[BERRY] < EV_COST_BERRY[e]:
            return False
        if e == EV_GAMES:
            return all(self._color_count(p, c) >= 2 for c in range(5))
        if EV_REQ_COLOR[e] >= 0:
            return self._color_count(p, EV_REQ_COLOR[e]) >= EV_REQ_COUNT[e]
        return all(self._has(p, c) for c in EV_REQ_CARDS[e])

    def _visit_possible(self, p, ctype, own_slot):
        """The Destination's action can be carried out by p."""
        pl = self.players[p]
        if ctype == INN:
            return any(
                self._meadow_open(i) and self._playable_discounted(p, self.meadow[i], 3)
                for i in range(MEADOW_SIZE)
            )
        if ctype == QUEEN:
            return any(n and self._playable_free(p, t) for t, n in enumerate(pl.hand)) or any(
                self._meadow_open(i) and self._playable_free(p, self.meadow[i])
                for i in range(MEADOW_SIZE)
            )
        if ctype == POST_OFFICE:
            return pl.hand_n >= 2
        if ctype == MONASTERY:
            return sum(pl.resources) >= 2
        if ctype == UNIVERSITY:
            return any(k != own_slot for k, _ in self._slots(p))
        if ctype == CEMETERY:
            return bool(self.deck or self.discard)
        return True

    def _placements(self, p, exclude=None):
        """EVD-W1..W7: where p may put a worker; ``exclude`` is the spot a Ranger leaves."""
        out = []
        pl = self.players[p]
        for i, loc in enumerate(BASIC_LOCS):
            if loc == exclude or (LOC_EXCLUSIVE[loc] and self._occupants(loc)):
                continue
            out.append(A_PLACE_BASIC + i)
        cap = 2 if self.num_players == 4 else 1
        for j, loc in enumerate(self.forest):
            if loc == exclude or self._occupants(loc) >= cap or loc in pl.workers:
                continue
            if self._location_usable(p, loc):
                out.append(A_PLACE_FOREST + j)
        if exclude != HAVEN:
            out.append(A_PLACE_HAVEN)
        if pl.season == AUTUMN:
            for j, loc in enumerate(JOURNEY_LOCS):
                if loc == exclude or pl.hand_n < LOC_DISCARD[loc]:
                    continue
                if LOC_EXCLUSIVE[loc] and self._occupants(loc):
                    continue
                out.append(A_PLACE_JOURNEY + j)
        for j, e in enumerate(BASIC_EVENTS + self.specials):
            if W_EVENT + e != exclude and self._event_ok(p, e):
                out.append(A_PLACE_EVENT + j)
        for r in range(self.num_players):
            o = self._abs(p, r)
            for k, card in self._slots(o):
                t = card.ctype
                code = city_code(o, k)
                if code == exclude:
                    continue
                if COLOR[t] != DESTINATION and t != STOREHOUSE:
                    continue
                if o != p and (not OPEN_TO_OTHERS[t] or t == STOREHOUSE):
                    continue
                if self._occupants(code) >= self._card_spots(o, t):
                    continue
                if self._visit_possible(p, t, k):
                    out.append(A_PLACE_CITY + r * CITY_SLOTS + k)
        if self.solo:  # the open Destinations in Rugwort's city
            for n, (t, code) in enumerate(((INN, W_RUG_INN), (POST_OFFICE, W_RUG_POST))):
                if code == exclude or self.rug_city[t] <= self._occupants(code):
                    continue
                if self._visit_possible(p, t, -1):
                    out.append(A_PLACE_RUGWORT + n)
        return out

    # ---- the game as one generator --------------------------------------------------------------

    def _game(self):
        while True:
            p = self.turn_player
            action = yield from self._turn(p)
            if action == A_PASS:
                self.players[p].passed = True  # EVD-E1
            else:
                yield from self._turn_action(p, action)
            if self.solo:
                for _ in range(self.plays_this_turn):
                    self._rugwort_play()
            self.plays_this_turn = 0
            nxt = None
            for step in range(1, self.num_players + 1):
                q = (p + step) % self.num_players
                if not self.players[q].passed:
                    nxt = q
                    break
            if nxt is None:
                self._finish(truncated=False)
                return
            self.turn_player = nxt
            self.turn_count += 1

    def _turn(self, p):
        choice = yield Pending(p, self.turn_actions(p), PK_TURN)
        self.turn_player = p
        return choice

    def turn_actions(self, p):
        """EVD-T1: place a worker, play a card, prepare for season; or pass (autumn, EVD-E1)."""
        pl = self.players[p]
        actions = []
        if W_FREE in pl.workers:
            actions += self._placements(p)
        for t in range(NT):
            if pl.hand[t] and self._pay_options(p, t):
                actions.append(A_PLAY_HAND + t)
        for i in range(MEADOW_SIZE):
            if self._meadow_open(i) and self._pay_options(p, self.meadow[i]):
                actions.append(A_PLAY_MEADOW + i)
        if pl.season < AUTUMN and W_FREE not in pl.workers:
            actions.append(A_PREPARE)  # EVD-F1, EVD-F5
        if pl.season == AUTUMN or self.pass_anytime:
            actions.append(A_PASS)  # EVD-E1: a player passes once they have reached autumn
        return sorted(actions)

    def refresh_turn(self):
        """Recompute the pending turn menu after a test edited the state between turns."""
        if self._pending is not None and self._pending.kind == PK_TURN:
            self._pending.actions = self.turn_actions(self._pending.decider)

    def _turn_action(self, p, action):
        pl = self.players[p]
        if action < A_PLAY_HAND:
            yield from self._place(p, action, pl.workers.index(W_FREE))
        elif action < A_PLAY_MEADOW:
            t = action - A_PLAY_HAND
            pl.hand[t] -= 1
            yield from self._play(p, t, FROM_HAND)
        elif action < A_PREPARE:
            i = action - A_PLAY_MEADOW
            t = self.meadow[i]
            self.meadow[i] = -1
            self._refill_meadow()  # EVD-D3
            yield from self._play(p, t, FROM_MEADOW)
        else:
            yield from self._prepare(p)

    # ---- placing a worker (EVD-W1..W7) ----------------------------------------------------------

    def _place(self, p, action, w):
        pl = self.players[p]
        if action < A_PLACE_FOREST:
            loc = BASIC_LOCS[action - A_PLACE_BASIC]
            pl.workers[w] = loc
            yield from self._location(p, loc)
        elif action < A_PLACE_HAVEN:
            loc = self.forest[action - A_PLACE_FOREST]
            pl.workers[w] = loc
            yield from self._location(p, loc)
        elif action == A_PLACE_HAVEN:
            pl.workers[w] = HAVEN
            yield from self._location(p, HAVEN)
        elif action < A_PLACE_EVENT:
            loc = JOURNEY_LOCS[action - A_PLACE_JOURNEY]
            pl.workers[w] = loc
            pl.permanent[w] = True  # EVD-W7: it stays and scores
            yield from self._location(p, loc)
        elif action < A_PLACE_CITY:
            j = action - A_PLACE_EVENT
            events = BASIC_EVENTS + self.specials
            e = events[j]
            pl.workers[w] = W_EVENT + e
            self.event_owner[e] = p
            pl.resources[BERRY] -= EV_COST_BERRY[e]  # EVD-W5: paid on placing
            yield from self._event(p, e)
        elif action < A_PLACE_RUGWORT:
            j = action - A_PLACE_CITY
            o = self._abs(p, j // CITY_SLOTS)
            k = j % CITY_SLOTS
            t = self.cities[o][k].ctype
            pl.workers[w] = city_code(o, k)
            pl.permanent[w] = PERMANENT[t]
            if o != p:
                self.players[o].tokens += 1  # EVD-W4
            yield from self._visit(p, t, o, k)
        else:
            t = INN if action == A_PLACE_RUGWORT else POST_OFFICE
            pl.workers[w] = W_RUG_INN if t == INN else W_RUG_POST
            self.players[RUGWORT].tokens += 1
            yield from self._visit(p, t, RUGWORT, -1)

    def _location(self, p, loc):
        """A basic, forest, Haven or Journey location's action for p."""
        pl = self.players[p]
        if loc == HAVEN:  # EVD-W6
            n = yield from self._discard(p, 0, HAND_LIMIT)
            yield from self._gain_any(p, n // 2)
        elif LOC_KIND[loc] == D.LOC_JOURNEY:  # EVD-W7
            yield from self._discard(p, LOC_DISCARD[loc], LOC_DISCARD[loc])
        elif loc == F_DISCARD_DRAW:
            n = yield from self._discard(p, 0, HAND_LIMIT)
            self._draw(p, 2 * n)
        elif loc == F_DISCARD_GAIN:
            n = yield from self._discard(p, 0, 3)
            yield from self._gain_any(p, n)
        elif loc == F_COPY_BASIC:
            a = yield from self._ask(
                p, [A_PLACE_BASIC + i for i in range(len(BASIC_LOCS))], PK_LOCATION
            )
            self._draw(p, 1)
            yield from self._location(p, BASIC_LOCS[a - A_PLACE_BASIC])
        elif loc == F_MEADOW_PICK:
            yield from self._meadow_pick(p)
        else:
            for r in ALL_RESOURCES:
                pl.resources[r] += LOC_GAIN[loc][r]
            self._draw(p, LOC_CARDS[loc])
            pl.tokens += LOC_POINTS[loc]
            yield from self._gain_any(p, LOC_ANY[loc])

    def _meadow_pick(self, p):
        """Take 2 Meadow cards, play one for 1 resource less, keep the other."""
        taken = []
        while len(taken) < 2:
            need_playable = len(taken) == 1 and not self._playable_discounted(p, taken[0], 1)
            options = [
                A_MEADOW + i
                for i in range(MEADOW_SIZE)
                if self._meadow_open(i)
                and (not need_playable or self._playable_discounted(p, self.meadow[i], 1))
            ]
            if not options:
                break
            a = yield from self._ask(p, options, PK_MEADOW)
            i = a - A_MEADOW
            taken.append(self.meadow[i])
            self.meadow[i] = -1
        self._refill_meadow()
        options = [
            A_REVEALED + i for i, t in enumerate(taken) if self._playable_discounted(p, t, 1)
        ]
        a = yield from self._ask(p, options, PK_REVEALED)
        i = a - A_REVEALED
        for j, t in enumerate(taken):
            if j != i:
                self._take_card(p, t)
        yield from self._play(p, taken[i], VIA_FOREST)

    # ---- generic sub-decisions ------------------------------------------------------------------

    def _discard(self, p, lo, hi):
        """Discard between lo and hi hand cards, one at a time; returns how many."""
        pl = self.players[p]
        n = 0
        while n < hi and pl.hand_n > 0:
            options = [A_CARD + t for t in range(NT) if pl.hand[t]]
            if n >= lo:
                options.append(A_DONE)
            a = yield from self._ask(p, options, PK_DISCARD)
            if a == A_DONE:
                break
            pl.hand[a - A_CARD] -= 1
            self.discard.append(a - A_CARD)
            n += 1
        return n

    def _gain_any(self, p, n, kinds=ALL_RESOURCES, kind=PK_GAIN):
        for _ in range(n):
            a = yield from self._ask(p, [A_RESOURCE + r for r in kinds], kind)
            self.players[p].resources[a - A_RESOURCE] += 1

    def _give_resources(self, p, lo, hi, kinds, each=False):
        """Give lo..hi resources of ``kinds`` to one opponent (or the supply if nobody may
        receive); with ``each`` every resource goes to an opponent chosen for it. Returns how
        many were given."""
        pl = self.players[p]
        given = [0, 0, 0, 0]
        n = 0
        while n < hi:
            options = [A_RESOURCE + r for r in kinds if pl.resources[r] > 0]
            if n >= lo:
                options.append(A_DONE)
            if not options:
                break
            a = yield from self._ask(p, options, PK_GIVE_RESOURCE)
            if a == A_DONE:
                break
            pl.resources[a - A_RESOURCE] -= 1
            n += 1
            if each:
                receivers = self._receivers(p, cards=False)
                if receivers:
                    options = [A_PLAYER + self._rel(p, q) for q in receivers]
                    b = yield from self._ask(p, options, PK_GIVE_TO)
                    self.players[self._abs(p, b - A_PLAYER)].resources[a - A_RESOURCE] += 1
                continue
            given[a - A_RESOURCE] += 1
        receivers = self._receivers(p, cards=False)
        if not each and n > 0 and receivers:
            a = yield from self._ask(p, [A_PLAYER + self._rel(p, q) for q in receivers], PK_GIVE_TO)
            q = self._abs(p, a - A_PLAYER)
            for r in ALL_RESOURCES:
                self.players[q].resources[r] += given[r]
        return n

    def _ask_number(self, p, top):
        a = yield from self._ask(p, [A_NUMBER + n for n in range(top + 1)], PK_NUMBER)
        return a - A_NUMBER

    # ---- playing a card (EVD-P1..P5) ------------------------------------------------------------

    def _reduce(self, p, cost, discount):
        """Take up to ``discount`` resources off ``cost`` (in place); leftover discount is
        lost."""
        while discount > 0:
            if sum(cost) <= discount:
                for r in ALL_RESOURCES:
                    cost[r] = 0
                return
            options = []
            for r in ALL_RESOURCES:
                if cost[r] > 0:
                    cost[r] -= 1
                    if self._shortfall(p, cost) <= discount - 1:
                        options.append(A_RESOURCE + r)
                    cost[r] += 1
            if self._affordable(p, cost):
                options.append(A_DONE)
            a = yield from self._ask(p, options, PK_REDUCE)
            if a == A_DONE:
                return
            cost[a - A_RESOURCE] -= 1
            discount -= 1

    def _play(self, p, t, origin):
        """Pay for card t and put it into play (EVD-P1..P5)."""
        pl = self.players[p]
        cost = None
        if origin in (VIA_INN, VIA_FOREST):
            cost = list(COST[t])
            yield from self._reduce(p, cost, 3 if origin == VIA_INN else 1)
        elif origin != FREE:
            options = [A_PAY + m for m in self._pay_options(p, t)]
            method = (yield from self._ask(p, options, PK_PAY)) - A_PAY
            if method == PAY_NORMAL:
                cost = list(COST[t])
            elif method in (PAY_TOKEN, PAY_EVER_TREE):
                host = HOME[t] if method == PAY_TOKEN else EVER_TREE
                for _, card in self._slots(p):  # EVD-P3
                    if card.ctype == host and not card.occupied:
                        card.occupied = True
                        break
            elif method == PAY_INNKEEPER:
                self._remove_card(p, self._slot_of(p, INNKEEPER))
                cost = list(COST[t])
                cost[BERRY] = max(0, cost[BERRY] - 3)
            elif method == PAY_CRANE:
                self._remove_card(p, self._slot_of(p, CRANE))
                cost = list(COST[t])
                yield from self._reduce(p, cost, 3)
            elif method == PAY_DUNGEON:
                options = [A_CITY + k for k in self._prisoner_slots(p, t)]
                a = yield from self._ask(p, options, PK_JAIL)
                dungeon = self.cities[p][self._slot_of(p, DUNGEON)]
                prisoner = self._remove_card(p, a - A_CITY, to_discard=False)
                dungeon.jail.append(prisoner)
                cost = list(COST[t])
                yield from self._reduce(p, cost, 3)
            else:  # Judge
                cost = list(COST[t])
                options = [A_RESOURCE + r for r in ALL_RESOURCES if self._judge_swaps(p, cost, r)]
                r = (yield from self._ask(p, options, PK_JUDGE_FROM)) - A_RESOURCE
                options = [A_RESOURCE + b for b in self._judge_swaps(p, cost, r)]
                b = (yield from self._ask(p, options, PK_JUDGE_TO)) - A_RESOURCE
                cost[r] -= 1
                cost[b] += 1
        if cost is not None:
            if not self._affordable(p, cost):
                raise RuntimeError("paying more than the player holds")
            for r in ALL_RESOURCES:
                pl.resources[r] -= cost[r]
            if t == SHEPHERD and cost[BERRY] > 0:  # its berries go to an opponent
                receivers = self._receivers(p, cards=False)
                if receivers:
                    a = yield from self._ask(
                        p, [A_PLAYER + self._rel(p, q) for q in receivers], PK_GIVE_TO
                    )
                    self.players[self._abs(p, a - A_PLAYER)].resources[BERRY] += cost[BERRY]
        self.plays_this_turn += 1
        if t == FOOL:
            yield from self._play_fool(p)
            return
        if t == RUINS:
            options = [A_CITY + k for k, c in self._slots(p) if KIND[c.ctype] == CONSTRUCTION]
            a = yield from self._ask(p, options, PK_RUINS)
            k = a - A_CITY
            old = self._remove_card(p, k, perm_dest=city_code(p, k))  # a permanent worker stays
            for r in ALL_RESOURCES:
                pl.resources[r] += COST[old][r]
            self.cities[p][k] = CityCard(RUINS)
            self._draw(p, 2)
        else:
            k = self._free_slot(p)
            self.cities[p][k] = CityCard(t, tokens=3 if t == CLOCK_TOWER else 0)
        # Governance bonuses for a later card, never for the bonus card itself.
        if t != HISTORIAN and self._has(p, HISTORIAN):
            self._draw(p, 1)
        if KIND[t] == CRITTER and t != SHOPKEEPER and self._has(p, SHOPKEEPER):
            pl.resources[BERRY] += 1
        if KIND[t] == CONSTRUCTION and t != COURTHOUSE and self._has(p, COURTHOUSE):
            yield from self._gain_any(p, 1, (TWIG, RESIN, PEBBLE), PK_COURTHOUSE)
        if t != RUINS and COLOR[t] in (TRAVELER, PRODUCTION):  # EVD-P5
            yield from self._card_effect(p, t, p, k)

    def _play_fool(self, p):
        if self.solo:
            # Solo: the Fool is discarded and one card leaves Rugwort's city.
            self.discard.append(FOOL)
            if not any(self.rug_city):
                return
            options = [A_CARD + t for t in range(NT) if self.rug_city[t]]
            a = yield from self._ask(p, options, PK_RUG_REMOVE)
            self.rug_city[a - A_CARD] -= 1
            self.discard.append(a - A_CARD)
            return
        options = [A_PLAYER + self._rel(p, q) for q in self._fool_targets(p)]
        a = yield from self._ask(p, options, PK_FOOL_TARGET)
        q = self._abs(p, a - A_PLAYER)
        self.cities[q][self._free_slot(q)] = CityCard(FOOL)
        if self.fool_bonuses:  # option: the Fool still counts as a Critter p played
            if self._has(p, HISTORIAN):
                self._draw(p, 1)
            if self._has(p, SHOPKEEPER):
                self.players[p].resources[BERRY] += 1

    def _card_effect(self, p, t, ctx, k):
        """A Traveler's effect when played, or a green card's production for p; ``ctx`` and
        ``k`` locate the card (its city decides conditions; Miner Mole reads another city)."""
        if COLOR[t] == TRAVELER:
            yield from self._travel(p, t)
        else:
            yield from self._produce(p, t, ctx, k)

    # ---- Production (green) ---------------------------------------------------------------------

    def _produce(self, p, t, ctx, k):
        pl = self.players[p]
        res = pl.resources
        if t == FARM:
            res[BERRY] += 1
        elif t == MINE:
            res[PEBBLE] += 1
        elif t == RESIN_REFINERY:
            res[RESIN] += 1
        elif t == TWIG_BARGE:
            res[TWIG] += 2
        elif t == GENERAL_STORE:
            res[BERRY] += 2 if self._has(ctx, FARM) else 1  # not per Farm
        elif t == BARGE_TOAD:
            res[TWIG] += 2 * self._count(ctx, FARM)
        elif t == FAIRGROUNDS:
            self._draw(p, 2)
        elif t == HUSBAND:
            if self._has(ctx, FARM) and self._husband_paired(ctx, k):
                yield from self._gain_any(p, 1)
        elif t in (DOCTOR, WOODCARVER):
            r = BERRY if t == DOCTOR else TWIG
            n = yield from self._ask_number(p, min(3, res[r]))
            res[r] -= n
            pl.tokens += n
        elif t == MONK:
            n = yield from self._give_resources(p, 0, 2, (BERRY,))
            pl.tokens += 2 * n
        elif t == PEDDLER:
            paid = 0
            while paid < 2 and sum(res) > 0:
                options = [A_RESOURCE + r for r in ALL_RESOURCES if res[r] > 0] + [A_DONE]
                a = yield from self._ask(p, options, PK_PEDDLER_PAY)
                if a == A_DONE:
                    break
                res[a - A_RESOURCE] -= 1
                paid += 1
            yield from self._gain_any(p, paid)
        elif t == TEACHER:
            drawn = self._reveal(2)
            if not drawn:
                return
            a = yield from self._ask(p, [A_REVEALED + i for i in range(len(drawn))], PK_REVEALED)
            i = a - A_REVEALED
            self._take_card(p, drawn[i])
            if len(drawn) == 2:
                other = drawn[1 - i]
                receivers = self._receivers(p, cards=True)
                if receivers:
                    a = yield from self._ask(
                        p, [A_PLAYER + self._rel(p, q) for q in receivers], PK_GIVE_TO
                    )
                    self._take_card(self._abs(p, a - A_PLAYER), other)
                else:
                    self.discard.append(other)
        elif t in (CHIP_SWEEP, MINER_MOLE):
            yield from self._copy_green(p, t, k)
        elif t == STOREHOUSE:
            a = yield from self._ask(p, [A_RESOURCE + r for r in ALL_RESOURCES], PK_STOREHOUSE)
            r = a - A_RESOURCE
            stock = {TWIG: 3, RESIN: 2, PEBBLE: 1, BERRY: 2}[r]
            self.cities[ctx][k].store[r] += stock

    def _copy_green(self, p, t, k):
        """Chip Sweep (own city, another card) / Miner Mole (another city)."""
        options = {}  # action -> (card type, city, slot)
        if t == CHIP_SWEEP:
            for j, c in self._slots(p):
                if j != k and COLOR[c.ctype] == PRODUCTION and c.ctype != CHIP_SWEEP:
                    options[A_CITY + j] = (c.ctype, p, j)
        else:
            banned = (CHIP_SWEEP, MINER_MOLE, STOREHOUSE)
            for r in range(1, self.seats):
                q = self._abs(p, r)
                if self._is_rugwort(q):
                    for c, n in enumerate(self.rug_city):
                        if n and COLOR[c] == PRODUCTION and c not in banned:
                            options[A_CARD + c] = (c, q, -1)
                    continue
                for j, c in self._slots(q):
                    if COLOR[c.ctype] == PRODUCTION and c.ctype not in banned:
                        options[A_CITY + r * CITY_SLOTS + j] = (c.ctype, q, j)
        if not options:
            return
        a = yield from self._ask(p, list(options), PK_COPY_GREEN)
        ctype, q, j = options[a]
        yield from self._produce(p, ctype, q, j)

    def _produce_all(self, p):
        """Every green card of p's city fires once, in the order p picks (EVD-F2, EVD-F4)."""
        waiting = [c for _, c in self._slots(p) if COLOR[c.ctype] == PRODUCTION]
        while True:
            here = {id(c): k for k, c in self._slots(p)}
            waiting = [c for c in waiting if id(c) in here]  # a card that left does not fire
            if not waiting:
                return
            a = yield from self._ask(p, [A_CITY + here[id(c)] for c in waiting], PK_PRODUCE_ORDER)
            k = a - A_CITY
            card = self.cities[p][k]
            waiting.remove(card)
            yield from self._produce(p, card.ctype, p, k)

    # ---- Travelers (tan) ------------------------------------------------------------------------

    def _travel(self, p, t):
        pl = self.players[p]
        if t == BARD:
            n = yield from self._discard(p, 0, 5)
            pl.tokens += n
        elif t == WANDERER:
            self._draw(p, 3)
        elif t == SHEPHERD:
            pl.resources[BERRY] += 3
            k = self._slot_of(p, CHAPEL)
            if k >= 0:
                pl.tokens += self.cities[p][k].tokens
        elif t == RANGER:
            yield from self._ranger(p)
        elif t == POSTAL_PIGEON:
            shown = self._reveal(2)
            options = [A_REVEALED + i for i, c in enumerate(shown) if self._playable_free(p, c)]
            a = yield from self._ask(p, options + [A_DONE], PK_REVEALED)
            keep = -1 if a == A_DONE else a - A_REVEALED
            for i, c in enumerate(shown):
                if i != keep:
                    self.discard.append(c)
            if keep >= 0:
                yield from self._play(p, shown[keep], FREE)
        elif t == UNDERTAKER:
            for _ in range(3):
                options = [A_MEADOW + i for i in range(MEADOW_SIZE) if self._meadow_open(i)]
                if not options:
                    break
                a = yield from self._ask(p, options, PK_MEADOW)
                self.discard.append(self.meadow[a - A_MEADOW])
                self.meadow[a - A_MEADOW] = -1
            self._refill_meadow()
            if pl.hand_n >= HAND_LIMIT:
                return
            options = [A_MEADOW + i for i in range(MEADOW_SIZE) if self._meadow_open(i)]
            if not options:
                return
            a = yield from self._ask(p, options, PK_MEADOW)
            self._take_card(p, self.meadow[a - A_MEADOW])
            self.meadow[a - A_MEADOW] = -1
            self._refill_meadow()

    def _ranger(self, p):
        """Move one deployed worker to a new spot, resolved as a new placement."""
        pl = self.players[p]
        options = [
            A_WORKER + w
            for w, loc in enumerate(pl.workers)
            if loc not in (W_FREE, W_LIMBO) and not pl.permanent[w]
        ]
        if not options:
            return
        # The move is not optional (the card has no "may"; see OPTIONAL_WORKER_MOVE in the test).
        a = yield from self._ask(p, options, PK_WORKER)
        w = a - A_WORKER
        old = pl.workers[w]
        pl.workers[w] = W_FREE
        options = self._placements(p, exclude=old)
        if not options:
            pl.workers[w] = old
            return
        a = yield from self._ask(p, options, PK_PLACE)
        yield from self._place(p, a, w)

    # ---- Destinations (red) and the Storehouse spot (EVD-W4) ------------------------------------

    def _visit(self, p, t, o, k):
        pl = self.players[p]
        if t == CHAPEL:
            card = self.cities[o][k]
            card.tokens += 1
            self._draw(p, 2 * card.tokens)
        elif t == STOREHOUSE:
            card = self.cities[o][k]
            for r in ALL_RESOURCES:
                pl.resources[r] += card.store[r]
            card.store = [0, 0, 0, 0]
        elif t == LOOKOUT:
            options = [A_PLACE_BASIC + i for i in range(len(BASIC_LOCS))]
            options += [
                A_PLACE_FOREST + j
                for j, loc in enumerate(self.forest)
                if self._location_usable(p, loc)
            ]
            a = yield from self._ask(p, options, PK_LOCATION)
            if a < A_PLACE_FOREST:
                yield from self._location(p, BASIC_LOCS[a - A_PLACE_BASIC])
            else:
                yield from self._location(p, self.forest[a - A_PLACE_FOREST])
        elif t == MONASTERY:
            yield from self._give_resources(p, 2, 2, ALL_RESOURCES)
            pl.tokens += 4
        elif t == INN:
            options = [
                A_MEADOW + i
                for i in range(MEADOW_SIZE)
                if self._meadow_open(i) and self._playable_discounted(p, self.meadow[i], 3)
            ]
            a = yield from self._ask(p, options, PK_MEADOW)
            card = self.meadow[a - A_MEADOW]
            self.meadow[a - A_MEADOW] = -1
            self._refill_meadow()
            yield from self._play(p, card, VIA_INN)
        elif t == QUEEN:
            options = [A_CARD + c for c in range(NT) if pl.hand[c] and self._playable_free(p, c)]
            options += [
                A_MEADOW + i
                for i in range(MEADOW_SIZE)
                if self._meadow_open(i) and self._playable_free(p, self.meadow[i])
            ]
            a = yield from self._ask(p, options, PK_HAND_OR_MEADOW)
            if a < A_MEADOW:
                card = a - A_CARD
                pl.hand[card] -= 1
            else:
                card = self.meadow[a - A_MEADOW]
                self.meadow[a - A_MEADOW] = -1
                self._refill_meadow()
            yield from self._play(p, card, FREE)
        elif t == POST_OFFICE:
            given = []
            for _ in range(2):
                options = [A_CARD + c for c in range(NT) if pl.hand[c]]
                a = yield from self._ask(p, options, PK_GIVE_CARD)
                pl.hand[a - A_CARD] -= 1
                given.append(a - A_CARD)
            receivers = self._receivers(p, cards=True)
            if receivers:
                a = yield from self._ask(
                    p, [A_PLAYER + self._rel(p, q) for q in receivers], PK_GIVE_TO
                )
                q = self._abs(p, a - A_PLAYER)
                for c in given:
                    self._take_card(q, c)
            else:
                self.discard.extend(given)
            yield from self._discard(p, 0, HAND_LIMIT)
            self._draw(p, HAND_LIMIT)
        elif t == UNIVERSITY:
            options = [A_CITY + j for j, _ in self._slots(p) if j != k]
            a = yield from self._ask(p, options, PK_REMOVE)
            old = self._remove_card(p, a - A_CITY, perm_dest=city_code(p, k))
            for r in ALL_RESOURCES:
                pl.resources[r] += COST[old][r]
            pl.tokens += 1
            yield from self._gain_any(p, 1)
        elif t == CEMETERY:
            options = []
            if self.deck or self.discard:
                options.append(A_NUMBER)
            if self.discard:
                options.append(A_NUMBER + 1)
            a = yield from self._ask(p, options, PK_PILE)
            if a == A_NUMBER:
                shown = self._reveal(4)
            else:
                shown = []
                for _ in range(min(4, len(self.discard))):
                    shown.append(self.discard.pop())
            options = [A_REVEALED + i for i, c in enumerate(shown) if self._enters(p, c)]
            if not options:
                self.discard.extend(shown)
                return
            a = yield from self._ask(p, options, PK_REVEALED)
            keep = a - A_REVEALED
            for i, c in enumerate(shown):
                if i != keep:
                    self.discard.append(c)
            yield from self._play(p, shown[keep], FREE)

    # ---- events (EVD-W5) ------------------------------------------------------------------------

    def _event(self, p, e):
        pl = self.players[p]
        res = pl.resources
        keep = self.event_points_kept
        if e == EV_MARKETING:
            n = yield from self._give_resources(p, 0, 3, ALL_RESOURCES, each=True)
            keep[e] = min(6, 2 * n)
        elif e == EV_NEW_MANAGEMENT:
            value = 0
            for _ in range(3):
                if sum(res) == 0:
                    break
                options = [A_RESOURCE + r for r in ALL_RESOURCES if res[r] > 0] + [A_DONE]
                a = yield from self._ask(p, options, PK_GIVE_RESOURCE)
                if a == A_DONE:
                    break
                r = a - A_RESOURCE
                res[r] -= 1
                value += 2 if r in (RESIN, PEBBLE) else 1
            keep[e] = min(6, value)
        elif e in (EV_FIREWORKS, EV_PERFORMER):
            r = TWIG if e == EV_FIREWORKS else BERRY
            n = yield from self._ask_number(p, min(3, res[r]))
            res[r] -= n
            keep[e] = 2 * n
        elif e == EV_WEE_RUN:
            options = [
                A_WORKER + w
                for w, loc in enumerate(pl.workers)
                if loc not in (W_FREE, W_EVENT + e) and not pl.permanent[w]
            ]
            if options:  # not optional either (see OPTIONAL_WORKER_MOVE in the test)
                a = yield from self._ask(p, options, PK_WORKER)
                pl.workers[a - A_WORKER] = W_FREE
            keep[e] = 4
        elif e == EV_SCROLLS:
            shown = self._reveal(5)
            while shown and pl.hand_n < HAND_LIMIT:
                options = [A_REVEALED + i for i in range(len(shown))] + [A_DONE]
                a = yield from self._ask(p, options, PK_REVEALED)
                if a == A_DONE:
                    break
                i = a - A_REVEALED
                self._take_card(p, shown[i])
                shown[i] = shown[-1]  # the last revealed card fills the gap
                shown.pop()
            keep[e] = min(5, len(shown))
        elif e in (EV_ACORN, EV_CROAK):
            n = 0
            while n < 2:
                options = [
                    A_CITY + k
                    for k, c in self._slots(p)
                    if e == EV_CROAK or KIND[c.ctype] == CRITTER
                ]
                if not options:
                    break
                if e == EV_ACORN:
                    options.append(A_DONE)
                a = yield from self._ask(p, options, PK_REMOVE)
                if a == A_DONE:
                    break
                self._remove_card(p, a - A_CITY, to_discard=e == EV_CROAK)
                n += 1
            if e == EV_ACORN:
                keep[e] = 3 * n
            else:
                keep[e] = 6
        elif e == EV_GRADUATION:
            n = 0
            while n < 3:
                options = [A_CARD + c for c in range(NT) if pl.hand[c] and KIND[c] == CRITTER]
                if not options:
                    break
                a = yield from self._ask(p, options + [A_DONE], PK_DISCARD)
                if a == A_DONE:
                    break
                pl.hand[a - A_CARD] -= 1
                n += 1
            keep[e] = 2 * n
        elif e == EV_CHAPEL_CEILING:
            k = self._slot_of(p, CHAPEL)
            n = self.cities[p][k].tokens if k >= 0 else 0
            self._draw(p, n)
            yield from self._gain_any(p, n)
        elif e == EV_TAX_RELIEF:
            keep[e] = 3
            yield from self._produce_all(p)

    def _event_points(self, p, e):
        """End points of event e for its owner p."""
        if not EV_SPECIAL[e]:
            return 3
        if e == EV_FLYING_DOCTOR:
            return 3 * sum(self._pairs(o) for o in range(self.seats))
        if e == EV_MINISTERING:
            k = self._slot_of(p, DUNGEON)
            return min(6, 3 * len(self.cities[p][k].jail)) if k >= 0 else 0
        if e in (EV_PILGRIMS, EV_FALLEN):
            t = MONASTERY if e == EV_PILGRIMS else CEMETERY
            k = self._slot_of(p, t)
            return min(6, 3 * self._occupants(city_code(p, k))) if k >= 0 else 0
        if e == EV_CHAPEL_CEILING:
            k = self._slot_of(p, CHAPEL)
            return 2 * self.cities[p][k].tokens if k >= 0 else 0
        if e == EV_GAMES:
            return 9
        return self.event_points_kept[e]

    # ---- prepare for season (EVD-F1..F5) --------------------------------------------------------

    def _prepare(self, p):
        pl = self.players[p]
        tower = self._slot_of(p, CLOCK_TOWER)
        if tower >= 0 and self.cities[p][tower].tokens > 0:
            # Clock Tower: before the recall, pay 1 of its tokens to use a location again.
            options = [
                A_PLACE_BASIC + i
                for i, loc in enumerate(BASIC_LOCS)
                if loc in pl.workers and self._location_usable(p, loc)
            ]
            options += [
                A_PLACE_FOREST + j
                for j, loc in enumerate(self.forest)
                if loc in pl.workers and self._location_usable(p, loc)
            ]
            if options:
                a = yield from self._ask(p, options + [A_DONE], PK_LOCATION)
                if a != A_DONE:
                    self.cities[p][tower].tokens -= 1
                    if a < A_PLACE_FOREST:
                        loc = BASIC_LOCS[a - A_PLACE_BASIC]
                    else:
                        loc = self.forest[a - A_PLACE_FOREST]
                    yield from self._location(p, loc)
        pl.season += 1
        if pl.season in PRODUCTION_SEASONS:  # EVD-F2, EVD-F4
            yield from self._produce_all(p)
        if pl.season == SUMMER:  # EVD-F3: up to 2 Meadow cards, then refill
            for _ in range(2):
                if pl.hand_n >= HAND_LIMIT:
                    break
                options = [A_MEADOW + i for i in range(MEADOW_SIZE) if self._meadow_open(i)]
                if not options:
                    break
                a = yield from self._ask(p, options + [A_DONE], PK_MEADOW)
                if a == A_DONE:
                    break
                self._take_card(p, self.meadow[a - A_MEADOW])
                self.meadow[a - A_MEADOW] = -1
            self._refill_meadow()
        for w in range(len(pl.workers)):  # EVD-F1: recall
            if not pl.permanent[w]:
                pl.workers[w] = W_FREE
        new = NEW_WORKERS[pl.season]
        if self.solo and self.rug_year == 3 and pl.season == AUTUMN:
            new -= 1  # year 3: one of the player's workers leaves the game
        pl.workers += [W_FREE] * new
        pl.permanent += [False] * new
        if self.solo:
            self._rugwort_season(pl.season)

    # ---- solo: Rugwort --------------------------------------------------------------------------

    def _rugwort_play(self):
        """The d8 picks the Meadow card he plays."""
        i = self.rng.randint(MEADOW_SIZE)
        t = self.meadow[i]
        if t < 0:
            return
        self.meadow[i] = -1
        self._refill_meadow()
        if t == FOOL:
            if self._fits(0, FOOL):
                self.cities[0][self._free_slot(0)] = CityCard(FOOL)
            else:
                self.discard.append(FOOL)
            return
        self.rug_city[t] += 1

    def _rugwort_season(self, season):
        for e in BASIC_EVENTS:
            if self.event_owner[e] < 0:
                if self._color_count(RUGWORT, EV_REQ_COLOR[e]) >= EV_REQ_COUNT[e]:
                    self.event_owner[e] = RUGWORT
        self.rug_meadow |= {SPRING: {0}, SUMMER: {1}, AUTUMN: {2, 3}}[season]
        if season == AUTUMN:
            self.rug_forest = -1
            self.rug_journey = RUG_JOURNEY[self.rug_year]
        elif self.rug_forest >= 0:
            self.rug_forest = (self.rug_forest + 1) % len(self.forest)
        if season == SPRING:
            self.rug_basic = LOC_2_RESIN
        elif season == SUMMER:
            self.rug_basic = LOC_1_PEBBLE
        else:
            self.rug_basic = -1 if self.rug_year == 3 else LOC_BERRY_CARD

    # ---- scoring (EVD-E2, EVD-E3) ---------------------------------------------------------------

    def _player_score(self, p):
        pl = self.players[p]
        total = pl.tokens
        basic = special = 0
        for e in range(D.N_EVENTS):
            if self.event_owner[e] == p:
                total += self._event_points(p, e)
                if EV_SPECIAL[e]:
                    special += 1
                else:
                    basic += 1
        for loc in pl.workers:
            if 0 <= loc < D.N_LOCATIONS and LOC_KIND[loc] == D.LOC_JOURNEY:
                total += LOC_POINTS[loc]
        cards = [c.ctype for _, c in self._slots(p)]
        for _, c in self._slots(p):
            total += POINTS[c.ctype] + c.tokens
        for t in cards:
            if t == ARCHITECT:
                total += min(6, pl.resources[RESIN] + pl.resources[PEBBLE])
            elif t == KING:
                total += basic + 2 * special
            elif t == CASTLE:
                total += sum(1 for c in cards if KIND[c] == CONSTRUCTION and not UNIQUE[c])
            elif t == PALACE:
                total += sum(1 for c in cards if KIND[c] == CONSTRUCTION and UNIQUE[c])
            elif t == SCHOOL:
                total += sum(1 for c in cards if KIND[c] == CRITTER and not UNIQUE[c])
            elif t == THEATER:
                total += sum(1 for c in cards if KIND[c] == CRITTER and UNIQUE[c])
            elif t == EVER_TREE:
                total += sum(1 for c in cards if COLOR[c] == PROSPERITY)
        total += 3 * self._pairs(p)  # each Wife with a Husband
        return total

    def _rugwort_score(self):
        total = self.players[RUGWORT].tokens
        for t, n in enumerate(self.rug_city):
            total += n * (3 if COLOR[t] == PROSPERITY else 2)
        total += 3 * sum(1 for e in BASIC_EVENTS if self.event_owner[e] == RUGWORT)
        missed = sum(1 for e in self.specials if self.event_owner[e] != 0)
        total += RUG_MISSED_SPECIAL[self.rug_year] * missed
        if self.rug_journey >= 0:
            total += LOC_POINTS[self.rug_journey]
        return total

    def _finish(self, truncated):
        self.scores = [self.score(p) for p in range(self.seats)]
        if truncated:
            self.truncated = True
            self.winner = None
            return
        self.terminated = True
        s = self.scores
        if self.solo:
            self.winner = 0 if s[0] > s[1] else (1 if s[1] > s[0] else None)
            return
        keys = [
            (
                s[p],
                sum(1 for e in range(D.N_EVENTS) if self.event_owner[e] == p),
                sum(self.players[p].resources),
            )
            for p in range(self.num_players)
        ]
        best = max(keys)
        leaders = [p for p in range(self.num_players) if keys[p] == best]
        self.winner = leaders[0] if len(leaders) == 1 else None
