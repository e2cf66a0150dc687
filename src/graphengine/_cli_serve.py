"""The commands that drive or serve an engine: serve, resume, continue, update-state, replay, render, worker."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from graphengine.store import LeaseStore, MemoryStore, WaitStore, open_store

from ._cli_common import PROG, CliError, cli_store, json_out, load_engine, rich_console, write_out
from .errors import NodeError
from .viz import render as render_file
from .viz import run_path, to_dot, to_mermaid
from .waker import TimerWaker

__all__ = [
    "cmd_continue",
    "cmd_render",
    "cmd_replay",
    "cmd_resume",
    "cmd_serve",
    "cmd_signal",
    "cmd_update_state",
    "cmd_worker",
]


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
    token = _serve_token(args.token_env, token_from_env)
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
            engine = load_engine(args.engine, store)
            app = create_app(
                engine,
                token=token,
                allowed_hosts=allowed,
                max_body=args.max_body,
                schedules=not args.no_schedules,
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
            # Runs that sleep or wait for a signal are woken here (timers read from the store).
            async with _waking(engine):
                await server.serve(sockets=[sock])
            if not server.started:
                raise CliError("the server did not start (see its log above)")
        finally:
            await store.close()
    finally:
        sock.close()
    return 0


def _serve_token(name: str | None, token_from_env: Any) -> str | None:
    """The bearer token `serve` requires (None: no auth), refusing a variable that should hold one but does not.

    `--token-env VAR` names a variable the user means to hold the token, so VAR unset or empty
    (a typo, a missing `export`) is an error, never a server without authentication. The
    default `$GRAPHENGINE_TOKEN` may be unset (no auth, loopback only), but set and empty it is
    the same mistake.
    """
    var = name or TOKEN_VAR
    token: str | None = token_from_env(var)
    if token is None and (name is not None or var in os.environ):
        state = "is empty" if var in os.environ else "is not set"
        way_out = f"unset {var}" if name is None else "drop --token-env"
        raise CliError(
            f"refusing to serve without a token: ${var} {state}. "
            f"Export the token in ${var}, or {way_out} to serve loopback only without a token"
        )
    return token


TOKEN_VAR = "GRAPHENGINE_TOKEN"  # noqa: S105 (a variable name, not a secret)


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
            f"{PROG}: WARNING: serving on {host} WITHOUT A TOKEN to hosts {', '.join(extra)}: "
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


def _json_arg(text: str, flag: str, *, fields: bool = False) -> Any:
    """The JSON value of option `flag`; with `fields`, a JSON object (state fields by name)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CliError(f"{flag} is not JSON: {exc}") from exc
    except RecursionError:
        # Python's parser recurses per level: past ~1000 it gives up, before any engine check.
        raise CliError(
            f"{flag} nests too deeply to parse (over ~1000 levels of [ or {{); pass a flatter JSON value"
        ) from None
    if fields and not isinstance(value, dict):
        raise CliError(f'{flag} must be a JSON object of state fields, e.g. \'{{"messages": ["hi"]}}\'')
    return value


async def cmd_resume(args: argparse.Namespace) -> int:
    """Resume a run with an engine, showing progress; prints where it ended."""
    async with cli_store(args, required=False) as store:
        eng = load_engine(args.engine, store)
        kw: dict[str, Any] = {}
        if args.input is not None:
            kw["input"] = _json_arg(args.input, "--input")
        await eng.get_run(args.run)
        stream = eng.stream_resume(args.run, allow_graph_change=args.allow_graph_change, **kw)
        return await _drive(args, eng, stream, "resuming")


async def cmd_continue(args: argparse.Namespace) -> int:
    """Begin a run's next turn with new input (`Engine.continue_run`), showing progress; prints where it ended."""
    async with cli_store(args, required=False) as store:
        eng = load_engine(args.engine, store)
        given = _json_arg(args.input, "--input", fields=True)
        await eng.get_run(args.run)
        stream = eng.stream_continue(args.run, given, allow_graph_change=args.allow_graph_change)
        return await _drive(args, eng, stream, "continuing")


async def cmd_update_state(args: argparse.Namespace) -> int:
    """Edit a stopped run's state as a recorded step (`Engine.update_state`); prints where it now waits."""
    async with cli_store(args, required=False) as store:
        eng = load_engine(args.engine, store)
        values = _json_arg(args.values, "--values", fields=True)
        await eng.update_state(
            args.run,
            values,
            as_node=args.as_node,
            goto=args.goto,
            allow_graph_change=args.allow_graph_change,
        )
        return await _outcome(args, eng, await eng.get_state(args.run))


async def _drive(args: argparse.Namespace, eng: Any, stream: Any, doing: str) -> int:
    """Read `stream` to its end (a spinner on a terminal), then print the run's outcome."""
    console = rich_console()
    try:
        if console is not None:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            with Progress(
                SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console
            ) as progress:
                task = progress.add_task(f"{doing} {args.run}", total=None)
                async for ev in stream:
                    if ev.kind == "node_start":
                        progress.update(task, description=f"{args.run}: step {ev.step} {ev.node_id}")
        else:
            async for _ in stream:
                pass
    except NodeError as exc:
        print(f"{PROG}: run {args.run!r} failed: {exc}", file=sys.stderr)
        return 1
    return await _outcome(args, eng, stream.result)


