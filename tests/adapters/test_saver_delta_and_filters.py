"""`GraphEngineSaver` as LangGraph's savers: delta channel history, metadata filters, `with`/`async with`.

Oracles: `BaseCheckpointSaver`'s own walk and `InMemorySaver` for the delta channel history,
LangGraph's `SqliteSaver` for which metadata filters are refused and what they match.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph")

from db_servers import POSTGRES_DSN, drop_postgres_schema, mysql_database, unique_name
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver, Checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from saver_helpers import CFG, TABLES, growing, require_table
from typing_extensions import TypedDict

from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import MemoryCheckpointTable, SQLiteCheckpointTable

Step = tuple[dict[str, Any], list[tuple[str, str, list[tuple[str, Any]]]]]
"""One checkpoint of a chain: its channel values, and writes as (task path, task id, [(channel, value)])."""


@asynccontextmanager
async def saver_on(table: str, tmp: Path) -> AsyncIterator[GraphEngineSaver]:
    """A GraphEngineSaver on one of the conformance test's tables."""
    require_table(table)
    async with asynccontextmanager(TABLES[table](tmp))() as saver:
        yield saver


async def build(saver: BaseCheckpointSaver[Any], thread: str, steps: list[Step]) -> list[Any]:
    """Store a parent chain, one checkpoint per step with its values and then its writes."""
    configs: list[Any] = []
    parent: Any = None
    for i, (values, writes) in enumerate(steps):
        conf: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
        if parent is not None:
            conf["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
        versions = {ch: i + 1 for ch in values}
        cp = Checkpoint(
            v=1,
            id=str(uuid6(clock_seq=-1)),
            ts="",
            channel_values=dict(values),
            channel_versions=versions,
            versions_seen={},
            updated_channels=None,
        )
        parent = await saver.aput(conf, cp, {"source": "loop", "step": i, "parents": {}}, dict(versions))
        configs.append(parent)
        for path, task, ws in writes:
            await saver.aput_writes(parent, ws, task, path)
    return configs


def w(value: Any, ch: str = "ch", path: str = "", task: str = "") -> tuple[str, str, list[tuple[str, Any]]]:
    """One task writing `value` to `ch`."""
    return (path, task or f"{ch}={value}", [(ch, value)])


CHAINS: dict[str, Callable[[], list[Step]]] = {
    "snapshot-then-writes": lambda: [({"ch": _DeltaSnapshot(0)}, [])] + [({}, [w(i)]) for i in range(1, 5)],
    "two-snapshots": lambda: [
        ({"ch": _DeltaSnapshot(0)}, []),
        ({}, [w(1)]),
        ({}, [w(2)]),
        ({"ch": _DeltaSnapshot(3)}, [w("at-seed")]),
        ({}, [w(4)]),
        ({}, [w("pending-at-head")]),
    ],
    "no-seed": lambda: [({}, [w(i)]) for i in range(4)],
    "plain-value-seed": lambda: [
        ({"ch": [10]}, [w("old")]),
        ({"ch": [10, 20]}, [w("at")]),
        ({}, [w("after")]),
        ({}, []),
    ],
    "two-channels": lambda: [
        ({}, [w(0, "a"), w(0, "b")]),
        ({"a": "snap_a"}, [w(1, "a"), w(1, "b")]),
        ({}, [w(2, "a"), w(2, "b")]),
        ({"b": "snap_b"}, [w(3, "a"), w(3, "b")]),
        ({}, []),
    ],
    "parallel-tasks": lambda: [
        ({"ch": []}, []),
        ({}, [w("late", path="~__pregel_push, 2", task="a"), w("early", path="~__pregel_push, 1", task="z")]),
        ({}, [("", "t", [("ch", "x"), ("other", 1), ("ch", "y")])]),
        ({}, []),
    ],
}


@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("chain", list(CHAINS))
async def test_delta_channel_history_equals_langgraphs_own_walk(
    chain: str, table: str, tmp_path: Path
) -> None:
    """The saver's table walk returns what BaseCheckpointSaver's default walk and InMemorySaver return."""
    channels = ["ch", "a", "b", "other", "never"]
    lg = InMemorySaver()
    lg_head = (await build(lg, "t", CHAINS[chain]()))[-1]
    expected = await lg.aget_delta_channel_history(config=lg_head, channels=channels)
    async with saver_on(table, tmp_path) as saver:
        head = (await build(saver, "t", CHAINS[chain]()))[-1]
        got = await saver.aget_delta_channel_history(config=head, channels=channels)
        walked = await BaseCheckpointSaver.aget_delta_channel_history(saver, config=head, channels=channels)
        assert got == walked
        assert got == expected
        assert await saver.aget_delta_channel_history(config=head, channels=[]) == {}


async def test_delta_channel_history_literal_examples() -> None:
    """The contract's own examples: oldest first, nearest seed, the seed's own writes replayed."""
    saver = GraphEngineSaver(MemoryCheckpointTable())
    head = (await build(saver, "t", CHAINS["snapshot-then-writes"]()))[-1]
    assert [
        x[2] for x in (await saver.aget_delta_channel_history(config=head, channels=["ch"]))["ch"]["writes"]
    ] == [1, 2, 3]
    head = (await build(saver, "u", CHAINS["two-snapshots"]()))[-1]
    got = (await saver.aget_delta_channel_history(config=head, channels=["ch"]))["ch"]
    assert got["seed"] == _DeltaSnapshot(3)
    assert [x[2] for x in got["writes"]] == ["at-seed", 4]
    assert saver.get_delta_channel_history(config=head, channels=["ch"])["ch"] == got
    missing: Any = {"configurable": {"thread_id": "nobody", "checkpoint_ns": ""}}
    assert await saver.aget_delta_channel_history(config=missing, channels=["ch"]) == {"ch": {"writes": []}}


# --------------------------------------------------------------------------- metadata filters

METADATA: list[dict[str, Any]] = [
    {"source": "input", "step": -1, "tags": {"kind": "a", "deep": {"x": 1}}, "score": None},
    {"source": "loop", "step": 0, "tags": {"kind": "b"}, "user-id": "u1"},
    {"source": "loop", "step": 1, "tags": {"kind": "a", "deep": {"x": 2}}, "score": 0.5, "flag": True},
]
FILTERS: list[dict[str, Any]] = [
    {"source": "loop"},
    {"tags.kind": "a"},
    {"tags.deep.x": 2},
    {"tags.deep.x": 3},
    {"tags.kind": "a", "source": "loop"},
    {"score": None},
    {"missing": None},
    {"missing.deeper": None},
    {"user-id": "u1"},
    {"step": -1},
    {"flag": True},
    {"score": 0.5},
    {"tags.deep": {"x": 1}},
]
BAD_KEYS = ["a b", "a'b", "x') OR 1=1 --", "$.source", "a/b", "ключ", ""]


def sqlite_saver(tmp: Path) -> SqliteSaver:
    """LangGraph's own SQL saver, the oracle for filters."""
    return SqliteSaver(sqlite3.connect(str(tmp / "oracle.db"), check_same_thread=False))


def put_metadata(saver: BaseCheckpointSaver[Any]) -> None:
    """Three checkpoints of one thread with nested metadata."""
    conf: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    for md in METADATA:
        cp = Checkpoint(
            v=1,
            id=str(uuid6(clock_seq=-1)),
            ts="",
            channel_values={},
            channel_versions={},
            versions_seen={},
            updated_channels=None,
        )
        conf = saver.put(conf, cp, md, {})  # type: ignore[arg-type]


def steps(saver: BaseCheckpointSaver[Any], filter: dict[str, Any]) -> list[int]:
    """The steps of the checkpoints a filter lists, newest first."""
    return [t.metadata["step"] for t in saver.list(None, filter=filter)]


@pytest.mark.parametrize("flt", FILTERS, ids=[str(f) for f in FILTERS])
def test_nested_dotted_filters_match_what_langgraphs_sqlite_saver_matches(
    flt: dict[str, Any], tmp_path: Path
) -> None:
    """A dotted key is a path into nested metadata; None matches a missing path, as in SQL."""
    oracle = sqlite_saver(tmp_path)
    ours = GraphEngineSaver(MemoryCheckpointTable())
    put_metadata(oracle)
    put_metadata(ours)
    assert steps(ours, flt) == steps(oracle, flt)


@pytest.mark.parametrize("key", BAD_KEYS)
def test_filter_keys_langgraphs_sql_savers_refuse_are_refused(key: str, tmp_path: Path) -> None:
    """A key outside letters, digits, `_`, `.`, `-` raises ValueError naming it, as SqliteSaver does."""
    oracle = sqlite_saver(tmp_path)
    put_metadata(oracle)
    with pytest.raises(ValueError, match="Invalid filter key"):
        steps(oracle, {key: 1})
    ours = GraphEngineSaver(MemoryCheckpointTable())
    put_metadata(ours)
    with pytest.raises(ValueError, match="Invalid filter key") as info:
        steps(ours, {key: 1})
    assert repr(key) in str(info.value)


# --------------------------------------------------------------------------- context managers


def _saver_threads() -> int:
    return sum(t.name == "graphengine-saver" for t in threading.enumerate())


def test_with_opens_the_table_and_exit_stops_the_private_loop(tmp_path: Path) -> None:
    """`with GraphEngineSaver(table)`: sync use inside, the loop thread gone after; the file keeps the run."""
    before = _saver_threads()
    with GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "cp.db")) as saver:
        assert growing(3, saver).invoke({"items": [], "blob": "x"}, CFG)["items"] == [0, 1, 2]
        assert _saver_threads() == before + 1
    assert _saver_threads() == before
    with GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "cp.db")) as again:
        assert growing(3, again).get_state(CFG).values["items"] == [0, 1, 2]
    with GraphEngineSaver(MemoryCheckpointTable()) as in_memory:
        assert growing(2, in_memory).invoke({"items": [], "blob": "x"}, CFG)["items"] == [0, 1]
    assert _saver_threads() == before


