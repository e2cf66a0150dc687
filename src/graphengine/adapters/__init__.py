"""Adapters between graphengine and other graph runtimes.

Each adapter lives in its own module and imports its runtime there, on first use, so
`import graphengine` (and this package) works with only the core dependencies installed:

- `graphengine.adapters.langgraph`: `to_langgraph(engine)` (an engine as a compiled LangGraph
  graph) and `from_langgraph(state_graph)` (a LangGraph `StateGraph` as an engine).
- `graphengine.adapters.langgraph_saver`: `GraphEngineSaver(table)`, a LangGraph checkpointer
  on graphengine's storage (`graphengine.adapters.langgraph_tables`).

Both need the `langgraph` extra: `pip install 'graphengine[langgraph]'`.
"""

__all__: list[str] = []
