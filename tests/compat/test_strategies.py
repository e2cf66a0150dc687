"""goap.compat's MCTS, router, utility planner, plan repair and transition models next to LangGOAP 0.1.2's.

Each scenario runs on real ``langgoap`` and on ``goap.compat`` and compares what a user sees.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("langgoap")

MODULES = ("actions", "goals", "state", "planner.mcts", "planner.router", "planner.utility", "planner.repair")
MODULES += ("planner.transitions", "planner.types", "planner.strategy")


def _side(pkg: str) -> SimpleNamespace:
    mods = {m.split(".")[-1]: importlib.import_module(f"{pkg}.{m}") for m in MODULES}
    return SimpleNamespace(**mods)


LG, OURS = _side("langgoap"), _side("goap.compat")
SIDES = [pytest.param(LG, id="langgoap"), pytest.param(OURS, id="compat")]


def both(fn: Any) -> tuple[Any, Any]:
    """``fn`` run on LangGOAP's modules and on ours."""
    return fn(LG), fn(OURS)


def chain(m: SimpleNamespace, cost: float = 1.0) -> list[Any]:
    return [
        m.actions.ActionSpec(name=f"go{i}", preconditions={"pos": i}, effects={"pos": i + 1}, cost=cost)
        for i in range(4)
    ]


def st(m: SimpleNamespace, **kv: Any) -> Any:
    return m.state.PlanningState.from_dict(kv)


def goal(m: SimpleNamespace, **kv: Any) -> Any:
    return m.goals.GoalSpec(conditions=kv)


class Slip:
    """Decrement slips (changes nothing) 30% of the time."""

    divergence_policy = None

    def expected(self, state: Mapping[str, Any], action: Any) -> Mapping[str, Any]:
        return action.get_effects(dict(state))

    def sample(self, state: Mapping[str, Any], action: Any, rng: random.Random) -> Mapping[str, Any]:
        return dict(state) if rng.random() < 0.3 else action.get_effects(dict(state))


def counter(m: SimpleNamespace) -> Any:
    def eff(s: Mapping[str, Any]) -> Mapping[str, Any]:
        left = max(0, int(s.get("left", 0)) - 1)
        return {"left": left, "done": left == 0}

    return m.actions.ActionSpec(name="dec", effects=eff, effect_keys=frozenset({"left", "done"}))


def mcts(m: SimpleNamespace, iterations: int = 64, **kw: Any) -> Any:
    ex = m.mcts.MCTSExploration(iterations=iterations, wall_clock_ms=0.0, rollout_depth=4, seed=3)
    return m.mcts.MCTSStrategy(exploration=ex, **kw)


def test_mcts_finds_the_same_chain_plan_and_cost() -> None:
    """A four-step chain gives the same plan, cost and expected states."""

    def run(m: SimpleNamespace) -> Any:
        p = mcts(m, 300).plan(st(m, pos=0), goal(m, pos=4), chain(m, 2.0))
        return p.action_names, p.total_cost, [s.to_dict() for s in p.expected_states]

    lg, ours = both(run)
    assert lg == ours == (["go0", "go1", "go2", "go3"], 8.0, [{"pos": i} for i in range(1, 5)])


def test_mcts_no_plan_and_empty_plan_agree() -> None:
    """An unreachable goal is None and a goal that holds is the empty plan, on both."""

    def run(m: SimpleNamespace) -> Any:
        s = mcts(m, 32)
        return s.plan(st(m, pos=0), goal(m, pos=9), chain(m)), len(
            s.plan(st(m, pos=4), goal(m, pos=4), chain(m))
        )

    assert both(run) == ((None, 0), (None, 0))


def test_mcts_anytime_fallback_and_path_budget() -> None:
    """A cost budget below the goal gives None, or with anytime_fallback a partial plan starting go0."""

    def run(m: SimpleNamespace) -> Any:
        cut = mcts(m, 200, reuse=m.mcts.MCTSReuseConfig(path_length_budget=2)).plan(
            st(m, pos=0), goal(m, pos=4), chain(m)
        )
        fall = mcts(m, 200, reuse=m.mcts.MCTSReuseConfig(path_length_budget=2, anytime_fallback=True))
        part = fall.plan(st(m, pos=0), goal(m, pos=4), chain(m))
        return cut, part.action_names[0], len(part.action_names) <= 2

    assert both(run) == ((None, "go0", True), (None, "go0", True))


