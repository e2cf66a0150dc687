"""The small app the server tests serve, as source (for `graphengine serve`) and as a module.

Test modules import these by name (`from server_app import ...`); no tests live here.
"""

from __future__ import annotations

import sys
import types

APP = '''
"""A small app for the server tests: count to 3; ask a question; wait until released."""
import asyncio
from pydantic import BaseModel, Field
from graphengine import Context, Engine, NodeResult, goto, stop


class C(BaseModel):
    n: int = Field(default=0, ge=0)
    note: str = ""
    log: list[str] = []


def inc(ctx: Context, s: C) -> NodeResult[C]:
    return NodeResult(delta=C(n=s.n + 1))


def check(ctx: Context, s: C) -> NodeResult[C]:
    return NodeResult(route=stop() if s.n >= 3 else goto("inc"))


def ask(ctx: Context, s: C) -> NodeResult[C]:
    answer = ctx.interrupt({"question": "ship it?", "n": s.n})
    return NodeResult(delta=C(note=str(answer)))


GATE: dict[str, asyncio.Event] = {}


async def wait(ctx: Context, s: C) -> NodeResult[C]:
    gate = GATE.setdefault(ctx.run_id, asyncio.Event())
    await gate.wait()
    return NodeResult(delta=C(note="released"))


def build(store):
    """inc -> check -> (inc | stop), with ask first when n starts at 10 and wait at 20."""
    g = Engine(C, store=store)
    g.add("ask", ask).add("wait", wait).add("inc", inc).add("check", check)
    g.add("route", lambda ctx, s: NodeResult(route=goto("ask" if s.n == 10 else "wait" if s.n == 20 else "inc")))
    g.start_at("route")
    g.connect("ask", "check").connect("wait", "check").connect("inc", "check")
    return g
'''


def load_app_module() -> types.ModuleType:
    """The APP source as the importable module `srvapp` (the uvicorn test imports it by name)."""
    mod = sys.modules.get("srvapp")
    if mod is None:
        mod = types.ModuleType("srvapp")
        exec(compile(APP, "srvapp.py", "exec"), mod.__dict__)
        sys.modules["srvapp"] = mod
    return mod
