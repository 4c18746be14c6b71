"""Learn the coefficients of a heuristic's move values by the cross-entropy method.

A heuristic with coefficients (``default_coefficients``, ``coefficient_scales``: Everdell's,
whose move values are sums of terms weighted by ``COEFFICIENTS``) is a policy with a few dozen
parameters. The cross-entropy method (CEM) searches them by play alone:

1. Draw ``population`` coefficient vectors around the current mean (a normal distribution
   with one standard deviation per coefficient, in units of its scale); the mean itself is
   the first of them.
2. Each plays ``games`` two-player games against the default heuristic, seats rotated, the
   same games (seed) for every vector of the generation, so they are compared on equal deals.
   Its fitness is its share of wins, a draw counting half.
3. The ``elite`` fittest vectors move the mean (``MEAN_STEP`` of the way to theirs) and the
   deviations (``STD_STEP`` of the way to theirs, never below ``MIN_STD``).

Every generation draws from its own seed (derived from ``seed``), so a run is reproducible for
any thread count. The net trainer runs it as the first stage of an anchored network
(``python -m meeple_gym.baselines.net_train --anchor-weight W --anchor-generations N``): the
network's anchor then plays with the learned coefficients (docs/baselines.md, "The learned
agent").
"""

from __future__ import annotations

import numpy as np

from meeple_gym.baselines.evaluate import play_match
from meeple_gym.baselines.kernel_agent import (
    check_coefficients,
    has_coefficients,
    heuristic_class,
)
from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_int
from meeple_gym.core.rng import py_derive_key

MEAN_STEP = 0.7
STD_STEP = 0.3
MIN_STD = 0.05
_CEM_STREAM = 0x43454D  # RNG stream id of the draws and the games of each generation


def coefficient_heuristic(game: str):
    """``game``'s heuristic class if its move values have coefficients, else OptionError."""
    cls = heuristic_class(game)
    if cls is None or not has_coefficients(cls):
        raise OptionError(f"the {game} heuristic has no coefficients to learn")
    return cls


def fitness(game: str, coefficients, games: int, seed: int) -> float:
    """The share of ``games`` two-player games (seats rotated, ``seed``) that the heuristic
    with ``coefficients`` wins against the default heuristic, a draw counting half."""
    cls = coefficient_heuristic(game)
    result = play_match(
        game, 2, [cls(coefficients=coefficients), cls()], games, seed=seed, progress=False
    )
    return (result["wins"] + 0.5 * result["draws"]) / games


def cross_entropy_method(
    game: str,
    generations: int,
    population: int = 32,
    elite: int = 8,
    games: int = 600,
    seed: int = 0,
    start=None,
    on_generation=None,
) -> np.ndarray:
    """The learned coefficients (the last generation's mean) after ``generations`` of the
    module's method. ``start``: coefficients to start from (default: the heuristic's own).
    ``on_generation(g, mean_coefficients, fitnesses)`` is called after each generation ``g``
    (from 1; ``fitnesses[0]`` is the previous mean's) and stops the method by returning
    true."""
    cls = coefficient_heuristic(game)
    generations = check_int("generations", generations, 0, None)
    population = check_int("population", population, 2, None)
    elite = check_int("elite", elite, 1, population)
    games = check_int("games", games, 1, None)
    base = np.asarray(cls.default_coefficients, dtype=np.float64)
    scale = np.asarray(cls.coefficient_scales, dtype=np.float64)
    mean = np.zeros(base.size)
    if start is not None:
        mean = (check_coefficients(start, base.size) - base) / scale
    std = np.ones(base.size)
    for g in range(1, generations + 1):
        rng = np.random.default_rng(py_derive_key(seed, 2 * g, _CEM_STREAM))
        draws = mean + std * rng.standard_normal((population, base.size))
        draws[0] = mean
        match_seed = py_derive_key(seed, 2 * g + 1, _CEM_STREAM)
        scores = np.array([fitness(game, base + scale * x, games, match_seed) for x in draws])
        best = draws[np.argsort(-scores, kind="stable")[:elite]]
        mean = (1 - MEAN_STEP) * mean + MEAN_STEP * best.mean(axis=0)
        std = np.maximum((1 - STD_STEP) * std + STD_STEP * best.std(axis=0), MIN_STD)
        if on_generation is not None and on_generation(g, base + scale * mean, scores):
            break
    return base + scale * mean
