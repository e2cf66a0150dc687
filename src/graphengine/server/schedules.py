"""The schedule routes of the HTTP API, and the scheduler a server runs (see `graphengine.schedules`).

    GET    /api/schedules                     every schedule, by id
    POST   /api/schedules                     create or replace one {"schedule_id", "cron" | "every", "input", ...}
    GET    /api/schedules/{id}                one schedule: definition, next fire, counters
    POST   /api/schedules/{id}/pause          stop it firing
    POST   /api/schedules/{id}/resume         let it fire again, from the next fire time after now
    DELETE /api/schedules/{id}                delete it (its runs stay); 204

Durations are seconds (`every`, `catch_up`), times ISO 8601. A bad definition is 422 naming what
is wrong (an `input` that does not validate: the field errors); an unknown schedule is 404.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import Body, FastAPI, Response
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
)

from ..engine import Engine
from ..errors import RunExistsError
from ..scheduler import Scheduler
from ..schedules import MAX_SCHEDULE_ID, Overlap, Schedule
from .errors import AlreadyRunningError
from .limits import RUN_ID_PATTERN, RunId, check_run_id
from .live import RunManager

__all__ = ["ScheduleBody", "ScheduleInfo", "add_schedule_routes", "server_scheduler"]


def _check_schedule_id(value: str) -> str:
    if len(value) > MAX_SCHEDULE_ID:
        raise ValueError(f"a schedule id has at most {MAX_SCHEDULE_ID} characters, not {len(value)}")
    return value


ScheduleId = Annotated[
    str,
    AfterValidator(check_run_id),
    AfterValidator(_check_schedule_id),
    WithJsonSchema(
        {"type": "string", "minLength": 1, "maxLength": MAX_SCHEDULE_ID, "pattern": RUN_ID_PATTERN}
    ),
]
"""A new schedule's id: a run id of at most 160 characters (its runs' ids add the fire time)."""

_TEN_YEARS = 10 * 366 * 86400.0


def _iso_text(value: Any) -> Any:
    """Times come as ISO 8601 text, as the schema says (pydantic would also take a number of seconds)."""
    if not isinstance(value, str):
        raise ValueError("start_at is an ISO 8601 time with its UTC offset, e.g. 2026-12-01T03:00:00+00:00")
    return value


def _exactly_one_of_cron_or_every(schema: dict[str, Any]) -> None:
    """The body's schema says what the server checks: `cron` or `every`, exactly one, not null."""
    props = schema["properties"]
    for name in ("cron", "every"):
        # a JSON Schema without the `null` branch: the field is given with a value, or left out
        props[name] = next(s for s in props[name]["anyOf"] if s.get("type") != "null") | {
            "description": props[name].get("description", "")
        }
    schema["oneOf"] = [{"required": ["cron"]}, {"required": ["every"]}]