async def test_async_with_opens_and_closes_the_table(tmp_path: Path) -> None:
    """`async with GraphEngineSaver(table)`: opened on entry (a bad path fails there), closed on exit."""
    async with GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "cp.db")) as saver:
        out = await growing(2, saver).ainvoke({"items": [], "blob": "x"}, CFG)
        assert out["items"] == [0, 1]
    async with GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "cp.db")) as saver:
        assert (await growing(2, saver).aget_state(CFG)).values == out
    from graphengine.store import StoreUnavailableError

    with pytest.raises(StoreUnavailableError):
        async with GraphEngineSaver(SQLiteCheckpointTable(tmp_path / "no" / "such" / "dir.db")):
            pass


# --------------------------------------------------------------------------- a graph with a DeltaChannel


def extend(state: list[int], batches: list[list[int]]) -> list[int]:
    """A batching-invariant reducer: every batch's items appended."""
    return [*state, *(x for b in batches for x in b)]


class D(TypedDict):
    """`items` is a DeltaChannel (a snapshot every 3 updates), `n` a plain field."""

    items: Annotated[list[int], DeltaChannel(extend, snapshot_frequency=3)]
    n: int


def delta_graph(saver: Any) -> Any:
    """A LangGraph loop adding one item per step, eight steps."""
    b: Any = StateGraph(D)
    b.add_node("add", lambda s: {"items": [len(s["items"])], "n": s["n"] + 1})
    b.add_edge(START, "add")
    b.add_conditional_edges("add", lambda s: END if s["n"] >= 8 else "add")
    return b.compile(checkpointer=saver)


