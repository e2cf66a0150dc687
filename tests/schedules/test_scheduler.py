"""Schedules fire on their grid or cron, with overlap policies and a bounded catch-up (controllable clock)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from schedule_graph import Clock, Job, build

from graphengine import (
    Engine,
    Overlap,
    Schedule,
    ScheduleError,
    ScheduleNotFoundError,
    Scheduler,
    StateValidationError,
    run_id_for,
)
from graphengine.schedules import Book, Spec, plan
from graphengine.store import MemoryStore, RunStatus, Store


def at(clock: Clock, seconds: float) -> datetime:
    """The instant `seconds` after the test's start (t0), or after now before t0 is set."""
    return datetime.fromtimestamp(getattr(clock, "t0", clock.t) + seconds, UTC)


def ids(clock: Clock, *offsets: float) -> list[str]:
    return [run_id_for("s", int((clock.t0 + o) * 1000)) for o in offsets]  # type: ignore[attr-defined]


async def every_10s(g: Engine[Job], clock: Clock, *, hold: bool = False, **kw: object) -> Schedule:
    clock.t0 = clock.t  # type: ignore[attr-defined]
    return await g.schedule(
        "s",
        every=timedelta(seconds=10),
        start_at=at(clock, 10),
        input=Job(hold=hold),
        **kw,  # type: ignore[arg-type]
    )


async def tick_at(sch: Scheduler[Job], clock: Clock, offset: float) -> list[str]:
    clock.t = clock.t0 + offset  # type: ignore[attr-defined]
    made = await sch.tick()
    await sch.wait_runs()
    return made


async def test_interval_fires_once_per_grid_point(store: Store) -> None:
    """An interval schedule starts one run per grid point, named by schedule and fire time, none early."""
    g, clock = build(store), Clock()
    await every_10s(g, clock)
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 9.999) == []
    assert await tick_at(sch, clock, 10) == ids(clock, 10)
    assert await tick_at(sch, clock, 15) == []
    assert await tick_at(sch, clock, 21) == ids(clock, 20)
    for rid in ids(clock, 10, 20):
        assert (await g.get_run(rid)).status is RunStatus.DONE
    s = await g.get_schedule("s")
    assert (s.fired, s.skipped, s.missed, s.last_run) == (2, 0, 0, ids(clock, 20)[0])
    assert s.next_fire == at(clock, 30)


async def test_skip_drops_fires_while_the_previous_run_waits() -> None:
    """With skip, a fire while the previous run is still waiting is dropped and counted; the next one runs."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, hold=True, overlap="skip")
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 10) == ids(clock, 10)
    assert (await g.get_run(ids(clock, 10)[0])).status is RunStatus.INTERRUPTED
    assert await tick_at(sch, clock, 20) == []
    await g.resume(ids(clock, 10)[0], input="ok")
    assert await tick_at(sch, clock, 30) == ids(clock, 30)
    s = await g.get_schedule("s")
    assert (s.fired, s.skipped) == (2, 1)


async def test_buffer_one_starts_one_held_fire_when_the_previous_run_ends() -> None:
    """With buffer_one, the first fire during a running run waits for it to end; a second one is dropped."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, hold=True, overlap=Overlap.BUFFER_ONE)
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 10) == ids(clock, 10)
    assert await tick_at(sch, clock, 20) == []
    assert (await g.get_schedule("s")).pending == at(clock, 20)
    assert await tick_at(sch, clock, 30) == []
    assert await tick_at(sch, clock, 31) == []  # still waiting: the buffered fire stays buffered
    await g.resume(ids(clock, 10)[0], input="ok")
    assert await tick_at(sch, clock, 32) == ids(clock, 20)
    s = await g.get_schedule("s")
    assert (s.fired, s.skipped, s.pending) == (2, 1, None)


async def test_allow_starts_overlapping_runs() -> None:
    """With allow, every fire starts a run even while earlier ones wait."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, hold=True, overlap="allow")
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 10) == ids(clock, 10)
    assert await tick_at(sch, clock, 20) == ids(clock, 20)
    statuses = [(await g.get_run(r)).status for r in ids(clock, 10, 20)]
    assert statuses == [RunStatus.INTERRUPTED, RunStatus.INTERRUPTED]


async def test_catch_up_fires_all_missed_times_within_the_window_only() -> None:
    """After downtime, every missed fire within catch_up of now runs (oldest first); older ones are counted missed."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, overlap="allow", catch_up=timedelta(seconds=25))
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 100) == ids(clock, 80, 90, 100)
    s = await g.get_schedule("s")
    assert (s.fired, s.missed) == (3, 7)  # 10..70 were older than 100 - 25


