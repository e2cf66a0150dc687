"""`GoapGraph`: a GOAP agent as an ordinary `Engine[GoapState]` (planner -> executor -> observer)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from emit import Emitter
from goap.actions import ActionSpec
from goap.errors import ModelError
from goap.goals import GoalSpec, MultiGoal
from goap.nodes import Executor, GoapConfig, Observer, Planner
from goap.otel import GoapTelemetry
from goap.state import GoapState
from goap.strategies import AStar, PlanningStrategy
from goap.tracing import NullTracer
from goap.transitions import TransitionModel
from graphengine import Engine, Options, ReplayReport
from store import Store

__all__ = ["GoapGraph"]


class GoapGraph:
    """Builds the GOAP engine: nodes `planner`, `executor`, `observer` over `GoapState`.

        graph = GoapGraph(actions, max_replans=3, store=SQLiteStore("runs.db"))
        final = await graph.run("deploy-42", world_state={...}, goal=GoalSpec({...}))

    `graph.engine` is the underlying `Engine[GoapState]`: resume, replay, fork, history,
    emitters and every other engine feature apply to GOAP runs unchanged. Terminal statuses
    are explicit in `final.status`: achieved, no_plan, max_replans_exceeded, budget_exhausted,
    failed.
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
        blacklist_after: int = 2,
        time_budget: float | None = None,
        seed: int = 0,
        tracer: Any = None,
        options: Options | None = None,
    ) -> None:
        acts = list(actions)
        by_name: dict[str, ActionSpec] = {}
        for a in acts:
            if a.name in by_name:
                raise ModelError(f"two actions are named {a.name!r}")
            by_name[a.name] = a
        self.config = GoapConfig(
            actions=by_name,
            strategy=strategy or AStar(),
            max_replans=max_replans,
            replan_every_action=replan_every_action,
            blacklist_after=blacklist_after,
            time_budget=time_budget,
            transition_model=transition_model,
            seed=seed,
            tracer=tracer if tracer is not None else NullTracer(),
            telemetry=GoapTelemetry(getattr(emitter, "tracer", None) if _is_otel(emitter) else None),
        )
        """The settings the nodes share."""
        opts = options or Options(max_steps=10_000)
        self.engine: Engine[GoapState] = Engine(GoapState, store=store, emitter=emitter, options=opts)
        """The engine running GOAP runs."""
        self.engine.add("planner", Planner(self.config))
        self.engine.add("executor", Executor(self.config))
        self.engine.add("observer", Observer(self.config))
        self.engine.start_at("planner")

    @property
    def actions(self) -> Mapping[str, ActionSpec]:
        """The actions by name."""
        return self.config.actions

    async def run(
        self, run_id: str, world_state: Mapping[str, Any], goal: GoalSpec | MultiGoal | Mapping[str, Any]
    ) -> GoapState:
        """Plan and act until the goal holds or a terminal status is reached; returns the final state."""
        g = goal if isinstance(goal, GoalSpec | MultiGoal) else GoalSpec(dict(goal))
        return await self.engine.run(run_id, GoapState(world_state=dict(world_state), goal=g))

    async def resume(self, run_id: str, **kwargs: Any) -> GoapState:
        """Continue a run after a crash, failure or interrupt (see `Engine.resume`)."""
        return await self.engine.resume(run_id, **kwargs)

    async def replay(self, run_id: str) -> ReplayReport:
        """Re-execute a recorded run (actions served from the record) and compare (see `Engine.replay`)."""
        return await self.engine.replay(run_id)

    def to_langgraph(self, checkpointer: Any = None) -> Any:
        """This agent as a compiled LangGraph graph (`CompiledStateGraph`) of planner, executor and observer.

            app = graph.to_langgraph(checkpointer=InMemorySaver())
            out = await app.ainvoke({"state": GoapState(world_state=w, goal=g)}, config)
            final: GoapState = out["state"]

        A thin call of `graphengine.adapters.langgraph.to_langgraph(self.engine, checkpointer)`:
        the nodes are the engine's, so tracer hooks, replanning, blacklisting and the final state
        are the engine's too (the engine's store and replay are replaced by LangGraph's
        checkpointer). Imports LangGraph on first call; without it raises `ImportError` naming
        the extra (`pip install 'graphengine[langgraph]'`).
        """
        from graphengine.adapters.langgraph import to_langgraph

        return to_langgraph(self.engine, checkpointer=checkpointer)


def _is_otel(emitter: object) -> bool:
    """Whether the emitter is the engine's OTelEmitter (its tracer then makes GOAP's spans too)."""
    return type(emitter).__name__ == "OTelEmitter" and hasattr(emitter, "tracer")
