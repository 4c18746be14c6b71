"""Shared pieces of the per-game picture tests (tests/test_draw_<game>.py): the position
samplers, the SVG text reader and the checks every game's pictures must pass alike."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import meeple_gym as mg


def svg_text(svg: str, sep: str = "\n") -> str:
    """The text of every <text> element of an SVG picture, joined by sep."""
    return sep.join(el.text or "" for el in ET.fromstring(svg).iter() if el.tag.endswith("text"))


def each_game(positions):
    """(states, g, record) for every game g of every batch's states in ``positions``."""
    for states in positions:
        for g in range(len(states)):
            yield states, g, states[g]


def assert_svgs_parse(draw, positions, min_width: int, viewers=(None,)) -> None:
    """Every game's picture, for each viewer, parses as SVG at least ``min_width`` wide."""
    for states, g, _ in each_game(positions):
        for viewer in viewers:
            root = ET.fromstring(draw(states, g, viewer))
            assert float(root.get("width")) >= min_width
            assert float(root.get("height")) > 0


def assert_one_to_act(text: str, current: int) -> None:
    """Only the heading of the player to act (``Player <current> (``) says TO ACT."""
    heads = [line for line in text.splitlines() if line.startswith("Player ")]
    assert [h for h in heads if "TO ACT" in h] == [
        h for h in heads if h.startswith(f"Player {current} (")
    ]


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


def positions_fixture(game: str, player_counts, seed: int, steps: int, every: int):
    """A module fixture, one per player count n: (n, batch_positions(game, n, seed + n, ...))."""

    @pytest.fixture(scope="module", params=player_counts)
    def positions(request):
        n = request.param
        return n, batch_positions(game, n, seed + n, steps, every)

    return positions


def seat_views(draw, num_players, pos):
    """(record, seat, the seat's own picture, the public picture) for every seat of every game
    in ``pos`` ([(batch, states)])."""
    for states, g, s in each_game(states for _, states in pos):
        public = draw(states, g)
        for p in range(num_players):
            yield s, p, draw(states, g, p), public


def assert_names_shown(text: str, ids, names) -> None:
    """``names[i]`` is in the picture's text for every id i >= 0 (-1: an empty place)."""
    for i in ids:
        if i >= 0:
            assert names[i] in text


def first_final_picture(game: str, draw, num_players: int, seed: int):
    """(final states, g, picture text) of the first game of a random 2-game batch to end."""
    batch = mg.make_batch(game, 2, num_players, seed=seed)
    batch.reset()
    rng = np.random.default_rng(seed)
    while not batch.episodes.any():
        batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in batch.legal_mask]))
    g = int(np.flatnonzero(batch.episodes)[0])
    final = batch.final_states
    return final, g, svg_text(draw(final, g))


def check_determinized_pictures(draw, num_players, pairs, seeds=(11, 12), on_copy=None):
    """For each (batch, states) pair, drawing the position and its determinizations for the
    viewer (for every seat when the viewer is None) gives the same picture: nothing drawn is
    something that seat may not know. ``on_copy(copy, states)`` sees every determinized copy."""
    for batch, states in pairs:
        batch.set_states(states)  # determinize reads the batch's current position
        size = len(states)
        for viewer in [None, *range(num_players)]:
            pictures = [draw(states, g, viewer) for g in range(size)]
            for seat in range(num_players) if viewer is None else [viewer]:
                for seed in seeds:
                    det = batch.determinize(np.full(size, seat, np.int64), seed=seed + seat)
                    if on_copy is not None:
                        on_copy(det, states)
                    for g in range(size):
                        assert draw(det, g, viewer) == pictures[g], (viewer, seat, g)


def final_pictures(draw, finished):
    """(record, picture text) of each finished game in ``finished`` (one-game states)."""
    for states in finished:
        yield states[0], svg_text(draw(states, 0))


class SharedPictureChecks:
    """The picture tests two games share: a test class names the game's ``draw`` and minimum
    width; the test module provides the ``positions`` fixture, (num_players, [(batch, states)])
    as ``batch_positions`` makes them."""

    draw = None
    min_width = 0

    def test_svg_parses_and_is_wide(self, positions):
        _, pos = positions
        assert_svgs_parse(self.draw, (states for _, states in pos), self.min_width)

    def test_hidden_information_matches_determinization(self, positions):
        n, pos = positions
        check_determinized_pictures(self.draw, n, pos)

    def test_rasterize_gives_rgb(self, positions):
        _, pos = positions
        rasterized_rgb(self.draw(pos[-1][1], 0, 0), self.min_width)


def rasterized_rgb(svg: str, min_width: int) -> np.ndarray:
    """The picture as an RGB array, checked for dtype, shape and width (needs CairoSVG)."""
    pytest.importorskip("cairosvg", reason="rgb_array needs the pictures extra (CairoSVG)")
    from meeple_gym.core.svg import rasterize

    image = rasterize(svg)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[1] >= min_width
    return image
