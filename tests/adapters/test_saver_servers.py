"""`GraphEngineSaver` on the server tables (PostgreSQL, MySQL/MariaDB) under real LangGraph graphs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from db_servers import MYSQL_DSN, POSTGRES_DSN, mysql_store, postgres_store, unique_name

pytest.importorskip("langgraph")

from db_servers import drop_postgres_schema
from saver_helpers import growing, require_table

from goap import ActionSpec, GoalSpec, GoapGraph, GoapState
from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import (
    LGCheckpointRow,
    LGQuery,
    MySQLCheckpointTable,
    PostgresCheckpointTable,
)
from graphengine.store import StoreUnavailableError

SERVERS = ["postgres", "mysql"]
CFG: Any = {"configurable": {"thread_id": "t"}}
Table = PostgresCheckpointTable | MySQLCheckpointTable


async def _mysql_admin(sql: str) -> None:
    import asyncmy

    url = urlsplit(MYSQL_DSN)
    conn = await asyncmy.connect(
        host=url.hostname, port=url.port or 3306, user=url.username or "root", password=url.password or ""
    )
    try:
        async with conn.cursor() as cur:
            await cur.execute(sql)
        await conn.commit()
    finally:
        conn.close()


async def new_table(kind: str) -> Table:
    """An empty, unopened table on a server, in a schema or database of its own."""
    name = unique_name("lg")
    if kind == "postgres":
        return PostgresCheckpointTable(POSTGRES_DSN, schema=name, max_size=4)
    # The name is ours (unique_name), not user text; identifiers cannot be bound.
    await _mysql_admin(f"CREATE DATABASE {name}")
    return MySQLCheckpointTable(urlsplit(MYSQL_DSN)._replace(path=f"/{name}").geturl(), max_size=4)


async def drop_table(table: Table) -> None:
    """Close the table and drop its schema or database."""
    await table.close()
    if isinstance(table, PostgresCheckpointTable):
        await drop_postgres_schema(table.schema)
    else:
        await _mysql_admin(f"DROP DATABASE IF EXISTS {table.database}")


@asynccontextmanager
async def server_table(kind: str) -> AsyncIterator[Table]:
    """`new_table`, dropped afterwards."""
    table = await new_table(kind)
    try:
        yield table
    finally:
        await drop_table(table)


async def count_blobs(table: Table, channel: str) -> int:
    """How many blob rows a channel has in the table."""
    if isinstance(table, PostgresCheckpointTable):
        rows = await table._fetch("SELECT count(*) FROM lg_blobs WHERE channel = $1", channel)
    else:
        rows = await table._fetch("SELECT count(*) FROM lg_blobs WHERE channel = %s", (channel,))
    return int(rows[0][0])


@contextmanager
def sync_server_table(kind: str) -> Iterator[Table]:
    """`server_table` for a test with no event loop of its own (set-up and clean-up in loops of their own)."""
    table = asyncio.run(new_table(kind))
    try:
        yield table
    finally:
        asyncio.run(drop_table(table))


@pytest.mark.parametrize("kind", SERVERS)
def test_sync_invoke_outside_any_event_loop(kind: str) -> None:
    """Sync invoke, get_state and history work through the saver's own loop on a server table."""
    require_table(kind)
    with sync_server_table(kind) as table:
        app = growing(5, GraphEngineSaver(table))
        out = app.invoke({"items": [], "blob": "x"}, CFG)
        assert out == {"items": [0, 1, 2, 3, 4], "blob": "x"}
        assert app.get_state(CFG).values == out
        assert [len(h.values.get("items", [])) for h in app.get_state_history(CFG)] == [5, 4, 3, 2, 1, 0, 0]


@pytest.mark.parametrize("kind", SERVERS)
async def test_an_unchanged_channel_is_stored_once(kind: str) -> None:
    """The 10 kB field that never changes has one blob row, however many checkpoints share it."""
    require_table(kind)
    async with server_table(kind) as table, table:
        saver = GraphEngineSaver(table)
        await growing(20, saver).ainvoke({"items": [], "blob": "b" * 10_000}, CFG)
        tup = await saver.aget_tuple(CFG)
        assert tup is not None and tup.checkpoint["channel_values"]["blob"] == "b" * 10_000
        assert await count_blobs(table, "blob") == 1


