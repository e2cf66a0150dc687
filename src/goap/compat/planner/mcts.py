"""LangGOAP's MCTS strategy over goap's Mcts (events: g = visits, h = UCB1, f = mean)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol, runtime_checkable

from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.transitions import DeterministicTransitionModel, is_deterministic, to_goap_model
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState, Start
from goap.strategies import Mcts, MctsChance, MctsNode, shaped_reward, walk_rollout

__all__ = ["ChanceNode", "HeuristicRollout", "MCTSExploration", "MCTSNode", "MCTSReuseConfig", "MCTSStrategy"]
__all__ += ["MCTSTracingConfig", "RandomRollout", "RolloutPolicy", "ScalarHeuristic", "StochasticRollout"]


@runtime_checkable
class ScalarHeuristic(Protocol):
    """How promising a state is, in [-1, 1) (1 is kept for states meeting the goal)."""

    def __call__(self, state: PlanningState, goal: GoalSpec) -> float:
        """The value of ``state`` for ``goal``."""


@runtime_checkable
class RolloutPolicy(Protocol):
    """Simulates from a leaf's state and returns its reward."""

    def rollout(self, *, state: PlanningState, goal: GoalSpec, actions: list[ActionSpec]) -> float:
        """The reward of one simulation from ``state``."""


def _value(goal: GoalSpec, heuristic: ScalarHeuristic | None) -> Callable[[Mapping[str, Any]], float] | None:
    if heuristic is None:
        return None
    return lambda s: heuristic(PlanningState.from_dict(cv.decode_state(s)), goal)


def _shape_reward(state: PlanningState, goal: GoalSpec, *, heuristic: ScalarHeuristic | None = None) -> float:
    """goap's shaped reward of ``state`` (1 at the goal, else the heuristic or the unmet share)."""
    return shaped_reward(cv.encode_state(state), cv.to_goap_goal(goal), _value(goal, heuristic))


class _Walk:
    """goap's :func:`goap.strategies.walk_rollout` on a LangGOAP rollout policy's fields."""

    __slots__ = ()
    greedy = True

    def rollout(self, *, state: PlanningState, goal: GoalSpec, actions: list[ActionSpec]) -> float:
        """The reward after one walk from ``state``."""
        p: Any = self
        model = None if getattr(p, "model", None) is None else to_goap_model(p.model, actions)
        value = _value(goal, p.scalar_heuristic)
        g, acts = cv.to_goap_goal(goal), cv.goap_actions(actions)
        walk = walk_rollout(g, acts, model=model, depth=p.max_depth, greedy=self.greedy, value=value)
        return walk(cv.encode_state(state), getattr(p, "rng", None) or Random())


@dataclass(slots=True)
class RandomRollout(_Walk):
    """Uniformly random applicable actions, declared effects."""

    greedy = False
    max_depth: int = 4
    rng: Random = field(default_factory=Random)
    scalar_heuristic: ScalarHeuristic | None = None


@dataclass(slots=True)
class HeuristicRollout(_Walk):
    """Greedy on the declared effects."""

    max_depth: int = 4
    scalar_heuristic: ScalarHeuristic | None = None


@dataclass(slots=True)
class StochasticRollout(_Walk):
    """Greedy on the model's expected effects, moving by its sampled ones."""

    max_depth: int
    model: Any
    rng: Random = field(default_factory=Random)
    scalar_heuristic: ScalarHeuristic | None = None


