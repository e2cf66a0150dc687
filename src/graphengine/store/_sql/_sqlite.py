"""How `SQLiteStore` commits steps: a run alone on the event loop, concurrent runs in one statement.

Measured on one run of a 2-node loop (`python -m bench scale --sections sqlite`): the aiosqlite
thread hop (a queue put, a thread wake-up and a `call_soon_threadsafe` back) costs more than the
statement and its commit. So:

- A batch of one step (a run alone, the common case), and a new run's record, is written by a
  second, plain `sqlite3` connection on the event loop's thread. It never waits there: its busy timeout is 0, so when
  another process holds the write lock the step goes to the thread connection instead, which
  waits up to the store's `busy_timeout`; and it never checkpoints there
  (`wal_autocheckpoint = 0`): the thread connection runs a passive checkpoint every
  `CHECKPOINT_EVERY` such commits. Only with `synchronous` OFF or NORMAL (no fsync per
  commit, so a commit is a write into the page cache); with FULL or EXTRA, and for `":memory:"`
  (a second connection would see another database), every write goes to the thread.
- A batch of several runs' steps is ONE multi-row `INSERT ... SELECT ... RETURNING` on the
  thread connection: one hop, one transaction, one commit for all of them. Each row carries its
  own conditions (run exists, step is the next one), so a refused step only drops its own row,
  and `RETURNING` says which rows went in. A statement that fails as a whole (a value SQLite
  cannot bind, a full disk) wrote nothing; its steps are then written one statement each, so
  one step's bad value fails that step alone.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

__all__ = ["BUSY_CODES", "CHECKPOINT", "CHECKPOINT_EVERY", "MAX_BATCH", "batch_insert", "open_direct"]

_COLUMNS: Final = 11
"""Values of a step row (the `insert_step` parameters before its checks)."""
MAX_BATCH: Final = 32766 // _COLUMNS
"""Most steps one statement binds (SQLite's limit of 32,766 parameters)."""
CHECKPOINT_EVERY: Final = 1000
"""Commits on the loop connection between two passive checkpoints on the thread connection."""
CHECKPOINT: Final = "PRAGMA wal_checkpoint(PASSIVE)"
BUSY_CODES: Final = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED: another connection writes

_HEAD: Final = "INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts) SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9, column10, column11 FROM (VALUES "
_ROW: Final = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
# The same conditions as `insert_step`, per row of the batch.
_TAIL: Final = """) AS t
WHERE coalesce((SELECT step FROM steps WHERE run_id = t.column1 ORDER BY step DESC LIMIT 1), 0) = t.column2 - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = t.column1)
RETURNING run_id"""

_texts: dict[int, str] = {}


def batch_insert(n: int) -> str:
    """The statement inserting `n` step rows (only the constant placeholder group is repeated)."""
    sql = _texts.get(n)
    if sql is None:
        sql = _texts[n] = _HEAD + ", ".join([_ROW] * n) + _TAIL
    return sql


def open_direct(path: str | Path, synchronous: str) -> sqlite3.Connection | None:
    """The loop-thread connection for single steps, or None where it cannot be used (see above).

    Blocking (it opens the file): call it in a thread. The schema is already migrated by the
    thread connection.
    """
    if synchronous not in ("OFF", "NORMAL") or str(path) in ("", ":memory:"):
        return None
    conn = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    try:
        # Both values are validated (a whitelisted word), never user text.
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        # It only inserts runs and steps, and `insert_step` checks in the same statement that the
        # run exists, so the foreign key check (a second lookup of the run) would repeat that check.
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("PRAGMA wal_autocheckpoint = 0")
    except BaseException:
        conn.close()
        raise
    return conn
