"""The commands that read and tidy stored runs: runs, show, history, export, prune."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any

from graphengine.store import (
    PrunePolicy,
    PruneReport,
    RunStatus,
    Store,
    StoreError,
    export_run,
    prune,
)

from ._cli_common import (
    CliError,
    bytes_json,
    cli_store,
    json_out,
    load_engine,
    progress,
    route_text,
    run_coro,
    short_text,
    table,
    time_text,
    write_out,
)
from ._encoding import FAN_OUT_NODE
from .history import field_sizes

__all__ = ["cmd_export", "cmd_history", "cmd_prune", "cmd_runs", "cmd_show"]


# ---------------------------------------------------------------------- commands


async def cmd_runs(args: argparse.Namespace) -> int:
    """List runs, newest first."""
    async with cli_store(args) as store:
        try:
            status = RunStatus(args.status) if args.status else None
        except ValueError:
            raise CliError(
                f"unknown status {args.status!r}; one of {', '.join(s.value for s in RunStatus)}"
            ) from None
        # One run more than the page: whether another page follows, without counting them all.
        listed = await store.list_runs(status=status, limit=args.offset + args.limit + 1)
    runs = listed[args.offset : args.offset + args.limit]
    if len(listed) > args.offset + args.limit:
        # stderr: the table or JSON on stdout stays exactly the runs, for pipes and programs
        print(
            f"showing runs {args.offset + 1}-{args.offset + len(runs)}, newest first; more follow: "
            f"pass --offset {args.offset + args.limit} for the next page (or a larger --limit)",
            file=sys.stderr,
        )
    if args.json:
        json_out(
            [
                {
                    "run_id": r.run_id,
                    "status": str(r.status),
                    "created_at": r.created_at,
                    "updated_at": r.updated_at,
                    "error": r.error,
                    "error_node": r.error_node,
                }
                for r in runs
            ]
        )
        return 0
    rows = [
        (r.run_id, str(r.status), time_text(r.created_at), time_text(r.updated_at), short_text(r.error, 50))
        for r in runs
    ]
    table("", ["RUN", "STATUS", "CREATED", "UPDATED", "ERROR"], rows)
    return 0


def _step_rows(steps: Sequence[Any]) -> list[tuple[Any, ...]]:
    return [
        (
            s.step,
            s.node_id,
            route_text(s.route),
            s.attempt,
            short_text(json.dumps(bytes_json(s.delta)) if s.delta is not None else "", 50),
            "yes" if s.state is not None else "",
            short_text(s.error, 40),
        )
        for s in steps
    ]


_STEP_HEADERS = ["STEP", "NODE", "ROUTE", "ATTEMPT", "DELTA", "SNAPSHOT", "ERROR"]


async def cmd_show(args: argparse.Namespace) -> int:
    """A run's steps as a table, or its state at one step."""
    async with cli_store(args) as store:
        run = await run_coro(store, args.run)
        steps = list(await store.load_steps(args.run))
        if args.sizes:
            growth = _field_growth(steps)
            if args.json:
                json_out({"run": args.run, "fields": growth})
                return 0
            table(
                f"run {run.run_id}: bytes stored per field, fastest growing first",
                ["FIELD", "TOTAL BYTES", "STEPS", "MEAN PER STEP", "LARGEST"],
                [(g["field"], g["total"], g["steps"], round(g["mean"], 1), g["max"]) for g in growth],
            )
            return 0
        if args.step is None:
            if args.json:
                json_out({"run": _run_doc(run), "steps": [_step_doc(s) for s in steps]})
                return 0
            where = f" at {run.error_node}" if run.error_node else ""
            title = f"run {run.run_id}: {run.status}, {len(steps)} steps" + (
                f", error{where}: {short_text(run.error, 80)}" if run.error else ""
            )
            table(title, _STEP_HEADERS, _step_rows(steps))
            return 0
        k = args.step
        if not 0 <= k <= len(steps):
            raise CliError(f"run {args.run!r} has steps 0..{len(steps)}; no step {k}")
        state = await _state_at(store, args, run, steps, k)
    json_out(state)
    return 0


def _field_growth(steps: Sequence[Any]) -> list[dict[str, Any]]:
    """Per field of the deltas: total encoded bytes, steps that set it, mean and largest; biggest first."""
    acc: dict[str, list[int]] = {}
    for s in steps:
        for name, size in field_sizes(s.delta).items():
            acc.setdefault(name, []).append(size)
    rows = [
        {"field": k, "total": sum(v), "steps": len(v), "mean": sum(v) / len(v), "max": max(v)}
        for k, v in acc.items()
    ]
    return sorted(rows, key=lambda r: (-r["total"], r["field"]))


