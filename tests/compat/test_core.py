"""goap.compat's core (actions, goals, state, scores, A*, strategies) side by side with LangGOAP 0.1.2.

Each scenario is built once per side from the same description and what a user sees is compared:
plan order, cost, expected states, metadata, scores.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("langgoap")

_NAMES = {
    "actions": ["ActionSpec", "goap_action"],
    "goals": ["GoalSpec", "MultiGoal", "GoalPolicy"],
    "state": ["PlanningState", "infer_start_state"],
    "score": ["SimpleScore", "HardSoftScore", "BendableScore"],
    "qos": ["ActionQos"],
    "planner.astar": ["plan"],
    "planner.strategy": ["LazyDecompositionStrategy", "AStarStrategy"],
}


def _side(root: str) -> SimpleNamespace:
    ns = SimpleNamespace()
    for mod, names in _NAMES.items():
        m = importlib.import_module(f"{root}.{mod}")
        for n in names:
            setattr(ns, n, getattr(m, n))
    return ns


LG = _side("langgoap")
GC = _side("goap.compat")
SIDES = pytest.mark.parametrize("side", [LG, GC], ids=["langgoap", "compat"])


def both(scenario: Callable[[SimpleNamespace], Any]) -> tuple[Any, Any]:
    """The scenario's outcome on LangGOAP and on goap.compat."""
    return scenario(LG), scenario(GC)


def _summary(p: Any) -> Any:
    if p is None:
        return None
    return (p.action_names, p.total_cost, [s.to_dict() for s in p.expected_states], p.metadata.actions_pruned)


def test_independent_actions_come_out_cheapest_first() -> None:
    """Two independent goal facts with different costs: the cheap action is planned first on both."""

    def run(s: SimpleNamespace) -> Any:
        acts = [
            s.ActionSpec("dear", effects={"b": True}, cost=5.0),
            s.ActionSpec("cheap", effects={"a": True}),
        ]
        return _summary(s.plan({"a": False, "b": False}, s.GoalSpec(conditions={"a": True, "b": True}), acts))

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["cheap", "dear"]


def test_chain_plan_costs_and_expected_states() -> None:
    """A three-step chain with distractors gives the same steps, cost and expected states."""

    def run(s: SimpleNamespace) -> Any:
        acts = [
            s.ActionSpec("fetch", {"has_url": True}, {"has_page": True}, cost=2.0),
            s.ActionSpec("parse", {"has_page": True}, {"has_text": True}, cost=1.5),
            s.ActionSpec("summarise", {"has_text": True}, {"done": True}, cost=3.0),
            s.ActionSpec("shortcut", {"has_page": False}, {"done": True}, cost=50.0),
            s.ActionSpec("noise", {}, {"noise": 1}, cost=0.5),
        ]
        start = {"has_url": True, "has_page": False}
        return _summary(s.plan(start, s.GoalSpec(conditions={"done": True}), acts))

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["fetch", "parse", "summarise"]


def test_satisfied_goal_gives_an_empty_plan() -> None:
    """A goal that already holds is an empty plan with zero nodes explored."""

    def run(s: SimpleNamespace) -> Any:
        p = s.plan({"x": True}, s.GoalSpec(conditions={"x": True}), [s.ActionSpec("a", effects={"y": 1})])
        return (_summary(p), p.metadata.nodes_explored, p.score)

    lg, gc = both(run)
    assert lg[:2] == gc[:2] and gc[1] == 0 and gc[2].value == lg[2].value == 0.0


def test_unreachable_goal_is_none() -> None:
    """No action produces the goal fact: both planners return None."""
    lg, gc = both(
        lambda s: s.plan({}, s.GoalSpec(conditions={"z": True}), [s.ActionSpec("a", effects={"y": True})])
    )
    assert lg is None and gc is None


def test_blacklisted_actions_fall_back_to_the_full_set() -> None:
    """When the blacklist leaves no plan, both plan again with every action."""

    def run(s: SimpleNamespace) -> Any:
        acts = [s.ActionSpec("only", {}, {"g": True}, cost=1.0), s.ActionSpec("other", {}, {"h": True})]
        avoided = s.plan({}, s.GoalSpec(conditions={"g": True}), acts, blacklisted_actions=["only"])
        return _summary(avoided)

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["only"]


