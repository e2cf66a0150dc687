"""The IPC grounding (``bench/ipc.py``) and the coverage benchmark (``python -m bench coverage``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import main as bench_main
from bench.coverage import DEFAULT_PDDL, Instance, Run, _judge, discover, run_fd, table
from bench.ipc import ground
from bench.peers import Outcome
from bench.planner import Settings

DATA = Path(__file__).resolve().parents[1] / "data"
DEPOT = DATA / "pddl" / "depot"


@pytest.fixture
def depot_dir(tmp_path: Path) -> Path:
    """An instance folder holding the depot domain and its task01."""
    folder = tmp_path / "depot"
    folder.mkdir()
    shutil.copy(DEPOT / "domain.pddl", folder / "domain.pddl")
    shutil.copy(DEPOT / "task01.pddl", folder / "task01.pddl")
    return tmp_path


def depot_01() -> dict[str, Any]:
    """The depot task01 as grounded by bench.ipc."""
    return ground(DEPOT / "domain.pddl", DEPOT / "task01.pddl", "ipc-depot-01", "ipc-depot")


def test_grounding_reproduces_the_committed_ipc_task() -> None:
    """Grounding depot task01 gives exactly the facts, goal and actions of tests/data/problems/ipc/ipc-depot-01.json."""
    mine = depot_01()
    theirs = json.loads((DATA / "problems" / "ipc" / "ipc-depot-01.json").read_text())
    for key in ("name", "family", "initial", "goal", "actions", "expect"):
        assert mine[key] == theirs[key], key
    assert mine["optimal_cost"] is None  # the grounding proves nothing


def test_discover_names_instances_by_domain_and_number(depot_dir: Path) -> None:
    """Instances are ``domain-NN`` from ``<domain>/task*.pddl``, filtered by --only."""
    assert [name for name, _, _ in discover(depot_dir)] == ["depot-01"]
    assert discover(depot_dir, "gripper") == []
    with pytest.raises(FileNotFoundError):
        discover(depot_dir / "nowhere")


def test_committed_instances_are_found() -> None:
    """The committed larger instances are discovered, each with its domain file."""
    found = discover(DEFAULT_PDDL)
    assert len(found) >= 10
    assert all(domain.is_file() and task.is_file() for _, domain, task in found)


def test_an_invalid_plan_is_not_solved() -> None:
    """A plan that does not replay on the JSON task counts as invalid, with the validator's reason."""
    status, _, note = _judge(depot_01(), Outcome("found", ["(drive truck0 depot0 distributor0)"] * 2, 0.1))
    assert status == "invalid"
    assert note


def test_saying_no_plan_is_an_error() -> None:
    """'No plan' on an IPC task (all solvable) is an error, not a solve."""
    assert _judge(depot_01(), Outcome("no_plan", seconds=0.1))[0] == "error"


def test_fast_downward_is_killed_at_the_limit() -> None:
    """Fast Downward's driver is killed at the time limit and the run counts as a timeout."""
    outcome, _ = run_fd(DEPOT / "domain.pddl", DEPOT / "task01.pddl", depot_01(), Settings(0.01, 1, 0.0, 0))
    assert outcome.status == "timeout"


def test_table_marks_cost_disagreement() -> None:
    """Two planners that both solve with different costs are flagged NO in the table."""
    inst = Instance("x-01", "x", "task01.pddl", 3, 4)
    inst.runs["ours"] = Run("solved", 0.5, 0.1, 10.0, 7)
    inst.runs["fd"] = Run("solved", 0.4, 0.1, 11.0, 9)
    assert table([inst], ["ours", "fd"]).splitlines()[-1].endswith("| NO |")


def test_coverage_end_to_end(depot_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A full run on depot task01 solves it with both planners, at the same (optimal) cost 10."""
    out_json = depot_dir / "out.json"
    argv = ["coverage", "--pddl", str(depot_dir), "--planners", "ours,fd", "--json", str(out_json)]
    assert bench_main(argv) == 0
    report = capsys.readouterr().out
    assert "| depot-01 | 58 | 264 |" in report
    assert report.count("| yes |") == 1
    data = json.loads(out_json.read_text())
    runs = data["instances"][0]["runs"]
    assert runs["ours"]["status"] == runs["fd"]["status"] == "solved"
    assert runs["ours"]["cost"] == runs["fd"]["cost"] == 10.0
    assert data["summary"]["cost_mismatch"] == []