class ScheduleBody(BaseModel):
    """A schedule to create (or whose definition to replace)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_exactly_one_of_cron_or_every)

    schedule_id: ScheduleId
    """Its id (the same characters as a run id; at most 160)."""
    cron: str | None = None
    """A five-field cron expression; give this or `every`."""
    every: float | None = Field(default=None, ge=0.001, le=_TEN_YEARS, allow_inf_nan=False)
    """An interval in seconds (at least 0.001); give this or `cron`."""
    input: dict[str, Any] = Field(default_factory=dict)
    """The initial state of every run (validated against the state type)."""
    overlap: Overlap = Overlap.SKIP
    """skip, buffer_one or allow."""
    catch_up: float = Field(default=60.0, ge=0, le=_TEN_YEARS, allow_inf_nan=False)
    """The catch-up window in seconds."""
    tz: str = "UTC"
    """The time zone a cron expression is read in."""
    start_at: Annotated[AwareDatetime, BeforeValidator(_iso_text)] | None = None
    """First fire of an interval schedule (no fire before it for cron), with its UTC offset."""


class ScheduleInfo(BaseModel):
    """A stored schedule."""

    schedule_id: str
    """Its id."""
    cron: str | None
    """Cron expression, or None."""
    every: float | None
    """Interval in seconds, or None."""
    tz: str
    """Time zone of the cron expression."""
    overlap: Overlap
    """Overlap policy."""
    catch_up: float
    """Catch-up window in seconds."""
    input: Any
    """Initial state of each run."""
    paused: bool
    """Paused schedules do not fire."""
    next_fire: str
    """Next fire time, ISO 8601 (UTC)."""
    pending: str | None
    """A fire `buffer_one` holds until the previous run ends."""
    last_run: str | None
    """The run it started last."""
    fired: int
    """Runs started."""
    skipped: int
    """Fires dropped by the overlap policy."""
    missed: int
    """Fires older than the catch-up window (never run)."""


def _info(s: Schedule) -> dict[str, Any]:
    return s.to_json()


def add_schedule_routes(
    app: FastAPI, engine: Engine[Any], errors: dict[int | str, dict[str, Any]], problem: type[BaseModel]
) -> None:
    """Add the schedule routes (module docstring) to `app`, serving `engine`'s store."""
    found: dict[int | str, dict[str, Any]] = {404: errors[404]}

    @app.get("/api/schedules", response_model=list[ScheduleInfo], tags=["schedules"])
    async def list_schedules() -> list[dict[str, Any]]:
        """Every schedule, by id."""
        return [_info(s) for s in await engine.schedules()]

    @app.post(
        "/api/schedules",
        response_model=ScheduleInfo,
        status_code=201,
        tags=["schedules"],
        responses={422: {"model": problem, "description": "A definition or input that cannot work"}},
    )
    async def put_schedule(body: Annotated[ScheduleBody, Body()]) -> dict[str, Any]:
        """Create a schedule, or replace its definition (the same definition again changes nothing)."""
        s = await engine.schedule(
            body.schedule_id,
            cron=body.cron,
            every=timedelta(seconds=body.every) if body.every is not None else None,
            input=body.input,
            overlap=body.overlap,
            catch_up=timedelta(seconds=body.catch_up),
            tz=body.tz,
            start_at=body.start_at,
        )
        return _info(s)

    @app.get("/api/schedules/{schedule_id}", response_model=ScheduleInfo, tags=["schedules"], responses=found)
    async def get_schedule(schedule_id: RunId) -> dict[str, Any]:
        """One schedule: its definition, next fire time and counters."""
        return _info(await engine.get_schedule(schedule_id))

    @app.post(
        "/api/schedules/{schedule_id}/pause", response_model=ScheduleInfo, tags=["schedules"], responses=found
    )
    async def pause_schedule(schedule_id: RunId) -> dict[str, Any]:
        """Stop the schedule firing (a buffered fire is dropped)."""
        return _info(await engine.pause_schedule(schedule_id))

    @app.post(
        "/api/schedules/{schedule_id}/resume",
        response_model=ScheduleInfo,
        tags=["schedules"],
        responses=found,
    )
    async def resume_schedule(schedule_id: RunId) -> dict[str, Any]:
        """Let the schedule fire again, from its next fire time after now."""
        return _info(await engine.resume_schedule(schedule_id))

    @app.delete("/api/schedules/{schedule_id}", status_code=204, tags=["schedules"], responses=found)
    async def delete_schedule(schedule_id: RunId) -> Response:
        """Delete the schedule; the runs it started stay."""
        if not await engine.delete_schedule(schedule_id):
            await engine.get_schedule(schedule_id)  # 404 naming it
        return Response(status_code=204)


def server_scheduler(engine: Engine[Any], runs: RunManager) -> Scheduler[Any]:
    """The scheduler a server runs: each fire becomes a run this server drives (live in the inspector and SSE)."""

    async def start(run_id: str, state: Any) -> None:
        try:
            await runs.start(run_id, state, wait=False)
        except AlreadyRunningError as exc:  # driven here already: started, as far as the schedule goes
            raise RunExistsError(str(exc), run_id=run_id) from exc

    return Scheduler(engine, start=start)
