"""`ScheduleSQLMixin`: the `ScheduleStore` methods once for every SQL backend, over its statements."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import CorruptRecordError, ScheduleExistsError, StoreError
from ..ids import check_id
from ..schedules import ScheduleRecord

__all__ = ["ScheduleSQLMixin", "ScheduleStatements"]

Row = Sequence[Any]


@dataclass(frozen=True, slots=True)
class ScheduleStatements:
    """A dialect's schedule statements; each field names the parameters it binds, in order.

    Rows come back as `schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at`.
    """

    insert: str
    """The nine columns in row order, then the id again; inserts nothing if the id is taken."""
    get: str
    """schedule id."""
    list_all: str
    """limit; by id."""
    list_due: str
    """due_by, limit; unpaused with due_at <= due_by, soonest first (ties by id)."""
    update: str
    """spec, input, due_at, paused, state, updated_at, schedule id, expected version; bumps the version."""
    delete: str
    """schedule id."""


class ScheduleSQLMixin:
    """`ScheduleStore` over a backend's `_rows`/`_count` (see `graphengine.store._sql.SQLStore`)."""

    _schedule_sql: ScheduleStatements

    if TYPE_CHECKING:  # provided by the backend (`SQLStore`'s driver hooks)

        async def _count(
            self,
            op: Any,
            sql: str,
            params: Sequence[Any],
            *,
            run_id: str | None = None,
            step: int | None = None,
        ) -> int: ...

        async def _rows(self, sql: str, params: Sequence[Any], *, run_id: str | None = None) -> list[Row]: ...

    def _schedule_key(self, value: Any) -> Any:
        """The id column as the str it was written from (MySQL keys come back as bytes)."""
        return value

    def _schedule_row(self, row: Row) -> ScheduleRecord:
        """A checked record from a row; `CorruptRecordError` naming the first column of a wrong type."""
        sid = self._schedule_key(row[0])
        spec, data, due, paused, state, version, created, updated = row[1:]
        spec, data, state = (
            bytes(v) if isinstance(v, (bytearray, memoryview)) else v for v in (spec, data, state)
        )
        checks = (
            ("schedule_id", sid, (str,)),
            ("spec", spec, (bytes,)),
            ("input", data, (bytes,)),
            ("due_at", due, (int,)),
            ("paused", paused, (bool, int)),
            ("state", state, (bytes,)),
            ("version", version, (int,)),
            ("created_at", created, (float, int)),
            ("updated_at", updated, (float, int)),
        )
        for name, value, allowed in checks:
            if type(value) not in allowed:
                raise CorruptRecordError(
                    f"schedule {sid!r} is corrupt: field {name!r} holds {type(value).__name__} {value!r:.40}",
                    field=name,
                )
        return ScheduleRecord(
            sid, spec, data, due, bool(paused), state, version, float(created), float(updated)
        )

    async def create_schedule(self, rec: ScheduleRecord) -> ScheduleRecord:
        """Store a new schedule (version 1); `ScheduleExistsError` if the id is taken."""
        check_id(rec.schedule_id, "schedule id")
        now = time.time()
        stored = replace(rec, version=1, created_at=rec.created_at or now, updated_at=rec.updated_at or now)
        sid = rec.schedule_id
        params = (
            *(sid, stored.spec, stored.input, stored.due_at, stored.paused, stored.state),
            *(1, stored.created_at, stored.updated_at, sid),
        )
        try:
            written = await self._count("write", self._schedule_sql.insert, params)
        except StoreError:
            # Two creators racing past the NOT EXISTS guard: the key refuses the second.
            if await self.get_schedule(sid) is None:
                raise
            written = 0
        if written != 1:
            raise ScheduleExistsError(f"schedule {sid!r} already exists", schedule_id=sid)
        return stored

    async def get_schedule(self, schedule_id: str) -> ScheduleRecord | None:
        """Return the schedule, or None."""
        check_id(schedule_id, "schedule id")
        rows = await self._rows(self._schedule_sql.get, (schedule_id,))
        return self._schedule_row(rows[0]) if rows else None

    async def list_schedules(self, *, due_by: int | None = None, limit: int = 1000) -> list[ScheduleRecord]:
        """All schedules by id, or the unpaused ones due by `due_by` (ms), soonest first."""
        if due_by is None:
            rows = await self._rows(self._schedule_sql.list_all, (max(limit, 0),))
        else:
            rows = await self._rows(self._schedule_sql.list_due, (int(due_by), max(limit, 0)))
        return [self._schedule_row(r) for r in rows]

    async def update_schedule(self, rec: ScheduleRecord, *, expect_version: int) -> ScheduleRecord | None:
        """Compare-and-set on the version, in one statement; None if it moved or the schedule is gone."""
        check_id(rec.schedule_id, "schedule id")
        now = rec.updated_at or time.time()
        params = (
            rec.spec,
            rec.input,
            rec.due_at,
            rec.paused,
            rec.state,
            now,
            rec.schedule_id,
            expect_version,
        )
        if await self._count("write", self._schedule_sql.update, params) != 1:
            return None
        return replace(rec, version=expect_version + 1, updated_at=now)

    async def delete_schedule(self, schedule_id: str) -> bool:
        """Delete the schedule; False if unknown."""
        check_id(schedule_id, "schedule id")
        return await self._count("write", self._schedule_sql.delete, (schedule_id,)) > 0
