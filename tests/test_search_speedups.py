"""Speed-ups of the ISMCTS play-outs keep the decisions: the Everdell heuristic fills a card's
worth and keep value, and its gain weights, on first use and its token-pays flags in one pass
over the slots, and must pick what the eager board (all of them filled before deciding, as
they were) picks, on positions from heuristic self-play and random play. Its play-outs, and
Radlands', read the compact observation: the board decoded from it must be the full
observation's, field by field, and the action the same. Endeavor's play-outs fill the
heuristic's view straight from the record: it must be the view decoded from the compact (and
so the full) observation, field by field, with the same action.
The Century heuristic's cube distance (written out for four colours) and the Endeavor
heuristic's knapsack (a table over the items that can be taken only) are checked against the
loops they replaced, on arbitrary input."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import meeple_gym as mg
from meeple_gym.baselines import endeavor_heuristic as EH
from meeple_gym.baselines import everdell_heuristic as H
from meeple_gym.baselines import radlands_heuristic as RH
from meeple_gym.baselines.evaluate import make_agent
from meeple_gym.core.jit import game_kernel, rebind
from meeple_gym.core.masks import _legal_or  # noqa: F401 - bound in the kernel below
from meeple_gym.core.sampling import policy_words, random_legal_actions
from meeple_gym.encoders import endeavor as EE
from meeple_gym.encoders import everdell as E
from meeple_gym.encoders import radlands as RE


def _eager_and_lazy(obs, masks, out):
    """``out[i, 0]``: the decision with the gain weights and every worth and keep value
    filled before deciding (-2 if ``free_play`` differs from ``_token_pays``); ``out[i, 1]``:
    ``heuristic_action`` (values filled on first use)."""
    boards = _boards_with(DEFAULT_COEFFICIENTS)  # noqa: F821 - bound below
    for i in range(obs.shape[0]):
        b = boards[0]
        _decode(obs[i], b)  # noqa: F821
        _gains(b)  # noqa: F821 - gw and need right after decoding, as they once were
        for t in range(NT):  # noqa: F821
            if b.free_play[t] != (1 if _token_pays(b, t) else 0):  # noqa: F821
                out[i, 0] = -2  # the one-pass free_play disagrees with its definition
        for t in range(NT):  # noqa: F821
            _worth(b, t)  # noqa: F821
        for t in range(NT):  # noqa: F821
            _keep(b, t)  # noqa: F821
        if out[i, 0] != -2:
            out[i, 0] = _legal_or(_decide(b, masks[i]), masks[i], -1)  # noqa: F821
        out[i, 1] = heuristic_action(obs[i], masks[i])  # noqa: F821


def _decisions(game, size, seed, heuristic_share, num_players):
    """Every decision of ``size`` games, the first ``heuristic_share`` of them played by the
    heuristic, the rest at random: the full (``obs``) and compact observations, masks, records
    (``states``) and players to act."""
    batch = mg.make_batch(game, size, num_players, seed)
    compact_spec = mg.get_spec(game).with_observation("compact")
    obs = batch.reset()
    agent = make_agent("heuristic", game, seed)
    words = policy_words(seed, size)
    random_actions = np.zeros(size, dtype=np.int64)
    use_heuristic = np.arange(size) < heuristic_share
    seen = {"obs": [], "masks": [], "compact": [], "states": [], "players": []}
    for _ in range(600):
        live = (batch.states["terminated"] == 0) & (batch.states["truncated"] == 0)
        if not live.any():
            break
        states = batch.get_states()
        players = states["current_player"].astype(np.int64)
        compact = np.zeros((size, compact_spec.obs_size), np.float32)
        compact_spec.encode_batch(states, players, compact)
        parts = (obs.astype(np.float32), batch.legal_mask.astype(np.int8), compact, states, players)
        for key, part in zip(seen, parts, strict=True):
            seen[key].append(part[live])
        random_legal_actions(batch.legal_mask, words, random_actions)
        actions = np.where(use_heuristic, agent.act_batch(obs, batch.legal_mask), random_actions)
        obs, *_ = batch.step(actions)
    return {key: np.concatenate(parts) for key, parts in seen.items()}


def _positions(size, seed, heuristic_share, num_players=2, compact=False, game="everdell"):
    """Observations and masks of every decision (``_decisions``); with ``compact`` also the
    compact observations of the same decisions."""
    seen = _decisions(game, size, seed, heuristic_share, num_players)
    if compact:
        return seen["obs"], seen["masks"], seen["compact"]
    return seen["obs"], seen["masks"]


def test_everdell_heuristic_lazy_board_decides_like_the_eager_one():
    namespace = dict(vars(H))
    namespace["_legal_or"] = _legal_or
    kernel = game_kernel(rebind(_eager_and_lazy, namespace), "everdell")
    obs, masks = _positions(8, seed=11, heuristic_share=5)
    out = np.zeros((obs.shape[0], 2), dtype=np.int64)
    kernel(np.ascontiguousarray(obs), np.ascontiguousarray(masks), out)
    assert obs.shape[0] > 1000
    assert (out[:, 0] >= 0).all()
    np.testing.assert_array_equal(out[:, 1], out[:, 0])


def _full_and_compact(full, compact, masks, full_boards, compact_boards, actions):
    """Each position's board decoded from its full and from its compact observation, and the
    heuristic's action from each."""
    for i in range(full.shape[0]):
        _decode(full[i], full_boards[i])  # noqa: F821 - bound below
        _decode_compact(compact[i], compact_boards[i])  # noqa: F821
        _fill_lazy(full_boards[i])  # noqa: F821
        _fill_lazy(compact_boards[i])  # noqa: F821
        actions[i, 0] = heuristic_action(full[i], masks[i])  # noqa: F821
        actions[i, 1] = heuristic_action_compact(compact[i], masks[i])  # noqa: F821


