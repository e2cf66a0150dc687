"""Checks every backend applies to what it reads back: no missing steps, no orphaned rows.

A run's stored steps always form one unbroken range: from step 1, or from a step carrying a
state snapshot when older history was pruned (`delete_steps_before` keeps that invariant). A hole
in the range (a step deleted by hand, a damaged table) or steps whose run row is gone would
otherwise be folded silently into a wrong state; they are reported as `CorruptRecordError`
naming the run and the step instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from .errors import CorruptRecordError, StatusConflictError
from .records import Latest, RunRecord, RunStatus, StepRecord

__all__ = ["FirstStep", "check_dense", "checked_steps", "latest_of", "orphans_error", "status_conflict"]

FirstStep = Callable[[], Awaitable["tuple[int, bool] | None"]]
"""Reads the run's lowest stored step and whether it carries a snapshot (None: no steps)."""


def _gap(run_id: str, missing: int, found: int) -> CorruptRecordError:
    return CorruptRecordError(
        f"run {run_id!r} is corrupt: step {missing} is missing (the next stored step is {found}); "
        "the run's state cannot be rebuilt past it",
        run_id=run_id,
        step=missing,
        field="step",
    )


def orphans_error(run_id: str, step: int | None, what: str = "steps") -> CorruptRecordError:
    """The error for rows of `run_id` whose run record is gone (deleted under them)."""
    at = f" (from step {step})" if step is not None else ""
    return CorruptRecordError(
        f"run {run_id!r} is corrupt: {what}{at} are stored without their run record (deleted under "
        "them); delete or restore them before using this run id",
        run_id=run_id,
        step=step,
        field="run_id",
    )


def check_dense(run_id: str, steps: Sequence[StepRecord], first: int | None = None) -> None:
    """Raise `CorruptRecordError` unless `steps` are consecutive, starting at `first` if given."""
    if not steps:
        return
    expect = steps[0].step if first is None else first
    for rec in steps:
        if rec.step != expect:
            raise _gap(run_id, expect, rec.step)
        expect += 1


def latest_of(run: RunRecord, steps: Sequence[StepRecord]) -> Latest:
    """Build `Latest` from the run and its steps from the newest snapshot on (all steps when none
    carries a snapshot), checking that they leave no step out.
    """
    if not steps:
        return Latest(run=run, base_step=0, base_state=run.initial)
    first = steps[0]
    if first.state is not None:
        # Only the snapshot step itself can come first with a state.
        check_dense(run.run_id, steps)
        return Latest(
            run=run, base_step=first.step, base_state=first.state, tail=tuple(steps[1:]), last=steps[-1]
        )
    # No snapshot at all: the history must start at step 1 (pruning always keeps a snapshot).
    check_dense(run.run_id, steps, 1)
    return Latest(run=run, base_step=0, base_state=run.initial, tail=tuple(steps), last=steps[-1])


async def checked_steps(
    run_id: str,
    after: int,
    steps: Sequence[StepRecord],
    first_stored: FirstStep,
    run_exists: Callable[[], Awaitable[bool]],
) -> Sequence[StepRecord]:
    """Check the result of `load_steps(run_id, after=after)`: consecutive steps, starting right
    after `after` unless the run's history begins later at a snapshot (pruned), and a run record
    that owns them. The extra reads happen only when the first step is not `after + 1` or when
    the run record is gone.
    """
    if not steps:
        return steps
    check_dense(run_id, steps)
    r0 = steps[0].step
    if r0 != max(after, 0) + 1:
        lowest = await first_stored()
        if lowest is not None and lowest[0] < r0:
            raise _gap(run_id, max(after, 0) + 1, r0)
        if lowest is not None and lowest[0] == r0 and not lowest[1]:
            raise _gap(run_id, r0 - 1, r0)
    if not await run_exists():
        # Gone together with its steps in between (a concurrent delete_run) is not corruption.
        lowest = await first_stored()
        if lowest is not None:
            raise orphans_error(run_id, lowest[0])
        return []
    return steps


def status_conflict(
    store: object,
    run_id: str,
    status: str,
    step: int,
    expect_step: int | None,
    expect_status: RunStatus | None,
) -> StatusConflictError:
    """The error for a compare-and-set status write that found the run moved on."""
    return StatusConflictError(
        f"{store!r}: run {run_id!r} moved on (its status is {status!r} at step {step}; this writer "
        f"expected {expect_status and expect_status.value!r} at step {expect_step}); status left unchanged",
        run_id=run_id,
        step=step,
        status=status,
    )
