"""Classes found by symmetry detection on the shared problems, pinned.

The cheap colours that rule swaps out before they are checked (``goap.planning._symmetry._colours``) must
never change what is found: the classes below were computed before they existed, and the same
classes come out with the colours turned off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from problem_files import PROBLEMS as PROBLEM_DIR

from goap import load_problem
from goap.planning import _symmetry as symmetry_module
from goap.planning._compile import compile_task
from goap.planning._symmetry import find_symmetry

# The shared problems sit beside the checkout (as in test_goap_problems.py).
_SHARED = Path(PROBLEM_DIR)
_PROBLEMS = sorted([*_SHARED.glob("*.json"), *(_SHARED / "ipc").glob("*.json")])

CLASSES: dict[str, list[tuple[str, ...]] | None] = {
    "blocksworld-10": None,
    "blocksworld-4": None,
    "blocksworld-5": None,
    "blocksworld-6": None,
    "blocksworld-7": None,
    "blocksworld-8": None,
    "chain-10": None,
    "chain-200": None,
    "chain-50": None,
    "cost-trap-10": None,
    "cost-trap-6": None,
    "gripper-12": [
        ("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11"),
        ("left", "right"),
    ],
    "gripper-4": [("b0", "b1", "b2", "b3"), ("left", "right")],
    "gripper-6": [("b0", "b1", "b2", "b3", "b4", "b5"), ("left", "right")],
    "gripper-8": [("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"), ("left", "right")],
    "ipc-blocks-04": None,
    "ipc-blocks-07": None,
    "ipc-depot-01": None,
    "ipc-gripper-02": [("ball1", "ball2", "ball3", "ball4", "ball5", "ball6"), ("left", "right")],
    "ipc-logistics-01": None,
    "ipc-miconic-05": None,
    "ipc-movie-01": [("dip", "pop", "chips", "cheese", "crackers")],
    "ipc-psr-02": None,
    "ipc-rovers-02": None,
    "ipc-satellite-02": [("star7", "planet3", "phenomenon6")],
    "ipc-tpp-02": None,
    "ipc-zenotravel-03": None,
    "logistics-2": None,
    "logistics-3": None,
    "logistics-4": None,
    "no-plan-cyclic-precondition": None,
    "no-plan-impossible-blocks": None,
    "no-plan-missing-producer": None,
    "numeric-counter-23": None,
    "numeric-house-1": None,
    "wide-2000": None,
}
"""Problem -> the classes found on it (None: no symmetry), before the colours were added."""


def _classes(path: Path) -> list[tuple[str, ...]] | None:
    p = load_problem(str(path))
    task = compile_task(p.initial, p.goal.conditions, p.actions)
    sym = find_symmetry(task)
    return None if sym is None else list(sym.classes)


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


pytestmark = pytest.mark.skipif(not _PROBLEMS, reason="shared problems not available")


def test_every_shared_problem_is_pinned() -> None:
    assert {p.stem for p in _PROBLEMS} == set(CLASSES)


@pytest.mark.parametrize("path", _PROBLEMS, ids=_ids(_PROBLEMS))
def test_classes_found_on_shared_problems(path: Path) -> None:
    assert _classes(path) == CLASSES[path.stem]


@pytest.mark.parametrize("path", _PROBLEMS, ids=_ids(_PROBLEMS))
def test_colours_change_nothing(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """With no colours (every swap checked, no early end) the same classes are found."""

    def no_colours(*args: Any) -> tuple[dict[str, Any], bool]:
        return {}, True

    monkeypatch.setattr(symmetry_module, "_colours", no_colours)
    assert _classes(path) == CLASSES[path.stem]


@pytest.mark.parametrize("path", _PROBLEMS, ids=_ids(_PROBLEMS))
def test_coloured_apart_tokens_never_swap(path: Path) -> None:
    """Two tokens of one group with different colours fail the full swap check."""
    p = load_problem(str(path))
    task = compile_task(p.initial, p.goal.conditions, p.actions)
    if task.numeric or task.has_cost_functions or not task.variables or not task.ops:
        return
    checker = symmetry_module._Checker(task)
    stats: dict[str, tuple[int, ...]] = {}
    for v in task.variables:
        for t in symmetry_module._TOKEN.findall(v.name):
            fs = checker.facts_of.get(t, set())
            stats[t] = (len(fs), checker.op_weight(t), len(fs & checker.init), len(fs & checker.goal_facts))
    groups: dict[tuple[int, ...], list[str]] = {}
    for t, st in stats.items():
        groups.setdefault(st, []).append(t)
    colour, _ = symmetry_module._colours(checker, stats, groups)
    assert colour or all(len(toks) < symmetry_module._MIN_LARGE for toks in groups.values())
    for toks in groups.values():
        toks = sorted(toks)[:12]
        for i, a in enumerate(toks):
            for b in toks[i + 1 :]:
                if a in colour and b in colour and colour[a] != colour[b]:
                    assert not checker.swap_holds(a, b), (a, b)
