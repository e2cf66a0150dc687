"""Planning tasks several GOAP test modules build (not a test module itself)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from hypothesis import HealthCheck, given, settings
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


Problem: TypeAlias = tuple[dict[str, Any], GoalSpec, list[ActionSpec]]
"""A drawn problem: (initial state, goal, actions)."""

RawProblem: TypeAlias = tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]
"""A drawn problem with its goal as plain conditions: (initial state, goal conditions, actions)."""


def on_drawn(
    *strategies: st.SearchStrategy[Any], examples: int
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Make a test a property test over ``examples`` draws of ``strategies`` (one per argument).

    No deadline and no too-slow health check: the tests compare paths (C and Python, with and
    without an accelerator) whose speeds differ by design, and draw whole planning problems."""

    def wrap(test: Callable[..., None]) -> Callable[..., None]:
        run = given(*strategies)(test)
        return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])(
            run
        )

    return wrap


def draw_action(
    draw: st.DrawFn,
    name: str,
    keys: list[str],
    cond: Callable[[str], Any],
    counter: Callable[[], tuple[Any, Any]],
    *,
    most: int,
    cost: st.SearchStrategy[float],
) -> ActionSpec:
    """A random action on a drawn problem's facts: preconditions ``cond(key)`` on up to ``most`` facts;
    effects on one to ``most`` facts: a bool on ``b*``, a value of :data:`ENUM` on ``e*``, and on the
    counter the ``(effect, guard)`` that ``counter()`` returns (the guard, a precondition, keeps the
    counter in a finite range so that brute force terminates); a cost drawn from ``cost``."""
    pre = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), max_size=most))}
    eff: dict[str, Any] = {}
    for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=most)):
        if k.startswith("b"):
            eff[k] = draw(st.booleans())
        elif k.startswith("e"):
            eff[k] = draw(st.sampled_from(ENUM))
        else:
            eff[k], pre[k] = counter()
    return ActionSpec(name, pre, eff, cost=draw(cost))


def layered_action(name: str, needs: set[int], fact: int, **settings: Any) -> ActionSpec:
    """An action of a layered task: it needs facts ``f<j>`` for each ``j`` in ``needs`` (earlier layers)
    and makes fact ``f<fact>`` true; ``settings`` (cost, resources, duration) go to the ActionSpec."""
    return ActionSpec(name, {f"f{j}": True for j in sorted(needs)}, {f"f{fact}": True}, **settings)


RELEASE_START = {"source": False, "built": False, "signed": False, "published": False}
"""The world before a release: nothing fetched, built, signed or published."""


def offline(world: Mapping[str, Any]) -> None:
    """An HSM that is always down."""
    raise RuntimeError("HSM offline")


def release_actions(sign: Any = None, retries: int = 0) -> list[ActionSpec]:
    """fetch -> build -> sign (cheap HSM or costly local key) -> publish; ``sign`` executes the HSM
    signing (``offline``: it always fails), tried ``1 + retries`` times."""
    return [
        ActionSpec("fetch", {}, {"source": True}),
        ActionSpec("build", {"source": True}, {"built": True}, cost=2),
        ActionSpec("sign_hsm", {"built": True}, {"signed": True}, cost=1, execute=sign, max_retries=retries),
        ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=3),
        ActionSpec("publish", {"signed": True}, {"published": True}),
    ]
