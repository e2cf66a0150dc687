"""Schedules: start runs of a graph on a cron expression or an interval, kept in the store.

    await engine.schedule("nightly", cron="0 3 * * *", tz="Europe/Paris", input={"day": None})
    await engine.schedule("poll", every=timedelta(minutes=5), input={}, overlap="buffer_one")
    # a Scheduler (run by `graphengine serve` and `graphengine worker`) starts the runs

Decisions a caller should know:

- A schedule lives in the engine's store (`ScheduleStore`: every bundled backend), so any
  process with the store sees it; `engine.schedule(...)` with an existing id replaces its
  definition (the same definition again changes nothing), so an application may declare its
  schedules at every start-up. Pausing, counters and the last run survive a replaced definition.
- Each fire time starts one run whose id is `<schedule id>@<fire time in UTC, ISO 8601>`
  (`nightly@2026-11-30T02:00:00Z`; milliseconds appear when not zero). The id is the fence:
  however many schedulers share the store, a fire time creates its run once.
- Overlap (a previous run of the schedule still `running` or waiting, i.e. not done, failed or
  cancelled; on SQLite a run left `running` by a process that died does not count): `skip` drops the fire and counts it (`skipped`); `buffer_one` keeps one fire
  aside and starts it as soon as the previous run ends (a second fire while one is buffered is
  skipped); `allow` starts it anyway.
- Catch-up after downtime: when a scheduler finds fire times in the past, it fires ALL those
  within `catch_up` of now, oldest first, each subject to the overlap policy (so with `skip`
  one of them runs), and counts older ones as `missed` without running them. The default
  window, one minute, absorbs a scheduler's ordinary lateness; `catch_up=timedelta(0)` fires
  only what is due right now, `timedelta(days=1)` replays a day of missed fires.
- Interval schedules fire on a fixed grid, `start_at + k * every` (default `start_at`: one
  interval after the schedule is created), so lateness never drifts them. Cron schedules read
  their expression on the wall clock of `tz` (see `graphengine.cron` for daylight saving time).
- A paused schedule never fires; resuming it starts from the next fire time after now (fires
  that fell while it was paused are not caught up).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from graphengine.store import RunStatus, ScheduleExistsError, ScheduleRecord, ScheduleStore, Store, check_id

from .cron import CronError, CronExpr
from .errors import GraphError

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = [
    "MAX_SCHEDULE_ID",
    "Overlap",
    "Schedule",
    "ScheduleError",
    "ScheduleMethods",
    "ScheduleNotFoundError",
    "run_id_for",
]

S = TypeVar("S")

MAX_SCHEDULE_ID: Final = 160
"""Longest schedule id: its run ids (id + `@` + a 24-character time) must fit in a URL path segment."""
DEFAULT_CATCH_UP: Final = timedelta(minutes=1)
"""The default catch-up window."""
_ENDED: Final = frozenset({RunStatus.DONE, RunStatus.FAILED, RunStatus.CANCELLED})
# Counting missed cron fires one by one is bounded: past this many the count stops and the
# schedule jumps to the window (a year of a per-minute expression would otherwise take seconds).
_MAX_COUNTED: Final = 10_000


class ScheduleError(GraphError, ValueError):
    """A schedule definition that cannot work (bad cron, interval, zone, policy, id or input)."""

    def __init__(self, msg: str, *, schedule_id: str | None = None) -> None:
        super().__init__(msg)
        self.schedule_id = schedule_id
        """The schedule concerned."""


class ScheduleNotFoundError(GraphError, LookupError):
    """No schedule with this id is stored."""

    def __init__(self, msg: str, *, schedule_id: str) -> None:
        super().__init__(msg)
        self.schedule_id = schedule_id
        """The unknown schedule id."""


class Overlap(StrEnum):
    """What a fire does while the schedule's previous run has not ended (see the module docstring)."""

    SKIP = "skip"
    """Drop the fire (counted in `skipped`)."""
    BUFFER_ONE = "buffer_one"
    """Keep one fire aside; start it when the previous run ends."""
    ALLOW = "allow"
    """Start it anyway: runs of the schedule may overlap."""


