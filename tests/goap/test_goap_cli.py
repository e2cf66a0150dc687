"""The command line: python -m goap plan problem.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from problem_files import two_step_problem

from goap.__main__ import main


def _problem(tmp_path: Path) -> Path:
    data = two_step_problem()
    p = tmp_path / "two.json"
    p.write_text(json.dumps(data))
    return p


def test_plan_command_prints_plan_cost_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The text output lists the actions, the cost and the search stats."""
    assert main(["plan", str(_problem(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "1. make_a" in out and "2. make_b" in out
    assert "cost: 3" in out
    assert "expanded=" in out


def test_plan_command_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one machine-readable object."""
    assert main(["plan", str(_problem(tmp_path)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["plan"] == ["make_a", "make_b"]
    assert out["cost"] == 3.0
    assert out["optimal"] is True


def test_plan_command_reports_format_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A malformed file exits with status 2 and the typed error on stderr."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "initial": {}, "goal": {}, "actions": [{"name": "a", "cost": "x"}]}')
    assert main(["plan", str(bad)]) == 2
    assert (
        'ProblemFormatError: bad.json: actions[0].cost: expected a number ≥ 0, got "x"'
        in capsys.readouterr().err
    )


ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "tests" / "data" / "problems"


def _goap(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goap", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["plan", "p.json"], {"problem": "p.json", "timeout": 30.0, "json": False, "strategy": "astar"}),
        (
            ["plan", "--json", "p.json", "--timeout", "2.5", "--max-expansions", "7"],
            {"problem": "p.json", "timeout": 2.5, "max_expansions": 7, "json": True},
        ),
        (
            ["plan", "p.json", "--strategy=greedy", "--max-memory-mb=64"],
            {"strategy": "greedy", "max_memory_mb": 64.0, "max_expansions": None},
        ),
    ],
)
def test_plan_arguments_are_read_by_the_one_argparse_parser(
    argv: list[str], expected: dict[str, object]
) -> None:
    """Every form of ``plan`` is read by the one parser ``main`` uses (no second, hand-written reader)."""
    import goap.__main__ as cli

    args = vars(cli.build_parser().parse_args(argv))
    assert {k: args[k] for k in expected} == expected
    assert not hasattr(cli, "_quick_plan_args")


def test_plan_help_points_to_the_format_page_in_the_repository() -> None:
    """``plan -h`` names docs/problem-format.md, which exists, and no longer a file outside the repository."""
    out = _goap("plan", "-h")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "docs/problem-format.md" in text and "shared/problems" not in text
    assert (ROOT / "docs" / "problem-format.md").is_file()


def test_every_option_has_help() -> None:
    """Each option and argument of every ``python -m goap`` command says what it is."""
    import argparse

    import goap.__main__ as cli

    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in sub.choices.items():
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"


def test_version_prints_the_package_version() -> None:
    """``python -m goap --version`` prints goap's version and exits 0."""
    import goap

    out = _goap("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"goap {goap.__version__}"


def test_version_loads_no_engine() -> None:
    """``goap.__version__`` and ``--version`` read the version without importing graphengine or
    pydantic, so they work and stay fast wherever ``python -m goap plan`` does."""
    code = (
        "import sys, contextlib, goap\n"
        "from goap.__main__ import main\n"
        "assert goap.__version__\n"
        "with contextlib.suppress(SystemExit): main(['--version'])\n"
        "loaded = [m for m in ('graphengine', 'pydantic') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    ("problem", "options", "budget", "option"),
    [
        ("blocksworld-8.json", ["--max-expansions", "5"], "max_expansions", "--max-expansions"),
        ("blocksworld-8.json", ["--max-memory-mb", "0.001"], "max_memory_mb", "--max-memory-mb"),
        ("numeric-house-1.json", ["--max-memory-mb", "0.001"], "max_memory_mb", "--max-memory-mb"),
        ("chain-200.json", ["--timeout", "1e-6"], "timeout", "--timeout"),
        ("chain-200.json", ["--timeout", "1e-6", "--strategy", "greedy"], "timeout", "--timeout"),
    ],
)
def test_budget_exhausted_names_the_budget_that_ran_out(
    problem: str, options: list[str], budget: str, option: str
) -> None:
    """A search that runs out of a budget says which one, in JSON and in text, in the C and Python loops."""
    doc = json.loads(_goap("plan", str(PROBLEMS / problem), *options, "--json").stdout)
    assert (doc["status"], doc["budget"]) == ("budget_exhausted", budget)
    text = _goap("plan", str(PROBLEMS / problem), *options)
    assert text.returncode == 1
    assert f"budget exhausted: {option}" in text.stdout


def test_json_says_which_search_ran() -> None:
    """``plan --json`` says ``"search": "c"`` when the C loop ran and ``"python"`` when it did not."""
    from goap.planning.heuristics.lmcut import ACCELERATED

    chain = str(PROBLEMS / "chain-10.json")
    if ACCELERATED:
        assert json.loads(_goap("plan", chain, "--json").stdout)["search"] == "c"
    pure = _goap("plan", chain, "--json", env={"GOAP_PURE_PYTHON": "1"})
    assert json.loads(pure.stdout)["search"] == "python"
    assert "search: python" in _goap("plan", chain, env={"GOAP_PURE_PYTHON": "1"}).stdout


_WITHOUT_EXTENSIONS = """
import importlib.abc, logging, sys

class NotBuilt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in ("goap.planning._lmcut", "goap.planning._ground"):
            raise ImportError(f"{name} is not built")
        return None

sys.meta_path.insert(0, NotBuilt())
logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(name)s: %(message)s")
import goap.planning.heuristics.lmcut, goap.planning._compile
import goap.planning.heuristics.lmcut, goap.planning._compile
from goap.__main__ import main
sys.exit(main(["plan", sys.argv[1], "--json"]))
"""


def test_without_the_c_extensions_the_import_says_so_once_at_debug_level() -> None:
    """When the C extensions were not built, each module says so once at DEBUG level, and the
    plan's JSON says the Python search ran."""
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTENSIONS, str(PROBLEMS / "chain-10.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "is not built" in line]
    assert len(lines) == 2, out.stderr
    assert all(line.startswith("DEBUG goap.planning.") for line in lines)
    assert json.loads(out.stdout)["search"] == "python"


def _stderr_on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run ``python -m goap ARGS`` with stderr on a pseudo-terminal (stdout piped): exit status,
    stdout, and what the terminal showed."""
    import pty

    main_fd, term_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "goap", *args], stdout=subprocess.PIPE, stderr=term_fd, text=True
    )
    os.close(term_fd)
    shown = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the terminal closed: the process exited
            break
        if not chunk:
            break
        shown += chunk
    out, _ = proc.communicate(timeout=120)
    os.close(main_fd)
    return proc.returncode, out, shown.decode(errors="replace")


def test_plan_says_what_it_is_doing_on_a_terminal_and_nothing_when_piped() -> None:
    """On a terminal ``plan`` shows that it is planning (on stderr, stdout unchanged); piped, its
    stderr stays empty."""
    problem = str(PROBLEMS / "blocksworld-8.json")
    status, out, shown = _stderr_on_a_terminal("plan", problem, "--json")
    assert status == 0 and json.loads(out)["status"] == "found"
    assert "planning blocksworld-8" in shown
    piped = _goap("plan", problem, "--json")
    assert piped.returncode == 0 and piped.stderr == ""
