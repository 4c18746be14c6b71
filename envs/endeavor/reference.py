"""Slow, plain-Python reference implementation of Endeavor (the rules text's game, 2-4 players).

Written from the rules checklist (``END-…`` IDs, docs/endeavor.md) and the tables in
``meeple_gym.endeavor.data``, not from the Numba kernel in ``meeple_gym.endeavor.rules``. Only the
*protocol* is shared with the kernel, so that both can be driven with the same actions and
compared step by step (tests/test_endeavor_reference.py): the action layout (``A_*``), the
phase and sub-step numbers (``PH_*``, ``SUB_*``), the token cap of the layout and the step cap.

The whole game is one Python generator: every decision is a ``yield`` of the deciding player,
its phase, sub-step and legal actions; ``step`` sends the chosen action back in.

Protocol followed (the kernel's conventions; where the rules leave a choice, this is the one):

- Slots: the 17 face-up city slots are numbered region by region (Europe 0-3, West Africa 4-6,
  then 2 per region, END-R4). A region opened by a ship gets its first slot dealt at once, the
  others at round end (END-R2, END-O5). Decks and markets are drawn from the end of their list;
  empty market positions are refilled in position order, the empire market before the
  buildings.
- Decisions: a decision with exactly one legal action is taken at once and is not a step. Every
  role's main decision offers ``A_DONE``; a role with 0 strength offers nothing else.
- Setup order (END-S1…S6): start-city picks in snake order from the first player (END-S3), then
  each player in turn order returns empire cards one at a time down to 2 (END-S4); the returned
  cards go on top of the deck, which is then shuffled; the empire then the building market is
  dealt.
- Chance, in ``PyRng`` order (Fisher-Yates from the top, ``j = randint(i + 1)``): at setup
  ``randint(n)`` for the first player; a shuffle of each region's 7 city ids (region order,
  ids in table order); the open slots dealt in slot order; a shuffle of the 20 building ids; for
  each seat 0..n-1 a shuffle of the role ids 0..5 and 3 draws; a shuffle of the 30 empire ids,
  then 3 (4 with 2 players) draws per player in turn order; the empire deck's shuffle after
  the returns (from ``py_derive_key(seed, index, 0)``, the kernel's ``game_key``). At each
  round end, seat by seat, the used role goes aside and one role is drawn; an empty role
  deck is first rebuilt from the set-aside roles in id order (the one just used included) and
  shuffled (END-O2).
- Planning (END-O1): players in ``order`` each choose a role, then 0..min(tokens, layout cap)
  tokens; round 1's ``order`` is seat order from the first player. Execution (END-O3):
  role-number order, more tokens first, ties in ``order``; after the round ``order`` becomes
  this round's execution order (the "previous round's order").
- Strength (END-O4): tokens placed plus 1 per ``role_bonus`` card for the role (ability cards
  stack). Every ship sent and every attack made needs one real token of the role's own:
  ships + attacks < tokens placed. Tokens placed are not taken from the pool; a ship's token
  and a lost force token leave it.
- Sailor: never to Europe; the region before it on its chain must be open (END-R3); cost is the
  travel cost minus 1 per ``travel_discount`` card, never below 1.
- Merchant (END-A2): each owned city once per action (an upgraded city gives 2); the home port
  once per action, for a good of choice (END-S1); each ``extra_good`` card gives 1 of its good
  at the end of a Merchant action that took at least one good.
- Craftsman (END-A3): a market building, an unclaimed slot city (the slot empties) or an
  upgrade (2, once per marker: a city that loses its marker loses its upgrade).
- Commander (END-A4): a ship attack needs force > the owner's ships in the region x defence; a
  city attack needs a city of one's own in the region and force > defence; defence is 1 plus 1
  per ``defence`` card of the defender. Each attack costs 1 force and 1 token for good.
- Governor (END-G): 1 token per settled city, then its settle cost paid one good at a time, each
  with a good of any kind held or one more token from the stack (settling needs enough goods
  and tokens together; a token pays only while the goods held are fewer than those still
  due). With all 3 markers placed, one of them moves to the new city.
- End (END-E1, END-E4): after the round refills, the game ends when every region's city deck is
  empty, the empire deck is empty or round 12 is done. Winners (END-E3): points, then empire
  cards on the board, then tokens in the pool; players still equal share the win. The step cap
  (no END rule) cuts the game off as a truncation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from meeple_gym.core.reference import FlowGame
from meeple_gym.core.rng import STREAM_GAME, PyRng, py_derive_key
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor.rules import (
    A_ATTACK_SHIP,
    A_BUILDING,
    A_DONE,
    A_EMPIRE,
    A_GOOD,
    A_HOME,
    A_PAY_TOKEN,
    A_REGION,
    A_ROLE,
    A_SLOT,
    A_TOKENS,
    A_UPGRADE,
    MAX_TOKENS,
    MAXP,
    PH_EMPIRE_RETURN,
    PH_OVER,
    PH_PLAN_ROLE,
    PH_PLAN_TOKENS,
    PH_ROLE,
    PH_START_CITY,
    STEP_CAP,
    SUB_GOV_MOVE,
    SUB_GOV_PAY,
    SUB_HOME_GOOD,
    SUB_MAIN,
)

# ---- tables as plain Python values ------------------------------------------------------------
N_REGIONS = D.N_REGIONS
N_GOODS = len(D.GOODS)
N_ROLES = D.N_ROLES
EUROPE, WEST_AFRICA = D.EUROPE, D.WEST_AFRICA
SAILOR, MERCHANT, CRAFTSMAN, COMMANDER, POLITICIAN, GOVERNOR = range(6)
TRAVEL = D.REGION_TRAVEL.tolist()
OPEN_AT_START = [bool(x) for x in D.REGION_OPEN_AT_START]
PREVIOUS = [None if x < 0 else x for x in D.REGION_PREVIOUS.tolist()]
SLOT_REGION = [r for r in range(N_REGIONS) for _ in range(int(D.REGION_SLOTS[r]))]
N_SLOTS = len(SLOT_REGION)
REGION_CITIES = D.REGION_CITIES.tolist()
CITY_GOOD = D.CITY_GOOD.tolist()
CITY_SETTLE = D.CITY_SETTLE_COST.tolist()
CITY_BUILD = D.CITY_BUILD_COST.tolist()
EMPIRE_VOTE = D.EMPIRE_VOTE_COST.tolist()
EMPIRE_CONDITION = D.EMPIRE_CONDITION.tolist()
EMPIRE_CONDITION_REGION = D.EMPIRE_CONDITION_REGION.tolist()
EMPIRE_CONDITION_COUNT = D.EMPIRE_CONDITION_COUNT.tolist()
BUILDING_COST = D.BUILDING_WORK_COST.tolist()

# Cards on a player board (END-B1): (kind, id).
CITY, BUILDING, EMPIRE = "city", "building", "empire"
CARD_POINTS = {
    CITY: D.CITY_POINTS.tolist(),
    BUILDING: D.BUILDING_POINTS.tolist(),
    EMPIRE: D.EMPIRE_POINTS.tolist(),
}
CARD_ABILITY = {
    CITY: list(zip(D.CITY_ABILITY.tolist(), D.CITY_ABILITY_ARG.tolist(), strict=True)),
    BUILDING: list(zip(D.BUILDING_ABILITY.tolist(), D.BUILDING_ABILITY_ARG.tolist(), strict=True)),
    EMPIRE: list(zip(D.EMPIRE_ABILITY.tolist(), D.EMPIRE_ABILITY_ARG.tolist(), strict=True)),
}
CITY_POINTS = CARD_POINTS[CITY]


def shuffle(rng: PyRng, items: list) -> None:
    """Fisher-Yates in place from the top: for i = n-1 .. 1 swap item i with item randint(i+1)."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randint(i + 1)
        items[i], items[j] = items[j], items[i]


