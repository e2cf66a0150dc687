"""SIGKILL a process driving hundreds of concurrent runs on one store, mid group commit; resume.

`tests/crash/many_runs.py` starts (or resumes) `RUNS` runs of a loop at once, so their steps reach
the database in group commits (several runs' steps in one transaction), and logs which steps its
nodes saw committed (`start`) and which the engine reported done (`ack`). The test kills it twice
with SIGKILL after a random number of acknowledged steps (`CRASH_SEED` sets the seed, printed in
every failure), then lets a third process finish every run, and checks after every kill that

1. every run's stored steps are dense from 1 and each holds the delta its step number implies;
2. no step the engine reported done, and no step a successor node started from, is missing;

and at the end that every run is done with the state an uninterrupted run has.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from db_servers import store_url

from graphengine.store import RunStatus, Store

CHILD = Path(__file__).resolve().parents[1] / "crash" / "many_runs.py"
RUNS = 300
STEPS = 12
SEED = int(os.environ.get("CRASH_SEED", str(random.SystemRandom().randrange(2**32))))


def _lines(log: Path, kind: str) -> list[tuple[str, int]]:
    """The (run, step) of every complete `kind` line of the child's log."""
    if not log.exists():
        return []
    text = log.read_bytes()
    # A line being written while we read is not complete yet; the next read sees it whole.
    lines = text[: text.rfind(b"\n") + 1].decode().splitlines()
    return [(run_id, int(n)) for what, run_id, n in (line.split(" ") for line in lines) if what == kind]


def _acks(log: Path, offset: int) -> tuple[int, int]:
    """(acks in the complete lines after `offset`, the offset after them): reads only what is new."""
    with log.open("rb") as f:
        f.seek(offset)
        new = f.read()
    new = new[: new.rfind(b"\n") + 1]
    return new.count(b"ack "), offset + len(new)


def _run_child(url: str, prefix: str, log: Path, kill_after_acks: int | None) -> bool:
    """Run the child; SIGKILL it once `kill_after_acks` steps are acknowledged. True if it was killed."""
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), url, prefix, str(RUNS), str(STEPS), str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n", proc.communicate(timeout=60)[1].decode(errors="replace")
    offset = log.stat().st_size if log.exists() else 0
    acks = 0
    deadline = time.monotonic() + 120
    while kill_after_acks is not None and proc.poll() is None:
        # A kill between a commit and its `ack` line is allowed: the step is stored and merely
        # not reported. The reverse (reported, not stored) is what the checks look for.
        if log.exists():
            got, offset = _acks(log, offset)
            acks += got
        if acks >= kill_after_acks:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
            return True
        assert time.monotonic() < deadline, f"child stalled (CRASH_SEED={SEED})"
        time.sleep(0.002)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, f"child failed (CRASH_SEED={SEED}):\n{err.decode(errors='replace')}"
    return False


async def _check(store: Store, prefix: str, log: Path) -> dict[str, int]:
    """Committed steps per run; fails if one is not dense, holds a wrong delta, or if a reported
    or relied-on step is missing."""
    committed: dict[str, int] = {}
    for i in range(RUNS):
        run_id = f"{prefix}-{i}"
        steps = await store.load_steps(run_id)
        assert [s.step for s in steps] == list(range(1, len(steps) + 1)), (run_id, SEED)
        assert [json.loads(s.delta or b"{}").get("n") for s in steps] == [s.step for s in steps], (
            run_id,
            SEED,
        )
        committed[run_id] = len(steps)
    for kind in ("ack", "start"):
        missing = [(r, n) for r, n in _lines(log, kind) if n > committed[r]]
        assert not missing, f"{kind} of uncommitted steps {missing[:5]} (CRASH_SEED={SEED})"
    return committed


async def test_sigkill_mid_group_commit_of_hundreds_of_runs_loses_no_reported_step(
    sql_store: Store, tmp_path: Path
) -> None:
    """Killed twice while hundreds of runs commit in groups, nothing reported done is lost,
    every stored run is intact, and a resume finishes every run as if never interrupted."""
    rng = random.Random(SEED)
    prefix = f"kill{rng.randrange(10**6)}"
    url, log = store_url(sql_store), tmp_path / "many.log"
    kills = 0
    for _ in range(2):
        before = sum((await _check(sql_store, prefix, log)).values())
        left = RUNS * STEPS - before
        kills += _run_child(url, prefix, log, rng.randrange(1, max(2, left // 2)))
        await _check(sql_store, prefix, log)
    assert kills >= 1, f"the child finished before any kill (CRASH_SEED={SEED})"
    _run_child(url, prefix, log, None)
    committed = await _check(sql_store, prefix, log)
    assert set(committed.values()) == {STEPS}
    for i in range(RUNS):
        run = await sql_store.get_run(f"{prefix}-{i}")
        assert run is not None and run.status is RunStatus.DONE
