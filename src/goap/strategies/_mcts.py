"""Monte Carlo tree search for stochastic transition models: :class:`Mcts`.

The tree follows the model's *expected* outcomes (:meth:`goap.TransitionModel.expected`), so a
path in the tree is a plan the executor can follow and the observer can check. A rollout from a
new leaf replays the leaf's path from the root and continues, all through *sampled* outcomes
(:meth:`goap.TransitionModel.sample`; open loop), so the value of a tree node reflects how often
the world really gets to the goal that way, and at what cost: an action whose outcome is
unreliable looks worse than its declared effects suggest.

Each iteration selects a leaf by UCB1, expands one untried applicable action, runs one rollout
(at most ``max_depth`` steps, choosing among applicable actions with a bias toward those whose
expected outcome satisfies more goal conditions) and backs the reward up. A rollout that reaches
the goal earns ``1 + 1 / (1 + cost)``; one that does not earns half the fraction of goal
conditions it satisfied. The plan is the most-visited path while it reaches the goal, else the
cheapest goal-reaching path in the tree; none within ``iterations`` is ``budget_exhausted``.

Deterministic: one ``random.Random(seed)`` drives every choice, untried actions are tried in
declaration order, ties go to the earlier child. MCTS never claims optimality.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any

from goap.planning import (
    ActionSpec,
    DeterministicTransitionModel,
    GoalSpec,
    ModelError,
    Plan,
    PlanResult,
    SearchStats,
    TransitionModel,
    holds,
)
from goap.planning.kit import SolveStart, StrategyBase, check_at_least, freeze_field

__all__ = ["Mcts"]


@dataclass(slots=True, eq=False)
class _Node:
    state: Mapping[str, Any]
    parent: _Node | None
    action: ActionSpec | None
    cost: float
    """Cost of the path from the root."""
    untried: list[ActionSpec]
    terminal: bool
    children: list[_Node] = field(default_factory=list)
    visits: int = 0
    total: float = 0.0

    def path(self) -> list[ActionSpec]:
        out: list[ActionSpec] = []
        node: _Node | None = self
        while node is not None and node.action is not None:
            out.append(node.action)
            node = node.parent
        out.reverse()
        return out


@dataclass(frozen=True, slots=True)
class Mcts(StrategyBase):
    """A :class:`goap.PlanningStrategy` by Monte Carlo tree search (see the module docstring)."""

    transition_model: TransitionModel | None = None
    """How the world responds; None: the declared effects (then A* is the better choice)."""
    iterations: int = 1000
    """Tree iterations (one expansion and one rollout each)."""
    max_depth: int = 40
    """Longest path (tree plus rollout) considered."""
    exploration: float = math.sqrt(2)
    """UCB1 exploration constant."""
    seed: int = 0
    """Seed of the one rng driving selection ties and rollouts."""
    greedy_bias: float = 0.7
    """Probability that a rollout step takes the action whose expected outcome looks closest to the goal."""
    timeout: float | None = 30.0
    """Seconds before giving up (``budget_exhausted`` unless a plan is already in the tree)."""
    blacklist: frozenset[str] = frozenset()
    """Action names never to use."""

    def __post_init__(self) -> None:
        check_at_least(self, "iterations", "max_depth")
        if not (self.exploration > 0 and math.isfinite(self.exploration)):
            raise ModelError(f"exploration must be a positive number, got {self.exploration}")
        if not 0.0 <= self.greedy_bias <= 1.0:
            raise ModelError(f"greedy_bias must be in [0, 1], got {self.greedy_bias}")
        freeze_field(self, "blacklist", frozenset)

    @property
    def name(self) -> str:
        """``mcts(iterations=..., seed=...)``."""
        return f"mcts(iterations={self.iterations}, seed={self.seed})"

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Plan for ``goal``; see the module docstring (a constrained goal raises
        :class:`goap.UnsupportedConstraintError`: rollouts only aim at the conditions)."""
        t0 = call.t0
        no_plan = call.unreachable(optimal=False)
        if no_plan is not None:
            return no_plan
        run = _Run(self, call.goal, list(call.usable))
        plan, iters = run.search(call.initial, t0)
        stats = SearchStats(
            expanded=iters, generated=run.generated, evaluated=run.rollouts, seconds=time.perf_counter() - t0
        )
        if plan is None:
            return PlanResult("budget_exhausted", None, None, stats, False, self.name)
        return PlanResult("found", plan, None, stats, False, self.name)


