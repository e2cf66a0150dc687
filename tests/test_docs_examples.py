"""Every fenced ```python block of the user guides (docs/*.md) and of README.md runs as pasted.

Each block runs alone, the way a reader runs it: written to a script of its own and run by a
fresh Python process in a fresh temporary directory (`python example.py`). A reader runs a script
again, so what a reader runs as a whole (a block that stands alone, the complete script of a
page's continuing blocks) runs a second time in that directory (and database) and must pass again
(`times`). A block therefore imports what it uses and wraps top-level `await` in
`asyncio.run(main())` (or uses `run_sync`).
The blocks run in parallel subprocesses, once per session, so the whole page set takes seconds.

Markers, an HTML comment on the line before the fence:

- `<!-- docs-test: continues -->`: the block continues the page's earlier blocks (the text says
  so); it runs as one script with every earlier unmarked or continuing block of its page.
- `<!-- docs-test: postgres -->` / `<!-- docs-test: mysql -->`: the block needs that server. It
  runs on its own against the server the rest of the suite uses (`db_servers`): the URL the page
  shows is replaced by the suite's, each schema it names (`schema="..."`) by a fresh one, dropped
  afterwards. It runs twice in those schemas, as a reader runs it again. A MySQL block's page must tell the reader to `CREATE DATABASE myapp`; the test does
  the same with a fresh name. Without the server it is skipped, and under CI=true it fails.
- `<!-- docs-test: skip (hosted LLM) -->` skips a block that calls a hosted model; no other
  reason to skip exists.

README.md blocks that are outlines (the text says so: they use names the reader supplies and a
server at `db`; the page they link to has the complete example) are listed in `README_FRAGMENTS`
with what they lack.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from db_servers import (
    POSTGRES_DSN,
    mysql_database,
    require_mysql,
    require_postgres,
    unique_name,
)

ROOT = Path(__file__).parents[1]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
FENCE = re.compile(
    r"(?:<!--\s*docs-test:\s*(?P<mark>[^>]*?)\s*-->\s*\n)?^```python\n(?P<code>.*?)^```",
    re.S | re.M,
)
GUIDES = ("langgraph.md", "langgoap.md", "production.md")
"""The task-oriented user guides; each must show runnable code."""
SERVERS = ("postgres", "mysql")
MARKS = {"", "continues", *SERVERS, "skip (hosted LLM)"}
DOC_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
"""The PostgreSQL URL the pages show; replaced by the suite's `POSTGRES_DSN`."""
DOC_MYSQL = "mysql://root@127.0.0.1:3306/myapp"
"""The MySQL URL the pages show; replaced by a fresh database on the suite's MySQL server."""
SCHEMA = re.compile(r'schema="(\w+)"|\?schema=(\w+)')
TIMEOUT = 120
"""Seconds one block may take before it counts as hanging."""
README_FRAGMENTS = {
    # a line of the block: what it lacks
    'store = PostgresStore("postgresql://app@db:5432/prod", max_size=10)': "a server at db, run_id, engine",
    "from graphengine.workers import RunQueue": "a queue at db, an engine",
}


@dataclass(frozen=True)
class Block:
    """One ```python block: its page, 1-based number on the page, line, code and marker."""

    page: Path
    number: int
    line: int
    code: str
    mark: str

    @property
    def name(self) -> str:
        """Where the block is, for messages and test ids."""
        return f"{self.page.name}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The ```python blocks of `page`, in order; an unknown marker is an error naming the line."""
    text = page.read_text(encoding="utf-8")
    out = []
    for i, m in enumerate(FENCE.finditer(text), 1):
        line = text.count("\n", 0, m.start("code"))
        mark = (m.group("mark") or "").strip()
        if mark not in MARKS:
            raise ValueError(f"{page.name}:{line}: unknown docs-test marker {mark!r}; known: {sorted(MARKS)}")
        out.append(Block(page, i, line, m.group("code"), mark))
    return out


def is_fragment(b: Block) -> bool:
    """A README block listed in `README_FRAGMENTS`."""
    return b.page.name == "README.md" and any(line in b.code for line in README_FRAGMENTS)


def script(b: Block) -> str:
    """What a reader pastes into one file for `b`: the block, after the blocks it continues."""
    if b.mark != "continues":
        return b.code
    before = [
        p
        for p in blocks(b.page)
        if p.number < b.number and p.mark in ("", "continues") and not is_fragment(p)
    ]
    return "\n".join(p.code for p in [*before, b])


def times(b: Block) -> int:
    """How often `b`'s script runs in one directory: twice for what a reader runs again (a block
    that stands alone, the last block of a page's continuing script), once for a prefix of that
    script (the whole script already runs twice)."""
    if b.mark == "continues" and any(p.number > b.number and p.mark == "continues" for p in blocks(b.page)):
        return 1
    return 2