@pytest.mark.parametrize("kind", SERVERS)
async def test_prune_keeps_the_latest_state_whole(kind: str) -> None:
    """After prune(keep_latest) the thread's state reads back in full and older blobs are collected."""
    require_table(kind)
    async with server_table(kind) as table, table:
        saver = GraphEngineSaver(table)
        app = growing(4, saver)
        await app.ainvoke({"items": [], "blob": "keep"}, CFG)
        assert await count_blobs(table, "items") > 1
        await saver.aprune(["t"])
        assert (await app.aget_state(CFG)).values == {"items": [0, 1, 2, 3], "blob": "keep"}
        assert await count_blobs(table, "items") == 1
        assert len([h async for h in saver.alist(CFG)]) == 1


@pytest.mark.parametrize("kind", SERVERS)
async def test_tables_live_beside_the_run_store(kind: str) -> None:
    """The lg_ tables share the schema/database of a PostgresStore or MySQLStore without disturbing it."""
    require_table(kind)
    from engine_fixtures import S, seed_engine

    opener: Any = postgres_store if kind == "postgres" else mysql_store
    async with opener() as store:
        eng = seed_engine(store)
        assert (await eng.run("r", S())).n == 3
        beside: Any = PostgresCheckpointTable if kind == "postgres" else MySQLCheckpointTable
        async with beside.beside(store, max_size=2) as table:
            out = await growing(3, GraphEngineSaver(table)).ainvoke({"items": [], "blob": ""}, CFG)
            assert out["items"] == [0, 1, 2]
        assert (await eng.get_state("r")).n == 3
        assert [r.run_id for r in await store.list_runs()] == ["r"]


def _offline(world: Any) -> None:
    raise RuntimeError("HSM offline")


@pytest.mark.parametrize("kind", SERVERS)
async def test_a_goap_agent_checkpoints_into_a_server_table(kind: str) -> None:
    """GoapGraph.to_langgraph with GraphEngineSaver on a server: a replanning run ends achieved and is stored."""
    require_table(kind)
    acts = [
        ActionSpec("build", {}, {"built": True}),
        ActionSpec("sign_hsm", {"built": True}, {"signed": True}, cost=1, execute=_offline),
        ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=3),
    ]
    async with server_table(kind) as table, table:
        app = GoapGraph(acts, blacklist_after=1).to_langgraph(checkpointer=GraphEngineSaver(table))
        start = GoapState(world_state={"built": False, "signed": False}, goal=GoalSpec({"signed": True}))
        # The checkpointer stores the input as given: the goal in its JSON form (see to_langgraph).
        out = await app.ainvoke(start.model_dump(mode="json"), CFG)
        final = GoapState(**out)
        assert final.status == "achieved"
        assert final.blacklisted_actions == ["sign_hsm"]
        assert GoapState(**(await app.aget_state(CFG)).values) == final


@pytest.mark.parametrize("kind", SERVERS)
async def test_an_unreachable_server_is_store_unavailable(kind: str) -> None:
    """Nothing listening at the DSN raises StoreUnavailableError when the table opens."""
    pytest.importorskip("asyncpg" if kind == "postgres" else "asyncmy")  # the driver, no server
    table: Table = (
        PostgresCheckpointTable("postgresql://postgres@127.0.0.1:1/test", connect_timeout=2)
        if kind == "postgres"
        else MySQLCheckpointTable("mysql://root@127.0.0.1:1/test", connect_timeout=2)
    )
    with pytest.raises(StoreUnavailableError):
        async with table:
            pass


def test_server_dsns_are_configured() -> None:
    """The server tables use the shared test servers (GRAPHENGINE_TEST_POSTGRES / _MYSQL)."""
    assert POSTGRES_DSN.startswith("postgresql://")
    assert MYSQL_DSN.startswith("mysql://")


