"""An LLM agent on the engine: plan -> retrieve -> answer -> judge, every model call recorded.

Points at any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio) with `--base-url`,
or at a local Ollama with `--ollama`. With neither it runs offline on a scripted model, so the
example works on any machine. Model answers are recorded with each step (`ctx.call`), so the run
replays without the model.

    python -m examples.agent [--base-url URL --model NAME] [--ollama URL] [--db PATH]

The API key, if needed, is read from $OPENAI_API_KEY and never written to the store or logs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, goto, stop
from graphengine.emit import Emitter
from graphengine.models import ChatModel, ChatOut, Message, ToolCall, chat
from graphengine.models.testing import ScriptedChatModel
from graphengine.store import SQLiteStore, Store
from graphengine.tools import run_tool_calls, tool

CORPUS = {
    "goap": "GOAP plans sequences of actions toward a goal.",
    "a*": "A* finds least-cost paths with an admissible heuristic.",
}


@tool
def search(query: str) -> list[str]:
    """Look up documents matching a query."""
    return [doc for key, doc in CORPUS.items() if key in query.lower()]


class Agent(BaseModel):
    """State of the agent."""

    question: str = ""
    plan: list[str] = []
    docs: list[str] = []
    answer: str = ""
    verdict: str = ""
    rounds: int = 0


def build(model: ChatModel, store: Store, emitter: Emitter | None = None) -> Engine[Agent]:
    """The plan -> retrieve -> answer -> judge workflow over any ChatModel."""

    async def plan(ctx: Context, s: Agent) -> NodeResult[Agent]:
        out = await chat(
            ctx, model, [Message.system("List search queries, one per line."), Message.user(s.question)]
        )
        return NodeResult(delta=Agent(plan=[q.strip() for q in out.text.splitlines() if q.strip()]))

    async def retrieve(ctx: Context, s: Agent) -> NodeResult[Agent]:
        out = await chat(
            ctx,
            model,
            [Message.system("Call search for each query."), Message.user("\n".join(s.plan))],
            [search.spec],
        )
        results = await run_tool_calls(ctx, [search], out.tool_calls)
        docs = [d for m in results for d in json.loads(m.content or "[]") if isinstance(d, str)]
        return NodeResult(delta=Agent(docs=docs))

    async def answer(ctx: Context, s: Agent) -> NodeResult[Agent]:
        msgs = [
            Message.system("Answer from the documents."),
            Message.user(s.question + "\n" + "\n".join(s.docs)),
        ]
        if s.verdict:
            msgs.append(Message.user(f"Your previous answer was judged: {s.verdict}"))
        out = await chat(ctx, model, msgs)
        return NodeResult(delta=Agent(answer=out.text, rounds=s.rounds + 1))

    async def judge(ctx: Context, s: Agent) -> NodeResult[Agent]:
        out = await chat(ctx, model, [Message.system("Reply PASS or FAIL: reason."), Message.user(s.answer)])
        verdict = out.text.strip()
        return NodeResult(
            delta=Agent(verdict=verdict),
            route=stop() if verdict.startswith("PASS") or s.rounds >= 3 else goto("answer"),
        )

    eng = Engine(Agent, store=store, emitter=emitter)
    for name, fn in (("plan", plan), ("retrieve", retrieve), ("answer", answer), ("judge", judge)):
        eng.add(name, fn)
    eng.start_at("plan").connect("plan", "retrieve").connect("retrieve", "answer").connect("answer", "judge")
    return eng


SCRIPT: tuple[str | ChatOut, ...] = (
    "goap\nA* search",
    ChatOut(
        tool_calls=(
            ToolCall(id="c1", name="search", arguments={"query": "goap"}),
            ToolCall(id="c2", name="search", arguments={"query": "A* search"}),
        )
    ),
    "GOAP uses A*.",
    "FAIL: too short",
    "GOAP plans action sequences toward a goal, searching them with A*, least cost first.",
    "PASS",
)
"""The demo's replies, one per model call in order: plan the queries, call the search tool,
answer too briefly, be judged short, answer again, pass."""

ANSWER = SCRIPT[4]
"""The answer the judge passes."""


def scripted() -> ScriptedChatModel:
    """An offline model answering the demo question (one reply per call, in order)."""
    return ScriptedChatModel(*SCRIPT)


def model_from(args: argparse.Namespace) -> ChatModel:
    """The model the flags ask for."""
    if args.ollama:
        from graphengine.models import OllamaChatModel

        return OllamaChatModel(args.model, base_url=args.ollama)
    if args.base_url:
        from graphengine.models import OpenAIChatModel

        return OpenAIChatModel(args.model, base_url=args.base_url, api_key=os.environ.get("OPENAI_API_KEY"))
    return scripted()


async def main(argv: list[str] | None = None) -> Agent:
    """Run the agent on SQLite, print its steps, then replay it without the model."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--ollama", help="Ollama endpoint, e.g. http://127.0.0.1:11434")
    p.add_argument("--model", default="gpt-4o-mini")
    p.add_argument("--db", default=".demo/agent.db")
    p.add_argument("--run-id", default=f"agent-{int(time.time())}")
    p.add_argument("--question", default="How does GOAP plan?")
    args = p.parse_args(argv)
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    async with SQLiteStore(args.db) as store:
        eng = build(model_from(args), store)
        final = await eng.run(args.run_id, Agent(question=args.question))
        for v in await eng.history(args.run_id):
            print(f"  step {v.step}  {v.node_id:<8} -> {v.route!r}")
        print(f"answer ({final.rounds} round(s), {final.verdict}): {final.answer}")
        print(f"replay without the model: {await eng.replay(args.run_id)}")
        return final


if __name__ == "__main__":
    asyncio.run(main())
