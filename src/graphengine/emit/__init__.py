"""Events and emitters: how runs report what they do.

`Event` is the record, `Emitter` the protocol; `NullEmitter`, `MemoryEmitter` (tests),
`LogEmitter` (stdlib logging), `JSONLEmitter` (JSON lines file) and `MultiEmitter` need nothing
beyond the standard library. `OTelEmitter` (OpenTelemetry spans and metrics, `graphengine.emit.otel`) needs
only `opentelemetry-api` and is imported on first use. An emitter that raises never breaks a run.
"""

from typing import TYPE_CHECKING, Any

from graphengine.exports import publish as _publish

from .emitter import Emitter, JSONLEmitter, LogEmitter, MemoryEmitter, MultiEmitter, NullEmitter, safe_emit
from .event import Event, EventKind

if TYPE_CHECKING:
    from .otel import OTelEmitter

__all__ = [
    "Emitter",
    "Event",
    "EventKind",
    "JSONLEmitter",
    "LogEmitter",
    "MemoryEmitter",
    "MultiEmitter",
    "NullEmitter",
    "OTelEmitter",
    "safe_emit",
]


_publish(__name__, globals(), __all__)


def __getattr__(name: str) -> Any:
    # OpenTelemetry is imported only when `OTelEmitter` is first used.
    if name == "OTelEmitter":
        from .otel import OTelEmitter

        _publish(__name__, {name: OTelEmitter}, [name])
        return OTelEmitter
    raise AttributeError(f"module 'emit' has no attribute {name!r}")
