"""`SQLStore`: the store algorithms once, over a backend's statements and driver.

Every statement of `Statements` takes its parameters in the order documented on the field, so the
algorithms bind the same tuple on every backend; a dialect writes its text to consume them in
that order (`?`, `%s`, or PostgreSQL's `$1..$n` numbered in order of appearance).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .._integrity import checked_steps, latest_of, orphans_error, status_conflict
from .._lease import Lease
from ..errors import (
    CorruptRecordError,
    LeaseLostError,
    RunExistsError,
    StepConflictError,
    StoreError,
    StoreUnavailableError,
)
from ..ids import check_id
from ..prune import PruneMixin
from ..records import BranchRecord, Checkpoint, Latest, RunRecord, RunStatus, StepRecord
from ..transfer import RunTransfer
from ._group import GroupCommit, Pending

__all__ = ["PORTABLE", "LeaseMixin", "Op", "SQLStore", "Statements", "meta_text", "run_record"]

Row = Sequence[Any]
_Refusal = Literal["step", "status", "other"]
Op = Literal["open", "create_run", "save_step", "save_branches", "save_checkpoint", "read", "write", "lease"]
"""The operation a driver error happened in (it picks the error class)."""


@dataclass(frozen=True, slots=True)
class Statements:
    """A dialect's statements; each field names the parameters it binds, in order."""

    insert_run: str
    """The ten run fields, then the run id three times; inserts nothing if rows of the id outlived its run."""
    orphans: str
    """run id x3 -> (lowest step or NULL, branches exist, checkpoints exist)."""
    first_step: str
    """run id -> (step, has snapshot) of the lowest stored step."""
    run_exists: str
    """run id."""
    get_run: str
    """run id -> the run row."""
    list_runs: str
    """limit."""
    list_runs_by_status: str
    """status, limit."""
    status_state: str
    """run id x2 -> (status, newest step or 0/NULL)."""
    set_status: str
    """status, error, error_node, updated_at, run id, expected step, run id, expected step,
    expected status x2 (a NULL expectation disables its check); refused while another's lease is live."""
    set_status_fenced: str | None
    """As `set_status`, then the fencing token."""
    insert_step: str
    """The 11 step fields, run id, step, run id; inserts nothing unless it is the next step."""
    insert_step_fenced: str | None
    """As `insert_step`, then the fencing token."""
    write_state: str
    """run id x2 -> (lease owner, token, lease live, lease expiry, newest step): why a write was refused."""
    load_from_snapshot: str
    """run id x2 -> the newest snapshot step and every step after it."""
    load_steps: str
    """run id, after, limit."""
    load_branches: str
    """run id, step."""
    save_checkpoint: str
    """run id, label, step, state, ts, run id; an upsert refusing unknown runs (0 rows)."""
    load_checkpoint: str
    """run id, label."""
    set_meta: str
    """meta, updated_at, run id."""
    delete_run: str
    """run id."""


PORTABLE: Final[dict[str, str]] = {
    "orphans": """SELECT (SELECT min(step) FROM steps WHERE run_id = ?), EXISTS (SELECT 1 FROM branches WHERE run_id = ?),
    EXISTS (SELECT 1 FROM checkpoints WHERE run_id = ?)""",
    "first_step": "SELECT step, state IS NOT NULL FROM steps WHERE run_id = ? ORDER BY step LIMIT 1",
    "run_exists": "SELECT 1 FROM runs WHERE run_id = ?",
    "get_run": "SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta FROM runs WHERE run_id = ?",
    "list_runs": "SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta FROM runs ORDER BY created_at DESC, run_id DESC LIMIT ?",
    "list_runs_by_status": "SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta FROM runs WHERE status = ? ORDER BY created_at DESC, run_id DESC LIMIT ?",
    # The newest snapshot and everything after it in ONE statement, so it reads one consistent
    # snapshot even while other connections append. When no step carries a state the base is 0
    # and every step comes back.
    "load_from_snapshot": """SELECT run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts FROM steps
WHERE run_id = ? AND step >= coalesce(
    (SELECT step FROM steps WHERE run_id = ? AND state IS NOT NULL ORDER BY step DESC LIMIT 1), 0)
ORDER BY step""",
    # No limit is the backend's `_no_limit` (-1 in SQLite, a huge number in MySQL).
    "load_steps": "SELECT run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts FROM steps WHERE run_id = ? AND step > ? ORDER BY step LIMIT ?",
    "load_branches": "SELECT run_id, step, branch, node_id, delta, attempt, calls, ts FROM branches WHERE run_id = ? AND step = ? ORDER BY branch",
    "load_checkpoint": "SELECT run_id, label, step, state, ts FROM checkpoints WHERE run_id = ? AND label = ?",
    "set_meta": "UPDATE runs SET meta = ?, updated_at = ? WHERE run_id = ?",
    "delete_run": "DELETE FROM runs WHERE run_id = ?",
}
"""The `Statements` that SQLite and MySQL write alike, with `?` placeholders (MySQL's are `%s`):
reads of runs, steps, branches and checkpoints, and the plain writes. PostgreSQL numbers its
parameters and casts its JSON, so it keeps its own."""


