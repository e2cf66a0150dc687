"""LangGOAP-shaped nodes running goap.runtime's nodes on views of LangGOAP's dict state."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import dataclasses
import inspect
import re
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import goap.planning as gp
from goap.compat import _convert as cv
from goap.compat.goals import MultiGoal
from goap.compat.graph.state import ActionResult
from goap.compat.planner.transitions import to_goap_model
from goap.compat.planner.utility import is_nirvana
from goap.compat.state import PlanningState
from goap.runtime import ActionOutcome, GoapGraph
from goap.runtime import GoapState as RtState

# What one node call is about (its own per task, so concurrent runs of one graph stay apart).
_call: ContextVar[dict[str, Any]] = ContextVar("goap_compat_call")
_CALL = {"sync", "replanning", "tracer_goal", "current", "world", "rich", "prior", "planned"}
_ATTEMPTED = "\x1fcompat#attempted"  # the world a refused action produced (for its history entry)
_REASONS = {"action_failed", "state_deviation", "every_action_replan", "plan_exhausted", "subgoal_achieved"}
_ABSENT = "\x1fcompat#absent"
_EXC = re.compile(r"^[A-Za-z_][\w.]*: ")


def run_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion from sync code (in a worker thread when a loop is running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # LangGraph's context goes along
        return pool.submit(contextvars.copy_context().run, asyncio.run, coro).result()


class Node:
    """LangGOAP's node conventions: ``node(state)`` runs sync hooks, ``await node.acall(state)`` async ones."""

    def __call__(self, state: dict[str, Any]) -> Any:
        """Run the node (sync)."""
        return run_sync(self._go(state, True))

    async def acall(self, state: dict[str, Any]) -> Any:
        """Run the node (async)."""
        return await self._go(state, False)

    async def _go(self, state: dict[str, Any], sync: bool) -> Any:
        raise NotImplementedError


