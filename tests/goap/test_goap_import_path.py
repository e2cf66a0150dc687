"""The planning path imports only planning modules: ``import goap``, the planner and
``python -m goap plan`` never load pydantic, OpenTelemetry, OR-Tools, aiosqlite, the engine, the
stores or the emitters; the package's public names still resolve, lazily."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from problem_files import PROBLEMS

import goap

HEAVY = ("pydantic", "opentelemetry", "ortools", "aiosqlite", "graphengine", "store", "emit", "asyncio")
"""Top-level packages the planning path must not import."""

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def _loaded(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=_env(),
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


def _heavy(modules: list[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.mark.parametrize(
    "code",
    [
        "import goap",
        "import goap.__main__",
        "from goap import plan, load_problem, AStar, GoalSpec, ActionSpec, PlanResult",
        "import goap.planning._planner, goap.planning._problem, goap.planning._strategy, goap.planning._explain, goap.planning._symmetry, goap.planning._result",
    ],
)
def test_planning_imports_load_nothing_heavy(code: str) -> None:
    """The planning modules and the package itself import none of the heavy dependencies."""
    assert _heavy(_loaded(code)) == []


def test_plan_command_loads_nothing_heavy() -> None:
    """``python -X importtime -m goap plan FILE`` plans, and no heavy module shows in its import log."""
    problem = f"{PROBLEMS}/gripper-4.json"  # long enough for symmetry detection and the C search
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "goap", "plan", problem, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["status"] == "found"
    imported = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", done.stderr, re.M)
    assert "goap.planning._planner" in imported
    assert _heavy(imported) == []


def test_explain_of_an_unreachable_goal_loads_nothing_heavy() -> None:
    """Explaining a relaxed-unreachable goal stays on the planning path too."""
    code = (
        "from goap.planning._problem import load_problem\nfrom goap.planning._planner import plan\n"
        f"p = load_problem({str(PROBLEMS)!r} + '/no-plan-missing-producer.json')\n"
        "r = plan(p.initial, p.goal, p.actions)\nassert r.status == 'no_plan' and r.explanation is not None\n"
    )
    assert _heavy(_loaded(code)) == []


def test_public_names_resolve_lazily_and_are_listed() -> None:
    """Every exported name resolves through the lazy hook and ``dir(goap)`` lists it."""
    listing = dir(goap)
    for name in goap.__all__:
        assert name in listing
        assert getattr(goap, name) is not None
    with pytest.raises(AttributeError, match="no_such_name"):
        goap.no_such_name  # noqa: B018


PLANNING = {
    "goap.planning",
    "goap.planning._actions",
    "goap.planning._checks",
    "goap.planning._compile",
    "goap.planning._conditions",
    "goap.planning._constraints",
    "goap.planning._errors",
    "goap.planning._explain",
    "goap.planning._goals",
    "goap.planning._planner",
    "goap.planning._problem",
    "goap.planning._prologue",
    "goap.planning._qos",
    "goap.planning._result",
    "goap.planning._score",
    "goap.planning._search",
    "goap.planning._strategy",
    "goap.planning._symmetry",
    "goap.planning._task",
    "goap.planning._typecheck",
    "goap.planning.exports",
    "goap.planning.heuristics",
    "goap.planning.heuristics.base",
    "goap.planning.heuristics.blind",
    "goap.planning.heuristics.ff",
    "goap.planning.heuristics.goalcount",
    "goap.planning.heuristics.hmax",
    "goap.planning.heuristics.lmcut",
    "goap.planning.kit",
}
"""The modules of ``goap.planning`` (import-linter forbids them everything else; this checks it at run time)."""


def test_planning_modules_import_only_each_other() -> None:
    """Importing every planning module loads no goap module outside the planning layer."""
    loaded = _loaded("import " + ", ".join(sorted(PLANNING)))
    others = (
        {m for m in loaded if m.startswith("goap.")}
        - PLANNING
        - {"goap.planning._ground", "goap.planning._lmcut"}
        # goap/__init__ reads the layers' __all__: their packages load, none of their modules
        - {"goap.strategies", "goap.runtime"}
    )
    assert others == set()