async def test_catch_up_under_skip_runs_only_the_oldest_in_the_window() -> None:
    """The overlap policy applies to caught-up fires too: with skip, the first runs and the rest are skipped."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, hold=True, overlap="skip", catch_up=timedelta(seconds=25))
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 100) == ids(clock, 80)
    s = await g.get_schedule("s")
    assert (s.fired, s.skipped, s.missed) == (1, 2, 7)


async def test_zero_catch_up_fires_only_what_is_due_now() -> None:
    """With catch_up=0 a scheduler that wakes late fires nothing it missed, only a fire due this very moment."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, overlap="allow", catch_up=timedelta(0))
    sch = Scheduler(g, clock=clock)
    assert await tick_at(sch, clock, 45) == []
    assert await tick_at(sch, clock, 50) == ids(clock, 50)
    assert (await g.get_schedule("s")).missed == 4


async def test_cron_schedule_fires_on_its_expression() -> None:
    """A cron schedule fires at the expression's times, read in its time zone."""
    g, clock = build(MemoryStore()), Clock()
    await g.schedule("c", cron="*/5 * * * *", tz="Asia/Kolkata", input=Job())  # +05:30: still every 5 minutes
    sch = Scheduler(g, clock=clock)
    nxt = (await g.get_schedule("c")).next_fire
    assert nxt.minute % 5 == 0 and nxt.second == 0 and nxt.timestamp() > clock.t - 60
    clock.t = nxt.timestamp() - 0.001
    assert await sch.tick() == []
    clock.t = nxt.timestamp()
    assert await sch.tick() == [run_id_for("c", int(nxt.timestamp() * 1000))]
    await sch.wait_runs()
    assert (await g.get_schedule("c")).next_fire == nxt + timedelta(minutes=5)


async def test_paused_schedule_does_not_fire_and_resumes_from_now() -> None:
    """A paused schedule never fires; resumed, it fires from the next time after now, not what it missed."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, catch_up=timedelta(hours=1))
    sch = Scheduler(g, clock=clock)
    assert (await g.pause_schedule("s")).paused
    assert await tick_at(sch, clock, 35) == []
    resumed = await g.resume_schedule("s", now=at(clock, 35))
    assert not resumed.paused and resumed.next_fire == at(clock, 40)
    assert await tick_at(sch, clock, 40) == ids(clock, 40)
    s = await g.get_schedule("s")
    assert (s.fired, s.missed, s.skipped) == (1, 0, 0)


async def test_three_schedulers_on_one_store_fire_each_time_once() -> None:
    """Three schedulers ticking together on one store create each fire's run exactly once."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock, overlap="allow")
    schedulers = [Scheduler(g, clock=clock) for _ in range(3)]
    made: list[str] = []
    for offset in range(10, 101, 5):
        clock.t = clock.t0 + offset  # type: ignore[attr-defined]
        for got in await asyncio.gather(*(s.tick() for s in schedulers)):
            made += got
        for s in schedulers:
            await s.wait_runs()
    assert sorted(made) == sorted(ids(clock, *range(10, 101, 10)))
    assert (await g.get_schedule("s")).fired == 10


async def test_a_scheduler_dying_after_its_claim_leaves_the_runs_to_the_next() -> None:
    """Fires claimed by a scheduler whose start failed are started by the next scheduler, once."""
    g, clock = build(MemoryStore()), Clock()
    await every_10s(g, clock)

    async def broken(run_id: str, state: object) -> None:
        raise ConnectionError("queue down")

    assert await tick_at(Scheduler(g, clock=clock, start=broken), clock, 10) == []
    assert await g.store.get_run(ids(clock, 10)[0]) is None
    healthy = Scheduler(g, clock=clock)
    assert await tick_at(healthy, clock, 11) == ids(clock, 10)
    assert await tick_at(healthy, clock, 12) == []
    assert (await g.get_schedule("s")).fired == 1


