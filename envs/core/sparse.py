"""Dense-times-sparse products for small policy networks played on the CPU (the learned
agent, meeple_gym.baselines.net_agent). Observations are mostly zeros, so the first layer of
a network reads only the set entries."""

from __future__ import annotations

from meeple_gym.core.jit import kernel


@kernel
def scaled_sparse_product(x, scale, w, out):
    """``out = (x * scale) @ w``, reading only the non-zero entries of ``x``: observations
    are mostly zeros (one-hot cards: 40 to 110 of 900 to 6,935 entries per row are set), so
    this does a few percent of a dense product's multiplications. ``out`` starts at zero."""
    for i in range(x.shape[0]):
        for c in range(x.shape[1]):
            v = x[i, c]
            if v != 0.0:
                v *= scale[c]
                for j in range(w.shape[1]):
                    out[i, j] += v * w[c, j]
