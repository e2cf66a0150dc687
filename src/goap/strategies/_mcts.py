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

Options, all off by default:

- ``chance_nodes``: a closed-loop tree. A tried action becomes a :class:`MctsChance` whose
  children are *sampled* outcomes, one decision node per distinct state; selection samples the
  model again at every chance node, so values average over outcomes instead of trusting the
  expectation. The built-in rollout then starts from the leaf's own state.
- ``rollout``: ``rollout(state, rng) -> reward`` scores each new leaf from its state instead of
  the built-in rollout (any reward scale; the goal test is the caller's).
  :func:`walk_rollout` makes one: a short greedy or random walk scored by :func:`shaped_reward`
  (1 at the goal, else an optional value of the state, else minus the share of unmet conditions).
- ``max_path_cost``: no expansion below a node whose path cost reached it (a cost horizon).
- ``partial``: without a goal-reaching node in the tree, the ``budget_exhausted`` result still
  carries the most-visited path as its plan (for act-then-replan loops that need a first move).
- ``on_iteration``: called with every iteration's leaf after its backup (tracing, statistics).
- ``pick="visits"``: the plan ends at the most-visited goal-reaching node of the tree.
- ``precheck=False``: skip relaxed reachability of the declared effects (needed when the
  transition model reaches states the declared effects cannot).

:meth:`Mcts.search` returns the tree with the result. A node of it, made a root by
:meth:`MctsNode.detach` (which can decay its statistics), continues as ``root`` of the next call:
tree reuse between the ticks of an act-then-replan loop.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Literal

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

__all__ = ["Mcts", "MctsChance", "MctsNode"]


def _ucb(visits: int, total: float, parent: MctsNode | MctsChance | None, c: float) -> float:
    if visits == 0:
        return math.inf
    if parent is None or parent.visits == 0:
        return total / visits
    return total / visits + c * math.sqrt(math.log(parent.visits) / visits)


@dataclass(slots=True, eq=False)
class MctsNode:
    """A decision node of an :class:`Mcts` tree: a world state and the path that reached it."""

    state: Mapping[str, Any]
    """The world state here."""
    parent: MctsNode | MctsChance | None
    """The node above (None: the root)."""
    action: ActionSpec | None
    """The action that led here (None: the root)."""
    cost: float
    """Cost of the path from the root."""
    depth: int
    """Actions on the path from the root."""
    untried: list[ActionSpec]
    """Applicable actions not expanded yet."""
    terminal: bool
    """The goal holds here."""
    children: list[MctsNode] = field(default_factory=list)
    """Expected-outcome children (the default tree)."""
    chances: list[MctsChance] = field(default_factory=list)
    """Tried actions (``chance_nodes`` trees)."""
    visits: int = 0
    """Iterations through this node."""
    total: float = 0.0
    """Sum of their rewards."""

    @property
    def mean(self) -> float:
        """Mean reward (0 before any visit)."""
        return self.total / self.visits if self.visits else 0.0

    def ucb(self, exploration: float) -> float:
        """UCB1 value under the parent (infinite before any visit)."""
        return _ucb(self.visits, self.total, self.parent, exploration)

    def path(self) -> list[ActionSpec]:
        """The actions from the root to this node."""
        out: list[ActionSpec] = []
        node: MctsNode | MctsChance | None = self
        while node is not None and node.parent is not None:  # a detached root keeps its action
            if isinstance(node, MctsNode) and node.action is not None:
                out.append(node.action)
            node = node.parent
        out.reverse()
        return out

    def successor(self, action: str, state: Mapping[str, Any]) -> MctsNode | None:
        """The child reached by the action named ``action`` in ``state`` (an expected child or a
        sampled outcome), or None when the tree has none."""
        for ch in self.chances:
            if ch.action.name == action:
                return ch.outcomes.get(_key(state))
        want = dict(state)
        for c in self.children:
            if c.action is not None and c.action.name == action and dict(c.state) == want:
                return c
        return None

    def detach(self, decay: float = 1.0) -> MctsNode:
        """Make this node a root for :meth:`Mcts.search`: visits of the whole subtree are multiplied
        by ``decay`` in [0, 1] (rounded; means are kept) and costs and depths count from here."""
        if not 0.0 <= decay <= 1.0:
            raise ModelError(f"decay must be in [0, 1], got {decay}")
        self.parent = None
        cost0, depth0 = self.cost, self.depth
        todo: list[MctsNode | MctsChance] = [self]
        while todo:
            n = todo.pop()
            kept = round(n.visits * decay)
            n.total = n.total * kept / n.visits if n.visits else 0.0
            n.visits = kept
            if isinstance(n, MctsNode):
                n.cost -= cost0
                n.depth -= depth0
                todo.extend(n.children)
                todo.extend(n.chances)
            else:
                todo.extend(n.outcomes.values())
        return self


@dataclass(slots=True, eq=False)
class MctsChance:
    """An action tried at a decision node of a ``chance_nodes`` tree; its children are the outcomes
    sampled so far, one per distinct resulting state."""

    action: ActionSpec
    """The action."""
    parent: MctsNode
    """Where it was tried."""
    outcomes: dict[Hashable, MctsNode] = field(default_factory=dict)
    """Sampled outcomes, keyed by their state."""
    visits: int = 0
    """Iterations through this node."""
    total: float = 0.0
    """Sum of their rewards."""

    @property
    def mean(self) -> float:
        """Mean reward (0 before any visit)."""
        return self.total / self.visits if self.visits else 0.0

    def ucb(self, exploration: float) -> float:
        """UCB1 value under the parent (infinite before any visit)."""
        return _ucb(self.visits, self.total, self.parent, exploration)


def _key(state: Mapping[str, Any]) -> Hashable:
    return tuple(sorted(state.items(), key=lambda kv: kv[0]))


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
    """Seconds before giving up (``budget_exhausted`` unless a plan is already in the tree); read every
    64 iterations, or every iteration with a ``rollout`` hook."""
    blacklist: frozenset[str] = frozenset()
    """Action names never to use."""
    chance_nodes: bool = False
    """Closed-loop tree of sampled outcomes (see the module docstring)."""
    rollout: Callable[[Mapping[str, Any], Random], float] | None = None
    """Scores a new leaf from its state, replacing the built-in rollout."""
    max_path_cost: float | None = None
    """No expansion below a node whose path cost reached this."""
    partial: bool = False
    """Without a goal-reaching node, return the most-visited path with ``budget_exhausted``."""
    on_iteration: Callable[[MctsNode], None] | None = None
    """Called with each iteration's leaf after its backup."""
    precheck: bool = True
    """Answer ``no_plan`` first when relaxed reachability of the declared effects proves it."""
    pick: Literal["path", "visits"] = "path"
    """``path``: the most-visited path while it reaches the goal, else the cheapest goal-reaching
    node; ``visits``: the most-visited goal-reaching node of the whole tree."""

    def __post_init__(self) -> None:
        check_at_least(self, "iterations", "max_depth")
        if not (self.exploration > 0 and math.isfinite(self.exploration)):
            raise ModelError(f"exploration must be a positive number, got {self.exploration}")
        if not 0.0 <= self.greedy_bias <= 1.0:
            raise ModelError(f"greedy_bias must be in [0, 1], got {self.greedy_bias}")
        if self.max_path_cost is not None and not self.max_path_cost >= 0:
            raise ModelError(f"max_path_cost must be >= 0 or None, got {self.max_path_cost}")
        if self.pick not in ("path", "visits"):
            raise ModelError(f"pick must be 'path' or 'visits', got {self.pick!r}")
        freeze_field(self, "blacklist", frozenset)

    @property
    def name(self) -> str:
        """``mcts(iterations=..., seed=...)``."""
        return f"mcts(iterations={self.iterations}, seed={self.seed})"

    def solve_started(self, call: SolveStart) -> PlanResult:
        """Plan for ``goal``; see the module docstring (a constrained goal raises
        :class:`goap.UnsupportedConstraintError`: rollouts only aim at the conditions)."""
        return self._search(call, None)[0]

    def search(
        self,
        initial: Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        *,
        blacklist: frozenset[str] = frozenset(),
        root: MctsNode | None = None,
    ) -> tuple[PlanResult, MctsNode | None]:
        """:meth:`solve`, also returning the tree's root (None when no tree was grown).

        ``root``: a detached node of an earlier tree (:meth:`MctsNode.detach`) to grow further;
        used only when its state equals ``initial``."""
        return self._search(self.prologue(initial, goal, actions, blacklist=blacklist), root)

    def _search(self, call: SolveStart, root: MctsNode | None) -> tuple[PlanResult, MctsNode | None]:
        t0 = call.t0
        if self.precheck:
            no_plan = call.unreachable(optimal=False)
            if no_plan is not None:
                return no_plan, None
        run = _Run(self, call.goal, list(call.usable))
        if root is not None and (root.parent is not None or dict(root.state) != dict(call.initial)):
            root = None
        tree = run.root(call.initial) if root is None else run.adopt(root)
        plan, found, iters = run.search(tree, t0)
        stats = SearchStats(
            expanded=iters, generated=run.generated, evaluated=run.rollouts, seconds=time.perf_counter() - t0
        )
        result = PlanResult("found" if found else "budget_exhausted", plan, None, stats, False, self.name)
        return result, tree


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
        self.best: MctsNode | None = None
        """Cheapest goal-reaching node seen in the tree."""

    def satisfied(self, state: Mapping[str, Any]) -> int:
        return sum(1 for k, c in self.conds if holds(c, state.get(k)))

    def root(self, initial: Mapping[str, Any]) -> MctsNode:
        return self.node(dict(initial), None, None, 0.0, 0)

    def adopt(self, root: MctsNode) -> MctsNode:
        """Continue an earlier tree: its goal-reaching nodes count as seen."""
        for n in _walk(root):
            if n.terminal and (self.best is None or n.cost < self.best.cost - 1e-12):
                self.best = n
        return root

    def node(
        self,
        state: Mapping[str, Any],
        parent: MctsNode | MctsChance | None,
        action: ActionSpec | None,
        cost: float,
        depth: int,
    ) -> MctsNode:
        done = self.satisfied(state) == len(self.conds)
        cap = self.cfg.max_path_cost
        room = depth < self.cfg.max_depth and (cap is None or cost < cap)
        untried = [] if done or not room else [a for a in self.actions if a.applicable(state)]
        n = MctsNode(state, parent, action, cost, depth, untried, done)
        if done and (self.best is None or cost < self.best.cost - 1e-12):
            self.best = n
        return n

    def search(self, root: MctsNode, t0: float) -> tuple[Plan | None, bool, int]:
        deadline = None if self.cfg.timeout is None else t0 + self.cfg.timeout
        hook = self.cfg.on_iteration
        every = 64 if self.cfg.rollout is None else 1  # a rollout hook's cost dwarfs a clock read
        iters = 0
        if not root.terminal:
            for iters in range(1, self.cfg.iterations + 1):
                leaf = self.select(root)
                if leaf.untried:
                    leaf = self.expand(leaf)
                reward = self.simulate(root, leaf)
                up: MctsNode | MctsChance | None = leaf
                while up is not None:
                    up.visits += 1
                    up.total += reward
                    up = up.parent
                if hook is not None:
                    hook(leaf)
                if deadline is not None and iters % every == 0 and time.perf_counter() > deadline:
                    break
        plan, found = self.extract(root)
        return plan, found, iters

    def select(self, node: MctsNode) -> MctsNode:
        c = self.cfg.exploration
        while not node.untried:
            if node.chances:
                ch = max(node.chances, key=lambda x: x.ucb(c))
                state = self.model.sample(node.state, ch.action, self.rng)
                nxt = ch.outcomes.get(_key(state))
                if nxt is None:
                    return self.outcome(ch, state)
                node = nxt
            elif node.children:
                node = max(node.children, key=lambda ch: ch.ucb(c))
            else:
                break
        return node

    def outcome(self, ch: MctsChance, state: Mapping[str, Any]) -> MctsNode:
        """A new decision node for a sampled outcome of ``ch``."""
        at = ch.parent
        child = self.node(state, ch, ch.action, at.cost + ch.action.cost_in(at.state), at.depth + 1)
        ch.outcomes[_key(state)] = child
        self.generated += 1
        return child

    def expand(self, node: MctsNode) -> MctsNode:
        action = node.untried.pop(0)
        if self.cfg.chance_nodes:
            ch = MctsChance(action, node)
            node.chances.append(ch)
            return self.outcome(ch, self.model.sample(node.state, action, self.rng))
        state = self.model.expected(node.state, action)
        child = self.node(state, node, action, node.cost + action.cost_in(node.state), node.depth + 1)
        node.children.append(child)
        self.generated += 1
        return child

    def simulate(self, root: MctsNode, leaf: MctsNode) -> float:
        self.rollouts += 1
        if self.cfg.rollout is not None:
            return float(self.cfg.rollout(leaf.state, self.rng))
        state = root.state
        cost = 0.0
        steps = 0
        if self.cfg.chance_nodes:
            # Closed loop: the leaf's state already is a sampled outcome.
            state, cost, steps = leaf.state, leaf.cost, leaf.depth
        else:
            # Open loop: the tree path is replayed through sampled outcomes from the root, so a
            # plan prefix whose actions often fail scores low; when a sampled outcome leaves a path
            # action inapplicable, the rollout policy takes over from there (as replanning would).
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

    def extract(self, root: MctsNode) -> tuple[Plan | None, bool]:
        node = root
        while not node.terminal:
            nxt = _most_visited(node)
            if nxt is None:
                break
            node = nxt
        chosen = node if node.terminal else self.best
        if self.cfg.pick == "visits":
            goals = [n for n in _walk(root) if n.terminal]
            chosen = max(goals, key=lambda n: n.visits) if goals else None
        if chosen is not None:
            return Plan(tuple(chosen.path()), chosen.cost), True
        if self.cfg.partial and node is not root:
            return Plan(tuple(node.path()), node.cost), False
        return None, False


def _walk(root: MctsNode) -> list[MctsNode]:
    """The decision nodes under ``root``, depth first (later children first)."""
    out, todo = [], [root]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(n.children)
        for ch in n.chances:
            todo.extend(ch.outcomes.values())
    return out


def _most_visited(node: MctsNode) -> MctsNode | None:
    if node.chances:
        ch = max(node.chances, key=lambda x: x.visits)
        return max(ch.outcomes.values(), key=lambda x: x.visits) if ch.outcomes else None
    return max(node.children, key=lambda ch: ch.visits) if node.children else None


_log = logging.getLogger("goap.strategies.mcts")


def shaped_reward(
    state: Mapping[str, Any], goal: GoalSpec, value: Callable[[Mapping[str, Any]], float] | None = None
) -> float:
    """1 when ``goal`` holds in ``state``; else ``value(state)`` clamped to [-1, 0.999] (kept below a
    reached goal), or, without ``value`` or when it raises (logged), minus the share of unmet conditions."""
    unmet = sum(1 for k, c in goal.conditions.items() if not holds(c, state.get(k)))
    if not unmet:
        return 1.0
    if value is not None:
        try:
            return min(0.999, max(-1.0, float(value(state))))
        except Exception:
            _log.warning("the scalar heuristic failed; using the unmet-conditions reward", exc_info=True)
    return -unmet / len(goal.conditions)


def walk_rollout(
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    *,
    model: TransitionModel | None = None,
    depth: int = 4,
    greedy: bool = True,
    value: Callable[[Mapping[str, Any]], float] | None = None,
) -> Callable[[Mapping[str, Any], Random], float]:
    """A ``rollout`` hook for :class:`Mcts` with a shaped reward in [-1, 1] (:func:`shaped_reward`).

    It walks up to ``depth`` steps from the leaf until the goal holds or nothing applies, moving by the
    model's sampled outcomes. Each step takes, ``greedy``, the applicable action whose expected outcome
    leaves fewest goal conditions unmet (more preconditions first, then declaration order), else a
    random applicable one."""
    mdl = model or DeterministicTransitionModel()

    def unmet(state: Mapping[str, Any]) -> int:
        return sum(1 for k, c in goal.conditions.items() if not holds(c, state.get(k)))

    def rollout(state: Mapping[str, Any], rng: Random) -> float:
        for _ in range(depth):
            options = [a for a in actions if a.applicable(state)]
            if not unmet(state) or not options:
                break
            if greedy:
                act = min(options, key=lambda a: (unmet(mdl.expected(state, a)), -len(a.preconditions)))
            else:
                act = rng.choice(options)
            state = mdl.sample(state, act, rng)
        return shaped_reward(state, goal, value)

    return rollout
