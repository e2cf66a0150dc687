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
    "SQLiteStore",
    "StepConflictError",
    "StepRecord",
    "Store",
    "StoreError",
    "StoreUnavailableError",
]
