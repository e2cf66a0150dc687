"""A subgraph paused or killed in one process continues in another from its own checkpoints.

The subgraphs of an adapted graph's tasks keep their checkpoints beside the engine's store (the
SQLite file here), so a resume in a new process does not re-run the subgraph's committed nodes;
LangGraph's native run with a checkpointer is the oracle for the result.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from db_servers import mysql_store, postgres_store, require_mysql, require_postgres
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from lg_sub_graph import INPUT, RUN_ID, build

from graphengine.adapters.langgraph import from_langgraph
from graphengine.adapters.langgraph_tables import MemoryCheckpointTable, SQLiteCheckpointTable, table_beside
from graphengine.store import MemoryStore, SQLiteStore

WORKER = Path(__file__).resolve().parents[1] / "lg_sub_graph.py"
ANSWER = "forty-two"


def _child(db: Path, log: Path, *args: str, kill: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("LG_SUB_KILL", None)
    if kill:
        env["LG_SUB_KILL"] = "1"
    return subprocess.run(
        [sys.executable, str(WORKER), str(db), str(log), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _counts(log: Path) -> list[int]:
    """The pids of the processes that ran the subgraph's `count` node, in order."""
    return [int(line.split()[0]) for line in log.read_text().splitlines()] if log.exists() else []


async def _native(log: Path) -> tuple[dict[str, Any], int]:
    """LangGraph's own run with a checkpointer, paused and answered: its output and `count` runs."""
    app = build(log).compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "native"}}
    await app.ainvoke(dict(INPUT), config)
    out = await app.ainvoke(Command(resume=ANSWER), config)
    return out, len(_counts(log))


async def _lg_rows(db: Path) -> int:
    import aiosqlite

    async with aiosqlite.connect(str(db)) as conn:
        cur = await conn.execute("SELECT count(*) FROM lg_checkpoints WHERE thread_id = ?", (RUN_ID,))
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def test_a_subgraph_paused_in_one_process_resumes_in_another_without_re_running_its_nodes(
    tmp_path: Path,
) -> None:
    """The subgraph's committed `count` node does not run again in the resuming process; the result is LangGraph's."""
    db, log = tmp_path / "sub.db", tmp_path / "side.log"
    first = _child(db, log, "run")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["paused"] is True
    assert len(_counts(log)) == 1
    second = _child(db, log, "resume", ANSWER)
    assert second.returncode == 0, second.stderr
    assert _counts(log) == [_counts(log)[0]], "the subgraph's first node ran again in the resuming process"
    out = json.loads(second.stdout)
    expected, native_counts = await _native(tmp_path / "native.log")
    assert native_counts == 1
    assert {k: v for k, v in out.items() if k != "paused"} == expected
    assert out["paused"] is False
    assert await _lg_rows(db) == 0, "the ended run left its subgraph's checkpoints"


async def test_a_process_killed_inside_a_subgraph_resumes_it_past_its_committed_node(tmp_path: Path) -> None:
    """A SIGKILL after the subgraph committed `count` resumes in a new process without running `count` again."""
    db, log = tmp_path / "sub.db", tmp_path / "side.log"
    first = _child(db, log, "run", kill=True)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert len(_counts(log)) == 1
    second = _child(db, log, "resume")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["paused"] is True
    third = _child(db, log, "resume", ANSWER)
    assert third.returncode == 0, third.stderr
    assert len(_counts(log)) == 1, "the subgraph's first node ran again after the kill"
    out = json.loads(third.stdout)
    expected, _ = await _native(tmp_path / "native.log")
    assert {k: v for k, v in out.items() if k != "paused"} == expected


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_run_id_used_again_starts_its_subgraph_afresh(tmp_path: Path, kind: str) -> None:
    """Subgraph checkpoints an earlier run of the same id left behind are not read by a new run."""
    log = tmp_path / "side.log"
    store: Any = MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "again.db")
    try:
        g = from_langgraph(build(log), store=store)
        paused = await g.run(RUN_ID, dict(INPUT))
        assert "__interrupt__" in paused
        await store.delete_run(RUN_ID)
        again = await g.run(RUN_ID, dict(INPUT))
        assert "__interrupt__" in again
        assert len(_counts(log)) == 2, "the new run's subgraph continued the deleted run's checkpoints"
        out = await g.resume(RUN_ID, input=ANSWER)
        expected, _ = await _native(tmp_path / "native.log")
        assert out == expected
    finally:
        await store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres", "mysql"])
async def test_a_second_adapted_graph_on_the_same_store_resumes_the_subgraph_of_the_first(
    tmp_path: Path, kind: str
) -> None:
    """The subgraph's checkpoints live beside the store (same file, schema or database), not in the adapted graph."""
    log = tmp_path / "side.log"

    async def check(store: Any) -> None:
        paused = await from_langgraph(build(log), store=store).run(RUN_ID, dict(INPUT))
        assert "__interrupt__" in paused
        out = await from_langgraph(build(log), store=store).resume(RUN_ID, input=ANSWER)
        assert len(_counts(log)) == 1, "the subgraph's first node ran again in the second adapted graph"
        expected, _ = await _native(tmp_path / "native.log")
        assert out == expected

    if kind == "sqlite":
        store = SQLiteStore(tmp_path / "same.db")
        try:
            await check(store)
        finally:
            await store.close()
        return
    if kind == "postgres":
        require_postgres()
        async with postgres_store() as pg:
            await check(pg)
    else:
        require_mysql()
        async with mysql_store() as my:
            await check(my)


def test_each_store_gets_the_checkpoint_table_beside_it(tmp_path: Path) -> None:
    """A MemoryStore gets an in-process table, a SQLiteStore the tables in its own file, anything else none."""
    assert isinstance(table_beside(MemoryStore()), MemoryCheckpointTable)
    table = table_beside(SQLiteStore(tmp_path / "x.db"))
    assert isinstance(table, SQLiteCheckpointTable)
    assert Path(table.path) == tmp_path / "x.db"
    assert table_beside(object()) is None  # type: ignore[arg-type]
