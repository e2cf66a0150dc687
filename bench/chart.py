"""Draw a committed benchmark table as an SVG bar chart: `python -m bench.chart [FIGURES] [OUT]`.

The figures are a JSON file under `bench/figures/` (by default `scale.json`, the table of
README.md's "Running at scale"); the drawing goes to `docs/img/` (`bench-scale.svg`). Written
by hand, without a plotting library: a panel per unit, a pair of bars per row (graphengine and
LangGraph) on a linear scale from zero, each bar labelled with its value. The output depends on
the figures only, so `tests/test_docs_drawings.py` can tell a stale chart from a fresh one.
"""

from __future__ import annotations

import json
import sys
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
FIGURES = ROOT / "bench" / "figures" / "scale.json"
OUT = ROOT / "docs" / "img" / "bench-scale.svg"
SERIES = (("graphengine", "#2f6fb0"), ("LangGraph", "#b0b0b0"))
"""The bars of a row, in order, with their colours."""
WIDTH, LEFT, RIGHT, BAR, GAP, ROW_GAP = 760, 20, 190, 16, 3, 34
"""Layout in pixels: chart width, margins, bar height, gap between bars and below a row."""


def _number(v: float) -> str:
    """`1,224` or `29.7`: thousands separated, one decimal only when the value has one."""
    return f"{v:,.1f}" if v != int(v) else f"{int(v):,}"


def render(figures: dict[str, Any]) -> str:
    """The SVG text for `figures` (see bench/figures/scale.json for the shape)."""
    out: list[str] = []
    y = 30
    plot = WIDTH - LEFT - RIGHT
    for panel in figures["panels"]:
        out.append(f'<text x="{LEFT}" y="{y}" font-weight="bold">{escape(panel["title"])}</text>')
        y += 14
        top = max(max(row[name] for name, _ in SERIES) for row in panel["rows"])
        for row in panel["rows"]:
            ratio = (
                row["LangGraph"] / row["graphengine"]
                if "time" in panel["title"].lower()
                else row["graphengine"] / row["LangGraph"]
            )
            y += 16
            title = f"{row['label']}: {ratio:.0f}x" if ratio >= 10 else f"{row['label']}: {ratio:.1f}x"
            if "peer" in row:
                title += f" (LangGraph with {row['peer']})"
            out.append(f'<text x="{LEFT}" y="{y}" font-size="12">{escape(title)}</text>')
            y += 6
            for name, colour in SERIES:
                w = max(1.0, plot * row[name] / top)
                label = f"{name} {_number(row[name])} {panel['unit']}"
                out.append(f'<rect x="{LEFT}" y="{y}" width="{w:.1f}" height="{BAR}" fill="{colour}"/>')
                out.append(
                    f'<text x="{LEFT + w + 6:.1f}" y="{y + BAR - 4}" font-size="11">{escape(label)}</text>'
                )
                y += BAR + GAP
        y += ROW_GAP
    out.append(f'<text x="{LEFT}" y="{y - 10}" font-size="10" fill="#555">{escape(figures["source"])}</text>')
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" viewBox="0 0 {WIDTH} {y}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="13">\n'
        f'<rect width="{WIDTH}" height="{y}" fill="white"/>\n'
    )
    return head + "\n".join(out) + "\n</svg>\n"


def main(argv: list[str]) -> int:
    """Write the chart of `argv[0]` (default `FIGURES`) to `argv[1]` (default `OUT`)."""
    src = Path(argv[0]) if argv else FIGURES
    dst = Path(argv[1]) if len(argv) > 1 else OUT
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(render(json.loads(src.read_text(encoding="utf-8"))), encoding="utf-8")
    print(dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
