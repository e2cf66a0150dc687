"""The SQL core the server and file stores share: algorithms written once over a small driver interface.

`SQLStore` holds what every SQL backend does the same way (row checks, step and branch writes
with their refusals explained, status compare-and-set, checkpoints, integrity checks);
`LeaseMixin` the lease bookkeeping; `PoolMixin` the per-event-loop connection pool;
`WriterMixin` the connection held out of it for step writes; `GroupedRunsMixin` new runs and
status changes of concurrent runs grouped in one statement. A backend keeps only its dialect
(`Statements`) and its driver glue (`_count`, `_rows`, error translation).
"""

from ._core import PORTABLE, LeaseMixin, Op, SQLStore, Statements, meta_text, run_record
from ._grouped import RUN_COLUMNS, STATUS_COLUMNS, Grouped, GroupedRunsMixin, group_rows
from ._pool import (
    LOCK_TIMEOUT,
    LoopPoolsMixin,
    OneLoopMixin,
    OpenOnEnter,
    Pick,
    PoolMixin,
    always,
    check_lock_timeout,
    check_pool_size,
    driver_error,
    key_conflict,
    refused,
    terminate,
)
from ._waits import WaitsMixin, WaitStatements
from ._writer import WriterMixin

__all__ = [
    "LOCK_TIMEOUT",
    "PORTABLE",
    "RUN_COLUMNS",
    "STATUS_COLUMNS",
    "Grouped",
    "GroupedRunsMixin",
    "LeaseMixin",
    "LoopPoolsMixin",
    "OneLoopMixin",
    "Op",
    "OpenOnEnter",
    "Pick",
    "PoolMixin",
    "SQLStore",
    "Statements",
    "WaitStatements",
    "WaitsMixin",
    "WriterMixin",
    "always",
    "check_lock_timeout",
    "check_pool_size",
    "driver_error",
    "group_rows",
    "key_conflict",
    "meta_text",
    "refused",
    "run_record",
    "terminate",
]
