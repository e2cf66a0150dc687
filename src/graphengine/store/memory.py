"""`MemoryStore`: the in-process store for tests and short-lived runs."""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence
from dataclasses import replace

from ._integrity import check_dense, latest_of, status_conflict
from .errors import RunExistsError, StepConflictError, StoreError
from .ids import check_id
from .prune import PruneMixin
from .records import (
    BranchRecord,
    Checkpoint,
    Latest,
    RunRecord,
    RunStatus,
    SignalRecord,
    StepRecord,
    TimerRecord,
)
from .schedules import ScheduleMemoryMixin
from .transfer import RunTransfer

__all__ = ["MemoryStore"]


def _step_of(rec: StepRecord) -> int:
    return rec.step


class _Run:
    __slots__ = ("branches", "checkpoints", "rec", "signals", "snapshot_index", "steps", "timer")

    def __init__(self, rec: RunRecord) -> None:
        self.rec = rec
        self.steps: list[StepRecord] = []
        # Position in `steps` of the newest record carrying a state snapshot (-1: none yet).
        self.snapshot_index = -1
        self.checkpoints: dict[str, Checkpoint] = {}
        self.branches: dict[tuple[int, int], BranchRecord] = {}
        self.timer: TimerRecord | None = None
        self.signals: dict[str, SignalRecord] = {}


