"""This project's planner as a process: ``python -m goap plan FILE --json``, timed end to end.

The counterpart of the ``fd`` peer, which times Fast Downward's driver (translate + search) as a
process: here the clock covers the interpreter's start, the imports, reading the JSON file,
planning and printing, as a user running the command line waits for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from bench.peers import Outcome

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The checkout whose ``goap`` the command runs (the worker's working directory)."""


def command(problem_path: Path) -> list[str]:
    """The command line the peer runs (and times)."""
    return [sys.executable, "-m", "goap", "plan", str(problem_path), "--json"]


def run(problem_path: Path, workdir: Path) -> Outcome:
    """Run ``python -m goap plan`` once on the problem and time the process."""
    start = time.perf_counter()
    done = subprocess.run(
        command(problem_path.resolve()), cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    try:
        doc = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = " | ".join(done.stderr.strip().splitlines()[-2:])
        return Outcome("error", None, seconds, note=f"exit {done.returncode}: {tail}"[:300])
    stats = doc.get("stats") or {}
    nodes = stats.get("expanded")
    search = stats.get("seconds")
    extra = {"exit_code": done.returncode, "optimal": doc.get("optimal")}
    if doc.get("status") == "found":
        return Outcome("found", list(doc["plan"]), seconds, search, nodes, extra=extra)
    if doc.get("status") == "no_plan":
        return Outcome("no_plan", None, seconds, search, nodes, extra=extra)
    return Outcome("error", None, seconds, search, nodes, note=f"status {doc.get('status')!r}", extra=extra)
