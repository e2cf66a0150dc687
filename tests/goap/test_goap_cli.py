"""The command line: python -m goap plan problem.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goap.__main__ import main


def _problem(tmp_path: Path) -> Path:
    data = {
        "name": "two",
        "family": "chain",
        "initial": {"a": False, "b": False},
        "goal": {"b": True},
        "actions": [
            {"name": "make_b", "preconditions": {"a": True}, "effects": {"b": True}, "cost": 2},
            {"name": "make_a", "preconditions": {}, "effects": {"a": True}, "cost": 1},
        ],
        "optimal_cost": 3,
        "expect": "plan",
    }
    p = tmp_path / "two.json"
    p.write_text(json.dumps(data))
    return p


def test_plan_command_prints_plan_cost_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The text output lists the actions, the cost and the search stats."""
    assert main(["plan", str(_problem(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "1. make_a" in out and "2. make_b" in out
    assert "cost: 3" in out
    assert "expanded=" in out


def test_plan_command_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one machine-readable object."""
    assert main(["plan", str(_problem(tmp_path)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["plan"] == ["make_a", "make_b"]
    assert out["cost"] == 3.0
    assert out["optimal"] is True


def test_plan_command_reports_format_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A malformed file exits with status 2 and the typed error on stderr."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "initial": {}, "goal": {}, "actions": [{"name": "a", "cost": "x"}]}')
    assert main(["plan", str(bad)]) == 2
    assert (
        'ProblemFormatError: bad.json: actions[0].cost: expected a number ≥ 0, got "x"'
        in capsys.readouterr().err
    )