def split(world: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``world`` as goap's encoded facts and the unhashable rest."""
    facts, rich = dict[str, Any](), dict[str, Any]()
    for k, v in world.items():
        try:
            facts[k] = cv.encode_value(v)
        except TypeError:  # unhashable
            rich[k] = v
    return facts, rich


def _finish(a: Any, before: dict[str, Any], full: dict[str, Any], out: Any, rich: dict[str, Any]) -> Any:
    got = dict(out) if isinstance(out, Mapping) else None
    if full != before:  # execute changed its world in place: LangGOAP keeps that
        got = {**full, **(got if got is not None else a.get_effects(full))}
    if a.effect_validator is not None:
        after = {**before, **(got if got is not None else a.get_effects(before))}
        if not a.validate_effects(dict(before), after):
            rich[_ATTEMPTED] = after
            raise RuntimeError("Effect validation failed")
    if got is None:
        return None
    facts, more = split(got)
    rich.update(more)
    return facts


def _execute(a: Any) -> Any:
    def run(world: Mapping[str, Any], **_: Any) -> Any:
        call = _call.get({"sync": False, "rich": {}})
        fn = a.execute if call["sync"] else a.aexecute or a.execute
        if fn is None and a.aexecute is not None:
            raise RuntimeError(f"action {a.name!r} has an async-only execute; run the graph with ainvoke()")
        rich = call["rich"]
        full = {**cv.decode_state(world), **(rich or {})}
        before = dict(full)
        out = fn(full) if fn is not None else None
        if inspect.isawaitable(out):

            async def later() -> Any:
                return _finish(a, before, full, await out, rich)

            return later()
        return _finish(a, before, full, out, rich)

    return run


def _runtime_action(a: Any) -> gp.ActionSpec:
    base = cv.goap_actions([a])[0]
    if a.qos is None and a.max_retries:
        # LangGOAP's max_retries is failures tolerated across replans, not retries in place.
        qos = None if base.qos is None else dataclasses.replace(base.qos, attempts=1)
        base = dataclasses.replace(base, max_retries=0, qos=qos)
    if a.execute is None and a.aexecute is None and a.effect_validator is None:
        return base
    return dataclasses.replace(base, execute=_execute(a))


def active_goal(goal: Any, index: int) -> Any:
    """The GoalSpec pursued now (a MultiGoal's current sub-goal)."""
    if isinstance(goal, MultiGoal):
        return goal.goals[min(index, len(goal.goals) - 1)]
    return goal


def policy_of(goal: Any) -> tuple[str, int]:
    """The goal's replan strategy (its value) and replan budget."""
    pol = getattr(goal, "policy", None)
    if pol is None:
        return "on_deviation", 10
    return str(getattr(pol.replan_strategy, "value", pol.replan_strategy)), int(pol.max_replans)


def planning_keys(actions: Iterable[Any], goal: Any) -> set[str]:
    """Keys of the actions' preconditions and effects and of the goal's conditions."""
    keys = set(getattr(goal, "conditions", {}) or {})
    for a in actions:
        keys |= set(a.preconditions) | set(a.effect_key_set())
    return keys


class TracerView:
    """A LangGOAP tracer as goap's: its hooks get LangGOAP's goal, plan, action, world and update."""

    def __init__(self, tracer: Any, bridge: Bridge) -> None:
        self.tracer, self.bridge = tracer, bridge

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("aon_"):
            return getattr(self.tracer, name)

        async def fire(*args: Any) -> None:
            await self._fire(name[4:], *args)

        return fire

    async def _fire(self, hook: str, *args: Any) -> None:
        fn = None if self.bridge.sync else getattr(self.tracer, f"aon_{hook}", None)
        out = fn(*args) if fn is not None else getattr(self.tracer, f"on_{hook}", lambda *a: None)(*args)
        if inspect.isawaitable(out):
            await out

    def _plan(self, plan: Any) -> Any:
        b = self.bridge
        return make_plan([a.name for a in plan.actions], b.current, b.world, b.tracer_goal)

    async def aon_plan_start(self, goal: Any, world: Any, strategy: str) -> None:
        """``plan_start`` with LangGOAP's goal and strategy name."""
        b, g = self.bridge, self.bridge.tracer_goal
        csp = getattr(g, "constraints", None) or getattr(g, "objectives", None) is not None
        await self._fire(
            "plan_start", g, b.world, b.strategy_name or ("TwoPhasePipeline" if csp else "AStar")
        )

    async def aon_plan_complete(self, plan: Any, ms: float) -> None:
        """``plan_complete`` of a first plan (a replan fires ``replan`` only, as LangGOAP)."""
        if not self.bridge.replanning:
            await self._fire("plan_complete", self._plan(plan), ms)

    async def aon_replan(self, reason: str, plan: Any) -> None:
        """``replan`` with LangGOAP's plan."""
        await self._fire("replan", reason, self._plan(plan))

    async def aon_action_start(self, action: Any, world: Any) -> None:
        """``action_start`` with LangGOAP's action."""
        await self._fire("action_start", self.bridge.action(action.name), self.bridge.world)

    async def aon_action_complete(self, o: Any) -> None:
        """``action_complete`` with LangGOAP's executor update."""
        b = self.bridge
        up: dict[str, Any] = {"execution_history": results([o], b.world, b.world, dict(b.rich))}
        await self._fire("action_complete", up if o.success else {**up, "status": "action_failed"})

    async def aon_action_retry(self, action: Any, attempt: int, exc: Any, ms: float) -> None:
        """``action_retry`` with LangGOAP's action and the action's own exception."""
        cause = getattr(exc.__cause__, "__cause__", None) or exc.__cause__ or exc
        await self._fire("action_retry", self.bridge.action(action.name), attempt, cause, round(ms, 9))

    async def aon_goal_achieved(self, world: Any) -> None:
        """``goal_achieved`` with LangGOAP's world."""
        await self._fire("goal_achieved", world_out(world, self.bridge.rich))


class StrategyView(cv.LangGoapStrategy):
    """A LangGOAP strategy planning on the current node call's actions, world and prior plan."""

    def __init__(self, strategy: Any, bridge: Bridge) -> None:
        super().__init__(strategy)
        self.bridge = bridge

    def _inputs(self, initial: Any, goal: Any, actions: Any) -> Any:
        b = self.bridge
        start = PlanningState.from_dict(world_out(initial, b.rich), keys=planning_keys(b.current, goal))
        hints = {} if b.prior is None else {"prior_plan": b.prior[0], "current_step": b.prior[1]}
        return list(b.current), start, hints

    def _keep(self, plan: Any) -> None:
        self.bridge.planned = plan


class Bridge:
    """The goap.runtime graphs one LangGOAP-shaped node runs on (one per goal policy and action set)."""

    def __init__(
        self, *, tracer: Any = None, strategy: Any = None, record_expansions: bool = False, **options: Any
    ) -> None:
        from goap.compat.guards import as_goap_guards
        from goap.compat.sensors import as_goap_sensors
        from goap.compat.stuck import as_goap_stuck_handlers
        from goap.compat.termination import as_goap_termination

        # LangGOAP's planning (its strategy, else its default: A* in its order, CSP when asked).
        default = cv.to_goap_strategy(None, tracer=tracer, record_expansions=record_expansions).inner
        if tracer is not None and not type(tracer).__module__.startswith("goap."):
            tracer = TracerView(tracer, self)
        self.model = options.pop("transition_model", None)
        policies = {"guards": as_goap_guards, "sensors": as_goap_sensors, "termination": as_goap_termination}
        policies["stuck_handlers"] = as_goap_stuck_handlers
        self.options = {k: v for k, v in options.items() if v is not None and k not in policies}
        self.options |= {k: convert(options.get(k)) for k, convert in policies.items()}
        self.options.update(strategy=StrategyView(strategy or default, self), tracer=tracer)
        self.strategy_name = None if strategy is None else type(strategy).__name__
        self._graphs: dict[tuple[Any, ...], GoapGraph] = {}
        self._goals: dict[int, tuple[Any, Any]] = {}

    def begin(self, sync: bool) -> None:
        """Start a node call (``sync``: sync tracer hooks and ``execute``, else the async ones)."""
        _call.set(
            dict.fromkeys(_CALL) | {"sync": sync, "replanning": False, "current": [], "world": {}, "rich": {}}
        )

    def _here(self) -> dict[str, Any]:
        if _call.get(None) is None:  # outside a node call (a run of GoapGraph.engine())
            self.begin(False)
        return _call.get()

    def __getattr__(self, name: str) -> Any:
        if name not in _CALL:
            raise AttributeError(name)
        return self._here()[name]

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _CALL:
            self._here()[name] = value
        else:
            object.__setattr__(self, name, value)

    def action(self, name: str) -> Any:
        """The LangGOAP action named ``name`` in the current call."""
        return next((a for a in self.current if a.name == name), None)

    def graph(self, goal: Any, actions: Sequence[Any], whole: Any = None) -> GoapGraph:
        """The goap graph for ``actions`` under ``goal``'s replan policy (``whole``: the MultiGoal)."""
        strategy, budget = policy_of(goal)
        self.current = list(actions)
        best = whole if getattr(whole, "mode", None) == "best_value" else None
        key = (strategy, budget, id(best), *map(id, actions))
        g = self._graphs.get(key)
        if g is None:
            model = None if self.model is None else to_goap_model(self.model, actions)
            loop: dict[str, Any] = {
                "blacklist_after": 1,
                "blacklist_fallback": True,
                "skip_unreachable": True,
            }
            loop |= {"replan_every_action": strategy == "every_action", "never_replan": strategy == "never"}
            loop |= {"max_replans": budget or 10**9, "transition_model": model, **self.options}
            loop["any_rank"] = None if best is None else self._ranker(best)
            g = GoapGraph([_runtime_action(a) for a in actions], **loop)
            if len(self._graphs) > 64:
                self._graphs.clear()
            self._graphs[key] = g
        return g

    def _ranker(self, goal: Any) -> Any:
        def rank(i: int, r: Any) -> tuple[float, float]:  # the best value minus cost, then the cheaper
            v = goal.goals[i].value
            return r.plan.cost - float(v(self.world) if callable(v) else v), r.plan.cost

        return rank

    def goal(self, goal: Any) -> Any:
        """goap's goal for a LangGOAP GoalSpec or MultiGoal (converted once per object)."""
        hit = self._goals.get(id(goal))
        if hit is not None and hit[0] is goal:
            return hit[1]
        if isinstance(goal, MultiGoal):
            legs = tuple(self.goal(g) for g in goal.goals)
            out: Any = gp.MultiGoal(legs, mode="sequential" if goal.mode == "sequential" else "any")
        elif is_nirvana(goal):  # never satisfied: the run goes on while the strategy finds actions
            out = cv._remember(gp.GoalSpec({_ABSENT: True}), goal)
        else:
            out = cv.to_goap_goal(goal)
        if len(self._goals) > 256:  # goals come and go with runs: keep the cache small
            self._goals.clear()
        self._goals[id(goal)] = (goal, out)
        return out

    def view(self, d: Mapping[str, Any], actions: Sequence[Any], *, observe: bool = False) -> RtState:
        """goap's state for LangGOAP's dict state ``d``."""
        facts, self.rich = split(d.get("world_state") or {})
        plan = d.get("plan")
        names = [a.name for a in plan.actions] if plan is not None else []
        index = int(d.get("current_subgoal_index", 0) or 0)
        done = [(r.action_name, r.success, r.error) for r in d.get("execution_history") or ()]
        hist = [ActionOutcome(action=n, success=ok, error=e, executed=ok, subgoal=index) for n, ok, e in done]
        if observe and d.get("status") == "action_failed" and not (hist and not hist[-1].success):
            hist.append(ActionOutcome(action="<unknown>", success=False, executed=False))
        step = int(d.get("current_step", 0) or 0)
        expected = None
        goal = d.get("goal")
        if observe and plan is not None and 0 < step <= len(plan.expected_states):
            sub = active_goal(goal, index)
            if policy_of(sub)[0] == "on_deviation":
                exp = plan.expected_states[step - 1].to_dict()
                expected = {
                    k: cv.encode_value(exp[k]) if k in exp else _ABSENT
                    for k in planning_keys(actions, sub)
                    if k in exp or k in facts
                }
        run: dict[str, Any] = {"world_state": facts, "plan": names, "current_step": step}
        run |= {"execution_history": hist, "current_subgoal_index": index, "expected_world_state": expected}
        run |= {"plans_made": int(plan is not None), "wall_clock_started_at": d.get("wall_clock_started_at")}
        run["goal"] = self.goal(goal) if goal is not None else None
        run["plan_cost"] = float(plan.total_cost) if plan is not None else 0.0
        run["replan_count"] = int(d.get("replan_count", 0) or 0)
        run["replan_reason"] = why if (why := d.get("replan_reason")) in _REASONS else None
        run["blacklisted_actions"] = list(d.get("blacklisted_actions") or ())
        run["action_failure_counts"] = dict(d.get("action_failure_counts") or {})
        return RtState.model_construct(**run)

    async def step(self, g: GoapGraph, node: str, s: RtState, **kw: Any) -> tuple[RtState, Any]:
        """Run goap node ``node`` on ``s`` (the last :meth:`view`); the state after it and its route."""
        self.world = world_out(s.world_state, self.rich)
        res = await g.step(node, s, **kw)
        after = g.engine.runtime().reducer(s, res.delta) if res.delta is not None else s
        return after, res.route


def world_out(facts: Mapping[str, Any], rich: dict[str, Any]) -> dict[str, Any]:
    """LangGOAP's world state from goap's facts and the unhashable rest."""
    return {**cv.decode_state(facts), **{k: v for k, v in rich.items() if k != _ATTEMPTED}}


def results(
    new: Sequence[ActionOutcome], before: dict[str, Any], after: dict[str, Any], rich: dict[str, Any]
) -> list[ActionResult]:
    """LangGOAP's history entries for goap's outcomes (a refused action's entry shows what it did)."""
    tried = rich.pop(_ATTEMPTED, before)
    errors = [None if o.error is None else _EXC.sub("", o.error, count=1) for o in new]
    return [
        ActionResult(o.action, o.success, dict(before), dict(after if o.success else tried), e)
        for o, e in zip(new, errors, strict=True)
    ]


def make_plan(names: Sequence[str], actions: Sequence[Any], world: Mapping[str, Any], goal: Any) -> Any:
    """LangGOAP's Plan of ``names``, its expected states from ``world`` on the planning keys."""
    by_name = {a.name: a for a in actions}
    acts = [by_name[n] for n in names]
    start = PlanningState.from_dict(world, keys=planning_keys(actions, goal))
    return cv.to_plan(acts, start)
