"""Type-checked by mypy (`make typecheck`), never run: the generic API keeps its types."""

from __future__ import annotations

from typing import assert_type

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, StepView, goto
from graphengine.store import MemoryStore, Store


class S(BaseModel):
    n: int = 0


async def inc(ctx: Context, s: S) -> NodeResult[S]:
    return NodeResult(delta=S(n=s.n + 1), route=goto("inc"))


async def check() -> None:
    g = Engine(S, store=MemoryStore())
    assert_type(g, Engine[S])
    assert_type(g.add("inc", inc), Engine[S])
    assert_type(await g.run("r", S()), S)
    assert_type(await g.resume("r"), S)
    assert_type(await g.history("r"), list[StepView[S]])
    store: Store = MemoryStore()
    assert_type(store, Store)
    r: NodeResult[S] = NodeResult(delta=S())
    assert_type(r.delta, S | None)
