"""MySQLStore specifics beyond the shared contract: driver errors, schema versioning, JSON text."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from db_servers import MYSQL_DSN, mysql_database, mysql_store
from store_checks import check_json_text_kept

import graphengine.store.mysql as my_mod
from graphengine.store import (
    MissingDriverError,
    MySQLStore,
    RunExistsError,
    RunRecord,
    RunStatus,
    StepConflictError,
    StepRecord,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)

asyncmy = pytest.importorskip("asyncmy")
from asyncmy import errors as my_errors  # noqa: E402

pytestmark = pytest.mark.usefixtures("mysql_up")


def test_translation_table_covers_every_asyncmy_exception() -> None:
    """Every exception class asyncmy defines is translated by an entry of its own."""
    classes = {n for n, c in vars(my_errors).items() if isinstance(c, type) and issubclass(c, BaseException)}
    assert classes - set(my_mod._TRANSLATE) == set()


@pytest.mark.parametrize(
    ("exc", "op", "expected"),
    [
        (my_errors.IntegrityError(1062, "dup"), "create_run", RunExistsError),
        (my_errors.IntegrityError(1062, "dup"), "save_step", StepConflictError),
        (my_errors.IntegrityError(1452, "fk"), "save_branches", StepConflictError),
        (my_errors.IntegrityError(1048, "null"), "save_step", ValueRefusedError),
        (my_errors.OperationalError(4025, "CHECK failed"), "save_step", ValueRefusedError),
        (my_errors.OperationalError(2013, "lost"), "save_step", StoreUnavailableError),
        (my_errors.OperationalError(1213, "deadlock"), "read", StoreUnavailableError),
        (my_errors.ProgrammingError(1049, "unknown db"), "open", StoreUnavailableError),
        (ConnectionRefusedError("no"), "open", StoreUnavailableError),
    ],
)
def test_translation_picks_the_store_error(exc: BaseException, op: my_mod._Op, expected: type) -> None:
    """Driver exceptions become the `StoreError` subclass their error number and operation call for."""
    assert type(my_mod._translate(exc, op, "here")) is expected


def test_constructor_needs_no_event_loop_and_validates_the_dsn() -> None:
    """Construction opens nothing; a DSN without a database or of another scheme is refused."""
    MySQLStore("mysql://nobody@127.0.0.1:1/none")
    with pytest.raises(ValueError, match="database"):
        MySQLStore("mysql://root@127.0.0.1:3306")
    with pytest.raises(ValueError, match="scheme"):
        MySQLStore("postgresql://root@127.0.0.1/x")


def test_missing_driver_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without asyncmy, first use raises `MissingDriverError` naming the pip extra."""
    monkeypatch.setitem(sys.modules, "asyncmy", None)
    with pytest.raises(MissingDriverError, match=r"graphengine\[mysql\]"):
        asyncio.run(MySQLStore(MYSQL_DSN).get_run("x"))


async def test_unknown_database_is_unavailable() -> None:
    """A database that does not exist raises `StoreUnavailableError` on first use."""
    s = MySQLStore(MYSQL_DSN.rsplit("/", 1)[0] + "/no_such_db_here", connect_timeout=2)
    with pytest.raises(StoreUnavailableError):
        await s.get_run("x")


async def test_schema_version_is_recorded_and_newer_is_refused() -> None:
    """Open records the schema version; a database from a newer graphengine is refused."""
    async with mysql_store() as s:
        pool = await s._db()
        async with pool.acquire() as conn, conn.cursor() as cur:
            await cur.execute("SELECT max(version) FROM schema_version")
            assert (await cur.fetchone())[0] == my_mod.SCHEMA_VERSION
            await cur.execute("INSERT INTO schema_version VALUES (%s)", (my_mod.SCHEMA_VERSION + 1,))
        dsn = MYSQL_DSN.rsplit("/", 1)[0] + "/" + s.database
        newer = MySQLStore(dsn)
        with pytest.raises(StoreUnavailableError, match="newer"):
            await newer.get_run("x")
        await newer.close()


async def test_route_and_meta_keep_their_exact_json_text() -> None:
    """`route` and run `meta` come back with their exact text; text that is not JSON is refused."""
    async with mysql_store() as s:
        await check_json_text_kept(s)
        with pytest.raises(StoreError) as info:
            await s.save_step(StepRecord("r", 2, "n", None, "not json", ts=1.0))
        assert not isinstance(info.value, StepConflictError)
        assert len(await s.load_steps("r")) == 1


# ---------------------------------------------------------------- group commit in one statement


def _spy_one_statement(monkeypatch: pytest.MonkeyPatch, s: MySQLStore) -> list[tuple[int, bool]]:
    """Record (batch size, written in one statement) for every grouped batch of `s`."""
    seen: list[tuple[int, bool]] = []
    one = s._all_in_one_statement

    async def spied(conn: object, batch: list[object]) -> bool:
        done = await one(conn, batch)  # type: ignore[arg-type]
        seen.append((len(batch), done))
        return done

    monkeypatch.setattr(s, "_all_in_one_statement", spied)
    return seen


def _step(run_id: str, step: int, state: bytes | None = None) -> StepRecord:
    return StepRecord(run_id, step, "n", b"d", '"n"', state, ts=1.0)


