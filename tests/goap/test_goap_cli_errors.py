"""Bad input to ``python -m goap`` ends with one line on stderr naming the file and what was wrong,
and a non-zero exit status, never a traceback (each case runs the real command in a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goap", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        timeout=120,
        check=False,
    )


def _one_line_error(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("deep-object.json", '{"a":' * 50_000 + "1" + "}" * 50_000, "nested too deeply"),
        ("truncated.json", '{"name": "x", "initial": {', "invalid JSON at line 1"),
        ("digits.json", '{"name": "x", "initial": {"a": ' + "9" * 5000 + "}}", "invalid JSON"),
        ("array.json", "[]", "expected an object, got []"),
        ("nan.json", '{"name":"x","initial":{"a":NaN},"goal":{},"actions":[]}', "initial.a"),
        ("empty.json", "", "invalid JSON"),
    ],
)
def test_malformed_problem_files_get_one_line(tmp_path: Path, name: str, text: str, what: str) -> None:
    """Deeply nested, truncated, oversized or ill-typed JSON: one line naming the file and the fault."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    _one_line_error(_run("plan", str(path)), name, what)


def test_unreadable_problem_files_get_one_line(tmp_path: Path) -> None:
    """A missing file, a folder and a file that is not UTF-8 are named, not traced back."""
    _one_line_error(_run("plan", str(tmp_path / "missing.json")), "missing.json", "cannot read file")
    _one_line_error(_run("plan", str(tmp_path)), tmp_path.name, "cannot read file")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{\x00")
    _one_line_error(_run("plan", str(binary)), "binary.json", "not UTF-8")


def test_model_errors_name_the_file(tmp_path: Path) -> None:
    """An error raised while planning (here a memory budget that is not positive) names the file,
    and a type error in the file is reported with its JSON path."""
    doc = {
        "name": "x",
        "initial": {"a": False},
        "goal": {"a": True},
        "actions": [{"name": "s", "effects": {"a": True}}],
    }
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    _one_line_error(
        _run("plan", str(path), "--max-memory-mb", "0"), "ModelError: model.json:", "max_memory_mb"
    )
    doc["actions"] = [{"name": "s", "effects": {"a": {"add": 1}}}]
    path.write_text(json.dumps(doc))
    _one_line_error(_run("plan", str(path)), "model.json: actions[0].effects.a:")


def test_history_of_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    """``history`` on a text file or a folder prints one line naming it and exits 2."""
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    _one_line_error(_run("history", str(text), "run-1"), "notes.txt", "not a database")
    _one_line_error(_run("history", str(tmp_path), "run-1"), str(tmp_path))
    _one_line_error(_run("history", str(tmp_path / "none.db"), "run-1"), "none.db")


ACTION_MODULE = """
from goap import ActionSpec

NUMBER = 5
TEXT = "move"
MIXED = [ActionSpec("a", {}, {"x": 1}), "b"]
NONE_FN = lambda: None  # noqa: E731

def RAISES():
    raise RuntimeError("no actions today")
"""


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("actmod:NUMBER", ["actmod:NUMBER", "int", "list of ActionSpec"]),
        ("actmod:TEXT", ["actmod:TEXT", "str", "list of ActionSpec"]),
        ("actmod:MIXED", ["actmod:MIXED", "item 1", "str"]),
        ("actmod:NONE_FN", ["actmod:NONE_FN", "returned NoneType"]),
        ("actmod:RAISES", ["actmod:RAISES", "RuntimeError", "no actions today"]),
        ("badsyntax:X", ["badsyntax", "SyntaxError"]),
        (":X", ["':X'", "MODULE:NAME"]),
    ],
)
def test_actions_of_something_that_is_not_a_list_of_actions_is_one_line(
    tmp_path: Path, target: str, words: list[str]
) -> None:
    """`goap actions` on a number, a string, a mixed list, a failing factory or a broken module says what it found."""
    (tmp_path / "actmod.py").write_text(ACTION_MODULE)
    (tmp_path / "badsyntax.py").write_text("def (:\n")
    done = subprocess.run(
        [sys.executable, "-m", "goap", "actions", target],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(tmp_path)])},
        timeout=120,
        check=False,
    )
    _one_line_error(done, *words)
