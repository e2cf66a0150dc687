"""Compilation's relaxed reachability agrees with explain_unreachable, so plan() may skip the latter."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from goap_tasks import RawProblem, on_drawn

from goap import ActionSpec, in_, ne
from goap.planning._compile import compile_task
from goap.planning._explain import explain_unreachable

ENUM = ["x", "y", "z"]


@st.composite
def finite_problems(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """A small problem over booleans and enumerations (no numeric facts)."""
    init: dict[str, Any] = {f"b{i}": draw(st.booleans()) for i in range(draw(st.integers(1, 3)))}
    init.update({f"e{i}": draw(st.sampled_from(ENUM)) for i in range(draw(st.integers(0, 2)))})
    keys = sorted(init)

    def cond(k: str) -> Any:
        if k.startswith("b"):
            return draw(st.booleans())
        kind = draw(st.integers(0, 2))
        if kind == 0:
            return draw(st.sampled_from([*ENUM, "w"]))
        if kind == 1:
            return ne(draw(st.sampled_from(ENUM)))
        return in_(draw(st.sets(st.sampled_from(ENUM), min_size=1, max_size=2)))

    actions = []
    for i in range(draw(st.integers(0, 6))):
        pre = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), max_size=2))}
        eff = {
            k: draw(st.booleans()) if k.startswith("b") else draw(st.sampled_from(ENUM))
            for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=2))
        }
        actions.append(ActionSpec(f"a{i}", pre, eff))
    goal = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=3))}
    return init, goal, actions


@on_drawn(finite_problems(), examples=300)
def test_relaxed_reachable_means_nothing_to_explain(problem: RawProblem) -> None:
    """Without numeric facts, compile_task proves relaxed reachability exactly when explain finds nothing."""
    init, goal, actions = problem
    task = compile_task(init, goal, actions)
    why = explain_unreachable(init, goal, actions, frozenset())
    assert task.relaxed_reachable == (why is None)
