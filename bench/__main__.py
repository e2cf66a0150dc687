"""Dispatch ``python -m bench planner|coverage|engine [options]`` to the named benchmark.

Each benchmark module is imported only when asked for, so one benchmark's peers (Fast Downward,
langgraph, ...) are never loaded to run the other.
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "compat": "bench.compat",
    "coverage": "bench.coverage",
    "engine": "bench.engine",
    "memory": "bench.memory",
    "planner": "bench.planner",
    "scale": "bench.scale",
    "search": "bench.search_stress",
    "sleeping": "bench.sleeping",
    "strategies": "bench.strategies",
    "workers": "bench.workers",
}
"""Benchmark name -> module exposing ``main(argv: list[str]) -> int``."""


def main(argv: list[str]) -> int:
    """Run the benchmark named by ``argv[0]`` with the remaining arguments."""
    if not argv or argv[0] not in BENCHMARKS:
        names = "|".join(sorted(BENCHMARKS))
        print(f"usage: python -m bench {{{names}}} [options]", file=sys.stderr)
        return 2
    module = importlib.import_module(BENCHMARKS[argv[0]])
    result: int = module.main(argv[1:])
    return result


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
