"""`Lease`: a worker's time-limited ownership of a run, with the fencing token its writes carry."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Lease"]


class Lease(NamedTuple):
    """Ownership of one run by one worker until `expires_at` (database clock).

    `token` is the fencing token: every claim of a run gets a token greater than every earlier
    one, and while a store holds a lease, its writes to that run succeed only if the token is
    still the run's current one and the lease has not expired.
    """

    run_id: str
    """The run owned."""
    worker: str
    """Who owns it (any string naming the worker, e.g. host:pid)."""
    token: int
    """Fencing token: strictly increasing over the claims of a run."""
    expires_at: float
    """When the lease ends unless renewed, seconds since the epoch on the database's clock."""
