"""The `LeaseStore` contract: leases, fencing tokens and `LeaseLostError`, on every backend that has them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager

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
    BranchRecord,
    LeaseLostError,
    LeaseStore,
    MySQLStore,
    PostgresStore,
    RunRecord,
    RunStatus,
    StepRecord,
    StoreError,
)

TTL = 0.5
"""Seconds a test lease lasts: short, so expiry tests are quick."""
HOLD_TTL = 2.0
"""Seconds of a lease that must outlast a stall of a loaded machine (a write right after the
claim, a renewal every half of it) and still expire within the test."""
LIVE_TTL = 60.0
"""Seconds of a lease that must stay live through a test: a loaded machine or a slow server can
take longer than `TTL` between two statements, which would let the lease expire mid-check."""

_BACKENDS = {
    "postgres": (postgres_store, POSTGRES_DSN, "asyncpg"),
    "mysql": (mysql_store, MYSQL_DSN, "asyncmy"),
}


def _open(name: str) -> AbstractAsyncContextManager[PostgresStore] | AbstractAsyncContextManager[MySQLStore]:
    opener, dsn, driver = _BACKENDS[name]
    require_server(f"store backend {name!r}", server_unavailable(dsn, driver, name))
    return opener()


@pytest.fixture(params=sorted(_BACKENDS))
async def lstore(request: pytest.FixtureRequest) -> AsyncIterator[PostgresStore | MySQLStore]:
    """An empty lease-capable store of each server backend."""
    async with _open(request.param) as s:
        await s.create_run(RunRecord("r", RunStatus.RUNNING, b"{}"))
        yield s


def other_store(s: PostgresStore | MySQLStore) -> PostgresStore | MySQLStore:
    """A second store object on the same tables: another worker process, as far as leases go."""
    if isinstance(s, PostgresStore):
        return PostgresStore(s.dsn, schema=s.schema, max_size=2)
    return MySQLStore(MYSQL_DSN.rsplit("/", 1)[0] + "/" + s.database, max_size=2)


def step(n: int, node: str = "n") -> StepRecord:
    return StepRecord("r", n, node, b"{}", '"x"', ts=float(n))


async def wait_expired(s: LeaseStore, worker: str, run_id: str = "r") -> None:
    """Wait (by polling the database clock through claims) until `worker` can claim `run_id`."""
    for _ in range(100):
        lease = await s.claim(run_id, worker, LIVE_TTL)
        if lease is not None:
            return
        await asyncio.sleep(TTL / 5)
    raise AssertionError("the lease never expired")


async def test_backends_satisfy_the_lease_protocol(lstore: LeaseStore) -> None:
    """Lease-capable backends are `LeaseStore`s at runtime."""
    assert isinstance(lstore, LeaseStore)


async def test_claims_get_ever_greater_tokens_and_exclude_others(lstore: LeaseStore) -> None:
    """A live lease keeps other workers out; each claim's token is greater than the last."""
    other = other_store(lstore)  # type: ignore[arg-type]
    try:
        # Open the second store's pool first: opening it can outlast a short lease on a busy machine.
        assert await other.get_run("r") is not None
        a = await lstore.claim("r", "a", LIVE_TTL)
        assert a is not None
        assert await other.claim("r", "b", LIVE_TTL) is None
        again = await lstore.claim("r", "a", LIVE_TTL)
        assert again is not None
        assert again.token > a.token
        await lstore.release(again)
        b = await other.claim("r", "b", LIVE_TTL)
        assert b is not None
        assert b.token > again.token
    finally:
        await other.close()


