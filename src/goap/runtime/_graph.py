"""`GoapGraph`: a GOAP agent as an ordinary `Engine[GoapState]` (planner -> executor -> observer)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from goap.planning import (
    ActionRetry,
    ActionSpec,
    DefaultStrategy,
    GoalSpec,
    ModelError,
    MultiGoal,
    PlanningStrategy,
    TransitionModel,
    check_problem,
    qos_of,
)
from goap.runtime._config import GoapConfig, solve, spent_single_use
from goap.runtime._executor import Executor
from goap.runtime._lineage import PlanDivergence, PlanVersion, plan_history
from goap.runtime._nodes import ApprovalStep, Planner
from goap.runtime._observer import Observer
from goap.runtime._otel import GoapTelemetry
from goap.runtime._reflexion import ReflexionTracer
from goap.runtime._sensors import as_sensor
from goap.runtime._state import GoapState
from goap.runtime._tracing import MultiTracer, NullTracer
from graphengine import Engine, NodeResult, Options, ReplayReport
from graphengine.emit import Emitter
from graphengine.store import Store

__all__ = ["GoapGraph", "GoapReplayReport"]


@dataclass(frozen=True, slots=True)
class GoapReplayReport:
    """`GoapGraph.replay(run_id, replan=True)`: the engine's replay and the plans planned again."""

    engine: ReplayReport
    """The engine's step-by-step replay (recorded plans served)."""
    plans: tuple[PlanDivergence, ...]
    """Planning rounds whose plan differs when planned now (both plans in each)."""
    replanned: int
    """Planning rounds planned again."""

    @property
    def ok(self) -> bool:
        """True when the steps replay and every plan is planned the same way again."""
        return self.engine.ok and not self.plans

    def __str__(self) -> str:
        lines = [str(self.engine)]
        if self.plans:
            lines.append(
                f"planning now gives a different plan in {len(self.plans)} of {self.replanned} rounds:"
            )
            lines += [f"  {d}" for d in self.plans]
        else:
            lines.append(f"{self.replanned} planning rounds planned again: same plans")
        return "\n".join(lines)


def _reflexion_in(tracer: Any) -> ReflexionTracer | None:
    """The `ReflexionTracer` ``tracer`` is, or the first one a `MultiTracer` holds (nested ones too)."""
    if isinstance(tracer, ReflexionTracer):
        return tracer
    for t in tracer.tracers if isinstance(tracer, MultiTracer) else ():
        found = _reflexion_in(t)
        if found is not None:
            return found
    return None


