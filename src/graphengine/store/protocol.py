"""The `Store` protocol: what the engine needs from persistence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from ._lease import Lease
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

__all__ = ["BranchLeaseStore", "LeaseStore", "RunLockStore", "Store", "WaitStore"]


@runtime_checkable
class Store(Protocol):
    """Durable home of runs, their step records and named checkpoints.

    Contract (checked by `tests/store/test_store_contract.py` against every backend):
    - `save_step` is atomic: after it returns the step survives a crash of the process; a
      failed or interrupted call leaves nothing visible. A second write of the same
      (run id, step) raises `StepConflictError` and changes nothing. Concurrent calls for
      different runs may share one commit (group commit); each returns only after its own
      step committed, and one step's failure fails no other.
    - Records come back exactly as written (bytes for bytes).
    - Methods on an unknown run id return None or empty results; they never invent a run.
    - Driver exceptions are translated to `StoreError` subclasses.
    - Ids compare byte for byte, and every backend refuses the same ids (`graphengine.store.ids.check_id`:
      empty, over 255 characters, NUL, lone surrogates) with `InvalidIdError` before touching
      its database.
    - A run's stored steps form one unbroken range (from step 1, or from a snapshot step when
      older history was pruned); a missing step, or steps, branches or checkpoints outliving
      their run record, are reported as `CorruptRecordError` naming the run and step, and
      `create_run` refuses an id whose earlier rows outlived their run record.
    """

    async def create_run(self, run: RunRecord) -> None:
        """Store a new run. Raises `RunExistsError` if the id is taken."""
        ...

    async def get_run(self, run_id: str) -> RunRecord | None:
        """Return the run record, or None if unknown."""
        ...

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
        """Change a run's status (and its error, cleared when None). Unknown run: no effect.

        Compare-and-set, so a writer that stalled cannot undo what another writer did meanwhile
        (a resumer flipping a run its owner finished back to running): with `expect_step` (the
        newest committed step the writer last saw; 0 = none) and/or `expect_status`, the write
        happens only if the run still has them, checked atomically with the write; otherwise
        nothing changes and `StatusConflictError` names the run's current step and status.
        """
        ...

    async def list_runs(self, *, status: RunStatus | None = None, limit: int = 100) -> list[RunRecord]:
        """Return runs, newest first, optionally only those with `status`."""
        ...

    async def save_step(self, rec: StepRecord) -> None:
        """Append one step record atomically; `StepConflictError` if that step exists."""
        ...

    async def load_latest(self, run_id: str) -> Latest | None:
        """Return the run, its newest state snapshot and the steps after it; None if unknown."""
        ...

    async def load_steps(
        self, run_id: str, *, after: int = 0, limit: int | None = None
    ) -> Sequence[StepRecord]:
        """Return the run's step records with `step > after`, in step order."""
        ...

    async def save_branches(self, recs: Sequence[BranchRecord]) -> None:
        """Persist landed fan-out branch results, all in one transaction.

        `StepConflictError` (and nothing written) if any (run, step, branch) is already stored.
        """
        ...

    async def load_branches(self, run_id: str, step: int) -> Sequence[BranchRecord]:
        """Return the stored branch results of the fan-out at `step`, in branch order."""
        ...

    async def save_checkpoint(self, cp: Checkpoint) -> None:
        """Save (or replace) the checkpoint `cp.label` of run `cp.run_id`."""
        ...

    async def load_checkpoint(self, run_id: str, label: str) -> Checkpoint | None:
        """Return the checkpoint with this label, or None."""
        ...

    async def update_meta(self, run_id: str, meta: bytes) -> None:
        """Replace the run's encoded JSON metadata. Unknown run: no effect."""
        ...

    async def delete_run(self, run_id: str) -> bool:
        """Delete a run with its steps, branch results and checkpoints; False if it did not exist."""
        ...

    async def delete_steps_before(self, run_id: str, step: int) -> int:
        """Delete the run's steps (and branch results) numbered below `step`, in one transaction.

        `step` must carry a state snapshot (so the run's state stays rebuildable), else
        `StoreError` and nothing is deleted. Returns how many step records were removed.
        """
        ...

    async def close(self) -> None:
        """Release connections; the store may not be used afterwards."""
        ...


@runtime_checkable
class LeaseStore(Store, Protocol):
    """A `Store` whose runs can be owned by one worker at a time, with fencing (optional extension).

    Contract (checked by `tests/store/test_store_leases.py` against every backend that has it):
    - `claim` gives a run to a worker until the lease expires (database clock), with a fencing
      token greater than any earlier claim's. It fails (None) while another worker's lease is live.
    - While this store object holds a lease on a run (from `claim` until `release`), its writes to
      that run (`save_step`, `save_branches`, `set_status`) are conditioned, in the same
      statement, on the token being current and the lease unexpired; otherwise they write
      nothing and raise `LeaseLostError`.
    - A store that holds no lease on a run may not write its steps, branches or status while
      another worker's lease on it is live (`LeaseLostError`); once the lease expired or was
      released, it writes as usual. Checkpoints (caller-chosen labels) are not fenced.
    """

    async def claim(self, run_id: str, worker: str, ttl: float) -> Lease | None:
        """Own `run_id` for `ttl` seconds with a new token; None if another worker's lease is live.

        Claiming a run this worker already holds takes a new token (the old one is fenced off).
        Raises `StoreError` for an unknown run.
        """
        ...

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        """Extend a live lease to `ttl` seconds from now; `LeaseLostError` if it expired or was taken."""
        ...

    async def release(self, lease: Lease) -> None:
        """Give the run up (its writes are no longer fenced here); no effect if the lease was lost."""
        ...

    def holds(self, run_id: str) -> bool:
        """Whether this store object holds a lease on `run_id` (claimed, not yet released).

        Says nothing of expiry: a lease held here that ran out still fences this store's writes.
        """
        ...


