"""Bad input gets a typed error that names the culprit, and loses nothing already committed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import S, inc, seed_engine
from pydantic import BaseModel

from graphengine import (
    Context,
    DeltaTypeError,
    DuplicateNodeError,
    Engine,
    GraphChangedError,
    GraphError,
    GraphValidationError,
    NodeResult,
    NodeReturnTypeError,
    NoStartNodeError,
    RunExistsError,
    RunNotFoundError,
    StateValidationError,
    UnknownNodeError,
    goto,
    stop,
)
from graphengine.store import CorruptRecordError, MemoryStore, RunStatus, SQLiteStore, StoreError


class Other(BaseModel):
    """A type that is not the engine's state type."""

    x: int = 0


def test_adding_a_node_twice_is_refused() -> None:
    """DuplicateNodeError names the node id."""
    g = Engine(S).add("a", inc)
    with pytest.raises(DuplicateNodeError, match="'a'") as ei:
        g.add("a", inc)
    assert ei.value.node_id == "a"


def test_a_non_callable_node_is_refused() -> None:
    """Adding something that is not a node names the id."""
    with pytest.raises(GraphValidationError, match="'a'"):
        Engine(S).add("a", 42)  # type: ignore[arg-type]


async def test_edge_to_unknown_node_fails_before_the_first_step() -> None:
    """connect to a node that does not exist is found by validation, before anything runs."""
    store = MemoryStore()
    g = Engine(S, store=store).add("a", inc).start_at("a").connect("a", "ghost")
    with pytest.raises(UnknownNodeError, match="'ghost'") as ei:
        await g.run("r", S())
    assert ei.value.node_id == "ghost"
    assert await store.get_run("r") is None


def test_missing_start_node_is_a_validation_error() -> None:
    """No start_at: NoStartNodeError says how to fix it."""
    g = Engine(S).add("a", inc)
    with pytest.raises(NoStartNodeError, match="start_at"):
        g.validate()


def test_unknown_start_node_is_named() -> None:
    """start_at a node that was never added: UnknownNodeError with its id."""
    with pytest.raises(UnknownNodeError, match="'nope'"):
        Engine(S).add("a", inc).start_at("nope").validate()


async def test_initial_state_that_fails_validation_is_refused() -> None:
    """A bad initial state raises StateValidationError naming the field, and stores nothing."""
    store = MemoryStore()
    g = seed_engine(store)
    with pytest.raises(StateValidationError, match="n") as ei:
        await g.run("r", {"n": "not a number"})
    assert "int" in str(ei.value)
    assert await store.get_run("r") is None


async def test_delta_of_the_wrong_type_is_refused_and_committed_steps_kept() -> None:
    """A node returning another type as delta raises DeltaTypeError; earlier steps survive."""
    store = MemoryStore()
    g = Engine(S, store=store)
    g.add("ok", inc).add("bad", lambda ctx, s: NodeResult(delta=Other(x=1)))  # type: ignore[arg-type]
    g.start_at("ok").connect("ok", "bad")
    with pytest.raises(DeltaTypeError, match="'bad'.*Other") as ei:
        await g.run("r", S())
    assert (ei.value.step, ei.value.node_id) == (2, "bad")
    assert len(await g.history("r")) == 1
    assert (await g.get_run("r")).status is RunStatus.FAILED


async def test_node_returning_something_else_is_refused() -> None:
    """A node that returns a bare state instead of a NodeResult gets NodeReturnTypeError."""
    g = Engine(S).add("a", lambda ctx, s: S(n=1)).start_at("a")  # type: ignore[arg-type,return-value]
    with pytest.raises(NodeReturnTypeError, match="'a' returned S"):
        await g.run("r", S())


async def test_goto_unknown_node_at_run_time_is_named() -> None:
    """A dynamic goto to a node that does not exist raises UnknownNodeError naming both."""
    g = Engine(S).add("a", lambda ctx, s: NodeResult(route=goto("nowhere"))).start_at("a")
    with pytest.raises(UnknownNodeError, match="'a' routed to unknown node 'nowhere'"):
        await g.run("r", S())


async def test_run_on_existing_id_points_to_resume() -> None:
    """run() twice with one id raises RunExistsError suggesting resume, and the first run is intact."""
    g = seed_engine()
    await g.run("t1", S())
    with pytest.raises(RunExistsError, match=r"use resume\('t1'\)"):
        await g.run("t1", S(n=2))
    assert await g.get_state("t1") == S(n=3)
    assert len(await g.history("t1")) == 6