def run_script(code: str, name: str, *, times: int = 2) -> tuple[int, str]:
    """Run `code` as `example.py` in a fresh temporary directory with a fresh interpreter, `times`
    times in that directory (and database): a reader runs a script again, and it must still work.
    The first failing run's exit code and output are returned, saying which run it was."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory(prefix="docs-") as tmp:
        path = Path(tmp, "example.py")
        path.write_text(code, encoding="utf-8")
        for run in range(1, times + 1):
            try:
                done = subprocess.run(
                    [sys.executable, str(path)],
                    cwd=tmp,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT,
                )
            except subprocess.TimeoutExpired:
                return -1, f"{name} did not finish in {TIMEOUT} s (run {run} of {times})"
            if done.returncode != 0 or run == times:
                return done.returncode, f"(run {run} of {times} in one directory)\n{done.stdout}{done.stderr}"
        raise AssertionError("unreachable")


def local_blocks() -> list[Block]:
    """The blocks that need no server and are not skipped."""
    return [b for page in PAGES for b in blocks(page) if b.mark in ("", "continues") and not is_fragment(b)]


@functools.cache
def local_results() -> dict[str, tuple[int, str]]:
    """Every local block run once, in parallel subprocesses (each waits on its own process)."""
    todo = local_blocks()
    with ThreadPoolExecutor(max(2, (os.cpu_count() or 2) * 2)) as pool:
        results = pool.map(lambda b: run_script(script(b), b.name, times=times(b)), todo)
        return {b.name: r for b, r in zip(todo, results, strict=True)}


@pytest.mark.parametrize("block", [pytest.param(b, id=b.name) for b in local_blocks()])
def test_block_runs_as_pasted(block: Block) -> None:
    """The block, pasted alone into a script (after the blocks it says it continues), runs."""
    rc, out = local_results()[block.name]
    assert rc == 0, f"the example at {block.name}, run as `python example.py`, failed:\n{out[-3000:]}"


def test_readme_fragments_are_still_there() -> None:
    """`README_FRAGMENTS` names blocks that exist: an edited README must be looked at again."""
    readme = blocks(ROOT / "README.md")
    for line in README_FRAGMENTS:
        assert any(line in b.code for b in readme), line


def test_every_guide_is_linked_from_the_readme() -> None:
    """The README lists every page under docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, page.name


def test_a_block_marked_continues_is_announced_by_its_page() -> None:
    """A page with blocks that continue earlier ones says so in its text."""
    for page in PAGES:
        if any(b.mark == "continues" for b in blocks(page)):
            assert "continue" in page.read_text(encoding="utf-8").split("<!-- docs-test: continues")[0], (
                page.name
            )


def server_blocks() -> list[Any]:
    """One test per block that needs a server."""
    return [
        pytest.param(b, id=f"{b.name}-{b.mark}") for page in PAGES for b in blocks(page) if b.mark in SERVERS
    ]


@pytest.mark.parametrize("block", server_blocks())
def test_server_example_runs(block: Block) -> None:
    """A block needing PostgreSQL or MySQL runs alone against the suite's server, in schemas or
    a database of its own, as the page tells the reader to set it up."""
    if block.mark == "postgres":
        require_postgres()
        _run_on_postgres(block)
    else:
        require_mysql()
        asyncio.run(_run_on_mysql(block))


def _run_on_postgres(b: Block) -> None:
    import asyncpg

    assert DOC_POSTGRES in b.code, f"{b.name} does not name {DOC_POSTGRES}"
    schemas = {m.group(1) or m.group(2) for m in SCHEMA.finditer(b.code)}
    fresh = {s: unique_name("docs") for s in schemas}
    code = b.code.replace(DOC_POSTGRES, POSTGRES_DSN)
    for old, new in fresh.items():
        code = code.replace(f'"{old}"', f'"{new}"').replace(f"?schema={old}", f"?schema={new}")
    try:
        rc, out = run_script(code, b.name, times=times(b))
        assert rc == 0, f"the example at {b.name} failed on PostgreSQL:\n{out[-3000:]}"
    finally:

        async def drop() -> None:
            conn = await asyncpg.connect(POSTGRES_DSN)
            try:
                for schema in fresh.values():
                    # The name is ours (unique_name), not user text; identifiers cannot be bound.
                    await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            finally:
                await conn.close()

        asyncio.run(drop())


async def _run_on_mysql(b: Block) -> None:
    assert DOC_MYSQL in b.code, f"{b.name} does not name {DOC_MYSQL}"
    text = b.page.read_text(encoding="utf-8")
    before = text[: text.index(b.code)]
    assert "CREATE DATABASE myapp" in before, (
        f"{b.name}: the page does not tell the reader to CREATE DATABASE myapp"
    )
    async with mysql_database() as dsn:  # CREATE DATABASE, as the page says, under a fresh name
        rc, out = await asyncio.to_thread(run_script, b.code.replace(DOC_MYSQL, dsn), b.name, times=times(b))
    assert rc == 0, f"the example at {b.name} failed on MySQL:\n{out[-3000:]}"


def test_every_guide_has_examples() -> None:
    """Each user guide shows runnable code (and every page parses: known markers only)."""
    for page in PAGES:
        blocks(page)
    for name in GUIDES:
        assert [b for b in blocks(ROOT / "docs" / name) if b.mark in ("", "continues")], name


def test_a_continuing_block_runs_after_the_blocks_it_continues(tmp_path: Path) -> None:
    """The harness itself: a block marked `continues` runs after its page's earlier blocks, a
    block without the marker runs alone, and a failing block reports its error."""
    page = tmp_path / "guide.md"
    page.write_text(
        "# t\n\n```python\nx = 1\n```\n\n<!-- docs-test: continues -->\n```python\nassert x == 1\n```\n\n"
        "```python\nprint(x)\n```\n",
        encoding="utf-8",
    )
    _first, second, third = blocks(page)
    assert second.mark == "continues"
    assert run_script(script(second), second.name)[0] == 0
    rc, out = run_script(script(third), third.name)
    assert rc != 0 and "NameError" in out and "run 1 of 2" in out


def test_a_block_that_runs_once_only_fails(tmp_path: Path) -> None:
    """The harness runs each block twice in one directory: a script that leaves behind what
    stops its second run (a file it creates exclusively, like a fixed run id) fails on run 2."""
    page = tmp_path / "guide.md"
    page.write_text("# t\n\n```python\nopen('made.txt', 'x').close()\n```\n", encoding="utf-8")
    (block,) = blocks(page)
    rc, out = run_script(script(block), block.name)
    assert rc != 0 and "FileExistsError" in out and "run 2 of 2" in out