def _everdell_fill_lazy(b):
    """The Everdell board's values filled on first use, all of them."""
    _gains(b)  # noqa: F821 - bound below
    for t in range(NT):  # noqa: F821
        _worth(b, t)  # noqa: F821
        _keep(b, t)  # noqa: F821


def _nothing_lazy(b):
    """The Radlands board and the Endeavor view fill every field a decision reads when
    decoded."""


def _compact_check_kernel(game, heuristic, fill_lazy):
    namespace = dict(vars(heuristic))
    namespace["_fill_lazy"] = game_kernel(rebind(fill_lazy, namespace), game)
    return game_kernel(rebind(_full_and_compact, namespace), game)


def _assert_boards_and_actions_agree(kernel, board_dtype, full, compact, masks, label):
    full_boards = np.zeros(full.shape[0], board_dtype)
    compact_boards = np.zeros(full.shape[0], board_dtype)
    actions = np.zeros((full.shape[0], 2), np.int64)
    kernel(full, compact, masks, full_boards, compact_boards, actions)
    for name in board_dtype.names:
        np.testing.assert_array_equal(
            compact_boards[name], full_boards[name], err_msg=f"{label} field {name}"
        )
    assert (actions[:, 0] >= 0).all()
    np.testing.assert_array_equal(actions[:, 1], actions[:, 0])


def test_everdell_heuristic_reads_the_compact_observation_as_the_full_one():
    kernel = _compact_check_kernel("everdell", H, _everdell_fill_lazy)
    # Solo (Rugwort's fields), two and four players; heuristic and random play.
    for num_players, size, share in ((1, 4, 2), (2, 6, 3), (4, 4, 2)):
        full, masks, compact = _positions(size, 5 + num_players, share, num_players, True)
        assert full.shape[0] > 300
        # The compact kernel's vector is the slow reference's, so the test reads real input.
        for i in range(0, full.shape[0], 97):
            np.testing.assert_array_equal(compact[i], E.compact_from_full(full[i]))
        _assert_boards_and_actions_agree(
            kernel, H.BOARD_DTYPE, full, compact, masks, f"{num_players}p"
        )


