"""Draw a chat's turns in LangGraph and in graphengine as an SVG: `python -m bench.turns_chart [OUT]`.

The drawing (`docs/img/langgraph-turns.svg`, shown in docs/langgraph.md) is made from real runs:
the chat of the page ("A chat that goes on": one node appending an answer) is invoked three
times on one LangGraph thread (in-memory checkpointer) and run, then continued twice, on the
engine. One column per turn: above, the thread's checkpoints (`get_state_history`: step, source,
what runs next); below, the run's committed steps (`history`: step, node, turn); each box says
how many messages the state holds there. The two conversations are checked equal before
anything is drawn. Written by hand like `bench.chart`, and as it, the output depends on the runs
only, so `tests/test_docs_drawings.py` tells a stale drawing from a fresh one.
"""

from __future__ import annotations

import asyncio
import operator
import sys
from html import escape
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel
from typing_extensions import TypedDict

ROOT = Path(__file__).parents[1]
OUT = ROOT / "docs" / "img" / "langgraph-turns.svg"
TURNS = ("hello", "how are you?", "bye")
"""The messages of the three turns."""
COL, BOX_W, BOX_H, GAP, LEFT, TOP = 250, 76, 58, 6, 20, 76
"""Layout in pixels: turn column width, box size, gap between boxes, left margin, first lane's top."""
COLOURS = {"langgraph": "#e4e4e4", "engine": "#d3e3f3", "input": "#f6e3b4"}


class LgTalk(TypedDict):
    """LangGraph's state of the same chat."""

    messages: Annotated[list[str], operator.add]


def _reply(messages: list[str]) -> list[str]:
    return [f"you said {messages[-1]!r}"]


async def figures() -> dict[str, Any]:
    """Run the chat on both and return, per turn, the boxes of each lane (see the module docstring)."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    from graphengine import Engine, NodeResult
    from graphengine.reducer import append

    class Chat(BaseModel):
        messages: Annotated[list[str], append] = []

    b = StateGraph(LgTalk)
    b.add_node("answer", lambda s: {"messages": _reply(s["messages"])})
    b.add_edge(START, "answer")
    lg = b.compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "thread-1"}}
    chat = Engine(Chat).add("answer", lambda ctx, s: NodeResult(delta=Chat(messages=_reply(s.messages))))
    chat.start_at("answer")
    for i, text in enumerate(TURNS):
        native = (await lg.ainvoke({"messages": [text]}, config))["messages"]
        go = chat.run if i == 0 else chat.continue_run
        ours = (await go("thread-1", Chat(messages=[text]))).messages
        if ours != native:
            raise AssertionError(f"turn {i}: engine {ours} != LangGraph {native}")
    turns: list[dict[str, Any]] = [{"text": t, "langgraph": [], "engine": []} for t in TURNS]
    turn = -1
    async for cp in _oldest_first(lg.aget_state_history(config)):
        turn += cp.metadata["source"] == "input"
        nxt = ",".join(n.strip("_") for n in cp.next) or "end"
        turns[turn]["langgraph"].append(
            {
                "label": f"step {cp.metadata['step']}",
                "what": [cp.metadata["source"], f"next: {nxt}"],
                "n": len(cp.values.get("messages", [])),
            }
        )
    for view in await chat.history("thread-1"):
        node = "input" if view.node_id.startswith("__") else view.node_id
        turns[view.turn]["engine"].append(
            {"label": f"step {view.step}", "what": [node, f"turn {view.turn}"], "n": len(view.state.messages)}
        )
    return {"turns": turns}


async def _oldest_first(history: Any) -> Any:
    items = [cp async for cp in history]
    for cp in reversed(items):
        yield cp


def _box(x: float, y: float, box: dict[str, Any], fill: str) -> list[str]:
    lines = [box["label"], *box["what"], f"messages: {box['n']}"]
    out = [
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" height="{BOX_H}" rx="6" fill="{fill}" stroke="#777"/>'
    ]
    for k, text in enumerate(lines):
        weight = ' font-weight="bold"' if k == 0 else ""
        out.append(
            f'<text x="{x + 6:.0f}" y="{y + 14 + 12 * k:.0f}" font-size="10"{weight}>{escape(text)}</text>'
        )
    return out


def render(figs: dict[str, Any]) -> str:
    """The SVG text for `figs` (what `figures()` returns)."""
    out: list[str] = []
    lanes = (
        (
            "langgraph",
            "LangGraph: the thread's checkpoints (get_state_history)",
            lambda i: "invoke(input, config)",
        ),
        (
            "engine",
            "graphengine: the run's steps, one history (history)",
            lambda i: "run(id, input)" if i == 0 else "continue_run(id, input)",
        ),
    )
    lane_h = BOX_H + 50
    for i, turn in enumerate(figs["turns"]):
        out.append(
            f'<text x="{LEFT + i * COL}" y="{TOP - 44}" font-size="12">turn {i}: {escape(repr(turn["text"]))}</text>'
        )
    for k, (lane, title, call) in enumerate(lanes):
        top = TOP + 10 + k * lane_h
        out.append(
            f'<text x="{LEFT}" y="{top - 22}" font-weight="bold" font-size="12">{escape(title)}</text>'
        )
        for i, turn in enumerate(figs["turns"]):
            x0 = LEFT + i * COL
            out.append(f'<text x="{x0}" y="{top - 6}" font-size="10" fill="#444">{escape(call(i))}</text>')
            for j, box in enumerate(turn[lane]):
                fill = COLOURS["input"] if "input" in box["what"] else COLOURS[lane]
                out += _box(x0 + j * (BOX_W + GAP), top, box, fill)
    height = TOP + 10 + len(lanes) * lane_h - 10
    for i in range(1, len(figs["turns"])):
        x = LEFT + i * COL - 8
        out.append(
            f'<line x1="{x}" y1="{TOP - 56}" x2="{x}" y2="{height - 18}" stroke="#bbb" stroke-dasharray="4 3"/>'
        )
    width = LEFT * 2 + len(figs["turns"]) * COL
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">'
    )
    legend = (
        f'<text x="{LEFT}" y="{height - 4}" font-size="10" fill="#444">'
        "Yellow: where a turn's input enters (LangGraph's input checkpoint, the engine's input step). "
        "The same messages after every turn.</text>"
    )
    return "\n".join([head, '<rect width="100%" height="100%" fill="white"/>', *out, legend, "</svg>"]) + "\n"


def main(argv: list[str]) -> None:
    """Write the drawing to `argv[0]` (default `OUT`)."""
    out = Path(argv[0]) if argv else OUT
    out.write_text(render(asyncio.run(figures())), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
