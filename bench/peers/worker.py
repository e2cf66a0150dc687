"""Run one peer once on one problem and print its :class:`~bench.peers.Outcome` as JSON.

    python -m bench.peers.worker PEER PROBLEM.json WORKDIR

The last stdout line is the JSON outcome; everything else a planner prints goes to stderr or is
captured by its runner. Any exception becomes an ``"error"`` outcome, so the parent process only
has to deal with a worker that never answers (killed at the time limit).
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

from bench.peers import Outcome, runner


def main(argv: list[str]) -> int:
    """Entry point; returns the process exit code (0 unless the arguments are wrong)."""
    if len(argv) != 3:
        print("usage: python -m bench.peers.worker PEER PROBLEM.json WORKDIR", file=sys.stderr)
        return 2
    name, problem, workdir = argv
    # Planners that print (pyperplan's logging, langgoap's warnings) must not corrupt the answer.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        outcome = runner(name)(Path(problem), Path(workdir))
    except Exception as exc:
        traceback.print_exc()
        outcome = Outcome("error", note=f"{type(exc).__name__}: {exc}"[:300])
    finally:
        sys.stdout = real_stdout
    print(json.dumps(outcome.to_json()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