def test_radlands_heuristic_reads_the_compact_observation_as_the_full_one():
    """Every decision of heuristic and random games, draft to the end: the same board (the
    decision's context too: pending op, program, step, source, picked card, revealed cards,
    offered camps) and the same action from either observation."""
    kernel = _compact_check_kernel("radlands", RH, _nothing_lazy)
    full, masks, compact = _positions(16, 23, 8, 2, True, game="radlands")
    assert full.shape[0] > 3000
    phases = compact[:, RE.K_PHASE].astype(int) - 1
    ops = set(compact[phases == 2, RE.K_PEND_OP].astype(int).tolist())
    assert {0, 1, 2} <= set(phases.tolist()) and len(ops) > 10  # draft, actions, many decisions
    for i in range(0, full.shape[0], 53):
        np.testing.assert_array_equal(compact[i], RE.compact_from_full(full[i]))
    _assert_boards_and_actions_agree(kernel, RH.BOARD_DTYPE, full, compact, masks, "radlands")


def test_endeavor_heuristic_reads_the_compact_observation_as_the_full_one():
    """Every decision of 2-, 3- and 4-player heuristic and random games: the same view (board
    cards' abilities, slots, markets, own role...) and the same action from either observation."""
    kernel = _compact_check_kernel("endeavor", EH, _nothing_lazy)
    for num_players in (2, 3, 4):
        full, masks, compact = _positions(6, 31 + num_players, 3, num_players, True, "endeavor")
        assert full.shape[0] > 600
        phases = set((compact[:, EE.C_PHASE].astype(int) - 1).tolist())
        assert phases >= set(range(5))  # start city, return card, plan role, tokens, role
        for i in range(0, full.shape[0], 41):
            np.testing.assert_array_equal(compact[i], EE.compact_from_full(full[i]))
        _assert_boards_and_actions_agree(
            kernel, EH.VIEW_DTYPE, full, compact, masks, f"endeavor {num_players}p"
        )


def _records(game, size, seed, heuristic_share, num_players):
    """The records, players to act, compact observations and masks of every decision
    (``_decisions``)."""
    seen = _decisions(game, size, seed, heuristic_share, num_players)
    return seen["states"], seen["players"], seen["compact"], seen["masks"]


# What the encoder's view and the decoders fill; the rest of the view is the plans' scratch.
_VIEW_FIELDS = EH.VIEW_DTYPE.names[: EH.VIEW_DTYPE.names.index("k_cost")]


def test_endeavor_view_from_the_record_is_the_decoded_compact_observation():
    """Every decision of 2-, 3- and 4-player heuristic and random games, each seen by the
    player to act: ``view_into`` (the play-outs' view, written from the record) equals the
    compact observation decoded, field by field, and the heuristic's action is the same."""
    for num_players in (2, 3, 4):
        states, players, compact, masks = _records("endeavor", 6, 41 + num_players, 3, num_players)
        assert states.shape[0] > 600
        assert set(states["phase"].tolist()) >= set(range(5))
        from_record = np.zeros(1, EH.VIEW_DTYPE)
        decoded = np.zeros(1, EH.VIEW_DTYPE)
        for i in range(states.shape[0]):
            EH.view_into(states, i, players[i], from_record)
            action = EH.heuristic_action_view(from_record, masks[i])
            EH._decode_compact(compact[i], decoded[0])
            for name in _VIEW_FIELDS:
                np.testing.assert_array_equal(
                    from_record[name], decoded[name], err_msg=f"{num_players}p position {i} {name}"
                )
            assert action == EH.heuristic_action_compact(compact[i], masks[i])


