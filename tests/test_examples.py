"""The shipped examples run and do what their docstrings say."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from examples import release, research


async def assert_rerun_resumes(
    main: Callable[[list[str]], Awaitable[Any]],
    args: list[str],
    final: Any,
    says: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Running the example again with the same `args` resumes: the same final state, `says` in its output."""
    assert await main(args) == final
    assert says in capsys.readouterr().out


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
    await assert_rerun_resumes(research.main, ["--db", db, "--run-id", "demo"], final, "(resumed)", capsys)


async def test_release_demo_shows_failure_replan_blacklist_and_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo fails to sign twice, replans, blacklists sign_hsm, warns, is auto-approved and ships; replays."""
    db = str(tmp_path / "rel.db")
    final = await release.main(["--db", db, "--run-id", "rel"])
    out = capsys.readouterr().out
    assert final.status == "achieved"
    assert final.blacklisted_actions == ["sign_hsm"]
    assert final.replan_reason == "action_failed"
    assert out.count("FAIL sign_hsm") == 2
    assert "replanned because: action_failed" in out
    assert "no divergence" in out
    assert out.count("paused for approval of 'publish'") == 1 and "auto-approving" in out
    assert "guard warned: release_window: publishing during the Friday change freeze" in out
    assert final.world_state["channel"] == "stable"
    assert [e.kind for e in final.policy_events] == ["approval_granted", "guard_warn"]
    assert "plan history:" in out and "[failure]" in out
    assert "resume:" in out and "replay:" in out
    await assert_rerun_resumes(
        release.main, ["--db", db, "--run-id", "rel"], final, "resuming run 'rel'", capsys
    )


async def test_agent_example_runs_offline_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The LLM agent example runs on its scripted model by default and replays without it."""
    from examples import agent

    final = await agent.main(["--db", str(tmp_path / "a.db"), "--run-id", "a1"])
    assert final.verdict == "PASS"
    assert final.rounds == 2
    out = capsys.readouterr().out
    assert "no divergence" in out
