"""Smoke test of ``python -m bench workers``: one worker process serves a few queued runs, measured and profiled.

PostgreSQL and the workers extra are needed; under CI=true their absence fails the test.
"""

from __future__ import annotations

from pathlib import Path

from db_servers import require_worker_servers


def test_one_worker_process_is_measured_and_profiled(tmp_path: Path) -> None:
    """Every step is counted, the sessions are sampled, and the profile is read by layer."""
    require_worker_servers()
    from bench.workers import measure, profile_table

    r = measure(1, runs=4, steps=4, concurrency=2, out=tmp_path)
    assert (r.procs, r.steps) == (1, 16)
    assert r.steps_per_s > 0 and r.window.wall > 0
    assert len(r.profiles) == 1 and r.profiles[0].exists()
    lines = profile_table(r.profiles, top=3)
    assert any("graphengine" in line for line in lines)
    assert any("procrastinate" in line or "psycopg" in line for line in lines)
