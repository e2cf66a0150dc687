"""Planning tasks several GOAP test modules build (not a test module itself)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from goap import ActionSpec, GoalSpec, in_, ne
from goap.planning._compile import compile_task
from goap.planning._search import SearchOutcome, best_first, search
from goap.planning._symmetry import find_symmetry
from goap.planning.heuristics import HEURISTICS
from goap.testing import simulate


def gripper(balls: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """Gripper as the generated family in ``tests/data/problems`` has it: a robot in room A or B with two
    grippers moves every ball from A to B. The balls are one class of interchangeable objects (so
    are the grippers); from 30 balls on the packed states are wider than 64 bits. Returns
    ``(initial state, goal conditions, actions)``; the optimum is ``2 * len(balls)`` picks and drops
    plus ``2 * ceil(len(balls) / 2) - 1`` moves."""
    init: dict[str, Any] = {"robby": "A", "left": "free", "right": "free"}
    init.update({f"at_{b}": "A" for b in balls})
    acts = [
        ActionSpec("move_A_B", {"robby": "A"}, {"robby": "B"}),
        ActionSpec("move_B_A", {"robby": "B"}, {"robby": "A"}),
    ]
    for b in balls:
        for r in "AB":
            for g in ("left", "right"):
                acts.append(
                    ActionSpec(
                        f"pick_{b}_{r}_{g}", {f"at_{b}": r, "robby": r, g: "free"}, {f"at_{b}": g, g: b}
                    )
                )
                acts.append(
                    ActionSpec(f"drop_{b}_{r}_{g}", {f"at_{b}": g, "robby": r}, {f"at_{b}": r, g: "free"})
                )
    return init, {f"at_{b}": "B" for b in balls}, acts


def outcome_key(out: SearchOutcome) -> tuple[Any, ...]:
    """Everything two searches of one task must agree on: status, path, cost and every counter."""
    return (
        out.status,
        [(op.index, perm) for op, perm in out.path],
        out.cost,
        out.expanded,
        out.generated,
        out.evaluated,
        out.reopened,
        out.initial_h,
    )


def search_replayed(
    init: Mapping[str, Any], goal: Mapping[str, Any], acts: Sequence[ActionSpec], after: int, native: bool
) -> tuple[SearchOutcome, float | None]:
    """One A* + LM-cut search in the C loop (``native``) or the Python loop, with symmetry
    detection after ``after`` expansions: the outcome, and the cost of its plan replayed on the
    actions (checked to reach the goal), or None without a plan."""
    task = compile_task(init, goal, acts)
    h = HEURISTICS["lmcut"](task)
    found: list[Any] = []

    def detect() -> Any:
        sym = find_symmetry(task)
        if sym is None:
            return None
        found.append(sym)
        return sym.canon

    out = (search if native else best_first)(task, h, detect_symmetry=detect, symmetry_after=after)
    if out.status != "found":
        return out, None
    ops = found[0].realize(out.path) if found else [op for op, _ in out.path]
    ok, cost, _ = simulate(dict(init), GoalSpec(dict(goal)), [op.action for op in ops])
    assert ok, "the searched plan does not reach the goal"
    return out, float(cost)


ENUM = ["x", "y", "z"]
"""The values of the enumerated facts (``e0``, ``e1``...) of drawn problems."""


def draw_condition(draw: st.DrawFn, key: str, numeric: Callable[[], Any]) -> Any:
    """A random condition on a drawn problem's fact: a bool on ``b*`` facts; a value, ``ne`` or
    ``in_`` of :data:`ENUM` on ``e*`` facts; ``numeric()`` on the counter."""
    if key.startswith("b"):
        return draw(st.booleans())
    if key.startswith("e"):
        kind = draw(st.integers(0, 2))
        if kind == 0:
            return draw(st.sampled_from(ENUM))
        if kind == 1:
            return ne(draw(st.sampled_from(ENUM)))
        return in_(draw(st.sets(st.sampled_from(ENUM), min_size=1, max_size=2)))
    return numeric()
