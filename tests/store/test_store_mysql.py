"""MySQLStore specifics beyond the shared contract: driver errors, schema versioning, JSON text."""

from __future__ import annotations

import asyncio
import sys

import pytest
from db_servers import MYSQL_DSN, mysql_store
from store_checks import check_json_text_kept

import graphengine.store.mysql as my_mod
from graphengine.store import (
    MissingDriverError,
    MySQLStore,
    RunExistsError,
    StepConflictError,
    StepRecord,
    StoreError,
    StoreUnavailableError,
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
        (my_errors.IntegrityError(1048, "null"), "save_step", StoreError),
        (my_errors.OperationalError(4025, "CHECK failed"), "save_step", StoreError),
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
