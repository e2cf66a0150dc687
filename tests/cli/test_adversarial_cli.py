"""Adversarial input to the `graphengine` command, in real subprocesses: one test per class of mistake.

Classes: stores that cannot be opened (missing, not a database, a directory, unreachable,
unknown scheme), unknown run ids on every subcommand that takes one, numbers out of range or
not numbers at all, MODULE:ENGINE that fails (at import, in the factory), output files that
cannot be written, and `serve` that cannot listen (bad port, bad host, port in use, an open
interface without a token). Each must print one line naming the problem, never a traceback,
and exit non-zero.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from cli_app import STORE, cli, write_cli_app

BROKEN = """
def build(store):
    raise RuntimeError("factory exploded")
"""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with cliapp.py, a store with done run 'r1', a file that is not a database, broken modules."""
    tmp = tmp_path_factory.mktemp("advcli")
    write_cli_app(tmp, paused=False)
    (tmp / "brokenapp.py").write_text(BROKEN)
    (tmp / "importfails.py").write_text("raise ValueError('bad config at import')\n")
    (tmp / "syntaxapp.py").write_text("def build(store:\n")
    (tmp / "notdb.db").write_bytes(b"this is not a database " * 200)
    (tmp / "empty.db").write_bytes(b"")
    (tmp / "adir.db").mkdir()
    return tmp


def _one_line(out: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit code 2, stderr one line with `words`, no traceback."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr and 'File "' not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert all(w in lines[0] for w in words), lines[0]


def _usage_error(out: subprocess.CompletedProcess[str], *words: str) -> None:
    """argparse's refusal: exit code 2, the last line names the argument and the value, no traceback."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "error: argument" in last and all(w in last for w in words), last


# ---------------------------------------------------------------------- stores


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("sqlite:///missing.db", ["missing.db", "does not exist"]),
        ("sqlite:///notdb.db", ["notdb.db", "not a database"]),
        ("sqlite:///adir.db", ["adir.db"]),
        ("postgresql://postgres@127.0.0.1:1/test", ["127.0.0.1", "1"]),
        ("mysql://root@127.0.0.1:1/test", ["1"]),
        ("gopher://x", ["unknown store scheme"]),
        ("sqlite://", ["sqlite"]),
    ],
)
@pytest.mark.parametrize("command", [("runs",), ("show", "r1"), ("history", "r1"), ("export", "r1")])
def test_a_store_that_cannot_be_opened_is_one_line(
    app: Path, url: str, words: list[str], command: tuple[str, ...]
) -> None:
    """Every inspecting command reports a store it cannot open in one line naming it."""
    _one_line(cli(app, *command, f"--store={url}"), *words)


def test_an_empty_file_is_an_empty_store_not_a_crash(app: Path) -> None:
    """A zero-byte file is a valid (empty) SQLite database: no runs, exit 0."""
    out = cli(app, "runs", "--store=sqlite:///empty.db", "--json")
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


# ---------------------------------------------------------------------- unknown runs


@pytest.mark.parametrize(
    "args",
    [
        ("show", "nope", STORE),
        ("show", "nope", STORE, "--step", "0"),
        ("history", "nope", STORE),
        ("export", "nope", STORE),
        ("resume", "cliapp:build", "nope", STORE),
        ("replay", "cliapp:build", "nope", STORE),
        ("render", "cliapp:build", "--run", "nope", STORE),
        ("show", "..", STORE),
        ("show", "", STORE),
    ],
)
def test_an_unknown_run_is_one_line_naming_it(app: Path, args: tuple[str, ...]) -> None:
    """Every command that takes a run id names an unknown one in one line."""
    run = args[args.index("nope")] if "nope" in args else next(a for a in args[1:] if a in ("..", ""))
    _one_line(cli(app, *args), repr(run))


# ---------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("runs", STORE, "--limit", "0"), ["--limit", "0"]),
        (("runs", STORE, "--limit", "-5"), ["--limit", "-5"]),
        (("runs", STORE, "--limit", "abc"), ["--limit", "abc"]),
        (("runs", STORE, "--limit", "99999999999999999999999"), ["--limit"]),
        (("show", "r1", STORE, "--step", "x"), ["--step"]),
        (("serve", "cliapp:build", STORE, "--port", "99999"), ["--port", "99999"]),
        (("serve", "cliapp:build", STORE, "--port", "-1"), ["--port", "-1"]),
        (("serve", "cliapp:build", STORE, "--port", "http"), ["--port", "http"]),
        (("serve", "cliapp:build", STORE, "--max-body", "-1"), ["--max-body"]),
        (("worker", "cliapp:build", STORE, "--concurrency", "0"), ["--concurrency"]),
        (("worker", "cliapp:build", STORE, "--ttl", "nan"), ["--ttl", "nan"]),
        (("worker", "cliapp:build", STORE, "--ttl", "inf"), ["--ttl"]),
        (("worker", "cliapp:build", STORE, "--ttl", "-3"), ["--ttl"]),
        (("worker", "cliapp:build", STORE, "--stalled-after", "0"), ["--stalled-after"]),
    ],
)
def test_bad_numbers_are_refused_when_parsed(app: Path, args: tuple[str, ...], words: list[str]) -> None:
    """A number out of range or not a number is refused by the parser, naming the option and the value."""
    _usage_error(cli(app, *args), *words)


@pytest.mark.parametrize("step", ["-1", "4", "99999999999999999999999"])
def test_a_step_outside_the_run_is_one_line(app: Path, step: str) -> None:
    """`show --step K` outside 0..steps names the run's range."""
    _one_line(cli(app, "show", "r1", STORE, "--step", step), "r1", step)


# ---------------------------------------------------------------------- MODULE:ENGINE


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("brokenapp:build", ["brokenapp:build", "RuntimeError", "factory exploded"]),
        ("importfails:build", ["importfails", "ValueError", "bad config at import"]),
        ("syntaxapp:build", ["syntaxapp"]),
        ("cliapp:nothing", ["nothing"]),
        (":build", ["MODULE:ENGINE"]),
    ],
)
@pytest.mark.parametrize("command", ["replay", "resume"])
def test_an_engine_that_fails_to_load_is_one_line(
    app: Path, spec: str, words: list[str], command: str
) -> None:
    """A module that fails at import, a factory that raises: one line with the error, exit 2."""
    _one_line(cli(app, command, spec, "r1", STORE), *words)


