"""A tracer sending the GOAP loop to LangSmith.

Each planning round is a ``goap_plan`` chain run (a replan's run is chained to the previous one, which
closes as superseded); each action is a ``goap_action:<name>`` tool run under it. Search events
(``on_search_*``, e.g. fed from a strategy's expansion callback) are capped and batched into the
round's metadata. ``langsmith`` is imported only when no client is given (extra: ``langchain``).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from logging import Logger, getLogger
from typing import Any, ClassVar

__all__ = ["LangSmithTracer", "SearchEventBuffer"]


class SearchEventBuffer:
    """The search events of one root run: expansions capped (one ``search_truncated`` marker then counts
    the dropped ones), ``add_*`` answering True once ``flush_every`` events wait. Callers serialise access."""

    def __init__(self, *, max_events: int, flush_every: int) -> None:
        for name, value in (("max_events", max_events), ("flush_every", flush_every)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        self._cap, self._batch = max_events, flush_every
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new root run starts)."""
        self._events: list[dict[str, Any]] = []
        self._unsent = self._kept = 0
        self._marker: dict[str, Any] | None = None

    def add_expand(self, event: dict[str, Any]) -> bool:
        """Record an expansion; beyond the cap only the marker's count grows."""
        if self._kept < self._cap:
            self._kept += 1
            self._events.append(event)
        elif self._marker is None:
            self._marker = {"kind": "search_truncated", "dropped": 1}
            self._events.append(self._marker)
        else:
            self._marker["dropped"] += 1
        return self.add_uncapped(None)

    def add_uncapped(self, event: dict[str, Any] | None) -> bool:
        """Record a rare event (a dead end), never capped."""
        if event is not None:
            self._events.append(event)
        self._unsent += 1
        return self._unsent >= self._batch

    def drain(self) -> list[dict[str, Any]] | None:
        """A copy of the run's events so far (None without any); the batch count restarts."""
        self._unsent = 0
        return list(self._events) or None


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return repr(value)


def _first(obj: Any, names: tuple[str, ...]) -> Any:
    return next((getattr(obj, n) for n in names if getattr(obj, n, None) is not None), None)


def _fields(obj: Any, table: Mapping[str, tuple[str, ...]]) -> Any:
    """``{key: first present attribute}`` of ``obj``, or ``obj`` itself when it has none."""
    found = {k: _plain(_first(obj, attrs)) for k, attrs in table.items()}
    return found if any(v is not None for v in found.values()) or obj is None else _plain(obj)


def _now() -> datetime:
    return datetime.now(UTC)


