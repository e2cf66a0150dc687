"""Open a store from a URL: `open_store("sqlite:///runs.db")`, as the `graphengine` CLI does.

    sqlite:///runs.db            SQLiteStore on runs.db (relative to the working directory)
    sqlite:////var/lib/runs.db   SQLiteStore on /var/lib/runs.db (four slashes: absolute path)
    memory://                    MemoryStore (lives as long as the process)
    postgresql://user@host/db    PostgresStore (the URL is its DSN; `pip install graphengine[postgres]`)
    postgresql://h/db?schema=s   PostgresStore with its tables in schema `s` (default: graphengine)
    mysql://user@host/db         MySQLStore (MySQL, MariaDB, Aurora MySQL; `pip install graphengine[mysql]`)

A backend adds its scheme with one `register_scheme(name, opener)` call (or one entry in
`_OPENERS` below); openers import their driver lazily, so a URL for a backend whose extra is
not installed fails with that backend's `MissingDriverError`, not at import.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from .errors import StoreUnavailableError
from .memory import MemoryStore
from .protocol import Store

__all__ = ["open_store", "register_scheme"]

Opener = Callable[[str, bool], Store]
"""Builds a store from the whole URL; the flag says whether a missing database may be created."""


def _sqlite(url: str, create: bool) -> Store:
    from .sqlite import SQLiteStore

    rest = url.split(":", 1)[1]
    if not rest.startswith("///"):
        raise StoreUnavailableError(
            f"bad SQLite URL {url!r}: use sqlite:///relative/path.db or sqlite:////absolute/path.db"
        )
    path = unquote(rest[3:].split("?", 1)[0])
    if not path:
        raise StoreUnavailableError(f"bad SQLite URL {url!r}: no file name (sqlite:///runs.db)")
    if path != ":memory:" and not create and not Path(path).exists():
        raise StoreUnavailableError(f"no SQLite store at {path!r} (from {url!r}): the file does not exist")
    return SQLiteStore(path)


def _memory(url: str, create: bool) -> Store:
    return MemoryStore()


def _postgres(url: str, create: bool) -> Store:
    from .postgres import PostgresStore

    # `schema` is ours, not libpq's: take it out of the DSN the driver sees.
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in query if k == "schema"]
    if not schemas:
        return cast(Store, PostgresStore(url))
    dsn = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query if k != "schema"])))
    try:
        return cast(Store, PostgresStore(dsn, schema=schemas[-1]))
    except ValueError as exc:
        raise StoreUnavailableError(f"bad PostgreSQL URL: {exc}") from exc


def _mysql(url: str, create: bool) -> Store:
    from .mysql import MySQLStore

    return cast(Store, MySQLStore(url))


_OPENERS: dict[str, Opener] = {
    "sqlite": _sqlite,
    "memory": _memory,
    "postgres": _postgres,
    "postgresql": _postgres,
    "mysql": _mysql,
}


def register_scheme(scheme: str, opener: Opener) -> None:
    """Make `open_store` open URLs of `scheme` (case-insensitive) with `opener(url, create)`."""
    _OPENERS[scheme.lower()] = opener


def open_store(url: str, *, create: bool = True) -> Store:
    """The store a URL names (not yet connected: stores connect on first use).

    With `create=False` a URL naming a database file that does not exist is refused instead
    of creating an empty one. Raises `StoreUnavailableError` for a malformed URL or an unknown
    scheme (naming the known ones), `MissingDriverError` when the backend's extra is missing.
    """
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    opener = _OPENERS.get(scheme)
    if opener is None:
        known = ", ".join(f"{s}://" for s in sorted(_OPENERS))
        what = f"unknown store scheme {scheme + '://'!r}" if scheme else "not a store URL"
        raise StoreUnavailableError(f"{what} in {url!r}; expected one of {known} (e.g. sqlite:///runs.db)")
    return opener(url, create)