def test_state_dependent_costs_pick_the_same_route() -> None:
    """A cost computed from the state makes the usually cheap route dear; both avoid it."""

    def run(s: SimpleNamespace) -> Any:
        acts = [
            s.ActionSpec(
                "walk", {"at": "home"}, {"at": "shop"}, cost=lambda w: 10.0 if w.get("raining") else 1.0
            ),
            s.ActionSpec("bus", {"at": "home"}, {"at": "shop"}, cost=3.0),
        ]
        return _summary(s.plan({"at": "home", "raining": True}, s.GoalSpec(conditions={"at": "shop"}), acts))

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["bus"]


def test_callable_effects_repeat_until_the_goal() -> None:
    """Effects computed from the state (effect_keys declared) plan the same repeated steps."""

    def run(s: SimpleNamespace) -> Any:
        take = s.ActionSpec(
            "take", effects=lambda w: {"left": w["left"] - 1}, effect_keys=frozenset({"left"})
        )
        return _summary(s.plan({"left": 3}, s.GoalSpec(conditions={"left": 0}), [take]))

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["take"] * 3


def test_single_use_action_is_not_planned_twice() -> None:
    """can_rerun=False keeps an action to one use per plan, so a dearer action does the second step."""

    def run(s: SimpleNamespace) -> Any:
        once = s.ActionSpec("once", effects=lambda w: {"n": w["n"] + 1}, effect_keys={"n"}, can_rerun=False)
        slow = s.ActionSpec("slow", effects=lambda w: {"n": w["n"] + 1}, effect_keys={"n"}, cost=4.0)
        return _summary(s.plan({"n": 0}, s.GoalSpec(conditions={"n": 2}), [once, slow]))

    lg, gc = both(run)
    assert lg == gc and sorted(gc[0]) == ["once", "slow"]


def test_non_scalar_fact_values_plan_and_show_unchanged() -> None:
    """Tuples, None and frozensets as fact values plan and appear in expected states as given."""

    def run(s: SimpleNamespace) -> Any:
        acts = [
            s.ActionSpec("move", {"pos": (0, 0)}, {"pos": (1, 2), "held": None}),
            s.ActionSpec("pack", {"pos": (1, 2)}, {"bag": frozenset({"a", "b"})}),
        ]
        start = {"pos": (0, 0), "held": "box", "scratch": [1, 2]}
        return _summary(s.plan(start, s.GoalSpec(conditions={"bag": frozenset({"b", "a"})}), acts))

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["move", "pack"]


def test_planning_state_basics() -> None:
    """from_dict drops unhashable values; satisfies, apply, get, len, repr agree."""

    def run(s: SimpleNamespace) -> Any:
        st = s.PlanningState.from_dict({"a": 1, "b": [1], "c": None})
        nxt = st.apply({"a": 2, "d": True})
        return (
            st.to_dict(),
            st.satisfies({"a": 1}),
            st.satisfies({"c": None}),
            st.satisfies({"zz": None}),
            nxt.get("a"),
            len(nxt),
            "d" in nxt,
            repr(s.PlanningState.from_dict({"k": 1})),
            s.PlanningState.from_dict({"a": 1, "b": 2}, keys={"b"}).to_dict(),
        )

    lg, gc = both(run)
    assert lg == gc


def test_infer_start_state_lists_the_same_false_keys() -> None:
    """infer_start_state: precondition keys and bool effect keys, sorted, all False."""

    def run(s: SimpleNamespace) -> Any:
        acts = [
            s.ActionSpec("a", {"p": True, "q": 3}, {"r": True, "count": 2}),
            s.ActionSpec("b", {}, effects=lambda w: {"x": True}, effect_keys={"x"}),
        ]
        return s.infer_start_state(acts)

    lg, gc = both(run)
    assert lg == gc == {"p": False, "q": False, "r": False}


def test_hard_soft_min_picks_the_violated_score_as_langgoap_does() -> None:
    """Deliberate difference from goap: HardSoftScore orders (hard, soft) ascending as LangGOAP's code
    does, so min() returns the infeasible score, while goap.HardSoftScore's min() is the best one."""
    from goap.planning import HardSoftScore as GoapHardSoft

    def run(s: SimpleNamespace) -> Any:
        scores = [s.HardSoftScore(hard=0.0, soft=-1.0), s.HardSoftScore(hard=-5.0, soft=0.0)]
        return repr(min(scores)), sorted(scores) == scores[::-1], min(scores).is_feasible()

    lg, gc = both(run)
    assert lg == gc == ("HardSoftScore(hard=-5, soft=0)", True, False)
    assert min([GoapHardSoft(0.0, -1.0), GoapHardSoft(-5.0, 0.0)]) == GoapHardSoft(0.0, -1.0)