class GoapGraph:
    """Builds the GOAP engine: nodes `planner`, `executor`, `observer` (and `approval`) over `GoapState`.

        graph = GoapGraph(actions, max_replans=3, store=SQLiteStore("runs.db"))
        final = await graph.run("deploy-42", world_state={...}, goal=GoalSpec({...}))

    `graph.engine` is the underlying `Engine[GoapState]`: resume, replay, fork, history,
    emitters and every other engine feature apply to GOAP runs unchanged. Terminal statuses
    are explicit in `final.status`: achieved, no_plan, max_replans_exceeded, budget_exhausted,
    failed, terminated (the policy is in `final.termination`).

    Policies: ``guards`` (run around every action, before each action's own), ``sensors``
    (read before each planning round and observation), ``stuck_handlers`` (asked when no plan
    exists or the replan budget is spent), ``termination`` (a `TerminationPolicy`), and
    ``reflexion`` (a `ReflexionTracer`; a tracer that is one, or a `MultiTracer` holding one, is
    used as one). Actions with ``approval=`` add an ``approval`` node the engine pauses before; actions whose QoS allows
    retries give the executor node engine retries (see `goap.planning._qos`).

    Replanning knobs (see `GoapConfig`): ``replan_every_action``, ``never_replan`` (a failure or a
    spent plan ends the run ``failed``), ``blacklist_after`` and ``blacklist_fallback``,
    ``skip_unreachable`` (sequential MultiGoals), ``any_rank`` (how an "any" MultiGoal picks).
    `step` runs one node outside a run, for adapters that drive the loop from another runtime.
    """

    def __init__(
        self,
        actions: Iterable[ActionSpec],
        *,
        max_replans: int | None = 3,
        store: Store | None = None,
        emitter: Emitter | None = None,
        strategy: PlanningStrategy | None = None,
        transition_model: TransitionModel | None = None,
        replan_every_action: bool = False,
        never_replan: bool = False,
        blacklist_after: int = 2,
        blacklist_fallback: bool = False,
        any_rank: Any = None,
        skip_unreachable: bool = False,
        time_budget: float | None = None,
        seed: int = 0,
        parallel: bool = False,
        tracer: Any = None,
        options: Options | None = None,
        guards: Sequence[Any] = (),
        sensors: Sequence[Any] = (),
        stuck_handlers: Sequence[Any] = (),
        termination: Any = None,
        reflexion: ReflexionTracer | None = None,
        max_stuck_resolutions: int = 3,
    ) -> None:
        acts = list(actions)
        by_name: dict[str, ActionSpec] = {}
        for a in acts:
            if a.name in by_name:
                raise ModelError(f"two actions are named {a.name!r}")
            by_name[a.name] = a
        for g in guards:
            if not (hasattr(g, "check") and hasattr(g, "name")):
                raise ModelError(f"guard {g!r} has no name and check (see goap.Guard)")
        if reflexion is None:
            reflexion = _reflexion_in(tracer)
        self.config = GoapConfig(
            actions=by_name,
            strategy=strategy or DefaultStrategy(),
            max_replans=max_replans,
            replan_every_action=replan_every_action,
            never_replan=never_replan,
            blacklist_after=blacklist_after,
            blacklist_fallback=blacklist_fallback,
            any_rank=any_rank,
            skip_unreachable=skip_unreachable,
            time_budget=time_budget,
            transition_model=transition_model,
            seed=seed,
            parallel=parallel,
            tracer=tracer if tracer is not None else NullTracer(),
            guards=tuple(guards),
            sensors=tuple(as_sensor(s) for s in sensors),
            stuck_handlers=tuple(stuck_handlers),
            termination=termination,
            reflexion=reflexion,
            max_stuck_resolutions=max_stuck_resolutions,
            telemetry=GoapTelemetry(getattr(emitter, "tracer", None) if _is_otel(emitter) else None),
        )
        """The settings the nodes share."""
        opts = options or Options(max_steps=10_000)
        self.engine: Engine[GoapState] = Engine(GoapState, store=store, emitter=emitter, options=opts)
        """The engine running GOAP runs."""
        self.engine.add("planner", Planner(self.config))
        retries = max((qos_of(a).attempts for a in acts), default=1) - 1
        if retries > 0:
            # The actions' retries are the engine's retries of the executor step; only the
            # executor's own ActionRetry is retried, so a bug in a node still fails at once.
            self.engine.add("executor", Executor(self.config), retries=retries, retry_on=(ActionRetry,))
        else:
            self.engine.add("executor", Executor(self.config))
        self.engine.add("observer", Observer(self.config))
        if any(a.approval is not None for a in acts):
            # Added only when needed, so graphs without approvals keep their fingerprint.
            self.engine.add("approval", ApprovalStep(self.config), interrupt_before=True)
        self.engine.start_at("planner")

    @property
    def actions(self) -> Mapping[str, ActionSpec]:
        """The actions by name."""
        return self.config.actions

    async def run(
        self, run_id: str, world_state: Mapping[str, Any], goal: GoalSpec | MultiGoal | Mapping[str, Any]
    ) -> GoapState:
        """Plan and act until the goal holds, a terminal status is reached or an approval is asked.

        Raises :class:`goap.ModelError` before the run is created when a goal, precondition or
        effect value has another type than its fact in ``world_state``, and
        :class:`goap.UnsupportedConstraintError` when the strategy cannot honour the goal's
        constraints (the default strategy plans them with the CP-SAT pipeline).
        """
        g = goal if isinstance(goal, GoalSpec | MultiGoal) else GoalSpec(dict(goal))
        check_problem(world_state, g, list(self.config.actions.values()), self.config.strategy)
        return await self.engine.run(run_id, GoapState(world_state=dict(world_state), goal=g))

    async def resume(self, run_id: str, **kwargs: Any) -> GoapState:
        """Continue a run after a crash, failure or interrupt (see `Engine.resume`).

        To answer an approval: ``resume(run_id, input={"approved": True, ...})``, or an instance
        of the action's approval form, which is recorded as its JSON fields (the engine records
        only JSON values; the approval step validates them into the form, live and on replay).
        """
        answer = kwargs.get("input")
        if isinstance(answer, BaseModel):
            kwargs["input"] = answer.model_dump(mode="json")
        return await self.engine.resume(run_id, **kwargs)

    async def step(
        self,
        node: str,
        state: GoapState,
        *,
        step: int = 1,
        run_id: str = "step",
        resumed: bool = False,
        resume_input: Any = None,
    ) -> NodeResult[GoapState]:
        """Run one node (``planner``, ``executor``, ``observer``, ``approval``) on ``state``, outside a run.

        Nothing is stored: the node's delta and route are returned for the caller to apply
        (``graph.engine.runtime().reducer(state, result.delta)``), so another runtime can drive
        the GOAP loop node by node. Policies, tracers and retries are those of a run.
        """
        rt = self.engine.runtime()
        res, _attempts, _ctx = await rt.run_node(
            rt.graph.nodes[node], run_id, step, state, resumed=resumed, resume_input=resume_input
        )
        return res

    async def pending_approval(self, run_id: str) -> dict[str, Any] | None:
        """The approval the run waits for (action, plan index, form name and JSON schema), or None."""
        intr = await self.engine.get_interrupt(run_id)
        if intr is None or intr.node_id != "approval":
            return None
        state = await self.engine.get_state(run_id)
        ask = state.pending_approval
        if ask is None:
            return None
        form = self.config.actions[str(ask["action"])].approval
        out = dict(ask)
        if isinstance(intr.payload, dict) and "error" in intr.payload:
            out["error"] = intr.payload["error"]
        if form is not None:
            out["schema"] = form.model_json_schema()
        return out

    async def plan_history(self, run_id: str) -> list[PlanVersion]:
        """Every plan the run made, with trigger, diff from the previous plan and solver settings."""
        return await plan_history(self.engine, run_id)

    async def replay(self, run_id: str, *, replan: bool = False) -> Any:
        """Re-execute a recorded run (actions and plans served from the record) and compare.

        Returns the engine's `ReplayReport`; with ``replan=True`` a `GoapReplayReport` that also
        plans every recorded round again with this graph's actions and strategy and lists the
        rounds where the plan (or its cost) now differs, with both plans.
        """
        report = await self.engine.replay(run_id)
        if not replan:
            return report
        return GoapReplayReport(report, *await self._replan(run_id))

    async def run_nl(
        self, run_id: str, request: str, *, model: Any, world_state: Mapping[str, Any], **kwargs: Any
    ) -> GoapState:
        """Turn a natural-language `request` into a goal with `model`, then run toward it.

        See `goap.runtime._interpreter.run_nl`: the goal is stored in the run's initial state, so resume
        and replay never ask the model again.
        """
        from goap.runtime._interpreter import run_nl

        return await run_nl(self, run_id, request, model=model, world_state=world_state, **kwargs)

    def to_langgraph(self, checkpointer: Any = None) -> Any:
        """This agent as a compiled LangGraph graph (`CompiledStateGraph`) of planner, executor and observer.

            app = graph.to_langgraph(checkpointer=InMemorySaver())
            out = await app.ainvoke(GoapState(world_state=w, goal=g), config)  # or a dict of fields
            final = GoapState(**out)

        Each `GoapState` field is a LangGraph channel (`execution_history`, `plan_lineage` and the
        other `append` fields accumulate), so the graph composes as a node of a LangGraph app
        whose state has these keys, and the output is LangGraph's dict of the fields. A
        checkpointer stores the input as given, so with one give the goal in its JSON form
        (`GoapState(...).model_dump(mode="json")`): LangGraph's serializer cannot store a
        `GoalSpec`, whose conditions are a read-only mapping.

        A thin call of `graphengine.adapters.langgraph.to_langgraph(self.engine, checkpointer)`:
        the nodes are the engine's, so tracer hooks, replanning, blacklisting and the final state
        are the engine's too (the engine's store and replay are replaced by LangGraph's
        checkpointer). Imports LangGraph on first call; without it raises `ImportError` naming
        the extra (`pip install 'graphengine[langgraph]'`).
        """
        from graphengine.adapters.langgraph import to_langgraph

        return to_langgraph(self.engine, checkpointer=checkpointer)

    async def _replan(self, run_id: str) -> tuple[tuple[PlanDivergence, ...], int]:
        import json

        views = await self.engine.history(run_id)
        records = {r.step: r for r in await self.engine.store.load_steps(run_id)}
        before: GoapState = await self._initial(run_id)
        out: list[PlanDivergence] = []
        n = 0
        for view in views:
            if view.node_id == "planner":
                rec = records[view.step]
                calls = json.loads(rec.calls).get("calls", []) if rec.calls else []
                world = dict(before.world_state)
                for c in calls:  # what the planner's sensors read at the time
                    if str(c.get("tool", "")).startswith("sensor:") and isinstance(c.get("output"), dict):
                        world.update(c["output"])
                recorded = next((c for c in calls if c.get("tool") == "plan"), None)
                if recorded is not None and isinstance(recorded.get("output"), dict):
                    n += 1
                    inp = recorded.get("input") or {}
                    seen = before.model_copy(update={"world_state": world})
                    now = solve(
                        self.config,
                        world,
                        seen,
                        inp.get(
                            "blacklist",
                            sorted(set(before.blacklisted_actions) | spent_single_use(self.config, before)),
                        ),
                        inp.get("previous", []),
                    )
                    old = recorded["output"]
                    same_cost = (old.get("cost") is None) == (now["cost"] is None) and (
                        old.get("cost") is None or abs(float(old["cost"]) - float(now["cost"])) <= 1e-9
                    )
                    if old.get("plan") != now["plan"] or not same_cost:
                        out.append(
                            PlanDivergence(
                                version=len(before.plan_lineage) + 1,
                                step=view.step,
                                recorded=tuple(old.get("plan") or ()),
                                replanned=tuple(now["plan"] or ()),
                                recorded_cost=old.get("cost"),
                                replanned_cost=now["cost"],
                            )
                        )
            before = view.state
        return tuple(out), n

    async def _initial(self, run_id: str) -> GoapState:
        run = await self.engine.get_run(run_id)
        return self.engine.codec.decode(run.initial)


def _is_otel(emitter: object) -> bool:
    """Whether the emitter is the engine's OTelEmitter (its tracer then makes GOAP's spans too)."""
    return type(emitter).__name__ == "OTelEmitter" and hasattr(emitter, "tracer")
