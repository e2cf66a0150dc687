"""Smoke test of ``python -m bench memory``: every section runs, and paused runs hold no state."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")

from bench.memory import main


def test_memory_bench_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Paused runs (engine and server) hold 0 states; each live run holds exactly one."""
    assert main(["--runs", "12", "--payload", "100"]) == 0
    out = capsys.readouterr().out
    rows = {
        line[:18].strip(): line[18:].split()
        for line in out.splitlines()
        if line.startswith(("paused", "live"))
    }
    assert set(rows) == {"paused, engine", "paused, server", "live, server"}
    assert rows["paused, engine"][2] == "0" and rows["paused, server"][2] == "0"
    assert rows["live, server"][2] == "12"