async def _outcome(args: argparse.Namespace, eng: Any, result: Any) -> int:
    """Print the run's status, what it waits for and its state (`--json`: one object)."""
    run = await eng.get_run(args.run)
    state = json.loads(eng.codec.encode(result)) if result is not None else None
    pending = await eng.get_interrupt(args.run)
    if args.json:
        json_out({"run_id": args.run, "status": str(run.status), "state": state})
        return 0
    print(f"run {args.run}: {run.status}")
    if pending is not None:
        what = "before" if pending.before else "at"
        print(
            f"waiting {what} {pending.node_id}"
            + (f": {json.dumps(pending.payload)}" if pending.payload else "")
        )
    json_out(state)
    return 0


async def cmd_signal(args: argparse.Namespace) -> int:
    """Send a signal to a run (idempotent by --id); a run waiting for it is made due at once
    (a running `serve` or `worker` wakes it). Prints the stored signal as JSON."""
    try:
        payload = json.loads(args.payload) if args.payload is not None else None
    except ValueError as exc:
        raise CliError(f"--payload is not JSON: {exc}") from exc
    except RecursionError:
        raise CliError("--payload nests too deeply to parse; pass a flatter JSON value") from None
    async with cli_store(args, required=False) as store:
        eng = load_engine(args.engine, store)
        sig = await eng.signal(args.run, args.name, payload, id=args.id)
    json_out({"run_id": args.run, "name": sig.name, "id": sig.id, "payload": sig.payload, "ts": sig.ts})
    return 0


async def cmd_replay(args: argparse.Namespace) -> int:
    """Re-execute a run against its record; exit 1 on divergence."""
    async with cli_store(args, required=False) as store:
        eng = load_engine(args.engine, store)
        console = rich_console()
        if console is not None:
            with console.status(f"replaying {args.run}"):
                report = await eng.replay(args.run, allow_graph_change=args.allow_graph_change)
        else:
            report = await eng.replay(args.run, allow_graph_change=args.allow_graph_change)
    if args.json:
        json_out(
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
    async with cli_store(args, required=args.run is not None) as store:
        # Drawing needs no store; a factory that takes one gets an empty in-memory store.
        eng = load_engine(args.engine, store if store is not None else MemoryStore())
        path = await run_path(eng, args.run) if args.run is not None else None
    fmt = args.format or (Path(args.output).suffix.lstrip(".") if args.output else "dot") or "dot"
    fmt = {"mmd": "mermaid", "gv": "dot"}.get(fmt, fmt)
    if fmt in ("dot", "mermaid"):
        text = to_dot(eng, highlight=path) if fmt == "dot" else to_mermaid(eng, highlight=path)
        if args.output:
            await asyncio.to_thread(write_out, args.output, text)
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
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s",
    )
    if args.log_level != "debug":
        logging.getLogger("procrastinate").setLevel(logging.WARNING)  # a line per job otherwise
    async with cli_store(args) as store:
        eng = load_engine(args.engine, store)
        if not isinstance(store, LeaseStore):
            # The embedded set-up (SQLite, no queue): this worker wakes waiting runs and drives
            # them in-process, until stopped.
            await _wake_forever(eng)
            return 0
        try:
            await serve(
                eng,
                queue_dsn=args.queue_dsn,
                queue=args.queue,
                schedules=not args.no_schedules,
                concurrency=args.concurrency,
                ttl=args.ttl,
                stalled_after=args.stalled_after,
                fan_out_jobs=args.fan_out_jobs or None,
            )
        except TypeError as exc:  # a store without leases
            raise CliError(str(exc)) from exc
    return 0


@contextlib.asynccontextmanager
async def _waking(engine: Any) -> AsyncIterator[None]:
    """A `TimerWaker` for `engine` while the body runs, on the embedded set-up only: a store with
    leases (PostgreSQL, MySQL) has workers, which wake its runs under a lease."""
    if not isinstance(engine.store, WaitStore) or isinstance(engine.store, LeaseStore):
        yield
        return
    async with TimerWaker(engine):
        yield


async def _wake_forever(engine: Any) -> None:
    """`graphengine worker` on a store without leases: wake and drive waiting runs until stopped."""
    if not isinstance(engine.store, WaitStore) or isinstance(engine.store, MemoryStore):
        raise CliError(
            "workers need a store with leases (PostgresStore or MySQLStore), or a SQLiteStore file "
            f"whose waiting runs they wake; not {type(engine.store).__name__} (no other process sees it)"
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    logging.getLogger("graphengine.waker").info("waking waiting runs of %s", type(engine.store).__name__)
    async with TimerWaker(engine):
        await stop.wait()