def test_serve_with_a_failing_factory_is_one_line(app: Path) -> None:
    """`serve` of a factory that raises prints its error in one line and exits 2."""
    _one_line(cli(app, "serve", "brokenapp:build", STORE, "--port", "0"), "factory exploded")


# ---------------------------------------------------------------------- output files


@pytest.mark.parametrize(
    "args",
    [
        ("export", "r1", STORE, "-o", "no/such/dir/out.jsonl"),
        ("render", "cliapp:build", "-o", "no/such/dir/g.dot"),
        ("export", "r1", STORE, "-o", "adir.db"),
    ],
)
def test_an_output_file_that_cannot_be_written_is_one_line(app: Path, args: tuple[str, ...]) -> None:
    """Writing to a missing directory or onto a directory is one line naming the path."""
    _one_line(cli(app, *args), args[-1].split("/")[0])


# ---------------------------------------------------------------------- serve cannot listen


def test_serve_on_a_port_in_use_is_one_line(app: Path) -> None:
    """A port another process listens on: one line naming host, port and the reason; exit 2."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = cli(app, "serve", "cliapp:build", STORE, "--port", str(port))
    _one_line(out, f"127.0.0.1:{port}", "in use")


@pytest.mark.parametrize("host", ["no.such.host.invalid", "300.1.1.1", "bad host"])
def test_serve_on_a_bad_host_is_one_line(app: Path, host: str) -> None:
    """A host that does not resolve (or is not an address) is one line naming it; the server never starts."""
    out = cli(app, "serve", "cliapp:build", STORE, "--host", host, "--port", "0", "--allow-host", "x")
    _one_line(out, host)
    assert "Uvicorn running" not in out.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_serve_on_an_open_interface_without_a_token_is_refused(app: Path, host: str) -> None:
    """Listening on every interface without a token is refused, saying how to allow it."""
    out = cli(app, "serve", "cliapp:build", STORE, "--host", host, "--port", "0")
    _one_line(out, host, "without a token", "GRAPHENGINE_TOKEN", "--allow-host")


def test_serve_on_a_file_that_is_not_a_database_is_one_line(app: Path) -> None:
    """`serve` opens its store before listening: a file that is not a database fails at once."""
    out = cli(app, "serve", "cliapp:build", "--store=sqlite:///notdb.db", "--port", "0")
    _one_line(out, "not a database")


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--token-env", "MY_TOKN"], {}),  # a typo: the variable is not set
        (["--token-env", "MY_TOKEN"], {"MY_TOKEN": ""}),  # a missing export: set but empty
        ([], {"GRAPHENGINE_TOKEN": ""}),  # the default variable set but empty
    ],
)
def test_serve_with_a_token_variable_unset_or_empty_is_refused(
    app: Path, args: list[str], env: dict[str, str]
) -> None:
    """Asking for a token from a variable that holds none refuses to start instead of serving without auth."""
    out = cli(app, "serve", "cliapp:build", STORE, "--port", "0", *args, env=env)
    _one_line(out, "token", args[1] if args else "GRAPHENGINE_TOKEN")
    assert "Uvicorn running" not in out.stderr


@pytest.mark.parametrize("depth", [5_000, 60_000])
def test_resume_with_deeply_nested_input_is_one_line_naming_the_input(
    tmp_path_factory: pytest.TempPathFactory, depth: int
) -> None:
    """`--input` nested past what can be parsed or stored is refused in one line about the input, not 'unexpected error'."""
    tmp = tmp_path_factory.mktemp("deepinput")
    write_cli_app(tmp, paused=True)
    deep = "[" * depth + "]" * depth
    out = cli(tmp, "resume", "cliapp:build_ask", "p1", STORE, "--input", deep)
    _one_line(out, "input", "nest")
    assert "unexpected error" not in out.stderr
    again = cli(tmp, "resume", "cliapp:build_ask", "p1", STORE, "--input", '"yes"', "--json")
    assert again.returncode == 0, again.stderr  # the run was left as it was, still answerable
