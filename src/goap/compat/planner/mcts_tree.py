"""The search tree of :class:`~goap.compat.planner.mcts.MCTSStrategy`: nodes, UCB1, and the four
phases (select, expand, back up, extract), deterministic and with chance layers.

Deterministic transitions give a tree of decision nodes whose edges are the actions' expected
effects. A stochastic transition model inserts a :class:`ChanceNode` per action; its children are
the distinct sampled successor states (keyed by state), so each chance node's mean converges to
the outcome-averaged value. Randomness comes only from the ``rng`` handed in, so a seed replays.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.transitions import TransitionModel
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState

__all__ = ["ChanceNode", "MCTSNode", "TreeSearch", "backpropagate", "ucb1"]


@dataclass(slots=True)
class MCTSNode:
    """A decision node: a state, the action that led here (None at the root), statistics."""

    state: PlanningState
    """The world state at this node."""
    parent: MCTSNode | ChanceNode | None = None
    """The node above (a chance node under a stochastic model)."""
    action: ActionSpec | None = None
    """The action applied to the parent's state."""
    children: list[MCTSNode] = field(default_factory=list)
    """Decision children (deterministic expansion)."""
    visits: int = 0
    """Rollouts through this node."""
    value: float = 0.0
    """Mean reward of those rollouts."""
    is_terminal: bool = False
    """The goal holds here."""
    untried_actions: list[ActionSpec] = field(default_factory=list)
    """Applicable actions not expanded yet."""
    chance_children: list[ChanceNode] = field(default_factory=list)
    """Chance children (stochastic expansion)."""

    @property
    def depth(self) -> int:
        """Decision edges from the root."""
        d, cursor = 0, self.parent
        while cursor is not None:
            d += isinstance(cursor, MCTSNode)
            cursor = cursor.parent
        return d


@dataclass(slots=True)
class ChanceNode:
    """The outcome layer of one action under a stochastic model: sampled successors by state key."""

    action: ActionSpec
    """The action whose outcomes are sampled."""
    parent: MCTSNode
    """The decision node the action is taken from."""
    children_by_key: dict[int, MCTSNode] = field(default_factory=dict)
    """State key -> decision node of that outcome."""
    visits: int = 0
    """Rollouts through this node."""
    value: float = 0.0
    """Mean reward of those rollouts."""


def ucb1(node: MCTSNode | ChanceNode, *, c: float = math.sqrt(2)) -> float:
    """``mean + c * sqrt(ln(parent visits) / visits)``; +inf unvisited; the mean alone without parent visits."""
    if node.visits == 0:
        return math.inf
    mean = node.value / node.visits
    parent = node.parent
    if parent is None or parent.visits == 0:
        return mean
    return mean + c * math.sqrt(math.log(parent.visits) / node.visits)


def backpropagate(node: MCTSNode | ChanceNode, *, reward: float) -> None:
    """Add one rollout's ``reward`` to every node from ``node`` up to the root (running means)."""
    cursor: MCTSNode | ChanceNode | None = node
    while cursor is not None:
        cursor.visits += 1
        cursor.value += (reward - cursor.value) / cursor.visits
        cursor = cursor.parent


def unsatisfied(state: PlanningState, goal: GoalSpec) -> int:
    """Goal conditions not equal in ``state`` (the count heuristic A* uses too)."""
    now = state.to_dict()
    return sum(1 for k, v in goal.conditions.items() if now.get(k) != v)


def applicable(state: PlanningState, actions: list[ActionSpec]) -> list[ActionSpec]:
    """Actions whose preconditions hold in ``state``, in order."""
    return [a for a in actions if state.satisfies(a.preconditions)]


def state_key(state: PlanningState) -> int:
    """A hash of the state's items, so repeated samples of one outcome share a node."""
    return hash(tuple(sorted(state.to_dict().items(), key=lambda kv: kv[0])))


def decision_parent(node: MCTSNode) -> MCTSNode | None:
    """The nearest decision node above ``node`` (chance layers skipped); None at the root."""
    pre = node.parent
    while pre is not None and not isinstance(pre, MCTSNode):
        pre = pre.parent
    return pre


def path_cost(node: MCTSNode) -> float:
    """Cost of the actions from the root to ``node``, each priced in its own pre-state."""
    total = 0.0
    cursor: MCTSNode | ChanceNode | None = node
    while cursor is not None:
        if isinstance(cursor, MCTSNode) and cursor.action is not None:
            pre = decision_parent(cursor)
            total += float(cursor.action.get_cost(pre.state.to_dict() if pre is not None else {}))
        cursor = cursor.parent
    return total


def over_budget(node: MCTSNode, budget: int | None) -> bool:
    """Whether the path to ``node`` costs at least ``budget`` (variable-depth selection)."""
    return budget is not None and path_cost(node) >= float(budget)


