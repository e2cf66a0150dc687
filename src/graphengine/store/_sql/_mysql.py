"""MySQL and MariaDB driver glue (asyncmy) shared by `MySQLStore` and the LangGraph checkpoint tables.

Driver exceptions are translated in ONE table (`TRANSLATE`, by exception class, each entry looking
at the MySQL error number), checked complete by `tests/store/test_store_mysql.py`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Callable, Sequence
from types import ModuleType
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from ..errors import (
    CorruptRecordError,
    MissingDriverError,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)
from ._core import Op
from ._pool import PoolSettings, driver_error, key_conflict, refused
from ._pool import always as _always

__all__ = [
    "MySQLPools",
    "OTHER_ERRORS",
    "DEADLOCK",
    "NOTES_OFF",
    "NOTES_ON",
    "RETRYABLE",
    "TRANSLATE",
    "acquire",
    "breaks_connection",
    "driver",
    "errno",
    "parse_dsn",
    "text",
    "translate",
]


def text(value: Any, run_id: Any = None, field: str = "run_id") -> str:
    """A key column (VARBINARY since v2) as the str it was written from."""
    if isinstance(value, str):
        return value
    try:
        return bytes(value).decode()
    except (UnicodeDecodeError, TypeError) as exc:
        raise CorruptRecordError(
            f"record of run {run_id if run_id is not None else value!r} is corrupt: field {field!r} "
            f"holds {value!r:.60}, not UTF-8 text",
            field=field,
        ) from exc


# --------------------------------------------------------------------------------------------
# Driver exceptions -> StoreError. ONE table keyed by asyncmy exception class name (walked up the
# MRO); each entry looks at the MySQL error number (args[0]). Error numbers:
# https://mariadb.com/kb/en/mariadb-error-codes/ and the MySQL server error reference.

_Pick = Callable[[BaseException, Op], type[StoreError]]

_DUPLICATE_KEY: Final = 1062
_NO_PARENT: Final = frozenset({1452, 1216})  # foreign key: parent row missing
RETRYABLE: Final = frozenset({1213, 1205})  # deadlock victim, lock wait timeout
DEADLOCK: Final = 1213
_UNAVAILABLE_ERRNOS: Final = frozenset(
    {
        1040,  # too many connections
        1044,  # access denied to database
        1045,  # access denied for user
        1049,  # unknown database
        1053,  # server shutdown in progress
        1152,  # aborted connection
        1205,  # lock wait timeout
        1213,  # deadlock
        1290,  # read-only server (--read-only, a replica)
        1792,  # read-only transaction
        2002,  # cannot connect through socket
        2003,  # cannot connect to server
        2006,  # server has gone away
        2013,  # lost connection during query
    }
)

# Errors about a value the server can never take, however often it is sent.
_REFUSED_ERRNOS: Final = frozenset(
    {
        1048,  # column cannot be null
        1153,  # a packet larger than max_allowed_packet
        1264,  # out of range value (an int over 64 bits)
        1301,  # a result larger than max_allowed_packet
        1366,  # incorrect string value (invalid UTF-8: a lone surrogate)
        1406,  # data too long for column
        3140,  # invalid JSON text (MySQL)
        3819,  # check constraint violated (MySQL)
        4025,  # CONSTRAINT failed (MariaDB's CHECK)
    }
)


NOTES_OFF: Final = "SET SESSION sql_notes = 0"
"""Stop recording notes (e.g. "Table 'x' already exists" of CREATE TABLE IF NOT EXISTS), which
the driver would log to stderr; `NOTES_ON` restores the default before the connection is reused."""
NOTES_ON: Final = "SET SESSION sql_notes = 1"


def errno(exc: BaseException) -> int:
    args = getattr(exc, "args", ())
    return args[0] if args and isinstance(args[0], int) else 0


def _integrity(exc: BaseException, op: Op) -> type[StoreError]:
    # A taken key or a missing parent row is a conflict; NOT NULL and CHECK (JSON_VALID)
    # failures mean a bad value was passed.
    code = errno(exc)
    if code == _DUPLICATE_KEY or code in _NO_PARENT:
        return key_conflict(op, run_taken=code == _DUPLICATE_KEY)
    return refused(exc, op)


def _operational(exc: BaseException, op: Op) -> type[StoreError]:
    code = errno(exc)
    if code in _UNAVAILABLE_ERRNOS or op == "open":
        return StoreUnavailableError
    if code in (1030, 1034, 1035, 126, 127, 134, 145):  # storage engine / table marked crashed
        return CorruptRecordError
    if code in _REFUSED_ERRNOS:  # MariaDB reports some constraint failures as operational (4025)
        return refused(exc, op)
    # Otherwise only a taken key or missing parent is known; an unknown error is not the value's.
    kind = _integrity(exc, op)
    return StoreError if kind is ValueRefusedError else kind


TRANSLATE: Final[dict[str, _Pick]] = {
    "IntegrityError": _integrity,
    "OperationalError": _operational,
    "InternalError": _operational,  # e.g. deadlock, lock timeouts on some servers
    "DataError": refused,  # a value the column cannot hold
    "ProgrammingError": _operational,  # unknown table/database (1146/1049) comes as this
    "NotSupportedError": _always(StoreError),
    "DatabaseError": _operational,
    "InterfaceError": _always(StoreUnavailableError),  # the connection is closed or broken
    "Error": _operational,
    "MySQLError": _operational,
    "Warning": _always(StoreError),
    # asyncmy encodes a str itself: a lone surrogate fails there, before anything is sent
    "UnicodeEncodeError": refused,
    "OSError": _always(StoreUnavailableError),  # cannot connect, broken pipe
    "TimeoutError": _always(StoreUnavailableError),
}


def translate(
    exc: BaseException, op: Op, where: str, *, run_id: str | None = None, step: int | None = None
) -> StoreError:
    """Turn a driver exception into the `StoreError` subclass the table picks (caller adds `from exc`)."""
    kind: type[StoreError] = StoreError
    for cls in type(exc).__mro__:
        pick = TRANSLATE.get(cls.__name__)
        if pick is not None:
            kind = pick(exc, op)
            break
    return driver_error(kind, exc, op, where, run_id=run_id, step=step)


def driver() -> ModuleType:
    """asyncmy, imported on first use so the extra is needed only by those who use this store."""
    try:
        import asyncmy
    except ImportError as exc:
        raise MissingDriverError(
            "MySQLStore needs the asyncmy driver: pip install 'graphengine[mysql]'"
        ) from exc
    mod: ModuleType = asyncmy
    return mod


def parse_dsn(dsn: str) -> dict[str, Any]:
    url = urlsplit(dsn)
    if url.scheme not in ("mysql", "mariadb", "mysql+asyncmy"):
        raise ValueError(f"dsn scheme {url.scheme!r}; expected mysql://user:password@host:port/database")
    database = url.path.lstrip("/")
    if not database:
        raise ValueError("dsn names no database; expected mysql://user:password@host:port/database")
    return {
        "host": url.hostname or "127.0.0.1",
        "port": url.port or 3306,
        "user": unquote(url.username or "root"),
        "password": unquote(url.password or ""),
        "db": unquote(database),
    }


_READ_COMMITTED: Final = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"
# Filled with an int only (`lock_timeout` rounded up), never with text.
_LOCK_WAIT: Final = "; SET SESSION innodb_lock_wait_timeout = {:d}"

# UnicodeEncodeError: asyncmy encodes a str with a lone surrogate itself (a bad value).
OTHER_ERRORS: Final = (OSError, TimeoutError, UnicodeEncodeError)

# Server errors after which the server has closed the connection: a packet over
# max_allowed_packet, shutdown, an aborted or killed connection.
_SERVER_CLOSED: Final = frozenset({1053, 1152, 1153, 1927})


def breaks_connection(exc: BaseException) -> bool:
    """Whether a failure may have left its connection unusable.

    Unusable: the server closed it (`_SERVER_CLOSED`), a client error (2000-2999: gone away, lost),
    or a failure with no server error number (a cancellation that left a reply unread, a protocol
    error). A server error about the statement itself (a taken key, a bad value) leaves it usable.
    """
    code = errno(exc)
    return code == 0 or 2000 <= code < 3000 or code in _SERVER_CLOSED


@contextlib.asynccontextmanager
async def acquire(pool: Any) -> AsyncIterator[Any]:
    """A connection of `pool`, closed instead of returned to it when a failure may have left it
    unusable (`breaks_connection`), so the pool's next user does not inherit the failure."""
    async with pool.acquire() as conn:
        try:
            yield conn
        except BaseException as exc:
            if breaks_connection(exc):
                conn.close()
            raise


