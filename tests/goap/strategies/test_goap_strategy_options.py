"""The opt-in options of Mcts (chance nodes, rollout hook, cost horizon, partial plans, iteration
hook, tree reuse, precheck), of the rule classifier (stochastic_gate), of UtilityStrategy
(value_in, positive_only) and RepairStrategy's RepairReport."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any

from goap import ActionSpec, DeterministicTransitionModel, GoalSpec, ProblemFeatures
from goap.strategies import (
    Mcts,
    MctsChance,
    MctsNode,
    RepairReport,
    RepairStrategy,
    RuleBasedClassifier,
    UtilityStrategy,
)

STEP = ActionSpec("step", {}, {"pos": 1})
CHAIN = [ActionSpec(f"go{i}", {"pos": i}, {"pos": i + 1}, cost=3) for i in range(5)]


@dataclass(frozen=True, slots=True)
class Coin(DeterministicTransitionModel):
    """``flip`` lands heads or tails at random; declared: heads."""

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """Heads or tails, even odds."""
        return {**state, "side": "heads" if rng.random() < 0.5 else "tails", "flipped": True}


FLIP = ActionSpec("flip", {"flipped": False}, {"side": "heads", "flipped": True})


def test_chance_nodes_keep_one_child_per_sampled_outcome() -> None:
    """With chance_nodes the root's tried action is a chance node holding both sampled outcomes."""
    mcts = Mcts(transition_model=Coin(), chance_nodes=True, iterations=30)
    res, root = mcts.search({"flipped": False}, GoalSpec({"side": "heads"}), [FLIP])
    assert root is not None and root.children == [] and len(root.chances) == 1
    ch = root.chances[0]
    assert isinstance(ch, MctsChance) and ch.visits == 30
    assert {dict(n.state)["side"] for n in ch.outcomes.values()} == {"heads", "tails"}
    assert res.found and res.plan is not None and res.plan.names == ("flip",)


def test_rollout_hook_scores_leaves_and_on_iteration_sees_every_leaf() -> None:
    """A custom rollout's rewards are what the tree averages; on_iteration is called once per iteration."""
    seen: list[MctsNode] = []
    mcts = Mcts(iterations=5, rollout=lambda state, rng: -0.5, on_iteration=seen.append)
    res, root = mcts.search({"pos": 0}, GoalSpec({"pos": 1}), [STEP])
    assert root is not None and len(seen) == 5 and root.mean == -0.5
    assert res.found and seen[0] is root.children[0]


def test_max_path_cost_stops_expansion_and_partial_returns_the_most_visited_path() -> None:
    """A cost horizon below the goal leaves no plan; partial still gives the best-supported first move."""
    res, root = Mcts(iterations=200, max_path_cost=6).search({"pos": 0}, GoalSpec({"pos": 5}), CHAIN)
    assert res.status == "budget_exhausted" and res.plan is None
    assert root is not None and max(n.cost for n in _nodes(root)) <= 6
    part = Mcts(iterations=200, max_path_cost=6, partial=True).solve({"pos": 0}, GoalSpec({"pos": 5}), CHAIN)
    assert part.status == "budget_exhausted" and part.plan is not None and part.plan.names[0] == "go0"
    assert Mcts(iterations=400, max_path_cost=15).solve({"pos": 0}, GoalSpec({"pos": 5}), CHAIN).found


