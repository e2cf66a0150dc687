# Ported from langgoap 0.1.2, langgoap/conditions.py: MIT licence, Copyright (c) 2024 Integrallis Software
# (goap/compat/LICENSE-langgoap), with its imports pointed at goap.compat.
"""Three-valued condition logic for runtime GOAP precondition resolution.

Implements the Orient phase of the OODA loop: after sensors update the
world-state, condition resolvers fill in values that cannot be directly
observed — they must be *inferred* (e.g. by asking an LLM whether a
prerequisite is true given the current context).

Three values are possible for any condition key:

* :attr:`ConditionStatus.TRUE` — the condition is satisfied; the resolved
  value ``True`` is written into world_state so the A* planner can use it.
* :attr:`ConditionStatus.FALSE` — the condition is known to be unsatisfied;
  ``False`` is written into world_state so precondition checks fail cleanly.
* :attr:`ConditionStatus.UNKNOWN` — the resolver cannot determine the value;
  the key is left absent from world_state, which causes the A* planner to
  treat actions that require it as unreachable (safe degradation).

Usage::

    from goap.compat.conditions import FunctionalConditionResolver, resolve_conditions

    resolver = FunctionalConditionResolver(
        "check_ready",
        lambda key, ws: ConditionStatus.TRUE if ws.get("loaded") else ConditionStatus.UNKNOWN,
    )
    updated_ws = resolve_conditions([resolver], ["ready"], world_state)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from typing import Any, Protocol, runtime_checkable

from goap.compat._logs import get_logger
from goap.compat._named import NamedCallable

logger = get_logger(__name__)


# ---------------------------------------------------------------------------
# Status enum
# ---------------------------------------------------------------------------


class ConditionStatus(str):
    """Three-valued truth value for runtime condition resolution.

    Subclasses ``str`` (not ``enum.Enum``) for JSON-serialisation
    compatibility and direct use as a dict key.  Use the module-level
    constants :data:`TRUE`, :data:`FALSE`, and :data:`UNKNOWN` instead of
    constructing instances directly.
    """

    TRUE: ConditionStatus
    FALSE: ConditionStatus
    UNKNOWN: ConditionStatus

    def __repr__(self) -> str:
        return f"ConditionStatus.{self.upper()}"

    def __bool__(self) -> bool:
        return self == ConditionStatus.TRUE


ConditionStatus.TRUE = ConditionStatus("true")
ConditionStatus.FALSE = ConditionStatus("false")
ConditionStatus.UNKNOWN = ConditionStatus("unknown")


def _to_status(value: Any) -> ConditionStatus:
    """Coerce a raw resolver return value to a :class:`ConditionStatus`."""
    if isinstance(value, ConditionStatus):
        return value
    if value is None:
        return ConditionStatus.UNKNOWN
    if isinstance(value, bool):
        return ConditionStatus.TRUE if value else ConditionStatus.FALSE
    if isinstance(value, str):
        norm = value.strip().lower()
        if norm in ("true", "yes", "1"):
            return ConditionStatus.TRUE
        if norm in ("false", "no", "0"):
            return ConditionStatus.FALSE
    return ConditionStatus.UNKNOWN


# ---------------------------------------------------------------------------
# Protocols
# ---------------------------------------------------------------------------


@runtime_checkable
class ConditionResolver(Protocol):
    """Synchronous condition resolver — duck-typed protocol."""

    @property
    def name(self) -> str:
        """Human-readable resolver name."""
        ...  # pragma: no cover

    def resolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Return the truth value of *key* given the current *world_state*."""
        ...  # pragma: no cover


