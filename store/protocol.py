"""The `Store` protocol: what the engine needs from persistence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .records import BranchRecord, Checkpoint, Latest, RunRecord, RunStatus, StepRecord

__all__ = ["Store"]


@runtime_checkable
class Store(Protocol):
    """Durable home of runs, their step records and named checkpoints.

    Contract (checked by `tests/test_store_contract.py` against every backend):
    - `save_step` is atomic: after it returns the step survives a crash of the process; a
      failed or interrupted call leaves nothing visible. A second write of the same
      (run id, step) raises `StepConflictError` and changes nothing.
    - Records come back exactly as written (bytes for bytes).
    - Methods on an unknown run id return None or empty results; they never invent a run.
    - Driver exceptions are translated to `StoreError` subclasses.
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
    ) -> None:
        """Change a run's status (and its error, cleared when None). Unknown run: no effect."""
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

    async def close(self) -> None:
        """Release connections; the store may not be used afterwards."""
        ...