@dataclass
class Slot:
    region: int
    city: int | None = None
    owner: int | None = None  # the seat whose marker is on the city
    upgraded: bool = False


@dataclass
class Player:
    tokens: int  # the pool on the player board (END-S1); ships and lost tokens leave it
    lost: int = 0  # force tokens gone for good (END-A4)
    goods: list[int] = field(default_factory=lambda: [0] * N_GOODS)
    ships: list[int] = field(default_factory=lambda: [0] * N_REGIONS)
    board: list[tuple[str, int]] = field(default_factory=list)
    empire_hand: set[int] = field(default_factory=set)
    role_deck: list[int] = field(default_factory=list)  # top = last
    role_hand: set[int] = field(default_factory=set)
    role_aside: set[int] = field(default_factory=set)
    role: int | None = None  # this round's role
    placed: int = 0  # tokens on it


@dataclass
class Pending:
    decider: int
    phase: int
    sub: int
    actions: list[int]


class ReferenceGame(FlowGame):
    """One game of Endeavor with the action layout of ``meeple_gym.endeavor.rules``."""

    step_cap = STEP_CAP

    def __init__(self, num_players: int, seed: int, index: int = 0):
        if not 2 <= num_players <= 4:
            raise ValueError(f"Endeavor needs 2 to 4 players, got {num_players}")
        self.num_players = num_players
        self.rng = PyRng(py_derive_key(seed, index, STREAM_GAME))
        self.step_count = 0
        self.round = 1
        self.terminated = False
        self.truncated = False
        self.winners: list[int] = []  # seats sharing the win (END-E3)
        self.final_scores: list[int] | None = None
        # The role being executed.
        self.strength = 0
        self.used = 0
        self._setup()
        self._flow = self._game()
        self._pending = self._advance(None)

    # ---- setup (END-S1…S6) ------------------------------------------------------------------

    def _setup(self):
        n, rng = self.num_players, self.rng
        self.first_player = rng.randint(n)  # END-S6
        self.order = [(self.first_player + i) % n for i in range(n)]
        self.players = [Player(tokens=D.TOKENS_BY_PLAYERS[n]) for _ in range(n)]  # END-S1
        # END-R2, END-S2: city decks by region; Europe and West Africa open and dealt.
        self.region_open = list(OPEN_AT_START)
        self.region_decks = []
        for r in range(N_REGIONS):
            deck = list(REGION_CITIES[r])
            shuffle(rng, deck)
            self.region_decks.append(deck)
        self.slots = [Slot(region=r) for r in SLOT_REGION]
        for k, slot in enumerate(self.slots):
            if self.region_open[slot.region]:
                self._deal_city(k)
        # END-S5: buildings shuffled (their market is dealt after the empire returns).
        self.building_deck = list(range(D.N_BUILDINGS))
        shuffle(rng, self.building_deck)
        self.building_market: list[int | None] = [None] * D.BUILDING_MARKET
        # END-O2: each player's 6 roles shuffled, 3 in hand.
        for pl in self.players:
            pl.role_deck = list(range(N_ROLES))
            shuffle(rng, pl.role_deck)
            for _ in range(D.ROLE_HAND):
                self._draw_role(pl)
        # END-S4: empire cards drawn in turn order (returned during the setup decisions).
        self.empire_deck = list(range(D.N_EMPIRE))
        shuffle(rng, self.empire_deck)
        self.empire_market: list[int | None] = [None] * D.EMPIRE_MARKET
        for p in self.order:
            for _ in range(D.EMPIRE_DRAW[n]):
                self.players[p].empire_hand.add(self.empire_deck.pop())

    def _deal_city(self, k):
        deck = self.region_decks[self.slots[k].region]
        if deck:
            self.slots[k].city = deck.pop()

    def _draw_role(self, pl: Player):
        """END-O2: the top role; an empty deck is first rebuilt from the set-aside roles."""
        if not pl.role_deck:
            pl.role_deck = sorted(pl.role_aside)
            pl.role_aside = set()
            shuffle(self.rng, pl.role_deck)
        if pl.role_deck:
            pl.role_hand.add(pl.role_deck.pop())

    def _refill_markets(self):
        for market, deck in ((self.empire_market, self.empire_deck),
                             (self.building_market, self.building_deck)):  # fmt: skip
            for i in range(len(market)):
                if market[i] is None and deck:
                    market[i] = deck.pop()

    # ---- the public interface -------------------------------------------------------------

    @property
    def phase(self) -> int:
        return PH_OVER if self._pending is None else self._pending.phase

    @property
    def sub(self) -> int:
        return SUB_MAIN if self._pending is None else self._pending.sub

    @property
    def winner(self) -> int | None:
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def scores(self) -> list[int]:
        """END-E2 for every player: the final scores once over, else the running ones."""
        if self.final_scores is not None:
            return list(self.final_scores)
        return [self.score(p) for p in range(self.num_players)]

    # ---- decisions --------------------------------------------------------------------------

    def _ask(self, decider, phase, sub, actions):
        """A decision; one legal action is taken at once without a step."""
        actions = sorted(set(actions))
        if not actions:
            raise RuntimeError(f"decision {phase}/{sub} with no legal action")
        if len(actions) == 1:
            return actions[0]
        choice = yield Pending(decider, phase, sub, actions)
        return choice

    # ---- cards and counts -------------------------------------------------------------------

    def _count(self, p, ability, arg=None) -> int:
        """Cards on p's board with ``ability`` (and argument ``arg``; None: any)."""
        n = 0
        for kind, cid in self.players[p].board:
            ab, a = CARD_ABILITY[kind][cid]
            if ab == ability and (arg is None or a == arg):
                n += 1
        return n

    def _add_to_board(self, p, kind, cid):
        """END-B1/B2; an extra_tokens card grows the pool as it enters the board."""
        pl = self.players[p]
        pl.board.append((kind, cid))
        ab, arg = CARD_ABILITY[kind][cid]
        if ab == D.ABILITY_EXTRA_TOKENS:
            pl.tokens += arg

    def travel_cost(self, p, r) -> int:
        """END-R1, END-R3: 1 lower per travel-discount card, never below 1."""
        return max(1, TRAVEL[r] - self._count(p, D.ABILITY_TRAVEL_DISCOUNT))

    def defence(self, q) -> int:
        """END-A4: each ship and city defends with 1, plus 1 per defence card of its owner."""
        return 1 + self._count(q, D.ABILITY_DEFENCE)

    def cities_held(self, p, region=None) -> int:
        """Cities holding p's marker (in ``region``; None: anywhere)."""
        return sum(1 for s in self.slots if s.owner == p and region in (None, s.region))

    def condition_met(self, p, e) -> bool:
        """END-A5: the empire card's condition, when it is taken."""
        cond, need = EMPIRE_CONDITION[e], EMPIRE_CONDITION_COUNT[e]
        region = EMPIRE_CONDITION_REGION[e]
        if cond == D.COND_CITIES_IN_REGION:
            return self.cities_held(p, region) >= need
        if cond == D.COND_SHIPS_IN_REGION:
            return self.players[p].ships[region] >= need
        if cond == D.COND_CITIES_TOTAL:
            return self.cities_held(p) >= need
        assert cond == D.COND_GOODS_TOTAL  # every card has a condition (END-A5)
        return sum(self.players[p].goods) >= need

    def score(self, p) -> int:
        """END-E2: marker cities (+1 per upgrade), board cards, 1 per 3 goods, and 1 per marker
        city of a region-points card's region."""
        total = sum(CITY_POINTS[s.city] + int(s.upgraded) for s in self.slots if s.owner == p)
        for kind, cid in self.players[p].board:
            total += CARD_POINTS[kind][cid]
            ab, arg = CARD_ABILITY[kind][cid]
            if ab == D.ABILITY_REGION_POINTS:
                total += self.cities_held(p, arg)
        return total + sum(self.players[p].goods) // 3

    # ---- the game ---------------------------------------------------------------------------

    def _game(self):
        yield from self._start_cities()
        yield from self._empire_returns()
        while True:
            yield from self._planning()
            self.exec_order = sorted(
                self.order, key=lambda p: (self.players[p].role, -self.players[p].placed)
            )  # END-O3 (a stable sort keeps ``order`` for ties)
            for p in self.exec_order:
                yield from self._execute(p)
            if self._end_round():
                break
        self._finish(truncated=False)

    def _start_cities(self):
        """END-S3: snake order from the first player, any open city, at no cost."""
        for offset in D.STARTING_PICK_ORDER[self.num_players]:
            p = (self.first_player + offset) % self.num_players
            free = [k for k, s in enumerate(self.slots) if s.city is not None and s.owner is None]
            a = yield from self._ask(p, PH_START_CITY, SUB_MAIN, [A_SLOT + k for k in free])
            self.slots[a - A_SLOT].owner = p

    def _empire_returns(self):
        """END-S4: each player keeps 2; the rest go back and the deck is shuffled; 3 face up."""
        for p in self.order:
            hand = self.players[p].empire_hand
            while len(hand) > D.EMPIRE_KEEP:
                a = yield from self._ask(
                    p, PH_EMPIRE_RETURN, SUB_MAIN, [A_EMPIRE + e for e in hand]
                )
                hand.remove(a - A_EMPIRE)
                self.empire_deck.append(a - A_EMPIRE)
        shuffle(self.rng, self.empire_deck)
        self._refill_markets()

    def _planning(self):
        """END-O1: a hidden role and token count from every player."""
        for pl in self.players:
            pl.role = None
            pl.placed = 0
        for p in self.order:
            pl = self.players[p]
            a = yield from self._ask(p, PH_PLAN_ROLE, SUB_MAIN, [A_ROLE + r for r in pl.role_hand])
            pl.role = a - A_ROLE
            most = min(pl.tokens, MAX_TOKENS)
            a = yield from self._ask(
                p, PH_PLAN_TOKENS, SUB_MAIN, [A_TOKENS + t for t in range(most + 1)]
            )
            pl.placed = a - A_TOKENS

    def _end_round(self) -> bool:
        """END-O5, then END-E1/E4; True when the game ends."""
        for pl in self.players:
            pl.role_hand.remove(pl.role)
            pl.role_aside.add(pl.role)
            self._draw_role(pl)
        self.order = list(self.exec_order)
        for k, slot in enumerate(self.slots):
            if slot.city is None and self.region_open[slot.region]:
                self._deal_city(k)
        self._refill_markets()
        cities_left = sum(len(deck) for deck in self.region_decks)
        if cities_left == 0 or not self.empire_deck or self.round >= D.ROUND_LIMIT:
            return True
        self.round += 1
        return False

    def _finish(self, truncated):
        self.final_scores = [self.score(p) for p in range(self.num_players)]
        if truncated:
            self.truncated = True
            return
        self.terminated = True

        def key(p):  # END-E3
            pl = self.players[p]
            empire = sum(1 for kind, _ in pl.board if kind == EMPIRE)
            return (self.final_scores[p], empire, pl.tokens)

        best = max(key(p) for p in range(self.num_players))
        self.winners = [p for p in range(self.num_players) if key(p) == best]

    # ---- executing a role (END-A1…A5, END-G) ------------------------------------------------

    def _execute(self, p):
        pl = self.players[p]
        role = pl.role
        # END-O4: a unit per token, plus 1 per card that strengthens the role.
        self.strength = pl.placed + self._count(p, D.ABILITY_ROLE_BONUS, role)
        self.used = 0  # ships sent / attacks made, each needing one placed token
        self.cities_used: set[int] = set()
        self.home_used = False
        self.took_goods = False
        options = {
            SAILOR: self._sailor_options,
            MERCHANT: self._merchant_options,
            CRAFTSMAN: self._craftsman_options,
            COMMANDER: self._commander_options,
            POLITICIAN: self._politician_options,
            GOVERNOR: self._governor_options,
        }[role]
        while True:
            legal = options(p) if self.strength > 0 else []
            a = yield from self._ask(p, PH_ROLE, SUB_MAIN, legal + [A_DONE])
            if a == A_DONE:
                break
            yield from self._role_action(p, role, a)
        if role == MERCHANT and self.took_goods:
            for kind, cid in pl.board:  # END-B2: extra_good, once per Merchant action
                ab, arg = CARD_ABILITY[kind][cid]
                if ab == D.ABILITY_EXTRA_GOOD:
                    pl.goods[arg] += 1

    def _real_token_left(self, p) -> bool:
        return self.used < self.players[p].placed

    def _sailor_options(self, p):
        legal = []
        if not self._real_token_left(p):
            return legal
        for r in range(N_REGIONS):
            if r == EUROPE:  # END-R4
                continue
            prev = PREVIOUS[r]
            if prev is not None and not self.region_open[prev]:  # END-R3
                continue
            if self.travel_cost(p, r) <= self.strength:
                legal.append(A_REGION + r)
        return legal

    def _merchant_options(self, p):
        legal = [
            A_SLOT + k
            for k, s in enumerate(self.slots)
            if s.owner == p and k not in self.cities_used
        ]
        if not self.home_used:
            legal.append(A_HOME)
        return legal

    def _craftsman_options(self, p):
        legal = []
        room = len(self.players[p].board) < D.BOARD_SLOTS
        for i, b in enumerate(self.building_market):
            if b is not None and room and BUILDING_COST[b] <= self.strength:
                legal.append(A_BUILDING + i)
        for k, s in enumerate(self.slots):
            if s.city is not None and s.owner is None and room:
                if CITY_BUILD[s.city] <= self.strength:
                    legal.append(A_SLOT + k)
            if s.owner == p and not s.upgraded and self.strength >= D.UPGRADE_COST:
                legal.append(A_UPGRADE + k)
        return legal

    def _commander_options(self, p):
        legal = []
        if not self._real_token_left(p):
            return legal
        n = self.num_players
        for r in range(N_REGIONS):
            for q in range(n):
                ships = self.players[q].ships[r]
                if q != p and ships > 0 and self.strength > ships * self.defence(q):
                    legal.append(A_ATTACK_SHIP + r * MAXP + (q - p) % n)
        for k, s in enumerate(self.slots):
            q = s.owner
            if q is None or q == p or self.cities_held(p, s.region) == 0:
                continue
            if self.strength > self.defence(q):
                legal.append(A_SLOT + k)
        return legal

    def _politician_options(self, p):
        pl = self.players[p]
        if len(pl.board) >= D.BOARD_SLOTS:
            return []
        offered = pl.empire_hand | {e for e in self.empire_market if e is not None}
        return [
            A_EMPIRE + e
            for e in offered
            if EMPIRE_VOTE[e] <= self.strength and self.condition_met(p, e)
        ]

    def _governor_options(self, p):
        pl = self.players[p]
        legal = []
        for k, s in enumerate(self.slots):
            if s.city is None or s.owner is not None:
                continue
            if s.region not in (EUROPE, WEST_AFRICA) and pl.ships[s.region] == 0:
                continue
            missing = max(0, CITY_SETTLE[s.city] - sum(pl.goods))
            if 1 + missing <= self.strength:
                legal.append(A_SLOT + k)
        return legal

    def _role_action(self, p, role, a):
        pl = self.players[p]
        if role == SAILOR:  # END-A1, END-R2
            r = a - A_REGION
            self.strength -= self.travel_cost(p, r)
            self.used += 1
            pl.ships[r] += 1
            pl.tokens -= 1  # one spent token stays in the region as the ship
            if not self.region_open[r]:
                self.region_open[r] = True
                self._deal_city(SLOT_REGION.index(r))
        elif role == MERCHANT:  # END-A2
            self.strength -= 1
            if a == A_HOME:
                self.home_used = True
                g = yield from self._ask(
                    p, PH_ROLE, SUB_HOME_GOOD, [A_GOOD + g for g in range(N_GOODS)]
                )
                pl.goods[g - A_GOOD] += 1
            else:
                k = a - A_SLOT
                self.cities_used.add(k)
                slot = self.slots[k]
                pl.goods[CITY_GOOD[slot.city]] += 2 if slot.upgraded else 1
            self.took_goods = True
        elif role == CRAFTSMAN:  # END-A3
            if A_BUILDING <= a < A_BUILDING + D.BUILDING_MARKET:
                i = a - A_BUILDING
                b = self.building_market[i]
                self.strength -= BUILDING_COST[b]
                self.building_market[i] = None
                self._add_to_board(p, BUILDING, b)
            elif A_UPGRADE <= a < A_UPGRADE + N_SLOTS:
                self.strength -= D.UPGRADE_COST
                self.slots[a - A_UPGRADE].upgraded = True
            else:
                slot = self.slots[a - A_SLOT]
                c = slot.city
                self.strength -= CITY_BUILD[c]
                slot.city = None
                self._add_to_board(p, CITY, c)
        elif role == COMMANDER:  # END-A4
            self.strength -= 1
            self.used += 1
            pl.lost += 1
            pl.tokens -= 1
            if a >= A_ATTACK_SHIP:
                r, rel = divmod(a - A_ATTACK_SHIP, MAXP)
                q = (p + rel) % self.num_players
                self.players[q].ships[r] -= 1
                self.players[q].tokens += 1  # the sunk ship's token goes home
            else:
                slot = self.slots[a - A_SLOT]
                slot.owner = None
                slot.upgraded = False
        elif role == POLITICIAN:  # END-A5
            e = a - A_EMPIRE
            self.strength -= EMPIRE_VOTE[e]
            if e in pl.empire_hand:
                pl.empire_hand.remove(e)
            else:
                self.empire_market[self.empire_market.index(e)] = None
            self._add_to_board(p, EMPIRE, e)
        else:  # END-G
            k = a - A_SLOT
            self.strength -= 1
            cost = CITY_SETTLE[self.slots[k].city]
            for paid in range(cost):
                pay = [A_GOOD + g for g in range(N_GOODS) if pl.goods[g] > 0]
                if self.strength >= 1 and sum(pl.goods) < cost - paid:  # missing goods only
                    pay.append(A_PAY_TOKEN)
                b = yield from self._ask(p, PH_ROLE, SUB_GOV_PAY, pay)
                if b == A_PAY_TOKEN:
                    self.strength -= 1
                else:
                    pl.goods[b - A_GOOD] -= 1
            if self.cities_held(p) >= D.MARKERS:
                own = [A_SLOT + j for j, s in enumerate(self.slots) if s.owner == p]
                b = yield from self._ask(p, PH_ROLE, SUB_GOV_MOVE, own)
                old = self.slots[b - A_SLOT]
                old.owner = None  # that city becomes free
                old.upgraded = False
            self.slots[k].owner = p

    # ---- comparison form ----------------------------------------------------------------------

    def projection(self) -> dict:
        """The state in a canonical form that the test also builds from a kernel record."""
        players = self.players
        in_role = self.phase == PH_ROLE
        return {
            "decider": self.decider,
            "phase": self.phase,
            "sub": self.sub if in_role else SUB_MAIN,
            "round": self.round,
            "first_player": self.first_player,
            "order": list(self.order),
            "tokens": [pl.tokens for pl in players],
            "lost": [pl.lost for pl in players],
            "roles": [pl.role for pl in players],
            "placed": [pl.placed for pl in players],
            "goods": [list(pl.goods) for pl in players],
            "ships": [list(pl.ships) for pl in players],
            "boards": [list(pl.board) for pl in players],
            "empire_hands": [sorted(pl.empire_hand) for pl in players],
            "role_hands": [sorted(pl.role_hand) for pl in players],
            "role_decks": [list(pl.role_deck) for pl in players],
            "role_aside": [sorted(pl.role_aside) for pl in players],
            "region_open": [bool(x) for x in self.region_open],
            "region_decks": [list(d) for d in self.region_decks],
            "slots": [(s.city, s.owner, s.upgraded) for s in self.slots],
            "empire_deck": list(self.empire_deck),
            "empire_market": list(self.empire_market),
            "building_deck": list(self.building_deck),
            "building_market": list(self.building_market),
            "strength": self.strength if in_role else None,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "winners": list(self.winners),
        }
