"""`open_table(url)`, `table_beside(store)`: the checkpoint tables beside a store, or the store a URL names."""

from __future__ import annotations

from graphengine.store import (
    MemoryStore,
    MySQLStore,
    PostgresStore,
    SQLiteStore,
    Store,
    StoreUnavailableError,
)
from graphengine.store.url import open_store

from ._memory import MemoryCheckpointTable
from ._mysql import MySQLCheckpointTable
from ._postgres import PostgresCheckpointTable
from ._protocol import CheckpointTable
from ._sqlite import SQLiteCheckpointTable

__all__ = ["open_table", "table_beside"]


def open_table(url: str) -> CheckpointTable:
    """The `lg_*` tables beside the store `url` names, in the URLs of `graphengine.store.open_store`.

    `sqlite:///cp.db` (the file), `postgresql://host/db?schema=s` (that schema),
    `mysql://host/db` (that database), `memory://` (in this process). Nothing connects before
    first use. Raises `StoreUnavailableError` for a malformed URL or an unknown scheme (naming
    the known ones) and `MissingDriverError` when the backend's extra is missing.
    """
    store = open_store(url)
    table = table_beside(store)
    if table is None:
        raise StoreUnavailableError(
            f"no LangGraph checkpoint tables for a {type(store).__name__} (from {url!r})"
        )
    return table


def table_beside(store: Store) -> CheckpointTable | None:
    """The `lg_*` tables where `store` keeps its runs (same SQLite file, PostgreSQL schema or MySQL
    database, on connections of their own; in this process for a `MemoryStore`), or None for a
    store kind that has none. Nothing connects before first use."""
    if isinstance(store, MemoryStore):
        return MemoryCheckpointTable()
    if isinstance(store, SQLiteStore):
        return SQLiteCheckpointTable.beside(store)
    if isinstance(store, PostgresStore):
        return PostgresCheckpointTable.beside(store)
    if isinstance(store, MySQLStore):
        return MySQLCheckpointTable.beside(store)
    return None
