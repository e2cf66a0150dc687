"""`open_table(url)`: the checkpoint tables beside the store a URL names."""

from __future__ import annotations

from graphengine.store import MemoryStore, MySQLStore, PostgresStore, SQLiteStore, StoreUnavailableError
from graphengine.store.url import open_store

from ._memory import MemoryCheckpointTable
from ._mysql import MySQLCheckpointTable
from ._postgres import PostgresCheckpointTable
from ._protocol import CheckpointTable
from ._sqlite import SQLiteCheckpointTable

__all__ = ["open_table"]


def open_table(url: str) -> CheckpointTable:
    """The `lg_*` tables beside the store `url` names, in the URLs of `graphengine.store.open_store`.

    `sqlite:///cp.db` (the file), `postgresql://host/db?schema=s` (that schema),
    `mysql://host/db` (that database), `memory://` (in this process). Nothing connects before
    first use. Raises `StoreUnavailableError` for a malformed URL or an unknown scheme (naming
    the known ones) and `MissingDriverError` when the backend's extra is missing.
    """
    store = open_store(url)
    if isinstance(store, MemoryStore):
        return MemoryCheckpointTable()
    if isinstance(store, SQLiteStore):
        return SQLiteCheckpointTable.beside(store)
    if isinstance(store, PostgresStore):
        return PostgresCheckpointTable.beside(store)
    if isinstance(store, MySQLStore):
        return MySQLCheckpointTable.beside(store)
    raise StoreUnavailableError(f"no LangGraph checkpoint tables for a {type(store).__name__} (from {url!r})")
