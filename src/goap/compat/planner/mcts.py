"""Monte Carlo tree search over LangGOAP actions: :class:`MCTSStrategy`, its configuration and rollouts.

The tree and its phases live in :mod:`goap.compat.planner.mcts_tree`. A rollout returns a reward
in [-1, 1]: 1 when the goal holds, else the strategy's :class:`ScalarHeuristic` clamped below 1,
else ``-(unsatisfied conditions) / (conditions)``. Every random choice draws from one
``random.Random(exploration.seed)`` per call, so a seed replays the same plan.

Why this search is not goap's :class:`~goap.strategies.Mcts`: LangGOAP's tests check the tree
itself (``MCTSNode``, ``ChanceNode``, ``ucb1``, ``backpropagate``, reuse through :meth:`advance`,
chance layers under a stochastic model, path-length budgets), the reward shape above, and that a
seed gives langgoap's own plan (``tests/goap/compat/test_compat_planner_vs_langgoap.py``). goap's
Mcts rewards ``1 + 1 / (1 + cost)``, replays paths open-loop and keeps no tree between calls, so
its plans for a seed differ. The random draws are made in LangGOAP's order here for that reason.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, Unpack, runtime_checkable

from goap.compat._logs import get_logger
from goap.compat._options import check_options
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner import mcts_tree as tree
from goap.compat.planner.mcts_tree import ChanceNode, MCTSNode, backpropagate, ucb1
from goap.compat.planner.strategy import PlanOptions, PlanRequest, StrategyBase
from goap.compat.planner.transitions import DeterministicTransitionModel, TransitionModel
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState

__all__ = [
    "ChanceNode",
    "HeuristicRollout",
    "MCTSExploration",
    "MCTSNode",
    "MCTSReuseConfig",
    "MCTSStrategy",
    "MCTSTracingConfig",
    "RandomRollout",
    "RolloutPolicy",
    "ScalarHeuristic",
    "StochasticRollout",
    "backpropagate",
    "shape_reward",
    "ucb1",
]

logger = get_logger(__name__)


@runtime_checkable
class ScalarHeuristic(Protocol):
    """A state value in [-1, 1], higher nearer the goal (below 1 unless satisfied); need not be admissible."""

    def __call__(self, state: PlanningState, goal: GoalSpec) -> float:
        """The value of ``state`` for ``goal``."""
        ...


_NON_TERMINAL_UPPER = 0.999
"""Highest reward of a state that does not satisfy the goal: 1.0 is kept for goal states."""


def shape_reward(state: PlanningState, goal: GoalSpec, *, heuristic: ScalarHeuristic | None = None) -> float:
    """The reward of a rollout ending in ``state`` (see the module docstring).

    A heuristic that raises is logged and the count shape is used for that call.
    """
    if state.satisfies(goal.conditions):
        return 1.0
    if heuristic is not None:
        try:
            value = float(heuristic(state, goal))
        except Exception:  # a user heuristic must not end the search
            logger.warning("scalar heuristic raised; falling back to default reward shape", exc_info=True)
        else:
            return min(max(value, -1.0), _NON_TERMINAL_UPPER)
    total = len(goal.conditions)
    return 1.0 if total == 0 else -float(tree.unsatisfied(state, goal)) / float(total)


_shape_reward = shape_reward  # LangGOAP's name, which its tests import


@runtime_checkable
class RolloutPolicy(Protocol):
    """Simulates from a state and returns a reward in [-1, 1]."""

    def rollout(self, *, state: PlanningState, goal: GoalSpec, actions: list[ActionSpec]) -> float:
        """The reward of one simulation from ``state``."""
        ...


@dataclass(slots=True)
class RandomRollout:
    """Uniformly random applicable actions for up to ``max_depth`` steps."""

    max_depth: int = 4
    """Most simulated steps."""
    rng: random.Random = field(default_factory=random.Random)
    """The source of the choices (seed it to replay)."""
    scalar_heuristic: ScalarHeuristic | None = None
    """Leaf value below the goal."""

    def rollout(self, *, state: PlanningState, goal: GoalSpec, actions: list[ActionSpec]) -> float:
        """The reward of one random walk."""
        if state.satisfies(goal.conditions):
            return 1.0
        cursor = state
        for _ in range(self.max_depth):
            options = tree.applicable(cursor, actions)
            if not options:
                break
            chosen = self.rng.choice(options)
            cursor = cursor.apply(chosen.get_effects(cursor.to_dict()))
            if cursor.satisfies(goal.conditions):
                return 1.0
        return shape_reward(cursor, goal, heuristic=self.scalar_heuristic)


Effects = Callable[[dict[str, Any], ActionSpec], Mapping[str, Any]]
"""How a rollout sees an action's effects in a state (declared, expected or sampled)."""