def test_scores_refuse_mixed_comparisons() -> None:
    """Different score classes, or bendable scores of different shapes, do not compare."""

    def run(s: SimpleNamespace) -> Any:
        out = [
            s.SimpleScore(scalar=1.0) < s.SimpleScore(scalar=2.0),
            repr(s.BendableScore((0.0,), (1.0, 2.0))),
        ]
        for a, b in [
            (s.SimpleScore(scalar=1.0), s.HardSoftScore()),
            (s.BendableScore((0.0,), ()), s.BendableScore((0.0, 0.0), ())),
        ]:
            with pytest.raises(TypeError):
                _ = a < b
        return out

    lg, gc = both(run)
    assert lg == gc


def test_qos_backoff_and_retry_decisions() -> None:
    """ActionQos computes the same waits (no jitter) and retry decisions; bad settings raise."""

    def run(s: SimpleNamespace) -> Any:
        q = s.ActionQos(
            max_attempts=4, backoff_initial_ms=100.0, backoff_multiplier=3.0, backoff_max_ms=500.0, jitter=0
        )
        with pytest.raises(ValueError):
            s.ActionQos(max_attempts=0)
        return (
            [q.compute_backoff_ms(i) for i in (1, 2, 3)],
            q.should_retry(TimeoutError(), 1),
            q.should_retry(KeyError(), 1),
            q.should_retry(TimeoutError(), 4),
        )

    lg, gc = both(run)
    assert lg == gc == ([100.0, 300.0, 500.0], True, False, False)


def test_per_entity_goals_expand_the_template() -> None:
    """GoalSpec.per_entity fills {entity} into keys and string values, in id order."""

    def run(s: SimpleNamespace) -> Any:
        mg = s.GoalSpec.per_entity(["g1", "g2"], {"safe_from_{entity}": True, "target": "{entity}"})
        return mg.mode, [dict(g.conditions) for g in mg.goals]

    lg, gc = both(run)
    assert lg == gc


def test_lazy_decomposition_keeps_the_first_steps() -> None:
    """LazyDecompositionStrategy(lookahead=2) returns the first two steps of the full plan."""

    def run(s: SimpleNamespace) -> Any:
        acts = [s.ActionSpec(f"s{i}", {f"f{i}": True}, {f"f{i + 1}": True}, cost=1.0 + i) for i in range(4)]
        start = s.PlanningState.from_dict({"f0": True})
        p = s.LazyDecompositionStrategy(lookahead=2).plan(start, s.GoalSpec(conditions={"f4": True}), acts)
        return _summary(p)

    lg, gc = both(run)
    assert lg == gc and gc[0] == ["s0", "s1"]


class _Rec:
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_search_expand(
        self, node: int, state: Any, g: float, h: float, f: float, parent: Any, act: Any
    ) -> None:
        self.events.append(("expand", act, g, h, state.to_dict()))

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        self.events.append(("dead_end", reason, detail.get("attempt")))

    def on_search_complete(self, nodes: int, ms: float, found: bool) -> None:
        self.events.append(("complete", nodes, found))


def test_search_tracer_sees_the_same_expansions() -> None:
    """With record_expansions, the tracer sees the same expansions (action, g, h, state) and completion."""

    def run(s: SimpleNamespace) -> Any:
        rec = _Rec()
        acts = [
            s.ActionSpec("ab", {"a": True}, {"b": True}),
            s.ActionSpec("bc", {"b": True}, {"c": True}, cost=2.0),
            s.ActionSpec("ax", {"a": True}, {"x": True}),
        ]
        s.plan({"a": True}, s.GoalSpec(conditions={"c": True}), acts, tracer=rec, record_expansions=True)
        return rec.events

    lg, gc = both(run)
    assert lg == gc


def test_unreachable_attempt_is_traced_but_not_searched() -> None:
    """A blacklist that makes the goal unreachable shows as a dead end of attempt 1 on both; deliberate
    difference: goap proves it by relaxed reachability without searching, so the node count is lower."""

    def run(s: SimpleNamespace) -> Any:
        rec = _Rec()
        acts = [s.ActionSpec("need", {"x": True}, {"g": True}), s.ActionSpec("make", {}, {"x": True})]
        p = s.plan({}, s.GoalSpec(conditions={"g": True}), acts, ["make"], tracer=rec, record_expansions=True)
        return p.action_names, [e for e in rec.events if e[0] != "expand"]

    lg, gc = both(run)
    assert lg[0] == gc[0] == ["make", "need"]
    assert lg[1][0] == gc[1][0] == ("dead_end", "exhausted", 1)
    assert lg[1][1] == ("complete", 4, True) and gc[1][1] == ("complete", 3, True)


