"""An agent for the command-line tests, imported by the CLI as ``cli_agents:SignalsStart``."""

import os

import numpy as np


class SignalsStart:
    """Plays the lowest legal action. Its first move creates the file named by the
    ``MEEPLE_TEST_STARTED`` environment variable: the Ctrl-C test interrupts a run once games
    are being played, without guessing how long start-up takes."""

    def act_batch(self, observations, masks):
        path = os.environ.get("MEEPLE_TEST_STARTED")
        if path and not os.path.exists(path):
            with open(path, "w"):
                pass
        return np.argmax(np.asarray(masks) != 0, axis=1)
