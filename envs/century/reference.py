"""Slow, plain-Python reference implementation of Century: Spice Road.

Written from the rule sheet (CSR-… IDs, see docs/century.md) and the card tables, not from the
Numba kernel in ``meeple_gym.century.rules``. Only constants are shared with the kernel: the action
layout, the phase numbers, the caps and the state record layout, so that both can be driven
with the same actions and compared field by field (tests/test_century_reference.py).

Everything here is plain ints, lists and sets; it is meant to be easy to check, not fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from meeple_gym.century import data as D
from meeple_gym.century import rules as R
from meeple_gym.century.rules import N_COLOURS
from meeple_gym.core.reference import shuffled
from meeple_gym.core.rng import STREAM_GAME, PyRng, py_derive_key

# Card tables as plain Python values.
KIND = D.MERCHANT_KIND.tolist()
UPGRADE_STEPS = D.MERCHANT_UPGRADES.tolist()
TRADE_IN = D.MERCHANT_IN.tolist()  # a spice card has no input
TRADE_OUT = D.MERCHANT_OUT.tolist()
POINT_PRICE = D.POINT_COST.tolist()
POINT_POINTS = D.POINT_VALUE.tolist()
MARKET_CARD_TYPES = D.DECK_TYPES.tolist()
# CSR-P3/S5: yellow -> red -> green -> brown; brown is the top
UPGRADABLE = (R.YELLOW, R.RED, R.GREEN)


def points_needed_to_end(num_players: int) -> int:
    """CSR-E1: 6 point cards with 2-3 players, 5 with 4-5."""
    return 6 if num_players in (2, 3) else 5


def has_cubes(cubes: list[int], needed: list[int], times: int = 1) -> bool:
    """True when the caravan holds ``needed`` cubes (by colour) ``times`` over."""
    for have, need in zip(cubes, needed, strict=True):
        if have < times * need:
            return False
    return True


@dataclass
class Player:
    cubes: list[int]  # caravan, by colour yellow, red, green, brown
    hand: set[int] = field(default_factory=set)  # merchant types in hand
    played: set[int] = field(default_factory=set)  # merchant types in the played pile
    claimed: list[int] = field(default_factory=list)  # point card ids
    gold: int = 0
    silver: int = 0


@dataclass
class MarketCard:
    card_type: int
    cubes: list[int] = field(default_factory=lambda: [0] * N_COLOURS)  # left on it (CSR-A1)


class ReferenceGame:
    """One game of Century with the action layout of ``meeple_gym.century.rules``."""

    def __init__(self, num_players: int, seed: int, index: int = 0):
        if not R.MIN_PLAYERS <= num_players <= R.MAX_PLAYERS:
            raise ValueError(f"Century needs 2 to 5 players, got {num_players}")
        self.num_players = num_players
        rng = PyRng(py_derive_key(seed, index, STREAM_GAME))

        # CSR-S1: point cards shuffled, 5 face up. The whole shuffled order is kept with a
        # count of cards drawn so far; the rest is the face-down deck.
        self.point_order = shuffled(rng, list(range(R.N_POINT)))
        self.point_row = self.point_order[: R.POINT_ROW_SIZE]
        self.points_drawn = R.POINT_ROW_SIZE
        # CSR-S2: 2 gold and 2 silver coins per player.
        self.gold_left = 2 * num_players
        self.silver_left = 2 * num_players
        # CSR-S4: market cards shuffled, 6 face up.
        self.merchant_order = shuffled(rng, MARKET_CARD_TYPES)
        self.market = [MarketCard(t) for t in self.merchant_order[: R.MARKET_SIZE]]
        self.merchants_drawn = R.MARKET_SIZE
        # CSR-S6: random first player, then seat order.
        self.first_player = rng.randint(num_players)
        self.rng_word = rng.word  # the chance stream is not used after the deal

        self.players = []
        for seat in range(num_players):
            # CSR-S7: starting cubes by position in turn order.
            position = (seat - self.first_player) % num_players
            yellow, red = [(3, 0), (4, 0), (4, 0), (3, 1), (3, 1)][position]
            player = Player(cubes=[yellow, red, 0, 0])
            # CSR-S3: "+2 yellow" and "upgrade 2" in hand.
            player.hand = {D.STARTING_SPICE_TYPE, D.STARTING_UPGRADE_TYPE}
            self.players.append(player)

        self.current_player = self.first_player
        self.phase = R.PHASE_MAIN
        self.end_triggered = False
        self.terminated = False
        self.truncated = False
        self.winner: int | None = None
        self.final_scores: list[int] | None = None
        self.step_count = 0  # sub-decisions taken
        self.turn_count = 0  # completed turns
        self._start_turn_state()

    # ---- turn bookkeeping ------------------------------------------------------------------

    def _start_turn_state(self):
        self.pending_type: int | None = None  # upgrade or trade card being resolved
        self.upgrades_left = 0
        self.acquire_slot: int | None = None  # market slot being bought
        self.cubes_placed = 0  # cubes put on market cards so far this turn

    @property
    def is_over(self) -> bool:
        return self.terminated or self.truncated

    @property
    def player(self) -> Player:
        return self.players[self.current_player]

    # ---- legality --------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        me = self.player
        actions = []
        if self.phase == R.PHASE_MAIN:
            for t in me.hand:
                # CSR-P5: a trade card needs its input at least once.
                if KIND[t] != D.KIND_TRADE or has_cubes(me.cubes, TRADE_IN[t]):
                    actions.append(R.A_PLAY + t)
            for k in range(len(self.market)):
                # CSR-A1/A2: one cube for each card left of slot k.
                if sum(me.cubes) >= k:
                    actions.append(R.A_ACQUIRE + k)
            if me.played:  # CSR-R1: resting needs something to take back
                actions.append(R.A_REST)
            for j, card in enumerate(self.point_row):
                if has_cubes(me.cubes, POINT_PRICE[card]):  # CSR-C1
                    actions.append(R.A_CLAIM + j)
        elif self.phase == R.PHASE_UPGRADE:
            actions += [R.A_UPGRADE + c for c in UPGRADABLE if me.cubes[c] > 0]  # CSR-P3
            actions.append(R.A_STOP)  # CSR-P4
        elif self.phase == R.PHASE_TRADE:
            # CSR-P5: any whole number of times the caravan covers. The turn started with at
            # most 10 cubes and every trade takes at least one, so the layout's cap never binds.
            repeats = 1
            while repeats <= R.MAX_TRADE_REPEATS and has_cubes(
                me.cubes, TRADE_IN[self.pending_type], repeats
            ):
                actions.append(R.A_TRADE + repeats - 1)
                repeats += 1
        elif self.phase == R.PHASE_PAY:
            actions += [R.A_PLACE + c for c in range(N_COLOURS) if me.cubes[c] > 0]  # CSR-A1
        elif self.phase == R.PHASE_DISCARD:
            actions += [R.A_RETURN + c for c in range(N_COLOURS) if me.cubes[c] > 0]  # CSR-K1
        return sorted(actions)

    # ---- applying an action ----------------------------------------------------------------

    def step(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in phase {self.phase}")
        if self.phase == R.PHASE_MAIN:
            self._main_action(action)
        elif self.phase == R.PHASE_UPGRADE:
            self._upgrade_step(action)
        elif self.phase == R.PHASE_TRADE:
            self._trade(action - R.A_TRADE + 1)
        elif self.phase == R.PHASE_PAY:
            self._place_cube(action - R.A_PLACE)
        elif self.phase == R.PHASE_DISCARD:
            self._return_cube(action - R.A_RETURN)
        self.step_count += 1
        # CSR-E4: the step cap ends the game as a truncation.
        if not self.terminated and self.step_count >= R.STEP_CAP:
            self.truncated = True
            self.final_scores = self.scores()
            self.phase = R.PHASE_OVER

    def _main_action(self, action: int):
        if R.A_PLAY <= action < R.A_PLAY + R.N_TYPES:
            self._play(action - R.A_PLAY)
        elif R.A_ACQUIRE <= action < R.A_ACQUIRE + R.MARKET_SIZE:
            slot = action - R.A_ACQUIRE
            if slot == 0:
                self._take_market_card(0)  # CSR-A2: free
                self._action_finished()
            else:
                self.phase = R.PHASE_PAY
                self.acquire_slot = slot
        elif action == R.A_REST:
            # CSR-R1: every played card goes back to hand.
            self.player.hand |= self.player.played
            self.player.played = set()
            self._action_finished()
        else:
            self._claim(action - R.A_CLAIM)
            self._action_finished()

    def _play(self, card_type: int):
        me = self.player
        me.hand.remove(card_type)
        me.played.add(card_type)  # CSR-P1
        if KIND[card_type] == D.KIND_SPICE:
            for c in range(N_COLOURS):  # CSR-P2
                me.cubes[c] += TRADE_OUT[card_type][c]
            self._action_finished()
        elif KIND[card_type] == D.KIND_UPGRADE:
            self.phase = R.PHASE_UPGRADE
            self.pending_type = card_type
            self.upgrades_left = UPGRADE_STEPS[card_type]
        else:
            self.phase = R.PHASE_TRADE
            self.pending_type = card_type

    def _upgrade_step(self, action: int):
        if action == R.A_STOP:  # CSR-P4: stopping early is allowed
            self._action_finished()
            return
        colour = action - R.A_UPGRADE
        self.player.cubes[colour] -= 1
        self.player.cubes[colour + 1] += 1  # CSR-P3: one level up
        self.upgrades_left -= 1
        if self.upgrades_left == 0:
            self._action_finished()

    def _trade(self, repeats: int):
        t = self.pending_type
        for c in range(N_COLOURS):  # CSR-P5
            self.player.cubes[c] += repeats * (TRADE_OUT[t][c] - TRADE_IN[t][c])
        self._action_finished()

    def _place_cube(self, colour: int):
        # CSR-A1: cubes go on the cards left of the target, leftmost first.
        self.player.cubes[colour] -= 1
        self.market[self.cubes_placed].cubes[colour] += 1
        self.cubes_placed += 1
        if self.cubes_placed == self.acquire_slot:
            self._take_market_card(self.acquire_slot)
            self._action_finished()

    def _take_market_card(self, slot: int):
        taken = self.market.pop(slot)  # CSR-A3: the cards to the right slide left
        self.player.hand.add(taken.card_type)
        for c in range(N_COLOURS):  # CSR-A1: with every cube lying on it
            self.player.cubes[c] += taken.cubes[c]
        if self.merchants_drawn < len(self.merchant_order):  # CSR-A3: refill while possible
            self.market.append(MarketCard(self.merchant_order[self.merchants_drawn]))
            self.merchants_drawn += 1

    def _coin_piles(self) -> list[str]:
        """CSR-C3: the coin piles above point slots 0, 1, ... (empty piles are gone)."""
        piles = []
        if self.gold_left > 0:
            piles.append("gold")
        if self.silver_left > 0:
            # Silver lies above the second slot, or above the first once gold is out.
            piles.append("silver")
        return piles

    def _claim(self, slot: int):
        me = self.player
        piles = self._coin_piles()
        card = self.point_row.pop(slot)  # CSR-C2: the cards to the right slide left
        for c in range(N_COLOURS):  # CSR-C1: pay the exact cubes
            me.cubes[c] -= POINT_PRICE[card][c]
        me.claimed.append(card)
        if slot < len(piles):  # CSR-C3
            if piles[slot] == "gold":
                me.gold += 1
                self.gold_left -= 1
            else:
                me.silver += 1
                self.silver_left -= 1
        if self.points_drawn < R.N_POINT:  # CSR-C2: refill while possible
            self.point_row.append(self.point_order[self.points_drawn])
            self.points_drawn += 1
        if len(me.claimed) >= points_needed_to_end(self.num_players):  # CSR-E1
            self.end_triggered = True

    def _action_finished(self):
        # CSR-K1: more than 10 cubes: return cubes one at a time before the turn passes.
        self.pending_type = None
        self.acquire_slot = None
        self.cubes_placed = 0
        if sum(self.player.cubes) > R.CARAVAN_LIMIT:
            self.phase = R.PHASE_DISCARD
        else:
            self._pass_turn()

    def _return_cube(self, colour: int):
        self.player.cubes[colour] -= 1
        if sum(self.player.cubes) <= R.CARAVAN_LIMIT:
            self._pass_turn()

    def _pass_turn(self):
        self.turn_count += 1
        self._start_turn_state()
        self.phase = R.PHASE_MAIN
        next_player = (self.current_player + 1) % self.num_players
        # CSR-E1: after the trigger, the game ends when play would return to the first player,
        # so every player has had the same number of turns.
        if self.end_triggered and next_player == self.first_player:
            self._finish()
        else:
            self.current_player = next_player

    # ---- end and scoring -------------------------------------------------------------------

    def scores(self) -> list[int]:
        """CSR-E2 for every player: points + 3/gold + 1/silver + 1 per non-yellow cube."""
        result = []
        for player in self.players:
            printed = sum(POINT_POINTS[card] for card in player.claimed)
            non_yellow = sum(player.cubes) - player.cubes[R.YELLOW]
            result.append(printed + 3 * player.gold + player.silver + non_yellow)
        return result

    def _finish(self):
        self.final_scores = self.scores()
        turn_order = [(self.first_player + i) % self.num_players for i in range(self.num_players)]
        # CSR-E3: highest score; a tie goes to the player later in turn order.
        best_position = max(
            range(self.num_players),
            key=lambda position: (self.final_scores[turn_order[position]], position),
        )
        self.winner = turn_order[best_position]
        self.terminated = True
        self.phase = R.PHASE_OVER

    # ---- export ----------------------------------------------------------------------------

    def to_record(self, states: np.ndarray, g: int) -> None:
        """Write this game into ``states[g]`` (a ``rules.STATE_DTYPE`` array), every field."""
        caravan = [[0] * N_COLOURS for _ in range(R.MAX_PLAYERS)]
        cards = [[R.NOT_OWNED] * R.N_TYPES for _ in range(R.MAX_PLAYERS)]
        point_owner = [-1] * R.N_POINT
        for seat, player in enumerate(self.players):
            caravan[seat] = list(player.cubes)
            for t in player.hand:
                cards[seat][t] = R.IN_HAND
            for t in player.played:
                cards[seat][t] = R.PLAYED
            for card in player.claimed:
                point_owner[card] = seat
        pad = [0] * (R.MAX_PLAYERS - self.num_players)
        empty_market = R.MARKET_SIZE - len(self.market)
        empty_row = R.POINT_ROW_SIZE - len(self.point_row)
        fields = {
            "rng": [self.rng_word],
            "num_players": self.num_players,
            "first_player": self.first_player,
            "current_player": self.current_player,
            "phase": self.phase,
            "pending_type": -1 if self.pending_type is None else self.pending_type,
            "upgrades_left": self.upgrades_left,
            "acquire_slot": -1 if self.acquire_slot is None else self.acquire_slot,
            "pay_index": self.cubes_placed,
            "end_triggered": int(self.end_triggered),
            "terminated": int(self.terminated),
            "truncated": int(self.truncated),
            "winner": -1 if self.winner is None else self.winner,
            "gold_left": self.gold_left,
            "silver_left": self.silver_left,
            "merchant_deck_top": self.merchants_drawn,
            "point_deck_top": self.points_drawn,
            "step_count": self.step_count,
            "turn_count": self.turn_count,
            "caravan": caravan,
            "cards": cards,
            "gold": [p.gold for p in self.players] + pad,
            "silver": [p.silver for p in self.players] + pad,
            "point_count": [len(p.claimed) for p in self.players] + pad,
            "point_owner": point_owner,
            # The record holds scores only once the game has ended.
            "score": (self.final_scores or [0] * self.num_players) + pad,
            "market": [m.card_type for m in self.market] + [-1] * empty_market,
            "market_cubes": [m.cubes for m in self.market] + [[0] * N_COLOURS] * empty_market,
            "merchant_deck": self.merchant_order,
            "point_row": self.point_row + [-1] * empty_row,
            "point_deck": self.point_order,
        }
        if set(fields) != set(states.dtype.names):
            raise ValueError("state record fields differ from the reference's export")
        # One assignment of a tuple in field order is much faster than field-by-field writes.
        states[g] = tuple(fields[name] for name in states.dtype.names)