class MemoryStore(RunTransfer, PruneMixin, ScheduleMemoryMixin):
    """Keeps everything in dicts; holds encoded bytes like every other store, so a state that
    would not survive a real store fails here too. Not shared between processes.

    Safe for many concurrent runs in one event loop: every method completes without awaiting,
    so each call is atomic with respect to other tasks.
    """

    def __init__(self) -> None:
        self._runs: dict[str, _Run] = {}
        self._init_schedules()

    async def create_run(self, run: RunRecord) -> None:
        """Store a new run; `RunExistsError` if the id is taken."""
        check_id(run.run_id)
        if run.run_id in self._runs:
            raise RunExistsError(f"run {run.run_id!r} already exists", run_id=run.run_id)
        now = time.time()
        self._runs[run.run_id] = _Run(
            replace(run, created_at=run.created_at or now, updated_at=run.updated_at or now)
        )

    async def get_run(self, run_id: str) -> RunRecord | None:
        """Return the run record, or None."""
        check_id(run_id)
        r = self._runs.get(run_id)
        return r.rec if r is not None else None

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
        """Change a run's status; with `expect_step`/`expect_status`, only if the run's newest step
        and status are still those (else `StatusConflictError`, nothing changed).
        """
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is not None:
            last = r.steps[-1].step if r.steps else 0
            if (expect_step is not None and last != expect_step) or (
                expect_status is not None and r.rec.status is not expect_status
            ):
                raise status_conflict(self, run_id, r.rec.status.value, last, expect_step, expect_status)
            r.rec = replace(r.rec, status=status, error=error, error_node=error_node, updated_at=time.time())

    def lock_run(self, run_id: str) -> bool:
        """True: no other process can see this store's runs (the engine excludes callers of this one).

        The `RunLockStore` side of the store: a run of a `MemoryStore` not driven in this process
        is driven nowhere, so a resume may take over a run left `running` (a cancelled driver).
        """
        check_id(run_id)
        return True

    def unlock_run(self, run_id: str) -> None:
        """Nothing to give up (see `lock_run`)."""

    async def list_runs(self, *, status: RunStatus | None = None, limit: int = 100) -> list[RunRecord]:
        """Return runs, newest first."""
        recs = [r.rec for r in self._runs.values() if status is None or r.rec.status == status]
        recs.sort(key=lambda rec: (rec.created_at, rec.run_id), reverse=True)
        return recs[:limit]

    async def save_step(self, rec: StepRecord) -> None:
        """Append a step record; `StepConflictError` unless it is the next step of the run."""
        check_id(rec.run_id)
        r = self._runs.get(rec.run_id)
        if r is None:
            raise StepConflictError(f"run {rec.run_id!r} does not exist", run_id=rec.run_id, step=rec.step)
        expected = r.steps[-1].step + 1 if r.steps else 1
        if rec.step != expected:
            raise StepConflictError(
                f"step {rec.step} of run {rec.run_id!r} conflicts: the next step to write is {expected}",
                run_id=rec.run_id,
                step=rec.step,
            )
        if not rec.ts:
            rec = rec._replace(ts=time.time())
        r.steps.append(rec)
        if rec.state is not None:
            r.snapshot_index = len(r.steps) - 1

    async def load_latest(self, run_id: str) -> Latest | None:
        """Return the newest snapshot and the steps after it; `CorruptRecordError` if one is missing."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is None:
            return None
        i = r.snapshot_index
        return latest_of(r.rec, r.steps[max(i, 0) :])

    async def load_steps(
        self, run_id: str, *, after: int = 0, limit: int | None = None
    ) -> Sequence[StepRecord]:
        """Return step records with `step > after`, in order; `CorruptRecordError` if one is missing."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is None or not r.steps:
            return []
        # Steps are dense from the first kept one (earlier ones may have been pruned, and then the
        # first kept one carries a snapshot); checked, so damage is reported, not skipped.
        steps = r.steps
        first = steps[0]
        if first.state is None:
            check_dense(run_id, steps[:1], 1)
        out = steps[bisect.bisect_right(steps, after, key=_step_of) :]
        out = out[:limit] if limit is not None else list(out)
        check_dense(run_id, out, max(after + 1, first.step))
        return out

    async def update_meta(self, run_id: str, meta: bytes) -> None:
        """Replace the run's metadata."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is not None:
            r.rec = replace(r.rec, meta=meta, updated_at=time.time())

    async def delete_run(self, run_id: str) -> bool:
        """Delete a run and everything it owns."""
        check_id(run_id)
        return self._runs.pop(run_id, None) is not None

    async def delete_steps_before(self, run_id: str, step: int) -> int:
        """Delete steps below `step`, which must carry a snapshot."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is None or not r.steps:
            return 0
        keep = [i for i, rec in enumerate(r.steps) if rec.step == step]
        if not keep or r.steps[keep[0]].state is None:
            raise StoreError(
                f"run {run_id!r}: step {step} has no state snapshot; deleting the steps before it would "
                "leave the run unrebuildable",
                run_id=run_id,
                step=step,
            )
        i = keep[0]
        r.steps = r.steps[i:]
        r.snapshot_index -= i
        r.branches = {k: v for k, v in r.branches.items() if k[0] >= step}
        return i

    async def save_branches(self, recs: Sequence[BranchRecord]) -> None:
        """Store landed branch results; all or nothing."""
        for b in recs:
            check_id(b.run_id)
        now = time.time()
        if recs:
            # The engine's batches hold one run's branches: check them all at once, then insert.
            run_id = recs[0].run_id
            first = self._runs.get(run_id)
            if first is not None and all(rec.run_id == run_id for rec in recs):
                have = first.branches
                keys = [(rec.step, rec.branch) for rec in recs]
                if len(set(keys)) == len(keys) and have.keys().isdisjoint(keys):
                    for key, rec in zip(keys, recs, strict=True):
                        have[key] = rec if rec.ts else rec._replace(ts=now)
                    return
        staged: list[tuple[_Run, tuple[int, int], BranchRecord]] = []
        seen: set[tuple[str, int, int]] = set()
        for rec in recs:
            r = self._runs.get(rec.run_id)
            key = (rec.step, rec.branch)
            if r is None or key in r.branches or (rec.run_id, *key) in seen:
                raise StepConflictError(
                    f"branch {rec.branch} of step {rec.step} of run {rec.run_id!r} is already stored "
                    "or the run does not exist",
                    run_id=rec.run_id,
                    step=rec.step,
                )
            seen.add((rec.run_id, *key))
            staged.append((r, key, rec if rec.ts else rec._replace(ts=now)))
        for r, key, rec in staged:
            r.branches[key] = rec

    async def load_branches(self, run_id: str, step: int) -> Sequence[BranchRecord]:
        """Return the branch results of one fan-out, in index order."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is None:
            return []
        return sorted((b for (s, _), b in r.branches.items() if s == step), key=lambda b: b.branch)

    async def save_checkpoint(self, cp: Checkpoint) -> None:
        """Save or replace a labelled checkpoint."""
        check_id(cp.run_id)
        check_id(cp.label, "checkpoint label")
        r = self._runs.get(cp.run_id)
        if r is None:
            raise StepConflictError(f"run {cp.run_id!r} does not exist", run_id=cp.run_id, step=cp.step)
        r.checkpoints[cp.label] = cp if cp.ts else replace(cp, ts=time.time())

    async def load_checkpoint(self, run_id: str, label: str) -> Checkpoint | None:
        """Return a labelled checkpoint, or None."""
        check_id(run_id)
        check_id(label, "checkpoint label")
        r = self._runs.get(run_id)
        return r.checkpoints.get(label) if r is not None else None

    async def close(self) -> None:
        """Nothing to release."""

    # ---------------------------------------------------------------- timers and signals (WaitStore)

    async def put_timer(self, timer: TimerRecord) -> None:
        """Set (or replace) the run's timer; an unknown run is left alone."""
        check_id(timer.run_id)
        if timer.signal is not None:
            check_id(timer.signal, "signal name")
        r = self._runs.get(timer.run_id)
        if r is not None:
            r.timer = timer

    async def get_timer(self, run_id: str) -> TimerRecord | None:
        """The run's timer, or None."""
        check_id(run_id)
        r = self._runs.get(run_id)
        return r.timer if r is not None else None

    async def clear_timer(self, run_id: str, step: int) -> None:
        """Drop the due time of the run's timer when it was set after `step`."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is not None and r.timer is not None and r.timer.step == step:
            r.timer = replace(r.timer, wake_at=None)

    def _waiting_timers(self) -> list[TimerRecord]:
        return [
            r.timer
            for r in self._runs.values()
            if r.timer is not None and r.timer.wake_at is not None and r.rec.status is RunStatus.WAITING
        ]

    async def due_timers(self, now: float, *, limit: int = 100) -> list[TimerRecord]:
        """Timers of waiting runs with `wake_at <= now`, soonest first (a scan: a test store)."""
        due = [t for t in self._waiting_timers() if t.wake_at is not None and t.wake_at <= now]
        due.sort(key=lambda t: (t.wake_at, t.run_id))
        return due[: max(limit, 0)]

    async def next_due(self) -> float | None:
        """The soonest due time of a waiting run, or None."""
        return min((t.wake_at for t in self._waiting_timers() if t.wake_at is not None), default=None)

    async def add_signal(self, sig: SignalRecord) -> bool:
        """Store a signal once per (run, id), as given; False if the id is taken or the run unknown."""
        check_id(sig.run_id)
        check_id(sig.signal_id, "signal id")
        check_id(sig.name, "signal name")
        r = self._runs.get(sig.run_id)
        if r is None or sig.signal_id in r.signals:
            return False
        r.signals[sig.signal_id] = replace(sig, ts=sig.ts or time.time())
        return True

    async def list_signals(self, run_id: str) -> list[SignalRecord]:
        """The run's signals in arrival order (receive time, then id)."""
        check_id(run_id)
        r = self._runs.get(run_id)
        return [] if r is None else sorted(r.signals.values(), key=lambda g: (g.ts, g.signal_id))

    async def take_signal(self, run_id: str, name: str, step: int) -> SignalRecord | None:
        """Mark the oldest available signal `name` as taken by `step` and return it; None if none."""
        check_id(name, "signal name")
        for sig in await self.list_signals(run_id):
            if sig.name == name and (sig.taken_step is None or sig.taken_step >= step):
                taken = replace(sig, taken_step=step)
                self._runs[run_id].signals[sig.signal_id] = taken
                return taken
        return None

    async def release_signals(self, run_id: str, step: int) -> int:
        """Make the signals taken by `step` or later buffered again; how many were released."""
        check_id(run_id)
        r = self._runs.get(run_id)
        if r is None:
            return 0
        back = [s for s in r.signals.values() if s.taken_step is not None and s.taken_step >= step]
        for sig in back:
            r.signals[sig.signal_id] = replace(sig, taken_step=None)
        return len(back)
