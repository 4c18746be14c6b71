"""Agent rollouts written to their ``.npz`` file as they are played, in bounded memory.

``distributed.rollout(..., out=PATH)`` with trajectories on the local backend plays its games
through ``stream_rollout``: the same batches, agents and seeds as the in-memory rollout, and
a file with the same keys, shapes and values as ``save_rollout`` of the in-memory result, so
``np.load``, ``load_rollout`` and ``meeple replay --trajectories`` read it as before.

Memory. A batch of ``max_batch`` games records every decision step by step (all live games
at once), while the file lays them out game by game. Observations and masks are therefore
buffered ``chunk_decisions`` decisions at a time (or one step's decisions, if more) and
appended to the batch's scratch file in step order; once every batch is played they are
compressed into the ``.npz`` game by game, ``chunk_decisions`` at a time. The small columns
(seat, action, slot) stay in memory for one batch only (a few bytes a decision), then go to
their own files. Scratch files live in a temporary folder beside the
output (the same disk, not a RAM-backed /tmp) and are removed whatever happens.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile

import numpy as np

# Decisions whose observations and masks are held in memory at once (Century: 927 floats and
# a mask a decision, about 31 MB; the buffer, its flush and a reordered block make a few).
DEFAULT_CHUNK_DECISIONS = 8192
_COPY_BYTES = 16 << 20  # bytes copied at a time from a column file into the archive


def _raw(values: np.ndarray) -> memoryview:
    """The bytes of a C-contiguous array, without copying them (``tobytes`` would)."""
    return memoryview(values.reshape(-1).view(np.uint8))


class ColumnFile:
    """An array of rows of ``dtype`` and ``row_shape`` grown by appending, kept on disk."""

    def __init__(self, path: str, dtype, row_shape: tuple = ()):
        self.path = path
        self.dtype = np.dtype(dtype)
        self.row_shape = tuple(row_shape)
        self.rows = 0
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close(), the writer's end

    def append(self, values: np.ndarray) -> None:
        values = np.ascontiguousarray(values, dtype=self.dtype)
        if values.shape[1:] != self.row_shape:  # the first append fixes the row shape
            if self.rows:
                raise ValueError(f"{self.path}: rows of {values.shape[1:]}, not {self.row_shape}")
            self.row_shape = values.shape[1:]
        self._file.write(_raw(values))
        self.rows += values.shape[0]

    def close(self) -> None:
        self._file.close()

    def shape(self) -> tuple:
        return (self.rows, *self.row_shape)

    def write_to(self, fid) -> None:
        with open(self.path, "rb") as src:
            shutil.copyfileobj(src, fid, _COPY_BYTES)


class ReorderedColumn:
    """A column whose rows are on disk in step order, one scratch file per batch, and are
    written out game by game (each batch's ``order``), ``block_rows`` rows at a time."""

    def __init__(self, dtype, block_rows: int):
        self.dtype = np.dtype(dtype)
        self.block_rows = block_rows
        self.row_shape = ()
        self.parts = []  # (scratch ColumnFile, path of the batch's order), in batch order

    def add(self, scratch: ColumnFile, order_path: str) -> None:
        self.row_shape = scratch.row_shape
        self.parts.append((scratch, order_path))

    def shape(self) -> tuple:
        return (sum(s.rows for s, _ in self.parts), *self.row_shape)

    def write_to(self, fid) -> None:
        for scratch, order_path in self.parts:
            order = np.load(order_path)
            fd = os.open(scratch.path, os.O_RDONLY)
            try:
                for start in range(0, order.size, self.block_rows):
                    block = _read_rows(fd, scratch, order[start : start + self.block_rows])
                    fid.write(_raw(block))
            finally:
                os.close(fd)


def _read_rows(fd: int, column: ColumnFile, rows: np.ndarray) -> np.ndarray:
    """``column``'s ``rows`` (in that order), read from the open file ``fd`` one run of
    consecutive rows at a time. Plain reads rather than a memory map: mapped pages of the
    file would count in this process's memory (fault-around maps far more than is read)."""
    row_bytes = column.dtype.itemsize * int(np.prod(column.row_shape, dtype=np.int64))
    by_position = np.argsort(rows, kind="stable")
    wanted = rows[by_position]
    got = np.empty((rows.size, *column.row_shape), dtype=column.dtype)
    flat = _raw(got)
    breaks = np.flatnonzero(np.diff(wanted) != 1) + 1
    for lo, hi in zip(np.r_[0, breaks], np.r_[breaks, rows.size], strict=True):
        view = flat[lo * row_bytes : hi * row_bytes]
        offset = int(wanted[lo]) * row_bytes
        while len(view):  # a read may return less than asked
            n = os.preadv(fd, [view], offset)
            if n == 0:
                raise OSError(f"{column.path}: ends before row {offset // row_bytes}")
            view, offset = view[n:], offset + n
    out = np.empty_like(got)
    out[by_position] = got
    return out


class ChunkedRecorder:
    """The ``record`` callback of ``evaluate._play_chunk`` for one batch: decisions come step
    by step; ``finish`` appends them game by game to ``columns`` (``traj_player`` and
    ``traj_action``, ``ColumnFile``; with ``observations`` also ``traj_observation`` and
    ``traj_mask``, ``ReorderedColumn``), holding at most ``max(chunk_decisions, one step's
    decisions)`` observations in memory."""

    def __init__(self, columns: dict, scratch_dir: str, observations: bool, chunk_decisions: int):
        self.columns = columns
        self.observations = observations
        self.chunk_decisions = chunk_decisions
        self.rows, self.players, self.actions = [], [], []
        self.buffer = []  # (observations, masks) of decisions not yet in the scratch files
        self.buffered = 0
        self.peak_buffered = 0  # the most decisions held in the buffer at once (tests read it)
        self.scratch = None
        if observations:
            # Files of this batch only: a new folder, whatever batches came before.
            self.folder = tempfile.mkdtemp(prefix="batch-", dir=scratch_dir)
            self.scratch = {
                "traj_observation": ColumnFile(os.path.join(self.folder, "obs"), np.float32),
                "traj_mask": ColumnFile(os.path.join(self.folder, "mask"), np.bool_),
            }

    def __call__(self, rows, players, actions, obs, masks):
        # The same conversions as distributed._Recorder: the same values in the file.
        self.rows.append(np.asarray(rows, dtype=np.int64))
        self.players.append(players.astype(np.int8))
        self.actions.append(actions.astype(np.int32))
        if not self.observations:
            return
        if self.buffered and self.buffered + len(rows) > self.chunk_decisions:
            self._flush()
        self.buffer.append((obs.astype(np.float32, copy=False), masks != 0))
        self.buffered += len(rows)
        self.peak_buffered = max(self.peak_buffered, self.buffered)

    def _flush(self) -> None:
        for k, key in enumerate(("traj_observation", "traj_mask")):
            self.scratch[key].append(np.concatenate([part[k] for part in self.buffer]))
        self.buffer, self.buffered = [], 0

    def finish(self, size: int) -> np.ndarray:
        """Add this batch's decisions to the columns, game by game; returns the decisions
        of each of its ``size`` games."""
        rows = np.concatenate(self.rows)
        order = np.argsort(rows, kind="stable")  # game by game, each in the order played
        self.columns["traj_player"].append(np.concatenate(self.players)[order])
        self.columns["traj_action"].append(np.concatenate(self.actions)[order])
        self.rows = self.players = self.actions = None
        if self.observations:
            if self.buffer:
                self._flush()
            order_path = os.path.join(self.folder, "order.npy")
            np.save(order_path, order)
            for key, scratch in self.scratch.items():
                scratch.close()
                self.columns[key].add(scratch, order_path)
        return np.bincount(rows, minlength=size)


def _write_npy_header(fid, dtype, shape) -> None:
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(fid, header)


def write_npz(f, arrays: dict, meta: dict) -> None:
    """A compressed ``.npz`` to the open binary file ``f``, as ``np.savez_compressed(f,
    meta=..., **arrays)`` writes it; a column (``ColumnFile``, ``ReorderedColumn``) is
    copied from disk in pieces rather than loaded."""
    with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        entries = {"meta": np.array(json.dumps(meta, sort_keys=True)), **arrays}
        for key, value in entries.items():
            with zf.open(f"{key}.npy", "w", force_zip64=True) as fid:
                if hasattr(value, "write_to"):
                    _write_npy_header(fid, value.dtype, value.shape())
                    value.write_to(fid)
                else:
                    np.lib.format.write_array(fid, np.asanyarray(value), allow_pickle=False)


def stream_rollout(path, game, num_players, agents, seats, chunks, observations, options):
    """Play the batches ``chunks`` (``evaluate.match_chunks``) of a rollout, recording every
    decision, and write the ``.npz`` to ``path`` whole or not at all. ``options``:
    ``chunk_decisions``, ``meta`` (the file's, or a function that returns it once the games
    are played), ``bar`` (a progress bar or None), ``on_batch``
    (called with each batch's recorder; tests read its buffer bound). Returns the per-game
    arrays and ``traj_offsets``, without the decisions themselves."""
    from meeple_gym.baselines.evaluate import _play_chunk, chunk_agents
    from meeple_gym.core.files import atomic_write

    num_games = seats.shape[0]
    out = {
        "winner": np.empty(num_games, dtype=np.int64),
        "scores": np.empty((num_games, num_players), dtype=np.int64),
        "length": np.empty(num_games, dtype=np.int64),
        "truncated": np.empty(num_games, dtype=bool),
    }
    counts = np.empty(num_games, dtype=np.int64)
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.TemporaryDirectory(prefix=".meeple-rollout-", dir=folder) as scratch_dir:
        columns = {
            "traj_player": ColumnFile(os.path.join(scratch_dir, "player"), np.int8),
            "traj_action": ColumnFile(os.path.join(scratch_dir, "action"), np.int32),
        }
        if observations:
            block = options["chunk_decisions"]
            columns["traj_observation"] = ReorderedColumn(np.float32, block)
            columns["traj_mask"] = ReorderedColumn(np.bool_, block)
        try:
            for start, stop, batch_seed in chunks:
                record = ChunkedRecorder(
                    columns, scratch_dir, observations, options["chunk_decisions"]
                )
                batch_agents = chunk_agents(agents, game, batch_seed)
                part = _play_chunk(
                    game,
                    num_players,
                    batch_agents,
                    seats[start:stop],
                    batch_seed,
                    options.get("bar"),
                    record,
                )
                for key, values in zip(out, part, strict=True):
                    out[key][start:stop] = values
                counts[start:stop] = record.finish(stop - start)
                if options.get("on_batch") is not None:
                    options["on_batch"](record)
        finally:
            for column in columns.values():
                if isinstance(column, ColumnFile):
                    column.close()
        out["traj_offsets"] = np.zeros(num_games + 1, dtype=np.int64)
        np.cumsum(counts, out=out["traj_offsets"][1:])
        # The keys in the order save_rollout writes the in-memory result.
        arrays = {**out, **columns, "seat_agent": seats}
        meta = options["meta"]
        with atomic_write(path) as f:
            write_npz(f, arrays, meta() if callable(meta) else meta)
    out["seat_agent"] = seats
    return out
