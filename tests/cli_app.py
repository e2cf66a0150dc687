"""The small app the `graphengine` command tests run against, and how they run the command.

Test modules import these by name (`from cli_app import ...`); no tests live here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""

APP = '''
"""A tiny app for the CLI tests: count to 3, optionally pausing for approval."""
import os
from pydantic import BaseModel
from graphengine import Context, Engine, NodeResult, goto, stop


class C(BaseModel):
    n: int = 0
    note: str = ""


def inc(ctx: Context, s: C) -> NodeResult[C]:
    step = 2 if os.environ.get("CLIAPP_BUMP") else 1  # a changed node body, for replay divergence
    return NodeResult(delta=C(n=s.n + step))


def check(ctx: Context, s: C) -> NodeResult[C]:
    return NodeResult(route=stop() if s.n >= 3 else goto("inc"))


def ask(ctx: Context, s: C) -> NodeResult[C]:
    answer = ctx.interrupt({"q": "ok?"})
    return NodeResult(delta=C(note=str(answer)))


def build(store):
    g = Engine(C, store=store)
    g.add("inc", inc).add("check", check).start_at("inc").connect("inc", "check")
    return g


def build_ask(store):
    g = Engine(C, store=store)
    g.add("ask", ask).add("inc", inc).start_at("ask").connect("ask", "inc")
    return g


engine = build(None)
not_an_engine = 42
'''


def child_path(tmp: Path) -> str:
    """PYTHONPATH for a child process: this checkout's src first (not the package the venv was
    installed from, which may be another checkout), the repository root, then `tmp`."""
    return os.pathsep.join([str(ROOT / "src"), str(ROOT), str(tmp)])


def cli(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m graphengine ARGS` in `tmp` (where cliapp.py lives)."""
    e = {**os.environ, "PYTHONPATH": child_path(tmp), "GRAPHENGINE_PLAIN": "1", **(env or {})}
    e.pop("GRAPHENGINE_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "graphengine", *args],
        cwd=tmp,
        env=e,
        capture_output=True,
        text=True,
        timeout=60,
    )


STORE = "--store=sqlite:///runs.db"
"""The `--store` option naming the app directory's `runs.db`."""


def write_cli_app(tmp: Path, *, paused: bool = True) -> None:
    """Write cliapp.py into `tmp` and run it into `tmp/runs.db`: a done run 'r1' (and a paused run 'p1')."""
    (tmp / "cliapp.py").write_text(APP)
    paused_run = "        await cliapp.build_ask(s).run('p1', cliapp.C())\n" if paused else ""
    code = (
        "import asyncio, cliapp\n"
        "from graphengine.store import SQLiteStore\n"
        "async def main():\n"
        "    async with SQLiteStore('runs.db') as s:\n"
        "        await cliapp.build(s).run('r1', cliapp.C())\n"
        f"{paused_run}"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "PYTHONPATH": child_path(tmp)}
    subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env, check=True, timeout=60)
