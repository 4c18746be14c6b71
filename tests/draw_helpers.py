"""Shared pieces of the per-game picture tests (tests/test_draw_<game>.py): the position
samplers, the SVG text reader and the checks every game's pictures must pass alike."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import meeple_gym as mg


def svg_text(svg: str, sep: str = "\n") -> str:
    """The text of every <text> element of an SVG picture, joined by sep."""
    return sep.join(el.text or "" for el in ET.fromstring(svg).iter() if el.tag.endswith("text"))


def play_with_finished(game: str, batch_size: int, players: int, seed: int, steps, every):
    """(batch, positions, finished): copies of all games every `every` steps, finished games."""
    batch = mg.make_batch(game, batch_size=batch_size, num_players=players, seed=seed)
    batch.reset()
    rng = np.random.default_rng(seed)
    positions, finished = [], []
    for step in range(steps):
        if step % every == 0:
            positions.append(batch.get_states())
        actions = np.argmax(rng.random(batch.legal_mask.shape) * batch.legal_mask, axis=1)
        _, _, terminated, _ = batch.step(actions)
        for g in np.flatnonzero(terminated):
            finished.append(batch.final_states[g : g + 1].copy())
    return batch, positions, finished


def batch_positions(game: str, num_players: int, seed: int, steps: int, every: int):
    """(batch, states) pairs along random games of a 3-game batch."""
    batch = mg.make_batch(game, 3, num_players, seed=seed)
    batch.reset()
    rng = np.random.default_rng(seed)
    out = []
    for step in range(steps):
        mask = batch.legal_mask
        batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        if step % every == every - 1:
            out.append((batch, batch.get_states()))
    return out


def check_determinized_pictures(draw, num_players: int, pos) -> None:
    """Drawing a position and its determinizations for the viewer (for every seat when the
    viewer is None) gives the same picture: nothing drawn is something that seat may not know."""
    for batch, states in pos:
        batch.set_states(states)  # determinize reads the batch's current position
        size = len(states)
        for viewer in [None, *range(num_players)]:
            pictures = [draw(states, g, viewer) for g in range(size)]
            for seat in range(num_players) if viewer is None else [viewer]:
                for seed in (11, 12):
                    det = batch.determinize(np.full(size, seat), seed=seed + seat)
                    for g in range(size):
                        assert draw(det, g, viewer) == pictures[g], (viewer, seat, g)


def rasterized_rgb(svg: str, min_width: int) -> np.ndarray:
    """The picture as an RGB array, checked for dtype, shape and width (needs CairoSVG)."""
    pytest.importorskip("cairosvg", reason="rgb_array needs the pictures extra (CairoSVG)")
    from meeple_gym.core.svg import rasterize

    image = rasterize(svg)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[1] >= min_width
    return image