async def test_fenced_steps_of_many_runs_saved_at_once_commit_and_a_lost_lease_fails_alone(
    lstore: LeaseStore,
) -> None:
    """Steps of many leased runs saved at the same moment (one group commit) all commit, except
    the one whose lease another worker took: that one fails with `LeaseLostError`, writing nothing."""
    other = other_store(lstore)  # type: ignore[arg-type]
    ids = [f"f{i}" for i in range(20)]
    try:
        for run_id in ids:
            await lstore.create_run(RunRecord(run_id, RunStatus.RUNNING, b"{}"))
            assert await lstore.claim(run_id, "a", TTL if run_id == "f3" else 60.0) is not None
        await wait_expired(other, "b", "f3")  # f3's lease expired and another worker took it
        results = await asyncio.gather(
            *(lstore.save_step(StepRecord(r, 1, "n", b"{}", '"x"')) for r in ids), return_exceptions=True
        )
        assert isinstance(results[3], LeaseLostError)
        assert [r for i, r in enumerate(results) if i != 3] == [None] * (len(ids) - 1)
        for run_id in ids:
            assert [st.step for st in await lstore.load_steps(run_id)] == ([] if run_id == "f3" else [1])
    finally:
        await other.close()


async def test_claiming_an_unknown_run_is_an_error(lstore: LeaseStore) -> None:
    """There is no lease on a run that does not exist."""
    with pytest.raises(StoreError, match="does not exist"):
        await lstore.claim("ghost", "a", TTL)


async def test_stale_writer_is_fenced_off_after_a_takeover(lstore: LeaseStore) -> None:
    """After another worker claims the expired run, the old owner's writes raise `LeaseLostError` and write nothing."""
    other = other_store(lstore)  # type: ignore[arg-type]
    try:
        assert await lstore.claim("r", "a", HOLD_TTL) is not None
        await lstore.save_step(step(1, "a"))
        await wait_expired(other, "b")
        await other.save_step(step(2, "b"))
        with pytest.raises(LeaseLostError, match="taken over"):
            await lstore.save_step(step(3, "a"))
        with pytest.raises(LeaseLostError):
            await lstore.set_status("r", RunStatus.DONE)
        with pytest.raises(LeaseLostError):
            await lstore.save_branches([BranchRecord("r", 3, 0, "a", None, ts=1.0)])
        assert [(s.step, s.node_id) for s in await other.load_steps("r")] == [(1, "a"), (2, "b")]
        assert list(await other.load_branches("r", 3)) == []
        run = await other.get_run("r")
        assert run is not None
        assert run.status is RunStatus.RUNNING
    finally:
        await other.close()


async def test_write_after_expiry_is_refused_even_without_a_takeover(lstore: LeaseStore) -> None:
    """A lease that ran out fences its holder off at once, whether or not anyone claimed the run."""
    lease = await lstore.claim("r", "a", TTL / 5)
    assert lease is not None
    await asyncio.sleep(TTL / 5 + 0.1)
    with pytest.raises(LeaseLostError, match="expired"):
        await lstore.save_step(step(1))
    with pytest.raises(LeaseLostError):
        await lstore.renew(lease, TTL)
    assert list(await lstore.load_steps("r")) == []


async def test_renewal_keeps_the_lease_alive(lstore: LeaseStore) -> None:
    """A renewed lease outlives its first expiry and still writes."""
    lease = await lstore.claim("r", "a", HOLD_TTL)
    assert lease is not None
    for _ in range(3):
        await asyncio.sleep(HOLD_TTL / 2)
        renewed = await lstore.renew(lease, HOLD_TTL)
        assert renewed.token == lease.token
        assert renewed.expires_at > lease.expires_at
        lease = renewed
    await lstore.save_step(step(1))
    await lstore.save_branches([BranchRecord("r", 2, 0, "a", None, ts=1.0)])
    await lstore.set_status("r", RunStatus.DONE)
    await lstore.release(lease)
    run = await lstore.get_run("r")
    assert run is not None
    assert run.status is RunStatus.DONE


