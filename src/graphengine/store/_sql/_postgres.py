"""PostgreSQL driver glue (asyncpg) shared by `PostgresStore` and the LangGraph checkpoint tables.

Driver exceptions are translated in ONE table keyed by SQLSTATE class and client exception name
(`TRANSLATE`, checked complete by `tests/store/test_store_postgres.py`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from types import ModuleType
from typing import Final

from ..errors import (
    CorruptRecordError,
    MissingDriverError,
    StoreError,
    StoreUnavailableError,
)
from ._core import Op
from ._pool import always as _always
from ._pool import driver_error, key_conflict, refused

__all__ = [
    "CREATE_SCHEMA",
    "OTHER_ERRORS",
    "SCHEMA_NAME",
    "TRANSLATE",
    "connection_class",
    "driver",
    "translate",
]

SCHEMA_NAME: Final = re.compile(r"[a-z_][a-z0-9_]{0,62}")
"""What a schema name may be (it is spliced into DDL, so it is checked first)."""
CREATE_SCHEMA: Final = "SELECT format('CREATE SCHEMA IF NOT EXISTS %I', $1::text)"
"""Returns the DDL creating schema $1 (quoted by the server)."""


# --------------------------------------------------------------------------------------------
# Driver exceptions -> StoreError. ONE table: server errors are keyed by their SQLSTATE class
# (the first two characters of `sqlstate`), client-side errors by exception class name (walked
# up the MRO). tests/store/test_store_postgres.py fails if asyncpg defines a SQLSTATE class or a
# client exception that has no entry. Each entry picks the StoreError subclass from the
# exception and the operation that failed.

_Pick = Callable[[BaseException, Op], type[StoreError]]

_UNIQUE: Final = "23505"
_FOREIGN_KEY: Final = "23503"


def _integrity(exc: BaseException, op: Op) -> type[StoreError]:
    # Only "that key is taken" / "its parent is missing" are conflicts; NOT NULL, CHECK and
    # exclusion violations mean a bad value was passed.
    if getattr(exc, "sqlstate", "") in (_UNIQUE, _FOREIGN_KEY):
        return key_conflict(op)
    return refused(exc, op)


def _internal(exc: BaseException, op: Op) -> type[StoreError]:
    # XX001 data_corrupted, XX002 index_corrupted; XX000 is a server bug.
    return CorruptRecordError if getattr(exc, "sqlstate", "") in ("XX001", "XX002") else StoreError


def _unavailable_on_open(exc: BaseException, op: Op) -> type[StoreError]:
    # A missing table or schema at open means the database is not ours (or not set up);
    # later, it is a bug or someone dropped our tables: either way the store cannot go on.
    return StoreUnavailableError


_UNAVAILABLE: Final = _always(StoreUnavailableError)
_ERROR: Final = _always(StoreError)

# What asyncpg says when the connection is gone (the server killed it, the network dropped it)
# through its client-side errors, which otherwise mean misuse of the driver.
_GONE: Final = ("connection is closed", "not connected", "pool is closed", "pool is closing")


def _client(exc: BaseException, op: Op) -> type[StoreError]:
    # InterfaceError("connection is closed"), InternalClientError("not connected"): a connection
    # killed mid-step is transient (StoreUnavailableError, the run stays resumable), not a bug.
    text = str(exc)
    return StoreUnavailableError if any(g in text for g in _GONE) else StoreError


_REFUSED: Final = refused

TRANSLATE: Final[dict[str, _Pick]] = {
    # ---- server errors, by SQLSTATE class (https://www.postgresql.org/docs/current/errcodes-appendix.html)
    "03": _ERROR,  # SQL statement not yet complete
    "08": _UNAVAILABLE,  # connection exception
    "09": _ERROR,  # triggered action exception
    "0A": _ERROR,  # feature not supported
    "0B": _ERROR,  # invalid transaction initiation
    "0F": _ERROR,  # locator exception
    "0L": _UNAVAILABLE,  # invalid grantor
    "0P": _UNAVAILABLE,  # invalid role specification
    "0Z": _ERROR,  # diagnostics exception
    "10": _ERROR,  # XQuery error
    "20": _ERROR,  # case not found
    "21": _ERROR,  # cardinality violation
    # data exception: a value the column cannot hold (NUL in text, bad JSON, out of range); asyncpg
    # raises it with SQLSTATE 22000 too for a parameter it cannot encode (a lone surrogate, an int
    # over 64 bits)
    "22": _REFUSED,
    "23": _integrity,  # integrity constraint violation
    "24": _ERROR,  # invalid cursor state
    "25": _ERROR,  # invalid transaction state (read-only transaction, ...)
    "26": _ERROR,  # invalid SQL statement name
    "27": _ERROR,  # triggered data change violation
    "28": _UNAVAILABLE,  # invalid authorization specification (bad password, no such role)
    "2B": _ERROR,  # dependent privilege descriptors still exist
    "2D": _ERROR,  # invalid transaction termination
    "2F": _ERROR,  # SQL routine exception
    "34": _ERROR,  # invalid cursor name
    "38": _ERROR,  # external routine exception
    "39": _ERROR,  # external routine invocation exception
    "3B": _ERROR,  # savepoint exception
    "3D": _UNAVAILABLE,  # invalid catalog name: the database does not exist
    "3F": _unavailable_on_open,  # invalid schema name
    "40": _UNAVAILABLE,  # transaction rollback (serialization failure, deadlock): retry later
    "42": _ERROR,  # syntax error or access rule violation (undefined table: a bug or a dropped table)
    "44": _ERROR,  # WITH CHECK OPTION violation
    "53": _UNAVAILABLE,  # insufficient resources (disk full, out of memory, too many connections)
    "54": _REFUSED,  # program limit exceeded (a value too large to index, a row over 1 GB, ...)
    "55": _UNAVAILABLE,  # object not in prerequisite state (lock not available, ...)
    "57": _UNAVAILABLE,  # operator intervention (shutdown, statement timeout, cancel)
    "58": _UNAVAILABLE,  # system error (I/O error)
    "72": _UNAVAILABLE,  # snapshot too old
    "F0": _UNAVAILABLE,  # configuration file error
    "HV": _ERROR,  # foreign data wrapper error
    "P0": _ERROR,  # PL/pgSQL error
    "XX": _internal,  # internal error
    # ---- client-side errors, by class name (no SQLSTATE)
    "PostgresError": _ERROR,  # a server error with an unknown SQLSTATE class
    "InterfaceError": _client,  # misuse of the driver (a parameter of the wrong type), or a closed connection
    "ConnectionDoesNotExistError": _UNAVAILABLE,  # the connection was closed under us
    "ClientConfigurationError": _UNAVAILABLE,  # a bad DSN or connection option
    "UnsupportedClientFeatureError": _ERROR,
    "UnsupportedServerFeatureError": _UNAVAILABLE,
    "InternalClientError": _client,  # "not connected": the connection is gone
    "ProtocolError": _UNAVAILABLE,  # the server spoke gibberish: not a usable connection
    "OutdatedSchemaCacheError": _ERROR,
    "TargetServerAttributeNotMatched": _UNAVAILABLE,
    "OSError": _UNAVAILABLE,  # cannot connect (refused, unreachable), broken pipe
    "TimeoutError": _UNAVAILABLE,  # connect or command timeout
}


def pick(exc: BaseException) -> _Pick:
    state = getattr(exc, "sqlstate", None)
    if isinstance(state, str) and state[:2] in TRANSLATE:
        return TRANSLATE[state[:2]]
    for cls in type(exc).__mro__:
        pick = TRANSLATE.get(cls.__name__)
        if pick is not None:
            return pick
    return _ERROR


def driver() -> ModuleType:
    """asyncpg, imported on first use so the extra is needed only by those who use this store."""
    try:
        import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information
    except ImportError as exc:
        raise MissingDriverError(
            "PostgresStore needs the asyncpg driver: pip install 'graphengine[postgres]'"
        ) from exc
    mod: ModuleType = asyncpg
    return mod


@functools.cache
def connection_class() -> type:
    """asyncpg's connection without the reset query on release (see the module docstring)."""

    class _StatelessConnection(driver().Connection):  # type: ignore[misc]  # untyped driver
        def get_reset_query(self) -> str:
            return ""

    return _StatelessConnection


# Exceptions the driver raises besides its own (connection failures surface as OSError).
OTHER_ERRORS: Final = (OSError, TimeoutError)


def translate(
    exc: BaseException, op: Op, where: str, *, run_id: str | None = None, step: int | None = None
) -> StoreError:
    """Turn a driver exception into the `StoreError` subclass the table picks (caller adds `from exc`)."""
    return driver_error(pick(exc)(exc, op), exc, op, where, run_id=run_id, step=step)
