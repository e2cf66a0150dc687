"""Smoke tests of ``python -m bench engine``: every variant does the same work, the table prints.

They time nothing worth reading (50 steps); they only keep the benchmark runnable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import engine as be

STEPS = 50
GROW = 20


async def test_every_variant_reaches_the_same_final_state() -> None:
    """Each timed variant, ours, LangGraph's and the floors', ends with the counter at steps / 2."""
    rep = await be.measure(STEPS, STEPS, 1, GROW)
    assert [r.key for r in rep.rows] == [s.key for s in be.SPECS]
    for row in rep.rows:
        assert row.error == "", f"{row.key}: {row.error}"
        assert row.finals == [be.target_of(STEPS)], row.key
        assert row.median_us is not None
        assert row.median_us > 0
    assert [s.final_items for s in rep.stored] == [GROW] * 3
    assert all(s.payload_bytes > 0 and s.file_bytes > 0 for s in rep.stored)


async def test_our_deltas_do_not_grow_with_the_unchanged_state(tmp_path: Path) -> None:
    """Our stored delta per step stays about one item while the state grows to GROW items."""
    stored = await be.ours_growing(GROW, tmp_path)
    per_step = stored.parts["deltas"] / GROW
    assert be.ITEM_BYTES <= per_step < be.ITEM_BYTES + 50


def test_main_prints_one_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`main` prints every row, the targets and the bytes section, and writes the same data as JSON."""
    out = tmp_path / "engine.json"
    argv = ["--steps", "10", "--repeat", "1", "--grow-steps", "4", "--json", str(out)]
    assert be.main(argv) == 0
    text = capsys.readouterr().out
    for spec in be.SPECS:
        assert spec.label in text
    assert "targets (issue 16)" in text
    assert "bytes stored per step" in text
    data = json.loads(out.read_text())
    assert {r["key"] for r in data["rows"]} == {s.key for s in be.SPECS}
    assert data["synchronous"] == "NORMAL"


def test_odd_step_counts_are_refused() -> None:
    """A loop of two nodes needs an even number of steps; the CLI says so instead of miscounting."""
    with pytest.raises(SystemExit) as exc:
        be.main(["--steps", "51"])
    assert exc.value.code == 2
