"""The `graphengine` command: inspect, resume, replay, draw and export runs in a store.

    graphengine runs    --store sqlite:///runs.db [--status S] [--limit N] [--offset K] [--json]
    graphengine show    RUN --store URL [--step K [--engine MODULE:ENGINE]] [--json]
    graphengine history RUN --store URL [--json]
    graphengine export  RUN --store URL [-o FILE]
    graphengine resume  MODULE:ENGINE RUN [--store URL] [--input JSON] [--allow-graph-change] [--json]
    graphengine continue MODULE:ENGINE RUN --input JSON [--store URL] [--allow-graph-change] [--json]
    graphengine update-state MODULE:ENGINE RUN --values JSON [--as-node NODE] [--goto NODE]
                        [--store URL] [--allow-graph-change] [--json]
    graphengine signal  MODULE:ENGINE RUN NAME [--store URL] [--payload JSON] [--id ID]
    graphengine replay  MODULE:ENGINE RUN [--store URL] [--allow-graph-change] [--json]
    graphengine render  MODULE:ENGINE [-o FILE] [--format dot|mermaid|png|svg|pdf] [--run RUN --store URL]
    graphengine serve   MODULE:ENGINE --store URL [--host H] [--port 8000] [--token-env VAR]
                        [--allow-host NAME ...] [--max-body BYTES]
    graphengine worker  MODULE:ENGINE --store URL [--queue-dsn DSN] [--concurrency N] [--ttl S]
    graphengine schedule add MODULE:ENGINE ID (--cron EXPR | --every S) [--input JSON]
                        [--overlap skip|buffer_one|allow] [--catch-up S] [--tz ZONE] [--start-at TIME]
    graphengine schedule list|show|pause|resume|delete [ID] --store URL [--json]

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
import math
import os
import sys
import traceback
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from graphengine.store import RunStatus, StoreError

from ._cli_common import PROG, CliError
from ._cli_runs import cmd_export, cmd_history, cmd_prune, cmd_runs, cmd_show
from ._cli_schedules import add_schedule_parser
from ._cli_serve import (
    cmd_continue,
    cmd_render,
    cmd_replay,
    cmd_resume,
    cmd_serve,
    cmd_signal,
    cmd_update_state,
    cmd_worker,
)
from ._version import __version__
from .errors import GraphError, NodeError
from .viz import RenderError

__all__ = ["CliError", "main"]


def int_type(lo: int, hi: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{what} must be in {lo}..{hi}, not {value}")
        return value

    return parse


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"seconds must be a finite number > 0, not {text}")
    return value


_PORT = int_type(0, 65535, "a port")
_OFFSET = int_type(0, 1_000_000_000, "an offset")
_LOG_LEVELS = ["debug", "info", "warning", "error"]
_LOG_LEVEL_HELP = "debug, info, warning or error, in any case (default: info)"
_ENGINE_HELP = (
    "the engine: MODULE:NAME of an Engine, or of a function returning one (e.g. examples.research:build)"
)
_COUNT = int_type(1, 1_000_000_000, "a count")
_BYTES = int_type(0, 2**62, "a size in bytes")
_WIDTH = int_type(0, 1_000_000_000, "a number of branches")


def _allow_graph_change(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "--allow-graph-change",
        action="store_true",
        help="go on although the engine's graph differs from the one the run started with "
        "(as allow_graph_change=True in Python)",
    )


_Add = Callable[[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]], str], argparse.ArgumentParser]
"""`add(name, command, help)`: a subcommand's parser (with the common options), running `command`."""