@functools.lru_cache(maxsize=256)
def _cron(text: str) -> CronExpr:
    """Parsed once per expression: a catch-up walks many fire times of the same one."""
    return CronExpr.parse(text)


@dataclass(frozen=True, slots=True)
class Spec:
    """A schedule's definition, as stored (JSON) in `ScheduleRecord.spec`."""

    cron: str | None
    every_ms: int | None
    anchor_ms: int
    tz: str
    overlap: Overlap
    catch_up_ms: int

    def encode(self) -> bytes:
        doc = {
            "cron": self.cron,
            "every_ms": self.every_ms,
            "anchor_ms": self.anchor_ms,
            "tz": self.tz,
            "overlap": self.overlap.value,
            "catch_up_ms": self.catch_up_ms,
        }
        return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, raw: bytes, schedule_id: str) -> Spec:
        try:
            doc = json.loads(raw)
            spec = cls(
                doc["cron"],
                doc["every_ms"],
                int(doc["anchor_ms"]),
                str(doc["tz"]),
                Overlap(doc["overlap"]),
                int(doc["catch_up_ms"]),
            )
            spec.next_fire_after(spec.anchor_ms)  # a stored cron or zone that no longer parses
        except (ValueError, KeyError, TypeError) as exc:
            raise ScheduleError(
                f"schedule {schedule_id!r} has an unreadable definition: {exc}", schedule_id=schedule_id
            ) from exc
        return spec

    def next_fire_after(self, t_ms: int) -> int:
        """The first fire time strictly after `t_ms` (ms since the epoch)."""
        if self.every_ms is not None:
            if t_ms < self.anchor_ms:
                return self.anchor_ms
            return self.anchor_ms + ((t_ms - self.anchor_ms) // self.every_ms + 1) * self.every_ms
        assert self.cron is not None
        after = datetime.fromtimestamp(t_ms / 1000, UTC)
        fire = _cron(self.cron).next_after(after, ZoneInfo(self.tz))
        return int(fire.timestamp() * 1000)

    def first_fire_at_or_after(self, t_ms: int) -> int:
        """The first fire time at `t_ms` or later."""
        return self.next_fire_after(t_ms - 1)


@dataclass(slots=True)
class Book:
    """A scheduler's bookkeeping of one schedule, as stored (JSON) in `ScheduleRecord.state`."""

    next_fire: int
    pending: int | None = None
    starting: list[int] = field(default_factory=list)
    last_run: str | None = None
    last_fire: int | None = None
    fired: int = 0
    skipped: int = 0
    missed: int = 0

    def encode(self) -> bytes:
        doc = {
            "next_fire": self.next_fire,
            "pending": self.pending,
            "starting": self.starting,
            "last_run": self.last_run,
            "last_fire": self.last_fire,
            "fired": self.fired,
            "skipped": self.skipped,
            "missed": self.missed,
        }
        return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, raw: bytes, schedule_id: str) -> Book:
        try:
            doc = json.loads(raw)
            return cls(
                int(doc["next_fire"]),
                None if doc.get("pending") is None else int(doc["pending"]),
                [int(t) for t in doc.get("starting", [])],
                doc.get("last_run"),
                None if doc.get("last_fire") is None else int(doc["last_fire"]),
                int(doc.get("fired", 0)),
                int(doc.get("skipped", 0)),
                int(doc.get("missed", 0)),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ScheduleError(
                f"schedule {schedule_id!r} has unreadable bookkeeping: {exc}", schedule_id=schedule_id
            ) from exc

    def due_at(self) -> int:
        """When a scheduler next has work: a run to start, a buffered fire to watch, the next fire."""
        if self.starting:
            return min(self.starting)
        return self.next_fire if self.pending is None else min(self.pending, self.next_fire)


def run_id_for(schedule_id: str, fire_ms: int) -> str:
    """The id of the run a schedule starts for the fire time `fire_ms` (ms since the epoch)."""
    t = datetime.fromtimestamp(fire_ms // 1000, UTC)
    ms = fire_ms % 1000
    return f"{schedule_id}@{t:%Y-%m-%dT%H:%M:%S}{f'.{ms:03d}' if ms else ''}Z"


def plan(spec: Spec, book: Book, now_ms: int, active: bool) -> Book:
    """The bookkeeping after handling everything due by `now_ms`; fires to start land in `starting`.

    `active`: whether the schedule's previous run has not ended. Pure: the caller stores the
    result (compare-and-set) and then creates the runs listed in `starting`.
    """
    out = replace(book, starting=list(book.starting))
    if out.starting:
        return out  # runs being started by another scheduler (or one that died): finish those first
    if out.pending is not None and not active:
        out.starting.append(out.pending)
        out.pending = None
        active = True
    window = now_ms - spec.catch_up_ms
    t = out.next_fire
    counted = 0
    while t <= now_ms:
        if t < window:
            out.missed += 1
            counted += 1
            if spec.every_ms is not None:  # jump the whole missed stretch of the grid at once
                late = (window - t - 1) // spec.every_ms
                out.missed += late
                t += late * spec.every_ms
            elif counted >= _MAX_COUNTED:
                t = spec.first_fire_at_or_after(window)
                continue
        elif spec.overlap is Overlap.ALLOW or not active:
            out.starting.append(t)
            active = True
        elif spec.overlap is Overlap.BUFFER_ONE and out.pending is None:
            out.pending = t
        else:
            out.skipped += 1
        t = spec.next_fire_after(t)
    out.next_fire = t
    if out.starting:
        out.fired += len(out.starting)
        out.last_fire = out.starting[-1]
        out.last_run = None  # set by the caller to the last started run's id
    return out


def is_active(status: RunStatus | None) -> bool:
    """Whether a run with this status (None: no such run) still counts as running for overlap."""
    return status is not None and status not in _ENDED


@dataclass(frozen=True, slots=True)
class Schedule:
    """A schedule as `engine.schedules()` and `engine.get_schedule()` show it."""

    schedule_id: str
    """Its id."""
    cron: str | None
    """The cron expression, or None for an interval schedule."""
    every: timedelta | None
    """The interval, or None for a cron schedule."""
    tz: str
    """Time zone the cron expression is read in."""
    overlap: Overlap
    """The overlap policy."""
    catch_up: timedelta
    """The catch-up window."""
    input: Any
    """The initial state of every run, as JSON."""
    paused: bool
    """Paused schedules do not fire."""
    next_fire: datetime
    """The next fire time (UTC)."""
    pending: datetime | None
    """A fire held back by `buffer_one` until the previous run ends."""
    last_run: str | None
    """The id of the run it started last."""
    fired: int
    """Runs started."""
    skipped: int
    """Fires dropped by the overlap policy."""
    missed: int
    """Fires older than the catch-up window when a scheduler found them (never run)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (times as ISO 8601, durations in seconds)."""
        return {
            "schedule_id": self.schedule_id,
            "cron": self.cron,
            "every": self.every.total_seconds() if self.every is not None else None,
            "tz": self.tz,
            "overlap": self.overlap.value,
            "catch_up": self.catch_up.total_seconds(),
            "input": self.input,
            "paused": self.paused,
            "next_fire": self.next_fire.isoformat(),
            "pending": self.pending.isoformat() if self.pending is not None else None,
            "last_run": self.last_run,
            "fired": self.fired,
            "skipped": self.skipped,
            "missed": self.missed,
        }


def _utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def view(rec: ScheduleRecord) -> Schedule:
    """The `Schedule` a stored record describes."""
    spec = Spec.decode(rec.spec, rec.schedule_id)
    book = Book.decode(rec.state, rec.schedule_id)
    return Schedule(
        schedule_id=rec.schedule_id,
        cron=spec.cron,
        every=timedelta(milliseconds=spec.every_ms) if spec.every_ms is not None else None,
        tz=spec.tz,
        overlap=spec.overlap,
        catch_up=timedelta(milliseconds=spec.catch_up_ms),
        input=json.loads(rec.input),
        paused=rec.paused,
        next_fire=_utc(book.next_fire),
        pending=_utc(book.pending) if book.pending is not None else None,
        last_run=book.last_run,
        fired=book.fired,
        skipped=book.skipped,
        missed=book.missed,
    )


def schedule_store(store: Store) -> ScheduleStore:
    """`store` as a `ScheduleStore`; `TypeError` naming it when it keeps no schedules."""
    if not isinstance(store, ScheduleStore):
        raise TypeError(f"{store!r} keeps no schedules (it is not a graphengine.store.ScheduleStore)")
    return store


def check_schedule_id(schedule_id: Any) -> None:
    """Refuse an id no store or URL could carry (`ScheduleError`; `InvalidIdError` for the store's rules)."""
    check_id(schedule_id, "schedule id")
    if len(schedule_id) > MAX_SCHEDULE_ID or "/" in schedule_id or not schedule_id.isprintable():
        raise ScheduleError(
            f"schedule id {schedule_id[:40]!r} must be at most {MAX_SCHEDULE_ID} printable characters "
            "without '/' (its run ids appear in URLs)",
            schedule_id=schedule_id,
        )


def _ms(d: timedelta) -> int:
    return d // timedelta(milliseconds=1)


def make_spec(
    schedule_id: str,
    *,
    cron: str | None,
    every: timedelta | None,
    tz: str,
    overlap: Overlap | str,
    catch_up: timedelta,
    start_at: datetime | None,
    now_ms: int,
) -> Spec:
    """A checked definition; `ScheduleError` naming what is wrong."""

    def bad(msg: str) -> ScheduleError:
        return ScheduleError(f"schedule {schedule_id!r}: {msg}", schedule_id=schedule_id)

    if (cron is None) == (every is None):
        raise bad("give exactly one of cron=... or every=...")
    try:
        policy = Overlap(overlap)
    except ValueError:
        raise bad(f"overlap {overlap!r} is not one of {', '.join(o.value for o in Overlap)}") from None
    if not isinstance(catch_up, timedelta) or catch_up < timedelta(0):
        raise bad(f"catch_up must be a timedelta >= 0, not {catch_up!r}")
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise bad(f"tz {tz!r} is not a known time zone (e.g. 'UTC', 'Europe/Paris')") from None
    if start_at is not None and start_at.tzinfo is None:
        raise bad("start_at must be an aware datetime (with tzinfo)")
    every_ms: int | None = None
    if every is not None:
        if not isinstance(every, timedelta) or every < timedelta(milliseconds=1):
            raise bad(f"every must be a timedelta of at least 1 ms, not {every!r}")
        every_ms = _ms(every)
        anchor = int(start_at.timestamp() * 1000) if start_at is not None else now_ms + every_ms
    else:
        try:
            CronExpr.parse(cron)  # type: ignore[arg-type]
        except CronError as exc:
            raise bad(str(exc)) from exc
        anchor = int(start_at.timestamp() * 1000) if start_at is not None else now_ms
    return Spec(cron, every_ms, anchor, tz, policy, _ms(catch_up))


class ScheduleMethods(Generic[S]):
    """The schedule API `Engine` inherits (see `Engine` and this module's docstring)."""

    store: Store

    def runtime(self) -> Runtime[S]:
        """What a run of this engine works with (`Engine.runtime`)."""
        raise NotImplementedError

    async def schedule(
        self,
        schedule_id: str,
        *,
        cron: str | None = None,
        every: timedelta | None = None,
        input: S | Mapping[str, Any],
        overlap: Overlap | str = Overlap.SKIP,
        catch_up: timedelta = DEFAULT_CATCH_UP,
        tz: str = "UTC",
        start_at: datetime | None = None,
    ) -> Schedule:
        """Create schedule `schedule_id`, or replace its definition; returns it as stored.

        Exactly one of `cron` (five fields, see `graphengine.cron`) or `every`. `input` is the
        initial state of each run, validated now (`StateValidationError`). `start_at`: the first
        fire of an interval schedule (default: one interval from now); for a cron schedule, no
        fire before it. Raises `ScheduleError` for a bad definition, `TypeError` for a store
        without schedules. The same definition again returns the stored schedule unchanged.
        """
        check_schedule_id(schedule_id)
        store = schedule_store(self.store)
        now_ms = int(time.time() * 1000)
        spec = make_spec(
            schedule_id,
            cron=cron,
            every=every,
            tz=tz,
            overlap=overlap,
            catch_up=catch_up,
            start_at=start_at,
            now_ms=now_ms,
        )
        _, encoded = self.runtime().validated(input, schedule_id)
        first = spec.first_fire_at_or_after(max(spec.anchor_ms, now_ms))
        for _ in range(5):  # compare-and-set rounds against schedulers updating it meanwhile
            have = await store.get_schedule(schedule_id)
            if have is None:
                book = Book(next_fire=first)
                rec = ScheduleRecord(schedule_id, spec.encode(), encoded, book.due_at(), state=book.encode())
                try:
                    return view(await store.create_schedule(rec))
                except ScheduleExistsError:
                    continue  # created meanwhile (another process declaring it): compare with that one
            old = Spec.decode(have.spec, schedule_id)
            # Without start_at the anchor is "now": only a start_at given again is part of "the same".
            same = (
                old == spec
                if start_at is not None
                else replace(old, anchor_ms=0) == replace(spec, anchor_ms=0)
            )
            if same and have.input == encoded:
                return view(have)
            book = Book.decode(have.state, schedule_id)
            book.next_fire, book.pending = first, None
            new = replace(
                have,
                spec=spec.encode(),
                input=encoded,
                due_at=book.due_at(),
                state=book.encode(),
                updated_at=0.0,
            )
            stored = await store.update_schedule(new, expect_version=have.version)
            if stored is not None:
                return view(stored)
        raise ScheduleError(
            f"schedule {schedule_id!r} kept changing under this update; try again", schedule_id=schedule_id
        )

    async def schedules(self) -> list[Schedule]:
        """Every stored schedule, by id."""
        return [view(rec) for rec in await schedule_store(self.store).list_schedules()]

    async def get_schedule(self, schedule_id: str) -> Schedule:
        """The stored schedule; `ScheduleNotFoundError` if unknown."""
        return view(await self._schedule_record(schedule_id))

    async def _schedule_record(self, schedule_id: str) -> ScheduleRecord:
        rec = await schedule_store(self.store).get_schedule(schedule_id)
        if rec is None:
            raise ScheduleNotFoundError(f"no schedule {schedule_id!r}", schedule_id=schedule_id)
        return rec

    async def pause_schedule(self, schedule_id: str) -> Schedule:
        """Stop the schedule firing (a buffered fire is dropped); `ScheduleNotFoundError` if unknown."""
        return await self._set_paused(schedule_id, True, None)

    async def resume_schedule(self, schedule_id: str, *, now: datetime | None = None) -> Schedule:
        """Let a paused schedule fire again, from its next fire time after `now` (default: the current time).

        Fires that fell while it was paused are not caught up. `now` is for a scheduler on a
        clock of its own (tests); `ScheduleNotFoundError` if unknown.
        """
        return await self._set_paused(schedule_id, False, now)

    async def _set_paused(self, schedule_id: str, paused: bool, now: datetime | None) -> Schedule:
        now_ms = int((now.timestamp() if now is not None else time.time()) * 1000)
        store = schedule_store(self.store)
        for _ in range(5):
            have = await self._schedule_record(schedule_id)
            if have.paused == paused:
                return view(have)
            book = Book.decode(have.state, schedule_id)
            if paused:
                book.pending = None
            else:
                spec = Spec.decode(have.spec, schedule_id)
                book.next_fire = spec.next_fire_after(max(now_ms, book.next_fire - 1))
            new = replace(have, paused=paused, due_at=book.due_at(), state=book.encode(), updated_at=0.0)
            stored = await store.update_schedule(new, expect_version=have.version)
            if stored is not None:
                return view(stored)
        raise ScheduleError(
            f"schedule {schedule_id!r} kept changing under this update; try again", schedule_id=schedule_id
        )

    async def delete_schedule(self, schedule_id: str) -> bool:
        """Delete the schedule (its runs stay); False if there was none."""
        return await schedule_store(self.store).delete_schedule(schedule_id)
