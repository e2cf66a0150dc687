"""Grouped new runs and status changes on the servers: `create_run` and `set_status` calls of many
runs at the same moment go in one statement per kind, and each call still gets the outcome (and
leaves the row) that the same call made alone gives. The oracle is the same calls made one at a
time on a fresh database. Each case of conflict also goes in a batch of its own among healthy
calls, since MySQL's grouped statement writes all of a batch or none of it: a condition it
missed would show there.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from db_servers import MYSQL_DSN, POSTGRES_DSN, server_store

from graphengine.store import (
    MySQLStore,
    PostgresStore,
    RunRecord,
    RunStatus,
    StepRecord,
    StoreError,
)

SERVERS = ["postgres", "mysql"]
Outcome = tuple[str, ...]
ServerStore = PostgresStore | MySQLStore


def _step(run_id: str, step: int) -> StepRecord:
    return StepRecord(run_id, step, "n", b"d", '"n"', ts=1.0)


def _outcome(got: object) -> Outcome:
    return ("ok",) if got is None else (type(got).__name__,)


def _mysql_dsn(s: MySQLStore) -> str:
    return urlsplit(MYSQL_DSN)._replace(path=f"/{s.database}").geturl()


@asynccontextmanager
async def _other(s: ServerStore) -> AsyncIterator[ServerStore]:
    """Another store on the same database (another worker's, in effect)."""
    other: ServerStore
    if isinstance(s, PostgresStore):
        other = PostgresStore(s.dsn, schema=s.schema, max_size=2)
    else:
        other = MySQLStore(_mysql_dsn(s), max_size=2)
    try:
        yield other
    finally:
        await other.close()


async def _orphan_steps(s: ServerStore, run_id: str) -> None:
    """Leave steps of `run_id` behind without its run row, past the foreign keys (PostgreSQL's are
    triggers a replica session does not fire; MySQL's are off with FOREIGN_KEY_CHECKS = 0)."""
    await s.create_run(RunRecord(run_id, RunStatus.RUNNING, b"x"))
    await s.save_step(_step(run_id, 1))
    if isinstance(s, PostgresStore):
        import asyncpg

        conn = await asyncpg.connect(POSTGRES_DSN, server_settings={"search_path": s.schema})
        try:
            await conn.execute("SET session_replication_role = replica")
            await conn.execute("DELETE FROM runs WHERE run_id = $1", run_id)
        finally:
            await conn.close()
        return
    import asyncmy

    url = urlsplit(MYSQL_DSN)
    my = await asyncmy.connect(
        host=url.hostname, port=url.port or 3306, user=url.username or "root", db=s.database, autocommit=True
    )
    try:
        async with my.cursor() as cur:
            await cur.execute("SET FOREIGN_KEY_CHECKS = 0")
            await cur.execute("DELETE FROM runs WHERE run_id = %s", (run_id,))
    finally:
        my.close()


async def _each(calls: list[Callable[[], Awaitable[None]]], together: bool) -> list[Outcome]:
    """The outcome of each call: all started at the same moment, or one after the other."""
    if together:
        got = await asyncio.gather(*(c() for c in calls), return_exceptions=True)
        return [_outcome(g) for g in got]
    out = []
    for c in calls:
        try:
            out.append(_outcome(await c()))
        except StoreError as exc:
            out.append(_outcome(exc))
    return out


def _spy(monkeypatch: pytest.MonkeyPatch, s: ServerStore) -> list[tuple[str, int, int]]:
    """Record (kind, runs in the batch, runs the grouped statement wrote) for every grouped batch."""
    seen: list[tuple[str, int, int]] = []
    grouped = s._grouped

    async def spied(what: Any, batch: list[Any]) -> set[str]:
        try:
            written = await grouped(what, batch)
        except Exception:
            seen.append((what, len(batch), 0))
            raise
        seen.append((what, len(batch), len(written)))
        return written

    monkeypatch.setattr(s, "_grouped", spied)
    return seen


def _checked_batches(seen: list[tuple[str, int, int]], kind: str, together: bool, healthy: bool) -> None:
    """Together, the calls went in a grouped statement, which wrote every run when all were healthy;
    one at a time, none did."""
    batches = [(n, w) for k, n, w in seen if k == kind]
    if not together:
        assert batches == []
        return
    assert max(n for n, _ in batches) > 1
    if healthy:
        assert all(w == n for n, w in batches), batches


def _groups(bad: dict[str, Any]) -> dict[str, list[str]]:
    """The batches each test makes: healthy calls only, each bad case among healthy ones, all of them."""
    return {"none": [], **{k: [k] for k in bad}, "all": list(bad)}


HEALTHY_RUNS = [
    RunRecord(f"new{i}", RunStatus.RUNNING, b"i%d" % i, meta=b'{"i": %d}' % i) for i in range(5)
] + [RunRecord("new9", RunStatus.INTERRUPTED, b"z")]
BAD_RUNS = {
    "taken": (RunRecord("taken", RunStatus.RUNNING, b"y"), "RunExistsError"),
    "orphaned": (RunRecord("orphaned", RunStatus.RUNNING, b"y"), "CorruptRecordError"),
    "bad meta": (RunRecord("badmeta", RunStatus.RUNNING, b"y", meta=b"not json"), "ValueRefusedError"),
    # A str the driver cannot encode: a statement over a derived table would store it altered.
    "lone surrogate": (
        RunRecord("surrogate", RunStatus.RUNNING, b"y", fingerprint="f\udce9"),
        "ValueRefusedError",
    ),
}


# A batch to make: each call with the outcome it must get, and a read of the rows it touched.
Batch = tuple[list[tuple[Callable[[], Awaitable[None]], str]], Callable[[], Awaitable[list[object]]]]


async def _check_against_alone(
    monkeypatch: pytest.MonkeyPatch,
    server: str,
    kind: str,
    groups: dict[str, list[str]],
    setup: Callable[[ServerStore, ServerStore], Awaitable[None]],
    batch: Callable[[ServerStore, str, list[str]], Batch],
) -> None:
    """Make every batch of `groups` on a fresh database (`setup`), its calls one at a time, then
    again at the same moment on another fresh database: the outcomes must be the wanted ones
    both times and the rows alike; together, each batch went in grouped statements of `kind`."""
    want: dict[str, list[Outcome]] = {}
    outcomes: list[dict[str, list[Outcome]]] = []
    stored: list[dict[str, list[object]]] = []
    for together in (False, True):
        outcomes.append({})
        stored.append({})
        async with server_store(server) as s, _other(s) as other:
            await setup(s, other)
            seen = _spy(monkeypatch, s)
            for g, bad in groups.items():
                calls, read = batch(s, g, bad)
                want[g] = [(w,) for _, w in calls]
                seen.clear()
                outcomes[-1][g] = await _each([c for c, _ in calls], together)
                _checked_batches(seen, kind, together, healthy=not bad)
                stored[-1][g] = await read()
    assert outcomes[0] == outcomes[1] == want
    assert stored[0] == stored[1]


@pytest.mark.parametrize("server", SERVERS)
async def test_runs_created_together_match_each_created_alone(
    monkeypatch: pytest.MonkeyPatch, server: str
) -> None:
    """Runs created at the same moment go in one grouped statement; each gets the outcome it gets
    when created alone: a taken id (`RunExistsError`), rows an earlier run left behind, a meta the
    JSON column refuses and a str no column can hold fail only their own run, the others are
    created, and every stored run reads back as when created alone. Each batch's runs have ids of
    their own (`<batch>/<run>`)."""
    groups = _groups(BAD_RUNS)

    async def setup(s: ServerStore, other: ServerStore) -> None:
        await asyncio.gather(
            *(s.create_run(RunRecord(f"{g}/taken", RunStatus.RUNNING, b"x")) for g in groups),
            *(_orphan_steps(s, f"{g}/orphaned") for g in groups),
        )

    def batch(s: ServerStore, g: str, bad: list[str]) -> Batch:
        cases = [(r, "ok") for r in HEALTHY_RUNS[:3]] + [BAD_RUNS[b] for b in bad]
        cases += [(r, "ok") for r in HEALTHY_RUNS[3:]]
        runs = [(dataclasses.replace(r, run_id=f"{g}/{r.run_id}"), w) for r, w in cases]

        async def read() -> list[object]:
            rows = [await s.get_run(r.run_id) for r, _ in runs]
            return [(r.run_id, r.status, r.initial, r.fingerprint, r.meta) if r else None for r in rows]

        return [(functools.partial(s.create_run, r), w) for r, w in runs], read

    await _check_against_alone(monkeypatch, server, "runs", groups, setup, batch)


STATUS_CASES: dict[str, tuple[str, dict[str, object], str]] = {
    "not at step 5": ("not5", {"expect_step": 5}, "StatusConflictError"),
    "not running": ("wasdone", {"expect_status": RunStatus.RUNNING}, "StatusConflictError"),
    "leased by another": ("theirs", {}, "LeaseLostError"),
    "lease lost": ("lost", {}, "LeaseLostError"),
    "unknown run": ("unknown", {}, "ok"),
    "lone surrogate": ("plain2", {"error": "cannot read \udce9"}, "ValueRefusedError"),
}
HEALTHY_STATUSES: list[tuple[str, dict[str, object], str]] = [
    ("plain", {}, "ok"),
    ("at2", {"expect_step": 2}, "ok"),
    ("mine", {"expect_step": 0, "expect_status": RunStatus.RUNNING}, "ok"),
]


async def _status_runs(s: ServerStore, other: ServerStore, prefixes: list[str]) -> None:
    """The runs the status cases change, under each prefix: plain ones, one at step 2, a done one,
    one leased by another worker, one leased here, and one whose lease here was lost to another
    worker."""

    async def make(g: str) -> None:
        for rid in ("plain", "plain2", "at2", "not5", "wasdone", "theirs", "mine", "lost"):
            await s.create_run(RunRecord(f"{g}/{rid}", RunStatus.RUNNING, b"x"))
        await s.save_step(_step(f"{g}/at2", 1))
        await s.save_step(_step(f"{g}/at2", 2))
        await s.set_status(f"{g}/wasdone", RunStatus.DONE)
        assert await other.claim(f"{g}/theirs", "w2", 60.0) is not None
        assert await s.claim(f"{g}/mine", "w1", 60.0) is not None
        assert await s.claim(f"{g}/lost", "w1", 0.05) is not None

    await asyncio.gather(*(make(g) for g in prefixes))
    await asyncio.sleep(0.1)  # the leases on "lost" end; another worker takes those runs
    for g in prefixes:
        assert await other.claim(f"{g}/lost", "w2", 60.0) is not None


@pytest.mark.parametrize("server", SERVERS)
async def test_status_changes_together_match_each_made_alone(
    monkeypatch: pytest.MonkeyPatch, server: str
) -> None:
    """Status changes of many runs at the same moment go in one grouped statement; each gets the
    outcome of the same change made alone: compare-and-set conflicts, another worker's live
    lease, a lost lease, an unknown run and a str no column can hold fail (or skip) only their
    own run, with and without this store's lease (fenced and unfenced rows in one statement)."""
    groups = _groups(STATUS_CASES)

    async def setup(s: ServerStore, other: ServerStore) -> None:
        await _status_runs(s, other, list(groups))

    def batch(s: ServerStore, g: str, bad: list[str]) -> Batch:
        cases = HEALTHY_STATUSES[:2] + [STATUS_CASES[b] for b in bad] + HEALTHY_STATUSES[2:]
        changes = [(f"{g}/{r}", {"error": "e", "error_node": "n", **kw}, w) for r, kw, w in cases]

        async def read() -> list[object]:
            rows = [await s.get_run(r) for r, _, _ in changes]
            return [(r.run_id, r.status, r.error, r.error_node) if r else None for r in rows]

        calls = [(functools.partial(s.set_status, r, RunStatus.FAILED, **kw), w) for r, kw, w in changes]  # type: ignore[arg-type]
        return calls, read

    await _check_against_alone(monkeypatch, server, "statuses", groups, setup, batch)
