"""The search stress benchmark writes its cases in the problem format and measures the command."""

from __future__ import annotations

import json
from pathlib import Path

from bench import search_stress
from bench.validate import check, load


def test_cases_are_valid_problem_files(tmp_path: Path) -> None:
    """Every generated case reads back through the benchmark's own problem loader."""
    for case in (search_stress.chain(5), search_stress.counters(), search_stress.random_actions(50)):
        path = tmp_path / f"{case['name']}.json"
        path.write_text(json.dumps(case))
        assert load(path)["name"] == case["name"]


def test_chain_run_reports_plan_time_and_memory(tmp_path: Path) -> None:
    """A chain is planned at its optimum by the command, with wall, CPU and peak RSS reported."""
    case = search_stress.chain(40)
    path = tmp_path / "chain-40.json"
    path.write_text(json.dumps(case))
    row = search_stress.run(path, [])
    assert row["status"] == "found" and row["cost"] == 40 and row["exit"] == 0
    assert row["expanded"] == 40
    assert row["wall_s"] > 0 and row["peak_rss_mb"] > 0
    plan = json.loads(path.with_suffix(".out").read_text())["plan"]
    assert check(case, plan).valid


def test_memory_budget_is_passed_through(tmp_path: Path) -> None:
    """Extra options reach ``goap plan``: the endless counters stop at a 5 MiB budget."""
    path = tmp_path / "counters.json"
    path.write_text(json.dumps(search_stress.counters()))
    row = search_stress.run(path, ["--max-memory-mb", "5"])
    assert row["status"] == "budget_exhausted" and row["exit"] == 1
