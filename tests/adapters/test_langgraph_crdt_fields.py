"""CRDT fields through `to_langgraph`: LangGraph merges the branches with our reducers and ends in the engine's state."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel

pytest.importorskip("langgraph")

from graphengine import (
    Branch,
    Context,
    Engine,
    GCounter,
    NodeResult,
    ORSet,
    converge,
    fan_out,
    maximum,
    replica_id,
)
from graphengine.adapters.langgraph import to_langgraph


class S(BaseModel):
    """Counters, a set and a max register written by every branch."""

    item: int = 0
    hits: Annotated[GCounter, converge] = GCounter()
    tags: Annotated[ORSet[str], converge] = ORSet[str]()
    hi: Annotated[int, maximum] = 0
    # LangGraph starts a reducer's channel at the type's empty value (0) and passes the input
    # through it, so a `minimum` field would start at min(0, input) there; a maximum from 0 is alike.


def engine() -> Engine[S]:
    def work(ctx: Context, s: S) -> NodeResult[S]:
        me = replica_id(ctx)
        return NodeResult(
            delta=S(
                hits=s.hits.increment(me, s.item), tags=s.tags.add(f"t{s.item % 3}", me), hi=s.item, lo=s.item
            )
        )

    g = Engine(S)
    g.add(
        "split",
        lambda c, s: NodeResult(route=fan_out([Branch("w", S(item=i)) for i in range(1, 7)], join="j")),
    )
    g.add("w", work).add("j", lambda c, s: None).start_at("split")
    return g


async def test_crdt_fan_out_ends_alike_in_langgraph() -> None:
    """The adapted graph's final state equals the engine's, field by field (`maximum` has a signature LangGraph reads; the builtin has none)."""
    g = engine()
    ours = await g.run("r", S())
    theirs = await to_langgraph(g).ainvoke(S())
    assert S(**theirs) == ours
    assert ours.hits.value == 21 and ours.hi == 6
    assert ours.tags.elements == ("t0", "t1", "t2")
