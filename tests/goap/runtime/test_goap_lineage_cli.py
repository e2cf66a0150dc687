"""python -m goap: explain, visualize, actions and history (the plan lineage of a stored run), with --json."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from problem_files import two_step_problem

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.__main__ import main
from graphengine.store import SQLiteStore

PROBLEM = two_step_problem()

ACTIONS = [
    ActionSpec("build", {}, {"built": True}),
    ActionSpec("sign_hsm", {"built": True}, {"signed": True}, execute=lambda w: 1 / 0),
    ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=3),
]


def _file(tmp_path: Path, **over: object) -> str:
    p = tmp_path / "p.json"
    p.write_text(json.dumps({**PROBLEM, **over}))
    return str(p)


def test_explain_names_the_unreachable_condition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """explain prints why a goal is unreachable; --json gives the explanation object."""
    f = _file(
        tmp_path,
        initial={"a": False, "b": False, "c": False},
        goal={"c": True},
        expect="no_plan",
        optimal_cost=None,
    )
    assert main(["explain", f]) == 0
    assert "no plan" in capsys.readouterr().out
    assert main(["explain", f, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "no_plan" and doc["explanation"]["unreachable"][0]["key"] == "c"
    assert main(["explain", _file(tmp_path)]) == 1
    assert "a plan exists" in capsys.readouterr().out


def test_visualize_prints_mermaid_or_dot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """visualize draws the plan; --format dot gives DOT; gantt without a schedule is a usage error."""
    assert main(["visualize", _file(tmp_path)]) == 0
    assert "flowchart LR" in capsys.readouterr().out
    assert main(["visualize", _file(tmp_path), "--format", "dot", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"].startswith('digraph "two"')
    assert main(["visualize", _file(tmp_path), "--format", "gantt"]) == 2


def test_visualize_prints_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--format text lists the steps, each with the step it follows."""
    assert main(["visualize", _file(tmp_path), "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert ": cost " in out.splitlines()[0] and "├── [0] " in out and "(after: [0])" in out


def test_actions_lists_a_modules_actions(capsys: pytest.CaptureFixture[str]) -> None:
    """actions MODULE:NAME lists preconditions, effects and policies; --json too."""
    assert main(["actions", "examples.release:actions", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["actions"]}
    assert rows["publish"]["approval"] == "PublishApproval" and rows["publish"]["guards"] == [
        "release_window"
    ]
    assert main(["actions", "examples.release:actions"]) == 0
    assert "publish  cost=1  [guards, approval]" in capsys.readouterr().out
    assert main(["actions", "no.such.module:x"]) == 2


def test_history_prints_a_stored_runs_plan_lineage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """history DB RUN prints each plan version with its trigger and diff; --json gives the versions."""
    db = tmp_path / "runs.db"

    async def run() -> None:
        async with SQLiteStore(db) as store:
            g = GoapGraph(ACTIONS, store=store, blacklist_after=1)
            await g.run("r", {}, GoalSpec({"signed": True}))

    asyncio.run(run())
    assert main(["history", str(db), "r"]) == 0
    out = capsys.readouterr().out
    assert "v1 step 1 [initial]" in out and "[failure]" in out and "ZeroDivisionError" in out
    assert main(["history", str(db), "r", "--json"]) == 0
    plans = json.loads(capsys.readouterr().out)["plans"]
    assert [p["plan"] for p in plans] == [["build", "sign_hsm"], ["sign_local"]]
    assert main(["history", str(tmp_path / "missing.db"), "r"]) == 2
    assert main(["history", str(db), "nope"]) == 2


def test_history_takes_a_store_url_like_every_other_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """history STORE RUN takes the store URL graphengine's commands take, and prints what the path gives."""
    db = tmp_path / "runs.db"

    async def run() -> None:
        async with SQLiteStore(db) as store:
            g = GoapGraph(ACTIONS, store=store, blacklist_after=1)
            await g.run("r", {}, GoalSpec({"signed": True}))

    asyncio.run(run())
    assert main(["history", str(db), "r", "--json"]) == 0
    by_path = capsys.readouterr().out
    assert main(["history", f"sqlite:///{db}", "r", "--json"]) == 0
    assert capsys.readouterr().out == by_path
    assert main(["history", f"sqlite:///{tmp_path / 'missing.db'}", "r"]) == 2
    assert "missing.db" in capsys.readouterr().err
