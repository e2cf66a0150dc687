"""Smoke tests of ``python -m bench engine``: every variant does the same work, the table prints.

They time nothing worth reading (50 steps, 5 branches); they only keep the benchmark runnable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import engine as be

STEPS = 50
GROW = 20
K = 5
ADAPTER_KEYS = [k for k, _ in be.ADAPTER_ROWS]


async def test_every_variant_reaches_the_same_final_state() -> None:
    """Each timed variant, ours, LangGraph's and the floors', ends with the counter at steps / 2."""
    rep = await be.measure(STEPS, STEPS, 1, GROW)
    assert [r.key for r in rep.rows] == [s.key for s in be.SPECS]
    for row in rep.rows:
        assert row.error == "", f"{row.key}: {row.error}"
        assert row.finals == [be.target_of(STEPS)], row.key
        assert row.median_us is not None
        assert row.median_us > 0
        assert row.median_cpu_us is not None, row.key
    assert [s.final_items for s in rep.stored] == [GROW] * 3
    assert all(s.payload_bytes > 0 and s.file_bytes > 0 for s in rep.stored)


async def test_every_fan_out_variant_lands_every_branch_once() -> None:
    """Ours on both stores, LangGraph Send with and without a saver and the gather floor all sum K results."""
    rep = await be.measure(STEPS, STEPS, 1, 0, keys=set(), fanout=(K,))
    assert [r.key for r in rep.rows] == [f"{s.key}{K}" for s in be.FAN_SPECS]
    for row in rep.rows:
        assert row.error == "", f"{row.key}: {row.error}"
        assert row.unit == "branch"
        assert row.finals == [be.checksum_of(K)], row.key
        assert row.median_us is not None and row.median_us > 0


async def test_our_fan_out_merges_in_declared_branch_order(tmp_path: Path) -> None:
    """Our fan-out rows check that the join sees the branch results in branch order (else they raise)."""
    t = await be.ours_fan_sqlite(K, tmp_path)
    assert t.final == be.checksum_of(K)
    final = await be.our_fan_engine(be.MemoryStore(), K).run("order", be.Fan())
    assert final.out == [2 * i for i in range(K)]


async def test_adapter_group_has_the_native_and_adapted_rows() -> None:
    """The adapter group holds adapter_rows' three rates, compared with the native engine."""
    rep = await be.measure(STEPS, STEPS, 2, 0, keys=set(), adapter=True)
    assert [r.key for r in rep.rows] == ADAPTER_KEYS
    for row in rep.rows:
        assert row.error == "", f"{row.key}: {row.error}"
        assert row.label
        assert len(row.us_per_step) == 2
    assert [r.ref for r in rep.rows] == ["", "l", "l"]


async def test_our_deltas_do_not_grow_with_the_unchanged_state(tmp_path: Path) -> None:
    """Our stored delta per step stays about one item while the state grows to GROW items."""
    stored = await be.ours_growing(GROW, tmp_path)
    per_step = stored.parts["deltas"] / GROW
    assert be.ITEM_BYTES <= per_step < be.ITEM_BYTES + 50


async def test_bytes_section_measures_both_halves() -> None:
    """Each stored row carries the half run's file, so B/step over both halves can be printed."""
    rep = await be.measure(STEPS, STEPS, 1, GROW, keys={"bytes"})
    assert rep.rows == []
    assert len(rep.stored) == 3
    for s in rep.stored:
        assert s.half_file_bytes > 0 and s.empty_file_bytes > 0
        assert s.halves is not None


def test_main_prints_one_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`main` prints every row, the targets and the bytes section, and writes the same data as JSON."""
    out = tmp_path / "engine.json"
    argv = ["--steps", "10", "--repeat", "1", "--grow-steps", "4", "--fanout", "3", "--json", str(out)]
    assert be.main(argv) == 0
    text = capsys.readouterr().out
    for spec in (*be.SPECS, *be.FAN_SPECS):
        assert spec.label in text
    assert be.fan_group(3) in text
    assert be.ADAPTER in text
    assert "targets (" in text
    assert "fan-out K=3 in memory" in text
    assert "bytes stored per step" in text
    data = json.loads(out.read_text())
    assert {r["key"] for r in data["rows"]} == {s.key for s in be.SPECS} | {
        f"{s.key}3" for s in be.FAN_SPECS
    } | set(ADAPTER_KEYS)
    assert data["synchronous"] == "NORMAL"
    assert data["fanout"] == [3]


def test_skip_flags_leave_the_groups_out(capsys: pytest.CaptureFixture[str]) -> None:
    """--skip-fanout and --skip-adapter drop those groups and their targets."""
    argv = ["--steps", "10", "--repeat", "1", "--grow-steps", "0", "--skip-fanout", "--skip-adapter"]
    assert be.main(argv) == 0
    text = capsys.readouterr().out
    assert "fan-out (issue 18)" not in text
    assert be.ADAPTER not in text


@pytest.mark.parametrize("argv", [["--steps", "51"], ["--fanout", "0"], ["--fanout", "x"]])
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    """Odd step counts (a 2-node loop) and branch counts below 1 are refused instead of miscounted."""
    with pytest.raises(SystemExit) as exc:
        be.main(argv)
    assert exc.value.code == 2


async def test_progress_is_told_each_variant_of_each_round_before_it_runs() -> None:
    """``measure(progress=...)`` hears every measured variant of every round, then each bytes run."""
    heard: list[str] = []
    rep = await be.measure(STEPS, STEPS, 2, GROW, keys={"ours-memory", "bytes"}, progress=heard.append)
    keys = [r.key for r in rep.rows]
    assert heard[: 2 * len(keys)] == [f"round {n}/2: {k}" for n in (1, 2) for k in keys]
    assert heard[2 * len(keys) :] == [
        "bytes per step: ours",
        "bytes per step: ours-final-only",
        "bytes per step: langgraph",
    ]


def test_main_is_silent_on_stderr_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    """Run with stderr not a terminal, ``main`` writes its table to stdout and nothing to stderr."""
    argv = ["--steps", "20", "--repeat", "1", "--grow-steps", "0", "--skip-fanout", "--skip-adapter"]
    assert be.main(argv) == 0
    out = capsys.readouterr()
    assert out.out and out.err == ""
