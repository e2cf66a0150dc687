"""State-schema versions: which version each stored value was written in, and migrating it.

A run records the version it started with (`RunRecord.state_version`); each time a newer engine
resumes it, the run's metadata gains `{"from": v, "to": w, "at_step": k}`: steps after `k` are
version `w`. Values older than the engine's version are migrated as JSON-like data, one declared
function per version step, before they are validated against the state type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import MigrationError, SchemaVersionError

__all__ = ["Migration", "VersionMap", "migrate"]

Migration = Callable[[dict[str, Any]], dict[str, Any]]
"""`up_v_to_v1(data) -> data`: rewrites one stored value (a full state or a partial delta) of
version v into version v+1. Deltas hold only the fields they set, so check before renaming."""


@dataclass(frozen=True, slots=True)
class VersionMap:
    """The version of each step of one run."""

    run_id: str
    """The run."""
    start: int
    """Version of the initial state and of the steps before the first recorded upgrade."""
    upgrades: tuple[tuple[int, int], ...] = ()
    """(at_step, version) pairs: steps after `at_step` are `version`, in order."""

    def at(self, step: int) -> int:
        """Version of what step `step` stored (0: the initial state)."""
        v = self.start
        for at_step, version in self.upgrades:
            if step > at_step:
                v = version
        return v

    @staticmethod
    def of(run_id: str, start: int, meta: Mapping[str, Any]) -> VersionMap:
        """Read the upgrades a run's metadata records."""
        ups = meta.get("migrations", [])
        pairs = tuple(
            (int(u["at_step"]), int(u["to"]))
            for u in ups
            if isinstance(u, dict) and "at_step" in u and "to" in u
        )
        return VersionMap(run_id, start, pairs)


def migrate(
    data: Any, frm: int, to: int, migrations: Mapping[int, Migration], *, run_id: str, step: int
) -> Any:
    """Apply the migrations `frm -> frm+1 -> ... -> to` to JSON-like `data`.

    Raises `SchemaVersionError` naming both versions when a migration is missing or the data is
    newer than the code.
    """
    if frm > to:
        raise SchemaVersionError(
            f"run {run_id!r} step {step} was stored by state version {frm}, newer than this engine's "
            f"version {to}: run it with the newer code",
            run_id=run_id,
            step=step,
            stored=frm,
            current=to,
        )
    for v in range(frm, to):
        fn = migrations.get(v)
        if fn is None:
            raise SchemaVersionError(
                f"run {run_id!r} stores state version {frm} and this engine is at version {to}, but no "
                f"migration from version {v} is declared (migrations={{{v}: ...}}); this is the state "
                "schema, not the graph fingerprint",
                run_id=run_id,
                step=step,
                stored=frm,
                current=to,
            )
        if isinstance(data, dict):
            try:
                data = fn(dict(data))
            except Exception as exc:
                raise MigrationError(
                    f"run {run_id!r} step {step}: the migration from state version {v} to {v + 1} "
                    f"raised {type(exc).__name__}: {exc}",
                    run_id=run_id,
                    step=step,
                    stored=v,
                    current=to,
                ) from exc
            if not isinstance(data, dict):
                # The stored value was fine; the migration lost it. Blaming the database
                # (CorruptRecordError at decode) would send the user looking in the wrong place.
                raise MigrationError(
                    f"run {run_id!r} step {step}: the migration from state version {v} to {v + 1} "
                    f"returned {type(data).__name__}, not a dict; return the rewritten data "
                    "(a migration that edits its argument in place must still `return data`)",
                    run_id=run_id,
                    step=step,
                    stored=v,
                    current=to,
                )
    return data


def migrate_bytes(
    data: bytes, frm: int, to: int, migrations: Mapping[int, Migration], *, run_id: str, step: int
) -> bytes:
    """`migrate` on encoded JSON; `MigrationError` when the migrated data is not JSON."""
    out = migrate(json.loads(data), frm, to, migrations, run_id=run_id, step=step)
    try:
        return json.dumps(out, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise MigrationError(
            f"run {run_id!r} step {step}: the migrations from state version {frm} to {to} returned "
            f"data that is not JSON ({exc}); return plain dicts, lists, strings, numbers, bools and None",
            run_id=run_id,
            step=step,
            stored=frm,
            current=to,
        ) from exc
