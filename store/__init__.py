"""Persistence for graphengine runs: the `Store` protocol, its records, codecs and backends.

`MemoryStore` (tests), `SQLiteStore` (aiosqlite; the embedded default). Stores keep encoded
state and never decode it; `JsonCodec` is the default codec the engine uses.
"""

from .codec import Codec, JsonCodec
from .errors import (
    CorruptRecordError,
    MissingDriverError,
    RunExistsError,
    StepConflictError,
    StoreError,
    StoreUnavailableError,
)
from .memory import MemoryStore
from .protocol import Store
from .records import BranchRecord, Checkpoint, Latest, RunRecord, RunStatus, StepRecord
from .sqlite import SQLiteStore
from .transfer import RunTransfer, export_run, import_run

__all__ = [
    "BranchRecord",
    "Checkpoint",
    "Codec",
    "CorruptRecordError",
    "JsonCodec",
    "Latest",
    "MemoryStore",
    "MissingDriverError",
    "RunExistsError",
    "RunRecord",
    "RunStatus",
    "RunTransfer",
    "SQLiteStore",
    "StepConflictError",
    "StepRecord",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "export_run",
    "import_run",
]