def test_detached_subtree_continues_as_root_with_decayed_visits() -> None:
    """detach(decay) keeps the means, scales the visits, rebases costs; search(root=...) grows it further."""
    mcts = Mcts(iterations=50)
    _, root = mcts.search({"pos": 0}, GoalSpec({"pos": 5}), CHAIN)
    assert root is not None
    child = root.successor("go0", {"pos": 1})
    assert child is not None and child is root.children[0]
    before_visits, before_mean = child.visits, child.mean
    child.detach(0.5)
    assert child.parent is None and child.cost == 0 and child.depth == 0
    assert child.visits == round(before_visits * 0.5) and abs(child.mean - before_mean) < 1e-9
    res, again = mcts.search({"pos": 1}, GoalSpec({"pos": 5}), CHAIN, root=child)
    assert again is child and child.visits == round(before_visits * 0.5) + 50
    assert res.plan is not None and res.plan.names == ("go1", "go2", "go3", "go4")
    _, fresh = mcts.search({"pos": 2}, GoalSpec({"pos": 5}), CHAIN, root=child)
    assert fresh is not child  # a root whose state differs is not reused


def test_precheck_off_lets_the_model_reach_what_declared_effects_cannot() -> None:
    """A goal only the sampled outcomes reach is no_plan with the precheck and found without it."""
    goal = GoalSpec({"side": "tails"})
    assert (
        Mcts(transition_model=Coin(), chance_nodes=True).solve({"flipped": False}, goal, [FLIP]).status
        == "no_plan"
    )
    res = Mcts(transition_model=Coin(), chance_nodes=True, precheck=False).solve(
        {"flipped": False}, goal, [FLIP]
    )
    assert res.found


def test_stochastic_gate_off_applies_rules_2_and_4_to_deterministic_models() -> None:
    """Without the gate a risk-averse profile or a wide, deep problem goes to MCTS even when deterministic."""
    f = ProblemFeatures(40, 1, False, False, False, False, "strict", 1, 30)
    assert RuleBasedClassifier()(f) == "astar"
    assert RuleBasedClassifier(stochastic_gate=False)(f) == "mcts"
    risky = ProblemFeatures(3, 1, False, False, False, False, "risk-averse", 1, 3)
    assert RuleBasedClassifier(stochastic_gate=False)(risky) == "mcts"


def test_utility_value_in_and_positive_only() -> None:
    """value_in gives state-dependent values; positive_only=False takes the best action even at a loss."""
    idle = ActionSpec("idle", {}, {}, cost=1)
    work = ActionSpec("work", {}, {"done": True}, cost=1)
    strat = UtilityStrategy(max_actions=1, value_in=lambda a, s: 3.0 if a.name == "work" else 0.0)
    res = strat.solve({}, GoalSpec({}), [idle, work])
    assert res.plan is not None and res.plan.names == ("work",)
    none = UtilityStrategy(max_actions=1).solve({}, GoalSpec({}), [idle])
    assert none.plan is not None and none.plan.names == ()
    loss = UtilityStrategy(max_actions=1, positive_only=False).solve({}, GoalSpec({}), [idle])
    assert loss.plan is not None and loss.plan.names == ("idle",)


def test_repair_reports_how_much_of_the_old_plan_it_kept() -> None:
    """A repaired plan carries a RepairReport with the valid prefix and what was kept."""
    res = RepairStrategy().repair({"pos": 1}, GoalSpec({"pos": 5}), CHAIN, ["go1", "go2", "go0"])
    rep = res.report(RepairReport)
    assert rep is not None and (rep.valid_prefix, rep.kept) == (2, 2) and res.plan is not None
    assert res.plan.names == ("go1", "go2", "go3", "go4")


def _nodes(root: MctsNode) -> list[MctsNode]:
    out, todo = [], [root]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(n.children)
    return out


def test_pick_visits_ends_at_the_most_visited_goal_node() -> None:
    """pick='visits' returns the path to the goal-reaching node with the most visits."""
    acts = [ActionSpec("long", {}, {"pos": 1}, cost=5), ActionSpec("short", {}, {"pos": 1}, cost=1)]
    res, root = Mcts(iterations=40, pick="visits").search({"pos": 0}, GoalSpec({"pos": 1}), acts)
    assert root is not None and res.plan is not None
    top = max(root.children, key=lambda n: n.visits)
    assert res.plan.names == (top.path()[0].name,)