def test_mcts_stochastic_model_grows_chance_nodes_and_advance_reroots() -> None:
    """A stochastic model gives a chance layer with both outcomes; advance() makes the observed one the root."""

    def run(m: SimpleNamespace) -> Any:
        s = mcts(
            m,
            64,
            transition_model=Slip(),
            reuse=m.mcts.MCTSReuseConfig(reuse_tree=True, tree_reuse_decay=1.0),
        )
        s.plan(st(m, left=2, done=False), goal(m, done=True), [counter(m)])
        root = s._last_root
        ch = root.chance_children[0]
        outcomes = sorted(n.state.to_dict()["left"] for n in ch.children_by_key.values())
        seen = ch.children_by_key[next(iter(ch.children_by_key))]
        visits = seen.visits
        s.advance(ch.action, seen.state)
        kept = s._carryover_root is seen and seen.parent is None and seen.visits == visits
        s.plan(seen.state, goal(m, done=True), [counter(m)])
        return root.children, outcomes, kept, s._last_root is seen and seen.visits > visits

    assert both(run) == (([], [1, 2], True, True), ([], [1, 2], True, True))


def test_mcts_tracer_events() -> None:
    """One expand event per iteration (the first anchored at the root), then one complete event."""

    class Rec:
        def __init__(self) -> None:
            self.events: list[Any] = []

        def on_search_expand(
            self, node_id: int, state: Any, g: float, h: float, f: float, parent: Any, name: Any
        ) -> None:
            self.events.append(("expand", parent if not self.events else "-", name is not None, -1 <= f <= 1))

        def on_search_complete(self, nodes: int, ms: float, found: bool) -> None:
            self.events.append(("complete", nodes, found))

    def run(m: SimpleNamespace) -> Any:
        rec = Rec()
        mcts(m, 12, tracing=m.mcts.MCTSTracingConfig(tracer=rec, record_expansions=True)).plan(
            st(m, pos=0), goal(m, pos=2), chain(m)
        )
        return rec.events

    lg, ours = both(run)
    assert lg == ours and lg[0] == ("expand", None, True, True) and lg[-1] == ("complete", 12, True)


def test_rollout_policies_score_alike() -> None:
    """The random, greedy and stochastic rollouts and the reward shape give the same rewards."""

    def run(m: SimpleNamespace) -> Any:
        g, s, acts = goal(m, pos=4, flag=True), st(m, pos=0), chain(m)
        return (
            m.mcts.RandomRollout(max_depth=3, rng=random.Random(5)).rollout(state=s, goal=g, actions=acts),
            m.mcts.HeuristicRollout(max_depth=2).rollout(state=s, goal=g, actions=acts),
            m.mcts.StochasticRollout(max_depth=9, model=Slip(), rng=random.Random(1)).rollout(
                state=s, goal=goal(m, pos=4), actions=acts
            ),
            m.mcts._shape_reward(s, g, heuristic=lambda s, g: 7.0),
        )

    lg, ours = both(run)
    assert lg == ours == (-1.0, -1.0, 1.0, 0.999)


def test_router_features_and_rules_agree() -> None:
    """extract_features and the rule classifier give the same features and names on both."""

    class Risky(Slip):
        divergence_policy = LG.transitions.DivergencePolicy(reason="r", kind="risk-averse")

    def run(m: SimpleNamespace) -> Any:
        f = m.router.extract_features(st(m, pos=0), goal(m, pos=4, x=1), chain(m), transition_model=Slip())
        risky = m.router.extract_features(st(m, pos=0), goal(m, pos=4), chain(m), transition_model=Risky())
        rules = m.router.RuleBasedClassifier(branching_threshold=3, horizon_threshold=2)
        picks = [rules(f), rules(risky), m.router.RuleBasedClassifier()(f)]
        return (
            f.action_count,
            f.admissible_h_at_start,
            f.horizon_estimate,
            f.is_stochastic,
            risky.risk_profile,
            picks,
        )

    lg, ours = both(run)
    assert lg == ours == (4, 2, 8, True, "risk-averse", ["mcts", "mcts", "astar"])


def test_router_dispatches_reports_and_refuses_unknown_names() -> None:
    """The router calls the chosen strategy, records last_chosen, falls back or raises KeyError."""

    def run(m: SimpleNamespace) -> Any:
        seen: list[str] = []
        astar = m.strategy.AStarStrategy()
        r = m.router.StrategyRouter(
            strategies={"astar": astar}, classifier=lambda f: "nope", on_unknown="default"
        )
        r.on_strategy_chosen = seen.append
        p = r.plan(st(m, pos=0), goal(m, pos=2), chain(m))
        strict = m.router.StrategyRouter(strategies={"astar": astar}, classifier=lambda f: "nope")
        with pytest.raises(KeyError, match="nope"):
            strict.plan(st(m, pos=0), goal(m, pos=2), chain(m))
        return p.action_names, r.last_chosen, seen

    assert both(run) == ((["go0", "go1"], "astar", ["astar"]), (["go0", "go1"], "astar", ["astar"]))