def _no_schedules(sp: argparse.ArgumentParser, what: str) -> None:
    sp.add_argument(
        "--no-schedules",
        action="store_true",
        help=f"do not fire the store's schedules (by default due fires start runs: {what})",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `graphengine` command."""
    p = argparse.ArgumentParser(
        prog=PROG, description="Inspect, resume, replay, draw and export graphengine runs."
    )
    p.add_argument("--store", dest="store_main", metavar="URL", help="store URL, e.g. sqlite:///runs.db")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="URL", help="store URL (default: $GRAPHENGINE_STORE)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str, fn: Callable[[argparse.Namespace], Coroutine[Any, Any, int]], help: str
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help, description=help)
        sp.set_defaults(func=fn)
        return sp

    _add_reading_commands(add)
    _add_serve_command(add)
    _add_engine_commands(add)
    _add_worker_command(add)
    _add_prune_command(add)
    add_schedule_parser(sub, common)
    return p


def _add_reading_commands(add: _Add) -> None:
    """The commands that read the store: runs, show, history, export."""
    sp = add("runs", cmd_runs, "list runs with their status, newest first")
    sp.add_argument("--status", help=f"only runs with this status ({', '.join(s.value for s in RunStatus)})")
    sp.add_argument(
        "--limit", type=_COUNT, default=100, metavar="N", help="list at most N runs (default: 100)"
    )
    sp.add_argument(
        "--offset",
        type=_OFFSET,
        default=0,
        metavar="K",
        help="skip the K newest runs first: the next page after --limit N is --offset N",
    )
    sp.add_argument("--json", action="store_true", help="print a JSON list of runs")

    sp = add("show", cmd_show, "a run's steps as a table, or its state at one step")
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument("--step", type=int, metavar="K", help="print the state after step K (0: initial)")
    sp.add_argument(
        "--sizes", action="store_true", help="bytes stored per state field, fastest growing first"
    )
    sp.add_argument("--engine", metavar="MODULE:ENGINE", help="rebuild states between snapshots")
    sp.add_argument("--json", action="store_true", help="print the run and its steps as JSON")

    sp = add("history", cmd_history, "every committed step of a run")
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument("--json", action="store_true", help="print the steps (and fan-out branches) as JSON")

    sp = add("export", cmd_export, "a run as JSON lines")
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")


def _add_serve_command(add: _Add) -> None:
    """`serve`: the HTTP API and run inspector."""
    sp = add("serve", cmd_serve, "serve an engine's HTTP API and run inspector (extra: server)")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)")
    sp.add_argument("--port", type=_PORT, default=8000, help="port (default: 8000; 0: any free port)")
    sp.add_argument(
        "--token-env",
        default=None,
        metavar="VAR",
        help="environment variable holding the bearer token, every route then requires it "
        "(default: GRAPHENGINE_TOKEN, optional; a VAR named here must hold a token)",
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
    _no_schedules(sp, "drive them in this server")
    sp.add_argument("--log-level", type=str.lower, default="info", choices=_LOG_LEVELS, help=_LOG_LEVEL_HELP)


def _add_engine_commands(add: _Add) -> None:
    """The commands that load an engine to work on a run or its graph: resume, continue, update-state,
    replay, render."""
    sp = add("resume", cmd_resume, "resume a run with an engine")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument("--input", metavar="JSON", help="answer to the run's interrupt, as JSON")
    _allow_graph_change(sp)
    sp.add_argument("--json", action="store_true", help="print the run's outcome as JSON")

    sp = add("continue", cmd_continue, "begin a run's next turn with new input (a chat's next message)")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument(
        "--input",
        required=True,
        metavar="JSON",
        help="the turn's input: a JSON object of state fields, merged through the reducers "
        "(as Engine.continue_run)",
    )
    _allow_graph_change(sp)
    sp.add_argument("--json", action="store_true", help="print the run's outcome as JSON")

    sp = add("update-state", cmd_update_state, "edit a stopped run's state as a recorded step")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument(
        "--values",
        required=True,
        metavar="JSON",
        help="a JSON object of state fields, merged through the reducers (as Engine.update_state)",
    )
    sp.add_argument(
        "--as-node", metavar="NODE", help="the node the edit acts as (default: the last step's node)"
    )
    sp.add_argument("--goto", metavar="NODE", help="the node to go to next instead of --as-node's edges")
    _allow_graph_change(sp)
    sp.add_argument("--json", action="store_true", help="print the run's outcome as JSON")

    sp = add("signal", cmd_signal, "send a signal to a run (a run waiting for it is woken)")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument("run", metavar="RUN", help="the run's id")
    sp.add_argument("name", metavar="NAME", help="the signal's name (what ctx.wait_for waits for)")
    sp.add_argument("--payload", metavar="JSON", help="the signal's payload, as JSON")
    sp.add_argument("--id", metavar="ID", help="idempotency key: a second signal with it is not stored")

    sp = add("replay", cmd_replay, "re-execute a run and report divergences (exit 1 if any)")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument("run", metavar="RUN", help="the run's id")
    _allow_graph_change(sp)
    sp.add_argument("--json", action="store_true", help="print the replay report as JSON")

    sp = add("render", cmd_render, "draw an engine's graph")
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (default: standard output, text formats)"
    )
    sp.add_argument(
        "--format",
        choices=["dot", "mermaid", "png", "svg", "pdf"],
        help="drawing format (default: from the FILE's suffix, else dot; png/svg/pdf need Graphviz)",
    )
    sp.add_argument("--run", metavar="RUN", help="highlight this run's path (needs --store)")


def _add_worker_command(add: _Add) -> None:
    """`worker`: serve queued runs (or, on SQLite, wake waiting runs)."""
    sp = add(
        "worker",
        cmd_worker,
        "serve queued runs of an engine (procrastinate queue on PostgreSQL); on SQLite, wake its waiting runs",
    )
    sp.add_argument("engine", metavar="MODULE:ENGINE", help=_ENGINE_HELP)
    sp.add_argument(
        "--queue-dsn",
        metavar="DSN",
        help="PostgreSQL of the queue (default: $GRAPHENGINE_QUEUE_DSN or the store's)",
    )
    sp.add_argument("--queue", default="graphengine", help="procrastinate queue to serve")
    sp.add_argument("--concurrency", type=_COUNT, default=8, metavar="N", help="runs driven at once")
    sp.add_argument("--ttl", type=seconds, default=30.0, metavar="S", help="lease length in seconds")
    sp.add_argument(
        "--stalled-after",
        type=seconds,
        metavar="S",
        help="re-queue jobs of workers silent this long (2 x ttl)",
    )
    sp.add_argument(
        "--fan-out-jobs",
        type=_WIDTH,
        default=8,
        metavar="N",
        help="run fan-outs of at least N branches as branch jobs any worker takes (0: all in process)",
    )
    _no_schedules(sp, "queue them for the workers")
    sp.add_argument("--log-level", type=str.lower, default="info", choices=_LOG_LEVELS, help=_LOG_LEVEL_HELP)


def _add_prune_command(add: _Add) -> None:
    """`prune`: delete or compact finished runs."""
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
    sp.add_argument("--json", action="store_true", help="print the report as JSON")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (see the module docstring)."""
    args = build_parser().parse_args(argv)
    try:
        return int(asyncio.run(args.func(args)))
    except NodeError as exc:
        print(f"{PROG}: run failed: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`graphengine export RUN | head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (CliError, GraphError, StoreError, RenderError, OSError, ValueError) as exc:
        if os.environ.get("GRAPHENGINE_DEBUG"):
            traceback.print_exc()
        # One line, as promised: a validation error's text spans several.
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("GRAPHENGINE_DEBUG"):
            traceback.print_exc()
        text = " ".join(str(exc).split())
        print(
            f"{PROG}: unexpected error: {type(exc).__name__}: {text} (GRAPHENGINE_DEBUG=1 shows where)",
            file=sys.stderr,
        )
        return 3
