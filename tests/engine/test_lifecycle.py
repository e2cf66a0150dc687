"""Run lifecycle: state-schema versions with migrations, retention and pruning, size accounting and budgets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
from pydantic import BaseModel

from graphengine import (
    BudgetExceededError,
    Context,
    Engine,
    GraphChangedError,
    NodeResult,
    Options,
    SchemaVersionError,
    append,
    goto,
    stop,
)
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.store import PrunePolicy, RunStatus, SQLiteStore, Store, StoreError


class V1(BaseModel):
    """Version 1: `name` and a count kept as text."""

    name: str = ""
    count: str = "0"
    log: Annotated[list[str], append] = []


class V2(BaseModel):
    """Version 2: `name` renamed to `title`, `count` is an int."""

    title: str = ""
    count: int = 0
    log: Annotated[list[str], append] = []


def up_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    """Rename name -> title and parse count (deltas carry only what they set)."""
    if "name" in d:
        d["title"] = d.pop("name")
    if "count" in d:
        d["count"] = int(d["count"])
    return d


def make(version: int, store: Store, *, fail_at: int | None = None, **kw: Any) -> Engine[Any]:
    """The same graph (same node identities) over V1 or V2: count to 5, then stop."""
    tp: Any = V1 if version == 1 else V2

    def bump(ctx: Context, s: Any) -> NodeResult[Any]:
        if fail_at is not None and ctx.step == fail_at:
            raise RuntimeError("deploy window closed")
        n = int(s.count) + 1
        delta = tp(count=str(n) if version == 1 else n, log=[f"v{version}:{n}"])
        return NodeResult(delta=delta, route=stop() if n >= 5 else goto("bump"))

    return Engine(tp, store=store, state_version=version, **kw).add("bump", bump).start_at("bump")


async def test_old_runs_resume_under_new_code_through_migrations(tmp_path: Path) -> None:
    """A run written by version-1 code in a real SQLite file finishes under version 2, migrated and recorded."""
    db = tmp_path / "runs.db"
    async with SQLiteStore(db) as store:
        old = make(1, store, fail_at=3)
        with pytest.raises(Exception, match="deploy window closed"):
            await old.run("r", V1(name="release"))
        assert (await store.get_run("r")).state_version == 1  # type: ignore[union-attr]
    async with SQLiteStore(db) as store:
        new = make(2, store, migrations={1: up_1_to_2})
        final = await new.resume("r")
        assert final == V2(title="release", count=5, log=["v1:1", "v1:2", "v2:3", "v2:4", "v2:5"])
        assert await new.get_state("r") == final
        views = await new.history("r")
        assert [v.state.count for v in views] == [1, 2, 3, 4, 5]
        assert views[0].state.title == "release"
        run = await new.get_run("r")
        assert run.state_version == 1
        assert b'"migrations"' in run.meta
        assert b'"at_step":2' in run.meta
        # Replay compares migrated records: only the log text, which the new code writes
        # differently on purpose, diverges; the renamed and retyped fields match.
        report = await new.replay("r")
        assert [(d.step, d.path) for d in report.divergences] == [(1, "log[0]")]


async def test_migration_declared_on_the_state_type(store: Store) -> None:
    """__state_version__ and __migrations__ on the type work like the constructor arguments."""

    class V2Declared(V2):
        __state_version__: ClassVar[int] = 2
        __migrations__: ClassVar[dict[int, Any]] = {1: up_1_to_2}

    old = make(1, store, fail_at=2)
    with pytest.raises(Exception, match="deploy window"):
        await old.run("r", V1(name="x"))
    eng = Engine(V2Declared, store=store)
    assert eng.state_version == 2
    state = await eng.get_state("r")
    assert state.title == "x"
    assert state.count == 1


async def test_no_migration_path_is_refused_naming_both_versions(store: Store) -> None:
    """Without a migration from the stored version, resume refuses with SchemaVersionError (not a graph error)."""
    old = make(1, store, fail_at=2)
    with pytest.raises(Exception, match="deploy window"):
        await old.run("r", V1(name="x"))
    new = make(2, store)
    with pytest.raises(SchemaVersionError, match="version 1.*version 2") as ei:
        await new.resume("r")
    assert (ei.value.stored, ei.value.current) == (1, 2)
    assert not isinstance(ei.value, GraphChangedError)
    assert "not the graph fingerprint" in str(ei.value)


async def test_data_newer_than_the_code_is_refused(store: Store) -> None:
    """A run stored by a newer version cannot be read by older code."""
    await make(2, store).run("r", V2(title="t"))
    with pytest.raises(SchemaVersionError, match="newer"):
        await make(1, store).get_state("r")


async def test_fork_of_an_old_run_starts_at_the_current_version(store: Store) -> None:
    """fork migrates the source state; the new run records the engine's version."""
    old = make(1, store, fail_at=4)
    with pytest.raises(Exception, match="deploy"):
        await old.run("r", V1(name="n"))
    new = make(2, store, migrations={1: up_1_to_2})
    final = await new.fork("r", "f", at_step=2)
    assert final.count == 5
    assert final.title == "n"
    assert (await new.get_run("f")).state_version == 2


