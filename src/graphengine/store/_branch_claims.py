"""Branch claims: a fan-out branch run by a worker of its own, fenced like a run's lease.

A distributed fan-out (`graphengine.workers`) hands each branch to whichever worker takes its
job. The worker claims the branch (a row of `branch_claims`, with a token that grows on every
claim and an expiry on the database's clock), renews the claim while the branch runs, and
stores the branch's result with `save_branch`, one statement conditioned on the token being
current and unexpired. So a worker paused past its claim (or partitioned away) and woken after
another worker re-claimed the branch writes nothing (`LeaseLostError`); a result already stored
is refused (`StepConflictError`), whoever sends it. A branch whose node failed is marked so
(`fail_branch`): the join then knows the fan-out failed instead of waiting for that branch.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import NamedTuple

from ._lease import Lease
from ._sql import SQLStore
from .errors import LeaseLostError, StepConflictError, StoreError
from .ids import check_id
from .records import BranchRecord

__all__ = ["BranchClaimMixin", "BranchClaimStatements"]


class BranchClaimStatements(NamedTuple):
    """A dialect's statements for branch claims (parameters in the order each method documents)."""

    renew: str
    """(ttl, run_id, step, branch, token): extend a live claim; one row when it was."""
    fail: str
    """(error, run_id, step, branch, token): mark a live claim's branch failed; one row when it was."""
    save: str
    """(run_id, step, branch, node_id, delta, attempt, calls, ts, run_id, step, branch, token,
    run_id): insert the branch result if the claim is current and unexpired and no other
    worker leases the run."""
    stored: str
    """(run_id, step, branch): one row if the branch's result is stored."""
    counted: str
    """(run_id, step): how many of the fan-out's branch results are stored."""
    failed: str
    """(run_id, step): (branch, error) of the fan-out's branches marked failed."""
    expiry: str
    """(run_id, step, branch): (token, expiry in epoch seconds) of the branch's claim."""


class BranchClaimMixin(SQLStore):
    """`claim_branch` and the fenced branch writes over a dialect's `BranchClaimStatements`.

    The backend supplies `_claims` and `_claim_branch_row` (claiming is dialect-specific).
    """

    _claims: BranchClaimStatements

    async def _claim_branch_row(
        self, run_id: str, step: int, branch: int, worker: str, ttl: float
    ) -> tuple[int, float] | None:
        raise NotImplementedError

    async def claim_branch(
        self, run_id: str, step: int, branch: int, worker: str, ttl: float
    ) -> Lease | None:
        """Own branch `branch` of the fan-out at `step` for `ttl` seconds with a new token.

        None while another worker's claim is live, once the branch's result is stored, or once
        it was marked failed. The returned `Lease` names the run; keep `step` and `branch`
        beside it.
        """
        check_id(run_id)
        got = await self._claim_branch_row(run_id, step, branch, worker, float(ttl))
        if got is None:
            return None
        return Lease(run_id, worker, got[0], got[1])

    async def renew_branch(self, step: int, branch: int, lease: Lease, ttl: float) -> Lease:
        """Extend a live branch claim; `LeaseLostError` if it expired or another worker took it."""
        run_id = lease.run_id
        params = (float(ttl), run_id, step, branch, lease.token)
        if await self._count("lease", self._claims.renew, params, run_id=run_id, step=step) != 1:
            raise self._claim_lost(step, branch, lease, "renew")
        rows = await self._rows(self._claims.expiry, (run_id, step, branch), run_id=run_id)
        if not rows or int(rows[0][0]) != lease.token:
            raise self._claim_lost(step, branch, lease, "renew")
        return lease._replace(expires_at=float(rows[0][1]))

    async def save_branch(self, rec: BranchRecord, lease: Lease) -> None:
        """Store one branch result under its claim `lease`, in one fenced statement.

        `StepConflictError` if the branch's result is already stored (by anyone);
        `LeaseLostError` (nothing written) if the claim expired or was taken over, or another
        worker leases the run. A zero `ts` becomes now.
        """
        check_id(rec.run_id)
        if rec.run_id != lease.run_id:
            raise StoreError(f"branch of run {rec.run_id!r} saved under a claim on {lease.run_id!r}")
        r = rec if rec.ts else rec._replace(ts=time.time())
        params = (*r, r.run_id, r.step, r.branch, lease.token, r.run_id)
        try:
            n = await self._count("save_branches", self._claims.save, params, run_id=r.run_id, step=r.step)
        except StepConflictError as exc:
            raise self._stored_twice(r) from exc.__cause__
        if n == 1:
            return
        if await self._rows(self._claims.stored, (r.run_id, r.step, r.branch), run_id=r.run_id):
            raise self._stored_twice(r)
        raise self._claim_lost(r.step, r.branch, lease, "save its result")

    async def fail_branch(self, step: int, branch: int, lease: Lease, error: str) -> None:
        """Mark the claimed branch failed with `error` (the join then fails the fan-out).

        `LeaseLostError` if the claim is no longer live (another worker runs the branch now).
        """
        run_id = lease.run_id
        params = (error, run_id, step, branch, lease.token)
        if await self._count("lease", self._claims.fail, params, run_id=run_id, step=step) != 1:
            raise self._claim_lost(step, branch, lease, "mark it failed")

    async def branch_stored(self, run_id: str, step: int, branch: int) -> bool:
        """Whether branch `branch` of the fan-out at `step` has its result stored."""
        check_id(run_id)
        return bool(await self._rows(self._claims.stored, (run_id, step, branch), run_id=run_id))

    async def count_branches(self, run_id: str, step: int) -> int:
        """How many branch results of the fan-out at `step` are stored."""
        check_id(run_id)
        rows = await self._rows(self._claims.counted, (run_id, step), run_id=run_id)
        return int(rows[0][0]) if rows else 0

    async def failed_branches(self, run_id: str, step: int) -> Mapping[int, str]:
        """The branches of the fan-out at `step` marked failed, with their errors."""
        check_id(run_id)
        rows = await self._rows(self._claims.failed, (run_id, step), run_id=run_id)
        return {int(b): str(e) for b, e in rows}

    def _stored_twice(self, rec: BranchRecord) -> StepConflictError:
        return StepConflictError(
            f"{self!r}: branch {rec.branch} of step {rec.step} of run {rec.run_id!r} is already stored; "
            "a branch result is stored once",
            run_id=rec.run_id,
            step=rec.step,
        )

    def _claim_lost(self, step: int, branch: int, lease: Lease, what: str) -> LeaseLostError:
        return LeaseLostError(
            f"{self!r}: the claim (token {lease.token}) of branch {branch} of step {step} of run "
            f"{lease.run_id!r} is no longer live (expired, taken over, or the run is leased); "
            f"it cannot {what}",
            run_id=lease.run_id,
            step=step,
        )
