"""Grouped run writes: new runs (`create_run`) and status changes (`set_status`) of concurrent runs
commit together, each kind in one statement per batch, as steps do (`_group`).

Every call still gets the outcome (and the error) it gets when made alone: the backend's grouped
statement writes each row under the conditions of the single statement (`insert_run`;
`set_status` or, with a token, `set_status_fenced`) and says which runs it wrote; a run it did
not write, or every run of a batch whose statement failed, is written again alone, and that
statement's outcome (a taken id, rows an earlier run left, a lease, a compare-and-set conflict,
a refused value) is the call's. So one run's conflict or bad value fails no other run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Literal

from ..errors import RunExistsError
from ._core import SQLStore
from ._group import GroupCommit, Pending

__all__ = ["RUN_COLUMNS", "STATUS_COLUMNS", "Grouped", "GroupedRunsMixin", "group_rows"]

Grouped = Literal["runs", "statuses"]
"""Which grouped statement: new runs, or status changes."""

RUN_COLUMNS: Final = (
    "run_id",
    "status",
    "initial",
    "fingerprint",
    "state_version",
    "created_at",
    "updated_at",
    "error",
    "error_node",
    "meta",
)
"""The columns of a grouped `insert_run` row: its first ten parameters (see `Statements`)."""
STATUS_COLUMNS: Final = (
    "status",
    "error",
    "error_node",
    "updated_at",
    "run_id",
    "expect_step",
    "expect_status",
    "token",
)
"""The columns of a grouped `set_status` row: parameters 0-5 and 8 of `set_status`, then the
fencing token (None: unfenced)."""
_STATUS_PARAMS: Final = (0, 1, 2, 3, 4, 5, 8)


def group_rows(what: Grouped, batch: Sequence[Pending]) -> list[tuple[Any, ...]]:
    """One row per run of `batch`, in `RUN_COLUMNS` or `STATUS_COLUMNS` order."""
    if what == "runs":
        return [p.params[:10] for p in batch]
    return [(*(p.params[i] for i in _STATUS_PARAMS), p.token) for p in batch]


class GroupedRunsMixin(SQLStore):
    """`create_run` and `set_status` grouped across concurrent runs; the backend writes a batch
    in `_grouped`."""

    def _init_grouped(self, max_batch: int) -> None:
        self._runs_group = GroupCommit(self._write_runs, max_batch)
        self._status_group = GroupCommit(self._write_statuses, max_batch)

    async def _grouped(self, what: Grouped, batch: list[Pending]) -> set[str]:
        """Write `batch` (two runs or more, one row each: `group_rows`) in one statement; the ids
        of the runs it wrote. It may write all or none where the driver cannot tell which rows a
        statement wrote; a driver error (nothing written) may be raised."""
        raise NotImplementedError

    async def _insert_run(self, params: tuple[Any, ...], run_id: str) -> int:
        p = Pending(params, run_id, 0, None)
        try:
            written = await self._runs_group.submit(p)
        except RunExistsError:
            written = 0  # alone, a taken id is the primary key's error
            if not p.unsure:
                raise
        if written != 1 and p.unsure and await self._run_as_sent(params):
            return 1  # refused alone because the group's commit, unheard, had stored it
        return written

    async def _update_status(self, params: tuple[Any, ...], token: int | None, run_id: str) -> int:
        p = Pending(params, run_id, 0, token)
        written = await self._status_group.submit(p)
        if written != 1 and p.unsure and await self._status_as_sent(params):
            return 1  # refused alone because the group's commit, unheard, had changed it
        return written

    async def _write_runs(self, batch: list[Pending]) -> None:
        await self._write_grouped("runs", batch, self._one_run)

    async def _write_statuses(self, batch: list[Pending]) -> None:
        await self._write_grouped("statuses", batch, self._one_status)

    async def _one_run(self, p: Pending) -> int:
        return await super()._insert_run(p.params, p.run_id)

    async def _one_status(self, p: Pending) -> int:
        return await super()._update_status(p.params, p.token, p.run_id)

    async def _write_grouped(
        self, what: Grouped, batch: list[Pending], alone: Callable[[Pending], Awaitable[int]]
    ) -> None:
        """Write `batch` in one grouped statement; a row it did not write, or every row if it
        failed, goes again alone (`alone`), so each run's outcome is that of its own statement."""
        written: set[str] = set()
        if len(batch) > 1:
            try:
                written = await self._grouped(what, batch)
            except Exception:
                # Nothing of the batch was written, or (the connection lost after its commit)
                # all of it was: a row refused alone is compared with what was sent.
                for p in batch:
                    p.unsure = True
        for p in batch:
            if p.run_id in written:
                p.done(1)
                continue
            try:
                p.done(await alone(p))
            except Exception as exc:  # this run's own outcome
                p.done(exc)
