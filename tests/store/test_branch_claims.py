"""The `BranchLeaseStore` contract: branch claims, their fenced result writes, and what the join reads.

Run against PostgreSQL and MySQL/MariaDB (the stores distributed fan-out runs on); under
CI=true an unavailable server fails these tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from urllib.parse import urlsplit

import pytest
from db_servers import (
    MYSQL_DSN,
    POSTGRES_DSN,
    mysql_store,
    postgres_store,
    require_server,
    server_unavailable,
)

from graphengine.store import (
    BranchLeaseStore,
    BranchRecord,
    LeaseLostError,
    MySQLStore,
    PostgresStore,
    RunRecord,
    RunStatus,
    StepConflictError,
    StepRecord,
)

TTL = 0.5
"""Seconds of a claim meant to expire within the test."""
LIVE = 60.0
"""Seconds of a claim that must stay live through a test."""

_BACKENDS = {
    "postgres": (postgres_store, POSTGRES_DSN, "asyncpg"),
    "mysql": (mysql_store, MYSQL_DSN, "asyncmy"),
}


def _open(name: str) -> AbstractAsyncContextManager[PostgresStore] | AbstractAsyncContextManager[MySQLStore]:
    opener, dsn, driver = _BACKENDS[name]
    require_server(f"store backend {name!r}", server_unavailable(dsn, driver, name))
    return opener()


@pytest.fixture(params=sorted(_BACKENDS))
async def bstore(request: pytest.FixtureRequest) -> AsyncIterator[PostgresStore | MySQLStore]:
    """An empty server store holding run "r"."""
    async with _open(request.param) as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"{}"))
        yield s


def _rec(branch: int, delta: bytes = b'{"n":1}') -> BranchRecord:
    return BranchRecord("r", 3, branch, "work", delta, 1, None, 0.0)


async def test_server_stores_are_branch_lease_stores(bstore: PostgresStore | MySQLStore) -> None:
    """PostgresStore and MySQLStore implement the `BranchLeaseStore` protocol."""
    assert isinstance(bstore, BranchLeaseStore)


async def test_a_claimed_branch_is_stored_once_and_counted(bstore: PostgresStore | MySQLStore) -> None:
    """A live claim stores its branch's result; a second write of it is refused and the count says one."""
    lease = await bstore.claim_branch("r", 3, 0, "w1", LIVE)
    assert lease is not None and lease.token == 1
    await bstore.save_branch(_rec(0), lease)
    with pytest.raises(StepConflictError, match="already stored"):
        await bstore.save_branch(_rec(0, b'{"n":2}'), lease)
    assert await bstore.count_branches("r", 3) == 1
    [got] = await bstore.load_branches("r", 3)
    assert got.delta == b'{"n":1}' and got.ts > 0
    # A stored branch cannot be claimed again.
    assert await bstore.claim_branch("r", 3, 0, "w2", LIVE) is None


async def test_a_live_claim_is_exclusive_and_an_expired_one_is_fenced(
    bstore: PostgresStore | MySQLStore,
) -> None:
    """A second worker cannot claim a live branch; once it expires it can, with a greater token,
    and the first worker's late write is refused while the new claim's goes in."""
    first = await bstore.claim_branch("r", 3, 1, "w1", TTL)
    assert first is not None
    assert await bstore.claim_branch("r", 3, 1, "w2", LIVE) is None
    await asyncio.sleep(TTL + 0.3)
    with pytest.raises(LeaseLostError):
        await bstore.renew_branch(3, 1, first, LIVE)
    second = await bstore.claim_branch("r", 3, 1, "w2", LIVE)
    assert second is not None and second.token > first.token
    with pytest.raises(LeaseLostError):
        await bstore.save_branch(_rec(1, b'{"late":1}'), first)
    await bstore.save_branch(_rec(1), second)
    # The late writer, woken after the result landed, is refused as a duplicate.
    with pytest.raises(StepConflictError):
        await bstore.save_branch(_rec(1, b'{"late":1}'), first)
    [got] = await bstore.load_branches("r", 3)
    assert got.delta == b'{"n":1}'


async def test_renewal_keeps_a_claim_alive(bstore: PostgresStore | MySQLStore) -> None:
    """A renewed claim outlives its first expiry and still writes."""
    lease = await bstore.claim_branch("r", 3, 2, "w1", 1.0)
    assert lease is not None
    renewed = await bstore.renew_branch(3, 2, lease, LIVE)
    assert renewed.expires_at > lease.expires_at
    await asyncio.sleep(1.2)
    assert await bstore.claim_branch("r", 3, 2, "w2", LIVE) is None
    await bstore.save_branch(_rec(2), renewed)


async def test_a_failed_branch_is_reported_and_not_claimed_again(bstore: PostgresStore | MySQLStore) -> None:
    """`fail_branch` marks the branch for the join; it cannot be claimed again, even after expiry."""
    lease = await bstore.claim_branch("r", 3, 4, "w1", TTL)
    assert lease is not None
    await bstore.fail_branch(3, 4, lease, "NodeError: boom")
    assert dict(await bstore.failed_branches("r", 3)) == {4: "NodeError: boom"}
    await asyncio.sleep(TTL + 0.3)
    assert await bstore.claim_branch("r", 3, 4, "w2", LIVE) is None
    with pytest.raises(LeaseLostError):
        await bstore.fail_branch(3, 4, lease, "again")


async def test_a_branch_write_is_refused_while_another_worker_leases_the_run(
    bstore: PostgresStore | MySQLStore,
) -> None:
    """While a worker holds the run's lease (the join runs), branch results are not written."""
    lease = await bstore.claim_branch("r", 3, 5, "w1", LIVE)
    assert lease is not None
    async with _other(bstore) as other:
        run_lease = await other.claim("r", "joiner", LIVE)
        assert run_lease is not None
        with pytest.raises(LeaseLostError):
            await bstore.save_branch(_rec(5), lease)
        await other.release(run_lease)
    await bstore.save_branch(_rec(5), lease)


async def test_unknown_runs_cannot_be_claimed(bstore: PostgresStore | MySQLStore) -> None:
    """A claim of a branch of a run that does not exist gets nothing."""
    assert await bstore.claim_branch("nope", 1, 0, "w1", LIVE) is None
    assert await bstore.count_branches("nope", 1) == 0


def _other(s: PostgresStore | MySQLStore) -> AbstractAsyncContextManager[PostgresStore | MySQLStore]:
    """A second store object on the same tables (another worker process's view)."""
    if isinstance(s, PostgresStore):
        return PostgresStore(s.dsn, schema=s.schema, max_size=2)
    return MySQLStore(urlsplit(MYSQL_DSN)._replace(path=f"/{s.database}").geturl(), max_size=2)


async def test_deleting_history_takes_the_older_claims_with_it(bstore: PostgresStore | MySQLStore) -> None:
    """`delete_steps_before` removes the claims of fan-outs below the kept snapshot, like their results."""
    for step in (1, 2, 3, 4):
        await bstore.save_step(StepRecord("r", step, "n", None, '{"k":"stop"}', b"{}" if step == 4 else None))
    old = await bstore.claim_branch("r", 3, 0, "w1", TTL)
    assert old is not None
    await bstore.fail_branch(3, 0, old, "boom")
    kept = await bstore.claim_branch("r", 5, 0, "w1", LIVE)
    assert kept is not None
    assert await bstore.delete_steps_before("r", 4) == 3
    assert dict(await bstore.failed_branches("r", 3)) == {}
    await bstore.fail_branch(5, 0, kept, "still here")
    assert dict(await bstore.failed_branches("r", 5)) == {0: "still here"}
