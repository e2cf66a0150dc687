"""The constraint-planning benchmark's timing and verdicts (``python -m bench strategies``)."""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout

import pytest

from bench import strategies
from bench.strategies import FAMILIES, Comparison, Planner, Problem, compare, verdict


def recorder(label: str, calls: list[str], out: tuple[str, ...] | None) -> Planner:
    """A planner that notes each call under ``label`` and returns ``out``."""

    def run(p: Problem) -> tuple[str, tuple[str, ...] | None]:
        calls.append(label)
        return "OPTIMAL", out

    return run


def ticking(step: float = 1.0) -> Callable[[], float]:
    """A clock that advances by ``step`` on every reading."""
    now = [0.0]

    def clock() -> float:
        now[0] += step
        return now[0]

    return clock


def test_pairs_alternate_which_planner_runs_first() -> None:
    """Each repetition runs both planners back to back, ours first on even repetitions."""
    calls: list[str] = []
    p = FAMILIES["usd"](2)
    cmp = compare(p, 4, recorder("ours", calls, None), recorder("theirs", calls, None), clock=ticking())
    assert calls == ["ours", "theirs", "theirs", "ours", "ours", "theirs", "theirs", "ours"]
    assert len(cmp.ours) == len(cmp.theirs) == 4


def test_ratio_is_the_median_of_the_paired_ratios() -> None:
    """The ratio compares the two runs of each pair, not two medians taken apart."""
    cmp = Comparison([1.0, 2.0, 30.0], [2.0, 1.0, 10.0], ("OPTIMAL", None), ("OPTIMAL", None))
    assert cmp.ratio == 2.0


def test_max_seconds_stops_after_five_whole_pairs() -> None:
    """Past the time limit no new pair starts once five are done, and every pair is complete."""
    calls: list[str] = []
    p = FAMILIES["usd"](2)
    cmp = compare(
        p,
        15,
        recorder("ours", calls, None),
        recorder("theirs", calls, None),
        max_seconds=1.0,
        clock=ticking(),
    )
    assert len(cmp.ours) == len(cmp.theirs) == 5
    assert len(calls) == 10


def test_verdict_wants_a_feasible_plan_at_least_as_good() -> None:
    """Ours wins a problem when faster with a feasible plan of equal or better objective."""
    p = FAMILIES["usd"](2)
    local, api = ("local0", "local1"), ("api0", "api1")
    fast = Comparison([1.0], [2.0], ("OPTIMAL", local), ("FEASIBLE", api))
    assert verdict(p, fast)[2:] == (True, True)
    worse = Comparison([1.0], [2.0], ("OPTIMAL", api), ("FEASIBLE", local))
    assert verdict(p, worse)[2:] == (False, True)
    slow = Comparison([3.0], [2.0], ("OPTIMAL", local), ("FEASIBLE", local))
    assert verdict(p, slow)[2:] == (True, False)


def test_main_prints_ratios_and_the_win_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small run prints one row per planner and problem, the ratio, and the k/n count of wins."""
    monkeypatch.setattr(strategies, "run_langgoap", strategies.run_ours)  # the table, not the peer
    out = io.StringIO()
    with redirect_stdout(out):
        assert strategies.main(["--repeat", "2", "--sizes", "2"]) == 0
    text = out.getvalue()
    rows = [line for line in text.splitlines() if line.startswith("| ") and "-2 |" in line]
    assert len(rows) == 2 * len(FAMILIES)
    assert all(" | 2 | " in row for row in rows)
    assert "faster with equal-or-better objective: " in text and f"/{len(FAMILIES)}" in text
