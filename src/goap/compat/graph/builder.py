"""`GoapGraph`: LangGOAP's builder of the planner -> executor -> observer LangGraph graph."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

from goap.compat.graph.nodes import GoapExecutor, GoapObserver, GoapPlanner
from goap.compat.graph.nodes._bridge import Bridge
from goap.compat.graph.state import GoapState

__all__ = ["GoapGraph"]


class GoapGraph:
    """LangGOAP's GOAP loop as a LangGraph graph of goap.runtime's nodes (``compile``, ``invoke``)."""

    def __init__(
        self,
        actions: Sequence[Any],
        *,
        strategy: Any = None,
        tracer: Any = None,
        history: Any = None,
        sensors: Sequence[Any] | None = None,
        guards: Sequence[Any] | None = None,
        resolvers: Sequence[Any] | None = None,
        record_expansions: bool = False,
        transition_model: Any = None,
        rng: random.Random | None = None,
        stuck_handlers: Sequence[Any] | None = None,
        max_stuck_iterations: int = 3,
        termination_policies: Sequence[Any] | None = None,
    ) -> None:
        self.actions = list(actions)
        self._planner = dict(strategy=strategy, tracer=tracer, sensors=sensors, resolvers=resolvers)
        self._planner.update(record_expansions=record_expansions, stuck_handlers=stuck_handlers)
        self._planner["max_stuck_iterations"] = max_stuck_iterations
        self._executor = dict(tracer=tracer, guards=guards, transition_model=transition_model, rng=rng)
        self._observer = {"tracer": tracer, "history": history, "termination_policies": termination_policies}

    def compile(
        self,
        checkpointer: Any = None,
        store: Any = None,
        *,
        interrupt_before: list[str] | None = None,
        interrupt_after: list[str] | None = None,
    ) -> Any:
        """The compiled LangGraph graph (``interrupt_before=["executor"]`` pauses before each action)."""
        from langchain_core.runnables import RunnableLambda
        from langgraph.checkpoint.base import BaseCheckpointSaver
        from langgraph.graph import START, StateGraph

        if isinstance(checkpointer, BaseCheckpointSaver):
            from goap.compat.serde import install_langgoap_serde

            forms = [a.require_human_approval for a in self.actions]
            install_langgoap_serde(
                checkpointer, extra_allowed_types=tuple(f for f in forms if isinstance(f, type))
            )
        planner = GoapPlanner(
            self.actions, termination_policies=self._observer["termination_policies"], **self._planner
        )
        executor = GoapExecutor(actions=self.actions, **self._executor)
        observer = GoapObserver(self.actions, **self._observer)
        builder = StateGraph(GoapState)
        for name, node in (("planner", planner), ("executor", executor), ("observer", observer)):
            builder.add_node(name, RunnableLambda(func=node.__call__, afunc=node.acall))
        for a, b in ((START, "planner"), ("planner", "executor"), ("executor", "observer")):
            builder.add_edge(a, b)
        pauses: dict[str, Any] = {"interrupt_before": interrupt_before, "interrupt_after": interrupt_after}
        return builder.compile(checkpointer=checkpointer, store=store, **pauses)

    def invoke(self, goal: Any, world_state: dict[str, Any] | None = None, config: Any = None) -> GoapState:
        """Compile and run once; the final state."""
        out = self.compile().invoke({"goal": goal, "world_state": world_state or {}}, config=config)
        return cast(GoapState, out)

    async def ainvoke(
        self, goal: Any, world_state: dict[str, Any] | None = None, config: Any = None
    ) -> GoapState:
        """Compile and run once (async); the final state."""
        out = await self.compile().ainvoke({"goal": goal, "world_state": world_state or {}}, config=config)
        return cast(GoapState, out)

    def _goal(self, request: str, world_state: Any, llm: Any, kw: dict[str, Any]) -> Any:
        from goap.compat.interpreter import GoalInterpreter, _default_structured_output_kwargs

        so = kw.pop("structured_output_kwargs", None) or _default_structured_output_kwargs(llm)
        return GoalInterpreter(llm=llm, actions=self.actions, structured_output_kwargs=so)

    def invoke_nl(
        self, request: str, world_state: dict[str, Any] | None = None, *, llm: Any, **kw: Any
    ) -> GoapState:
        """Turn ``request`` into a goal with ``llm`` (``structured_output_kwargs=`` for it), then run (``config=``)."""
        goal = self._goal(request, world_state, llm, kw).interpret(request, world_state=world_state)
        return self.invoke(goal=goal, world_state=world_state, **kw)

    async def ainvoke_nl(
        self, request: str, world_state: dict[str, Any] | None = None, *, llm: Any, **kw: Any
    ) -> GoapState:
        """Async :meth:`invoke_nl`."""
        goal = await self._goal(request, world_state, llm, kw).ainterpret(request, world_state=world_state)
        return await self.ainvoke(goal=goal, world_state=world_state, **kw)

    def engine(self, goal: Any = None) -> Any:
        """The same loop as a durable goap.runtime GoapGraph (goap goals, encoded worlds)."""
        p, ex, o = self._planner, self._executor, self._observer
        mine = {k: p[k] for k in ("tracer", "sensors", "stuck_handlers")}
        return Bridge(guards=ex["guards"], termination=o["termination_policies"], **mine).graph(
            goal, self.actions
        )