# ----------------------------------------------------------------------------- pruning


def counter(store: Store) -> Engine[V2]:
    """A short graph that finishes (3 steps)."""

    def step(ctx: Context, s: V2) -> NodeResult[V2]:
        return NodeResult(delta=V2(count=s.count + 1), route=stop() if s.count >= 2 else goto("s"))

    return Engine(V2, store=store).add("s", step).start_at("s")


async def test_prune_deletes_only_finished_runs(store: Store) -> None:
    """Done runs go; failed, interrupted and running ones stay whole; the report names what went."""
    g = counter(store)
    for i in range(3):
        await g.run(f"done{i}", V2())
    gate = (
        Engine(V2, store=store).add("ask", lambda c, s: NodeResult(route=c.interrupt("ok?"))).start_at("ask")
    )
    await gate.run("paused", V2())
    boom = Engine(V2, store=store).add("x", lambda c, s: NodeResult(err=RuntimeError("no"))).start_at("x")
    with pytest.raises(Exception, match="no"):
        await boom.run("failed", V2())
    dry = await store.prune(PrunePolicy(), dry_run=True)  # type: ignore[attr-defined]
    assert sorted(dry.deleted) == ["done0", "done1", "done2"]
    assert dry.dry_run
    assert await store.get_run("done0") is not None
    report = await store.prune(PrunePolicy())  # type: ignore[attr-defined]
    assert sorted(report.deleted) == ["done0", "done1", "done2"]
    assert {r.run_id for r in await store.list_runs()} == {"paused", "failed"}
    assert (await gate.get_interrupt("paused")) is not None
    assert await store.load_steps("done0") == []


async def test_prune_keeps_the_newest_and_recent_runs(store: Store) -> None:
    """keep_last and keep_newer_than protect finished runs."""
    g = counter(store)
    for i in range(4):
        await g.run(f"r{i}", V2())
        await asyncio.sleep(0.01)
    report = await store.prune(PrunePolicy(keep_last=2))  # type: ignore[attr-defined]
    assert sorted(report.deleted) == ["r0", "r1"]
    assert sorted(report.kept) == ["r2", "r3"]
    assert (await store.prune(PrunePolicy(keep_newer_than=3600))).deleted == ()  # type: ignore[attr-defined]


async def test_compaction_keeps_the_final_state_and_summary(store: Store) -> None:
    """compact=True drops a finished run's history but keeps its final state, record and status."""
    g = counter(store)
    final = await g.run("r", V2())
    report = await store.prune(PrunePolicy(compact=True))  # type: ignore[attr-defined]
    assert report.compacted == ("r",)
    assert report.steps_removed == 2
    assert await g.get_state("r") == final
    assert (await g.get_run("r")).status is RunStatus.DONE
    steps = await store.load_steps("r")
    assert [s.step for s in steps] == [3]
    assert await g.resume("r") == final
    again = await store.prune(PrunePolicy(compact=True))  # type: ignore[attr-defined]
    assert again.compacted == ()