def _closest(state: PlanningState, goal: GoalSpec, options: list[ActionSpec], judge: Effects) -> ActionSpec:
    # The state is read once per step; an action only sees its own copy when its effects are a
    # function, which might change what it is given.
    now = state.to_dict()
    wanted = goal.conditions.items()

    def score(a: ActionSpec) -> tuple[int, int]:
        after = dict(now)
        after.update(judge(dict(now) if a.has_dynamic_effects else now, a))
        return (sum(1 for k, v in wanted if after.get(k) != v), -len(a.preconditions))

    return min(options, key=score)


def greedy_walk(
    state: PlanningState,
    goal: GoalSpec,
    actions: list[ActionSpec],
    depth: int,
    judge: Effects,
    move: Effects,
    heuristic: ScalarHeuristic | None,
) -> float:
    """Up to ``depth`` steps, each the option whose ``judge``d successor leaves fewest conditions unmet
    (ties: more preconditions, then the earlier action), taken by ``move``; the reward of the end."""
    cursor = state
    for _ in range(depth):
        if cursor.satisfies(goal.conditions):
            return 1.0
        options = tree.applicable(cursor, actions)
        if not options:
            break
        cursor = cursor.apply(move(cursor.to_dict(), _closest(cursor, goal, options, judge)))
    return shape_reward(cursor, goal, heuristic=heuristic)


def _declared(state: dict[str, Any], action: ActionSpec) -> Mapping[str, Any]:
    return action.get_effects(state)


@dataclass(slots=True)
class HeuristicRollout:
    """Greedy on the count heuristic for up to ``max_depth`` steps (the leaf is valued by ``scalar_heuristic``)."""

    max_depth: int = 4
    """Most simulated steps."""
    scalar_heuristic: ScalarHeuristic | None = None
    """Leaf value below the goal."""

    def rollout(self, *, state: PlanningState, goal: GoalSpec, actions: list[ActionSpec]) -> float:
        """The reward of one greedy walk."""
        return greedy_walk(state, goal, actions, self.max_depth, _declared, _declared, self.scalar_heuristic)


@dataclass(slots=True)
class StochasticRollout:
    """Greedy on the *expected* successor, but moving by ``model.sample`` (the noise enters the simulation)."""

    max_depth: int
    """Most simulated steps."""
    model: TransitionModel
    """The world's dynamics."""
    rng: random.Random = field(default_factory=random.Random)
    """The source of the samples."""
    scalar_heuristic: ScalarHeuristic | None = None
    """Leaf value below the goal."""

    def rollout(self, *, state: PlanningState, goal: GoalSpec, actions: list[ActionSpec]) -> float:
        """The reward of one sampled greedy walk."""
        return greedy_walk(
            state,
            goal,
            actions,
            self.max_depth,
            lambda now, a: self.model.expected(dict(now), a),
            lambda now, a: self.model.sample(now, a, self.rng),
            self.scalar_heuristic,
        )


@dataclass(frozen=True, slots=True)
class MCTSExploration:
    """Budget and exploration: the search stops at ``iterations`` or ``wall_clock_ms`` (0 disables it).

    Raises ValueError on negative values, both budgets 0, or ``c <= 0``.
    """

    iterations: int = 200
    """Most iterations per call."""
    wall_clock_ms: float = 200.0
    """Most milliseconds per call (0: no limit)."""
    c: float = math.sqrt(2)
    """UCB1 exploration constant."""
    rollout_depth: int = 4
    """Steps of the default rollout."""
    seed: int = 0
    """Seed of the call's random source."""

    def __post_init__(self) -> None:
        if self.iterations < 0:
            raise ValueError("iterations must be >= 0")
        if self.wall_clock_ms < 0:
            raise ValueError("wall_clock_ms must be >= 0")
        if self.iterations == 0 and self.wall_clock_ms == 0:
            raise ValueError("at least one of iterations / wall_clock_ms must be > 0")
        if self.c <= 0:
            raise ValueError("UCB1 exploration constant c must be > 0")
        if self.rollout_depth < 0:
            raise ValueError("rollout_depth must be >= 0")