def test_utility_picks_the_best_net_value() -> None:
    """The one-step plan is the applicable action of highest utility minus cost (ties: first listed)."""

    def run(m: SimpleNamespace) -> Any:
        A = m.actions.ActionSpec
        acts = [
            A(name="nap", effects={"rested": True}, cost=1.0, utility=2.0),
            A(
                name="work",
                effects={"paid": True},
                cost=lambda w: 2.0 if w.get("tired") else 1.0,
                utility=4.0,
            ),
            A(name="eat", preconditions={"hungry": True}, effects={"fed": True}, utility=99.0),
            A(name="idle", cost=0.0),
        ]
        u = m.utility.UtilityStrategy()
        fresh = u.plan(st(m, tired=False), goal(m), acts)
        tired = u.plan(st(m, tired=True), goal(m), acts, blacklisted_actions=["work"])
        none = u.plan(st(m), goal(m), acts[2:3])
        nirvana = m.utility.is_nirvana(m.utility.NirvanaGoal())
        return (
            fresh.action_names,
            fresh.total_cost,
            fresh.metadata.applicable_count,
            tired.action_names,
            none,
            nirvana,
        )

    lg, ours = both(run)
    assert lg == ours == (["work"], 1.0, 3, ["nap"], None, True)


def test_repair_keeps_the_valid_prefix() -> None:
    """repair_plan keeps the still-valid prefix, replans the rest, and reports the same counts."""

    def run(m: SimpleNamespace) -> Any:
        acts = chain(m)
        old = m.types.Plan(actions=tuple(acts))
        out = []
        for where, step in ((0, 0), (1, 1), (2, 0), (9, 0)):
            r = m.repair.repair_plan(old, st(m, pos=where), goal(m, pos=4), acts, current_step=step)
            names = r.repaired_plan.action_names if r.repaired_plan is not None else None
            out.append((names, r.repair_applied, r.valid_prefix_length, r.suffix_length))
        strat = m.repair.RepairStrategy().plan(
            st(m, pos=1), goal(m, pos=4), acts, prior_plan=old, current_step=1
        )
        return out, strat.action_names

    lg, ours = both(run)
    assert lg == ours


def test_transition_model_checks_agree() -> None:
    """The strict check, a reasonless policy and a bounded deviation fail the same way on both."""

    def run(m: SimpleNamespace) -> Any:
        T = m.transitions
        act = m.actions.ActionSpec(name="fill", effects={"level": 10, "ok": True})

        class Off:
            def __init__(self, policy: Any, level: int) -> None:
                self.divergence_policy, self.level = policy, level

            def expected(self, state: Any, action: Any) -> Any:
                return {"level": self.level, "ok": True}

        out = []
        for policy, level in ((None, 10), (None, 11), (T.DivergencePolicy(reason=" "), 11)):
            try:
                T.assert_expected_matches_declared(Off(policy, level), state={}, action=act)
                out.append("ok")
            except (AssertionError, ValueError) as e:
                out.append(type(e).__name__)
        bound = T.DivergencePolicy(reason="pessimist", max_relative_deviation=0.05)
        for level in (10, 11):
            try:
                T.assert_expected_matches_declared(Off(bound, level), state={}, action=act)
                out.append("ok")
            except AssertionError as e:
                out.append("deviation" in str(e))
        det = T.DeterministicTransitionModel()
        return out, dict(det.sample({}, act, random.Random(0))), isinstance(det, T.TransitionModel)

    lg, ours = both(run)
    assert lg == ours == (["ok", "AssertionError", "ValueError", "ok", True], {"level": 10, "ok": True}, True)


def test_difference_mcts_expands_in_declaration_order() -> None:
    """Deliberate difference: compat expands untried actions in declaration order; LangGOAP draws them at random."""
    names = ["a", "b", "c", "d"]

    def run(m: SimpleNamespace) -> Any:
        acts = [m.actions.ActionSpec(name=n, effects={n: True}) for n in names]
        s = mcts(m, 4)
        s.plan(st(m), goal(m, z=True), acts)
        return [c.action.name for c in s._last_root.children]

    lg, ours = both(run)
    assert ours == names and sorted(lg) == names


def test_mcts_and_router_drive_the_graph_alike() -> None:
    """GoapGraph runs an MCTS plan, and a router's choice, to the goal with the same history."""
    pytest.importorskip("langgraph")

    def run(m: SimpleNamespace) -> Any:
        pkg = importlib.import_module(m.actions.__name__.rsplit(".", 1)[0])
        out = []
        for strategy in (
            mcts(m, 64),
            m.router.StrategyRouter(
                strategies={"astar": m.strategy.AStarStrategy()}, classifier=lambda f: "astar"
            ),
        ):
            r = pkg.GoapGraph(chain(m), strategy=strategy).invoke(goal=goal(m, pos=3), world_state={"pos": 0})
            out.append((r["status"], [h.action_name for h in r["execution_history"]]))
        return out

    lg, ours = both(run)
    assert lg == ours == [("goal_achieved", ["go0", "go1", "go2"])] * 2
