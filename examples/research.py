"""A small research workflow: plan -> retrieve -> answer -> judge, looping until judged good.

Runs on the embedded default store (SQLite, a real file) and prints every committed step.
Retrieval is a keyword search over a tiny built-in corpus so the demo needs no network or model;
swap `retrieve` and `answer` for real tools and the graph stays the same.

    python -m examples.research [--db PATH] [--run-id ID] [--question TEXT] [--otel]

`--otel` (or GRAPHENGINE_OTEL=console, what `make demo OTEL=1` sets) also prints the run's
OpenTelemetry spans to the console.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import time
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, append, goto, stop
from graphengine.emit import Emitter, LogEmitter, MultiEmitter, OTelEmitter
from graphengine.store import SQLiteStore

CORPUS: dict[str, str] = {
    "wal": "SQLite write-ahead logging (WAL) lets readers proceed while a writer appends to the log.",
    "fsync": "A commit is durable once the log is synced; synchronous=NORMAL in WAL mode syncs at checkpoints.",
    "astar": "A* search expands nodes in order of cost so far plus an admissible heuristic estimate.",
    "lmcut": "The LM-cut heuristic computes disjunctive action landmarks and is admissible.",
    "replay": "Deterministic replay re-executes a run against recorded inputs and compares each step.",
    "crash": "After a crash, resume continues from the last committed step; committed steps never rerun.",
    "reducer": "A reducer merges a node's delta into the state without mutating either value.",
}

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "to",
        "in",
        "on",
        "is",
        "are",
        "what",
        "how",
        "does",
        "do",
        "why",
        "with",
        "for",
        "after",
        "work",
        "works",
    ]
)


class Research(BaseModel):
    """State of one research run."""

    question: str
    queries: list[str] = []
    docs: Annotated[list[str], append] = []
    answer: str = ""
    verdict: str = ""
    rounds: int = 0


def keywords(text: str) -> list[str]:
    """Lower-case content words of `text`, in order, without repeats."""
    seen: dict[str, None] = {}
    for w in re.findall(r"[a-z0-9*]+", text.lower()):
        if w not in STOPWORDS and len(w) > 2:
            seen.setdefault(w, None)
    return list(seen)


async def plan(ctx: Context, s: Research) -> NodeResult[Research]:
    """Turn the question into search queries; widen them on later rounds."""
    words = keywords(s.question)
    # A cheap first round searches the two leading keywords; each later round adds two more.
    queries = words[: 2 * (s.rounds + 1)]
    return NodeResult(delta=Research(question=s.question, queries=queries, rounds=s.rounds + 1))


async def retrieve(ctx: Context, s: Research) -> NodeResult[Research]:
    """Fetch corpus entries matching any query word that were not fetched before."""
    wanted = {w for q in s.queries for w in q.split()}
    new = [
        key
        for key, text in CORPUS.items()
        if key not in s.docs and (key in wanted or wanted & set(keywords(text)))
    ]
    return NodeResult(delta=Research(question=s.question, docs=new))


def answer(ctx: Context, s: Research) -> NodeResult[Research]:
    """Compose an answer from the retrieved documents (a sync node)."""
    text = " ".join(f"[{k}] {CORPUS[k]}" for k in s.docs) or "No source found."
    return NodeResult(delta=Research(question=s.question, answer=text))


def judge(ctx: Context, s: Research) -> NodeResult[Research]:
    """Accept the answer when it covers every keyword of the question, else plan again (3 rounds max)."""
    missing = [w for w in keywords(s.question) if w not in s.answer.lower()]
    if not missing:
        return NodeResult(delta=Research(question=s.question, verdict="good"), route=stop())
    if s.rounds >= 3:
        verdict = "gave up; not covered: " + ", ".join(missing)
        return NodeResult(delta=Research(question=s.question, verdict=verdict), route=stop())
    return NodeResult(
        delta=Research(question=s.question, verdict="missing " + ", ".join(missing)), route=goto("plan")
    )


def build(store: SQLiteStore, *, verbose: bool = False, emitter: Emitter | None = None) -> Engine[Research]:
    """The research graph: plan -> retrieve -> answer -> judge (-> plan ...)."""
    emitters = ([LogEmitter()] if verbose else []) + ([emitter] if emitter is not None else [])
    g = Engine(
        Research,
        store=store,
        emitter=MultiEmitter(emitters) if emitters else None,
        options=Options(max_steps=50),
    )
    g.add("plan", plan).add("retrieve", retrieve).add("answer", answer).add("judge", judge)
    g.start_at("plan")
    g.connect("plan", "retrieve").connect("retrieve", "answer").connect("answer", "judge")
    return g


async def main(argv: list[str] | None = None) -> Research:
    """Run (or resume) one research run on SQLite and print its steps."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--db", default=".demo/research.db", help="SQLite file (created if missing)")
    p.add_argument("--run-id", default=f"research-{int(time.time())}")
    p.add_argument("--question", default="How does replay work after a crash with WAL and fsync?")
    p.add_argument("-v", "--verbose", action="store_true", help="log every event")
    p.add_argument("--otel", action="store_true", help="print OpenTelemetry spans to the console")
    args = p.parse_args(argv)
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    async with SQLiteStore(args.db) as store:
        otel = args.otel or os.environ.get("GRAPHENGINE_OTEL") == "console"
        g = build(store, verbose=args.verbose, emitter=OTelEmitter.console() if otel else None)
        known = await store.get_run(args.run_id)
        final = await (
            g.resume(args.run_id) if known else g.run(args.run_id, Research(question=args.question))
        )
        print(f"run {args.run_id!r} on {args.db} ({'resumed' if known else 'new'}): {final.verdict}")
        for v in await g.history(args.run_id):
            delta = v.delta.model_dump(exclude_unset=True, exclude={"question"}) if v.delta else {}
            shown = {
                k: (val[:50] + "..." if isinstance(val, str) and len(val) > 50 else val)
                for k, val in delta.items()
            }
            print(f"  step {v.step:2d}  {v.node_id:<8} -> {v.route!r:<16} {shown}")
        print(f"answer: {final.answer}")
        return final


if __name__ == "__main__":
    asyncio.run(main())
