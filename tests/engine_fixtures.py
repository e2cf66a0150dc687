"""Shared graphs and state types for the engine tests."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import pytest
from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, append, goto, stop
from graphengine.store import MemoryStore, RunStatus, Store


class S(BaseModel):
    """The seed's counter state."""

    n: int = 0


class Doc(BaseModel):
    """A state with per-field reducers."""

    items: Annotated[list[str], append] = []
    total: Annotated[int, operator.add] = 0
    label: str = ""


class Trail(BaseModel):
    """The nodes a run went through (`log`), with the scratch fields the flow and durability tests
    set: a fan-out branch's `item`, a counter `n`, a `note`, the `last_error` an error route wrote."""

    log: Annotated[list[str], append] = []
    item: int = 0
    n: int = 0
    note: str = ""
    last_error: str = ""


async def cancel_once_started(engine: Engine[Any], initial: BaseModel, started: asyncio.Event) -> None:
    """Run `engine` as run "r" in a task and cancel it once `started` is set: the cancellation
    reaches the caller and the stored run is `cancelled`."""
    task = asyncio.create_task(engine.run("r", initial))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await engine.get_run("r")).status is RunStatus.CANCELLED


def is_big(s: S) -> bool:
    """A named predicate (graph descriptions label its edge with the name)."""
    return s.n > 5


M = TypeVar("M", bound=BaseModel)


def flaky(fails: int, ok: Callable[[int], M]) -> Callable[[Context, Any], Awaitable[NodeResult[M]]]:
    """A node raising `ConnectionError` on its first `fails` calls, then returning the delta
    `ok(attempt)` (so the state shows which attempt succeeded)."""
    left = [fails]

    async def node(ctx: Context, s: Any) -> NodeResult[M]:
        if left[0]:
            left[0] -= 1
            raise ConnectionError("flaky")
        return NodeResult(delta=ok(ctx.attempt))

    return node


def seed_reduce(prev: S, delta: S) -> S:
    """The seed's explicit reducer."""
    return prev.model_copy(update={"n": delta.n}) if delta.n else prev


async def inc(ctx: Context, s: S) -> NodeResult[S]:
    """Async node: add one."""
    return NodeResult(delta=S(n=s.n + 1))


def check(ctx: Context, s: S) -> NodeResult[S]:
    """Sync node: loop until n reaches 3."""
    return NodeResult(route=stop()) if s.n >= 3 else NodeResult(route=goto("inc"))


def seed_engine(store: Store | None = None, **kw: Any) -> Engine[S]:
    """The seed's small loop: inc -> check -> inc ... until n == 3."""
    g = Engine(S, reducer=seed_reduce, store=store or MemoryStore(), options=Options(max_steps=10), **kw)
    g.add("inc", inc)
    g.add("check", check)
    g.start_at("inc")
    g.connect("inc", "check")
    return g


StoreFactory = Callable[[Path], Store]


def memory_factory(tmp: Path) -> Store:
    """A fresh MemoryStore."""
    return MemoryStore()


def sqlite_factory(tmp: Path) -> Store:
    """A SQLiteStore on a real file."""
    from graphengine.store import SQLiteStore  # type: ignore[attr-defined]

    return SQLiteStore(tmp / "runs.db")  # type: ignore[no-any-return]