@pytest.mark.parametrize("table", ["memory", "sqlite"])
async def test_a_delta_channel_graph_reads_back_what_langgraphs_own_saver_reads(
    table: str, tmp_path: Path
) -> None:
    """Every checkpoint of a DeltaChannel graph (rebuilt from the delta history) equals InMemorySaver's."""
    cfg: Any = {"configurable": {"thread_id": "t"}}
    lg = delta_graph(InMemorySaver())
    expected = await lg.ainvoke({"items": [], "n": 0}, cfg)
    lg_history = [h.values async for h in lg.aget_state_history(cfg)]
    async with saver_on(table, tmp_path) as saver:
        ours = delta_graph(saver)
        assert await ours.ainvoke({"items": [], "n": 0}, cfg) == expected == {"items": list(range(8)), "n": 8}
        assert [h.values async for h in ours.aget_state_history(cfg)] == lg_history


@asynccontextmanager
async def store_url(kind: str, tmp: Path) -> AsyncIterator[str]:
    """A store URL of each kind, its schema or database dropped afterwards."""
    require_table(kind)
    if kind == "postgres":
        schema = unique_name("lgurl")
        try:
            yield f"{POSTGRES_DSN}?schema={schema}"
        finally:
            await drop_postgres_schema(schema)
    elif kind == "mysql":
        async with mysql_database() as dsn:
            yield dsn
    else:
        yield {"memory": "memory://", "sqlite": f"sqlite:///{tmp / 'url.db'}"}[kind]