class _Run:
    """The state of one search (the strategy object itself stays immutable)."""

    def __init__(self, cfg: Mcts, goal: GoalSpec, actions: list[ActionSpec]) -> None:
        self.cfg = cfg
        self.goal = goal
        self.conds = tuple(goal.conditions.items())
        self.actions = actions
        self.model: TransitionModel = cfg.transition_model or DeterministicTransitionModel()
        self.rng = Random(cfg.seed)
        self.generated = 0
        self.rollouts = 0
        self.best: _Node | None = None
        """Cheapest goal-reaching node seen in the tree."""

    def satisfied(self, state: Mapping[str, Any]) -> int:
        return sum(1 for k, c in self.conds if holds(c, state.get(k)))

    def node(
        self, state: Mapping[str, Any], parent: _Node | None, action: ActionSpec | None, cost: float
    ) -> _Node:
        done = self.satisfied(state) == len(self.conds)
        depth_left = parent is None or _depth(parent) + 1 < self.cfg.max_depth
        untried = [] if done or not depth_left else [a for a in self.actions if a.applicable(state)]
        n = _Node(state, parent, action, cost, untried, done)
        if done and (self.best is None or cost < self.best.cost - 1e-12):
            self.best = n
        return n

    def search(self, initial: Mapping[str, Any], t0: float) -> tuple[Plan | None, int]:
        root = self.node(dict(initial), None, None, 0.0)
        deadline = None if self.cfg.timeout is None else t0 + self.cfg.timeout
        iters = 0
        if not root.terminal:
            for iters in range(1, self.cfg.iterations + 1):
                leaf = self.select(root)
                if leaf.untried:
                    leaf = self.expand(leaf)
                reward = self.rollout(root, leaf)
                up: _Node | None = leaf
                while up is not None:
                    up.visits += 1
                    up.total += reward
                    up = up.parent
                if deadline is not None and iters % 64 == 0 and time.perf_counter() > deadline:
                    break
        return self.extract(root, initial), iters

    def select(self, node: _Node) -> _Node:
        c = self.cfg.exploration
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(
                node.children,
                key=lambda ch: ch.total / ch.visits + c * math.sqrt(log_n / ch.visits),
            )
        return node

    def expand(self, node: _Node) -> _Node:
        action = node.untried.pop(0)
        state = self.model.expected(node.state, action)
        child = self.node(state, node, action, node.cost + action.cost_in(node.state))
        node.children.append(child)
        self.generated += 1
        return child

    def rollout(self, root: _Node, leaf: _Node) -> float:
        self.rollouts += 1
        # Open loop: the tree path is replayed through sampled outcomes from the root, so a
        # plan prefix whose actions often fail scores low; when a sampled outcome leaves a path
        # action inapplicable, the rollout policy takes over from there (as replanning would).
        state = root.state
        cost = 0.0
        steps = 0
        for action in leaf.path():
            if not action.applicable(state):
                break
            cost += action.cost_in(state)
            state = self.model.sample(state, action, self.rng)
            steps += 1
        total = len(self.conds) or 1
        while self.satisfied(state) < len(self.conds) and steps < self.cfg.max_depth:
            options = [a for a in self.actions if a.applicable(state)]
            if not options:
                break
            if self.rng.random() < self.cfg.greedy_bias:
                scores = [self.satisfied(self.model.expected(state, a)) for a in options]
                top = max(scores)
                options = [a for a, s in zip(options, scores, strict=True) if s == top]
            action = options[self.rng.randrange(len(options))]
            cost += action.cost_in(state)
            state = self.model.sample(state, action, self.rng)
            steps += 1
        sat = self.satisfied(state)
        if sat == len(self.conds):
            return 1.0 + 1.0 / (1.0 + cost)
        return 0.5 * sat / total

    def extract(self, root: _Node, initial: Mapping[str, Any]) -> Plan | None:
        node = root
        while not node.terminal and node.children:
            node = max(node.children, key=lambda ch: ch.visits)
        chosen = node if node.terminal else self.best
        if chosen is None:
            return None
        return Plan(tuple(chosen.path()), chosen.cost)


def _depth(node: _Node) -> int:
    d = 0
    while node.parent is not None:
        d += 1
        node = node.parent
    return d
