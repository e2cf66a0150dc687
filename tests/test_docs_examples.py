"""Every fenced ```python block of the user guides (docs/*.md) and of README.md runs.

The blocks of one page run in order in one namespace, in a temporary working directory, the
way a reader pastes them into an async REPL: a block may use top-level `await` (it then runs
in `asyncio.run`), a block without one runs with no event loop (so the sync APIs it shows,
such as `graph.invoke` on a LangGraph checkpointer, run as they would in a script).

A block preceded by an HTML comment `<!-- docs-test: postgres -->` or `<!-- docs-test: mysql -->`
needs that server: it runs on its own (a fresh namespace), against the server the rest of the
suite uses (`db_servers`), with the schema or database `myapp` the page names replaced by a
fresh one, dropped afterwards; without the server it is skipped, and under CI=true it fails.
`<!-- docs-test: skip (hosted LLM) -->` skips a block that calls a hosted model; no other
reason to skip exists. README.md blocks that are fragments (they use names the reader
supplies) are listed in `README_FRAGMENTS` with what they lack.
"""

from __future__ import annotations

import ast
import asyncio
import re
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
MARKS = {"", "postgres", "mysql", "skip (hosted LLM)"}
DOC_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
"""The PostgreSQL URL the pages show; replaced by the suite's `POSTGRES_DSN`."""
DOC_MYSQL = "mysql://root@127.0.0.1:3306/myapp"
"""The MySQL URL the pages show; replaced by a fresh database on the suite's MySQL server."""
README_FRAGMENTS = {
    # first line of the block: what it lacks
    "from goap import ActionSpec, GoalSpec, GoapGraph, ge, add": "fetch_repo, and an event loop for await",
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
    return b.page.name == "README.md" and b.code.splitlines()[0] in README_FRAGMENTS


def execute(b: Block, ns: dict[str, Any], code: str | None = None) -> None:
    """Run the block's code in `ns`; top-level `await` makes it run in `asyncio.run`."""
    src = b.code if code is None else code
    # Pad with newlines so tracebacks give the line in the page.
    compiled = compile(
        "\n" * b.line + src, str(b.page), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
    )
    # eval of the repository's own documentation, never of stored data
    result = eval(compiled, ns)
    if asyncio.iscoroutine(result):
        asyncio.run(result)


def local_pages() -> list[Any]:
    """One test per page."""
    return [pytest.param(page, id=page.name) for page in PAGES]


def server_blocks() -> list[Any]:
    """One test per block that needs a server."""
    return [
        pytest.param(b, id=f"{b.name}-{b.mark}")
        for page in PAGES
        for b in blocks(page)
        if b.mark in ("postgres", "mysql")
    ]


@pytest.mark.parametrize("page", local_pages())
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's blocks that need no server run in order, sharing one namespace."""
    monkeypatch.chdir(tmp_path)
    ns: dict[str, Any] = {"__name__": "__docs__"}
    for b in blocks(page):
        if b.mark or is_fragment(b):
            continue
        try:
            execute(b, ns)
        except BaseException as exc:
            raise AssertionError(f"the example at {b.name} failed: {exc!r}") from exc


def test_readme_fragments_are_still_there() -> None:
    """`README_FRAGMENTS` names blocks that exist: an edited README must be looked at again."""
    firsts = {b.code.splitlines()[0] for b in blocks(ROOT / "README.md")}
    assert set(README_FRAGMENTS) <= firsts


def test_every_guide_is_linked_from_the_readme() -> None:
    """The README lists every page under docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, page.name


@pytest.mark.parametrize("block", server_blocks())
def test_server_example_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block needing PostgreSQL or MySQL runs against the suite's server, in a schema or
    database of its own."""
    monkeypatch.chdir(tmp_path)
    if block.mark == "postgres":
        require_postgres()
        _run_on_postgres(block)
    else:
        require_mysql()
        asyncio.run(_run_on_mysql(block))


def _run_on_postgres(b: Block) -> None:
    import asyncpg

    schema = unique_name("docs")
    code = b.code.replace(DOC_POSTGRES, POSTGRES_DSN).replace('"myapp"', f'"{schema}"')
    code = code.replace("?schema=myapp", f"?schema={schema}")
    assert code != b.code, f"{b.name} names neither {DOC_POSTGRES} nor the schema myapp"
    try:
        execute(b, {"__name__": "__docs__"}, code)
    finally:

        async def drop() -> None:
            conn = await asyncpg.connect(POSTGRES_DSN)
            try:
                # The name is ours (unique_name), not user text; identifiers cannot be bound.
                await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            finally:
                await conn.close()

        asyncio.run(drop())


async def _run_on_mysql(b: Block) -> None:
    assert DOC_MYSQL in b.code, f"{b.name} does not name {DOC_MYSQL}"
    async with mysql_database() as dsn:
        code = b.code.replace(DOC_MYSQL, dsn)
        # The block runs its own event loop (or none): run it on a thread, away from this one.
        await asyncio.to_thread(execute, b, {"__name__": "__docs__"}, code)


def test_every_guide_has_examples() -> None:
    """Each user guide shows runnable code (and every page parses: known markers only)."""
    for page in PAGES:
        blocks(page)
    for name in GUIDES:
        assert [b for b in blocks(ROOT / "docs" / name) if not b.mark], name


def test_a_failing_block_points_at_its_line_in_the_page(tmp_path: Path) -> None:
    """The harness itself: top-level await runs in a loop, a block without one runs with none,
    and an error's traceback names the page and the line of the block."""
    page = tmp_path / "guide.md"
    page.write_text(
        "# t\n\n```python\nimport asyncio\nawait asyncio.sleep(0)\nx = 1\n```\n\n"
        "```python\ntry:\n    asyncio.get_running_loop()\nexcept RuntimeError:\n    no_loop = True\n"
        "assert x == 2\n```\n",
        encoding="utf-8",
    )
    first, second = blocks(page)
    ns: dict[str, Any] = {}
    execute(first, ns)
    with pytest.raises(AssertionError) as info:
        execute(second, ns)
    assert ns["no_loop"] is True
    tb = info.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert (tb.tb_frame.f_code.co_filename, tb.tb_lineno) == (str(page), 14)
