"""The planner benchmark's runner, judging and report (``python -m bench planner``)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from problem_files import house_problem

from bench import planner
from bench.__main__ import main as bench_main
from bench.peers import Outcome, langgoap_astar, ours, ours_cli
from bench.planner import (
    Row,
    Settings,
    compare_with_fd,
    discover,
    judge,
    main,
    run_once,
    select_peers,
    summarise,
    summary_text,
    table,
)
from bench.validate import check, is_optimal


def run_house(peer: Any, tmp_path: Path) -> Outcome:
    """Run `peer` on the house task and check its plan replays to the goal at the optimum (7.5)."""
    path = tmp_path / "house.json"
    path.write_text(json.dumps(house_problem()))
    outcome: Outcome = peer.run(path, tmp_path)
    assert outcome.status == "found", outcome.note
    assert outcome.plan is not None
    result = check(house_problem(), outcome.plan)
    assert result.valid, result.message
    assert is_optimal(result.cost, 7.5)
    return outcome


def switch_problem(name: str = "switch", expect: str = "plan") -> dict[str, Any]:
    """A two-step task; with ``expect="no_plan"`` its goal is made unreachable."""
    goal = {"light": "on"} if expect == "plan" else {"light": "broken"}
    return {
        "name": name,
        "family": "test",
        "description": "",
        "initial": {"light": "off", "power": False},
        "goal": goal,
        "actions": [
            {"name": "plug", "preconditions": {}, "effects": {"power": True}, "cost": 1},
            {"name": "flip", "preconditions": {"power": True}, "effects": {"light": "on"}, "cost": 0.5},
        ],
        "optimal_cost": 1.5 if expect == "plan" else None,
        "expect": expect,
    }


@pytest.fixture
def problems_dir(tmp_path: Path) -> Path:
    """A problem folder shaped like tests/data/problems, with one task at the top and one in ipc/."""
    (tmp_path / "ipc").mkdir()
    (tmp_path / "switch.json").write_text(json.dumps(switch_problem()))
    (tmp_path / "ipc" / "dark.json").write_text(json.dumps(switch_problem("dark", "no_plan")))
    return tmp_path


def test_discover_lists_top_level_then_ipc(problems_dir: Path) -> None:
    """Problems come from the folder and its ipc/ subfolder, filtered by --only."""
    assert [p.stem for p in discover(problems_dir)] == ["switch", "dark"]
    assert [p.stem for p in discover(problems_dir, "dar")] == ["dark"]


def test_planner_aliases_expand_in_table_order() -> None:
    """``pyperplan`` stands for both pyperplan configurations; order follows the table."""
    assert select_peers("fd,pyperplan") == ["pyperplan-astar", "pyperplan-gbf", "fd"]
    with pytest.raises(ValueError, match="unknown planner 'lama'"):
        select_peers("lama")


def test_benchmark_prints_one_table_with_validated_rows(
    problems_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An end-to-end run prints a row per (problem, planner) and the summary, and writes JSON."""
    out_json = problems_dir / "out.json"
    argv = ["planner", "--problems", str(problems_dir), "--planners", "fd,pyperplan-gbf", "--repeat", "1"]
    assert bench_main([*argv, "--json", str(out_json)]) == 0
    report = capsys.readouterr().out
    assert "| switch | fd | plan |" in report
    assert "| dark | fd | no plan (right) |" in report
    assert "## Summary" in report
    rows = json.loads(out_json.read_text())["rows"]
    switch_fd = next(r for r in rows if r["problem"] == "switch" and r["peer"] == "fd")
    assert switch_fd["valid"] is True
    assert switch_fd["optimal"] is True


def test_unknown_benchmark_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m bench`` names its benchmarks when asked for another."""
    assert bench_main(["nonsense"]) == 2
    assert "planner" in capsys.readouterr().err


def test_missing_problem_folder_is_reported(tmp_path: Path) -> None:
    """A wrong --problems folder ends with exit code 2, not a traceback."""
    assert main(["--problems", str(tmp_path / "nowhere")], progress=io.StringIO()) == 2


def test_worker_is_killed_at_the_time_limit(problems_dir: Path) -> None:
    """A worker that has not answered within timeout + startup is killed and counted a timeout."""
    outcome = run_once("fd", problems_dir / "switch.json", Settings(0.0, 1, 0.05, 0))
    assert outcome.status == "timeout"


def test_run_longer_than_timeout_counts_as_timeout(problems_dir: Path) -> None:
    """A run that answers but measured more than the timeout is a timeout too."""
    outcome = run_once("fd", problems_dir / "switch.json", Settings(1e-6, 1, 30.0, 0))
    assert outcome.status == "timeout"


def test_wrong_no_plan_is_flagged() -> None:
    """Saying "no plan" on a solvable problem is an incorrect answer, and the note says so."""
    row = Row("switch", "test", "x", "plan", 1.5)
    judge(row, switch_problem(), [Outcome("no_plan", seconds=0.1)])
    assert not row.correct
    assert "WRONG" in row.note


def test_invalid_plan_is_not_correct() -> None:
    """A plan that does not replay is marked invalid, not optimal, with the validator's reason."""
    row = Row("switch", "test", "x", "plan", 1.5)
    judge(row, switch_problem(), [Outcome("found", ["flip"], seconds=0.1)])
    assert row.valid is False
    assert row.optimal is False
    assert not row.correct
    assert "step 0" in row.note