class MySQLPools(PoolSettings):
    """Opens an asyncmy pool as every MySQL user of this package needs it (autocommit sessions at
    READ COMMITTED, utf8mb4, binary literals for the VARBINARY ids), then migrates it (`_migrate`).

    The class supplies `_init_state` (its pools and whatever else it keeps).
    """

    def __init__(
        self,
        dsn: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
        lock_timeout: float | None = None,
    ) -> None:
        self._conn_args = parse_dsn(dsn)
        self._init_settings(min_size, max_size, connect_timeout, OTHER_ERRORS, lock_timeout)
        self.database: str = self._conn_args["db"]
        """The database holding the tables."""
        self._init_state()

    def _init_state(self) -> None:
        raise NotImplementedError

    async def _connect(self) -> Any:
        asyncmy = driver()
        self._errors = (asyncmy.errors.MySQLError, *OTHER_ERRORS)
        init = _READ_COMMITTED
        if self.lock_timeout is not None:
            # Whole seconds (InnoDB's unit), rounded up so the bound is never below the setting;
            # asyncmy sends the two statements at once (it always allows several per query).
            init += _LOCK_WAIT.format(math.ceil(self.lock_timeout))
        try:
            pool = await asyncmy.create_pool(
                minsize=self.min_size,
                maxsize=self.max_size,
                connect_timeout=self.connect_timeout,
                autocommit=True,
                charset="utf8mb4",
                binary_prefix=True,
                init_command=init,
                **self._conn_args,
            )
        except self._errors as exc:
            raise translate(exc, "open", repr(self)) from exc
        return await self._migrated(pool, translate)

    async def _close_pool(self, pool: Any) -> None:
        pool.close()
        await pool.wait_closed()

    @contextlib.asynccontextmanager
    async def _transaction(self, pool: Any) -> AsyncIterator[Any]:
        """A cursor in one transaction on a connection of `pool`: committed when the block ends,
        rolled back if it raises (driver errors come out untranslated)."""
        async with acquire(pool) as conn, self._transaction_on(conn) as cur:
            yield cur

    @contextlib.asynccontextmanager
    async def _transaction_on(self, conn: Any) -> AsyncIterator[Any]:
        """As `_transaction`, on the connection `conn`."""
        await conn.begin()
        try:
            async with conn.cursor() as cur:
                yield cur
            await conn.commit()
        except BaseException:
            await conn.rollback()
            raise

    async def _fetch_on(
        self, pool: Any, sql: str, params: Sequence[Any], run_id: str | None = None
    ) -> list[Any]:
        """Every row of one statement, on a connection of `pool` (a driver error is a read error)."""
        try:
            async with acquire(pool) as conn, conn.cursor() as cur:
                await cur.execute(sql, params)
                return list(await cur.fetchall())
        except self._errors as exc:
            raise translate(exc, "read", repr(self), run_id=run_id) from exc
