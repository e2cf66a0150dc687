"""Errors raised by stores.

    StoreError                      anything a store could not do
    ├── RunExistsError              create_run with an id already stored
    ├── ScheduleExistsError         create_schedule with an id already stored
    ├── StepConflictError           save_step for a (run, step) already stored (two writers)
    ├── StatusConflictError         set_status whose expected step/status no longer holds (two writers)
    ├── LeaseLostError              a write by a worker whose lease on the run expired or was taken over
    ├── CorruptRecordError          a stored row could not be decoded
    ├── StoreUnavailableError       the backend cannot be reached or opened
    ├── ValueRefusedError           a value this backend can never store (too large, NUL in text,
    │                               a lone surrogate, an int over 64 bits): retrying cannot help
    ├── InvalidIdError              a run id or checkpoint label no backend can key by (also a ValueError)
    └── MissingDriverError          an optional driver package is not installed

Driver exceptions (sqlite3, asyncpg, ...) are translated at the boundary, with `from exc`. A plain
`StoreError` or `StoreUnavailableError` may pass (the connection was lost, a lock timed out, the
disk is full): the same write can succeed later. `ValueRefusedError` never will.
"""

from __future__ import annotations

__all__ = [
    "CorruptRecordError",
    "InvalidIdError",
    "LeaseLostError",
    "MissingDriverError",
    "RunExistsError",
    "ScheduleExistsError",
    "StatusConflictError",
    "StepConflictError",
    "StoreError",
    "StoreUnavailableError",
    "ValueRefusedError",
]


class StoreError(Exception):
    """Root of every store error. `run_id` and `step` name what it is about, when known."""

    def __init__(self, msg: str, *, run_id: str | None = None, step: int | None = None) -> None:
        super().__init__(msg)
        self.run_id = run_id
        """The run concerned, if any."""
        self.step = step
        """The step concerned, if any."""


class RunExistsError(StoreError):
    """A run with this id is already stored."""


class ScheduleExistsError(StoreError):
    """A schedule with this id is already stored; `schedule_id` names it."""

    def __init__(self, msg: str, *, schedule_id: str) -> None:
        super().__init__(msg)
        self.schedule_id = schedule_id
        """The taken schedule id."""


class StepConflictError(StoreError):
    """A step record with this (run id, step) is already stored: another writer got there first."""


class StatusConflictError(StoreError):
    """A conditional `set_status` found the run moved on: its newest step or its status is not
    what the writer last saw (another process resumed or finished it). Nothing was changed;
    `step` is the run's newest committed step and `status` its current status when the write
    was refused.
    """

    def __init__(
        self, msg: str, *, run_id: str | None = None, step: int | None = None, status: str | None = None
    ) -> None:
        super().__init__(msg, run_id=run_id, step=step)
        self.status = status
        """The run's status when the write was refused."""


class LeaseLostError(StoreError):
    """The writer's lease on the run expired or another worker claimed the run (fencing).

    Raised by stores that support leases (`LeaseStore`) when a write is conditioned on a fencing
    token that is no longer current, or when a writer without the lease writes to a run another
    worker holds. Nothing was written; the worker must stop driving the run: its new owner
    resumes it from the last committed step.
    """


class CorruptRecordError(StoreError):
    """A stored record could not be decoded; `field` names the part that failed."""

    def __init__(
        self, msg: str, *, run_id: str | None = None, step: int | None = None, field: str = ""
    ) -> None:
        super().__init__(msg, run_id=run_id, step=step)
        self.field = field
        """Which part of the record failed to decode (e.g. "delta", "state", "route")."""


class StoreUnavailableError(StoreError):
    """The backend could not be opened or reached."""


class ValueRefusedError(StoreError):
    """The backend refused a value it can never store, whatever the retry: over its size limit
    (`max_value_bytes`, MySQL's `max_allowed_packet`, SQLite's `SQLITE_LIMIT_LENGTH`), text it
    cannot hold (NUL on PostgreSQL, a lone surrogate), an integer over 64 bits, a value a
    constraint rejects. Nothing was written. The engine fails the run on it (status `failed`)
    instead of leaving it resumable, as it does for a transient `StoreError`.
    """


class InvalidIdError(StoreError, ValueError):
    """A run id or checkpoint label that no backend could store as a byte-exact key.

    Raised by every store before it touches its database, with the same rules on all of them
    (see `graphengine.store.ids.check_id`); `value` is the offending id.
    """

    def __init__(self, msg: str, *, value: object, run_id: str | None = None) -> None:
        super().__init__(msg, run_id=run_id)
        self.value = value
        """The refused id."""


class MissingDriverError(StoreError):
    """An optional driver is not installed; the message names the pip extra to install."""
