"""A BaseException that is not a cancel (GeneratorExit, a user's own) never leaves a run `running`.

The process lives on after it, so nothing would ever resume or fail the run: the engine marks it
failed with a `StepError` naming the exception and the step (KeyboardInterrupt and SystemExit are
re-raised as themselves after the run is marked failed, so that the process still stops).
"""

from __future__ import annotations

from typing import TypedDict

import pytest

from graphengine import Context, Engine, NodeResult, fan_out, stop
from graphengine.errors import StepError
from graphengine.store import MemoryStore, RunStatus


class T(TypedDict, total=False):
    """A one-field state."""

    n: int


class Boom(BaseException):
    """A user's own BaseException."""


def graph(exc: BaseException, in_branch: bool) -> Engine[T]:
    async def bad(ctx: Context, s: T) -> NodeResult[T]:
        raise exc

    async def start(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(route=fan_out(["bad"], join="join"))

    async def join(ctx: Context, s: T) -> NodeResult[T]:
        return NodeResult(route=stop())

    g: Engine[T] = Engine(T, store=MemoryStore())
    g.add("bad", bad).add("start", start).add("join", join)
    if in_branch:
        g.start_at("start")
    else:
        g.start_at("bad")
    return g


@pytest.mark.parametrize("in_branch", [False, True], ids=["node", "branch"])
@pytest.mark.parametrize("make", [GeneratorExit, Boom], ids=["GeneratorExit", "custom"])
async def test_a_base_exception_in_a_node_fails_the_run(make: type[BaseException], in_branch: bool) -> None:
    """The run ends `failed` with a StepError naming the exception; the process goes on."""
    g = graph(make("gone"), in_branch)
    with pytest.raises(StepError) as info:
        await g.run("r", {})
    assert make.__name__ in str(info.value)
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED


@pytest.mark.parametrize("make", [KeyboardInterrupt, SystemExit], ids=["KeyboardInterrupt", "SystemExit"])
async def test_an_interrupt_of_the_process_is_reraised_with_the_run_failed(make: type[BaseException]) -> None:
    """KeyboardInterrupt and SystemExit stay themselves, and the run is not left running."""
    g = graph(make(), False)
    with pytest.raises(make):
        await g.run("r", {})
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
