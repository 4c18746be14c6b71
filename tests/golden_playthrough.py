"""Golden playthroughs (OpenSpiel style): a seeded game recorded step by step.

A playthrough stores, for each sub-decision, the player to act, the legal actions, the action
taken and its text, and at the end the full snapshot. ``tests/test_golden.py`` replays the
files and fails on any difference. The reference comparison (tests/test_century_reference.py)
establishes correctness; these files catch unintended changes of behaviour or of the text
formats. Regenerate them only for an intended change, and say why in the commit:

    python tests/golden_playthrough.py
"""

import json
from pathlib import Path

import numpy as np

import meeple_gym as mg

GOLDEN_DIR = Path(__file__).parent / "golden"
CASES = [
    ("century", 2, 101),
    ("century", 3, 202),
    ("century", 5, 303),
    ("everdell", 1, 404),
    ("everdell", 3, 505),
    ("endeavor", 2, 606),
    ("endeavor", 4, 707),
    ("radlands", 2, 808),
]


def record(game, num_players, seed):
    env = mg.make(game, num_players=num_players).unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = []
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        agent = env.agent_selection
        legal = np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
        action = int(rng.choice(legal))
        steps.append(
            {
                "agent": agent,
                "legal": legal,
                "action": action,
                "text": env.action_to_string(action),
            }
        )
        env.step(action)
    return {
        "game": game,
        "num_players": num_players,
        "seed": seed,
        "steps": steps,
        "final": env.to_dict(),
        "rewards": {a: env.rewards[a] for a in env.possible_agents},
    }


def path_for(game, num_players, seed):
    return GOLDEN_DIR / f"{game}_{num_players}p_seed{seed}.json"


if __name__ == "__main__":
    GOLDEN_DIR.mkdir(exist_ok=True)
    for case in CASES:
        path_for(*case).write_text(json.dumps(record(*case), indent=1) + "\n")
        print("wrote", path_for(*case))
