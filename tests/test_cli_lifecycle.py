"""`graphengine prune` and `graphengine show --sizes`, run as real commands on a SQLite file."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, append, goto, interrupt, stop
from store import SQLiteStore


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
    real = _cli("prune", "--keep-last", "2", "--store", f"sqlite:///{db}")
    assert real.returncode == 0, real.stderr
    assert "delete 2 run(s)" in real.stdout
    left = {r["run_id"] for r in json.loads(_cli("runs", "--json", "--store", f"sqlite:///{db}").stdout)}
    assert left == {"done2", "paused"}