@pytest.mark.parametrize("kind", list(TABLES))
async def test_from_conn_string_opens_the_tables_beside_a_store_url(kind: str, tmp_path: Path) -> None:
    """`async with GraphEngineSaver.from_conn_string(url)` on every kind of store URL runs a graph."""
    async with store_url(kind, tmp_path) as url, GraphEngineSaver.from_conn_string(url) as saver:
        out = await growing(3, saver).ainvoke({"items": [], "blob": "x"}, CFG)
        assert out["items"] == [0, 1, 2]
        assert (await growing(3, saver).aget_state(CFG)).values == out


def test_from_conn_string_in_a_sync_with_and_a_bad_url(tmp_path: Path) -> None:
    """The sync form keeps the file's checkpoints; an unknown scheme names the known ones."""
    url = f"sqlite:///{tmp_path / 'sync.db'}"
    with GraphEngineSaver.from_conn_string(url) as saver:
        growing(2, saver).invoke({"items": [], "blob": "x"}, CFG)
    with GraphEngineSaver.from_conn_string(url) as saver:
        assert growing(2, saver).get_state(CFG).values["items"] == [0, 1]
    from graphengine.store import StoreUnavailableError

    with pytest.raises(StoreUnavailableError, match="sqlite://"):
        GraphEngineSaver.from_conn_string("redis://localhost/0")


def test_sync_methods_reach_a_subclass_s_async_overrides(tmp_path: Path) -> None:
    """`get_tuple`, `put`, `put_writes` and `list` run the instance's `aget_tuple`, `aput`,
    `aput_writes` and `alist`, so a subclass that overrides them (the subgraph saver clears a fresh
    run's thread there) is reached by sync callers too, as LangGraph's savers dispatch."""
    seen: list[str] = []

    class Recording(GraphEngineSaver):
        async def aget_tuple(self, config: Any) -> Any:
            seen.append("aget_tuple")
            return await super().aget_tuple(config)

        async def aput(self, config: Any, *rest: Any, **kw: Any) -> Any:
            seen.append("aput")
            return await super().aput(config, *rest, **kw)

        async def aput_writes(self, config: Any, *rest: Any, **kw: Any) -> None:
            seen.append("aput_writes")
            await super().aput_writes(config, *rest, **kw)

        async def alist(self, config: Any, **kw: Any) -> AsyncIterator[Any]:
            seen.append("alist")
            async for item in super().alist(config, **kw):
                yield item

    with Recording(SQLiteCheckpointTable(tmp_path / "sync.db")) as saver:
        out = growing(2, saver).invoke({"items": [], "blob": "x"}, CFG)
        assert out["items"] == [0, 1]
        assert len(list(saver.list(CFG))) >= 3
    assert {"aget_tuple", "aput", "aput_writes", "alist"} <= set(seen)
