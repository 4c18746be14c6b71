"""``meeple_gym.core.folding``: the generic folding behind the compact observations (their slow
reference). A folded vector unfolds to the full one, offsets follow the folded blocks, bounds
count each code's categories, and a layout whose blocks overlap is refused."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meeple_gym.core.folding import Folding, first_code, observation_variant


@st.composite
def layouts(draw):
    """A full layout of plain entries, one-hot blocks and set blocks, and a vector in it."""
    segments = draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("plain"), st.integers(1, 3), st.just(0)),
                st.tuples(st.just("one_hot"), st.integers(1, 6), st.just(0)),
                st.tuples(st.just("set"), st.integers(1, 8), st.integers(1, 8)),
            ),
            min_size=1,
            max_size=8,
        )
    )
    one_hots, sets, values = [], [], []
    for kind, n, k in segments:
        start = len(values)
        if kind == "plain":
            values += draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
        elif kind == "one_hot":
            one_hots.append((start, n))
            on = draw(st.integers(-1, n - 1))
            values += [1 if j == on else 0 for j in range(n)]
        else:
            k = min(k, n)
            sets.append((start, n, k))
            on = set(draw(st.lists(st.integers(0, n - 1), max_size=k)))
            values += [1 if j in on else 0 for j in range(n)]
    return one_hots, sets, np.array(values, np.float32)


def unfold(folding, compact):
    full = np.zeros(folding.full_size, np.float32)
    x = c = 0
    while x < folding.full_size:
        if x in folding.one_hots:
            if compact[c] > 0:
                full[x + int(compact[c]) - 1] = 1
            x, c = x + folding.one_hots[x], c + 1
        elif x in folding.sets:
            n, k = folding.sets[x]
            for code in compact[c : c + k]:
                if code > 0:
                    full[x + int(code) - 1] = 1
            x, c = x + n, c + k
        else:
            full[x] = compact[c]
            x, c = x + 1, c + 1
    return full


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_a_folded_vector_unfolds_to_the_full_one(layout):
    one_hots, sets, full = layout
    folding = Folding(full.size, one_hots, sets)
    compact = folding.fold(full)
    assert compact.shape == (folding.size,) == (folding.offset(full.size),)
    np.testing.assert_array_equal(unfold(folding, compact), full)
    for start, _n, k in sets:  # set codes ascend, then zeros
        codes = compact[folding.offset(start) : folding.offset(start) + k]
        nonzero = codes[codes > 0]
        assert (np.diff(nonzero) > 0).all() and (codes[nonzero.size :] == 0).all()
    low, high = folding.bounds(np.full(full.size, 9, np.float32))
    assert (compact >= low).all() and (compact <= high).all()
    assert not high.flags.writeable and not low.flags.writeable


def test_offsets_and_bounds_of_a_small_layout():
    # 0 plain | 1-3 one-hot | 4 plain | 5-9 set of 2 | 10 plain
    folding = Folding(11, [(1, 3)], [(5, 5, 2)])
    assert folding.size == 1 + 1 + 1 + 2 + 1
    assert [folding.offset(x) for x in (0, 1, 4, 5, 10, 11)] == [0, 1, 2, 3, 5, 6]
    full = np.array([7, 0, 0, 1, 4, 0, 1, 0, 0, 1, 2], np.float32)
    np.testing.assert_array_equal(folding.fold(full), [7, 3, 4, 2, 5, 2])
    _, high = folding.bounds(np.arange(11, dtype=np.float32))
    np.testing.assert_array_equal(high, [0, 3, 4, 5, 5, 10])
    assert first_code(np.zeros(4)) == 0 and first_code(np.array([0, 0, 1, 1])) == 3


def test_bad_layouts_and_vectors_are_refused():
    with pytest.raises(ValueError, match="overlap"):
        Folding(10, [(0, 4), (3, 2)])
    with pytest.raises(ValueError, match="overlap"):
        Folding(10, [(0, 4)], [(2, 3, 1)])
    with pytest.raises(ValueError, match="3 codes for 2 flags"):
        Folding(10, [], [(0, 2, 3)])
    with pytest.raises(ValueError, match="expected a vector of 10 floats"):
        Folding(10, [(0, 4)]).fold(np.zeros(9))


def test_an_observation_variant_has_a_read_only_bound_of_its_size():
    high = np.ones(5, np.float32)
    variant = observation_variant(len, max, high)
    assert variant.OBS_SIZE == 5 and variant.encode_into is len and variant.encode_batch is max
    assert not variant.OBS_HIGH.flags.writeable
