"""Schedules through the `graphengine schedule` command and through a real `graphengine serve` over HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_app import STORE, cli, write_cli_app
from server_process import Served, serve

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from server_app import APP  # noqa: E402


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """A directory with cliapp.py and its runs.db."""
    write_cli_app(tmp_path)
    return tmp_path


def test_schedule_commands_add_list_pause_resume_delete(app: Path) -> None:
    """`schedule add` stores a validated schedule; list/show/pause/resume/delete act on it by id."""
    out = cli(
        app,
        "schedule",
        "add",
        "cliapp:build",
        "nightly",
        "--cron",
        "0 3 * * *",
        "--input",
        '{"n": 1}',
        STORE,
        "--json",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (
        doc["cron"] == "0 3 * * *"
        and doc["input"] == {"n": 1, "note": ""}
        and doc["next_fire"].endswith("03:00:00+00:00")
    )
    listed = json.loads(cli(app, "schedule", "list", STORE, "--json").stdout)
    assert [d["schedule_id"] for d in listed] == ["nightly"]
    plain = cli(app, "schedule", "list", STORE)
    assert "nightly" in plain.stdout and "0 3 * * *" in plain.stdout
    assert json.loads(cli(app, "schedule", "pause", "nightly", STORE, "--json").stdout)["paused"] is True
    assert json.loads(cli(app, "schedule", "resume", "nightly", STORE, "--json").stdout)["paused"] is False
    assert cli(app, "schedule", "delete", "nightly", STORE).returncode == 0
    assert json.loads(cli(app, "schedule", "list", STORE, "--json").stdout) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "cliapp:build", "bad", "--cron", "0 3 * * 9"], "day of week 9"),
        (["add", "cliapp:build", "bad", "--every", "5", "--input", '{"n": "x"}'], "does not validate"),
        (["add", "cliapp:build", "bad", "--cron", "@daily", "--tz", "Nowhere/City"], "time zone"),
        (["show", "nope"], "no schedule 'nope'"),
        (["delete", "nope"], "no schedule 'nope'"),
    ],
)
def test_schedule_command_mistakes_are_one_line(app: Path, args: list[str], message: str) -> None:
    """A bad definition or an unknown schedule exits 2 with one line naming the problem, storing nothing."""
    out = cli(app, "schedule", *args, STORE)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr and "Traceback" not in out.stderr
    assert json.loads(cli(app, "schedule", "list", STORE, "--json").stdout) == []


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`graphengine serve srvapp:build` on a SQLite file, port 0: it fires schedules by default."""
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "srvapp.py").write_text(APP)
    with serve(tmp, "srvapp:build", {}) as served:
        yield served


def _runs(c: httpx.Client, prefix: str) -> list[dict[str, object]]:
    return list(c.get("/api/runs", params={"prefix": prefix}).json())


def test_server_fires_a_schedule_created_over_http(server: Served) -> None:
    """A schedule POSTed to a real server starts runs there on its grid; pausing stops them; delete removes it."""
    with httpx.Client(base_url=server.url, timeout=10) as c:
        start = (datetime.now(UTC) + timedelta(seconds=0.5)).isoformat()
        body = {"schedule_id": "tick", "every": 0.3, "input": {"n": 1}, "start_at": start, "overlap": "allow"}
        made = c.post("/api/schedules", json=body)
        assert made.status_code == 201, made.text
        assert made.json()["every"] == 0.3 and made.json()["input"] == {"n": 1, "note": "", "log": []}
        deadline = time.monotonic() + 20
        while len(_runs(c, "tick@")) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_runs(c, "tick@")) >= 3
        paused = c.post("/api/schedules/tick/pause").json()
        assert paused["paused"] is True
        time.sleep(0.5)  # a tick in flight when the pause landed may still start one run
        count = len(_runs(c, "tick@"))
        time.sleep(1.0)
        assert len(_runs(c, "tick@")) == count
        for run in _runs(c, "tick@"):
            assert c.get(f"/api/runs/{run['run_id']}").json()["state"]["n"] == 3
        got = c.get("/api/schedules/tick").json()
        assert got["fired"] == count and got["paused"] is True
        assert [s["schedule_id"] for s in c.get("/api/schedules").json()] == ["tick"]
        assert c.delete("/api/schedules/tick").status_code == 204
        assert c.get("/api/schedules/tick").status_code == 404
        assert c.delete("/api/schedules/tick").status_code == 404


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"schedule_id": "b", "cron": "61 * * * *"}, "minute 61"),
        ({"schedule_id": "b"}, "exactly one"),
        ({"schedule_id": "b", "every": 1, "input": {"n": -1}}, "greater than or equal"),
        ({"schedule_id": "b", "every": -1}, "greater than"),
        ({"schedule_id": "b", "cron": "@daily", "overlap": "sometimes"}, "skip"),
    ],
)
def test_server_refuses_bad_schedules_with_422(server: Served, body: dict[str, object], words: str) -> None:
    """A definition or input that cannot work is a 422 naming what is wrong, and nothing is stored."""
    with httpx.Client(base_url=server.url, timeout=10) as c:
        r = c.post("/api/schedules", json=body)
        assert r.status_code == 422, r.text
        assert words in r.text
        assert c.get("/api/schedules/b").status_code == 404
