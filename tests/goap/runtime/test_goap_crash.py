"""A GOAP run on SQLite killed with SIGKILL during actions resumes without repeating a committed action."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from graphengine.store import SQLiteStore
from graphengine.testing import assert_replays

WORKER = Path(__file__).parents[2] / "crash" / "goap_worker.py"
# Loaded by path: the worker's folder must not be on sys.path here, and tests/ must not be on the
# worker's (its goap/ folder would shadow the goap package).
_spec = importlib.util.spec_from_file_location("goap_crash_worker", WORKER)
assert _spec is not None and _spec.loader is not None
_worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_worker)
drive, graph = _worker.drive, _worker.graph
KILLS = int(os.environ.get("GOAP_CRASH_KILLS", "8"))


def _spawn(db: Path, run_id: str, log: Path) -> subprocess.Popen[bytes]:
    p = subprocess.Popen([sys.executable, str(WORKER), str(db), run_id, str(log)], stdout=subprocess.PIPE)
    assert p.stdout is not None
    assert p.stdout.readline() == b"ready\n", "worker did not start"
    return p


def _without_clock(delta: bytes | None) -> object:
    # The start time is an outside input (recorded by ctx.call): equal within a run, not across runs.
    doc = json.loads(delta) if delta else None
    if isinstance(doc, dict):
        doc.pop("wall_clock_started_at", None)
    return doc


async def _steps(db: Path, run_id: str) -> list[tuple[int, str, object, str]]:
    async with SQLiteStore(db) as s:
        return [(r.step, r.node_id, _without_clock(r.delta), r.route) for r in await s.load_steps(run_id)]


async def _replay(db: Path, run_id: str) -> None:
    async with SQLiteStore(db) as s:
        await assert_replays(graph(s, None).engine, run_id)


def test_killed_goap_runs_resume_to_the_reference_without_repeating_committed_actions(tmp_path: Path) -> None:
    """SIGKILL at random moments; each resume continues from the last committed step; replay is clean."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    ref_db = tmp_path / "ref.db"
    reference = asyncio.run(drive(str(ref_db), "ref", None))
    assert reference.status == "achieved"
    ref_steps = asyncio.run(_steps(ref_db, "ref"))
    kills = 0
    run = 0
    resumed_mid_run = 0
    while kills < KILLS:
        run += 1
        db, log, run_id = tmp_path / f"r{run}.db", tmp_path / f"r{run}.log", f"run{run}"
        for _ in range(3):
            p = _spawn(db, run_id, log)
            time.sleep(rng.uniform(0.0, 0.3))
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                kills += 1
            p.wait()
        p = _spawn(db, run_id, log)
        assert p.wait(timeout=60) == 0, f"seed {seed}: final resume failed"
        mid_run = [
            line
            for line in log.read_text().splitlines()
            if line.startswith("start ") and line.split()[2] != "0"
        ]
        resumed_mid_run += len(mid_run)
        steps = asyncio.run(_steps(db, run_id))
        assert [(s, n, d) for s, n, d, _ in steps] == [(s, n, d) for s, n, d, _ in ref_steps], f"seed {seed}"
        assert [r for *_, r in steps] == [r for *_, r in ref_steps]
        # An action is executed by the process whose executor step commits it, or by a process
        # killed before that commit; never by a process that started after the commit.
        starts: dict[str, int] = {}
        execs: list[tuple[str, str]] = []
        for line in log.read_text().splitlines():
            parts = line.split()
            if parts[0] == "start":
                starts[parts[1]] = int(parts[2])
            else:
                execs.append((parts[0], parts[1]))
        executor_steps = [s for s, n, _, _ in steps if n == "executor"]
        action_of_step = dict(
            zip(executor_steps, [o.action for o in reference.execution_history], strict=True)
        )
        for pid, action in execs:
            committed_before = [s for s in executor_steps if s <= starts[pid]]
            # The process started after these steps committed: it must not run their actions again
            # beyond the actions that legitimately recur later in the plan.
            later = [action_of_step[s] for s in executor_steps if s > starts[pid]]
            assert action in later, (
                f"seed {seed}: pid {pid} re-ran {action!r} committed at {committed_before}"
            )

        asyncio.run(_replay(db, run_id))
    assert resumed_mid_run >= KILLS // 2, f"seed {seed}: only {resumed_mid_run} kills landed mid-run"
