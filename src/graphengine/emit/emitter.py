"""The `Emitter` protocol and the emitters that need no third-party package."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Protocol, runtime_checkable

from .event import Event, EventKind

__all__ = [
    "Emitter",
    "JSONLEmitter",
    "LogEmitter",
    "MemoryEmitter",
    "MultiEmitter",
    "NullEmitter",
    "safe_emit",
]

_log = logging.getLogger("emit")


@runtime_checkable
class Emitter(Protocol):
    """Receives events from runs. `emit` must be cheap and must not block the event loop for long.

    An emitter may raise; the engine catches and logs the error and the run goes on
    (observability never changes behaviour).
    """

    def emit(self, event: Event) -> None:
        """Handle one event."""
        ...


def safe_emit(emitter: Emitter, event: Event) -> None:
    """Deliver `event`, logging instead of raising if the emitter fails."""
    try:
        emitter.emit(event)
    except Exception:
        _log.exception("emitter %r failed on %s event of run %r", emitter, event.kind, event.run_id)


class NullEmitter:
    """Drops every event. The engine recognises it and skips building events at all."""

    def emit(self, event: Event) -> None:
        """Do nothing."""


class MemoryEmitter:
    """Keeps every event in `.events`, in emission order; the test double for emitters."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        """Events received so far."""

    def emit(self, event: Event) -> None:
        """Append the event to `.events`."""
        self.events.append(event)

    def kinds(self) -> list[str]:
        """Return the kinds of the kept events, in order (handy in assertions)."""
        return [str(e.kind) for e in self.events]

    def of_kind(self, kind: EventKind | str) -> list[Event]:
        """Return the kept events of one kind."""
        return [e for e in self.events if e.kind == kind]

    def clear(self) -> None:
        """Forget the kept events."""
        self.events.clear()


class LogEmitter:
    """Writes each event to a stdlib `logging` logger (errors at ERROR, streamed tokens at DEBUG
    since there is one per piece of a model's answer, the rest at `level`)."""

    def __init__(self, logger: logging.Logger | str = "graphengine", level: int = logging.INFO) -> None:
        self._logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self._level = level

    def emit(self, event: Event) -> None:
        """Log the event with its run, step and node as `extra` fields."""
        kind = event.kind
        level = (
            logging.ERROR
            if kind == EventKind.ERROR
            else logging.DEBUG
            if kind == EventKind.TOKEN
            else self._level
        )
        if not self._logger.isEnabledFor(level):
            return
        self._logger.log(
            level,
            "%s run=%s step=%d node=%s %s",
            event.kind,
            event.run_id,
            event.step,
            event.node_id,
            event.msg,
            extra={"run_id": event.run_id, "step": event.step, "node_id": event.node_id, "meta": event.meta},
        )


class JSONLEmitter:
    """Appends one JSON object per event to a file (JSON lines).

    Lines are written as events arrive and flushed at the end of each run and on `close()`, so a
    reader sees whole lines only. Values in `meta` that JSON cannot encode are written with `str()`.
    Safe to share between concurrent runs and threads.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        """The file events are appended to."""
        self._fh: IO[str] | None = None
        self._lock = threading.Lock()

    def emit(self, event: Event) -> None:
        """Append the event as one line."""
        line = json.dumps(event.to_dict(), default=str, separators=(",", ":"))
        with self._lock:
            if self._fh is None:
                self._fh = self.path.open("a", encoding="utf-8")
            self._fh.write(line + "\n")
            if event.kind == EventKind.RUN_END or event.kind == EventKind.ERROR:
                self._fh.flush()

    def flush(self) -> None:
        """Flush buffered lines to the file."""
        with self._lock:
            if self._fh is not None:
                self._fh.flush()

    def close(self) -> None:
        """Flush and close the file; a later event reopens it."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None


class MultiEmitter:
    """Sends each event to several emitters; one failing emitter does not starve the others."""

    def __init__(self, *emitters: Emitter | Iterable[Emitter]) -> None:
        flat: list[Emitter] = []
        for e in emitters:
            if isinstance(e, Emitter):
                flat.append(e)
            else:
                flat.extend(e)
        self.emitters: tuple[Emitter, ...] = tuple(flat)
        """The emitters events are fanned out to, in order."""

    def emit(self, event: Event) -> None:
        """Deliver the event to every emitter, isolating their failures."""
        for e in self.emitters:
            safe_emit(e, event)