async def test_unknown_run_id_is_named() -> None:
    """resume/get_state/history of an id never started raise RunNotFoundError."""
    g = seed_engine()
    for call in (g.resume, g.get_state, g.history, g.get_run):
        with pytest.raises(RunNotFoundError, match="'missing'"):
            await call("missing")


async def test_resume_with_a_changed_graph_is_refused() -> None:
    """A graph with other nodes or edges cannot continue a run it did not start."""
    store = MemoryStore()
    g = seed_engine(store)
    await g.run("t1", S())
    changed = seed_engine(store).add("extra", inc)
    with pytest.raises(GraphChangedError, match="fingerprint") as ei:
        await changed.resume("t1")
    assert ei.value.stored == g.fingerprint
    assert ei.value.current == changed.fingerprint


def test_state_type_without_a_default_reducer_needs_one() -> None:
    """A state type the engine cannot merge by itself asks for reducer=."""
    with pytest.raises(GraphValidationError, match="reducer="):
        Engine(int)


async def test_corrupt_step_row_is_reported_with_run_and_step(tmp_path: Path) -> None:
    """A step row whose delta is garbage gives CorruptRecordError naming run, step and field."""
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    g = seed_engine(store)
    await g.run("t1", S())
    await store.close()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE steps SET delta = ? WHERE run_id = ? AND step = ?", (b"{not json", "t1", 3))
    store = SQLiteStore(db)
    g = seed_engine(store)
    with pytest.raises(CorruptRecordError) as ei:
        await g.history("t1")
    assert (ei.value.run_id, ei.value.step, ei.value.field) == ("t1", 3, "delta")
    assert isinstance(ei.value, StoreError)
    # Everything else is still there.
    assert len(await store.load_steps("t1")) == 6
    assert await g.get_state("t1") == S(n=3)  # the final snapshot does not need step 3
    await store.close()


async def test_corrupt_route_is_reported() -> None:
    """A step whose stored route is not a route gives CorruptRecordError on resume."""
    store = MemoryStore()
    g = Engine(S, store=store).add("a", inc).start_at("a").connect("a", "a", when=lambda s: s.n < 2)
    await g.run("r", S())
    steps = store._runs["r"].steps
    steps[-1] = steps[-1]._replace(route='{"teleport":1}')
    await store.set_status("r", RunStatus.FAILED)
    with pytest.raises(CorruptRecordError, match="route") as ei:
        await g.resume("r")
    assert ei.value.field == "route"


def test_every_engine_error_is_a_graph_error() -> None:
    """One hierarchy: everything the engine raises derives from GraphError."""
    import graphengine

    # ToolCallError is raised *to* a node by ctx.call (like any exception of its own code) so
    # that node retries and error routes apply; it is deliberately outside the engine's tree.
    # SubgraphError likewise: a child run's failure raised in the parent's node, for the same reason,
    # and WaitTimeoutError: ctx.wait_for's timeout, raised to the node that waited. CronError is a
    # ValueError of a cron text given to `engine.schedule` or `CronExpr`, refused before any run.
    outside = ("ToolCallError", "SubgraphError", "WaitTimeoutError", "CronError")
    names = [n for n in graphengine.__all__ if n.endswith(("Error", "Exceeded")) and n not in outside]
    errors = [getattr(graphengine, n) for n in names]
    assert errors
    assert all(issubclass(e, GraphError) for e in errors)


async def test_failure_keeps_the_run_resumable() -> None:
    """After a node failure the run is FAILED with its error and node, and resume finishes it."""
    store = MemoryStore()
    state: dict[str, Any] = {"fail": True}

    async def flaky(ctx: Context, s: S) -> NodeResult[S]:
        if state["fail"]:
            raise RuntimeError("down")
        return NodeResult(delta=S(n=s.n + 10), route=stop())

    g = Engine(S, store=store).add("a", inc).add("b", flaky).start_at("a").connect("a", "b")
    with pytest.raises(GraphError):
        await g.run("r", S())
    rec = await g.get_run("r")
    assert rec.status is RunStatus.FAILED and rec.error_node == "b" and "down" in (rec.error or "")
    state["fail"] = False
    assert await g.resume("r") == S(n=11)
    assert (await g.get_run("r")).status is RunStatus.DONE