@runtime_checkable
class AsyncConditionResolver(Protocol):
    """Asynchronous condition resolver — duck-typed protocol."""

    @property
    def name(self) -> str:
        """Human-readable resolver name."""
        ...  # pragma: no cover

    async def aresolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Async version of :meth:`ConditionResolver.resolve`."""
        ...  # pragma: no cover


# ---------------------------------------------------------------------------
# Concrete resolvers
# ---------------------------------------------------------------------------


class FunctionalConditionResolver(NamedCallable[Callable[[str, dict[str, Any]], Any]]):
    """Wrap a plain callable into a :class:`ConditionResolver`.

    The callable receives ``(key, world_state)`` and may return a
    :class:`ConditionStatus`, a plain ``bool``, or ``None`` (which maps
    to :attr:`ConditionStatus.UNKNOWN`).  Coroutine callables are also
    supported — they are awaitable via :meth:`aresolve`.

    Args:
        name: Human-readable resolver name.
        fn:   ``(key: str, world_state: dict) -> ConditionStatus | bool | None``
              A sync or async callable.

    Example::

        FunctionalConditionResolver(
            "stock_check",
            lambda key, ws: ConditionStatus.TRUE if ws.get("stock", 0) > 0
                            else ConditionStatus.FALSE,
        )
    """

    def resolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        result = self._fn(key, world_state)
        if asyncio.iscoroutine(result):
            # Close the unawaited coroutine to avoid a ResourceWarning before
            # raising — the coroutine will never be awaited from this path.
            result.close()
            raise TypeError(
                f"FunctionalConditionResolver {self._name!r}: the wrapped "
                "callable returned a coroutine but resolve() is synchronous. "
                "Either pass a sync callable or call aresolve() instead."
            )
        return _to_status(result)

    async def aresolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        result = self._fn(key, world_state)
        if asyncio.iscoroutine(result):
            return _to_status(await result)
        return _to_status(result)


class PromptConditionResolver:
    """Resolve a condition key by querying an LLM.

    Uses LangChain's ``BaseChatModel.with_structured_output`` to obtain a
    structured ``TRUE / FALSE / UNKNOWN`` answer from the model.  The
    model is given the condition key and the current world-state as context.

    Args:
        llm: Any LangChain ``BaseChatModel`` (ChatOpenAI, ChatAnthropic, …).
        prompt_template: Optional f-string template.  Available variables:
            ``{key}`` — the condition key being resolved;
            ``{world_state}`` — the current world state dict as a string.
            Defaults to a concise diagnostic prompt.
        timeout_s: Per-call timeout in seconds (default 30).

    Example::

        from langchain_openai import ChatOpenAI
        from goap.compat.conditions import PromptConditionResolver

        resolver = PromptConditionResolver(ChatOpenAI(model="gpt-4o-mini"))
        status = resolver.resolve("has_permission", {"user_role": "admin"})
    """

    _DEFAULT_PROMPT = (
        "You are a planning assistant. Determine whether the following condition "
        "is TRUE, FALSE, or UNKNOWN given the current world state.\n\n"
        "Condition key: {key}\n"
        "World state: {world_state}\n\n"
        "Respond with exactly one of: true, false, unknown."
    )

    def __init__(
        self,
        llm: Any,
        *,
        prompt_template: str | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        self._llm = llm
        self._prompt = prompt_template or self._DEFAULT_PROMPT
        self._timeout_s = timeout_s
        self._chain: Any | None = None

    @property
    def name(self) -> str:
        return "PromptConditionResolver"

    def _get_chain(self) -> Any:
        if self._chain is None:
            from pydantic import BaseModel

            class _Answer(BaseModel):
                status: str
                reasoning: str = ""

            self._chain = self._llm.with_structured_output(_Answer)
        return self._chain

    def _build_prompt(self, key: str, world_state: dict[str, Any]) -> str:
        return self._prompt.format(key=key, world_state=str(world_state))

    def _messages(self, key: str, world_state: dict[str, Any]) -> list[Any]:
        """The chat messages asking the LLM about ``key`` in ``world_state``."""
        from langchain_core.messages import HumanMessage

        return [HumanMessage(content=self._build_prompt(key, world_state))]

    def resolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Synchronously query the LLM and return a :class:`ConditionStatus`."""
        try:
            return _to_status(self._get_chain().invoke(self._messages(key, world_state)).status)
        except Exception as exc:
            return _llm_failed("PromptConditionResolver failed for key %r: %s — returning UNKNOWN", key, exc)

    async def aresolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Async LLM query."""
        try:
            response = await self._get_chain().ainvoke(self._messages(key, world_state))
            return _to_status(response.status)
        except Exception as exc:
            return _llm_failed("PromptConditionResolver.aresolve failed for key %r: %s — UNKNOWN", key, exc)


def _llm_failed(message: str, key: str, exc: Exception) -> ConditionStatus:
    # a failing LLM call is an unknown answer (the next resolver is asked), never a failed round
    logger.warning(message, key, exc)
    return ConditionStatus.UNKNOWN


# ---------------------------------------------------------------------------
# Runner helpers
# ---------------------------------------------------------------------------


def resolve_conditions(
    resolvers: list[ConditionResolver | AsyncConditionResolver],
    keys: list[str],
    world_state: dict[str, Any],
    *,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Run all resolvers against *keys* and return an updated world-state copy.

    Keys already present in *world_state* are skipped unless *overwrite* is
    ``True``.  :attr:`~ConditionStatus.TRUE` writes ``True``,
    :attr:`~ConditionStatus.FALSE` writes ``False``, and
    :attr:`~ConditionStatus.UNKNOWN` leaves the key absent.

    Args:
        resolvers: Registered condition resolvers.
        keys:      Condition keys to evaluate (typically from goal + action
                   preconditions).
        world_state: Current world state (not mutated; a copy is returned).
        overwrite:   Re-evaluate even when the key is already set (default
                     ``False``).

    Returns:
        Updated world-state dict with resolved TRUE/FALSE keys merged in.
    """
    updated = dict(world_state)
    questions = _questions(resolvers, keys, updated, overwrite)
    status: ConditionStatus | None = None
    while (question := _next_question(questions, status)) is not None:
        key, resolver = question
        status = None
        if not hasattr(resolver, "resolve"):
            logger.warning("Resolver %r is async-only; skipping key %r in sync path.", resolver.name, key)
            continue
        try:
            status = resolver.resolve(key, updated)
        except Exception as exc:
            _raised(resolver, key, exc)
    return updated


