"""`graphengine serve` as a real uvicorn server on 127.0.0.1 (a random port), and the inspector in Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_process import Served, serve

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
pytest.importorskip("uvicorn", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from server_app import APP  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "live-test-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`graphengine serve srvapp:build` on a SQLite file, port 0 (the OS picks), token required."""
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "srvapp.py").write_text(APP)
    with serve(tmp, "srvapp:build", {"GRAPHENGINE_TOKEN": TOKEN}) as served:
        yield served


def test_real_server_refuses_requests_without_the_token(server: Served) -> None:
    """Over real HTTP, the API, the page and the schema answer 401 without the token."""
    for path in ("/api/runs", "/", "/openapi.json"):
        r = httpx.get(server.url + path)
        assert r.status_code == 401, path
    assert httpx.get(server.url + "/api/runs", headers=AUTH).status_code == 200


def test_real_server_interrupt_and_resume(server: Served) -> None:
    """A run started over HTTP pauses at its interrupt and a resume with input finishes it."""
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as c:
        d = c.post("/api/runs?wait=true", json={"run_id": "paused", "state": {"n": 10}}).json()
        assert d["status"] == "interrupted" and d["interrupt"]["payload"]["question"] == "ship it?"
        assert c.post("/api/runs", json={"run_id": "paused", "state": {}}).status_code == 409
        d = c.post("/api/runs/paused/resume?wait=true", json={"input": "yes"}).json()
        assert d["status"] == "done" and d["state"]["note"] == "yes"


def test_real_server_streams_events_live_and_cancels(server: Served) -> None:
    """SSE delivers a live run's events as they happen; cancel ends the stream with `cancelled`."""
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as c:
        r = c.post("/api/runs", json={"run_id": "blocked", "state": {"n": 20}})
        assert r.status_code == 201 and r.json()["live"] is True
        kinds: list[str] = []
        with c.stream("GET", "/api/runs/blocked/events") as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            lines = s.iter_lines()
            for line in lines:
                if line.startswith("data: "):
                    doc = json.loads(line[6:])
                    kinds.append(doc["kind"])
                    if doc["kind"] == "node_start" and doc["node_id"] == "wait":
                        break  # the run is blocked in `wait`: this event came while it runs
            # Cancel from another connection while the stream is open; the stream then ends.
            with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as other:
                d = other.post("/api/runs/blocked/cancel").json()
            assert d["status"] == "cancelled"
            for line in lines:
                if line.startswith("data: "):
                    doc = json.loads(line[6:])
                    kinds.append(doc["kind"])
        assert kinds[0] == "run_start" and kinds[-1] == "end" and doc["status"] == "cancelled"
        assert c.get("/api/runs/blocked").json()["status"] == "cancelled"


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_inspector_in_headless_chromium(server: Served) -> None:
    """Chromium shows a paused run: its id, status, the interrupt form, the steps and the drawn graph."""
    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as c:
        c.post("/api/runs?wait=true", json={"run_id": "shown", "state": {"n": 10}})
    url = f"{server.url}/?token={TOKEN}#run=shown"
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--virtual-time-budget=4000",
        f"--user-data-dir={server.cwd / 'chromium-profile'}",
    ]
    dom = subprocess.run(
        [chromium, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    assert 'id="run-id">shown<' in dom, dom[:2000]
    assert "Waiting for input" in dom and "ship it?" in dom
    assert 'class="badge s-interrupted">interrupted<' in dom
    assert 'data-step="2"' in dom and "<svg" in dom
    shot = Path(os.environ.get("GRAPHENGINE_SCREENSHOT_DIR", server.cwd)) / "inspector.png"
    subprocess.run(
        [chromium, *flags, "--window-size=1400,1500", f"--screenshot={shot}", url],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert shot.exists() and shot.stat().st_size > 10_000
