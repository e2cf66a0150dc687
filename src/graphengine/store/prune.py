"""Retention: delete or compact finished runs by policy, never touching a run that can still move."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Collection
from dataclasses import dataclass, field

from .errors import StoreError
from .protocol import Store
from .records import RunStatus

__all__ = ["InvalidPolicyError", "PruneMixin", "PrunePolicy", "PruneReport", "prune"]


class InvalidPolicyError(StoreError, ValueError):
    """A prune policy that does not say what to keep: a negative or non-integer `keep_last`, a
    negative or NaN `keep_newer_than`, or something that is not a `PrunePolicy` at all. Raised
    before anything is read or deleted.
    """


_ALL_RUNS = 1 << 62


@dataclass(frozen=True, slots=True)
class PrunePolicy:
    """Which finished runs to remove (or compact).

    Only runs with status `done` are ever candidates: running, interrupted, failed and
    cancelled runs can still be resumed and are always kept whole. Among finished runs, the
    `keep_last` newest and those updated within `keep_newer_than` seconds are kept; with
    neither set every finished run is a candidate ("keep only unfinished ones").
    """

    keep_last: int | None = None
    """Keep the N most recently created runs (of any status)."""
    keep_newer_than: float | None = None
    """Keep runs updated less than this many seconds ago."""
    compact: bool = False
    """Instead of deleting candidates, keep each one's final state and summary and drop its history."""

    def __post_init__(self) -> None:
        """Refuse values that would not mean what they say (`InvalidPolicyError`)."""
        _check_policy(self)


def _check_policy(policy: object) -> None:
    if not isinstance(policy, PrunePolicy):
        raise InvalidPolicyError(f"prune needs a PrunePolicy, got {type(policy).__name__} {policy!r:.60}")
    n = policy.keep_last
    # bool is an int: keep_last=True would mean "keep 1", surely not what was meant.
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 0):
        raise InvalidPolicyError(f"keep_last={n!r}: expected a whole number of runs >= 0")
    t = policy.keep_newer_than
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or math.isnan(t) or t < 0):
        raise InvalidPolicyError(f"keep_newer_than={t!r}: expected seconds >= 0 (not NaN)")
    if not isinstance(policy.compact, bool):
        raise InvalidPolicyError(f"compact={policy.compact!r}: expected True or False")


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What a prune removed (or, with `dry_run`, would remove)."""

    deleted: tuple[str, ...] = ()
    """Runs deleted whole."""
    compacted: tuple[str, ...] = ()
    """Runs reduced to their final step."""
    steps_removed: int = 0
    """Step records removed from compacted runs (deleted runs not counted)."""
    dry_run: bool = False
    """True when nothing was changed."""
    kept: tuple[str, ...] = field(default=())
    """Finished runs the policy kept."""


async def prune(
    store: Store,
    policy: PrunePolicy,
    *,
    dry_run: bool = False,
    now: float | None = None,
    only: Collection[str] | None = None,
) -> PruneReport:
    """Apply `policy` to `store`; returns what was (or would be) removed.

    `InvalidPolicyError` (nothing touched) for a policy with invalid values. With `only`, runs
    outside it are never removed: pass the ids a dry run reported (and a user confirmed) so the
    real prune removes no more than that set. A run that stops being `done` between the listing
    and its deletion cannot exist (a done run never changes status), and runs that are still
    writing are not `done`, so concurrent runs are never affected.
    """
    _check_policy(policy)
    t = time.time() if now is None else now
    runs = await store.list_runs(limit=_ALL_RUNS)  # newest first
    protected = {r.run_id for r in runs[: policy.keep_last]} if policy.keep_last is not None else set()
    deleted: list[str] = []
    compacted: list[str] = []
    kept: list[str] = []
    removed = 0
    for run in runs:
        if run.status is not RunStatus.DONE:
            continue
        if only is not None and run.run_id not in only:
            kept.append(run.run_id)  # finished, and left alone: kept, as the dry run reported it
            continue
        fresh = policy.keep_newer_than is not None and t - run.updated_at < policy.keep_newer_than
        if run.run_id in protected or fresh:
            kept.append(run.run_id)
            continue
        if not policy.compact:
            deleted.append(run.run_id)
            if not dry_run:
                await store.delete_run(run.run_id)
            continue
        latest = await store.load_latest(run.run_id)
        if latest is None or latest.last is None or latest.last.state is None or not latest.last_step:
            continue
        first = await store.load_steps(run.run_id, limit=1)
        if first and first[0].step == latest.last_step:
            continue  # already compact
        compacted.append(run.run_id)
        if dry_run:
            removed += latest.last_step - (first[0].step if first else 1)
            continue
        removed += await store.delete_steps_before(run.run_id, latest.last_step)
        meta = json.loads(run.meta or b"{}")
        meta["compacted"] = {"at_step": latest.last_step, "ts": t}
        await store.update_meta(run.run_id, json.dumps(meta, separators=(",", ":"), sort_keys=True).encode())
    return PruneReport(tuple(deleted), tuple(compacted), removed, dry_run, tuple(kept))


class PruneMixin:
    """Gives a store `await store.prune(policy, dry_run=...)`."""

    async def prune(self, policy: PrunePolicy, *, dry_run: bool = False) -> PruneReport:
        """See `graphengine.store.prune`."""
        return await prune(self, policy, dry_run=dry_run)  # type: ignore[arg-type]
