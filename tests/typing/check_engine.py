"""Type-checked by mypy (`make typecheck`), never run: the generic API keeps its types."""

from __future__ import annotations

from typing import Any, assert_type

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, StepView, goto
from graphengine.store import MemoryStore, Store


class S(BaseModel):
    n: int = 0


async def inc(ctx: Context, s: S) -> NodeResult[S]:
    return NodeResult(delta=S(n=s.n + 1), route=goto("inc"))


class Deps(BaseModel):
    user: str


async def greet(ctx: Context[Deps], s: S) -> NodeResult[S]:
    assert_type(ctx.context, Deps)
    return NodeResult(delta=S(n=len(ctx.context.user)))


async def untyped(ctx: Context, s: S) -> NodeResult[S]:
    assert_type(ctx.context, Any)
    return NodeResult()


async def check() -> None:
    g = Engine(S, store=MemoryStore())
    assert_type(g, Engine[S])
    assert_type(g.add("inc", inc), Engine[S])
    assert_type(await g.run("r", S()), S)
    assert_type(await g.resume("r"), S)
    assert_type(await g.history("r"), list[StepView[S]])
    assert_type(g.add("greet", greet).add("untyped", untyped), Engine[S])
    assert_type(await g.run("c", S(), context=Deps(user="ann")), S)
    assert_type(await g.continue_run("r", S(n=1), context=Deps(user="bob")), S)
    assert_type(await g.continue_run("r", {"n": 1}), S)
    assert_type(await g.update_state("r", S(n=2), as_node="inc"), S)
    store: Store = MemoryStore()
    assert_type(store, Store)
    r: NodeResult[S] = NodeResult(delta=S())
    assert_type(r.delta, S | None)