async def test_prune_while_runs_are_being_written_loses_nothing_live(store: Store) -> None:
    """Concurrent runs keep every step while prunes delete finished runs around them."""

    async def slow(ctx: Context, s: V2) -> NodeResult[V2]:
        await asyncio.sleep(0.001)
        return NodeResult(
            delta=V2(count=s.count + 1, log=[str(ctx.step)]), route=stop() if s.count >= 29 else goto("s")
        )

    g = Engine(V2, store=store).add("s", slow).start_at("s")
    finished = counter(store)
    for i in range(5):
        await finished.run(f"old{i}", V2())

    async def pruner() -> int:
        n = 0
        for _ in range(10):
            n += len((await store.prune(PrunePolicy())).deleted)  # type: ignore[attr-defined]
            await asyncio.sleep(0.003)
        return n

    results = await asyncio.gather(*(g.run(f"live{i}", V2()) for i in range(4)), pruner())
    for final in results[:4]:
        assert final.count == 30
        assert len(final.log) == 30
    assert results[4] >= 5


async def test_delete_steps_before_needs_a_snapshot(store: Store) -> None:
    """The store refuses to cut a run's history where the state could not be rebuilt."""
    g = Engine(V2, store=store, options=Options(snapshot_every=100))
    g.add(
        "s", lambda c, s: NodeResult(delta=V2(count=s.count + 1), route=stop() if s.count >= 4 else goto("s"))
    )
    await g.start_at("s").run("r", V2())
    with pytest.raises(StoreError, match="no state snapshot"):
        await store.delete_steps_before("r", 2)
    assert len(await store.load_steps("r")) == 5
    assert await store.delete_steps_before("missing", 1) == 0


# ----------------------------------------------------------------------------- sizes and budgets


class Chat(BaseModel):
    """A state whose messages grow."""

    messages: Annotated[list[str], append] = []
    turn: int = 0


def chatty(store: Store, **opts: Any) -> Engine[Chat]:
    """Appends a 100-byte message per step, 10 steps."""

    def talk(ctx: Context, s: Chat) -> NodeResult[Chat]:
        return NodeResult(
            delta=Chat(messages=["m" * 100], turn=s.turn + 1), route=stop() if s.turn >= 9 else goto("t")
        )

    return Engine(Chat, store=store, **opts).add("t", talk).start_at("t")


async def test_history_exposes_encoded_sizes_per_field(store: Store) -> None:
    """Each step knows the encoded size of each field its delta set."""
    g = chatty(store)
    await g.run("r", Chat())
    views = await g.history("r")
    assert views[0].sizes == {"messages": 104, "turn": 1}
    assert all(v.sizes["messages"] == 104 for v in views)


async def test_budget_warns_once_when_a_field_passes_it(store: Store) -> None:
    """A field over its budget emits one warning event (when it crosses), and the run goes on."""
    em = MemoryEmitter()
    g = chatty(store, emitter=em, options=Options(field_budgets={"messages": 500}))
    final = await g.run("r", Chat())
    assert final.turn == 10
    warnings = em.of_kind(EventKind.WARNING)
    assert len(warnings) == 1
    assert warnings[0].meta["field"] == "messages"
    assert warnings[0].step == 5


async def test_strict_budget_fails_the_step_and_keeps_what_was_committed(store: Store) -> None:
    """strict_budgets=True fails the step with a typed error; earlier steps stay committed."""
    g = chatty(store, options=Options(field_budgets={"messages": 500}, strict_budgets=True))
    with pytest.raises(BudgetExceededError, match="'messages'") as ei:
        await g.run("r", Chat())
    assert (ei.value.field, ei.value.budget, ei.value.step) == ("messages", 500, 5)
    assert ei.value.size > 500
    assert len(await g.history("r")) == 4
    assert (await g.get_run("r")).status is RunStatus.FAILED
