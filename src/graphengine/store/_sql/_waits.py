"""`WaitsMixin`: durable timers and signals (`WaitStore`) over a backend's statements.

Two tables beside the runs: `timers` (one row per run that ever waited: the step it waits after,
its due time, the signal it waits for) and `signals` (one row per (run, signal id)). Both cascade
with their run. The due-timer reads join `runs` on status `waiting`, so a timer left behind by a
run that moved on is never due; `clear_timer` nulls the due time of a woken run so the due index
holds only live timers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ids import check_id
from ..records import SignalRecord, TimerRecord
from ._core import SQLStore

__all__ = ["WaitStatements", "WaitsMixin"]


_TAKE_TRIES = 5
"""Attempts of `take_signal` when the signal it picked is taken under it (only one driver takes a
run's signals, so a second attempt is already rare)."""


@dataclass(frozen=True, slots=True)
class WaitStatements:
    """A dialect's timer and signal statements; each field names the parameters it binds, in order."""

    put_timer: str
    """run id, step, wake_at, signal, run id (exists): an upsert that refuses unknown runs."""
    get_timer: str
    """run id -> (run id, step, wake_at, signal)."""
    clear_timer: str
    """run id, step."""
    due_timers: str
    """now, limit -> timer rows of waiting runs, soonest first."""
    next_due: str
    """() -> (the soonest wake_at of a waiting run, or NULL)."""
    add_signal: str
    """run id, signal id, name, payload, ts, taken step, run id (exists); 0 rows when the id is taken."""
    list_signals: str
    """run id -> signal rows (run_id, signal_id, name, payload, ts, taken_step) in arrival order."""
    pick_signal: str
    """run id, name, step -> the oldest available signal row."""
    take_signal: str
    """step, run id, signal id, step: 1 row when it was still available."""
    release_signals: str
    """run id, step: the signals taken by `step` or later made buffered again."""


class WaitsMixin(SQLStore):
    """The `WaitStore` methods of the SQL backends, over `_wait_sql`."""

    _wait_sql: WaitStatements

    def _key(self, value: Any, run_id: Any = None, field: str = "run_id") -> str:
        """A key column as the str it was written from (MySQL keeps them as VARBINARY)."""
        return str(value)

    def _timer_row(self, row: Sequence[Any]) -> TimerRecord:
        wake = row[2]
        return TimerRecord(
            self._key(row[0]),
            int(row[1]),
            None if wake is None else float(wake),
            None if row[3] is None else self._key(row[3], row[0], "signal"),
        )

    def _signal_row(self, row: Sequence[Any]) -> SignalRecord:
        rid = self._key(row[0])
        return SignalRecord(
            rid,
            self._key(row[1], rid, "signal_id"),
            self._key(row[2], rid, "name"),
            bytes(row[3]),
            float(row[4]),
            None if row[5] is None else int(row[5]),
        )

    async def put_timer(self, timer: TimerRecord) -> None:
        """Set (or replace) the run's timer; an unknown run is left alone."""
        check_id(timer.run_id)
        if timer.signal is not None:
            check_id(timer.signal, "signal name")
        rid = timer.run_id
        params = (rid, timer.step, timer.wake_at, timer.signal, rid)
        await self._count("write", self._wait_sql.put_timer, params, run_id=rid)

    async def get_timer(self, run_id: str) -> TimerRecord | None:
        """The run's timer, or None."""
        check_id(run_id)
        rows = await self._rows(self._wait_sql.get_timer, (run_id,), run_id=run_id)
        return self._timer_row(rows[0]) if rows else None

    async def clear_timer(self, run_id: str, step: int) -> None:
        """Drop the due time of the run's timer when it was set after `step`."""
        check_id(run_id)
        await self._count("write", self._wait_sql.clear_timer, (run_id, step), run_id=run_id)

    async def due_timers(self, now: float, *, limit: int = 100) -> list[TimerRecord]:
        """Timers of waiting runs with `wake_at <= now`, soonest first."""
        rows = await self._rows(self._wait_sql.due_timers, (now, max(limit, 0)))
        return [self._timer_row(r) for r in rows]

    async def next_due(self) -> float | None:
        """The soonest due time of a waiting run, or None."""
        rows = await self._rows(self._wait_sql.next_due, ())
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    async def add_signal(self, sig: SignalRecord) -> bool:
        """Store a signal once per (run, id), as given; False if the id is taken or the run unknown."""
        rid = sig.run_id
        check_id(rid)
        check_id(sig.signal_id, "signal id")
        check_id(sig.name, "signal name")
        params = (rid, sig.signal_id, sig.name, sig.payload, sig.ts or time.time(), sig.taken_step, rid)
        return await self._count("write", self._wait_sql.add_signal, params, run_id=rid) > 0

    async def list_signals(self, run_id: str) -> list[SignalRecord]:
        """The run's signals in arrival order (receive time, then id)."""
        check_id(run_id)
        rows = await self._rows(self._wait_sql.list_signals, (run_id,), run_id=run_id)
        return [self._signal_row(r) for r in rows]

    async def take_signal(self, run_id: str, name: str, step: int) -> SignalRecord | None:
        """Mark the oldest available signal `name` as taken by `step` and return it; None if none."""
        check_id(run_id)
        check_id(name, "signal name")
        w = self._wait_sql
        for _ in range(_TAKE_TRIES):
            rows = await self._rows(w.pick_signal, (run_id, name, step), run_id=run_id)
            if not rows:
                return None
            sig = self._signal_row(rows[0])
            if sig.taken_step == step:  # taken by an earlier try of this step, which never committed
                return sig
            params = (step, run_id, sig.signal_id, step)
            if await self._count("write", w.take_signal, params, run_id=run_id) == 1:
                return SignalRecord(sig.run_id, sig.signal_id, sig.name, sig.payload, sig.ts, step)
        return None

    async def release_signals(self, run_id: str, step: int) -> int:
        """Make the signals taken by `step` or later buffered again; how many were released."""
        check_id(run_id)
        params = (run_id, step)
        return await self._count("write", self._wait_sql.release_signals, params, run_id=run_id)