async def test_same_definition_again_changes_nothing_and_a_new_one_replaces_it() -> None:
    """Declaring a schedule again is idempotent; a changed definition replaces it, keeping its counters."""
    g = build(MemoryStore())
    first = await g.schedule("n", cron="0 3 * * *", input={})
    assert await g.schedule("n", cron="0 3 * * *", input={}) == first
    changed = await g.schedule("n", cron="0 4 * * *", input={}, overlap="allow")
    assert changed.cron == "0 4 * * *" and changed.overlap is Overlap.ALLOW and changed.next_fire.hour == 4
    assert [s.schedule_id for s in await g.schedules()] == ["n"]
    assert await g.delete_schedule("n") is True
    with pytest.raises(ScheduleNotFoundError):
        await g.get_schedule("n")


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"cron": "0 3 * * *", "every": timedelta(seconds=1)}, "exactly one"),
        ({}, "exactly one"),
        ({"cron": "0 25 * * *"}, "hour 25"),
        ({"every": timedelta(0)}, "at least 1 ms"),
        ({"cron": "@daily", "tz": "Mars/Olympus"}, "time zone"),
        ({"cron": "@daily", "overlap": "queue"}, "overlap 'queue'"),
        ({"cron": "@daily", "catch_up": timedelta(seconds=-1)}, "catch_up"),
        ({"every": timedelta(seconds=1), "start_at": datetime(2030, 1, 1)}, "aware"),
    ],
)
async def test_bad_definitions_are_refused_by_name(kw: dict[str, object], words: str) -> None:
    """A definition that cannot work raises ScheduleError naming what is wrong, and stores nothing."""
    g = build(MemoryStore())
    with pytest.raises(ScheduleError, match=words):
        await g.schedule("bad", input={}, **kw)  # type: ignore[arg-type]
    assert await g.schedules() == []


async def test_bad_input_and_ids_are_refused() -> None:
    """An input that does not validate, or an id with '/', is refused before anything is stored."""
    g = build(MemoryStore())
    with pytest.raises(StateValidationError):
        await g.schedule("x", cron="@daily", input={"hold": "not a bool"})
    with pytest.raises(ScheduleError, match="'/'"):
        await g.schedule("a/b", cron="@daily", input={})
    assert await g.schedules() == []


@settings(max_examples=200, deadline=None)
@given(
    every=st.integers(1, 50_000),
    catch_up=st.integers(0, 400_000),
    late=st.integers(-20_000, 600_000),
    overlap=st.sampled_from(list(Overlap)),
)
def test_catch_up_matches_enumerating_the_grid(
    every: int, catch_up: int, late: int, overlap: Overlap
) -> None:
    """For any interval, window and lateness, the fires started, skipped and missed are those a walk
    over the grid finds: every grid point within the window fires or meets the overlap policy,
    every older one is missed, and the next fire is the first grid point after now."""
    anchor = 1_800_000_000_000
    now = anchor + late
    spec = Spec(None, every, anchor, "UTC", overlap, catch_up)
    got = plan(spec, Book(next_fire=anchor), now, active=False)
    grid = list(range(anchor, now + 1, every)) if now >= anchor else []
    window = [t for t in grid if t >= now - catch_up]
    assert got.missed == len(grid) - len(window)
    assert got.next_fire == (grid[-1] + every if grid else anchor)
    if overlap is Overlap.ALLOW:
        assert got.starting == window
    else:
        assert got.starting == window[:1]
        buffered = overlap is Overlap.BUFFER_ONE and len(window) > 1
        assert got.pending == (window[1] if buffered else None)
        assert got.skipped == max(0, len(window) - 1 - buffered)


@settings(max_examples=60, deadline=None)
@given(minute_step=st.integers(1, 59), catch_up_min=st.integers(0, 300), late_min=st.integers(0, 2000))
def test_cron_catch_up_matches_a_minute_by_minute_walk(
    minute_step: int, catch_up_min: int, late_min: int
) -> None:
    """A cron schedule found late fires exactly the matching minutes within the window (allow), found by brute force."""
    start = 1_800_000_000_000 // 60_000 * 60_000
    spec = Spec(f"*/{minute_step} * * * *", None, start, "UTC", Overlap.ALLOW, catch_up_min * 60_000)
    first = spec.first_fire_at_or_after(start)
    now = start + late_min * 60_000
    got = plan(spec, Book(next_fire=first), now, active=False)
    minutes = [t for t in range(first, now + 1, 60_000) if (t // 60_000 % 60) % minute_step == 0]
    assert got.starting == [t for t in minutes if t >= now - catch_up_min * 60_000]
    assert got.missed == len(minutes) - len(got.starting)


async def test_interval_declared_again_keeps_its_grid() -> None:
    """An interval schedule declared again (at the next start-up) keeps its grid and counters; a new start_at moves it."""
    g, clock = build(MemoryStore()), Clock()
    first = await every_10s(g, clock)
    assert await tick_at(Scheduler(g, clock=clock), clock, 10) == ids(clock, 10)
    again = await g.schedule("s", every=timedelta(seconds=10), start_at=at(clock, 10), input=Job())
    assert again.next_fire == at(clock, 20) and again.fired == 1 and again.next_fire != first.next_fire
    plain = await g.schedule(
        "s", every=timedelta(seconds=10), input=Job()
    )  # no start_at: the same definition
    assert plain == again
    moved = await g.schedule("s", every=timedelta(seconds=10), start_at=at(clock, 15), input=Job())
    assert moved.next_fire == at(clock, 15) and moved.fired == 1