@SIDES
def test_goap_action_decorator_and_repr(side: SimpleNamespace) -> None:
    """The decorator builds the same ActionSpec on both sides (async functions go to aexecute)."""

    @side.goap_action(preconditions={"a": True}, effects={"b": True}, cost=2.0)
    async def step(state: dict[str, Any]) -> dict[str, Any]:
        return {"b": True}

    assert step.name == "step" and step.execute is None and step.is_async_execute()
    assert repr(step) == "ActionSpec(name='step', preconditions={'a': True}, effects={'b': True}, cost=2.0)"


def test_random_boolean_problems_plan_identically() -> None:
    """On 80 seeded random problems, both give the same plan, cost, nodes explored and pruning."""
    import random

    rng = random.Random(7)

    def problem() -> tuple[
        dict[str, bool], dict[str, bool], list[tuple[str, dict[str, bool], dict[str, bool], float]]
    ]:
        keys = [f"k{i}" for i in range(rng.randint(3, 7))]

        def some(lo: int, hi: int) -> dict[str, bool]:
            return {k: rng.random() < 0.5 for k in rng.sample(keys, rng.randint(lo, hi))}

        acts = [
            (f"a{j}", some(0, 2), some(1, 2), rng.choice([1.0, 2.0, 0.5, 3.0]))
            for j in range(rng.randint(3, 10))
        ]
        return {k: rng.random() < 0.5 for k in keys}, some(1, 3), acts

    for _ in range(80):
        start, goal, acts = problem()
        out = []
        for s in (LG, GC):
            p = s.plan(
                start, s.GoalSpec(conditions=goal), [s.ActionSpec(n, pr, ef, cost=c) for n, pr, ef, c in acts]
            )
            out.append(None if p is None else (_summary(p), p.metadata.nodes_explored))
        assert out[0] == out[1], (start, goal, acts)


def test_langgoap_planning_inside_goap_plan() -> None:
    """goap.plan with _convert.to_goap_strategy() plans as LangGOAP's default planner does (order,
    callable effects) and carries LangGOAP's own Plan in a report."""
    import goap.planning as gp
    from goap.compat import _convert as cv

    def acts(s: SimpleNamespace) -> list[Any]:
        return [
            s.ActionSpec("dear", effects={"b": True}, cost=5.0),
            s.ActionSpec("cheap", effects={"a": True}),
            s.ActionSpec("take", effects=lambda w: {"n": w["n"] - 1}, effect_keys={"n"}),
        ]

    start, goal = {"a": False, "b": False, "n": 2}, {"a": True, "b": True, "n": 0}
    lg = LG.plan(start, LG.GoalSpec(conditions=goal), acts(LG))
    res = gp.plan(
        start, cv.to_goap_goal(GC.GoalSpec(conditions=goal)), cv.goap_actions(acts(GC)), cv.to_goap_strategy()
    )
    assert res.plan is not None and list(res.plan.names) == lg.action_names
    report = res.report(cv.PlannedByLangGoap)
    assert report is not None and _summary(report.plan) == _summary(lg)


def test_single_use_paths_are_separate_states_deliberately() -> None:
    """Deliberate difference: a state reached with or without a single-use action is two search
    states in goap.compat, one in LangGOAP, which here misses the cheaper plan."""

    def run(s: SimpleNamespace) -> Any:
        def step(name: str, key: str, d: int, pre: dict[str, bool], cost_key: str | None, once: bool) -> Any:
            eff = lambda w: {key: max(-2, min(5, w.get(key, 0) + d))}  # noqa: E731
            cost = (lambda w: 1.0 + abs(w.get(cost_key, 0)) * 0.5) if cost_key else 1.0
            return s.ActionSpec(name, pre, eff, effect_keys={key}, cost=cost, can_rerun=not once)

        acts = [
            step("a0", "m", -1, {}, "m", False),
            step("a1", "m", 1, {}, "n", False),
            step("a2", "m", 1, {}, None, True),
            step("a3", "n", 2, {}, "m", False),
            step("a4", "n", 1, {"flag": True}, "m", False),
            step("a5", "m", -1, {}, None, False),
            s.ActionSpec("flip", {}, {"flag": True}, cost=1.5),
        ]
        p = s.plan({"n": 0, "m": 0, "flag": False}, s.GoalSpec(conditions={"n": 3, "m": 2}), acts)
        return p.action_names, p.total_cost

    lg, gc = both(run)
    assert lg == (["a3", "flip", "a4", "a2", "a1"], 7.0)
    assert gc == (["a1", "a3", "flip", "a4", "a2"], 6.5)