_STATUSES = {s.value: s for s in RunStatus}


def run_record(row: Row, run_id: str, meta: bytes) -> RunRecord:
    """A run record from a checked row whose key and meta the backend has converted already."""
    status = _STATUSES.get(row[1])
    if status is None:
        raise CorruptRecordError(
            f"run record of run {run_id!r} is corrupt: field 'status' holds unknown status {row[1]!r}",
            run_id=run_id,
            field="status",
        )
    return RunRecord(
        run_id, status, row[2], row[3], row[4], float(row[5]), float(row[6]), row[7], row[8], meta
    )


def meta_text(run: RunRecord, why: str) -> str:
    """A run's meta as the UTF-8 JSON text a server's JSON column holds; else `StoreError`."""
    try:
        return run.meta.decode()
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"run {run.run_id!r}: meta is not UTF-8 JSON text ({exc}); {why}", run_id=run.run_id
        ) from exc


class SQLStore(RunTransfer, PruneMixin):
    """The `Store` methods of every SQL backend, over `_sql`, `_count`, `_rows` and the row mappers."""

    _sql: Statements
    _no_limit: Any = None
    """What `load_steps` binds for "no limit"."""
    _max_branches: int | None = None
    """Most branch records one `save_branches` call may carry (a bound-parameter limit)."""
    _max_batch: int = 500
    """Most steps (of as many runs) one group commit writes together."""
    max_value_bytes: int | None = None
    """Most bytes of encoded values (delta, state, route, calls, events) one step record may
    carry, or None for no known limit. The engine checks each step against it before writing,
    so a step the backend could never take fails its run with a typed error."""
    _lost_replies: bool = False
    """Whether a write's commit can reach the database while its reply is lost (a server over a
    network): then a step write failing with `StoreUnavailableError` reads the step back, and
    one stored exactly as sent was this write's own commit."""

    def _init_sql(self) -> None:
        # Fencing tokens of the leases this store object holds, by run id (see LeaseStore).
        self._held: dict[str, int] = {}
        self._group = GroupCommit(self._write_steps, self._max_batch)

    # ---------------------------------------------------------------- driver and dialect hooks

    async def _count(
        self, op: Op, sql: str, params: Sequence[Any], *, run_id: str | None = None, step: int | None = None
    ) -> int:
        """Run one write statement; the number of rows it changed."""
        raise NotImplementedError

    async def _rows(self, sql: str, params: Sequence[Any], *, run_id: str | None = None) -> list[Row]:
        """Run one read statement; its rows."""
        raise NotImplementedError

    def _run_row(self, row: Row) -> RunRecord:
        raise NotImplementedError

    def _step_row(self, row: Row) -> StepRecord:
        return StepRecord._make(row)

    def _branch_row(self, row: Row) -> BranchRecord:
        return BranchRecord._make(row)

    def _checkpoint_row(self, row: Row) -> Checkpoint:
        return Checkpoint(*row)

    def _owner(self, value: Any, run_id: str) -> Any:
        """The lease owner column as the str it was written from."""
        return value

    def _meta(self, run: RunRecord) -> Any:
        """The value bound for a run's meta column."""
        return run.meta

    async def _branches_statement(
        self, rows: list[Sequence[Any]], runs: list[str], token: int | None
    ) -> tuple[str, Sequence[Any]]:
        """The one statement (and its parameters) writing branch rows `rows` of `runs`."""
        raise NotImplementedError

    # ---------------------------------------------------------------- runs

    async def create_run(self, run: RunRecord) -> None:
        """Store a new run; `RunExistsError` if the id is taken, `CorruptRecordError` if rows of an
        earlier run with this id outlived its run record. Zero timestamps become now.
        """
        check_id(run.run_id)
        now = time.time()
        rid = run.run_id
        params = (
            rid,
            run.status.value,
            run.initial,
            run.fingerprint,
            run.state_version,
            run.created_at or now,
            run.updated_at or now,
            run.error,
            run.error_node,
            self._meta(run),
            rid,
            rid,
            rid,
        )
        try:
            written = await self._insert_run(params, rid)
        except StoreUnavailableError:
            if self._lost_replies and await self._run_as_sent(params):
                return  # the connection went after our commit: the run is ours
            raise
        if written != 1:
            # The insert's NOT EXISTS guard stops it before the primary key is checked when the
            # taken id has steps: tell a live run (taken) from rows that outlived theirs (corrupt).
            if await self._rows(self._sql.run_exists, (rid,), run_id=rid):
                raise RunExistsError(f"run {rid!r} already exists", run_id=rid)
            raise await self._orphans(rid)

    async def _insert_run(self, params: tuple[Any, ...], run_id: str) -> int:
        """Run `insert_run` with `params`; the rows written. A backend may group it with other runs'."""
        return await self._count("create_run", self._sql.insert_run, params, run_id=run_id)

    async def _stored_run(self, run_id: str) -> RunRecord | None:
        """The stored run record, or None if there is none or it cannot be read (a cold check)."""
        try:
            rows = await self._rows(self._sql.get_run, (run_id,), run_id=run_id)
            return self._run_row(rows[0]) if rows else None
        except StoreError:
            return None

    async def _run_as_sent(self, params: tuple[Any, ...]) -> bool:
        """Whether the run `insert_run` params describe is stored exactly as sent (its timestamps
        included), after a write of it whose outcome is unknown."""
        run = await self._stored_run(params[0])
        if run is None:
            return False
        stored = (run.status.value, run.initial, run.fingerprint, run.state_version, run.created_at)
        rest = (run.updated_at, run.error, run.error_node, self._meta(run))
        return (*stored, *rest) == params[1:10]

    async def _status_as_sent(self, params: tuple[Any, ...]) -> bool:
        """Whether the run holds the status, error and `updated_at` that `set_status` params
        sent, after a write of them whose outcome is unknown (`updated_at` tells this write's
        own change from another writer's)."""
        run = await self._stored_run(params[4])
        return run is not None and (run.status.value, run.error, run.error_node, run.updated_at) == params[:4]

    async def _orphans(self, run_id: str) -> CorruptRecordError:
        """Describe the rows `run_id` left behind without a run record (cold path)."""
        rows = await self._rows(self._sql.orphans, (run_id, run_id, run_id), run_id=run_id)
        step, branches, _ = rows[0] if rows else (None, 0, 0)
        what = "steps" if step is not None else "branch results" if branches else "checkpoints"
        return orphans_error(run_id, step, what)

    async def get_run(self, run_id: str) -> RunRecord | None:
        """Return the run record, or None."""
        check_id(run_id)
        rows = await self._rows(self._sql.get_run, (run_id,), run_id=run_id)
        return self._run_row(rows[0]) if rows else None

    async def list_runs(self, *, status: RunStatus | None = None, limit: int = 100) -> list[RunRecord]:
        """Return runs, newest first (ties: higher run id first), optionally only those with `status`."""
        if status is None:
            rows = await self._rows(self._sql.list_runs, (max(limit, 0),))
        else:
            rows = await self._rows(self._sql.list_runs_by_status, (status.value, max(limit, 0)))
        return [self._run_row(r) for r in rows]

    async def set_status(
        self,
        run_id: str,
        status: RunStatus,
        *,
        error: str | None = None,
        error_node: str | None = None,
        expect_step: int | None = None,
        expect_status: RunStatus | None = None,
    ) -> None:
        """Change a run's status, error and `updated_at`; an unknown run is left alone.

        `LeaseLostError` (nothing changed) if this store's lease on the run was lost, or if it
        holds none and another worker's lease is live. Compare-and-set: with `expect_step` (0: no
        step yet) and/or `expect_status`, the write happens only if the run's newest step and
        status are still those, in the same statement; else `StatusConflictError`, nothing changed.
        """
        check_id(run_id)
        token = self._held.get(run_id)
        want = expect_status.value if expect_status is not None else None
        params: tuple[Any, ...] = (
            *(status.value, error, error_node, time.time(), run_id),
            *(expect_step, run_id, expect_step, want, want),
        )
        try:
            written = await self._update_status(params, token, run_id)
        except StoreUnavailableError:
            if self._lost_replies and await self._status_as_sent(params):
                return  # the connection went after our commit: the change is ours
            raise
        if written == 0:
            await self._refuse(run_id, None, token, "status")
            if expect_step is not None or expect_status is not None:
                rows = await self._rows(self._sql.status_state, (run_id, run_id), run_id=run_id)
                if rows:
                    now, last = rows[0]
                    raise status_conflict(self, run_id, now, int(last or 0), expect_step, expect_status)

    async def _update_status(self, params: tuple[Any, ...], token: int | None, run_id: str) -> int:
        """Run `set_status` (`set_status_fenced` with `token`); the rows changed. A backend may
        group it with other runs' status changes."""
        if token is None:
            return await self._count("write", self._sql.set_status, params, run_id=run_id)
        assert self._sql.set_status_fenced is not None
        return await self._count("write", self._sql.set_status_fenced, (*params, token), run_id=run_id)

    # ---------------------------------------------------------------- steps

    async def save_step(self, rec: StepRecord) -> None:
        """Append a step record in one statement (one transaction); `StepConflictError` unless it
        is the next step of an existing run, `LeaseLostError` if the writer may not write the run;
        either way nothing was written. A zero `ts` becomes now.
        """
        check_id(rec.run_id)
        # The record is a NamedTuple in column order, then the checks' values.
        params: tuple[Any, ...] = (
            (*rec, rec.run_id, rec.step, rec.run_id)
            if rec.ts
            else (*rec[:-1], time.time(), rec.run_id, rec.step, rec.run_id)
        )
        token = self._held.get(rec.run_id) if self._held else None
        if token is not None:
            params = (*params, token)
        p = Pending(params, rec.run_id, rec.step, token)
        try:
            # Returns after the commit of the batch holding this step (see `_group`).
            written = await self._group.submit(p)
        except StoreUnavailableError:
            if self._lost_replies and await self._stored_as_sent(p):
                return  # the connection went after our commit: the step is ours, stored once
            raise
        if written != 1:
            if p.unsure and await self._stored_as_sent(p):
                return  # refused on a retry because an earlier try of it committed unheard
            await self._refuse(rec.run_id, rec.step, token, "step")

    async def _stored_as_sent(self, p: Pending) -> bool:
        """Whether step `p` is stored exactly as `p` sent it (every field, `ts` included), after a
        write of it whose outcome is unknown. Another writer's step never matches: its record
        differs at least in its `ts`. False if the database cannot be read either."""
        try:
            rows = await self._rows(self._sql.load_steps, (p.run_id, p.step - 1, 1), run_id=p.run_id)
        except StoreError:
            return False
        return bool(rows) and tuple(self._step_row(rows[0])) == p.params[:11]

    async def _write_steps(self, batch: list[Pending]) -> None:
        """Write a batch of steps (one per run) and decide each; by default one statement each.

        A backend that can do better writes the batch in one transaction, and falls back to this
        when that transaction fails, so one step's bad value never fails another run's step.
        """
        for p in batch:
            try:
                p.done(await self._write_one(p))
            except Exception as exc:  # this step's own outcome (a bad value, a refused key)
                p.done(exc)

    async def _write_one(self, p: Pending) -> int:
        """Write one step in its own statement (and transaction); the rows written."""
        sql = self._sql.insert_step if p.token is None else self._sql.insert_step_fenced
        assert sql is not None
        return await self._count("save_step", sql, p.params, run_id=p.run_id, step=p.step)

    async def _refuse(self, run_id: str, step: int | None, token: int | None, what: _Refusal) -> None:
        """Explain why a conditioned write changed nothing (cold path, so it may take another read).

        Raises `LeaseLostError` when a lease stopped it, `StepConflictError` for a step that is not
        the next one or a step of an unknown run; returns when nothing needs explaining.
        """
        rows = await self._rows(self._sql.write_state, (run_id, run_id), run_id=run_id)
        if not rows:
            if what != "step":
                return
            raise StepConflictError(f"run {run_id!r} does not exist", run_id=run_id, step=step)
        owner, current, live, expires, last = rows[0]
        if token is not None and (current != token or not live):
            why = (
                "expired"
                if current == token
                else f"was taken over by {self._owner(owner, run_id)!r} (token {current})"
            )
            raise LeaseLostError(
                f"{self!r}: the lease on run {run_id!r} with token {token} {why}; nothing was written "
                "and the run's new owner resumes it",
                run_id=run_id,
                step=step,
            )
        if token is None and live:
            raise LeaseLostError(
                f"{self!r}: run {run_id!r} is leased by {self._owner(owner, run_id)!r} until "
                f"{expires:.3f} (database clock); only its owner may write it",
                run_id=run_id,
                step=step,
            )
        if what != "step":
            return  # raced with a lease that has since ended: nothing left to explain
        raise StepConflictError(
            f"step {step} of run {run_id!r} conflicts: the next step to write is {(last or 0) + 1}",
            run_id=run_id,
            step=step,
        )

    async def load_latest(self, run_id: str) -> Latest | None:
        """Return the run, its newest snapshot and the steps after it (two reads, each consistent).

        `CorruptRecordError` if a step is missing, or if steps of this id outlived its run record.
        """
        run = await self.get_run(run_id)
        if run is None:
            if await self._rows(self._sql.first_step, (run_id,), run_id=run_id):
                raise await self._orphans(run_id)
            return None
        # Steps are append-only, so the run row read a moment earlier stays valid for them.
        rows = await self._rows(self._sql.load_from_snapshot, (run_id, run_id), run_id=run_id)
        return latest_of(run, [self._step_row(r) for r in rows])

    async def load_steps(
        self, run_id: str, *, after: int = 0, limit: int | None = None
    ) -> Sequence[StepRecord]:
        """Return step records with `step > after`, in order, at most `limit` of them.

        `CorruptRecordError` if a step in that range is missing or the steps have no run record.
        """
        check_id(run_id)
        lim = self._no_limit if limit is None else max(limit, 0)
        rows = await self._rows(self._sql.load_steps, (run_id, after, lim), run_id=run_id)

        async def first_stored() -> tuple[int, bool] | None:
            got = await self._rows(self._sql.first_step, (run_id,), run_id=run_id)
            return (int(got[0][0]), bool(got[0][1])) if got else None

        async def run_exists() -> bool:
            return bool(await self._rows(self._sql.run_exists, (run_id,), run_id=run_id))

        steps = [self._step_row(r) for r in rows]
        return await checked_steps(run_id, after, steps, first_stored, run_exists)

    # ---------------------------------------------------------------- fan-out branches

    async def save_branches(self, recs: Sequence[BranchRecord]) -> None:
        """Store landed branch results in one statement, all or nothing. `StepConflictError`
        (nothing written) if a (run, step, branch) is taken or a run does not exist;
        `LeaseLostError` as for `save_step`. A zero `ts` becomes now.
        """
        if not recs:
            return
        for b in recs:
            check_id(b.run_id)
        first = recs[0]
        if self._max_branches is not None and len(recs) > self._max_branches:
            raise StoreError(
                f"save_branches got {len(recs)} records; at most {self._max_branches} fit in one atomic "
                "write: save them in several calls",
                run_id=first.run_id,
                step=first.step,
            )
        now = time.time()
        rows: list[Sequence[Any]] = [b if b.ts else (*b[:-1], now) for b in recs]
        runs = sorted({b.run_id for b in recs})
        held = [r for r in runs if r in self._held]
        if held and len(runs) > 1:
            raise StoreError(
                f"{self!r}: save_branches got records of {len(runs)} runs, one of them leased here; "
                "save a leased run's branches in a call of their own",
                run_id=first.run_id,
                step=first.step,
            )
        token = self._held.get(first.run_id) if held else None
        sql, params = await self._branches_statement(rows, runs, token)
        try:
            n = await self._count("save_branches", sql, params, run_id=first.run_id, step=first.step)
        except StepConflictError as exc:
            raise StepConflictError(
                f"{self!r}: a branch of step {first.step} of run {first.run_id!r} is already "
                "stored, or the run does not exist; nothing was written",
                run_id=first.run_id,
                step=first.step,
            ) from exc.__cause__
        if n == 0:
            # Refused by the lease condition: find the run whose lease stopped the batch.
            for run_id in runs:
                await self._refuse(run_id, first.step, token, "other")
            raise LeaseLostError(  # the lease ended between the write and the explanation
                f"{self!r}: branches of run {first.run_id!r} were refused by a lease",
                run_id=first.run_id,
                step=first.step,
            )

    async def load_branches(self, run_id: str, step: int) -> Sequence[BranchRecord]:
        """Return the stored branch results of the fan-out at `step`, in branch order."""
        check_id(run_id)
        rows = await self._rows(self._sql.load_branches, (run_id, step), run_id=run_id)
        return [self._branch_row(r) for r in rows]

    # ---------------------------------------------------------------- checkpoints

    async def save_checkpoint(self, cp: Checkpoint) -> None:
        """Save or replace the checkpoint `cp.label` of run `cp.run_id`; `StepConflictError` if
        the run does not exist. A zero `ts` becomes now.
        """
        check_id(cp.run_id)
        check_id(cp.label, "checkpoint label")
        params = (cp.run_id, cp.label, cp.step, cp.state, cp.ts or time.time(), cp.run_id)
        sql = self._sql.save_checkpoint
        n = await self._count("save_checkpoint", sql, params, run_id=cp.run_id, step=cp.step)
        # 0 rows can also mean "replaced with identical values" (MySQL), hence the check.
        if n == 0 and await self.get_run(cp.run_id) is None:
            raise StepConflictError(f"run {cp.run_id!r} does not exist", run_id=cp.run_id, step=cp.step)

    async def load_checkpoint(self, run_id: str, label: str) -> Checkpoint | None:
        """Return the checkpoint with this label, or None."""
        check_id(run_id)
        check_id(label, "checkpoint label")
        rows = await self._rows(self._sql.load_checkpoint, (run_id, label), run_id=run_id)
        return self._checkpoint_row(rows[0]) if rows else None

    # ---------------------------------------------------------------- retention

    async def update_meta(self, run_id: str, meta: bytes) -> None:
        """Replace the run's encoded JSON metadata. Unknown run: no effect."""
        check_id(run_id)
        value = self._meta(RunRecord(run_id, RunStatus.RUNNING, b"", meta=meta))
        await self._count("write", self._sql.set_meta, (value, time.time(), run_id), run_id=run_id)

    async def delete_run(self, run_id: str) -> bool:
        """Delete a run with its steps, branch results and checkpoints; False if it did not exist."""
        check_id(run_id)
        return await self._count("write", self._sql.delete_run, (run_id,), run_id=run_id) > 0


