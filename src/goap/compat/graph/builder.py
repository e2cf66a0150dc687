"""Convenience builder for GOAP execution graphs.

GoapGraph assembles the GOAP loop (planner, executor and observer nodes) as a
``graphengine.Engine`` (:meth:`GoapGraph.engine`) and compiles it into a LangGraph graph
through ``graphengine.adapters.langgraph.to_langgraph`` (:meth:`GoapGraph.compile`).

The constructor, ``invoke``/``ainvoke``/``invoke_nl``/``ainvoke_nl`` and their documentation are
ported from ``langgoap.graph.builder`` (langgoap 0.1.2, MIT licence, Integrallis Software; see
LICENSE-langgoap); how the graph is built and run is this project's.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Required, TypedDict, TypeVar, Unpack, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from goap.compat._options import check_options
from goap.compat.actions import ActionSpec
from goap.compat.conditions import AsyncConditionResolver, ConditionResolver
from goap.compat.goals import GoalSpec, MultiGoal
from goap.compat.graph._engine import build_engine
from goap.compat.graph.nodes import GoapExecutor, GoapObserver, GoapPlanner
from goap.compat.graph.state import GoapState
from goap.compat.guards import ActionGuard, AsyncActionGuard
from goap.compat.history import StoreExecutionHistory
from goap.compat.sensors import AsyncSensor, Sensor
from goap.compat.serde import install_langgoap_serde
from goap.compat.tracing import PlanningTracer
from graphengine import Engine, Options, UnknownNodeError
from graphengine.emit import Emitter
from graphengine.store import Store

if TYPE_CHECKING:
    from goap.compat.planner.strategy import PlanningStrategy
    from goap.compat.planner.transitions import TransitionModel
    from goap.compat.stuck import StuckHandler
    from goap.compat.termination import TerminationPolicy


class NLOptions(TypedDict, total=False):
    """The keyword arguments of :meth:`GoapGraph.invoke_nl` and :meth:`GoapGraph.ainvoke_nl`."""

    llm: Required[BaseChatModel]
    """LangChain chat model for goal interpretation."""
    config: RunnableConfig | None
    """Optional LangGraph run configuration."""
    structured_output_kwargs: dict[str, Any] | None
    """Forwarded to :class:`~goap.compat.interpreter.GoalInterpreter` and then to
    ``llm.with_structured_output()``. Use ``{"method": "function_calling"}`` for OpenAI when the
    conditions dict must stay open-ended."""


class GoapGraph:
    """Builder that produces a compiled LangGraph for GOAP execution.

    Supports two usage styles:

    **Explicit compile + invoke** (for power users who need the compiled graph)::

        graph = GoapGraph(actions=[action1, action2, ...])
        compiled = graph.compile(checkpointer=saver)
        result = compiled.invoke({
            "goal": GoalSpec(conditions={"done": True}),
            "world_state": {"a": True},
        })

    **Convenience invoke** (single-shot, no persistence)::

        graph = GoapGraph(actions=[action1, action2, ...])
        result = graph.invoke(
            goal=GoalSpec(conditions={"done": True}),
            world_state={"a": True},
        )

    **Custom planning strategy**::

        from goap.compat.planner.strategy import LazyDecompositionStrategy
        graph = GoapGraph(
            actions=[action1, action2, ...],
            strategy=LazyDecompositionStrategy(lookahead=2),
        )
        result = graph.invoke(goal=goal, world_state={})

    The graph structure is::

        START → planner → executor → observer ──→ END
                  ↑                     │
                  └─────────────────────┘

    Args:
        actions: The action library available to the planner and executor.
        strategy: Optional :class:`~goap.compat.planner.strategy.PlanningStrategy`.
            Defaults to the A\\* strategy wired inside :class:`GoapPlanner`.
        tracer: Optional :class:`~goap.compat.tracing.PlanningTracer` for
            planning/execution observability.
        history: Optional :class:`~goap.compat.history.StoreExecutionHistory`
            for persisting execution traces.
        sensors: Optional list of :class:`~goap.compat.sensors.Sensor` /
            :class:`~goap.compat.sensors.AsyncSensor` run before planning.
        guards: Optional list of :class:`~goap.compat.guards.ActionGuard` /
            :class:`~goap.compat.guards.AsyncActionGuard` evaluated before each
            action executes.
        resolvers: Optional list of dynamic condition resolvers applied to
            precondition evaluation.
        record_expansions: Forwarded to :class:`GoapPlanner`; enables node
            expansion trace recording for post-hoc analysis.
        transition_model: Optional
            :class:`~goap.compat.planner.transitions.TransitionModel` threaded
            into :class:`GoapExecutor`.  When provided, actions with no
            ``execute`` callable (or those returning ``None``) have their
            runtime effects drawn from ``transition_model.sample``.  Use
            the same model you passed to :class:`MCTSStrategy` so plan-time
            and runtime share one noise distribution.
        rng: Optional ``random.Random`` forwarded to the executor for
            reproducible sampling.
    """

    def __init__(
        self,
        actions: list[ActionSpec],
        *,
        strategy: PlanningStrategy | None = None,
        tracer: PlanningTracer | None = None,
        history: StoreExecutionHistory | None = None,
        sensors: list[Sensor | AsyncSensor] | None = None,
        guards: list[ActionGuard | AsyncActionGuard] | None = None,
        resolvers: list[ConditionResolver | AsyncConditionResolver] | None = None,
        record_expansions: bool = False,
        transition_model: TransitionModel | None = None,
        rng: random.Random | None = None,
        stuck_handlers: list[StuckHandler] | None = None,
        max_stuck_iterations: int = 3,
        termination_policies: list[TerminationPolicy] | None = None,
    ) -> None:
        self.actions = actions
        settings: dict[str, Any] = {
            "actions": actions,
            "strategy": strategy,
            "tracer": tracer,
            "history": history,
            "sensors": sensors,
            "guards": guards,
            "resolvers": resolvers,
            "record_expansions": record_expansions,
            "transition_model": transition_model,
            "rng": rng,
            "stuck_handlers": stuck_handlers,
            "max_stuck_iterations": max_stuck_iterations,
            "termination_policies": termination_policies,
        }
        # Each compile() and engine() builds fresh nodes (they keep per-run state); each node takes
        # the settings its constructor names, bound here once.
        self._planner = _bind(GoapPlanner, settings)
        self._executor = _bind(GoapExecutor, settings)
        self._observer = _bind(GoapObserver, settings)

    def compile(
        self,
        checkpointer: Checkpointer | None = None,
        store: Any = None,
        *,
        interrupt_before: list[str] | None = None,
        interrupt_after: list[str] | None = None,
    ) -> CompiledStateGraph[Any, Any, Any, Any]:
        """Compile the GOAP loop's engine (:meth:`engine`) into a LangGraph graph.

        The result is a ``CompiledStateGraph`` built by
        ``graphengine.adapters.langgraph.to_langgraph``: one channel per ``GoapState`` key
        (``execution_history`` accumulates), nodes ``planner``, ``executor`` and ``observer``
        run by the engine's executor, routing by the engine's ``goto``/``stop``. An action's
        approval pauses the graph one LangGraph step after the executor asked for it (the
        engine's interrupt, carried as LangGraph's ``interrupt``); ``Command(resume=...)``
        answers it.

        Args:
            checkpointer: Optional LangGraph checkpointer for persistence.
                When provided, the checkpointer's serde is swapped for a
                LangGOAP-aware subclass (see :mod:`goap.compat.serde`) so that
                frozen dataclasses using ``MappingProxyType`` fields
                round-trip through msgpack correctly.
            store: Optional LangGraph store for shared state.
            interrupt_before: Optional list of node names to interrupt
                before.  Forwarded to ``StateGraph.compile``.  Use
                ``["executor"]`` to gate each action execution behind a
                human-in-the-loop checkpoint boundary, then resume via
                ``compiled.invoke(None, config=...)``.
            interrupt_after: Optional list of node names to interrupt
                after.  Forwarded to ``StateGraph.compile``.

        Raises:
            ValueError: ``interrupt_before`` or ``interrupt_after`` names a node the graph
                does not have (as langgoap's graph raises it).

        Returns:
            A compiled StateGraph ready for invocation.
        """
        # Install LangGOAP's MappingProxyType-aware serde on the
        # checkpointer so frozen dataclasses serialize cleanly.  Skipped
        # silently when no checkpointer is provided — no-ops don't need
        # a custom serde because state never hits disk.
        # isinstance narrows Checkpointer (= BaseCheckpointSaver | None |
        # Literal[False]) to BaseCheckpointSaver, satisfying install_langgoap_serde's
        # parameter type without a cast or type: ignore.
        if isinstance(checkpointer, BaseCheckpointSaver):
            # Harvest user-defined Pydantic form classes referenced from
            # ActionSpec.require_human_approval so the LangGOAP serde's
            # allowlist permits them through msgpack round-trip.  Without
            # this, the checkpointer would block deserialization and the
            # form-binding gate would silently disappear after a resume.
            extras: list[type] = []
            for action in self.actions:
                req = getattr(action, "require_human_approval", None)
                if isinstance(req, type):
                    extras.append(req)
            install_langgoap_serde(
                checkpointer,
                extra_allowed_types=tuple(extras),
            )

        from langgraph._internal._config import DEFAULT_RECURSION_LIMIT

        from graphengine.adapters.langgraph import to_langgraph

        # to_langgraph's recursion limit is 2 * max_steps + 5: these steps make it LangGraph's
        # default, so a run stops where the LangGraph-built graph stopped (a config's own
        # recursion_limit still overrides it).
        steps = max(1, (int(DEFAULT_RECURSION_LIMIT) - 5) // 2)
        engine = build_engine(self._nodes(), self.actions, options=Options(max_steps=steps))
        try:
            compiled = to_langgraph(
                engine,
                checkpointer,
                store=store,
                interrupt_before=interrupt_before,
                interrupt_after=interrupt_after,
            )
        except UnknownNodeError as exc:
            # langgoap's graph raised LangGraph's ValueError for an unknown interrupt node: code
            # written for it catches ValueError.
            raise ValueError(str(exc)) from exc
        return cast("CompiledStateGraph[Any, Any, Any, Any]", compiled)

    def engine(
        self,
        *,
        store: Store | None = None,
        emitter: Emitter | None = None,
        options: Options | None = None,
    ) -> Engine[GoapState]:
        """The GOAP loop as a ``graphengine.Engine``: runs stored, resumable and replayable.

            engine = GoapGraph(actions).engine(store=SQLiteStore("runs.db"))
            final = await engine.run("job-1", {"goal": goal, "world_state": {...}})

        The nodes are those :meth:`compile` puts in its LangGraph graph (``planner``,
        ``executor``, ``observer``, async forms), so a run ends in the same world state and
        status as ``compile().ainvoke(...)``. An action asking for human approval pauses the
        run (status ``interrupted``, the approval request as the interrupt's payload);
        ``engine.resume(run_id, input=True)`` (or ``False``, ``{"approved": ..., "reason":
        ...}``, a form's fields) answers it. The state is stored as tagged JSON (see
        :mod:`goap.compat.graph._codec`): world-state values must be JSON values, tuples, sets
        or the compat types, and plans name the graph's actions, so resume a run with a graph
        having the same actions. The planner's and executor's updates are recorded with their
        steps, so ``engine.replay(run_id)`` serves the recorded plans and action outcomes (no
        action runs twice) and checks the observer's routing and the states against the record.
        ``options`` defaults to ``Options(max_steps=10_000)``.
        """
        opts = options if options is not None else Options(max_steps=10_000)
        return build_engine(
            self._nodes(), self.actions, store=store, emitter=emitter, options=opts, record=True
        )

    def _nodes(self) -> dict[str, Any]:
        """Fresh planner, executor and observer nodes with this graph's settings."""
        return {"planner": self._planner(), "executor": self._executor(), "observer": self._observer()}

    def invoke(
        self,
        goal: GoalSpec | MultiGoal,
        world_state: dict[str, Any] | None = None,
        config: RunnableConfig | None = None,
    ) -> GoapState:
        """Convenience method: compile and invoke the graph in one call.

        Suitable for single-shot executions that don't need persistence or
        time-travel.  For repeated invocations with the same compiled graph,
        use :meth:`compile` directly.

        Args:
            goal: The goal to achieve.  May be a single :class:`GoalSpec`
                or a :class:`MultiGoal` wrapping several sub-goals.
            world_state: Initial world state (defaults to an empty dict).
            config: Optional LangGraph run configuration
                (e.g. ``{"configurable": {"thread_id": "..."}}``)

        Returns:
            The final :class:`~goap.compat.graph.state.GoapState` after the
            GOAP loop completes.
        """
        compiled = self.compile()
        # The compiled graph's invoke() is typed as returning dict[str, Any];
        # cast to GoapState because we own the graph's output schema entirely.
        return cast(GoapState, compiled.invoke(_input_state(goal, world_state), config=config))

    async def ainvoke(
        self,
        goal: GoalSpec | MultiGoal,
        world_state: dict[str, Any] | None = None,
        config: RunnableConfig | None = None,
    ) -> GoapState:
        """Async convenience method: compile and invoke the graph.

        Identical to :meth:`invoke` (same arguments and result) but uses
        ``ainvoke`` on the compiled graph, enabling native async execution
        of action callables.
        """
        compiled = self.compile()
        return cast(GoapState, await compiled.ainvoke(_input_state(goal, world_state), config=config))

    def _interpreter(self, llm: BaseChatModel, structured_output_kwargs: dict[str, Any] | None) -> Any:
        """The goal interpreter of :meth:`invoke_nl` (``None`` kwargs: the interpreter's defaults for ``llm``)."""
        from goap.compat.interpreter import GoalInterpreter

        return GoalInterpreter(
            llm=llm, actions=self.actions, structured_output_kwargs=structured_output_kwargs
        )

    def invoke_nl(
        self, request: str, world_state: dict[str, Any] | None = None, **options: Unpack[NLOptions]
    ) -> GoapState:
        """Interpret a natural language request and execute the GOAP loop.

        Convenience method that creates a :class:`~goap.compat.interpreter.GoalInterpreter`,
        converts the request to a :class:`~goap.compat.goals.GoalSpec`, and invokes
        the graph in one call.

        Args:
            request: Natural language description of the goal.
            world_state: Initial world state (defaults to an empty dict).
            options: ``llm`` (required), ``config`` and ``structured_output_kwargs``:
                see :class:`NLOptions`.

        Returns:
            The final :class:`~goap.compat.graph.state.GoapState` after the
            GOAP loop completes.
        """
        check_options("invoke_nl", options, NLOptions)
        interpreter = self._interpreter(options["llm"], options.get("structured_output_kwargs"))
        goal = interpreter.interpret(request, world_state=world_state)
        return self.invoke(goal=goal, world_state=world_state, config=options.get("config"))

    async def ainvoke_nl(
        self, request: str, world_state: dict[str, Any] | None = None, **options: Unpack[NLOptions]
    ) -> GoapState:
        """Async variant of :meth:`invoke_nl`: the same arguments and result, with the goal
        interpreted and the graph run through their ``a*`` methods."""
        check_options("ainvoke_nl", options, NLOptions)
        interpreter = self._interpreter(options["llm"], options.get("structured_output_kwargs"))
        goal = await interpreter.ainterpret(request, world_state=world_state)
        return await self.ainvoke(goal=goal, world_state=world_state, config=options.get("config"))


_NodeT = TypeVar("_NodeT")


def _bind(node: type[_NodeT], settings: dict[str, Any]) -> Callable[[], _NodeT]:
    """A factory of ``node`` given those of ``settings`` its constructor takes (by name)."""
    taken = inspect.signature(node).parameters
    return partial(node, **{name: value for name, value in settings.items() if name in taken})


def _input_state(goal: GoalSpec | MultiGoal, world_state: dict[str, Any] | None) -> GoapState:
    """The graph's input for one run: the goal and the initial world state (empty by default)."""
    return {"goal": goal, "world_state": world_state or {}}


__all__ = ["GoapGraph", "NLOptions"]