@dataclass(frozen=True, slots=True)
class TreeSearch:
    """One search's settings, and its two tree phases: :meth:`select` and :meth:`expand`.

    ``stochastic`` grows chance layers sampled from ``model``; else edges are ``model.expected``.
    """

    goal: GoalSpec
    """What to reach."""
    actions: list[ActionSpec]
    """The usable actions."""
    rng: random.Random
    """The search's one random source."""
    model: TransitionModel
    """The world's dynamics."""
    c: float
    """UCB1 exploration constant."""
    budget: int | None = None
    """Path cost where selection and expansion stop."""
    stochastic: bool = False
    """Expand through chance nodes."""

    def _child(self, state: PlanningState, parent: MCTSNode | ChanceNode, action: ActionSpec) -> MCTSNode:
        node = MCTSNode(state=state, parent=parent, action=action)
        node.untried_actions = applicable(state, self.actions)
        node.is_terminal = state.satisfies(self.goal.conditions)
        return node

    def _sample(self, state: PlanningState, action: ActionSpec) -> PlanningState:
        return state.apply(dict(self.model.sample(state.to_dict(), action, self.rng)))

    def select(self, root: MCTSNode) -> MCTSNode:
        """The node to expand: descend by UCB1 while nodes are fully expanded and within budget.

        Stochastic: decision -> chance (UCB1) -> a sampled outcome, whose node is created (and
        returned) the first time that outcome is drawn.
        """
        cursor = root
        if not self.stochastic:
            while not cursor.untried_actions and cursor.children and not over_budget(cursor, self.budget):
                cursor = max(cursor.children, key=lambda n: ucb1(n, c=self.c))
            return cursor
        while (
            not (cursor.untried_actions or cursor.is_terminal or over_budget(cursor, self.budget))
            and cursor.chance_children
        ):
            chance = max(cursor.chance_children, key=lambda cn: ucb1(cn, c=self.c))
            state = self._sample(cursor.state, chance.action)
            key = state_key(state)
            known = chance.children_by_key.get(key)
            if known is None:
                chance.children_by_key[key] = known = self._child(state, chance, chance.action)
                return known
            cursor = known
        return cursor

    def expand(self, node: MCTSNode) -> MCTSNode:
        """A new child for one random untried action of ``node`` (else ``node`` itself).

        The child's state is the expected effects or, stochastic, a sample under a new chance
        node. A goal node is marked terminal and not expanded.
        """
        if node.state.satisfies(self.goal.conditions):
            node.is_terminal = True
            return node
        if not node.untried_actions or over_budget(node, self.budget):
            return node
        action = node.untried_actions.pop(self.rng.randrange(len(node.untried_actions)))
        if not self.stochastic:
            expected = node.state.apply(dict(self.model.expected(node.state.to_dict(), action)))
            child = self._child(expected, node, action)
            node.children.append(child)
            return child
        chance = ChanceNode(action=action, parent=node)
        node.chance_children.append(chance)
        state = self._sample(node.state, action)
        child = self._child(state, chance, action)
        chance.children_by_key[state_key(state)] = child
        return child


def decay(node: MCTSNode, gamma: float) -> None:
    """Scale every visit count under ``node`` by ``gamma`` (clamped to [0, 1]); means are kept."""
    g = min(max(gamma, 0.0), 1.0)
    stack: list[MCTSNode | ChanceNode] = [node]
    while stack:
        cursor = stack.pop()
        cursor.visits = round(cursor.visits * g)
        if isinstance(cursor, MCTSNode):
            stack.extend(cursor.children)
            stack.extend(cursor.chance_children)
        else:
            stack.extend(cursor.children_by_key.values())


def _decision_children(node: MCTSNode) -> list[MCTSNode]:
    return [*node.children, *(n for ch in node.chance_children for n in ch.children_by_key.values())]


def best_terminal(root: MCTSNode) -> MCTSNode | None:
    """The most-visited goal node of the tree (the first found among equals), or None."""
    best: MCTSNode | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_terminal and (best is None or node.visits > best.visits):
            best = node
        stack.extend(_decision_children(node))
    return best


def robust_descent(root: MCTSNode) -> MCTSNode:
    """Follow the most-visited child (through the most-visited chance node) down to a leaf."""
    cursor = root
    while True:
        if cursor.children:
            cursor = max(cursor.children, key=lambda n: n.visits)
        elif cursor.chance_children:
            chance = max(cursor.chance_children, key=lambda cn: cn.visits)
            if not chance.children_by_key:
                return cursor
            cursor = max(chance.children_by_key.values(), key=lambda n: n.visits)
        else:
            return cursor


def extract_plan(
    root: MCTSNode, *, start: PlanningState, model: TransitionModel, anytime_fallback: bool = False
) -> Plan | None:
    """The plan to the best goal node; without one, the robust partial plan (``anytime_fallback``) or None.

    The cost is recomputed along the expected effects from ``start``.
    """
    leaf = best_terminal(root)
    if leaf is None:
        if not anytime_fallback or not (root.children or root.chance_children):
            return None
        leaf = robust_descent(root)
    steps: list[MCTSNode] = []
    cursor: MCTSNode | ChanceNode | None = leaf
    while cursor is not None and cursor.parent is not None:
        if isinstance(cursor, MCTSNode):
            steps.append(cursor)
        cursor = cursor.parent
    steps.reverse()
    acts = tuple(n.action for n in steps if n.action is not None)
    cost, sim = 0.0, start
    for a in acts:
        cost += a.get_cost(sim.to_dict())
        sim = sim.apply(dict(model.expected(sim.to_dict(), a)))
    return Plan(
        actions=acts,
        expected_states=tuple(n.state for n in steps),
        total_cost=cost,
        metadata=PlanMetadata(),
        score=SimpleScore(scalar=cost),
    )