def test_langgoap_numeric_encoding_finds_optimal_plan(tmp_path: Path) -> None:
    """langgoap's derived-fact encoding of numeric conditions yields a valid optimal plan."""
    run_house(langgoap_astar, tmp_path)


def test_ours_plan_validates(tmp_path: Path) -> None:
    """Our planner's plan on a numeric task replays under the benchmark's simulator at the optimum."""
    goap = pytest.importorskip("goap")
    if not hasattr(goap, "plan"):
        pytest.skip("goap.plan is not available yet")
    assert run_house(ours, tmp_path).nodes is not None


def test_cost_other_than_fast_downwards_optimum_is_flagged() -> None:
    """Our valid plan costing other than Fast Downward's optimal plan is marked in the row, the
    table and the summary; an equal cost is marked as matching."""
    ours = Row("p", "f", "ours", "plan", None, status="found", cost=31.0, length=31, valid=True, correct=True)
    fd = Row("p", "f", "fd", "plan", None, status="found", cost=29.0, length=29, valid=True, correct=True)
    compare_with_fd([ours, fd])
    assert ours.matches_fd is False and ours.fd_cost == 29.0
    assert "COST DIFFERS FROM FAST DOWNWARD'S OPTIMUM 29" in ours.note
    assert "| NO |" in table([ours])
    summary = summarise([ours, fd])
    assert summary["ours_matches_fd"] == (0, 1) and summary["ours_differs_from_fd"] == ["p"]
    assert "DIFFERS on p" in summary_text(summary)
    same = Row("q", "f", "ours", "plan", None, status="found", cost=29.0, length=29, valid=True, correct=True)
    compare_with_fd([same, fd])
    assert same.matches_fd is True and same.note == ""


def test_rounded_fast_downward_costs_are_compared_within_their_rounding() -> None:
    """When Fast Downward optimised costs rounded at its scale, a difference within half a unit
    of the scale per action is not a mismatch, a larger one is."""
    fd = Row(
        "p", "f", "fd", "plan", None, status="found", cost=3.0000004, length=3, valid=True, exact_costs=False
    )
    ours = Row("p", "f", "ours", "plan", None, status="found", cost=3.0, length=3, valid=True)
    compare_with_fd([ours, fd])
    assert ours.matches_fd is True
    far = Row("p", "f", "ours", "plan", None, status="found", cost=2.9, length=3, valid=True)
    compare_with_fd([far, fd])
    assert far.matches_fd is False


def test_benchmark_compares_our_cost_with_fast_downward(
    problems_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run with ours and Fast Downward, our row says its cost equals Fast Downward's optimum."""
    argv = ["planner", "--problems", str(problems_dir), "--planners", "ours,fd", "--repeat", "1"]
    assert bench_main(argv) == 0
    report = capsys.readouterr().out
    line = next(x for x in report.splitlines() if x.startswith("| switch | ours |"))
    assert line.split("|")[11].strip() == "yes"
    assert "ours cost equals Fast Downward's optimal cost: **1/1**" in report


def test_ours_cli_runs_the_command_as_a_process(tmp_path: Path) -> None:
    """The process peer runs ``python -m goap plan``: its plan validates at the optimum, its time
    covers the whole process and the in-process plan() time is reported beside it."""
    outcome = run_house(ours_cli, tmp_path)
    assert outcome.seconds is not None and outcome.search_seconds is not None
    assert outcome.seconds > outcome.search_seconds
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    failed = ours_cli.run(bad, tmp_path)
    assert failed.status == "error" and "bad.json" in failed.note


def test_runs_of_one_problem_are_interleaved(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each repeat runs every peer once before the next repeat; a peer that fails is not rerun."""
    calls: list[str] = []

    def fake(peer: str, problem: Path, settings: Settings) -> Outcome:
        calls.append(peer)
        if peer == "langgoap":
            return Outcome("timeout")
        return Outcome("found", ["plug", "flip"], 0.01)

    monkeypatch.setattr(planner, "run_once", fake)
    settings = Settings(timeout=1.0, repeat=3, startup=1.0, memory_mb=0)
    rows = planner.run_problem(
        ["ours-cli", "langgoap", "fd"], tmp_path / "x.json", switch_problem(), settings
    )
    assert calls == ["ours-cli", "langgoap", "fd", "ours-cli", "fd", "ours-cli", "fd"]
    assert [r.peer for r in rows] == ["ours-cli", "langgoap", "fd"]
    assert rows[0].correct and rows[1].status == "timeout"


def test_process_table_and_summary_compare_processes() -> None:
    """The process table puts ours beside Fast Downward with the ratio; the summary counts halves."""
    rows = []
    for peer, seconds in (("ours-cli", [0.05, 0.07]), ("fd", [0.2, 0.2])):
        row = Row("switch", "test", peer, "plan", 1.5)
        judge(row, switch_problem(), [Outcome("found", ["plug", "flip"], s, 0.001) for s in seconds])
        rows.append(row)
    text = planner.process_table(rows)
    assert "| switch | 60.0 | 200 | 0.30 |" in text
    summary = planner.summarise(rows)
    assert summary["cli_half_of_fd"] == (1, 1)
    assert "at most half on **1/1**" in planner.summary_text(summary)
