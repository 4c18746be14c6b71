"""Speed-ups of the ISMCTS play-outs keep the decisions: the Everdell heuristic fills a card's
worth and keep value, and its gain weights, on first use and its token-pays flags in one pass
over the slots, and must pick what the eager board (all of them filled before deciding, as
they were) picks, on positions from heuristic self-play and random play. Its play-outs read the
compact observation: the board decoded from it must be the full observation's, field by field."""

import numpy as np

import meeple_gym as mg
from meeple_gym.baselines import everdell_heuristic as H
from meeple_gym.baselines.evaluate import make_agent
from meeple_gym.core.jit import game_kernel, rebind
from meeple_gym.core.masks import _legal_or  # noqa: F401 - bound in the kernel below
from meeple_gym.core.sampling import policy_words, random_legal_actions
from meeple_gym.encoders import everdell as E


def _eager_and_lazy(obs, masks, out):
    """``out[i, 0]``: the decision with the gain weights and every worth and keep value
    filled before deciding (-2 if ``free_play`` differs from ``_token_pays``); ``out[i, 1]``:
    ``heuristic_action`` (values filled on first use)."""
    boards = np.zeros(1, BOARD_DTYPE)  # noqa: F821 - bound below
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


def _positions(size, seed, heuristic_share, num_players=2, compact=False):
    """Observations and masks of every decision of ``size`` games, the first
    ``heuristic_share`` of them played by the heuristic, the rest at random; with ``compact``
    also the compact observations of the same decisions."""
    batch = mg.make_batch("everdell", size, num_players, seed)
    obs = batch.reset()
    agent = make_agent("heuristic", "everdell", seed)
    words = policy_words(seed, size)
    random_actions = np.zeros(size, dtype=np.int64)
    use_heuristic = np.arange(size) < heuristic_share
    seen_obs, seen_masks, seen_compact = [], [], []
    for _ in range(400):
        live = (batch.states["terminated"] == 0) & (batch.states["truncated"] == 0)
        if not live.any():
            break
        seen_obs.append(obs[live].astype(np.float32))
        seen_masks.append(batch.legal_mask[live].astype(np.int8))
        if compact:
            states = batch.get_states()
            out = np.zeros((size, E.COMPACT_OBS_SIZE), np.float32)
            E.encode_compact_batch(states, states["current_player"].astype(np.int64), out)
            seen_compact.append(out[live])
        random_legal_actions(batch.legal_mask, words, random_actions)
        actions = np.where(use_heuristic, agent.act_batch(obs, batch.legal_mask), random_actions)
        obs, *_ = batch.step(actions)
    if compact:
        return np.concatenate(seen_obs), np.concatenate(seen_masks), np.concatenate(seen_compact)
    return np.concatenate(seen_obs), np.concatenate(seen_masks)


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
        for b in (full_boards[i], compact_boards[i]):  # the values filled on first use, too
            _gains(b)  # noqa: F821
            for t in range(NT):  # noqa: F821
                _worth(b, t)  # noqa: F821
                _keep(b, t)  # noqa: F821
        actions[i, 0] = heuristic_action(full[i], masks[i])  # noqa: F821
        actions[i, 1] = heuristic_action_compact(compact[i], masks[i])  # noqa: F821


def test_everdell_heuristic_reads_the_compact_observation_as_the_full_one():
    kernel = game_kernel(rebind(_full_and_compact, dict(vars(H))), "everdell")
    # Solo (Rugwort's fields), two and four players; heuristic and random play.
    for num_players, size, share in ((1, 4, 2), (2, 6, 3), (4, 4, 2)):
        full, masks, compact = _positions(size, 5 + num_players, share, num_players, True)
        assert full.shape[0] > 300
        # The compact kernel's vector is the slow reference's, so the test reads real input.
        for i in range(0, full.shape[0], 97):
            np.testing.assert_array_equal(compact[i], E.compact_from_full(full[i]))
        full_boards = np.zeros(full.shape[0], H.BOARD_DTYPE)
        compact_boards = np.zeros(full.shape[0], H.BOARD_DTYPE)
        actions = np.zeros((full.shape[0], 2), np.int64)
        kernel(full, compact, masks, full_boards, compact_boards, actions)
        for name in H.BOARD_DTYPE.names:
            np.testing.assert_array_equal(
                compact_boards[name], full_boards[name], err_msg=f"{num_players}p field {name}"
            )
        assert (actions[:, 0] >= 0).all()
        np.testing.assert_array_equal(actions[:, 1], actions[:, 0])
