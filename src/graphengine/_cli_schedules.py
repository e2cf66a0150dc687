"""The `graphengine schedule` commands: add, list, pause, resume and delete schedules in a store."""

from __future__ import annotations

import argparse
import json
import math
import os
from datetime import datetime, timedelta
from typing import Any

from graphengine.store import Store, open_store

from ._cli_common import CliError, cli_store, json_out, load_engine, table
from .schedules import Schedule, ScheduleMethods

__all__ = ["add_schedule_parser", "cmd_schedule"]


class _Schedules(ScheduleMethods[Any]):
    """The schedule API on a bare store: everything but `schedule` (which validates input with an engine)."""

    def __init__(self, store: Store) -> None:
        self.store = store


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"seconds must be a finite number >= 0, not {text}")
    return value


def _when(text: str) -> datetime:
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 time (2026-12-01T03:00:00+00:00)"
        ) from None
    if t.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no UTC offset (add +00:00 or Z)")
    return t


def add_schedule_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add `schedule add|list|pause|resume|delete` to the `graphengine` parser's subcommands."""
    sp = sub.add_parser(
        "schedule", parents=[common], help="add, list, pause, resume or delete schedules (cron or interval)"
    )
    sp.set_defaults(func=cmd_schedule)
    actions = sp.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="add, list, show, pause, resume or delete"
    )
    add = actions.add_parser("add", parents=[common], help="create a schedule, or replace its definition")
    add.add_argument(
        "engine", metavar="MODULE:ENGINE", help="the engine whose runs it starts (validates --input)"
    )
    add.add_argument("schedule_id", metavar="ID", help="the schedule's id")
    when = add.add_mutually_exclusive_group(required=True)
    when.add_argument("--cron", metavar="EXPR", help="five-field cron expression, e.g. '0 3 * * *'")
    when.add_argument("--every", type=_seconds, metavar="S", help="interval in seconds")
    add.add_argument("--input", default="{}", metavar="JSON", help="initial state of each run (default: {})")
    add.add_argument(
        "--overlap", choices=["skip", "buffer_one", "allow"], default="skip", help="(default: skip)"
    )
    add.add_argument(
        "--catch-up", type=_seconds, default=60.0, metavar="S", help="catch-up window (default: 60)"
    )
    add.add_argument("--tz", default="UTC", help="time zone of the cron expression (default: UTC)")
    add.add_argument("--start-at", type=_when, metavar="TIME", help="first fire (ISO 8601 with offset)")
    add.add_argument("--json", action="store_true", help="print the schedule as JSON")
    ls = actions.add_parser("list", parents=[common], help="every schedule with its next fire time")
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    for name, text in (
        ("pause", "stop a schedule firing"),
        ("resume", "let a paused schedule fire again"),
        ("delete", "delete a schedule (its runs stay)"),
        ("show", "one schedule"),
    ):
        p = actions.add_parser(name, parents=[common], help=text)
        p.add_argument("schedule_id", metavar="ID", help="the schedule's id")
        p.add_argument("--json", action="store_true", help="print the schedule as JSON")


def _when_text(s: Schedule) -> str:
    return f"every {s.every.total_seconds():g}s" if s.every is not None else s.cron or ""


def _print(schedules: list[Schedule], as_json: bool) -> None:
    if as_json:
        json_out([s.to_json() for s in schedules])
        return
    rows = [
        (
            s.schedule_id,
            _when_text(s),
            s.tz,
            s.overlap.value,
            "paused" if s.paused else s.next_fire.isoformat(timespec="seconds"),
            s.last_run or "",
            f"{s.fired}/{s.skipped}/{s.missed}",
        )
        for s in schedules
    ]
    table("schedules", ["id", "when", "tz", "overlap", "next fire", "last run", "fired/skipped/missed"], rows)


async def cmd_schedule(args: argparse.Namespace) -> int:
    """Run `graphengine schedule ACTION`."""
    if args.action == "add":
        return await _add(args)
    async with cli_store(args) as store:
        api = _Schedules(store)
        if args.action == "list":
            _print(await api.schedules(), args.json)
            return 0
        if args.action == "delete":
            if not await api.delete_schedule(args.schedule_id):
                raise CliError(f"no schedule {args.schedule_id!r} in the store")
            print(f"deleted schedule {args.schedule_id}")
            return 0
        if args.action == "pause":
            s = await api.pause_schedule(args.schedule_id)
        elif args.action == "resume":
            s = await api.resume_schedule(args.schedule_id)
        else:
            s = await api.get_schedule(args.schedule_id)
    if args.json:
        json_out(s.to_json())
    else:
        _print([s], False)
    return 0


async def _add(args: argparse.Namespace) -> int:
    url = args.store or args.store_main or os.environ.get("GRAPHENGINE_STORE")
    if not url:
        raise CliError("no store: pass --store URL (e.g. --store sqlite:///runs.db) or set GRAPHENGINE_STORE")
    try:
        value = json.loads(args.input)
    except ValueError as exc:
        raise CliError(f"--input is not JSON: {exc}") from exc
    except RecursionError:
        raise CliError("--input nests too deeply to parse; pass a flatter JSON value") from None
    store = open_store(url)  # like serve, adding a schedule may create the database
    try:
        eng = load_engine(args.engine, store)
        s = await eng.schedule(
            args.schedule_id,
            cron=args.cron,
            every=timedelta(seconds=args.every) if args.every is not None else None,
            input=value,
            overlap=args.overlap,
            catch_up=timedelta(seconds=args.catch_up),
            tz=args.tz,
            start_at=args.start_at,
        )
    finally:
        await store.close()
    if args.json:
        json_out(s.to_json())
    else:
        _print([s], False)
    return 0