_Question = tuple[str, ConditionResolver | AsyncConditionResolver]


def _questions(
    resolvers: list[ConditionResolver | AsyncConditionResolver],
    keys: list[str],
    state: dict[str, Any],
    overwrite: bool,
) -> Generator[_Question, ConditionStatus | None, None]:
    """The order in which resolvers are asked, shared by the sync and async paths.

    Yields ``(key, resolver)``; the caller sends back the resolver's answer (None when it was
    skipped or raised). The first TRUE/FALSE answer for a key settles it into ``state``.
    """
    for key in _pending(keys, state, overwrite):
        for resolver in resolvers:
            status = yield key, resolver
            if status is not None and _settle(state, key, status):
                break
        else:
            _unknown(key, state)


def _next_question(
    questions: Generator[_Question, ConditionStatus | None, None], answer: ConditionStatus | None
) -> _Question | None:
    """Send the last answer and take the next question; None when every key is done."""
    try:
        return questions.send(answer)
    except StopIteration:
        return None


def _pending(keys: list[str], state: dict[str, Any], overwrite: bool) -> list[str]:
    """The keys to resolve: all of them with ``overwrite``, else those not set yet."""
    return [k for k in keys if overwrite or k not in state]


def _settle(state: dict[str, Any], key: str, status: ConditionStatus) -> bool:
    """Write a TRUE/FALSE answer into ``state``; False for UNKNOWN (ask the next resolver)."""
    if status == ConditionStatus.TRUE or status == ConditionStatus.FALSE:
        state[key] = status == ConditionStatus.TRUE
        return True
    return False


def _raised(resolver: Any, key: str, exc: Exception) -> None:
    # a failing resolver is one unknown answer, never a failed planning round
    logger.warning("Resolver %r raised for key %r: %s", resolver.name, key, exc)


def _unknown(key: str, state: dict[str, Any]) -> None:
    if key not in state:
        logger.debug("All resolvers returned UNKNOWN for key %r — leaving absent", key)


async def aresolve_conditions(
    resolvers: list[ConditionResolver | AsyncConditionResolver],
    keys: list[str],
    world_state: dict[str, Any],
    *,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Async variant of :func:`resolve_conditions`.

    Uses ``aresolve`` when available, falls back to ``resolve`` in a thread
    executor for sync-only resolvers.
    """
    updated = dict(world_state)
    loop = asyncio.get_running_loop()
    questions = _questions(resolvers, keys, updated, overwrite)
    status: ConditionStatus | None = None
    while (question := _next_question(questions, status)) is not None:
        key, resolver = question
        status = None
        try:
            if hasattr(resolver, "aresolve"):
                status = await resolver.aresolve(key, updated)
            elif hasattr(resolver, "resolve"):
                status = await loop.run_in_executor(None, resolver.resolve, key, updated)
        except Exception as exc:
            _raised(resolver, key, exc)
    return updated


__all__ = [
    "AsyncConditionResolver",
    "ConditionResolver",
    "ConditionStatus",
    "FunctionalConditionResolver",
    "PromptConditionResolver",
    "aresolve_conditions",
    "resolve_conditions",
]
