"""What the `graphengine` commands share: opening the store, loading the engine, printing."""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import inspect
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, overload

from graphengine.store import (
    Store,
    StoreError,
    open_store,
)

from .engine import Engine
from .errors import GraphError

__all__ = [
    "CliError",
    "PROG",
    "bytes_json",
    "cli_store",
    "json_out",
    "load_engine",
    "open_cli_store",
    "progress",
    "rich_console",
    "route_text",
    "run_coro",
    "short_text",
    "table",
    "time_text",
    "write_out",
]


PROG = "graphengine"


class CliError(Exception):
    """A user mistake the command reports as one line (exit code 2)."""


# ---------------------------------------------------------------------- output


def rich_console() -> Any:
    if os.environ.get("GRAPHENGINE_PLAIN") or not sys.stdout.isatty():
        return None
    try:
        from rich.console import Console
    except ImportError:
        return None
    return Console()


@contextlib.contextmanager
def progress(what: str) -> Iterator[None]:
    """While the block runs, say on a terminal what it is doing (`what` beside a rich spinner on
    stderr, erased when done; one plain line without rich); nothing when stderr is piped or
    redirected, or with `GRAPHENGINE_PLAIN` set, so scripts and logs see only results."""
    if os.environ.get("GRAPHENGINE_PLAIN") or not sys.stderr.isatty():
        yield
        return
    try:
        from rich.console import Console
    except ImportError:
        print(f"{what} ...", file=sys.stderr, flush=True)
        yield
        return
    with Console(stderr=True).status(f"{what} ...", spinner="dots"):
        yield


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print rows as a table: rich on a terminal, aligned plain text otherwise."""
    console = rich_console()
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


def write_out(path: str, text: str) -> None:
    Path(path).write_text(text, encoding="utf-8")


def json_out(doc: Any) -> None:
    print(json.dumps(doc, indent=2, default=str, ensure_ascii=False))


def time_text(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S") if ts else ""


def short_text(text: str | None, n: int = 60) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def bytes_json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return f"<{len(data)} bytes, not JSON>"


def route_text(route: str) -> str:
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


def open_cli_store(args: argparse.Namespace, *, required: bool = True) -> Store | None:
    url = args.store or args.store_main or os.environ.get("GRAPHENGINE_STORE")
    if not url:
        if required:
            raise CliError(
                "no store: pass --store URL (e.g. --store sqlite:///runs.db) or set GRAPHENGINE_STORE"
            )
        return None
    return open_store(url, create=False)


@overload
def cli_store(args: argparse.Namespace) -> AbstractAsyncContextManager[Store]: ...
@overload
def cli_store(args: argparse.Namespace, *, required: bool) -> AbstractAsyncContextManager[Store | None]: ...
def cli_store(
    args: argparse.Namespace, *, required: bool = True
) -> AbstractAsyncContextManager[Store | None]:
    """The store the command line names (`open_cli_store`; None when there is none and it is not
    `required`), closed when the block ends."""
    return _closing(open_cli_store(args, required=required))


@contextlib.asynccontextmanager
async def _closing(store: Store | None) -> AsyncIterator[Store | None]:
    try:
        yield store
    finally:
        if store is not None:
            await store.close()


def load_engine(spec: str, store: Store | None) -> Engine[Any]:
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


async def run_coro(store: Store, run_id: str) -> Any:
    rec = await store.get_run(run_id)
    if rec is None:
        raise CliError(f"no run {run_id!r} in the store")
    return rec
