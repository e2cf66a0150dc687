"""An adapted LangGraph run killed (SIGKILL) mid-superstep resumes in another process without re-running finished tasks."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("langgraph")

from lg_crash_graph import RUN_ID, build, run_worker

from graphengine.store import SQLiteStore

WORKER = Path(__file__).resolve().parents[1] / "lg_crash_graph.py"
KILLED_AT = 4
"""The item whose task kills its process (items 0-3 have landed by then)."""


def _child(db: Path, log: Path, what: str, kill: bool) -> subprocess.CompletedProcess[str]:
    return run_worker(WORKER, [str(db), str(log), what], str(KILLED_AT) if kill else None)


def _runs(log: Path) -> list[tuple[int, int]]:
    return [(int(p), int(i)) for p, i in (line.split() for line in log.read_text().splitlines())]


async def _committed_branches(db: Path) -> set[int]:
    store = SQLiteStore(db)
    try:
        steps = await store.load_steps(RUN_ID)
        last = steps[-1].step if steps else 0
        return {b.branch for n in range(1, last + 2) for b in await store.load_branches(RUN_ID, n)}
    finally:
        await store.close()


async def test_a_killed_superstep_resumes_without_re_running_the_tasks_it_stored(tmp_path: Path) -> None:
    """Tasks whose results were stored before the kill never run again; the run ends with LangGraph's result."""
    db, log = tmp_path / "crash.db", tmp_path / "side.log"
    first = _child(db, log, "run", kill=True)
    assert first.returncode == -signal.SIGKILL, first.stderr
    stored = await _committed_branches(db)
    assert stored, "no task of the killed superstep was stored before the kill"
    assert KILLED_AT not in stored
    before = _runs(log)
    second = _child(db, log, "resume", kill=False)
    assert second.returncode == 0, second.stderr
    after = _runs(log)[len(before) :]
    rerun = {item for _, item in after}
    assert not rerun & stored, f"tasks {sorted(rerun & stored)} ran again though their results were stored"
    assert rerun == set(range(6)) - stored
    expected = await build(tmp_path / "native.log").compile().ainvoke({"n": 0, "results": [], "total": 0})
    assert int(second.stdout.strip()) == expected["total"]
