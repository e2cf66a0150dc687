"""Errors that used to be raw (a driver's or Python's own) or that blamed the wrong party are
typed, name the bad value and say the way out."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from graphengine import Engine, GraphValidationError, NodeResult
from graphengine.store import MemoryStore, Store


class C(BaseModel):
    """A counter."""

    n: int = 0


def _engine(store: Store) -> Engine[C]:
    g = Engine(C, store=store)
    g.add("inc", lambda c, s: NodeResult(delta=C(n=s.n + 1))).start_at("inc")
    return g


@pytest.mark.parametrize("at_step", [1.5, "1", True, 1.0])
async def test_fork_at_a_step_that_is_not_a_whole_number_is_typed(store: Store, at_step: Any) -> None:
    """fork(at_step=1.5) names the value and what a step is, instead of a raw TypeError from slicing."""
    g = _engine(store)
    await g.run("r", C())
    with pytest.raises(GraphValidationError, match=rf"at_step={at_step!r}.*whole number") as info:
        await g.fork("r", "f", at_step=at_step)
    assert info.value.run_id == "r"
    assert await store.get_run("f") is None


async def test_fork_at_a_whole_step_still_forks() -> None:
    """The check is about the type only: fork at step 0 replays from the initial state."""
    g = _engine(MemoryStore())
    await g.run("r", C(n=5))
    assert (await g.fork("r", "f", at_step=0)).n == 6


@pytest.mark.parametrize(
    ("returned", "words"),
    [(None, ["returned NoneType", "return"]), ([1, 2], ["returned list"]), ({"n": {1, 2}}, ["JSON"])],
    ids=["none", "list", "unencodable"],
)
async def test_a_migration_returning_no_dict_is_blamed_on_the_migration_not_the_database(
    store: Store, returned: Any, words: list[str]
) -> None:
    """A migration that forgets its `return` is a MigrationError naming the versions, not a CorruptRecordError."""
    from graphengine import MigrationError

    await _engine(store).run("r", C())

    def up(doc: dict[str, Any]) -> Any:
        doc["n"] = 7  # edits in place, and returns something that is not the new data
        return returned

    g2 = Engine(C, store=store, state_version=2, migrations={1: up})
    g2.add("inc", lambda c, s: NodeResult(delta=C(n=s.n + 1))).start_at("inc")
    with pytest.raises(MigrationError) as info:
        await g2.get_state("r")
    assert (info.value.run_id, info.value.stored, info.value.current) == ("r", 1, 2)
    assert "from state version 1 to 2" in str(info.value)
    assert all(w in str(info.value) for w in words), str(info.value)


async def test_a_failing_subgraph_names_the_parent_run_and_says_to_resume_the_parent(store: Store) -> None:
    """The caller of the parent gets an error about the parent run (resume the parent), with the child's failure inside."""
    from graphengine import NodeError
    from graphengine.store import RunStatus

    fail = [True]

    def flaky(ctx: Any, s: C) -> NodeResult[C]:
        if fail[0]:
            raise ValueError("disk on fire")
        return NodeResult(delta=C(n=s.n + 10))

    child = Engine(C, store=store).add("flaky", flaky).start_at("flaky")
    parent = Engine(C, store=store).add("sub", child).start_at("sub")
    with pytest.raises(NodeError) as info:
        await parent.run("p", C())
    err = info.value
    text = str(err)
    assert (err.run_id, err.node_id) == ("p", "sub"), text
    assert "resume('p')" in text, text
    assert "resume('p/sub/1')" not in text, text  # resuming the child alone would leave the parent failed
    assert "p/sub/1" in text and "disk on fire" in text and "'flaky'" in text, text
    assert (await parent.get_run("p")).status is RunStatus.FAILED
    fail[0] = False
    assert (await parent.resume("p")).n == 10  # the way out the message names works