def test_radlands_board_from_the_record_is_the_decoded_compact_observation():
    """Every decision of heuristic and random games (draft, actions, pending decisions), each
    seen by the player to act: ``view_into`` (the play-outs' board, written from the record)
    equals the compact observation decoded, field by field, with the same action."""
    states, players, compact, masks = _records("radlands", 16, 29, 8, 2)
    assert states.shape[0] > 1000
    assert set(states["phase"].tolist()) >= {0, 1, 2}  # draft, actions, decisions
    from_record = np.zeros(1, RH.BOARD_DTYPE)
    decoded = np.zeros(1, RH.BOARD_DTYPE)
    for i in range(states.shape[0]):
        RH.view_into(states, i, players[i], from_record)
        RH._decode_compact(compact[i], decoded[0])
        for name in RH.BOARD_DTYPE.names:
            np.testing.assert_array_equal(
                from_record[name], decoded[name], err_msg=f"position {i} {name}"
            )
        action = RH.heuristic_action_view(from_record, masks[i])
        assert action == RH.heuristic_action_compact(compact[i], masks[i])


# ---- Century and Endeavor heuristics: cheaper code, same results -------------------------------


def _distance_reference(car, cost):
    """The cube-steps of ``century_heuristic._distance``, as the loop it was (CSR-P3)."""
    spare = [max(0, h - n) for h, n in zip(car, cost, strict=True)]
    missing = [max(0, n - h) for h, n in zip(car, cost, strict=True)]
    d = 0
    for c in range(len(car) - 1, -1, -1):
        m = missing[c]
        for lower in range(c - 1, -1, -1):
            use = min(m, spare[lower])
            m -= use
            spare[lower] -= use
            d += use * (c - lower)
        d += m * (c + 1)
    return d


CUBES = st.lists(st.integers(0, 10), min_size=4, max_size=4)


@settings(max_examples=300, deadline=None)
@given(car=CUBES, cost=CUBES)
def test_century_distance_matches_the_loop_reference(car, cost):
    from meeple_gym.baselines import century_heuristic as C

    got = C._distance(np.array(car, np.int64), np.array(cost, np.int64))
    assert got == _distance_reference(car, cost)


def _knapsack_reference(cost, worth, uses_slot, capacity, slots, max_work):
    """``endeavor_heuristic._knapsack`` as it was: the full table over every item and every
    capacity and slot count up to the limits; (total, kept items)."""
    count = len(cost)
    cap = min(capacity, max_work - 1)
    best = np.zeros((count + 1, slots + 1, cap + 1))
    for i in range(count):
        for f in range(slots + 1):
            for w in range(cap + 1):
                v = best[i, f, w]
                if cost[i] <= w and uses_slot[i] <= f and worth[i] > 0:
                    v = max(v, best[i, f - uses_slot[i], w - cost[i]] + worth[i])
                best[i + 1, f, w] = v
    keep, f, w = [0] * count, slots, cap
    for i in range(count - 1, -1, -1):
        if best[i + 1, f, w] != best[i, f, w]:
            keep[i] = 1
            f -= uses_slot[i]
            w -= cost[i]
    return best[count, slots, cap], keep


ITEMS = st.lists(
    st.tuples(
        st.integers(0, 8),  # cost
        st.sampled_from([-1.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 0.1 + 0.2]),  # worth
        st.integers(0, 1),  # takes a board slot
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(items=ITEMS, capacity=st.integers(0, 20), slots=st.integers(0, 9))
def test_endeavor_knapsack_keeps_what_the_full_table_keeps(items, capacity, slots):
    # Ties in worth are common (the sampled worths repeat): the kept set must still be the
    # full table's, not only the total.

    cost = np.array([c for c, _, _ in items], np.int64)
    worth = np.array([w for _, w, _ in items], np.float64)
    uses = np.array([u for _, _, u in items], np.int64)
    size = max(len(items), 1)
    keep = np.full(size, 7, np.int64)
    taken = np.zeros(size, np.int64)
    total = EH._knapsack(cost, worth, uses, len(items), capacity, slots, keep, taken)
    want_total, want_keep = _knapsack_reference(cost, worth, uses, capacity, slots, EH.MAX_WORK)
    assert total == want_total
    assert keep[: len(items)].tolist() == want_keep
