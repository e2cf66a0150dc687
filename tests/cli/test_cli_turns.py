"""`graphengine continue` and `graphengine update-state`, in real processes on a real SQLite file,
against LangGraph running the same chat natively."""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
from cli_app import STORE, child_path, cli
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

CHAT_APP = '''
"""A chat for the CLI turn tests: answer, then review."""
from typing import Annotated
from pydantic import BaseModel
from graphengine import Engine, NodeResult, append


class Chat(BaseModel):
    messages: Annotated[list[str], append] = []


def build(store):
    g = Engine(Chat, store=store)
    g.add("answer", lambda ctx, s: NodeResult(delta=Chat(messages=[f"re: {s.messages[-1]} ({len(s.messages)})"])))
    g.add("review", lambda ctx, s: NodeResult(delta=Chat(messages=["ok" if len(s.messages[-1]) < 16 else "long"])))
    return g.start_at("answer").connect("answer", "review")
'''


class LgChat(TypedDict):
    """LangGraph's state of the same chat."""

    messages: Annotated[list[str], operator.add]


def langgraph_chat() -> Any:
    """The chat of CHAT_APP written in LangGraph."""
    b = StateGraph(LgChat)
    b.add_node("answer", lambda s: {"messages": [f"re: {s['messages'][-1]} ({len(s['messages'])})"]})
    b.add_node("review", lambda s: {"messages": ["ok" if len(s["messages"][-1]) < 16 else "long"]})
    b.add_edge(START, "answer")
    b.add_edge("answer", "review")
    b.add_edge("review", END)
    return b.compile(checkpointer=InMemorySaver())


CONFIG: Any = {"configurable": {"thread_id": "c1"}}


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """chatapp.py and runs.db holding run 'c1' after its first turn ("hi")."""
    (tmp_path / "chatapp.py").write_text(CHAT_APP)
    code = (
        "import asyncio, chatapp\n"
        "from graphengine.store import SQLiteStore\n"
        "async def main():\n"
        "    async with SQLiteStore('runs.db') as s:\n"
        "        await chatapp.build(s).run('c1', chatapp.Chat(messages=['hi']))\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "PYTHONPATH": child_path(tmp_path)}
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True, timeout=60)
    return tmp_path


def test_continue_takes_turns_with_langgraphs_messages(app: Path) -> None:
    """`continue MODULE:ENGINE RUN --input JSON` is LangGraph's next invoke: the same messages after each turn."""
    lg = langgraph_chat()
    lg.invoke({"messages": ["hi"]}, CONFIG)
    for text in ["how are you", "bye"]:
        want = lg.invoke({"messages": [text]}, CONFIG)["messages"]
        turn = json.dumps({"messages": [text]})
        out = cli(app, "continue", "chatapp:build", "c1", STORE, "--input", turn, "--json")
        assert out.returncode == 0, out.stderr
        doc = json.loads(out.stdout)
        assert doc["status"] == "done" and doc["state"]["messages"] == want
    plain = cli(app, "continue", "chatapp:build", "c1", STORE, "--input", '{"messages": ["x"]}')
    assert plain.returncode == 0 and plain.stdout.startswith("run c1: done")


def test_update_state_as_a_node_then_resume_as_langgraph(app: Path) -> None:
    """`update-state --values JSON --as-node answer` waits before review, as LangGraph's next; resume runs it as invoke(None)."""
    lg = langgraph_chat()
    lg.invoke({"messages": ["hi"]}, CONFIG)
    edit = {"messages": ["an edit that is rather long"]}
    lg.update_state(CONFIG, edit, as_node="answer")
    out = cli(
        app, "update-state", "chatapp:build", "c1", STORE, "--values", json.dumps(edit), "--as-node", "answer"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == ["run c1: interrupted", "waiting before review"]
    native = lg.get_state(CONFIG)
    assert native.next == ("review",)
    shown = json.loads(cli(app, "show", "c1", STORE, "--step", "3").stdout)
    assert shown["messages"] == native.values["messages"]
    done = json.loads(cli(app, "resume", "chatapp:build", "c1", STORE, "--json").stdout)
    assert done["state"]["messages"] == lg.invoke(None, CONFIG)["messages"]


BAD = [
    (("continue", "chatapp:build", "c1", STORE, "--input", '["hi"]'), "--input must be a JSON object"),
    (("continue", "chatapp:build", "c1", STORE, "--input", "{bad"), "--input is not JSON"),
    (("continue", "chatapp:build", "nope", STORE, "--input", "{}"), "nope"),
    (("update-state", "chatapp:build", "c1", STORE, "--values", "{}", "--as-node", "who"), "who"),
    (("update-state", "chatapp:build", "c1", STORE, "--values", '{"messages": 3}'), "messages"),
]


def test_bad_turns_and_edits_are_one_line_exit_2(app: Path) -> None:
    """A malformed input, an unknown run or node, or values of the wrong type: exit 2, one line naming it, nothing written."""
    for args, says in BAD:
        out = cli(app, *args)
        assert out.returncode == 2, out.stdout + out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and says in out.stderr, args
    hist = json.loads(cli(app, "history", "c1", STORE, "--json").stdout)
    assert [h["node_id"] for h in hist] == ["answer", "review"]
