"""Start `graphengine serve` as a real process for the server tests."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]


class Served(NamedTuple):
    """A running `graphengine serve` process, the base URL it listens on and its directory."""

    proc: subprocess.Popen[str]
    url: str
    cwd: Path


@contextmanager
def serve(cwd: Path, app: str, env: Mapping[str, str]) -> Iterator[Served]:
    """Run `graphengine serve APP` on a SQLite file in `cwd`, port 0; yield the process and its URL.

    `app` is a MODULE:FACTORY importable from `cwd`. The process is terminated on exit.
    """
    # This checkout's src first: the venv's editable install may point at another checkout.
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), str(cwd)]), **env}
    full.pop("GRAPHENGINE_STORE", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphengine", "serve", app, "--store", "sqlite:///runs.db", "--port", "0"],
        cwd=cwd,
        env=full,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    url = None
    seen: list[str] = []
    deadline = time.monotonic() + 30
    while url is None and time.monotonic() < deadline and proc.poll() is None:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        seen.append(line)
        m = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
        if m:
            url = m.group(1)
    if url is None:
        proc.kill()
        pytest.fail("graphengine serve did not start:\n" + "".join(seen))
    try:
        yield Served(proc, url, cwd)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
