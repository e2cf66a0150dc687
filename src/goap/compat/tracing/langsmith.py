"""Planning events as LangSmith runs.

One ``goap_plan`` chain run per planning round (a replan's run names the previous one as its
parent and closes it as superseded); one ``goap_action:<name>`` tool run per executed action;
search events go, batched and capped, into the open round's metadata.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from goap.compat.tracing._protocol import EXTRA_HOOKS
from goap.compat.tracing._safe_proxy import _log
from goap.compat.tracing._search_buffer import SearchEventBuffer
from goap.runtime._tracing import HOOKS

__all__ = ["LangSmithTracer"]


def _plain(value: Any) -> Any:
    """A JSON-friendly copy (containers recursively, anything else by repr)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return repr(value)


def _fields(obj: Any, names: tuple[str, ...]) -> Any:
    """``obj``'s named attributes as plain values, or ``obj`` itself when it has none of them."""
    if obj is None:
        return None
    found = {n: getattr(obj, n) for n in names if hasattr(obj, n)}
    return {n: _plain(found.get(n)) for n in names} if found else _plain(obj)


class LangSmithTracer:
    """Sends the GOAP loop's hooks to LangSmith; never raises, no-ops without an API key or client."""

    def __init__(
        self,
        *,
        client: Any | None = None,
        project_name: str | None = None,
        max_search_events: int = 1000,
        flush_every: int = 1,
    ) -> None:
        self._project_name = project_name or os.environ.get("LANGCHAIN_PROJECT")
        self._client: Any | None = client
        if client is None:
            if os.environ.get("LANGCHAIN_API_KEY") or os.environ.get("LANGSMITH_API_KEY"):
                try:
                    from langsmith import Client

                    self._client = Client()
                except Exception as exc:
                    _log.warning("LangSmithTracer: no langsmith client (%s); tracing is a no-op", exc)
            else:
                _log.warning(
                    "LangSmithTracer: no LANGCHAIN_API_KEY/LANGSMITH_API_KEY set; tracing is a no-op"
                )
        self._lock = threading.Lock()
        self._root: uuid.UUID | None = None
        self._open_actions: dict[str, uuid.UUID] = {}
        self._buffer = SearchEventBuffer(max_events=max_search_events, flush_every=flush_every)

    def _send(self, op: str, *args: Any, **kwargs: Any) -> None:
        if self._client is None:
            return
        try:
            getattr(self._client, op)(*args, **kwargs)
        except Exception as exc:
            _log.warning("LangSmithTracer %s raised: %s", op, exc)

    def _annotate(self, **metadata: Any) -> None:
        """Add metadata to the open round's run."""
        if self._client is not None and self._root is not None:
            self._send("update_run", self._root, extra={"metadata": metadata})

    def _upload(self, events: list[dict[str, Any]] | None, root: uuid.UUID | None) -> None:
        if events is not None and root is not None:
            self._send("update_run", root, extra={"metadata": {"search_events": events}})

    def _flush(self) -> None:
        with self._lock:
            events, root = self._buffer.drain(), self._root
        self._upload(events, root if self._client is not None else None)

    def _close_root(self, *, outputs: dict[str, Any], error: str | None = None) -> None:
        with self._lock:
            root, self._root = self._root, None
        if root is not None and self._client is not None:
            extra = {} if error is None else {"error": error}
            self._send("update_run", root, outputs=outputs, end_time=datetime.now(UTC), **extra)

    def _search_event(self, event: dict[str, Any], capped: bool) -> None:
        with self._lock:
            if self._client is None or self._root is None:
                return
            full = self._buffer.add_expand(event) if capped else self._buffer.add_uncapped(event)
            events = self._buffer.drain() if full else None
            root = self._root
        self._upload(events, root)

    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Open a round's run (closing and chaining to the previous one on a replan)."""
        previous = self._root
        if previous is not None:
            self._close_root(outputs={"status": "superseded_by_replan"})
        if self._client is None:
            return
        run_id = uuid.uuid4()
        with self._lock:
            self._root = run_id
            self._open_actions.clear()
            self._buffer.reset()
        goal_doc = next(
            (
                {k: _plain(getattr(goal, k))}
                for k in ("conditions", "goals")
                if getattr(goal, k, None) is not None
            ),
            _plain(goal),
        )
        run: dict[str, Any] = {
            "name": "goap_plan",
            "run_type": "chain",
            "inputs": {"goal": goal_doc, "state": _plain(state), "strategy": strategy_name},
            "id": run_id,
            "start_time": datetime.now(UTC),
            "extra": {"metadata": {"goap_strategy": strategy_name}},
        }
        if self._project_name is not None:
            run["project_name"] = self._project_name
        if previous is not None:
            run["parent_run_id"] = previous
        self._send("create_run", **run)

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Record the plan on the open round's run."""
        if self._client is None or self._root is None:
            return
        self._flush()
        self._annotate(planning_duration_ms=duration_ms, plan=_plan_doc(plan))

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Close the round's run with an error."""
        self._flush()
        self._close_root(
            outputs={"reason": reason, "duration_ms": duration_ms}, error=f"plan_failed: {reason}"
        )

    def on_action_start(self, action: Any, state: Any) -> None:
        """Open a tool run for the action under the round's run."""
        name = str(getattr(action, "name", "unknown"))
        run_id = uuid.uuid4()
        with self._lock:
            if self._client is None or self._root is None:
                return
            self._open_actions[name] = run_id
            parent = self._root
        inputs = {
            "action": _fields(action, ("name", "preconditions", "effects", "cost")),
            "state": _plain(state),
        }
        self._send(
            "create_run",
            name=f"goap_action:{name}",
            run_type="tool",
            inputs=inputs,
            id=run_id,
            start_time=datetime.now(UTC),
            parent_run_id=parent,
            project_name=self._project_name,
        )

    def on_action_complete(self, result: Any) -> None:
        """Close the action's run (``result``: an ActionResult or the executor's state update)."""
        if isinstance(result, dict):
            history = result.get("execution_history") or []
            result = history[-1] if history else None
        name = str(getattr(result, "action_name", "") or "")
        with self._lock:
            run_id = self._open_actions.pop(name, None) if self._client is not None else None
        if run_id is None:
            return
        failed = not getattr(result, "success", True)
        self._send(
            "update_run",
            run_id,
            outputs={"result": _fields(result, ("action_name", "success", "state_after", "error"))},
            error=str(getattr(result, "error", None) or "action_failed") if failed else None,
            end_time=datetime.now(UTC),
        )

    def on_action_retry(self, action: Any, attempt: int, exception: BaseException, backoff_ms: float) -> None:
        """Note a retry on the action's run."""
        run_id = self._open_actions.get(str(getattr(action, "name", "") or ""))
        if run_id is not None and self._client is not None:
            retry = {
                "exc_type": type(exception).__name__,
                "exc_message": str(exception),
                "backoff_ms": backoff_ms,
            }
            self._send("update_run", run_id, extra={"metadata": {f"retry_attempt_{attempt}": retry}})

    def on_strategy_chosen(self, strategy_name: str) -> None:
        """Note the routed strategy."""
        self._annotate(strategy_chosen=strategy_name)

    def on_replan(self, reason: str, new_plan: Any) -> None:
        """Note why the round replanned and its new plan."""
        self._annotate(replan_reason=reason, plan=_plan_doc(new_plan))

    def on_goal_achieved(self, final_state: Any) -> None:
        """Close the round's run as achieved."""
        self._flush()
        self._close_root(outputs={"status": "goal_achieved", "final_state": _plain(final_state)})

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Note a sensor's updates."""
        self._annotate(**{f"sensor_{sensor_name}": _plain(updates)})

    def on_search_expand(
        self,
        node_id: int,
        state: Any,
        g: float,
        h: float,
        f: float,
        parent_id: int | None,
        action_name: str | None,
    ) -> None:
        """Buffer an expansion event."""
        event = {
            "kind": "search_expand",
            "node_id": node_id,
            "parent_id": parent_id,
            "action_name": action_name,
        }
        self._search_event({**event, "g": g, "h": h, "f": f, "state": _plain(state)}, True)

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """Buffer a dead-end event."""
        self._search_event({"kind": "search_dead_end", "reason": reason, "detail": _plain(detail)}, False)

    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """Note the search's totals."""
        summary = {"nodes_explored": nodes_explored, "duration_ms": duration_ms, "found": found}
        self._annotate(search_summary=summary)


def _plan_doc(plan: Any) -> Any:
    names, cost = getattr(plan, "action_names", None), getattr(plan, "total_cost", None)
    if plan is None or (names is None and cost is None):
        return _plain(plan)
    return {"action_names": list(names or ()), "total_cost": cost}


def _async_twin(sync: Callable[..., None]) -> Callable[..., Any]:
    async def hook(self: LangSmithTracer, *args: Any, **kwargs: Any) -> None:
        sync(self, *args, **kwargs)

    hook.__doc__ = f"Async `{sync.__name__}`."
    return hook


for _hook in (*HOOKS, *EXTRA_HOOKS):
    setattr(LangSmithTracer, f"aon_{_hook}", _async_twin(getattr(LangSmithTracer, f"on_{_hook}")))
