"""`RunLocks`: which runs of one database file the processes on this machine are driving.

A run is locked by an exclusive lock on one byte of a sidecar file (`<database>-runlock`), at
an offset hashed from the run id. The operating system drops the locks of a process when it
dies, however it dies (SIGKILL included), so a lock that can be taken means nobody is driving
the run: a crashed driver is told apart from a live one at once, with no timeout to wait out.

POSIX record locks belong to the process, not to the file descriptor: a second lock by the same
process on the same byte succeeds, and closing any descriptor of the file drops all of them.
So one descriptor per file is shared by every store of the process (counted, closed with the
last), and the runs locked through it are kept in a set that refuses a second holder in this
process. Where there are no POSIX locks (Windows), only that set excludes.
"""

from __future__ import annotations

import hashlib
import os
import threading
from typing import Final

from .errors import StoreUnavailableError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunLocks"]

# Lock offsets are below 2**56 (off_t is 64 bits); two run ids share a byte with probability
# 2**-56, which would only make one of them look busy while the other is driven.
_OFFSET_BYTES: Final = 7


class _File:
    __slots__ = ("fd", "held", "users")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.users = 0
        self.held: set[str] = set()


_files: dict[str, _File] = {}
_mutex = threading.Lock()  # stores of several threads (each asyncio.run in its own) share _files


def _offset(run_id: str) -> int:
    digest = hashlib.blake2b(run_id.encode("utf-8", "surrogatepass"), digest_size=_OFFSET_BYTES).digest()
    return int.from_bytes(digest, "big")


class RunLocks:
    """The run locks of one database file, as seen by one store (`SQLiteStore.lock_run`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        """The sidecar file holding the locks."""
        self._file: _File | None = None

    def _open(self) -> _File:
        f = self._file
        if f is None:
            key = os.path.realpath(self.path)
            f = _files.get(key)
            if f is None:
                try:
                    fd = os.open(key, os.O_RDWR | os.O_CREAT, 0o644)
                except OSError as exc:
                    raise StoreUnavailableError(
                        f"cannot open the run lock file {self.path!r} beside the database: {exc}"
                    ) from exc
                f = _files[key] = _File(fd)
            f.users += 1
            self._file = f
        return f

    def lock(self, run_id: str) -> bool:
        """Lock `run_id` for this process; False if this or another process holds it.

        `StoreUnavailableError` if the sidecar file cannot be opened or created (a directory of
        that name, no room, no permission): nothing is locked then."""
        with _mutex:
            f = self._open()
            if run_id in f.held:
                return False
            if fcntl is not None:
                try:
                    fcntl.lockf(f.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _offset(run_id), os.SEEK_SET)
                except OSError:
                    return False
            f.held.add(run_id)
            return True

    def unlock(self, run_id: str) -> None:
        """Give `run_id` up (no effect if it is not locked here)."""
        with _mutex:
            f = self._file
            if f is None or run_id not in f.held:
                return
            f.held.discard(run_id)
            if fcntl is not None:
                fcntl.lockf(f.fd, fcntl.LOCK_UN, 1, _offset(run_id), os.SEEK_SET)

    def close(self) -> None:
        """Stop using the file; its descriptor is closed with its last user (dropping its locks)."""
        with _mutex:
            f, self._file = self._file, None
            if f is None:
                return
            f.users -= 1
            if f.users == 0:
                for key, g in list(_files.items()):
                    if g is f:
                        del _files[key]
                os.close(f.fd)