async def _step_cases(s: MySQLStore, other: MySQLStore, refused: str) -> list[tuple[StepRecord, str]]:
    """Steps to save at once, each with the outcome the contract gives it: all written ("none"
    refused), one refused by a lease ("theirs", "lost"), or by leases, conflicts and a bad value."""
    for i in range(7):
        await s.create_run(RunRecord(f"r{i}", RunStatus.RUNNING, b"x"))
    await s.save_step(_step("r1", 1))
    assert await s.claim("r2", "w1", 60.0) is not None  # fenced by a current token: written
    cases = [
        (_step("r0", 1), "ok"),
        (_step("r1", 2, state=b"snapshot"), "ok"),
        (_step("r2", 1), "ok"),
    ]
    if refused in ("theirs", "all kinds"):  # another worker's live lease, this store unfenced
        assert await other.claim("r3", "w2", 60.0) is not None
        cases.append((_step("r3", 1), "LeaseLostError"))
    if refused in ("lost", "all kinds"):  # this store's token is stale
        assert await s.claim("r4", "w1", 0.05) is not None
        await asyncio.sleep(0.1)  # the lease on r4 ends; another worker takes the run
        assert await other.claim("r4", "w2", 60.0) is not None
        cases.append((_step("r4", 1), "LeaseLostError"))
    if refused == "all kinds":
        cases += [
            (_step("r5", 2), "StepConflictError"),
            (_step("nobody", 1), "StepConflictError"),
            (StepRecord("r6", 1, "n", None, "not json", ts=1.0), "ValueRefusedError"),
        ]
    return cases


@pytest.mark.parametrize("refused", ["none", "theirs", "lost", "all kinds"])
async def test_steps_saved_together_match_each_saved_alone(
    monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """Steps of many runs saved at the same moment go in ONE statement when every one of them is
    written; when one is refused or bad, each gets the outcome it gets when saved alone (the
    oracle: the same saves one at a time on a fresh database) and the others are written."""
    outcomes: list[list[str]] = []
    stored: list[list[object]] = []
    for together in (False, True):
        async with mysql_database() as dsn, MySQLStore(dsn, max_size=4) as s, MySQLStore(dsn) as other:
            cases = await _step_cases(s, other, refused)
            seen = _spy_one_statement(monkeypatch, s)
            if together:
                got = await asyncio.gather(*(s.save_step(r) for r, _ in cases), return_exceptions=True)
                assert seen == [(len(cases), refused == "none")]
            else:
                got = []
                for r, _ in cases:
                    try:
                        got.append(await s.save_step(r))
                    except StoreError as exc:
                        got.append(exc)
                assert seen == []
            outcomes.append(["ok" if g is None else type(g).__name__ for g in got])
            stored.append([[(st.step, st.state) for st in await s.load_steps(f"r{i}")] for i in range(7)])
    assert outcomes[0] == outcomes[1] == [want for _, want in cases]
    assert stored[0] == stored[1]


async def test_a_batch_too_large_for_one_statement_goes_a_statement_per_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Steps whose values together exceed what one statement may carry are still written together
    (one transaction), a statement each."""
    monkeypatch.setattr(my_mod, "_ONE_STATEMENT_BYTES", 1000)
    async with mysql_store() as s:
        for i in range(3):
            await s.create_run(RunRecord(f"r{i}", RunStatus.RUNNING, b"x"))
        seen = _spy_one_statement(monkeypatch, s)
        await asyncio.gather(*(s.save_step(_step(f"r{i}", 1, state=b"s" * 600)) for i in range(3)))
        assert seen == [(3, False)]
        for i in range(3):
            assert [(st.step, st.state) for st in await s.load_steps(f"r{i}")] == [(1, b"s" * 600)]


SRC = str(Path(__file__).resolve().parents[2] / "src")

REOPEN = """
import asyncio, sys
from graphengine.store import MySQLStore
from graphengine.adapters.langgraph_tables._mysql import MySQLCheckpointTable

async def main(dsn):
    for _ in range(3):
        async with MySQLStore(dsn, max_size=2) as s:
            await s.list_runs(limit=1)
        async with MySQLCheckpointTable(dsn) as t:
            await t.get("thread", "", None)

asyncio.run(main(sys.argv[1]))
"""


async def test_reopening_a_store_prints_nothing_on_stderr() -> None:
    """Opening an existing MySQL store is silent: no driver warning 'Table ... already exists' on stderr."""
    import subprocess

    async with mysql_database() as dsn:
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-W", "default", "-c", REOPEN, dsn],
            capture_output=True,
            text=True,
            timeout=120,
            env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


async def test_the_migration_lock_is_per_database() -> None:
    """Opening a store waits only for another opener of the same database, not of every database on the server."""
    from urllib.parse import urlsplit

    import asyncmy
    from db_servers import MYSQL_DSN as dsn

    url = urlsplit(dsn)
    async with mysql_database() as first, mysql_database() as second:
        # Another process is migrating the first database: it holds that database's lock.
        name = my_mod._lock_name(urlsplit(first).path.lstrip("/"))
        holder = await asyncmy.connect(host=url.hostname, port=url.port or 3306, user=url.username or "root")
        try:
            async with holder.cursor() as cur:
                await cur.execute("SELECT GET_LOCK(%s, 1)", (name,))
                assert (await cur.fetchone())[0] == 1
            async with my_mod.MySQLStore(second, max_size=2, connect_timeout=1) as s:
                assert await s.list_runs(limit=1) == []
            with pytest.raises(StoreUnavailableError, match="migration lock"):
                async with my_mod.MySQLStore(first, max_size=2, connect_timeout=1) as s:
                    await s.list_runs(limit=1)
        finally:
            holder.close()
