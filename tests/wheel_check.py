"""Checks an installed graphengine wheel, from outside any source tree.

cibuildwheel runs it on every wheel it builds (the ``test-command`` of ``[tool.cibuildwheel]`` in
pyproject.toml), and ``tests/test_package.py`` runs it in a fresh venv on the wheel it builds
here::

    python -I tests/wheel_check.py PROBLEM.json [--full]

It exits 1, saying why, unless goap and graphengine are imported from an installation (not from
a source tree), both C accelerators of goap.planning import, and ``python -m goap plan PROBLEM
--json`` finds a plan saying ``"search": "c"``. With ``--full`` (the wheel installed with its
dependencies, as cibuildwheel does) it also runs a small graph on the engine.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path


def _installed(name: str, *, load: bool = True) -> Path:
    """Where `name` comes from (imported, or only found when `load` is false: graphengine needs
    its dependencies to import); it must be an installation."""
    if load:
        where = Path(importlib.import_module(name).__file__ or "").resolve()
    else:
        spec = importlib.util.find_spec(name)
        where = Path(spec.origin if spec is not None and spec.origin else "").resolve()
    if "site-packages" not in where.parts:
        raise SystemExit(f"wheel check: {name} was imported from {where}, not from an installation")
    return where


def _plans_in_c(problem: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "goap", "plan", problem, "--json"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"wheel check: goap plan failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    out = json.loads(done.stdout)
    if out["status"] != "found" or out["search"] != "c":
        raise SystemExit(f"wheel check: goap plan said status {out['status']!r}, search {out['search']!r}")
    return f"{out['problem']}: {len(out['plan'])} steps, cost {out['cost']:g}, search in C"


def _runs_a_graph() -> str:
    from pydantic import BaseModel

    from graphengine import Context, Engine, NodeResult

    class S(BaseModel):
        n: int = 0

    async def inc(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=s.n + 1))

    final = Engine(S).add("inc", inc).start_at("inc").run_sync("r1", S())
    if final != S(n=1):
        raise SystemExit(f"wheel check: the engine returned {final!r}")
    return "a graph ran on the engine"


def main(argv: list[str]) -> int:
    """Run the checks; print what each found."""
    problem, full = argv[0], "--full" in argv[1:]
    where = _installed("goap")
    _installed("graphengine", load=full)
    for ext in ("goap.planning._lmcut", "goap.planning._ground"):
        print(f"{ext}: {_installed(ext).name}")
    print(_plans_in_c(problem))
    if full:
        print(_runs_a_graph())
    print(f"wheel check passed ({where.parent.parent})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
