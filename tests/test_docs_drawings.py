"""The graph drawings in README.md and docs/*.md are the real graphs' `to_mermaid()`, up to date.

A drawing is a ```mermaid block after the marker `<!-- drawing: NAME -->`; `DRAWINGS` builds the
graph each NAME draws, from the code the page shows (its blocks are run to get the engine) or
from `examples/`. A stale drawing fails with the fresh one in the message;
`GRAPHENGINE_UPDATE_DRAWINGS=1 pytest tests/test_docs_drawings.py` rewrites them in place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphengine import Engine
from graphengine.store import MemoryStore

ROOT = Path(__file__).parents[1]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
DRAWING = re.compile(r"<!-- drawing: (?P<name>[\w-]+) -->\n```mermaid\n(?P<body>.*?)```\n", re.S)
PYTHON = re.compile(r"^```python\n(?P<code>.*?)^```", re.S | re.M)


def _page_block(page: str, number: int, stop_at: str | None = None) -> dict[str, Any]:
    """Run block `number` (1-based) of `page` up to the line starting with `stop_at`; its names."""
    code = PYTHON.findall((ROOT / page).read_text(encoding="utf-8"))[number - 1]
    if stop_at is not None:
        code = code[: code.index(stop_at)]
    ns: dict[str, Any] = {"__name__": "__drawing__"}
    # exec of the repository's own documentation, never of stored data
    exec(compile(code, page, "exec"), ns)
    return ns


def quickstart() -> Engine[Any]:
    """The README's Quick start graph, built by the README's own code (up to the run)."""
    return _page_block("README.md", 1, stop_at="run_id =")["g"]


def production_job() -> Engine[Any]:
    """The graph docs/production.md's examples share (`build`)."""
    return _page_block("docs/production.md", 1)["build"](MemoryStore())


def goap_runtime() -> Engine[Any]:
    """The GOAP runtime: the engine graph every `GoapGraph` runs on (examples/release.py's)."""
    from examples.release import ENGINE

    return ENGINE


def research() -> Engine[Any]:
    """examples/research.py: plan, retrieve, answer, judge."""
    from examples.research import build

    return build(MemoryStore())  # type: ignore[arg-type]


DRAWINGS: dict[str, Callable[[], Engine[Any]]] = {
    "quickstart": quickstart,
    "production-job": production_job,
    "goap-runtime": goap_runtime,
    "research": research,
}


def drawings(page: Path) -> list[tuple[str, str]]:
    """The (name, mermaid text) drawings of `page`, in order."""
    return [(m["name"], m["body"]) for m in DRAWING.finditer(page.read_text(encoding="utf-8"))]


def fresh(name: str, tmp: Path) -> str:
    """The drawing `name` as the code draws it now."""
    cwd = Path.cwd()
    os.chdir(tmp)  # a page's block may open a SQLite file: not in the repository
    try:
        text = DRAWINGS[name]().to_mermaid()
    finally:
        os.chdir(cwd)
    return text if text.endswith("\n") else text + "\n"


@pytest.mark.parametrize("page", [pytest.param(p, id=p.name) for p in PAGES])
def test_drawings_are_the_graphs_of_today(page: Path, tmp_path: Path) -> None:
    """Each drawing on the page equals `to_mermaid()` of the graph it names."""
    text = page.read_text(encoding="utf-8")
    stale = []
    for name, body in drawings(page):
        assert name in DRAWINGS, f"{page.name}: unknown drawing {name!r}; known: {sorted(DRAWINGS)}"
        now = fresh(name, tmp_path)
        if body != now:
            stale.append((name, now))
            text = text.replace(
                f"<!-- drawing: {name} -->\n```mermaid\n{body}```",
                f"<!-- drawing: {name} -->\n```mermaid\n{now}```",
            )
    if stale and os.environ.get("GRAPHENGINE_UPDATE_DRAWINGS") == "1":
        page.write_text(text, encoding="utf-8")
        return
    assert not stale, (
        f"{page.name}: stale drawing(s) {[n for n, _ in stale]}; rerun with GRAPHENGINE_UPDATE_DRAWINGS=1. Now:\n"
        + "\n".join(now for _, now in stale)
    )


def test_the_readme_and_guides_show_drawings() -> None:
    """The README and the production and LangGOAP guides each show at least one graph drawing."""
    for page in ("README.md", "docs/production.md", "docs/langgoap.md"):
        assert drawings(ROOT / page), page


def test_the_benchmark_chart_is_drawn_from_the_committed_figures() -> None:
    """docs/img/bench-scale.svg is what bench/chart.py draws from bench/figures/scale.json, and
    those figures are the ones of the README's table."""
    import json

    from bench.chart import FIGURES, OUT, render

    figures = json.loads(FIGURES.read_text(encoding="utf-8"))
    assert OUT.read_text(encoding="utf-8") == render(figures), "stale chart: run python -m bench.chart"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/img/bench-scale.svg" in readme
    for panel in figures["panels"]:
        for row in panel["rows"]:
            line = next(ln for ln in readme.splitlines() if ln.startswith(f"| {row['label']} |"))
            for name in ("graphengine", "LangGraph"):
                v = row[name]
                shown = f"{v:,.1f}" if v != int(v) else f"{int(v):,}"
                assert f"{shown} {panel['unit']}" in line, (row["label"], name, line)


def test_every_picture_the_docs_show_is_committed() -> None:
    """Each docs/img/ file a page links to exists (the screenshots come from the browser test)."""
    for page in PAGES:
        for target in re.findall(r"\]\((?:\.\./)?(docs/img/[^)]+)\)", page.read_text(encoding="utf-8")):
            assert (ROOT / target).is_file(), f"{page.name} shows {target}, which is not committed"
