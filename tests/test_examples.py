"""The shipped examples run and do what their docstrings say."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples import research


async def test_research_demo_runs_on_sqlite_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo answers on the second round; running it again with the same id resumes, runs nothing."""
    db = str(tmp_path / "r.db")
    final = await research.main(["--db", db, "--run-id", "demo"])
    assert final.verdict == "good"
    assert final.rounds == 2
    first = capsys.readouterr().out
    assert "(new)" in first
    assert first.count("step ") == 8
    again = await research.main(["--db", db, "--run-id", "demo"])
    assert again == final
    assert "(resumed)" in capsys.readouterr().out