class LangSmithTracer:
    """Sends the GOAP loop's hooks to LangSmith; never raises, a no-op without an API key or client.

    Documents read attributes by the tables below (first present wins), so a subclass adapts other
    plan, action and outcome types by extending them."""

    plan_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "action_names": ("names",),
        "total_cost": ("cost",),
    }
    """Plan document key -> attribute names."""
    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        k: (k,) for k in ("name", "preconditions", "effects", "cost")
    }
    """Action document key -> attribute names."""
    outcome_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "action_name": ("action",),
        "success": ("success",),
        "error": ("error",),
        "state_after": ("effects",),
    }
    """Outcome document key -> attribute names (``action_name`` also finds the open action run)."""
    log: ClassVar[Logger] = getLogger("goap.runtime.langsmith")
    """Where client failures are logged (WARNING)."""

    def __init__(
        self,
        *,
        project_name: str | None = None,
        client: Any | None = None,
        flush_every: int = 1,
        max_search_events: int = 1000,
    ) -> None:
        self._project_name = project_name if project_name else os.environ.get("LANGCHAIN_PROJECT")
        self._client = client
        if client is None and not (
            os.environ.get("LANGCHAIN_API_KEY") or os.environ.get("LANGSMITH_API_KEY")
        ):
            self.log.warning(
                "LangSmithTracer: no LANGCHAIN_API_KEY/LANGSMITH_API_KEY set; tracing is a no-op"
            )
        elif client is None:
            try:
                from langsmith import Client

                self._client = Client()
            except Exception as exc:
                self.log.warning(
                    "LangSmithTracer: no langsmith client (%s; pip install 'graphengine[langchain]'); "
                    "tracing is a no-op",
                    exc,
                )
        self._lock = threading.Lock()
        self._root: uuid.UUID | None = None
        self._open_actions: dict[str, uuid.UUID] = {}
        self._buffer = SearchEventBuffer(max_events=max_search_events, flush_every=flush_every)

    def _send(self, op: str, *args: Any, **kwargs: Any) -> None:
        try:
            getattr(self._client, op)(*args, **kwargs)
        except Exception as exc:
            self.log.warning("LangSmithTracer %s raised: %s", op, exc)

    def _open(self, name: str, kind: str, run_id: uuid.UUID, inputs: Any, **more: Any) -> None:
        self._send(
            "create_run", name=name, run_type=kind, inputs=inputs, id=run_id, start_time=_now(), **more
        )

    def _note(self, run: uuid.UUID | None = None, **metadata: Any) -> None:
        run = run or self._root
        if self._client is not None and run is not None:
            self._send("update_run", run, extra={"metadata": metadata})

    def _events(self, add: Callable[[dict[str, Any]], bool] | None = None, event: Any = None) -> None:
        """Buffer ``event`` with ``add``, then upload the buffer if it is due (always, without ``add``)."""
        with self._lock:
            if self._client is None or self._root is None:
                self._buffer.drain()
                return
            due = add is None or add(event)
            events, root = (self._buffer.drain(), self._root) if due else (None, None)
        if events:
            self._note(root, search_events=events)

    def _close_root(self, outputs: dict[str, Any], error: str | None = None, flush: bool = True) -> None:
        if flush:
            self._events()
        with self._lock:
            root, self._root = self._root, None
        if root is not None and self._client is not None:
            more = {"error": error} if error else {}
            self._send("update_run", root, outputs=outputs, end_time=_now(), **more)

    def _plan_doc(self, plan: Any) -> Any:
        doc = _fields(plan, self.plan_fields)
        return doc if not isinstance(doc, dict) else {**doc, "action_names": list(doc["action_names"] or ())}

    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Open the round's root run (closing a previous one as superseded)."""
        previous = self._root
        self._close_root({"status": "superseded_by_replan"}, flush=False)
        if self._client is None:
            return
        with self._lock:
            self._root = run_id = uuid.uuid4()
            self._open_actions.clear()
            self._buffer.reset()
        goal_doc = next(
            ({k: _plain(v)} for k in ("conditions", "goals") if (v := getattr(goal, k, None))), None
        )
        more: dict[str, Any] = {"project_name": self._project_name} if self._project_name else {}
        inputs = {"goal": goal_doc or _plain(goal), "state": _plain(state), "strategy": strategy_name}
        more |= {"parent_run_id": previous} if previous else {}
        self._open(
            "goap_plan", "chain", run_id, inputs, extra={"metadata": {"goap_strategy": strategy_name}}, **more
        )

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Upload pending search events and note the plan."""
        if self._root is not None:
            self._events()
            self._note(planning_duration_ms=duration_ms, plan=self._plan_doc(plan))

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Close the root run with an error."""
        self._close_root({"reason": reason, "duration_ms": duration_ms}, f"plan_failed: {reason}")

    def on_action_start(self, action: Any, state: Any) -> None:
        """Open a tool run for ``action``."""
        name, run_id = str(getattr(action, "name", "unknown")), uuid.uuid4()
        with self._lock:
            parent = self._root if self._client is not None else None
            if parent is None:
                return
            self._open_actions[name] = run_id
        inputs = {"action": _fields(action, self.action_fields), "state": _plain(state)}
        self._open(
            f"goap_action:{name}",
            "tool",
            run_id,
            inputs,
            parent_run_id=parent,
            project_name=self._project_name,
        )

    def on_action_complete(self, result: Any) -> None:
        """Close the action's tool run (with an error when it failed)."""
        table = self.outcome_fields
        with self._lock:
            run_id = self._open_actions.pop(str(_first(result, table["action_name"]) or ""), None)
        if run_id is None or self._client is None:
            return
        doc = {k: _plain(_first(result, attrs)) for k, attrs in table.items()}
        failed = not getattr(result, "success", True)
        error = str(getattr(result, "error", None) or "action_failed") if failed else None
        self._send("update_run", run_id, outputs={"result": doc}, error=error, end_time=_now())

    def on_action_retry(self, action: Any, attempt: int, exception: BaseException, backoff_ms: float) -> None:
        """Note the retry on the action's run."""
        retry = {
            "exc_type": type(exception).__name__,
            "exc_message": str(exception),
            "backoff_ms": backoff_ms,
        }
        run_id = self._open_actions.get(str(getattr(action, "name", "")))
        if run_id is not None:
            self._note(run_id, **{f"retry_attempt_{attempt}": retry})

    def on_strategy_chosen(self, strategy_name: str) -> None:
        """Note a router's choice."""
        self._note(strategy_chosen=strategy_name)

    def on_replan(self, reason: str, new_plan: Any) -> None:
        """Note the replan."""
        self._note(replan_reason=reason, plan=self._plan_doc(new_plan))

    def on_goal_achieved(self, final_state: Any) -> None:
        """Close the root run as achieved."""
        self._close_root({"status": "goal_achieved", "final_state": _plain(final_state)})

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Note a sensor's updates."""
        self._note(**{f"sensor_{sensor_name}": _plain(updates)})

    def on_search_expand(
        self,
        node_id: int,
        state: Mapping[str, Any],
        g: float,
        h: float,
        f: float,
        parent_id: int | None = None,
        action_name: str | None = None,
    ) -> None:
        """Buffer one expansion (capped)."""
        ev = {"kind": "search_expand", "node_id": node_id, "parent_id": parent_id, "action_name": action_name}
        self._events(self._buffer.add_expand, {**ev, "g": g, "h": h, "f": f, "state": _plain(state)})

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """Buffer a dead end."""
        self._events(
            self._buffer.add_uncapped, {"kind": "search_dead_end", "reason": reason, "detail": _plain(detail)}
        )

    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """Note the search summary."""
        self._note(
            search_summary={"nodes_explored": nodes_explored, "duration_ms": duration_ms, "found": found}
        )


def _async_twin(name: str) -> Callable[..., Any]:
    async def hook(self: LangSmithTracer, *args: Any, **kwargs: Any) -> None:
        getattr(self, name)(*args, **kwargs)

    hook.__doc__ = f"Async `{name}`."
    return hook


for _name in [n for n in vars(LangSmithTracer) if n.startswith("on_")]:
    setattr(LangSmithTracer, f"a{_name}", _async_twin(_name))
