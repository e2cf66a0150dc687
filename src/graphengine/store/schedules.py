"""Schedules in the store: the record, the `ScheduleStore` protocol and the in-memory implementation.

A store keeps a schedule as opaque bytes plus the few columns a scheduler queries: when it is
next due and whether it is paused. What a schedule means (its cron expression or interval, its
overlap policy, its bookkeeping) is the engine's business (`graphengine.schedules`); stores
never decode it, like run state.

Several schedulers may share one store (three workers each running one): every change of a
schedule's record is a compare-and-set on its `version`, so of two schedulers that read the
same version only one writes; the other reads the record again and finds the work done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from .errors import ScheduleExistsError
from .ids import check_id
from .protocol import Store

__all__ = ["ScheduleMemoryMixin", "ScheduleRecord", "ScheduleStore"]


@dataclass(frozen=True, slots=True)
class ScheduleRecord:
    """One schedule as a store keeps it."""

    schedule_id: str
    """Unique id chosen by the caller (the same rules as run ids)."""
    spec: bytes
    """Encoded JSON definition: when it fires, its overlap policy, its catch-up window."""
    input: bytes
    """Encoded initial state of every run it starts."""
    due_at: int
    """Milliseconds since the epoch when a scheduler next has work for it (a fire, a buffered run)."""
    paused: bool = False
    """Paused schedules are never due."""
    state: bytes = b"{}"
    """Encoded JSON bookkeeping of the scheduler (next fire, buffered fire, last run, counters)."""
    version: int = 1
    """Bumped by every update; `update_schedule` writes only over the version it read."""
    created_at: float = 0.0
    """Creation time, seconds since the epoch (0: now)."""
    updated_at: float = 0.0
    """Time of the last update."""


@runtime_checkable
class ScheduleStore(Store, Protocol):
    """A `Store` that keeps schedules (optional extension; every bundled backend has it).

    Contract (checked by `tests/store/test_schedule_store_contract.py` against every backend):
    - Records come back exactly as written, bytes for bytes; ids are checked as run ids are.
    - `create_schedule` refuses a taken id with `ScheduleExistsError`, writing nothing.
    - `update_schedule(rec, expect_version=v)` writes only if the stored version is still `v`,
      atomically, and stores version `v + 1`; else it writes nothing and returns None.
    - `list_schedules(due_by=t)` returns the unpaused schedules with `due_at <= t`, soonest first.
    """

    async def create_schedule(self, rec: ScheduleRecord) -> ScheduleRecord:
        """Store a new schedule (version 1, zero timestamps become now) and return it as stored."""
        ...

    async def get_schedule(self, schedule_id: str) -> ScheduleRecord | None:
        """Return the schedule, or None if unknown."""
        ...

    async def list_schedules(self, *, due_by: int | None = None, limit: int = 1000) -> list[ScheduleRecord]:
        """All schedules by id; with `due_by` (ms since the epoch) the unpaused ones due by then, soonest first."""
        ...

    async def update_schedule(self, rec: ScheduleRecord, *, expect_version: int) -> ScheduleRecord | None:
        """Replace spec, input, due time, pause and state if the version is still `expect_version`.

        Returns the record as stored (version `expect_version + 1`), or None when the schedule
        is gone or another writer updated it first (nothing written).
        """
        ...

    async def delete_schedule(self, schedule_id: str) -> bool:
        """Delete the schedule (never the runs it started); False if it did not exist."""
        ...


class ScheduleMemoryMixin:
    """`ScheduleStore` on a dict, for `MemoryStore` (every method completes without awaiting)."""

    _schedules: dict[str, ScheduleRecord]

    def _init_schedules(self) -> None:
        self._schedules = {}

    async def create_schedule(self, rec: ScheduleRecord) -> ScheduleRecord:
        """Store a new schedule; `ScheduleExistsError` if the id is taken."""
        check_id(rec.schedule_id, "schedule id")
        if rec.schedule_id in self._schedules:
            raise ScheduleExistsError(
                f"schedule {rec.schedule_id!r} already exists", schedule_id=rec.schedule_id
            )
        now = time.time()
        stored = replace(rec, version=1, created_at=rec.created_at or now, updated_at=rec.updated_at or now)
        self._schedules[rec.schedule_id] = stored
        return stored

    async def get_schedule(self, schedule_id: str) -> ScheduleRecord | None:
        """Return the schedule, or None."""
        check_id(schedule_id, "schedule id")
        return self._schedules.get(schedule_id)

    async def list_schedules(self, *, due_by: int | None = None, limit: int = 1000) -> list[ScheduleRecord]:
        """All schedules by id, or the unpaused ones due by `due_by`, soonest first."""
        if due_by is None:
            return sorted(self._schedules.values(), key=lambda r: r.schedule_id)[: max(limit, 0)]
        due = [r for r in self._schedules.values() if not r.paused and r.due_at <= due_by]
        return sorted(due, key=lambda r: (r.due_at, r.schedule_id))[: max(limit, 0)]

    async def update_schedule(self, rec: ScheduleRecord, *, expect_version: int) -> ScheduleRecord | None:
        """Compare-and-set on the version; None if it moved or the schedule is gone."""
        check_id(rec.schedule_id, "schedule id")
        have = self._schedules.get(rec.schedule_id)
        if have is None or have.version != expect_version:
            return None
        stored = replace(
            rec,
            version=expect_version + 1,
            created_at=have.created_at,
            updated_at=rec.updated_at or time.time(),
        )
        self._schedules[rec.schedule_id] = stored
        return stored

    async def delete_schedule(self, schedule_id: str) -> bool:
        """Delete the schedule; False if unknown."""
        check_id(schedule_id, "schedule id")
        return self._schedules.pop(schedule_id, None) is not None
