"""The `graphengine` command: inspect, resume, replay, draw and export runs in a store.

    graphengine runs    --store sqlite:///runs.db [--status S] [--limit N] [--json]
    graphengine show    RUN --store URL [--step K [--engine MODULE:ENGINE]] [--json]
    graphengine history RUN --store URL [--json]
    graphengine export  RUN --store URL [-o FILE]
    graphengine resume  MODULE:ENGINE RUN [--store URL] [--input JSON] [--json]
    graphengine replay  MODULE:ENGINE RUN [--store URL] [--json]
    graphengine render  MODULE:ENGINE [-o FILE] [--format dot|mermaid|png|svg|pdf] [--run RUN --store URL]
    graphengine serve   MODULE:ENGINE --store URL [--host H] [--port 8000] [--token-env VAR]
                        [--allow-host NAME ...] [--max-body BYTES]
    graphengine worker  MODULE:ENGINE --store URL [--queue-dsn DSN] [--concurrency N] [--ttl S]

`--store` may come before or after the subcommand, or from `GRAPHENGINE_STORE`. `MODULE:ENGINE`
names an `Engine` (used with the `--store` store when one is given) or a function returning one,
called with the store when it takes an argument (`examples.research:build`).

Exit codes: 0 success; 1 a replay diverged or a resumed run failed (the report or the error is
printed); 2 a usage mistake (unknown run, bad URL, bad MODULE:ENGINE, bad JSON), as one line on
stderr, never a traceback (`GRAPHENGINE_DEBUG=1` shows it); 3 anything unexpected (a factory
that raises, a server that cannot start...), also as one line. Numbers are checked when parsed
(a port in 0..65535, counts >= 1, finite positive seconds). Tables use `rich` when it is
installed and stdout is a terminal (`pip install graphengine[cli]`), plain aligned text otherwise;
`--json` output is for programs.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import importlib
import inspect
import json
import logging
import math
import os
import socket
import sys
import traceback
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphengine.store import (
    MemoryStore,
    PrunePolicy,
    PruneReport,
    RunStatus,
    Store,
    StoreError,
    export_run,
    open_store,
    prune,
)

from ._encoding import FAN_OUT_NODE
from .engine import Engine
from .errors import GraphError, NodeError
from .history import field_sizes
from .viz import RenderError, run_path, to_dot, to_mermaid
from .viz import render as render_file

__all__ = ["CliError", "main"]

_PROG = "graphengine"


class CliError(Exception):
    """A user mistake the command reports as one line (exit code 2)."""


# ---------------------------------------------------------------------- output


def _rich_console() -> Any:
    if os.environ.get("GRAPHENGINE_PLAIN") or not sys.stdout.isatty():
        return None
    try:
        from rich.console import Console
    except ImportError:
        return None
    return Console()


def _table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print rows as a table: rich on a terminal, aligned plain text otherwise."""
    console = _rich_console()
    cells = [["" if v is None else str(v) for v in r] for r in rows]
    if console is not None:
        from rich.table import Table

        table = Table(title=title or None)
        for h in headers:
            table.add_column(h, overflow="fold")
        for r in cells:
            table.add_row(*r)
        console.print(table)
        return
    if title:
        print(title)
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip())
    for r in cells:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def _write(path: str, text: str) -> None:
    Path(path).write_text(text, encoding="utf-8")


def _json_out(doc: Any) -> None:
    print(json.dumps(doc, indent=2, default=str, ensure_ascii=False))


