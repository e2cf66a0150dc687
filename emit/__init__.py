"""Events and emitters: how runs report what they do.

`Event` is the record, `Emitter` the protocol; `NullEmitter`, `MemoryEmitter` (tests),
`LogEmitter` (stdlib logging), `JSONLEmitter` (JSON lines file) and `MultiEmitter` need nothing
beyond the standard library. An emitter that raises never breaks a run.
"""

from .emitter import Emitter, JSONLEmitter, LogEmitter, MemoryEmitter, MultiEmitter, NullEmitter, safe_emit
from .event import Event, EventKind

__all__ = [
    "Emitter",
    "Event",
    "EventKind",
    "JSONLEmitter",
    "LogEmitter",
    "MemoryEmitter",
    "MultiEmitter",
    "NullEmitter",
    "safe_emit",
]