@dataclass(frozen=True, slots=True)
class MCTSReuseConfig:
    """Tree reuse across calls, anytime partial plans, variable-depth selection, determinized trees."""

    reuse_tree: bool = False
    """Keep the subtree of the action played (see :meth:`MCTSStrategy.advance`)."""
    tree_reuse_decay: float = 0.6
    """Factor in [0, 1] on the kept visit counts."""
    anytime_fallback: bool = False
    """Without a goal node, return the most-visited partial plan instead of None."""
    path_length_budget: int | None = None
    """Selection stops where the path's cost reaches this."""
    force_deterministic_tree: bool = False
    """Expand by expected effects even under a stochastic model (determinized UCT)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.tree_reuse_decay <= 1.0:
            raise ValueError("tree_reuse_decay must be in [0, 1]")
        if self.path_length_budget is not None and self.path_length_budget < 0:
            raise ValueError("path_length_budget must be >= 0 or None")


@dataclass(slots=True)
class MCTSTracingConfig:
    """A tracer and whether it sees every expansion (both are needed for ``on_search_expand``)."""

    tracer: Any = None
    """Receives ``on_search_expand`` / ``on_search_complete``."""
    record_expansions: bool = False
    """Send per-expansion events."""


class _Recorder:
    """Collects search events during the synchronous search, for :meth:`MCTSStrategy.aplan` to re-send."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    # The arguments are only stored and re-sent to the tracer's async twin, so they are not named.
    def on_search_expand(self, *args: Any) -> None:
        self.events.append(("aon_search_expand", *args))

    def on_search_complete(self, *args: Any) -> None:
        self.events.append(("aon_search_complete", *args))


class _ExpandEvents:
    """Numbers decision nodes for the tracer and reports each expanded leaf.

    An event reports ``g`` = visits, ``h`` = UCB1, ``f`` = mean value; the parent is the nearest
    decision node above (None under the root, which is not numbered).
    """

    def __init__(self, hook: Any, c: float) -> None:
        self._hook, self._c = hook, c
        self._ids: dict[int, int] = {}

    def emit(self, leaf: MCTSNode) -> None:
        leaf_id = self._ids.setdefault(id(leaf), len(self._ids))
        parent = tree.decision_parent(leaf)
        parent_id = None if parent is None or parent.parent is None else self._ids.get(id(parent))
        h = ucb1(leaf, c=self._c)
        self._hook(
            leaf_id,
            leaf.state,
            float(leaf.visits),
            float(h) if math.isfinite(h) else math.inf,
            float(leaf.value),
            parent_id,
            leaf.action.name if leaf.action is not None else None,
        )


