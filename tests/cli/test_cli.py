"""The `graphengine` command, run in a subprocess against a real SQLite file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from cli_app import STORE, cli, write_cli_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with cliapp.py and runs.db holding a done run 'r1' and a paused run 'p1'."""
    tmp = tmp_path_factory.mktemp("cli")
    write_cli_app(tmp)
    return tmp


def test_runs_lists_runs_with_status(app: Path) -> None:
    """`runs` prints a table of runs and their status; `--json` prints the same as JSON."""
    out = cli(app, "runs", STORE)
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line.split()[1] for line in out.stdout.splitlines()[1:]}
    assert rows == {"r1": "done", "p1": "interrupted"}
    doc = json.loads(cli(app, STORE, "runs", "--json").stdout)  # --store before the subcommand works too
    assert {d["run_id"]: d["status"] for d in doc} == {"r1": "done", "p1": "interrupted"}


def test_show_prints_steps_and_the_state_at_a_step(app: Path) -> None:
    """`show RUN` is a table of steps; `--step K` prints the state after step K as JSON."""
    out = cli(app, "show", "r1", STORE)
    assert out.returncode == 0, out.stderr
    assert "run r1: done, 6 steps" in out.stdout
    assert "goto check" in out.stdout and "stop" in out.stdout
    last = cli(app, "show", "r1", STORE, "--step", "6")
    assert json.loads(last.stdout) == {"n": 3, "note": ""}
    mid = cli(app, "show", "r1", STORE, "--step", "3", "--engine", "cliapp:build")
    assert json.loads(mid.stdout) == {"n": 2, "note": ""}


def test_history_json_and_export_jsonl(app: Path) -> None:
    """`history --json` lists every step with decoded deltas; `export` prints JSON lines."""
    hist = json.loads(cli(app, "history", "r1", STORE, "--json").stdout)
    assert [h["node_id"] for h in hist] == ["inc", "check"] * 3
    assert hist[0]["delta"] == {"n": 1}
    lines = cli(app, "export", "r1", STORE).stdout.splitlines()
    assert json.loads(lines[0])["type"] == "run" and len(lines) == 7


def test_replay_clean_and_diverging(app: Path) -> None:
    """`replay` exits 0 on a clean replay and 1 with the divergence report when a node changed."""
    ok = cli(app, "replay", "cliapp:build", "r1", STORE)
    assert ok.returncode == 0, ok.stderr
    assert "no divergence" in ok.stdout
    bad = cli(app, "replay", "cliapp:build", "r1", STORE, env={"CLIAPP_BUMP": "1"})
    assert bad.returncode == 1
    assert "diverges at step 1" in bad.stdout and "recorded 1, replayed 2" in bad.stdout


def test_resume_with_input_finishes_a_paused_run(app: Path) -> None:
    """`resume MODULE:ENGINE RUN --input JSON` answers the interrupt and runs to the end."""
    out = cli(app, "resume", "cliapp:build_ask", "p1", STORE, "--input", '"yes"', "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["status"] == "done" and doc["state"] == {"n": 1, "note": "yes"}


def test_render_prints_dot_and_mermaid(app: Path) -> None:
    """`render` prints DOT by default and Mermaid with --format mermaid; an Engine attribute works too."""
    dot = cli(app, "render", "cliapp:build")
    assert dot.returncode == 0, dot.stderr
    assert dot.stdout.startswith("digraph") and '"inc" -> "check"' in dot.stdout
    mer = cli(app, "render", "cliapp:engine", "--format", "mermaid", "--run", "r1", STORE)
    assert mer.stdout.startswith("flowchart TD") and "visited" in mer.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "nope", STORE), "no run 'nope'"),
        (("runs", "--store=sqlite:///missing.db"), "does not exist"),
        (("runs", "--store=ftp://x"), "unknown store scheme"),
        (("runs",), "no store"),
        (("replay", "cliapp", "r1", STORE), "is not MODULE:ENGINE"),
        (("replay", "nomodule:build", "r1", STORE), "cannot import module 'nomodule'"),
        (("replay", "cliapp:not_an_engine", "r1", STORE), "not an Engine"),
        (("resume", "cliapp:build_ask", "p1", STORE, "--input", "{bad"), "--input is not JSON"),
        (("render", "cliapp:build", "--format", "png"), "pass -o FILE"),
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(app: Path, args: tuple[str, ...], message: str) -> None:
    """A user mistake prints one line naming it (no traceback) and exits with code 2."""
    out = cli(app, *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert message in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_main_module_entry_point_returns_exit_codes() -> None:
    """`graphengine.__main__.main` is the console script: it returns the exit code."""
    from graphengine.__main__ import main

    with pytest.raises(SystemExit) as ei:
        main(["--help"])
    assert ei.value.code == 0
    assert asyncio.iscoroutinefunction(main) is False


def test_version_prints_the_package_version(app: Path) -> None:
    """`graphengine --version` prints the installed version and exits 0."""
    import graphengine

    out = cli(app, "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"graphengine {graphengine.__version__}"


def test_every_option_of_every_command_has_help() -> None:
    """Each option and argument of every `graphengine` command says what it is in `-h`."""
    import argparse

    from graphengine.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in sub.choices.items():
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"


@pytest.mark.parametrize("command", ["serve", "worker"])
@pytest.mark.parametrize("level", ["debug", "DEBUG", "Warning"])
def test_log_level_takes_either_case_in_every_command(command: str, level: str) -> None:
    """`--log-level` accepts a level in any case, in `serve` and `worker` alike."""
    from graphengine.cli import build_parser

    args = build_parser().parse_args([command, "m:e", "--log-level", level])
    assert args.log_level == level.lower()
