"""`python -m bench scale`: the SQLite one-run rows and the many-runs rows run and report every peer."""

from __future__ import annotations

import pytest
from db_servers import require_mysql, require_postgres

from bench import scale


def test_sqlite_and_many_runs_sections_report_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny run of the sections prints a figure for our stores, LangGraph's savers and each way
    to reach SQLite, and the ratios against the targets."""
    require_postgres()  # the many-runs rows
    argv = ["--sections", "sqlite,many", "--steps", "20", "--repeat", "1"]
    argv += ["--sqlite-runs", "6", "--pg-runs", "6", "--many-steps", "4", "--many-repeat", "1"]
    assert scale.main(argv) == 0
    out = capsys.readouterr().out
    assert "not measured" not in out
    for label, _ in [*scale.SQLITE_ONE.values(), *scale.MANY.values()]:
        assert label in out
    assert "ours / LangGraph on SQLite" in out
    assert "6 runs on sqlite" in out and "6 runs on pg" in out


def test_mysql_section_reports_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny run of the MySQL section prints our store's and the asyncmy floor's figures, one run
    and many runs at once, and the ratios to the floor."""
    require_mysql()
    argv = ["--sections", "mysql", "--steps", "20", "--repeat", "1"]
    argv += ["--mysql-runs", "6", "--many-steps", "4", "--many-repeat", "1"]
    assert scale.main(argv) == 0
    out = capsys.readouterr().out
    assert "not measured" not in out
    for label in [scale.ONE_RUN_LABELS["ours-mysql"], scale.ONE_RUN_LABELS["floor-mysql"]]:
        assert label in out
    for label, _ in scale.MYSQL_MANY.values():
        assert label in out
    assert out.count("ours / raw driver floor") == 2
    assert "6 runs at once" in out