@dataclass(slots=True)
class MCTSStrategy(StrategyBase):
    """Monte Carlo tree search as a planning strategy (select, expand, roll out, back up).

    The default rollout is :class:`HeuristicRollout` under deterministic transitions and
    :class:`StochasticRollout` otherwise; a stochastic model grows chance layers unless
    ``reuse.force_deterministic_tree``. The plan leads to the most-visited goal node.
    """

    exploration: MCTSExploration = field(default_factory=MCTSExploration)
    """Budget and UCB1 settings."""
    reuse: MCTSReuseConfig = field(default_factory=MCTSReuseConfig)
    """Reuse, anytime and depth settings."""
    tracing: MCTSTracingConfig = field(default_factory=MCTSTracingConfig)
    """Observability."""
    rollout_policy: RolloutPolicy | None = None
    """Replaces the default rollout."""
    transition_model: TransitionModel = field(default_factory=DeterministicTransitionModel)
    """The world's dynamics."""
    scalar_heuristic: ScalarHeuristic | None = None
    """Leaf value for the default rollouts."""
    _last_root: MCTSNode | None = None
    """Root of the last tree searched (inspected by tests and tracers)."""
    _carryover_root: MCTSNode | None = None
    """Subtree kept by :meth:`advance` for the next call."""

    def solve(self, request: PlanRequest) -> Plan | None:
        """A plan found by the search, or None (the tree is rebuilt; prior plans are not used)."""
        r = request
        return self._search(r.start, r.goal, r.actions, r.blacklisted_actions, self.tracing.tracer)

    async def aplan(
        self, start: PlanningState, goal: GoalSpec, actions: list[ActionSpec], **options: Unpack[PlanOptions]
    ) -> Plan | None:
        """:meth:`plan`, with the tracer's async hooks (``aon_search_*``) told the events afterwards.

        ``options`` are :meth:`plan`'s keyword arguments; only ``blacklisted_actions`` is used (the
        tree is rebuilt, as in :meth:`solve`).
        """
        check_options("aplan", options, PlanOptions)
        blacklisted_actions = options.get("blacklisted_actions")
        real = self.tracing.tracer
        if real is None or not self.tracing.record_expansions:
            return self.plan(start, goal, actions, blacklisted_actions=blacklisted_actions)
        recorder = _Recorder()  # the search is synchronous; its events are re-sent awaited
        found = self._search(start, goal, actions, blacklisted_actions, recorder)
        for name, *args in recorder.events:
            hook = getattr(real, name, None)
            if hook is not None:
                await hook(*args)
        return found

    def _root(self, start: PlanningState, actions: list[ActionSpec]) -> MCTSNode:
        carried = self._carryover_root
        self._carryover_root = None
        if self.reuse.reuse_tree and carried is not None and carried.state == start:
            return carried
        root = MCTSNode(state=start)
        root.untried_actions = tree.applicable(start, actions)
        return root

    def _search(
        self,
        start: PlanningState,
        goal: GoalSpec,
        actions: list[ActionSpec],
        blacklisted_actions: list[str] | None,
        tracer: Any,
    ) -> Plan | None:
        if start.satisfies(goal.conditions):
            return Plan(
                actions=(),
                expected_states=(),
                total_cost=0.0,
                metadata=PlanMetadata(),
                score=SimpleScore(scalar=0.0),
            )
        black = set(blacklisted_actions or ())
        usable = [a for a in actions if a.name not in black]
        rng = random.Random(self.exploration.seed)
        policy = self.rollout_policy or self._default_rollout(rng)
        root = self._root(start, usable)
        self._last_root = root
        model = self.transition_model
        stochastic = not self.reuse.force_deterministic_tree and not isinstance(
            model, DeterministicTransitionModel
        )
        record = tracer is not None and self.tracing.record_expansions
        hook = getattr(tracer, "on_search_expand", None) if record else None
        events = _ExpandEvents(hook, self.exploration.c) if hook is not None else None
        search = tree.TreeSearch(
            goal, usable, rng, model, self.exploration.c, self.reuse.path_length_budget, stochastic
        )
        t0 = time.monotonic()
        deadline = self.exploration.wall_clock_ms / 1000.0
        done = 0
        for _ in range(self.exploration.iterations):
            if deadline and time.monotonic() - t0 >= deadline:
                break
            leaf = search.expand(search.select(root))
            backpropagate(leaf, reward=policy.rollout(state=leaf.state, goal=goal, actions=usable))
            done += 1
            if events is not None and leaf is not root:
                events.emit(leaf)
        found = tree.extract_plan(
            root, start=start, model=model, anytime_fallback=self.reuse.anytime_fallback
        )
        elapsed = (time.monotonic() - t0) * 1000
        complete = getattr(tracer, "on_search_complete", None) if record else None
        if complete is not None:
            complete(done, elapsed, found is not None)
        if found is None:
            return None
        return Plan(
            actions=found.actions,
            expected_states=found.expected_states,
            total_cost=found.total_cost,
            metadata=PlanMetadata(nodes_explored=done, planning_time_ms=elapsed),
            score=SimpleScore(scalar=found.total_cost),
        )

    def advance(self, action: ActionSpec, observed_state: PlanningState | Mapping[str, Any]) -> None:
        """Keep the subtree reached by ``action`` and ``observed_state`` for the next call, visits decayed.

        No matching child (an unseen outcome): the next call starts a fresh tree.
        """
        root = self._last_root
        if root is None:
            return
        target = (
            observed_state
            if isinstance(observed_state, PlanningState)
            else PlanningState.from_dict(dict(observed_state))
        )

        def same(a: ActionSpec | None) -> bool:
            return a is not None and (a is action or a.name == action.name)

        key = tree.state_key(target)
        kept = next(
            (
                n
                for ch in root.chance_children
                if same(ch.action) and (n := ch.children_by_key.get(key)) is not None
            ),
            None,
        )
        if kept is None:
            kept = next((n for n in root.children if same(n.action) and n.state == target), None)
        if kept is None:
            self._carryover_root = None
            return
        kept.parent = None
        tree.decay(kept, self.reuse.tree_reuse_decay)
        self._carryover_root = kept

    def _default_rollout(self, rng: random.Random) -> RolloutPolicy:
        depth, heuristic = self.exploration.rollout_depth, self.scalar_heuristic
        if isinstance(self.transition_model, DeterministicTransitionModel):
            return HeuristicRollout(max_depth=depth, scalar_heuristic=heuristic)
        return StochasticRollout(
            max_depth=depth, model=self.transition_model, rng=rng, scalar_heuristic=heuristic
        )
