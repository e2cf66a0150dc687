"""`graphengine prune` and `graphengine show --sizes`, run as real commands on a SQLite file."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, append, goto, interrupt, stop
from graphengine.store import SQLiteStore


class Chat(BaseModel):
    """Messages grow by 100 bytes per step; the turn counter by a few."""

    messages: Annotated[list[str], append] = []
    turn: int = 0


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphengine", *args], capture_output=True, text=True, timeout=60, check=False
    )


async def _populate(db: Path) -> None:
    async with SQLiteStore(db) as store:

        def talk(ctx: Context, s: Chat) -> NodeResult[Chat]:
            return NodeResult(
                delta=Chat(messages=["m" * 100], turn=s.turn + 1), route=stop() if s.turn >= 4 else goto("t")
            )

        g = Engine(Chat, store=store).add("t", talk).start_at("t")
        for i in range(3):
            await g.run(f"done{i}", Chat())
        p = (
            Engine(Chat, store=store)
            .add("ask", lambda c, s: NodeResult(route=interrupt("ok?")))
            .start_at("ask")
        )
        await p.run("paused", Chat())


def test_show_sizes_lists_the_fastest_growing_fields(tmp_path: Path) -> None:
    """show --sizes ranks fields by bytes stored."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    out = _cli("show", "done0", "--sizes", "--json", "--store", f"sqlite:///{db}")
    assert out.returncode == 0, out.stderr
    fields = json.loads(out.stdout)["fields"]
    assert [f["field"] for f in fields] == ["messages", "turn"]
    assert fields[0]["total"] == 5 * 104
    text = _cli("show", "done0", "--sizes", "--store", f"sqlite:///{db}")
    assert "messages" in text.stdout


def test_prune_dry_run_then_prune(tmp_path: Path) -> None:
    """--dry-run names what would go and changes nothing; the real prune keeps the interrupted run."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    dry = _cli("prune", "--keep-last", "2", "--dry-run", "--json", "--store", f"sqlite:///{db}")
    assert dry.returncode == 0, dry.stderr
    doc = json.loads(dry.stdout)
    assert doc["dry_run"] is True
    assert sorted(doc["deleted"]) == ["done0", "done1"]
    runs = _cli("runs", "--json", "--store", f"sqlite:///{db}")
    assert len(json.loads(runs.stdout)) == 4
    real = _cli("prune", "--keep-last", "2", "--yes", "--store", f"sqlite:///{db}")
    assert real.returncode == 0, real.stderr
    assert "delete 2 run(s)" in real.stdout
    left = {r["run_id"] for r in json.loads(_cli("runs", "--json", "--store", f"sqlite:///{db}").stdout)}
    assert left == {"done2", "paused"}


def _run_ids(db: Path) -> set[str]:
    return {r["run_id"] for r in json.loads(_cli("runs", "--json", "--store", f"sqlite:///{db}").stdout)}


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "needs a policy"),
        (("--keep-last", "-1"), "keep_last=-1"),
        (("--keep-newer-than", "nan"), "keep_newer_than=nan"),
        (("--keep-newer-than", "-5"), "keep_newer_than=-5"),
        (("--all-finished", "--keep-last", "1"), "cannot be combined"),
    ],
)
def test_prune_refuses_a_missing_or_invalid_policy(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    """No policy, a negative count, a NaN or negative age: exit 2, one line naming it, nothing deleted."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    out = _cli("prune", *args, "--yes", "--store", f"sqlite:///{db}")
    assert out.returncode == 2, out.stdout
    assert says in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert _run_ids(db) == {"done0", "done1", "done2", "paused"}


def test_prune_without_yes_refuses_and_dry_run_lists_the_same_set(tmp_path: Path) -> None:
    """Without --yes (and no terminal) nothing is deleted; --yes deletes exactly what --dry-run listed."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    refused = _cli("prune", "--all-finished", "--store", f"sqlite:///{db}")
    assert refused.returncode == 2
    assert "--yes" in refused.stderr and "3 run(s)" in refused.stderr
    assert _run_ids(db) == {"done0", "done1", "done2", "paused"}
    dry = _cli("prune", "--all-finished", "--dry-run", "--json", "--store", f"sqlite:///{db}")
    real = _cli("prune", "--all-finished", "--yes", "--json", "--store", f"sqlite:///{db}")
    assert real.returncode == 0, real.stderr
    assert sorted(json.loads(real.stdout)["deleted"]) == sorted(json.loads(dry.stdout)["deleted"])
    assert _run_ids(db) == {"paused"}


def test_prune_with_nothing_to_remove_needs_no_yes(tmp_path: Path) -> None:
    """A policy that keeps every finished run succeeds without --yes: nothing is destroyed."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    out = _cli("prune", "--keep-last", "10", "--store", f"sqlite:///{db}")
    assert out.returncode == 0, out.stderr
    assert _run_ids(db) == {"done0", "done1", "done2", "paused"}


