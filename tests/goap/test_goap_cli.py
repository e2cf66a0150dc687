"""The command line: python -m goap plan problem.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from problem_files import two_step_problem

from goap.__main__ import main


def _problem(tmp_path: Path) -> Path:
    data = two_step_problem()
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


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "p.json"],
        ["plan", "p.json", "--json"],
        ["plan", "--json", "p.json", "--timeout", "2.5", "--max-expansions", "7"],
        ["plan", "p.json", "--strategy=greedy", "--max-memory-mb=64", "--timeout=nan"],
        ["plan", "p.json", "--strategy", "wastar", "--json", "--max-memory-mb", "1e3"],
    ],
)
def test_quick_plan_reader_agrees_with_argparse(argv: list[str]) -> None:
    """The argparse-free reader of ``plan`` gives argparse's values, attribute for attribute."""
    from goap.__main__ import _parse, _quick_plan_args

    quick = _quick_plan_args(argv)
    assert quick is not None
    full = vars(_parse(argv))
    mine = vars(quick)
    assert mine.keys() == full.keys()
    for key, value in full.items():
        assert mine[key] == value or (value != value and mine[key] != mine[key]), key  # NaN == NaN


@pytest.mark.parametrize(
    "argv",
    [
        ["plan"],
        ["plan", "p.json", "q.json"],
        ["plan", "p.json", "--timeout"],
        ["plan", "p.json", "--timeout", "soon"],
        ["plan", "p.json", "--strategy", "nope"],
        ["plan", "p.json", "--time", "3"],
        ["plan", "-h"],
        ["explain", "p.json"],
        ["history", "db", "run"],
    ],
)
def test_quick_plan_reader_leaves_the_rest_to_argparse(argv: list[str]) -> None:
    """Anything but a well-formed ``plan`` call (help, errors, abbreviations, other commands) goes
    to argparse, which prints its usage message."""
    from goap.__main__ import _quick_plan_args

    assert _quick_plan_args(argv) is None