@runtime_checkable
class BranchLeaseStore(LeaseStore, Protocol):
    """A `LeaseStore` whose fan-out branches can be run by other workers, each under a claim.

    Contract (checked by `tests/store/test_branch_claims.py` on PostgreSQL and MySQL):
    - `claim_branch` gives one branch of a fan-out to a worker until the claim expires (database
      clock), with a token greater than any earlier claim's of that branch; None while another
      claim is live, once the branch's result is stored, or once it was marked failed.
    - `save_branch` stores one result in one statement conditioned on its claim being current
      and unexpired and on no other worker leasing the run: a stale claim writes nothing
      (`LeaseLostError`); a result already stored is refused (`StepConflictError`).
    - `count_branches` and `failed_branches` read what the join needs: how many results are
      stored, and which branches were marked failed (`fail_branch`) with their errors.
    """

    async def claim_branch(
        self, run_id: str, step: int, branch: int, worker: str, ttl: float
    ) -> Lease | None:
        """Own branch `branch` of the fan-out at `step` for `ttl` seconds; None if it is not free."""
        ...

    async def renew_branch(self, step: int, branch: int, lease: Lease, ttl: float) -> Lease:
        """Extend a live branch claim; `LeaseLostError` if it expired or was taken over."""
        ...

    async def save_branch(self, rec: BranchRecord, lease: Lease) -> None:
        """Store one branch result under its claim (`StepConflictError`, `LeaseLostError`)."""
        ...

    async def fail_branch(self, step: int, branch: int, lease: Lease, error: str) -> None:
        """Mark the claimed branch failed with `error`; `LeaseLostError` if the claim is gone."""
        ...

    async def branch_stored(self, run_id: str, step: int, branch: int) -> bool:
        """Whether branch `branch` of the fan-out at `step` has its result stored."""
        ...

    async def count_branches(self, run_id: str, step: int) -> int:
        """How many branch results of the fan-out at `step` are stored."""
        ...

    async def failed_branches(self, run_id: str, step: int) -> Mapping[int, str]:
        """Branches of the fan-out at `step` marked failed, with their errors."""
        ...


@runtime_checkable
class RunLockStore(Store, Protocol):
    """A `Store` that knows whether a live process is driving a run (optional extension).

    `SQLiteStore` (a byte lock on a sidecar file, dropped by the operating system when its
    process dies) and `MemoryStore` (no other process sees its runs) have it; the server stores
    have leases (`LeaseStore`) instead. The engine locks a run while it drives it, so a second
    caller gets `RunBusyError` instead of running the run's next node again, and a run left
    `running` by a crashed process is resumed at once.
    """

    def lock_run(self, run_id: str) -> bool:
        """Mark `run_id` as driven by this process; False if a live process (this one included) has."""
        ...

    def unlock_run(self, run_id: str) -> None:
        """Give up the lock of `lock_run` (no effect if it is not held here)."""
        ...


@runtime_checkable
class WaitStore(Store, Protocol):
    """A `Store` that keeps durable timers and signals (every backend of graphengine has it).

    Contract (checked by `tests/store/test_store_contract.py` against every backend):
    - A run has at most one timer: `put_timer` replaces it. `due_timers(now)` returns the timers
      of runs whose status is `waiting` with `wake_at <= now`, soonest first; `next_due()` the
      soonest `wake_at` of a waiting run. Neither holds anything per run in memory: a timer waker
      asks again. `clear_timer(run_id, step)` drops the due time of the timer set after `step`
      (the run was woken). Timers and signals go with their run (`delete_run`).
    - `add_signal` stores a signal once per (run, signal id): a second one with the same id is
      not stored (False), whatever its name or payload. An unknown run stores nothing (False).
      It is stored as given, `taken_step` included (an imported run keeps what its steps took).
    - `take_signal(run_id, name, step)` atomically marks the oldest signal named `name` that is
      buffered, or was taken by a step numbered `step` or later (a step that never committed,
      run again), as taken by `step`, and returns it; None when there is none.
    - `release_signals(run_id, step)` makes the signals taken by `step` or later buffered again
      (their step failed: it committed no use of them) and returns how many it released.
    - `list_signals` returns the run's signals in arrival order (receive time, then id).
    """

    async def put_timer(self, timer: TimerRecord) -> None:
        """Set (or replace) the run's timer. Unknown run: no effect."""
        ...

    async def get_timer(self, run_id: str) -> TimerRecord | None:
        """The run's timer, or None."""
        ...

    async def clear_timer(self, run_id: str, step: int) -> None:
        """Drop the due time of the run's timer if it was set after `step` (no effect otherwise)."""
        ...

    async def due_timers(self, now: float, *, limit: int = 100) -> list[TimerRecord]:
        """Timers of waiting runs due at `now` (`wake_at <= now`), soonest first, at most `limit`."""
        ...

    async def next_due(self) -> float | None:
        """The soonest `wake_at` of a waiting run, or None when no waiting run has one."""
        ...

    async def add_signal(self, sig: SignalRecord) -> bool:
        """Store a signal; False (nothing stored) if its id is taken for this run or the run is unknown."""
        ...

    async def list_signals(self, run_id: str) -> list[SignalRecord]:
        """The run's signals in arrival order."""
        ...

    async def take_signal(self, run_id: str, name: str, step: int) -> SignalRecord | None:
        """Mark the oldest available signal `name` as taken by `step` and return it (see the contract)."""
        ...

    async def release_signals(self, run_id: str, step: int) -> int:
        """Make the signals taken by `step` or later buffered again; how many were released."""
        ...
