"""Speed-ups of the ISMCTS play-outs keep the decisions: the Everdell heuristic fills a card's
worth and keep value on first use and its token-pays flags in one pass over the slots, and must
pick what the eager board (every card filled before deciding, as it was) picks, on positions
from heuristic self-play and random play."""

import numpy as np

import meeple_gym as mg
from meeple_gym.baselines import everdell_heuristic as H
from meeple_gym.baselines.evaluate import make_agent
from meeple_gym.core.jit import game_kernel, rebind
from meeple_gym.core.masks import _legal_or  # noqa: F401 - bound in the kernel below
from meeple_gym.core.sampling import policy_words, random_legal_actions


def _eager_and_lazy(obs, masks, out):
    """``out[i, 0]``: the decision with every worth and keep value filled before deciding
    (-2 if ``free_play`` differs from ``_token_pays``); ``out[i, 1]``: ``heuristic_action``
    (values filled on first use)."""
    boards = np.zeros(1, BOARD_DTYPE)  # noqa: F821 - bound below
    for i in range(obs.shape[0]):
        b = boards[0]
        _decode(obs[i], b)  # noqa: F821
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


def _positions(size, seed, heuristic_share):
    """Observations and masks of every decision of ``size`` two-player games, the first
    ``heuristic_share`` of them played by the heuristic, the rest at random."""
    batch = mg.make_batch("everdell", size, 2, seed)
    obs = batch.reset()
    agent = make_agent("heuristic", "everdell", seed)
    words = policy_words(seed, size)
    random_actions = np.zeros(size, dtype=np.int64)
    use_heuristic = np.arange(size) < heuristic_share
    seen_obs, seen_masks = [], []
    for _ in range(400):
        live = (batch.states["terminated"] == 0) & (batch.states["truncated"] == 0)
        if not live.any():
            break
        seen_obs.append(obs[live].astype(np.float32))
        seen_masks.append(batch.legal_mask[live].astype(np.int8))
        random_legal_actions(batch.legal_mask, words, random_actions)
        actions = np.where(use_heuristic, agent.act_batch(obs, batch.legal_mask), random_actions)
        obs, *_ = batch.step(actions)
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
