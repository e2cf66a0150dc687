"""The storage under `GraphEngineSaver`: LangGraph checkpoints, blobs and writes in `lg_*` tables.

`CheckpointTable` is the protocol; `MemoryCheckpointTable` (tests), `SQLiteCheckpointTable`,
`PostgresCheckpointTable` and `MySQLCheckpointTable` keep the tables beside a graphengine store
(`beside(store)`: same file, schema or database, its own connections; `table_beside(store)`
for any store; `open_table(url)` from a store URL), on the store package's
driver glue and error translation. This package imports nothing of LangGraph, and the server
drivers only on first use.
"""

from ._memory import MemoryCheckpointTable
from ._mysql import MySQLCheckpointTable
from ._open import open_table, table_beside
from ._postgres import PostgresCheckpointTable
from ._protocol import CheckpointTable, LGBlobRow, LGCheckpointRow, LGQuery, LGWriteRow
from ._sqlite import SQLiteCheckpointTable

__all__ = [
    "CheckpointTable",
    "LGBlobRow",
    "LGCheckpointRow",
    "LGQuery",
    "LGWriteRow",
    "MemoryCheckpointTable",
    "MySQLCheckpointTable",
    "PostgresCheckpointTable",
    "SQLiteCheckpointTable",
    "open_table",
    "table_beside",
]