class LeaseMixin(SQLStore):
    """Lease bookkeeping of the server stores; the backend claims and renews in its dialect."""

    async def _claimed(self, run_id: str, worker: str, got: tuple[int, float] | None) -> Lease | None:
        """Record a claim's (token, expiry), or explain a refused claim: None, or unknown run."""
        if got is None:
            if await self.get_run(run_id) is None:
                raise StoreError(f"cannot claim run {run_id!r}: it does not exist", run_id=run_id)
            return None
        token, expires = got
        self._held[run_id] = token
        return Lease(run_id, worker, token, float(expires))

    async def _lease_gone(self, lease: Lease) -> LeaseLostError:
        """The error for a renewal that found its lease gone (raising a clearer one if it can)."""
        await self._refuse(lease.run_id, None, lease.token, "other")
        return LeaseLostError(f"{self!r}: the lease on run {lease.run_id!r} is gone", run_id=lease.run_id)

    def holds(self, run_id: str) -> bool:
        """Whether this store object holds a lease on `run_id` (claimed, not yet released).

        Says nothing of expiry: a lease held here that ran out still fences this store's writes.
        """
        return run_id in self._held

    def _let_go(self, lease: Lease) -> None:
        """Stop fencing this store's writes to the lease's run."""
        if self._held.get(lease.run_id) == lease.token:
            del self._held[lease.run_id]