def _time(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S") if ts else ""


def _short(text: str | None, n: int = 60) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _bytes_json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return f"<{len(data)} bytes, not JSON>"


def _route_text(route: str) -> str:
    try:
        r = json.loads(route)
    except ValueError:
        return route
    if not isinstance(r, dict):
        return route
    if "goto" in r:
        return f"goto {r['goto']}"
    if r.get("stop"):
        return "stop"
    if r.get("interrupt"):
        return "interrupt" + (f" {json.dumps(r.get('payload'))}" if r.get("payload") is not None else "")
    if "fan_out" in r:
        return f"fan_out [{', '.join(str(b.get('node')) for b in r['fan_out'])}] -> {r.get('join')}"
    return route


# ---------------------------------------------------------------------- loading


def _store(args: argparse.Namespace, *, required: bool = True) -> Store | None:
    url = args.store or args.store_main or os.environ.get("GRAPHENGINE_STORE")
    if not url:
        if required:
            raise CliError(
                "no store: pass --store URL (e.g. --store sqlite:///runs.db) or set GRAPHENGINE_STORE"
            )
        return None
    return open_store(url, create=False)


def _load_engine(spec: str, store: Store | None) -> Engine[Any]:
    """The engine `MODULE:ENGINE` names, using `store` when one is given."""
    mod_name, sep, attr = spec.partition(":")
    if not sep or not mod_name or not attr:
        raise CliError(f"{spec!r} is not MODULE:ENGINE (e.g. examples.research:build)")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(mod_name)
    except ImportError as exc:
        raise CliError(f"cannot import module {mod_name!r} (from {spec!r}): {exc}") from exc
    except Exception as exc:  # the module itself fails: a syntax error, an error at import time
        raise CliError(f"importing module {mod_name!r} failed: {type(exc).__name__}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CliError(f"module {mod_name!r} has no attribute {attr!r}") from None
    if isinstance(obj, Engine):
        if store is None:
            return obj
        eng = copy.copy(obj)  # an engine holds nothing per run; this one writes to the CLI's store
        eng.store = store
        return eng
    if callable(obj):
        try:
            params = [
                p
                for p in inspect.signature(obj).parameters.values()
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
        except (TypeError, ValueError):
            params = []
        if params and store is None:
            raise CliError(f"{spec} needs a store: pass --store URL")
        try:
            eng = obj(store) if params else obj()
        except (CliError, GraphError, StoreError):
            raise
        except Exception as exc:
            raise CliError(f"{spec} failed: {type(exc).__name__}: {exc}") from exc
        if isinstance(eng, Engine):
            return eng
        raise CliError(f"{spec} returned {type(eng).__name__}, not an Engine")
    raise CliError(f"{spec} is a {type(obj).__name__}, not an Engine or a function returning one")


async def _run(store: Store, run_id: str) -> Any:
    rec = await store.get_run(run_id)
    if rec is None:
        raise CliError(f"no run {run_id!r} in the store")
    return rec


# ---------------------------------------------------------------------- commands


async def cmd_runs(args: argparse.Namespace) -> int:
    """List runs, newest first."""
    store = _store(args)
    assert store is not None
    try:
        status = RunStatus(args.status) if args.status else None
    except ValueError:
        raise CliError(
            f"unknown status {args.status!r}; one of {', '.join(s.value for s in RunStatus)}"
        ) from None
    try:
        runs = await store.list_runs(status=status, limit=args.limit)
    finally:
        await store.close()
    if args.json:
        _json_out(
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
        (r.run_id, str(r.status), _time(r.created_at), _time(r.updated_at), _short(r.error, 50)) for r in runs
    ]
    _table("", ["RUN", "STATUS", "CREATED", "UPDATED", "ERROR"], rows)
    return 0


def _step_rows(steps: Sequence[Any]) -> list[tuple[Any, ...]]:
    return [
        (
            s.step,
            s.node_id,
            _route_text(s.route),
            s.attempt,
            _short(json.dumps(_bytes_json(s.delta)) if s.delta is not None else "", 50),
            "yes" if s.state is not None else "",
            _short(s.error, 40),
        )
        for s in steps
    ]


_STEP_HEADERS = ["STEP", "NODE", "ROUTE", "ATTEMPT", "DELTA", "SNAPSHOT", "ERROR"]


async def cmd_show(args: argparse.Namespace) -> int:
    """A run's steps as a table, or its state at one step."""
    store = _store(args)
    assert store is not None
    try:
        run = await _run(store, args.run)
        steps = list(await store.load_steps(args.run))
        if args.sizes:
            growth = _field_growth(steps)
            if args.json:
                _json_out({"run": args.run, "fields": growth})
                return 0
            _table(
                f"run {run.run_id}: bytes stored per field, fastest growing first",
                ["FIELD", "TOTAL BYTES", "STEPS", "MEAN PER STEP", "LARGEST"],
                [(g["field"], g["total"], g["steps"], round(g["mean"], 1), g["max"]) for g in growth],
            )
            return 0
        if args.step is None:
            if args.json:
                _json_out({"run": _run_doc(run), "steps": [_step_doc(s) for s in steps]})
                return 0
            where = f" at {run.error_node}" if run.error_node else ""
            title = f"run {run.run_id}: {run.status}, {len(steps)} steps" + (
                f", error{where}: {_short(run.error, 80)}" if run.error else ""
            )
            _table(title, _STEP_HEADERS, _step_rows(steps))
            return 0
        k = args.step
        if not 0 <= k <= len(steps):
            raise CliError(f"run {args.run!r} has steps 0..{len(steps)}; no step {k}")
        state = await _state_at(store, args, run, steps, k)
    finally:
        await store.close()
    _json_out(state)
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
    store = _store(args)
    assert store is not None
    try:
        report = await prune(store, policy, dry_run=True)
        doomed = (*report.deleted, *report.compacted)
        if not args.dry_run and doomed:
            if not args.yes and not _confirm(report, policy.compact):
                raise CliError(
                    f"not pruning: {len(doomed)} run(s) would be "
                    f"{'compacted' if policy.compact else 'deleted'}; pass --yes to go ahead "
                    "(or --dry-run to list them)"
                )
            report = await prune(store, policy, only=frozenset(doomed))
    finally:
        await store.close()
    if args.json:
        _json_out(
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
    print(f"{verb}delete {len(report.deleted)} run(s): {', '.join(report.deleted) or '-'}")
    if policy.compact:
        print(f"{verb}compact {len(report.compacted)} run(s), removing {report.steps_removed} step record(s)")
    print(f"kept {len(report.kept)} finished run(s) by policy; unfinished runs are never touched")
    return 0


def _confirm(report: PruneReport, compact: bool) -> bool:
    """Show what a prune would remove and ask at the terminal; False without one (no stdin tty)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    runs = report.compacted if compact else report.deleted
    verb = "compact" if compact else "delete"
    print(f"about to {verb} {len(runs)} run(s): {', '.join(runs)}", file=sys.stderr)
    try:
        answer = input(f"{verb} them? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


async def _state_at(store: Store, args: argparse.Namespace, run: Any, steps: list[Any], k: int) -> Any:
    if k == 0:
        return _bytes_json(run.initial)
    rec = steps[k - 1]
    if rec.state is not None:
        return _bytes_json(rec.state)
    if args.engine is None:
        snap = max((s.step for s in steps[:k] if s.state is not None), default=0)
        raise CliError(
            f"step {k} of run {args.run!r} has no stored snapshot (nearest: step {snap}); "
            "pass --engine MODULE:ENGINE so its reducer can rebuild the state"
        )
    eng = _load_engine(args.engine, store)
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
        "route": _bytes_json(s.route.encode()),
        "attempt": s.attempt,
        "delta": _bytes_json(s.delta),
        "state": _bytes_json(s.state),
        "error": s.error,
        "calls": _bytes_json(s.calls),
        "ts": s.ts,
    }


async def cmd_history(args: argparse.Namespace) -> int:
    """Every committed step of a run (deltas, snapshots, routes)."""
    store = _store(args)
    assert store is not None
    try:
        await _run(store, args.run)
        steps = list(await store.load_steps(args.run))
        branches = {
            s.step: await store.load_branches(args.run, s.step) for s in steps if s.node_id == FAN_OUT_NODE
        }
    finally:
        await store.close()
    if args.json:
        docs = []
        for s in steps:
            d = _step_doc(s)
            if s.step in branches:
                d["branches"] = [
                    {
                        "branch": b.branch,
                        "node_id": b.node_id,
                        "delta": _bytes_json(b.delta),
                        "attempt": b.attempt,
                    }
                    for b in branches[s.step]
                ]
            docs.append(d)
        _json_out(docs)
        return 0
    _table(f"run {args.run}", _STEP_HEADERS, _step_rows(steps))
    return 0


async def cmd_export(args: argparse.Namespace) -> int:
    """A run as JSON lines (the format `store.import_run` reads)."""
    store = _store(args)
    assert store is not None
    try:
        try:
            lines = await export_run(store, args.run)
        except StoreError as exc:
            raise CliError(str(exc)) from exc
    finally:
        await store.close()
    text = "".join(line + "\n" for line in lines)
    if args.output:
        await asyncio.to_thread(_write, args.output, text)
        print(f"exported {len(lines)} lines of run {args.run!r} to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


async def cmd_serve(args: argparse.Namespace) -> int:
    """Serve an engine's HTTP API and inspector until SIGINT/SIGTERM (see `graphengine.server`)."""
    try:
        import uvicorn

        from .server import create_app, token_from_env
        from .server.security import LOOPBACK_HOSTS, is_loopback
    except ImportError as exc:
        raise CliError(f"serve needs the server extra: pip install graphengine[server] ({exc})") from exc
    url = args.store or args.store_main or os.environ.get("GRAPHENGINE_STORE")
    if not url:
        raise CliError("no store: pass --store URL (e.g. --store sqlite:///runs.db) or set GRAPHENGINE_STORE")
    token = token_from_env(args.token_env)
    # Bind before anything else: a bad host or port, or a port in use, is one line, not a traceback.
    sock = _listen(args.host, args.port)
    try:
        allowed = _allowed_hosts(args.host, args.allow_host, token, LOOPBACK_HOSTS, is_loopback)
        store = open_store(
            url
        )  # serve starts runs: unlike the inspecting commands, it may create the database
        try:
            await store.list_runs(
                limit=1
            )  # a file that is not a database fails now, not on the first request
            app = create_app(
                _load_engine(args.engine, store), token=token, allowed_hosts=allowed, max_body=args.max_body
            )
            config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level)
            server = uvicorn.Server(config)
            # Uvicorn logs where it listens only for sockets it binds itself; say it as it would
            # (the socket already listens: a client connecting now waits in its backlog).
            where = sock.getsockname()
            shown = f"[{where[0]}]" if ":" in where[0] else where[0]
            logging.getLogger("uvicorn.error").info(
                "Uvicorn running on http://%s:%d (Press CTRL+C to quit)", shown, where[1]
            )
            await server.serve(sockets=[sock])
            if not server.started:
                raise CliError("the server did not start (see its log above)")
        finally:
            await store.close()
    finally:
        sock.close()
    return 0


def _allowed_hosts(
    host: str, extra: Sequence[str] | None, token: str | None, loopback: Sequence[str], is_loopback: Any
) -> list[str] | None:
    """The Host allow-list for `serve` (None: the server's default), refusing an open port without a token."""
    if not is_loopback(host) and not token and not extra:
        raise CliError(
            f"refusing to serve on {host} without a token: anyone who reaches the port could start runs. "
            "Set $GRAPHENGINE_TOKEN (or --token-env VAR), or name the host names clients use "
            "with --allow-host NAME (--allow-host '*' for any)"
        )
    if not extra:
        return None
    hosts = [*loopback, *extra]
    if host not in ("0.0.0.0", "::", ""):  # noqa: S104 (comparing, not binding)
        hosts.append(host)
    if not token:
        print(
            f"{_PROG}: WARNING: serving on {host} WITHOUT A TOKEN to hosts {', '.join(extra)}: "
            "anyone who reaches the port can start and resume runs",
            file=sys.stderr,
        )
    return hosts


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` (SO_REUSEADDR, as uvicorn binds); CliError naming what failed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise CliError(f"cannot listen on {host!r}: not a known host or address ({exc})") from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(2048)  # uvicorn's default backlog
    except OSError as exc:
        sock.close()
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


async def cmd_resume(args: argparse.Namespace) -> int:
    """Resume a run with an engine, showing progress; prints where it ended."""
    store = _store(args, required=False)
    try:
        eng = _load_engine(args.engine, store)
        kw: dict[str, Any] = {}
        if args.input is not None:
            try:
                kw["input"] = json.loads(args.input)
            except ValueError as exc:
                raise CliError(f"--input is not JSON: {exc}") from exc
        await eng.get_run(args.run)
        stream = eng.stream_resume(args.run, **kw)
        console = _rich_console()
        try:
            if console is not None:
                from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

                with Progress(
                    SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console
                ) as progress:
                    task = progress.add_task(f"resuming {args.run}", total=None)
                    async for ev in stream:
                        if ev.kind == "node_start":
                            progress.update(task, description=f"{args.run}: step {ev.step} {ev.node_id}")
            else:
                async for _ in stream:
                    pass
        except NodeError as exc:
            print(f"{_PROG}: run {args.run!r} failed: {exc}", file=sys.stderr)
            return 1
        run = await eng.get_run(args.run)
        state = json.loads(eng.codec.encode(stream.result)) if stream.result is not None else None
        pending = await eng.get_interrupt(args.run)
    finally:
        if store is not None:
            await store.close()
    if args.json:
        _json_out({"run_id": args.run, "status": str(run.status), "state": state})
        return 0
    print(f"run {args.run}: {run.status}")
    if pending is not None:
        what = "before" if pending.before else "at"
        print(
            f"waiting {what} {pending.node_id}"
            + (f": {json.dumps(pending.payload)}" if pending.payload else "")
        )
    _json_out(state)
    return 0


async def cmd_replay(args: argparse.Namespace) -> int:
    """Re-execute a run against its record; exit 1 on divergence."""
    store = _store(args, required=False)
    try:
        eng = _load_engine(args.engine, store)
        console = _rich_console()
        if console is not None:
            with console.status(f"replaying {args.run}"):
                report = await eng.replay(args.run)
        else:
            report = await eng.replay(args.run)
    finally:
        if store is not None:
            await store.close()
    if args.json:
        _json_out(
            {
                "run_id": report.run_id,
                "ok": report.ok,
                "steps": report.steps,
                "divergences": [
                    {
                        "step": d.step,
                        "node_id": d.node_id,
                        "field": d.field,
                        "path": d.path,
                        "recorded": d.recorded,
                        "replayed": d.replayed,
                        "branch": d.branch,
                    }
                    for d in report.divergences
                ],
            }
        )
    else:
        print(report)
    return 0 if report.ok else 1


async def cmd_render(args: argparse.Namespace) -> int:
    """Draw an engine's graph (optionally with a run's path) as DOT, Mermaid or an image."""
    store = _store(args, required=args.run is not None)
    try:
        # Drawing needs no store; a factory that takes one gets an empty in-memory store.
        eng = _load_engine(args.engine, store if store is not None else MemoryStore())
        path = await run_path(eng, args.run) if args.run is not None else None
    finally:
        if store is not None:
            await store.close()
    fmt = args.format or (Path(args.output).suffix.lstrip(".") if args.output else "dot") or "dot"
    fmt = {"mmd": "mermaid", "gv": "dot"}.get(fmt, fmt)
    if fmt in ("dot", "mermaid"):
        text = to_dot(eng, highlight=path) if fmt == "dot" else to_mermaid(eng, highlight=path)
        if args.output:
            await asyncio.to_thread(_write, args.output, text)
        else:
            sys.stdout.write(text)
        return 0
    if not args.output:
        raise CliError(f"--format {fmt} writes a binary image: pass -o FILE")
    await asyncio.to_thread(render_file, eng, args.output, format=fmt, highlight=path)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------- parser


async def cmd_worker(args: argparse.Namespace) -> int:
    """Serve queued runs of an engine until SIGINT/SIGTERM (see `graphengine.workers`)."""
    from .workers import serve

    logging.basicConfig(
        level=getattr(logging, args.log_level),
        format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s",
    )
    if args.log_level != "DEBUG":
        logging.getLogger("procrastinate").setLevel(logging.WARNING)  # a line per job otherwise
    store = _store(args)
    assert store is not None
    try:
        eng = _load_engine(args.engine, store)
        await serve(
            eng,
            queue_dsn=args.queue_dsn,
            queue=args.queue,
            concurrency=args.concurrency,
            ttl=args.ttl,
            stalled_after=args.stalled_after,
        )
    except TypeError as exc:  # a store without leases
        raise CliError(str(exc)) from exc
    finally:
        await store.close()
    return 0


def _int_type(lo: int, hi: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{what} must be in {lo}..{hi}, not {value}")
        return value

    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"seconds must be a finite number > 0, not {text}")
    return value


_PORT = _int_type(0, 65535, "a port")
_COUNT = _int_type(1, 1_000_000_000, "a count")
_BYTES = _int_type(0, 2**62, "a size in bytes")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `graphengine` command."""
    p = argparse.ArgumentParser(
        prog=_PROG, description="Inspect, resume, replay, draw and export graphengine runs."
    )
    p.add_argument("--store", dest="store_main", metavar="URL", help="store URL, e.g. sqlite:///runs.db")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="URL", help="store URL (default: $GRAPHENGINE_STORE)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str, fn: Callable[[argparse.Namespace], Coroutine[Any, Any, int]], help: str
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help, description=help)
        sp.set_defaults(func=fn)
        return sp

    sp = add("runs", cmd_runs, "list runs with their status, newest first")
    sp.add_argument("--status", help="only runs with this status")
    sp.add_argument("--limit", type=_COUNT, default=100)
    sp.add_argument("--json", action="store_true")

    sp = add("show", cmd_show, "a run's steps as a table, or its state at one step")
    sp.add_argument("run", metavar="RUN")
    sp.add_argument("--step", type=int, metavar="K", help="print the state after step K (0: initial)")
    sp.add_argument(
        "--sizes", action="store_true", help="bytes stored per state field, fastest growing first"
    )
    sp.add_argument("--engine", metavar="MODULE:ENGINE", help="rebuild states between snapshots")
    sp.add_argument("--json", action="store_true")

    sp = add("history", cmd_history, "every committed step of a run")
    sp.add_argument("run", metavar="RUN")
    sp.add_argument("--json", action="store_true")

    sp = add("export", cmd_export, "a run as JSON lines")
    sp.add_argument("run", metavar="RUN")
    sp.add_argument("-o", "--output", metavar="FILE")

    sp = add("serve", cmd_serve, "serve an engine's HTTP API and run inspector (extra: server)")
    sp.add_argument("engine", metavar="MODULE:ENGINE")
    sp.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)")
    sp.add_argument("--port", type=_PORT, default=8000, help="port (default: 8000; 0: any free port)")
    sp.add_argument(
        "--token-env",
        default="GRAPHENGINE_TOKEN",
        metavar="VAR",
        help="environment variable holding the bearer token; when set, every route requires it",
    )
    sp.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        help="a host name clients may use (Host header), besides the loopback names; '*.domain', or '*' for any",
    )
    sp.add_argument(
        "--max-body",
        type=_BYTES,
        default=1024 * 1024,
        metavar="BYTES",
        help="request body limit (default: 1 MiB)",
    )
    sp.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])

    sp = add("resume", cmd_resume, "resume a run with an engine")
    sp.add_argument("engine", metavar="MODULE:ENGINE")
    sp.add_argument("run", metavar="RUN")
    sp.add_argument("--input", metavar="JSON", help="answer to the run's interrupt, as JSON")
    sp.add_argument("--json", action="store_true")

    sp = add("replay", cmd_replay, "re-execute a run and report divergences (exit 1 if any)")
    sp.add_argument("engine", metavar="MODULE:ENGINE")
    sp.add_argument("run", metavar="RUN")
    sp.add_argument("--json", action="store_true")

    sp = add("render", cmd_render, "draw an engine's graph")
    sp.add_argument("engine", metavar="MODULE:ENGINE")
    sp.add_argument("-o", "--output", metavar="FILE")
    sp.add_argument("--format", choices=["dot", "mermaid", "png", "svg", "pdf"])
    sp.add_argument("--run", metavar="RUN", help="highlight this run's path (needs --store)")
    sp = add("worker", cmd_worker, "serve queued runs of an engine (procrastinate queue on PostgreSQL)")
    sp.add_argument("engine", metavar="MODULE:ENGINE")
    sp.add_argument(
        "--queue-dsn",
        metavar="DSN",
        help="PostgreSQL of the queue (default: $GRAPHENGINE_QUEUE_DSN or the store's)",
    )
    sp.add_argument("--queue", default="graphengine", help="procrastinate queue to serve")
    sp.add_argument("--concurrency", type=_COUNT, default=8, metavar="N", help="runs driven at once")
    sp.add_argument("--ttl", type=_seconds, default=30.0, metavar="S", help="lease length in seconds")
    sp.add_argument(
        "--stalled-after",
        type=_seconds,
        metavar="S",
        help="re-queue jobs of workers silent this long (2 x ttl)",
    )
    sp.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    sp = add(
        "prune", cmd_prune, "delete or compact finished runs by policy (never running or resumable ones)"
    )
    sp.add_argument("--keep-last", type=int, metavar="N", help="keep the N newest runs")
    sp.add_argument(
        "--keep-newer-than", type=float, metavar="SECONDS", help="keep runs updated this recently"
    )
    sp.add_argument(
        "--all-finished", action="store_true", help="the policy that keeps no finished run (all of them go)"
    )
    sp.add_argument("--compact", action="store_true", help="keep final states and summaries, drop histories")
    sp.add_argument("--dry-run", action="store_true", help="show what would be removed, change nothing")
    sp.add_argument("-y", "--yes", action="store_true", help="remove without asking")
    sp.add_argument("--json", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (see the module docstring)."""
    args = build_parser().parse_args(argv)
    try:
        return int(asyncio.run(args.func(args)))
    except NodeError as exc:
        print(f"{_PROG}: run failed: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`graphengine export RUN | head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (CliError, GraphError, StoreError, RenderError, OSError, ValueError) as exc:
        if os.environ.get("GRAPHENGINE_DEBUG"):
            traceback.print_exc()
        print(f"{_PROG}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{_PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("GRAPHENGINE_DEBUG"):
            traceback.print_exc()
        text = " ".join(str(exc).split())
        print(
            f"{_PROG}: unexpected error: {type(exc).__name__}: {text} (GRAPHENGINE_DEBUG=1 shows where)",
            file=sys.stderr,
        )
        return 3