async def cmd_prune(args: argparse.Namespace) -> int:
    """Delete (or compact) finished runs by policy; running, interrupted and resumable runs are kept.

    Destroys data, so it asks first: the policy must be given (`--keep-last`, `--keep-newer-than`,
    or `--all-finished` for "keep no finished run"), and a prune that would remove something
    needs `--yes`, or a "y" typed at a terminal after seeing the list. Exactly the runs shown
    (the same set `--dry-run` reports) are removed, never one that finished meanwhile.
    """
    if args.keep_last is None and args.keep_newer_than is None and not args.all_finished:
        raise CliError(
            "prune needs a policy: --keep-last N, --keep-newer-than SECONDS, or --all-finished "
            "(every finished run); add --dry-run to see what it would remove"
        )
    if args.all_finished and (args.keep_last is not None or args.keep_newer_than is not None):
        raise CliError("--all-finished keeps no finished run; it cannot be combined with --keep-*")
    # Invalid values (negative, NaN) raise InvalidPolicyError here, before the store is opened.
    policy = PrunePolicy(keep_last=args.keep_last, keep_newer_than=args.keep_newer_than, compact=args.compact)
    async with cli_store(args) as store:
        report = await prune(store, policy, dry_run=True)
        doomed = (*report.deleted, *report.compacted)
        if not args.dry_run and doomed:
            if not args.yes and not _confirm(report, policy.compact):
                raise CliError(
                    f"not pruning: {len(doomed)} run(s) would be "
                    f"{'compacted' if policy.compact else 'deleted'}; pass --yes to go ahead "
                    "(or --dry-run to list them)"
                )
            verb = "compacting" if policy.compact else "deleting"
            with progress(f"{verb} {len(doomed)} run(s)"):
                report = await prune(store, policy, only=frozenset(doomed))
    if args.json:
        json_out(
            {
                "dry_run": report.dry_run,
                "deleted": list(report.deleted),
                "compacted": list(report.compacted),
                "steps_removed": report.steps_removed,
                "kept": list(report.kept),
            }
        )
        return 0
    verb = "would " if report.dry_run else ""
    _print_ids(f"{verb}delete {len(report.deleted)} run(s)", report.deleted)
    if policy.compact:
        _print_ids(
            f"{verb}compact {len(report.compacted)} run(s), removing {report.steps_removed} step record(s)",
            report.compacted,
        )
    print(f"kept {len(report.kept)} finished run(s) by policy; unfinished runs are never touched")
    return 0


_SHOWN_IDS = 20
"""Run ids a prune prints before it says how many more there are (`--json` lists every one)."""


def _print_ids(title: str, ids: Sequence[str], file: Any = None) -> None:
    """`title:` then one run id per line, the first `_SHOWN_IDS` only, then how many were left out."""
    print(f"{title}:" if ids else f"{title}", file=file)
    for run_id in ids[:_SHOWN_IDS]:
        print(f"  {run_id}", file=file)
    if len(ids) > _SHOWN_IDS:
        print(f"  ... and {len(ids) - _SHOWN_IDS} more (--json lists them all)", file=file)


def _confirm(report: PruneReport, compact: bool) -> bool:
    """Show what a prune would remove and ask at the terminal; False without one (no stdin tty)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    runs = report.compacted if compact else report.deleted
    verb = "compact" if compact else "delete"
    _print_ids(f"about to {verb} {len(runs)} run(s)", runs, file=sys.stderr)
    try:
        answer = input(f"{verb} them? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


async def _state_at(store: Store, args: argparse.Namespace, run: Any, steps: list[Any], k: int) -> Any:
    if k == 0:
        return bytes_json(run.initial)
    rec = steps[k - 1]
    if rec.state is not None:
        return bytes_json(rec.state)
    if args.engine is None:
        snap = max((s.step for s in steps[:k] if s.state is not None), default=0)
        raise CliError(
            f"step {k} of run {args.run!r} has no stored snapshot (nearest: step {snap}); "
            "pass --engine MODULE:ENGINE so its reducer can rebuild the state"
        )
    eng = load_engine(args.engine, store)
    view = (await eng.history(args.run))[k - 1]
    return json.loads(eng.codec.encode(view.state))


def _run_doc(r: Any) -> dict[str, Any]:
    return {
        "run_id": r.run_id,
        "status": str(r.status),
        "fingerprint": r.fingerprint,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
        "error": r.error,
        "error_node": r.error_node,
    }


def _step_doc(s: Any) -> dict[str, Any]:
    return {
        "step": s.step,
        "node_id": s.node_id,
        "route": bytes_json(s.route.encode()),
        "attempt": s.attempt,
        "delta": bytes_json(s.delta),
        "state": bytes_json(s.state),
        "error": s.error,
        "calls": bytes_json(s.calls),
        "ts": s.ts,
    }


async def cmd_history(args: argparse.Namespace) -> int:
    """Every committed step of a run (deltas, snapshots, routes)."""
    async with cli_store(args) as store:
        await run_coro(store, args.run)
        steps = list(await store.load_steps(args.run))
        branches = {
            s.step: await store.load_branches(args.run, s.step) for s in steps if s.node_id == FAN_OUT_NODE
        }
    if args.json:
        docs = []
        for s in steps:
            d = _step_doc(s)
            if s.step in branches:
                d["branches"] = [
                    {
                        "branch": b.branch,
                        "node_id": b.node_id,
                        "delta": bytes_json(b.delta),
                        "attempt": b.attempt,
                    }
                    for b in branches[s.step]
                ]
            docs.append(d)
        json_out(docs)
        return 0
    table(f"run {args.run}", _STEP_HEADERS, _step_rows(steps))
    return 0


async def cmd_export(args: argparse.Namespace) -> int:
    """A run as JSON lines (the format `store.import_run` reads)."""
    with progress(f"exporting run {args.run!r}"):
        async with cli_store(args) as store:
            try:
                lines = await export_run(store, args.run)
            except StoreError as exc:
                raise CliError(str(exc)) from exc
        text = "".join(line + "\n" for line in lines)
        if args.output:
            await asyncio.to_thread(write_out, args.output, text)
    if args.output:
        print(f"exported {len(lines)} lines of run {args.run!r} to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
