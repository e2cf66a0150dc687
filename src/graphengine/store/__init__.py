"""Persistence for graphengine runs: the `Store` protocol, its records, codecs and backends.

`MemoryStore` (tests), `SQLiteStore` (aiosqlite; the embedded default), `PostgresStore`
(asyncpg) and `MySQLStore` (asyncmy; MySQL, MariaDB, Aurora MySQL), the last two shared by many
processes on many machines, with leases and fencing (`LeaseStore`). Stores keep encoded state
and never decode it; `JsonCodec` is the default codec the engine uses. Server drivers are
imported on first use, so importing `store` never needs them.
"""

from graphengine.exports import publish as _publish

from ._lease import Lease
from .codec import Codec, JsonCodec, adaptable_type
from .errors import (
    CorruptRecordError,
    InvalidIdError,
    LeaseLostError,
    MissingDriverError,
    RunExistsError,
    ScheduleExistsError,
    StatusConflictError,
    StepConflictError,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)
from .ids import MAX_ID_CHARS, check_id
from .memory import MemoryStore
from .mysql import MySQLStore
from .postgres import PostgresStore
from .protocol import BranchLeaseStore, LeaseStore, RunLockStore, Store, WaitStore
from .prune import InvalidPolicyError, PruneMixin, PrunePolicy, PruneReport, prune
from .records import (
    BranchRecord,
    Checkpoint,
    Latest,
    RunRecord,
    RunStatus,
    SignalRecord,
    StepRecord,
    TimerRecord,
)
from .schedules import ScheduleRecord, ScheduleStore
from .sqlite import SQLiteStore
from .transfer import RunTransfer, export_run, import_run
from .url import open_store, register_scheme

__all__ = [
    "BranchLeaseStore",
    "BranchRecord",
    "Checkpoint",
    "Codec",
    "CorruptRecordError",
    "InvalidIdError",
    "InvalidPolicyError",
    "JsonCodec",
    "Latest",
    "Lease",
    "LeaseLostError",
    "LeaseStore",
    "MAX_ID_CHARS",
    "MemoryStore",
    "MissingDriverError",
    "MySQLStore",
    "PostgresStore",
    "PruneMixin",
    "PrunePolicy",
    "PruneReport",
    "RunExistsError",
    "RunLockStore",
    "RunRecord",
    "RunStatus",
    "RunTransfer",
    "SQLiteStore",
    "ScheduleExistsError",
    "ScheduleRecord",
    "ScheduleStore",
    "SignalRecord",
    "StatusConflictError",
    "StepConflictError",
    "StepRecord",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "TimerRecord",
    "ValueRefusedError",
    "WaitStore",
    "adaptable_type",
    "check_id",
    "export_run",
    "import_run",
    "open_store",
    "prune",
    "register_scheme",
]

_publish(__name__, globals(), __all__)