@dataclass(slots=True, frozen=True)
class MCTSExploration:
    """Budgets (iterations, wall clock in ms; 0 disables it) and UCB1/rollout settings."""

    iterations: int = 200
    wall_clock_ms: float = 200.0
    c: float = math.sqrt(2)  # UCB1 exploration
    rollout_depth: int = 4
    seed: int = 0  # of the tree's rng

    def __post_init__(self) -> None:
        for name in ("iterations", "wall_clock_ms", "rollout_depth"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.iterations == 0 and self.wall_clock_ms == 0:
            raise ValueError("a budget is needed: at least one of iterations / wall_clock_ms must be > 0")
        if not self.c > 0:
            raise ValueError(f"the UCB1 constant c must be > 0, got {self.c}")


@dataclass(slots=True, frozen=True)
class MCTSReuseConfig:
    """Tree reuse (with visit decay), anytime partial plans, a path-cost budget, a determinized tree."""

    reuse_tree: bool = False
    tree_reuse_decay: float = 0.6
    anytime_fallback: bool = False  # partial plan without a goal node
    path_length_budget: int | None = None
    force_deterministic_tree: bool = False  # no chance nodes

    def __post_init__(self) -> None:
        if not 0.0 <= self.tree_reuse_decay <= 1.0:
            raise ValueError(f"tree_reuse_decay must lie in [0, 1], got {self.tree_reuse_decay}")
        if self.path_length_budget is not None and self.path_length_budget < 0:
            raise ValueError(f"path_length_budget must be None or >= 0, got {self.path_length_budget}")


@dataclass(slots=True)
class MCTSTracingConfig:
    """A tracer and whether search events go to it."""

    tracer: Any = None
    record_expansions: bool = False


class _Views:
    """One view object per goap tree node, so views compare by identity across calls."""

    def __init__(self) -> None:
        self.by_name: dict[str, ActionSpec] = {}
        self.seen: dict[int, Any] = {}

    def of(self, node: MctsNode | MctsChance | None) -> Any:
        if node is not None and id(node) not in self.seen:
            self.seen[id(node)] = (MCTSNode if isinstance(node, MctsNode) else ChanceNode)(self, node)
        return None if node is None else self.seen[id(node)]


class MCTSNode:
    """Read-only view of a goap decision node."""

    def __init__(self, views: _Views, node: MctsNode) -> None:
        self._v, self._n = views, node

    state = property(lambda self: PlanningState.from_dict(cv.decode_state(self._n.state)), doc="The state.")
    parent = property(lambda self: self._v.of(self._n.parent), doc="The node above.")
    action = property(lambda self: self._v.by_name.get(getattr(self._n.action, "name", "")), doc="Edge in.")
    children = property(lambda self: [self._v.of(c) for c in self._n.children], doc="Expected children.")
    chance_children = property(lambda self: [self._v.of(c) for c in self._n.chances], doc="Chance children.")
    visits = property(lambda self: self._n.visits, doc="Visits.")
    value = property(lambda self: self._n.mean, doc="Mean reward.")
    is_terminal = property(lambda self: self._n.terminal, doc="Whether the goal holds.")
    depth = property(lambda self: self._n.depth, doc="Actions from the root.")


class ChanceNode:
    """Read-only view of a goap chance node."""

    def __init__(self, views: _Views, node: MctsChance) -> None:
        self._v, self._n = views, node

    action = property(lambda self: self._v.by_name.get(self._n.action.name), doc="The action tried.")
    parent = property(lambda self: self._v.of(self._n.parent), doc="Where it was tried.")
    children_by_key = property(
        lambda self: {k: self._v.of(n) for k, n in self._n.outcomes.items()}, doc="Outcomes."
    )
    visits = property(lambda self: self._n.visits, doc="Visits.")
    value = property(lambda self: self._n.mean, doc="Mean reward.")


@dataclass
class MCTSStrategy:
    """LangGOAP's MCTS planning strategy, searched by :class:`goap.strategies.Mcts`."""

    exploration: MCTSExploration = field(default_factory=MCTSExploration)
    reuse: MCTSReuseConfig = field(default_factory=MCTSReuseConfig)
    tracing: MCTSTracingConfig = field(default_factory=MCTSTracingConfig)
    rollout_policy: RolloutPolicy | None = None
    transition_model: Any = field(default_factory=DeterministicTransitionModel)
    scalar_heuristic: ScalarHeuristic | None = None
    _last_root: MCTSNode | None = field(default=None, repr=False)
    _carryover_root: MCTSNode | None = field(default=None, repr=False)
    _views: _Views = field(default_factory=_Views, repr=False)

    def plan(self, start: Start, goal: GoalSpec, actions: Sequence[ActionSpec], **hints: Any) -> Plan | None:
        """The best-supported plan found within the budget, or None."""
        tracer, events = self._tracer()
        result = self._search(start, goal, actions, hints.get("blacklisted_actions"), events)
        for kind, *args in events or ():
            getattr(tracer, f"on_search_{kind}", lambda *a: None)(*args)
        return result

    async def aplan(
        self, start: Start, goal: GoalSpec, actions: Sequence[ActionSpec], **hints: Any
    ) -> Plan | None:
        """:meth:`plan`, sending the search events to the tracer's async hooks."""
        tracer, events = self._tracer()
        result = self._search(start, goal, actions, hints.get("blacklisted_actions"), events)
        for kind, *args in events or ():
            if (hook := getattr(tracer, f"aon_search_{kind}", None)) is not None:
                await hook(*args)
        return result

    def _tracer(self) -> tuple[Any, list[tuple[Any, ...]] | None]:
        tracer = self.tracing.tracer if self.tracing.record_expansions else None
        return tracer, None if tracer is None else []

    def advance(self, action: ActionSpec, observed_state: PlanningState | Mapping[str, Any]) -> None:
        """Keep the subtree of ``action`` leading to ``observed_state`` (visits decayed) as the next root."""
        self._carryover_root = None
        if self._last_root is None:
            return
        seen = observed_state.to_dict() if isinstance(observed_state, PlanningState) else dict(observed_state)
        node = self._last_root._n.successor(action.name, cv.encode_map(seen))
        if node is not None:
            self._carryover_root = self._views.of(node.detach(self.reuse.tree_reuse_decay))

    def _rollout(self, goal: GoalSpec, usable: list[ActionSpec], model: Any, acts: Any) -> Any:
        """The rollout hook: the policy's over LangGOAP states, else goap's greedy walk."""
        policy, depth = self.rollout_policy, self.exploration.rollout_depth
        if policy is None:
            h = _value(goal, self.scalar_heuristic)
            return walk_rollout(cv.to_goap_goal(goal), acts, model=model, depth=depth, value=h)
        lg = PlanningState.from_dict
        return lambda s, _: policy.rollout(state=lg(cv.decode_state(s)), goal=goal, actions=usable)

    def _search(
        self,
        start: PlanningState | Mapping[str, Any],
        goal: GoalSpec,
        actions: Sequence[ActionSpec],
        blacklisted: Iterable[str] | None,
        events: list[tuple[Any, ...]] | None,
    ) -> Plan | None:
        st = start if isinstance(start, PlanningState) else PlanningState.from_dict(start)
        if st.satisfies(goal.conditions):
            return Plan.empty()
        t0 = time.monotonic()
        black = set(blacklisted or ())
        usable = [a for a in actions if a.name not in black]
        ex, ru = self.exploration, self.reuse
        carried = self._carryover_root._n if ru.reuse_tree and self._carryover_root is not None else None
        self._carryover_root = None
        if carried is None:
            self._views = _Views()
        self._views.by_name.update((a.name, a) for a in usable)
        ids: dict[int, int] = {}
        emit = None if events is None else lambda *e: events.append(e)

        def traced(leaf: MctsNode) -> None:
            if emit is None or leaf.parent is None:
                return
            up = leaf.parent.parent if isinstance(leaf.parent, MctsChance) else leaf.parent
            parent_id = None if up is None or up.parent is None else ids.get(id(up))
            node_id = ids.setdefault(id(leaf), len(ids))
            name = leaf.action.name if leaf.action is not None else None
            stats = (float(leaf.visits), leaf.ucb(ex.c), leaf.mean)
            emit("expand", node_id, self._views.of(leaf).state, *stats, parent_id, name)

        mcts = Mcts(
            transition_model=(model := to_goap_model(self.transition_model, usable)),
            iterations=max(1, ex.iterations),
            max_depth=1_000_000,
            exploration=ex.c,
            seed=ex.seed,
            timeout=ex.wall_clock_ms / 1000.0 if ex.wall_clock_ms else None,
            chance_nodes=not ru.force_deterministic_tree and not is_deterministic(self.transition_model),
            rollout=self._rollout(goal, usable, model, acts := cv.goap_actions(usable)),
            max_path_cost=ru.path_length_budget,
            partial=ru.anytime_fallback,
            on_iteration=traced,
            precheck=False,
            pick="visits",
        )
        res, root = mcts.search(cv.encode_state(st), cv.to_goap_goal(goal), acts, root=carried)
        self._last_root = self._views.of(root)
        ms = (time.monotonic() - t0) * 1000.0
        if emit is not None:
            emit("complete", res.stats.expanded, ms, res.plan is not None)
        if res.plan is None:
            return None
        states, total, now, lg = [], 0.0, st, self.transition_model or DeterministicTransitionModel()
        for a in (steps := [self._views.by_name[a.name] for a in res.plan.actions]):
            total += a.get_cost(now.to_dict())
            now = now.apply(dict(lg.expected(now.to_dict(), a)))
            states.append(now)
        meta = PlanMetadata(nodes_explored=res.stats.expanded, planning_time_ms=ms)
        return Plan(tuple(steps), tuple(states), total, meta, SimpleScore(scalar=total))
