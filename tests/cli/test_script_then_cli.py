"""A run started by `python app.py` is resumed and replayed by `graphengine ... app:ENGINE`, in real processes.

The script imports its own functions as `__main__.work`; the command imports them as `app.work`.
Both name the same graph. A graph that did change is refused with the way out, and
`--allow-graph-change` takes it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cli_app import child_path, cli

APP = '''
"""A script that starts a run and stops at a question; `graphengine resume app:ENGINE r1` answers it."""
import os
from pydantic import BaseModel
from graphengine import Context, Engine, NodeResult
from graphengine.store import SQLiteStore


class S(BaseModel):
    n: int = 0
    answer: str = ""


def work(ctx: Context, s: S) -> NodeResult[S]:
    return NodeResult(delta=S(n=s.n + 1))


def enough(s: S) -> bool:
    return s.n >= 2


def ask(ctx: Context, s: S) -> NodeResult[S]:
    return NodeResult(delta=S(answer=str(ctx.interrupt("name?"))))


ENGINE = Engine(S, store=SQLiteStore("runs.db"))
ENGINE.add("work", work).add("ask", ask)
if os.environ.get("APP_EXTRA_NODE"):  # a deploy that changed the graph
    ENGINE.add("extra", work)
    ENGINE.connect("ask", "extra")
ENGINE.start_at("work").connect("work", "ask", when=enough).connect("work", "work")

if __name__ == "__main__":
    print(ENGINE.run_sync("r1", S()).model_dump_json())
'''


def start_with_python(tmp: Path) -> subprocess.CompletedProcess[str]:
    """`python app.py` in `tmp`: run r1 into tmp/runs.db, paused at `ask`."""
    (tmp / "app.py").write_text(APP)
    env = {**os.environ, "PYTHONPATH": child_path(tmp)}
    return subprocess.run(
        [sys.executable, "app.py"], cwd=tmp, env=env, capture_output=True, text=True, timeout=60, check=True
    )


def test_graphengine_resume_continues_a_run_started_by_python_app_py(tmp_path: Path) -> None:
    """`graphengine resume app:ENGINE r1` answers the question a `python app.py` run is waiting on."""
    started = start_with_python(tmp_path)
    assert json.loads(started.stdout) == {"n": 2, "answer": ""}
    out = cli(tmp_path, "resume", "app:ENGINE", "r1", "--input", '"Ada"', "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"run_id": "r1", "status": "done", "state": {"n": 2, "answer": "Ada"}}
    replay = cli(tmp_path, "replay", "app:ENGINE", "r1", "--store=sqlite:///runs.db")
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_a_changed_graph_is_refused_with_the_flag_to_pass_and_the_flag_takes_it(tmp_path: Path) -> None:
    """A deploy that added a node: resume exits 2 naming --allow-graph-change; with it the run goes on."""
    start_with_python(tmp_path)
    changed = {"APP_EXTRA_NODE": "1"}
    refused = cli(tmp_path, "resume", "app:ENGINE", "r1", "--input", '"Ada"', env=changed)
    assert refused.returncode == 2
    assert "node 'extra' added" in refused.stderr and "--allow-graph-change" in refused.stderr
    assert cli(tmp_path, "replay", "app:ENGINE", "r1", env=changed).returncode == 2
    taken = cli(
        tmp_path,
        "resume",
        "app:ENGINE",
        "r1",
        "--input",
        '"Ada"',
        "--allow-graph-change",
        "--json",
        env=changed,
    )
    assert taken.returncode == 0, taken.stderr
    assert json.loads(taken.stdout)["state"] == {"n": 3, "answer": "Ada"}  # ask -> extra ran too
    replayed = cli(tmp_path, "replay", "app:ENGINE", "r1", "--allow-graph-change", "--json", env=changed)
    assert json.loads(replayed.stdout)["ok"] is True, replayed.stdout + replayed.stderr
