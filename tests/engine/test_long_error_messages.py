"""A node error whose message no store column could take is recorded truncated, with a marker.

On MySQL a message over ~16 MB (MEDIUMTEXT) could not be written: the caller got `NodeError` and
the run stayed `running`. Every store now records the first `ERROR_TEXT_MAX` characters and says
how many were cut; an exception whose `__str__` raises is recorded by its type.
"""

from __future__ import annotations

from typing import TypedDict

import pytest

from graphengine import Context, Engine, NodeError, NodeResult
from graphengine._encoding import ERROR_TEXT_MAX
from graphengine.store import MemoryStore, RunStatus, Store
from tests.db_servers import server_store


class T(TypedDict, total=False):
    """A one-field state."""

    n: int


class Unprintable(Exception):
    """An exception whose str() raises."""

    def __str__(self) -> str:
        raise RuntimeError("no str")


def failing(store: Store, exc: Exception) -> Engine[T]:
    async def bad(ctx: Context, s: T) -> NodeResult[T]:
        raise exc

    g: Engine[T] = Engine(T, store=store)
    g.add("bad", bad).start_at("bad")
    return g


async def check_truncated(store: Store) -> None:
    g = failing(store, ValueError("x" * (17 * 1024 * 1024)))
    with pytest.raises(NodeError):
        await g.run("r", {})
    rec = await store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
    assert rec.error is not None and rec.error.startswith("NodeError: ") and "ValueError" in rec.error
    assert "[truncated" in rec.error and len(rec.error) < ERROR_TEXT_MAX + 200


async def test_a_huge_error_message_is_recorded_truncated_in_memory() -> None:
    """The memory store keeps the same truncated text as the servers."""
    await check_truncated(MemoryStore())


@pytest.mark.parametrize("server", ["mysql", "postgres"])
async def test_a_huge_error_message_is_recorded_truncated_on_servers(server: str) -> None:
    """A 17 MB message fails the run (not left running) with the text cut and marked."""
    async with server_store(server) as store:
        await check_truncated(store)


async def test_an_exception_whose_str_raises_is_recorded_by_its_type() -> None:
    """str() raising inside the error record does not leave the run running."""
    store = MemoryStore()
    g = failing(store, Unprintable())
    with pytest.raises(NodeError):
        await g.run("r", {})
    rec = await store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
    assert rec.error is not None and "Unprintable" in rec.error
