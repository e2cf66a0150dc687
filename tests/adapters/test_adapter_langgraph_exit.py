"""A program that ran an adapted graph with sync `invoke` exits quietly.

`invoke` drives the engine on a loop of its own, closed at exit. From Python 3.12 no thread may start
at interpreter shutdown, and closing a loop whose default executor ran starts one: the program used
to end with "Exception ignored in atexit callback ... can't create new thread at interpreter
shutdown". The oracle is the program's own stderr, in a real process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

PROGRAM = textwrap.dedent(
    """
    import asyncio
    from pydantic import BaseModel
    from graphengine import Context, Engine, NodeResult, stop
    from graphengine.adapters.langgraph import to_langgraph

    class S(BaseModel):
        n: int = 0

    async def work(ctx: Context, s: S) -> NodeResult[S]:
        n = await asyncio.get_running_loop().run_in_executor(None, lambda: s.n + 1)
        return NodeResult(delta=S(n=n), route=stop())

    g = Engine(S)
    g.add("work", work).start_at("work")
    print(to_langgraph(g).invoke({"n": 1}))
    """
)


def test_a_sync_invoke_that_used_the_default_executor_exits_without_a_traceback(tmp_path: Path) -> None:
    """The result is printed, the exit code is 0 and nothing is written to stderr."""
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'n': 2}"
    assert done.stderr == ""
