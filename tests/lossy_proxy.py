"""A TCP proxy between a store and its database server that loses the reply to a commit.

The commit reaches the server and is applied; the server's answer never reaches the client,
whose connection is reset instead (as when a network drops a connection right after a commit).
Test modules import it by name (`from lossy_proxy import LossyProxy`); no tests live here.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

# What a write of each kind looks like: PostgreSQL's command tag in the reply (sent after the
# commit of an autocommitted statement), MySQL's statement in the request.
_PG_TAGS = {"step": b"INSERT 0 ", "run": b"INSERT 0 ", "status": b"UPDATE "}
_MYSQL_STATEMENTS = {
    "step": (b"INSERT INTO steps",),
    "run": (b"INSERT INTO runs",),
    # a status change alone, and a batch of them (an UPDATE joined with the batch's rows)
    "status": (b"UPDATE runs SET status", b"UPDATE runs r JOIN"),
}


@dataclass
class _Session:
    """What the proxy knows of one client connection (MySQL: whether a COMMIT will store rows)."""

    in_transaction: bool = False
    writes_in_transaction: bool = False
    commits: bool = False
    """The request on its way to the server commits rows of the armed kind (its reply is the one to lose)."""


class LossyProxy:
    """Forwards connections from a local port to `host:port`; once `arm(skip, what)` was called,
    the reply to the (skip+1)-th commit of rows of kind `what` ("step", "run", "status") from
    then on is lost: the proxy drops it and resets both sides of that connection. Other traffic
    passes untouched.

    PostgreSQL (`server="postgres"`): a write commits in its own statement (autocommit), and the
    server's reply holds the command tag (`INSERT 0 n`, `UPDATE n`) after the commit; every reply
    with the tag counts, whatever the table (the tests arm it when only writes of that kind are
    left). MySQL: the rows commit with their autocommitted statement, or with the `COMMIT` of a
    transaction that wrote them.
    """

    def __init__(self, host: str, port: int, server: str) -> None:
        self.host = host
        self.port = port
        self.server = server
        self.lost = 0
        """Replies lost so far."""
        self._skip: int | None = None
        self._what = "step"
        self._listener: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        """Listen on a free local port; returns it."""
        self._listener = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self._listener.sockets[0].getsockname()[1]
        return port

    def arm(self, skip: int = 0, what: str = "step") -> None:
        """Lose the reply to the commit of `what` rows after `skip` more such commits went through."""
        self._skip, self._what = skip, what

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _watch_request(self, s: _Session, data: bytes) -> None:
        if self.server != "mysql":
            return
        if any(stmt in data for stmt in _MYSQL_STATEMENTS[self._what]):
            if s.in_transaction:
                s.writes_in_transaction = True
            else:
                s.commits = True
        elif data[4:5] == b"\x03":  # COM_QUERY
            query = data[5:].strip().upper()
            if query.startswith((b"BEGIN", b"START TRANSACTION")):
                s.in_transaction, s.writes_in_transaction = True, False
            elif query.startswith(b"COMMIT"):
                s.commits = s.writes_in_transaction
                s.in_transaction = s.writes_in_transaction = False
            elif query.startswith(b"ROLLBACK"):
                s.in_transaction = s.writes_in_transaction = False

    def _lose(self, s: _Session, reply: bytes) -> bool:
        """Whether `reply` is the one to lose (counting the commits it passes)."""
        if self.server == "mysql":
            commit, s.commits = s.commits, False
        else:
            commit = _PG_TAGS[self._what] in reply
        if not commit or self._skip is None:
            return False
        if self._skip > 0:
            self._skip -= 1
            return False
        self._skip = None
        self.lost += 1
        return True

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        session = _Session()
        try:
            server_r, server_w = await asyncio.open_connection(self.host, self.port)
        except OSError:
            client_w.transport.abort()
            self._tasks.discard(task)
            return

        async def requests() -> None:
            while data := await client_r.read(1 << 16):
                self._watch_request(session, data)
                server_w.write(data)
                await server_w.drain()
            server_w.close()

        async def replies() -> None:
            while data := await server_r.read(1 << 16):
                if self._lose(session, data):
                    # Reset the client first, so it never sees a byte of the reply.
                    client_w.transport.abort()
                    server_w.transport.abort()
                    return
                client_w.write(data)
                await client_w.drain()
            client_w.close()

        try:
            pumps = [asyncio.ensure_future(requests()), asyncio.ensure_future(replies())]
            with contextlib.suppress(OSError, asyncio.CancelledError):
                await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
        finally:
            client_w.transport.abort()
            server_w.transport.abort()
            self._tasks.discard(task)
