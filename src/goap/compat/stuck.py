"""LangGOAP's stuck handlers, as goap `goap.runtime.StuckHandler`s seeing a LangGOAP state dict."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from goap.runtime import StuckResolution

__all__ = ["FunctionalStuckHandler", "MulticastStuckHandler", "StuckHandler", "StuckHandlerResult",
           "StuckHandlingResultCode", "as_goap_stuck_handlers"]  # fmt: skip

_log = logging.getLogger(__name__)


class StuckHandlingResultCode(enum.Enum):
    """Whether a handler found a way out."""

    REPLAN = "replan"
    NO_RESOLUTION = "no_resolution"


@dataclass(slots=True, frozen=True)
class StuckHandlerResult:
    """A handler's answer; on REPLAN, ``state_updates`` and ``new_goal`` apply before planning again."""

    code: StuckHandlingResultCode
    message: str
    handler_name: str | None = None
    state_updates: Mapping[str, Any] = field(default_factory=dict)
    new_goal: Any = None
    timestamp: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        object.__setattr__(self, "state_updates", MappingProxyType(dict(self.state_updates)))

    @classmethod
    def replan(cls, *, handler_name: str, message: str, state_updates: Mapping[str, Any] | None = None, new_goal: Any = None) -> StuckHandlerResult:  # fmt: skip
        """A REPLAN answer."""
        return cls(StuckHandlingResultCode.REPLAN, message, handler_name, state_updates or {}, new_goal)

    @classmethod
    def no_resolution(cls, *, handler_name: str | None, message: str) -> StuckHandlerResult:
        """A NO_RESOLUTION answer."""
        return cls(StuckHandlingResultCode.NO_RESOLUTION, message, handler_name)

    def to_goap(self) -> StuckResolution | None:
        """goap's resolution of a REPLAN (facts encoded, goal converted); None otherwise."""
        from goap.compat._convert import encode_map, to_goap_goal

        if self.code is not StuckHandlingResultCode.REPLAN:
            return None
        goal = None if self.new_goal is None else to_goap_goal(self.new_goal)
        return StuckResolution(self.message, encode_map(self.state_updates), goal)


@runtime_checkable
class StuckHandler(Protocol):
    """LangGOAP's handler protocol: a ``name`` and ``handle_stuck(state, reason) -> StuckHandlerResult``."""

    @property
    def name(self) -> str: ...
    def handle_stuck(self, state: Any, reason: Any) -> StuckHandlerResult: ...


class _AsGoap:
    handle_stuck: Callable[[Any, Any], StuckHandlerResult]

    def handle(self, state: Any, reason: Any) -> StuckResolution | None:
        """Ask ``handle_stuck`` about a run without a plan (reason: its no-plan explanation)."""
        from goap.compat._convert import state_to_langgoap

        if reason != "no_plan":
            return None
        out = self.handle_stuck(state_to_langgoap(state), state.no_plan_explanation)
        return out.to_goap() if isinstance(out, StuckHandlerResult) else None


@dataclass
class FunctionalStuckHandler(_AsGoap):
    """A handler from a function ``fn(state, reason) -> StuckHandlerResult``."""

    name: str
    fn: Callable[[Any, Any], StuckHandlerResult]

    def handle_stuck(self, state: Any, reason: Any) -> StuckHandlerResult:
        """Call ``fn``."""
        return self.fn(state, reason)


@dataclass
class MulticastStuckHandler(_AsGoap):
    """Asks its handlers in order: the first REPLAN wins; a raising handler counts as no resolution."""

    handlers: Sequence[Any]
    name: str = "multicast"

    def handle_stuck(self, state: Any, reason: Any) -> StuckHandlerResult:
        """The first REPLAN, or a NO_RESOLUTION naming every handler asked."""
        asked = []
        for h in self.handlers:
            asked.append(getattr(h, "name", type(h).__name__))
            try:
                out: StuckHandlerResult = h.handle_stuck(state, reason)
            except Exception as exc:
                _log.warning("stuck handler %r raised %r", asked[-1], exc)
                continue
            if out.code is StuckHandlingResultCode.REPLAN:
                return out
        msg = "No stuck handler could resolve it; asked: " + ", ".join(asked)
        return StuckHandlerResult.no_resolution(handler_name=None, message=msg)


def as_goap_stuck_handlers(handlers: Iterable[Any] | None) -> list[Any]:
    """LangGOAP stuck handlers as goap ones (goap asks them in order, as `MulticastStuckHandler`)."""
    wrap = MulticastStuckHandler
    return [h if isinstance(h, _AsGoap) else wrap([h], getattr(h, "name", "")) for h in handlers or ()]