def _row(thread: str, cp_id: str, ns: str = "", payload: bytes = b"cp") -> LGCheckpointRow:
    return LGCheckpointRow(thread, ns, cp_id, None, "json", payload, "json", b"{}", "run", b"{}")


@pytest.mark.parametrize("kind", SERVERS)
async def test_ids_differing_by_trailing_spaces_are_distinct(kind: str) -> None:
    """Thread, namespace and checkpoint ids compare byte for byte: "t" and "t " are two threads."""
    require_table(kind)
    async with server_table(kind) as table, table:
        await table.put(_row("t", "1", payload=b"a"), [])
        await table.put(_row("t ", "1", payload=b"b"), [])
        await table.put(_row("t", "1 ", payload=b"c"), [])
        await table.put(_row("t", "1", ns="n ", payload=b"d"), [])
        await table.put(_row("t", "1", ns="n", payload=b"e"), [])
        got = {
            (r.thread_id, r.ns, r.checkpoint_id): r.checkpoint
            for r in [
                await table.get(t, ns, c)
                for t, ns, c in [
                    ("t", "", "1"),
                    ("t ", "", "1"),
                    ("t", "", "1 "),
                    ("t", "n ", "1"),
                    ("t", "n", "1"),
                ]
            ]
            if r is not None
        }
        assert got == {
            ("t", "", "1"): b"a",
            ("t ", "", "1"): b"b",
            ("t", "", "1 "): b"c",
            ("t", "n ", "1"): b"d",
            ("t", "n", "1"): b"e",
        }
        latest = await table.get("t ", "", None)
        assert latest is not None and latest.thread_id == "t " and latest.checkpoint == b"b"
        listed = [r.checkpoint_id async for r in table.search(LGQuery("t", ""))]
        assert listed == ["1 ", "1"]


async def test_mysql_character_id_columns_are_converted_on_open() -> None:
    """lg_ tables made when ids were utf8mb4_bin text become VARBINARY on open; their rows stay."""
    require_table("mysql")
    table = await new_table("mysql")
    assert isinstance(table, MySQLCheckpointTable)
    key = "VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL"
    db = table.database
    try:
        # The tables as graphengine created them before ids were binary (trimmed to the keys).
        await _mysql_admin(
            f"CREATE TABLE {db}.lg_checkpoints (thread_id {key}, ns {key}, checkpoint_id VARCHAR(128) "
            "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, parent_id VARCHAR(128) CHARACTER SET utf8mb4 "
            "COLLATE utf8mb4_bin, type VARCHAR(64) NOT NULL, checkpoint LONGBLOB NOT NULL, metadata_type "
            "VARCHAR(64) NOT NULL, metadata LONGBLOB NOT NULL, run_id VARCHAR(191) CHARACTER SET utf8mb4 "
            "COLLATE utf8mb4_bin, versions LONGBLOB NOT NULL, PRIMARY KEY (thread_id, ns, checkpoint_id), "
            "KEY lg_checkpoints_run (run_id), KEY lg_checkpoints_id (checkpoint_id)) ENGINE = InnoDB"
        )
        await _mysql_admin(
            f"INSERT INTO {db}.lg_checkpoints VALUES ('old', '', '1', NULL, 'json', 'x', 'json', '{{}}', 'r', '{{}}')"
        )
        async with table:
            old = await table.get("old", "", "1")
            assert old is not None and old.checkpoint == b"x" and old.run_id == "r"
            await table.put(_row("old ", "1", payload=b"y"), [])
            again = await table.get("old", "", "1")
            assert again is not None and again.checkpoint == b"x"
            rows = await table._fetch(
                "SELECT count(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
                "AND TABLE_NAME LIKE 'lg_%%' AND DATA_TYPE = 'varchar' AND COLUMN_NAME <> 'type' "
                "AND COLUMN_NAME <> 'metadata_type'",
                (),
            )
            assert rows[0][0] == 0
    finally:
        await drop_table(table)
