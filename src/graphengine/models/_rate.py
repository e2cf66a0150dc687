"""`RateLimit`: at most N requests in any window of T seconds, for the HTTP chat models.

A provider's quota is usually "so many requests a minute"; staying under it costs less than
collecting 429s and waiting out their Retry-After. Each request reserves the next free start
time and sleeps until then, so waiting callers are served in arrival order.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

__all__ = ["RateLimit"]


class RateLimit:
    """At most `requests` requests start in any `per` seconds; one object is one budget.

        model = OpenAIChatModel("gpt-4o-mini", api_key=key, rate_limit=RateLimit.per_minute(500))

    Pass the same object to several models that share a quota (one API key for two models):
    they then draw on one budget. Every request counts, retries included. A caller cancelled
    while it waits for its turn still uses up its turn (the budget errs on the side of fewer
    requests). Usable from several threads and event loops at once: the bookkeeping is a
    short critical section under a thread lock, never held while waiting.
    """

    __slots__ = ("_clock", "_lock", "_starts", "per", "requests")

    def __init__(
        self, requests: int, per: float = 1.0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if isinstance(requests, bool) or not isinstance(requests, int) or requests < 1:
            raise ValueError(f"RateLimit: requests must be an int >= 1, got {requests!r}")
        if isinstance(per, bool) or not isinstance(per, int | float) or not (math.isfinite(per) and per > 0):
            raise ValueError(f"RateLimit: per must be a finite number of seconds > 0, got {per!r}")
        self.requests = requests
        """How many requests may start in one window."""
        self.per = float(per)
        """The window, in seconds."""
        self._clock = clock
        # the start times of the last `requests` reservations, oldest first (never decreasing)
        self._starts: deque[float] = deque(maxlen=requests)
        self._lock = threading.Lock()

    @classmethod
    def per_second(cls, requests: int) -> RateLimit:
        """At most `requests` requests a second."""
        return cls(requests, 1.0)

    @classmethod
    def per_minute(cls, requests: int) -> RateLimit:
        """At most `requests` requests a minute."""
        return cls(requests, 60.0)

    def __repr__(self) -> str:
        return f"RateLimit(requests={self.requests}, per={self.per:g})"

    def reserve(self) -> float:
        """Take the next free start time; return the seconds to wait until it (0: go now).

        The start is at least `per` seconds after the one `requests` reservations earlier, so no
        window of `per` seconds holds more than `requests` starts.
        """
        with self._lock:
            now = self._clock()
            start = now
            if len(self._starts) == self.requests:
                start = max(now, self._starts[0] + self.per)
            self._starts.append(start)
            return start - now