async def test_a_writer_without_the_lease_may_not_write_a_leased_run(lstore: LeaseStore) -> None:
    """While a worker holds the run, writes from a store holding no lease raise `LeaseLostError`; after release they work."""
    other = other_store(lstore)  # type: ignore[arg-type]
    try:
        lease = await lstore.claim("r", "a", TTL * 10)
        assert lease is not None
        with pytest.raises(LeaseLostError, match="leased by 'a'"):
            await other.save_step(step(1))
        with pytest.raises(LeaseLostError):
            await other.set_status("r", RunStatus.CANCELLED)
        with pytest.raises(LeaseLostError):
            await other.save_branches([BranchRecord("r", 2, 0, "b", None, ts=1.0)])
        await lstore.release(lease)
        await other.save_step(step(1))
        assert [s.step for s in await lstore.load_steps("r")] == [1]
    finally:
        await other.close()


# ------------------------------------------------------------------------------ real processes

_HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from graphengine.store import LeaseLostError, MySQLStore, PostgresStore, StepRecord

    async def main(kind, dsn, where, ttl):
        s = PostgresStore(dsn, schema=where) if kind == "postgres" else MySQLStore(dsn)
        lease = await s.claim("r", "holder", ttl)
        await s.save_step(StepRecord("r", 1, "holder", b"{}", '"x"', ts=1.0))

        async def heartbeat():
            nonlocal lease
            while True:
                await asyncio.sleep(ttl / 4)
                lease = await s.renew(lease, ttl)

        beat = asyncio.create_task(heartbeat())
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # the test says when to write step 2
        try:
            await s.save_step(StepRecord("r", 2, "holder", b"{}", '"x"', ts=2.0))
            print("written", flush=True)
        except LeaseLostError as exc:
            print("LeaseLostError", exc, flush=True)
        beat.cancel()
        await s.close()

    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
    """
)


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _spawn(kind: str, dsn: str, where: str) -> subprocess.Popen[str]:
    """Start the lease-holding worker process (stdin: go signal; stdout: what happened)."""
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, kind, dsn, where, str(HOLD_TTL)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=_ROOT,
    )


async def test_a_stopped_worker_past_its_lease_is_fenced_off(lstore: PostgresStore | MySQLStore) -> None:
    """A real process renewing its lease is SIGSTOPped past it; another takes the run over and the
    stopped one, continued, cannot write."""
    kind = "postgres" if isinstance(lstore, PostgresStore) else "mysql"
    dsn = (
        lstore.dsn
        if isinstance(lstore, PostgresStore)
        else MYSQL_DSN.rsplit("/", 1)[0] + "/" + lstore.database
    )
    where = lstore.schema if isinstance(lstore, PostgresStore) else lstore.database
    proc = _spawn(kind, dsn, where)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line.strip() == "ready"
        # While it runs, its heartbeat keeps the lease: nobody else can claim the run.
        await asyncio.sleep(HOLD_TTL * 1.5)
        assert await lstore.claim("r", "taker", TTL * 10) is None
        os.kill(proc.pid, signal.SIGSTOP)
        lease = None
        for _ in range(100):
            lease = await lstore.claim("r", "taker", TTL * 10)
            if lease is not None:
                break
            await asyncio.sleep(TTL / 5)
        assert lease is not None
        await lstore.save_step(step(2, "taker"))
        os.kill(proc.pid, signal.SIGCONT)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out = await asyncio.to_thread(proc.stdout.readline)
        assert out.startswith("LeaseLostError"), out
        assert [(s.step, s.node_id) for s in await lstore.load_steps("r")] == [(1, "holder"), (2, "taker")]
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.kill()
        proc.wait()


async def test_holds_says_whether_this_store_object_has_the_lease(lstore: LeaseStore) -> None:
    """`holds` is true from `claim` to `release`, and only on the store object that claimed."""
    other = other_store(lstore)  # type: ignore[arg-type]
    try:
        assert not lstore.holds("r")
        lease = await lstore.claim("r", "a", LIVE_TTL)
        assert lease is not None
        assert lstore.holds("r") and not other.holds("r")
        await lstore.release(lease)
        assert not lstore.holds("r")
    finally:
        await other.close()
