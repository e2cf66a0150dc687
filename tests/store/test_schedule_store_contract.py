"""The `ScheduleStore` contract: every backend passes this one body of tests (see `store` in conftest)."""

from __future__ import annotations

import asyncio

import pytest

from graphengine.store import (
    InvalidIdError,
    RunRecord,
    RunStatus,
    ScheduleExistsError,
    ScheduleRecord,
    ScheduleStore,
    Store,
)

AWKWARD = bytes(range(256)) + b"\x00\xff\xfe"


def sched(schedule_id: str = "s1", due_at: int = 1_000, **kw: object) -> ScheduleRecord:
    fields: dict[str, object] = {"spec": b'{"cron":"0 3 * * *"}', "input": b'{"n":0}'} | kw
    return ScheduleRecord(schedule_id, due_at=due_at, **fields)  # type: ignore[arg-type]


def schedules_of(store: Store) -> ScheduleStore:
    assert isinstance(store, ScheduleStore)
    return store


async def test_every_backend_keeps_schedules(store: Store) -> None:
    """Every bundled store implements the ScheduleStore extension."""
    assert isinstance(store, ScheduleStore)


async def test_schedule_reads_back_byte_for_byte(store: Store) -> None:
    """A created schedule reads back exactly: awkward bytes, a large due time, version 1."""
    s = schedules_of(store)
    made = await s.create_schedule(sched(due_at=2**62, input=AWKWARD, state=AWKWARD, spec=b"{}", paused=True))
    got = await s.get_schedule("s1")
    assert got == made
    assert got.input == AWKWARD and got.state == AWKWARD and got.due_at == 2**62
    assert got.paused is True and got.version == 1 and got.created_at > 0


async def test_taken_schedule_id_is_refused(store: Store) -> None:
    """create_schedule of a taken id raises ScheduleExistsError and leaves the first record alone."""
    s = schedules_of(store)
    first = await s.create_schedule(sched(spec=b'{"a":1}'))
    with pytest.raises(ScheduleExistsError) as info:
        await s.create_schedule(sched(spec=b'{"b":2}'))
    assert info.value.schedule_id == "s1"
    assert await s.get_schedule("s1") == first


async def test_unknown_schedule_reads_as_none(store: Store) -> None:
    """Reads and deletes of an unknown schedule give None/False and invent nothing."""
    s = schedules_of(store)
    assert await s.get_schedule("nope") is None
    assert await s.delete_schedule("nope") is False
    assert await s.update_schedule(sched("nope"), expect_version=1) is None
    assert await s.list_schedules() == []


async def test_update_is_compare_and_set_on_the_version(store: Store) -> None:
    """An update over the version read writes and bumps it; one over a stale version writes nothing."""
    s = schedules_of(store)
    v1 = await s.create_schedule(sched())
    v2 = await s.update_schedule(sched(due_at=5_000, state=b'{"x":1}', paused=True), expect_version=v1.version)
    assert v2 is not None and v2.version == 2
    assert await s.update_schedule(sched(due_at=9_000), expect_version=1) is None
    got = await s.get_schedule("s1")
    assert got is not None
    assert (got.due_at, got.state, got.paused, got.version) == (5_000, b'{"x":1}', True, 2)
    assert got.created_at == v1.created_at


async def test_racing_updates_of_one_version_write_once(store: Store) -> None:
    """Of ten concurrent updates over the same version exactly one is written."""
    s = schedules_of(store)
    await s.create_schedule(sched())
    results = await asyncio.gather(
        *(s.update_schedule(sched(due_at=i, state=str(i).encode()), expect_version=1) for i in range(10))
    )
    won = [r for r in results if r is not None]
    assert len(won) == 1
    got = await s.get_schedule("s1")
    assert got is not None and got.version == 2 and got.due_at == won[0].due_at


async def test_due_listing_skips_paused_and_future_schedules(store: Store) -> None:
    """list_schedules(due_by=t) returns unpaused schedules due by t, soonest first; without it, all by id."""
    s = schedules_of(store)
    await s.create_schedule(sched("c", due_at=300))
    await s.create_schedule(sched("a", due_at=200))
    await s.create_schedule(sched("b", due_at=100, paused=True))
    await s.create_schedule(sched("d", due_at=900))
    assert [r.schedule_id for r in await s.list_schedules(due_by=300)] == ["a", "c"]
    assert [r.schedule_id for r in await s.list_schedules(due_by=299)] == ["a"]
    assert [r.schedule_id for r in await s.list_schedules()] == ["a", "b", "c", "d"]
    assert [r.schedule_id for r in await s.list_schedules(limit=2)] == ["a", "b"]


async def test_delete_removes_the_schedule_and_not_its_runs(store: Store) -> None:
    """Deleting a schedule leaves the runs it started (their ids need not match anything)."""
    s = schedules_of(store)
    await s.create_schedule(sched())
    await store.create_run(RunRecord("s1@2026-01-01T03:00:00Z", RunStatus.DONE, b"{}"))
    assert await s.delete_schedule("s1") is True
    assert await s.get_schedule("s1") is None
    assert await store.get_run("s1@2026-01-01T03:00:00Z") is not None
    assert await s.create_schedule(sched()) is not None  # the id is free again


@pytest.mark.parametrize("bad", ["", "x\x00y", "\ud800", "x" * 256])
async def test_bad_schedule_ids_are_refused_before_the_database(store: Store, bad: str) -> None:
    """Every backend refuses the same unusable ids with InvalidIdError."""
    s = schedules_of(store)
    with pytest.raises(InvalidIdError):
        await s.create_schedule(sched(bad))
    with pytest.raises(InvalidIdError):
        await s.get_schedule(bad)


async def test_ids_compare_byte_for_byte(store: Store) -> None:
    """Ids differing only in case or trailing spaces are different schedules."""
    s = schedules_of(store)
    for sid in ("job", "Job", "job ", "jöb"):
        await s.create_schedule(sched(sid))
    assert sorted(r.schedule_id for r in await s.list_schedules()) == sorted(["job", "Job", "job ", "jöb"])
