"""The inspector in a real browser: Playwright drives Debian's headless Chromium against `graphengine serve`.

A real `graphengine serve` process (127.0.0.1, a port the OS picks, token auth on) serves the
release agent of `examples.release` (a GOAP graph: planner, executor, observer and the approval
step). One run has finished; another is live, its `fetch` action blocked on a gate file the
test opens. The test checks what a person would see: both runs listed with their statuses, the
graph drawn with its nodes, the step table, the live run moving on by itself (new steps, then the
approval form), and answering that form in the page finishing the run. Screenshots are saved to
$GRAPHENGINE_SCREENSHOT_DIR (else the test's tmp directory) for review; README.md shows two of
them from docs/img/ (`GRAPHENGINE_SCREENSHOT_DIR=docs/img` takes them again; the live one is not
committed).

Playwright's own browser download is not reachable from these machines: the browser is Debian's
chromium at /usr/bin/chromium (`.ci/run` installs it with apt-get when missing), launched through
`executable_path`. Without it the test skips, saying why; under CI=true too (the apt step may be
impossible on some machines), but there a missing Playwright (the dev extra) is a failure.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_process import Served, serve

from examples import release

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
pytest.importorskip("uvicorn", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
TOKEN = "browser-test-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
UNDER_CI = os.environ.get("CI", "").lower() == "true"

if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is missing"
        + (
            " under CI=true: .ci/run could not install it (apt-get install chromium failed: no apt or no network)"
            if UNDER_CI
            else " (install Debian's chromium: apt-get install chromium; .ci/run does this in CI)"
        ),
        allow_module_level=True,
    )
try:
    from playwright.sync_api import Page, expect, sync_playwright
except ImportError:
    if UNDER_CI:
        raise  # Playwright is in the dev extra: CI must have it
    pytest.skip("playwright is not installed (pip install -e '.[dev]')", allow_module_level=True)

APP = '''
"""The release agent of examples.release, with a `fetch` that waits for a gate file when the world says hold."""
import asyncio
import os
from pathlib import Path

from examples.release import actions as release_actions
from goap import ActionSpec, GoapGraph


async def fetch(world):
    if world.get("hold"):
        gate = Path(os.environ["BROWSER_TEST_GATE"])
        (gate / "entered").touch()
        while not (gate / "open").exists():
            await asyncio.sleep(0.05)
    return {"source": True, "commit": "a1b2c3d"}


def build(store):
    acts = [ActionSpec("fetch", {}, {"source": True}, execute=fetch)]
    acts += [a for a in release_actions() if a.name != "fetch"]
    return GoapGraph(acts, store=store, max_replans=3, blacklist_after=2).engine
'''

WORLD = dict(release.WORLD)
GOAL = {"conditions": {"published": True, "notified": True}, "name": "ship release"}
APPROVAL = {"approved": True, "reason": "looks good", "channel": "stable"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`graphengine serve browserapp:build` on a SQLite file, port 0 (the OS picks), token required."""
    tmp = tmp_path_factory.mktemp("browser")
    gate = tmp / "gate"
    gate.mkdir()
    (tmp / "browserapp.py").write_text(APP)
    env = {"GRAPHENGINE_TOKEN": TOKEN, "BROWSER_TEST_GATE": str(gate)}
    with serve(tmp, "browserapp:build", env) as served:
        try:
            yield served
        finally:
            (gate / "open").touch()  # let a held run finish, so shutdown has nothing to wait for


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where screenshots go: $GRAPHENGINE_SCREENSHOT_DIR, else the test's tmp directory."""
    where = Path(os.environ.get("GRAPHENGINE_SCREENSHOT_DIR") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def _node_column(page: Page) -> set[str]:
    return set(page.locator("#steps tbody tr td:nth-child(2)").all_inner_texts())


def test_inspector_on_a_finished_and_a_live_goap_run(server: Served, shots: Path) -> None:
    """A person opening the inspector sees both runs, the GOAP graph, the steps, and the live run move."""
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=20) as c:
        # The finished run: the release agent pauses for approval, the approval finishes it.
        state = {"world_state": WORLD, "goal": GOAL}
        d = c.post("/api/runs?wait=true", json={"run_id": "release-done", "state": state}).json()
        assert d["status"] == "interrupted", d
        d = c.post("/api/runs/release-done/resume?wait=true", json={"input": APPROVAL}).json()
        assert d["status"] == "done" and d["state"]["status"] == "achieved", d
        done_steps = d["steps"]
        # The live run: held in `fetch` until the test opens the gate.
        held = {"world_state": {**WORLD, "hold": True}, "goal": GOAL}
        r = c.post("/api/runs", json={"run_id": "release-live", "state": held})
        assert r.status_code == 201 and r.json()["live"] is True
    deadline = time.monotonic() + 10
    while not (server.cwd / "gate" / "entered").exists():
        assert time.monotonic() < deadline, "the live run never reached its fetch action"
        time.sleep(0.05)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            expect.set_options(timeout=8000)
            # /?token= sets the auth cookie and redirects to the page, which then needs no token.
            page.goto(f"{server.url}/?token={TOKEN}")
            assert "?token" not in page.url

            # The run list shows both runs with their statuses; the live one is marked live.
            done_row = page.locator('#runs tbody tr[data-run="release-done"]')
            live_row = page.locator('#runs tbody tr[data-run="release-live"]')
            expect(done_row.locator(".badge")).to_have_text("done")
            expect(live_row.locator(".badge")).to_have_text("running")
            expect(live_row).to_contain_text("live")

            # The finished run: status, the drawn graph, every step of it, its final state.
            done_row.click()
            expect(page.locator("#run-id")).to_have_text("release-done")
            expect(page.locator("#run-status")).to_have_text("done")
            expect(page.locator("#run-live")).to_have_text("")
            expect(page.locator("#steps tbody tr")).to_have_count(done_steps)
            graph = page.locator("#graph svg")
            for node in ("planner", "executor", "observer", "approval"):
                expect(graph).to_contain_text(node)
            assert {"planner", "executor", "observer", "approval"} <= _node_column(page)
            expect(page.locator("#state")).to_contain_text('"status": "achieved"')
            expect(page.locator("#interrupt")).to_be_hidden()
            page.screenshot(path=str(shots / "inspector-goap-finished.png"), full_page=True)

            # The live run: running, driven by the server, only the first planning step so far.
            live_row.click()
            expect(page.locator("#run-id")).to_have_text("release-live")
            expect(page.locator("#run-status")).to_have_text("running")
            expect(page.locator("#run-live")).to_have_text("● live")
            expect(page.locator("#cancel")).to_be_enabled()
            expect(page.locator("#steps tbody tr")).not_to_have_count(0)
            before = page.locator("#steps tbody tr").count()
            assert _node_column(page) == {"planner"}
            page.screenshot(path=str(shots / "inspector-goap-live.png"), full_page=True)

            # Released, the run moves on by itself (the page follows its event stream): new steps
            # appear and it stops at the approval, whose form the page shows.
            (server.cwd / "gate" / "open").touch()
            expect(page.locator("#run-status")).to_have_text("interrupted")
            expect(page.locator("#interrupt")).to_be_visible()
            expect(page.locator("#int-node")).to_have_text("approval")
            assert page.locator("#steps tbody tr").count() > before
            assert {"planner", "executor", "observer"} <= _node_column(page)
            page.screenshot(path=str(shots / "inspector-goap-approval.png"), full_page=True)

            # Answering the form in the page finishes the run.
            page.locator("#int-input").fill(json.dumps(APPROVAL))
            page.locator("#answer").click()
            expect(page.locator("#run-status")).to_have_text("done")
            expect(page.locator("#interrupt")).to_be_hidden()
            expect(live_row.locator(".badge")).to_have_text("done")
            expect(page.locator("#state")).to_contain_text('"status": "achieved"')
        finally:
            browser.close()

    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as c:
        d = c.get("/api/runs/release-live").json()
        assert d["status"] == "done" and d["state"]["world_state"]["published"] is True
    for name in ("finished", "live", "approval"):
        shot = shots / f"inspector-goap-{name}.png"
        assert shot.stat().st_size > 10_000, shot
