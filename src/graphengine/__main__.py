"""`python -m graphengine` and the `graphengine` console script (see `graphengine.cli`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .cli import main as _cli_main

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `graphengine` command and return its exit code."""
    return _cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
