"""`GraphEngineSaver` under real LangGraph graphs: sync and async use, storage shape, safety."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from saver_helpers import CFG, growing

pytest.importorskip("langgraph")

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import MemoryCheckpointTable, SQLiteCheckpointTable
from graphengine.store import SQLiteStore


def test_sync_invoke_on_a_sqlite_table_outside_any_event_loop(tmp_path: Path) -> None:
    """Sync invoke, get_state and history work on the SQLite table (through the saver's own loop)."""
    saver = GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "cp.db"))
    app = growing(5, saver)
    out = app.invoke({"items": [], "blob": "x"}, CFG)
    assert out == {"items": [0, 1, 2, 3, 4], "blob": "x"}
    assert app.get_state(CFG).values == out
    history = list(app.get_state_history(CFG))
    assert [len(h.values.get("items", [])) for h in history] == [5, 4, 3, 2, 1, 0, 0]


async def test_async_use_from_the_applications_loop(tmp_path: Path) -> None:
    """ainvoke and aget_state_history on the SQLite table, inside the caller's event loop."""
    async with SQLiteCheckpointTable(tmp_path / "cp.db") as table:
        app = growing(3, GraphEngineSaver(table))
        out = await app.ainvoke({"items": [], "blob": "x"}, CFG)
        assert out["items"] == [0, 1, 2]
        assert len([h async for h in app.aget_state_history(CFG)]) == 5


def test_sync_methods_reach_the_table_from_inside_a_running_loop(tmp_path: Path) -> None:
    """A sync method of an I/O table called in a running loop answers (tests/adapters/test_saver_in_a_running_loop.py has more)."""
    saver = GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "cp.db"))

    async def call() -> object:
        return saver.get_tuple(CFG)

    try:
        assert asyncio.run(call()) is None
    finally:
        saver.close()


@pytest.mark.parametrize("table", ["memory", "sqlite"])
async def test_an_unchanged_channel_is_stored_once(table: str, tmp_path: Path) -> None:
    """The 10 kB field that never changes has one blob, however many checkpoints share it."""
    async with SQLiteCheckpointTable(tmp_path / "cp.db") as sq:
        t = MemoryCheckpointTable() if table == "memory" else sq
        saver = GraphEngineSaver(t)
        await growing(20, saver).ainvoke({"items": [], "blob": "b" * 10_000}, CFG)
        tup = await saver.aget_tuple(CFG)
        assert tup is not None and tup.checkpoint["channel_values"]["blob"] == "b" * 10_000
        versions = {tup.checkpoint["channel_versions"]["blob"]}
        async for h in saver.alist(CFG):
            if "blob" in h.checkpoint["channel_versions"]:
                versions.add(h.checkpoint["channel_versions"]["blob"])
        assert len(versions) == 1
    if table == "sqlite":
        conn = sqlite3.connect(tmp_path / "cp.db")
        (n,) = conn.execute("SELECT count(*) FROM lg_blobs WHERE channel = 'blob'").fetchone()
        conn.close()
        assert n == 1


async def test_prune_keeps_the_latest_state_whole(tmp_path: Path) -> None:
    """After prune(keep_latest) the thread's state still reads back in full, orphaned blobs gone."""
    async with SQLiteCheckpointTable(tmp_path / "cp.db") as table:
        saver = GraphEngineSaver(table)
        app = growing(4, saver)
        await app.ainvoke({"items": [], "blob": "keep"}, CFG)
        await saver.aprune(["t"])
        assert (await app.aget_state(CFG)).values == {"items": [0, 1, 2, 3], "blob": "keep"}
    conn = sqlite3.connect(tmp_path / "cp.db")
    (n,) = conn.execute("SELECT count(*) FROM lg_blobs WHERE channel = 'items'").fetchone()
    conn.close()
    assert n == 1  # every older version of the list was collected


def test_a_serializer_that_may_unpickle_is_refused() -> None:
    """GraphEngineSaver never enables pickle."""
    with pytest.raises(ValueError, match="pickle"):
        GraphEngineSaver(MemoryCheckpointTable(), serde=JsonPlusSerializer(pickle_fallback=True))
    assert GraphEngineSaver(MemoryCheckpointTable()).serde.pickle_fallback is False  # type: ignore[attr-defined]


async def test_checkpoint_tables_share_a_file_with_a_sqlite_store(tmp_path: Path) -> None:
    """The lg_ tables live beside a SQLiteStore's tables in one file, each on its own connection."""
    from engine_fixtures import S, seed_engine

    path = tmp_path / "shared.db"
    async with SQLiteStore(path) as store:
        eng = seed_engine(store)
        assert (await eng.run("r", S())).n == 3
        async with SQLiteCheckpointTable.beside(store) as table:
            out = await growing(3, GraphEngineSaver(table)).ainvoke({"items": [], "blob": ""}, CFG)
            assert out["items"] == [0, 1, 2]
        assert (await eng.get_state("r")).n == 3


async def test_bench_functions_return_rows() -> None:
    """The benchmark functions run end to end on tiny inputs."""
    from bench.langgraph_adapter import adapter_rows, render, saver_rows

    rates = await adapter_rows(steps=20, repeat=1)
    costs = await saver_rows(grow_steps=10)
    assert len(rates) == 3 and all(r.us_per_step > 0 for r in rates)
    assert [c.label for c in costs][1] == "GraphEngineSaver(SQLiteCheckpointTable)"
    assert "steps/s" in render(rates, costs)


@pytest.mark.parametrize("table", ["memory", "sqlite"])
@pytest.mark.parametrize(
    ("thread_id", "words"),
    [
        ("bad\ud800id", ["lone surrogate", "\\ud800"]),
        ("nul\x00id", ["NUL"]),
        ("x" * 765, ["764 bytes", "765"]),
        ("é" * 383, ["764 bytes", "766"]),
    ],
    ids=["surrogate", "nul", "long", "long-utf8"],
)
async def test_a_thread_id_no_backend_can_hold_is_refused_the_same_on_every_table(
    table: str, thread_id: str, words: list[str], tmp_path: Path
) -> None:
    """Thread ids follow one rule on every table (the narrowest backend's): a ValueError naming it, never a driver error."""
    async with SQLiteCheckpointTable(tmp_path / "cp.db") as sq:
        saver = GraphEngineSaver(MemoryCheckpointTable() if table == "memory" else sq)
        app = growing(2, saver)
        config = {"configurable": {"thread_id": thread_id}}
        with pytest.raises(ValueError, match="thread_id") as info:
            await app.ainvoke({"items": [], "blob": "x"}, config)
        assert all(w in str(info.value) for w in words), str(info.value)
        with pytest.raises(ValueError, match="thread_id"):
            await saver.aget_tuple(config)  # reads refuse it too (SQLite cannot even look it up)
    # the longest id that fits is fine everywhere
    async with SQLiteCheckpointTable(tmp_path / "cp2.db") as sq:
        saver = GraphEngineSaver(MemoryCheckpointTable() if table == "memory" else sq)
        ok = {"configurable": {"thread_id": "é" * 382}}
        assert (await growing(2, saver).ainvoke({"items": [], "blob": "x"}, ok))["items"] == [0, 1]
