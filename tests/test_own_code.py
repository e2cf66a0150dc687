"""The project stays its own: no run of 6 or more non-blank lines is shared with langgoap.

The other side is langgoap 0.1.2 as published: the installed package's sources, and its source
distribution's tests, examples and docs (downloaded once into the report script's cache, outside
the repository; see ``tests/compat/report.py``). Lines are compared with their indentation
stripped and blank lines skipped, so a reindented or re-spaced copy is still a copy; a second,
looser reading also skips comment lines and lines of lone punctuation, so a copy with its comments
changed or its brackets rewrapped is found too.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests.compat.report import fetch_sdist

ROOT = Path(__file__).resolve().parents[1]
RUN = 6
"""Shared non-blank lines that make a copy."""
OURS = ("src", "tests", "docs", "examples", "bench")
TEXT = {".py", ".pyi", ".md", ".txt", ".c", ".h", ".toml", ".cfg", ".ini", ".ipynb"}


THIN = re.compile(r"^(#.*|[\W_]*)$")
"""A comment line or a line of punctuation alone (``)``, ``],``, ``}``)."""


def lines_of(path: Path, *, loose: bool = False) -> list[tuple[int, str]]:
    """``(line number, stripped text)`` of each non-blank line of ``path`` (``loose``: not thin)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [(n, s) for n, raw in enumerate(text.splitlines(), 1) if (s := raw.strip())]
    return [(n, s) for n, s in lines if not THIN.match(s)] if loose else lines


def windows(lines: list[tuple[int, str]]) -> Iterator[tuple[bytes, int]]:
    """A digest of every run of :data:`RUN` consecutive lines, with the first line's number."""
    for i in range(len(lines) - RUN + 1):
        joined = "\n".join(s for _, s in lines[i : i + RUN])
        yield hashlib.blake2b(joined.encode(), digest_size=12).digest(), lines[i][0]


def langgoap_files() -> Iterable[Path]:
    """The published langgoap files: the installed package and the sdist's tests, examples, docs."""
    spec = importlib.util.find_spec("langgoap")
    assert spec is not None and spec.origin, "langgoap 0.1.2 (a dev dependency) is not installed"
    yield from Path(spec.origin).parent.rglob("*.py")
    sdist = fetch_sdist()
    for part in ("tests", "examples", "docs"):
        yield from (p for p in (sdist / part).rglob("*") if p.suffix in TEXT and p.is_file())
    yield sdist / "README.md"


def our_files() -> list[Path]:
    """The repository's text files under src, tests, docs, examples and bench (tracked or new)."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *OURS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    files = (ROOT / name for name in out.splitlines())
    return [p for p in files if p.suffix in TEXT and p.is_file()]


@pytest.mark.parametrize("loose", [False, True], ids=["lines", "without-comments-and-punctuation"])
def test_no_run_of_six_lines_is_shared_with_langgoap(loose: bool) -> None:
    """Every run of six non-blank lines in src, tests, docs, examples and bench is absent from langgoap."""
    theirs: dict[bytes, str] = {}
    for path in langgoap_files():
        for digest, line in windows(lines_of(path, loose=loose)):
            theirs.setdefault(digest, f"{path.name}:{line}")
    shared = [
        f"{path.relative_to(ROOT)}:{line} is langgoap's {theirs[digest]}"
        for path in our_files()
        for digest, line in windows(lines_of(path, loose=loose))
        if digest in theirs
    ]
    assert not shared, f"{len(shared)} runs of {RUN} lines shared with langgoap:\n" + "\n".join(shared[:40])


def test_the_check_sees_a_copied_run(tmp_path: Path) -> None:
    """Six lines of a langgoap file, reindented with blank lines between, are still found."""
    source = next(p for p in langgoap_files() if len(lines_of(p)) > 40)
    picked = [s for _, s in lines_of(source)[20 : 20 + RUN]]
    copy = tmp_path / "copy.py"
    copy.write_text("\n\n".join("        " + s for s in picked) + "\n")
    theirs = {d for d, _ in windows(lines_of(source))}
    assert any(d in theirs for d, _ in windows(lines_of(copy)))