def test_prune_reports_the_runs_it_kept(tmp_path: Path) -> None:
    """A real prune reports the finished runs its policy kept, in text and in JSON, as the dry run does."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    real = _cli("prune", "--keep-last", "2", "--yes", "--json", "--store", f"sqlite:///{db}")
    assert real.returncode == 0, real.stderr
    assert json.loads(real.stdout)["kept"] == ["done2"]
    asyncio.run(_populate(tmp_path / "again.db"))
    text = _cli("prune", "--keep-last", "3", "--yes", "--store", f"sqlite:///{tmp_path / 'again.db'}")
    assert "kept 2 finished run(s)" in text.stdout


async def _many_done(db: Path, n: int) -> None:
    async with SQLiteStore(db) as store:
        g = Engine(Chat, store=store).add("t", lambda c, s: NodeResult(route=stop())).start_at("t")
        for i in range(n):
            await g.run(f"run{i:03d}", Chat())


def test_prune_dry_run_prints_one_run_per_line_and_says_how_many_are_hidden(tmp_path: Path) -> None:
    """A dry run over many runs prints one id per line, the first 20 only, and says how to see them all."""
    db = tmp_path / "runs.db"
    asyncio.run(_many_done(db, 30))
    out = _cli("prune", "--all-finished", "--dry-run", "--store", f"sqlite:///{db}")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "would delete 30 run(s):"
    ids = [line.strip() for line in lines[1:] if line.startswith("  run")]
    assert len(ids) == 20
    assert "and 10 more (--json lists them all)" in out.stdout
    assert max(len(line) for line in lines) < 100


def test_runs_says_when_the_list_stops_at_its_limit_and_how_to_see_the_next_page(tmp_path: Path) -> None:
    """`runs --limit N` says on stderr that more runs exist and names the `--offset` of the next
    page; `--offset` pages through all of them, newest first, and the last page says nothing."""
    db = tmp_path / "runs.db"
    asyncio.run(_many_done(db, 5))
    store = f"sqlite:///{db}"
    first = _cli("runs", "--limit", "2", "--json", "--store", store)
    assert first.returncode == 0, first.stderr
    assert [r["run_id"] for r in json.loads(first.stdout)] == ["run004", "run003"]
    assert "--offset 2" in first.stderr
    pages = [
        json.loads(_cli("runs", "--limit", "2", "--offset", str(k), "--json", "--store", store).stdout)
        for k in (2, 4)
    ]
    assert [r["run_id"] for page in pages for r in page] == ["run002", "run001", "run000"]
    last = _cli("runs", "--limit", "2", "--offset", "4", "--store", store)
    assert "run000" in last.stdout and last.stderr == ""
    text = _cli("runs", "--limit", "2", "--store", store)
    assert "showing runs 1-2" in text.stderr and "--offset 2" in text.stderr


def _stderr_on_a_terminal(*args: str) -> tuple[int, str]:
    """Run `graphengine ARGS` with stderr on a pseudo-terminal (stdout piped): exit code and what
    the terminal showed."""
    import os
    import pty

    main_fd, term_fd = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "GRAPHENGINE_PLAIN"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphengine", *args], stdout=subprocess.PIPE, stderr=term_fd, env=env
    )
    os.close(term_fd)
    shown = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the terminal closed: the process exited
            break
        if not chunk:
            break
        shown += chunk
    proc.communicate(timeout=60)
    os.close(main_fd)
    return proc.returncode, shown.decode(errors="replace")


def test_export_says_what_it_is_doing_on_a_terminal_and_only_the_result_when_piped(tmp_path: Path) -> None:
    """On a terminal `export` shows that it is exporting the run; piped, stderr has only the result line."""
    db = tmp_path / "runs.db"
    asyncio.run(_populate(db))
    code, shown = _stderr_on_a_terminal(
        "export", "done0", "-o", str(tmp_path / "a.jsonl"), "--store", f"sqlite:///{db}"
    )
    assert code == 0
    assert "exporting run 'done0'" in shown
    piped = _cli("export", "done0", "-o", str(tmp_path / "b.jsonl"), "--store", f"sqlite:///{db}")
    assert piped.returncode == 0
    assert piped.stderr.splitlines() == [f"exported 6 lines of run 'done0' to {tmp_path / 'b.jsonl'}"]
