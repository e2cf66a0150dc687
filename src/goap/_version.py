"""`goap.__version__`: goap ships in the `graphengine` distribution, so its version is that one.

Read by `graphengine._version` (one implementation; see there why a source tree reads
pyproject.toml). `goap` resolves `__version__` on first use, so `import goap` and `python -m goap
plan` do not load the engine for it.
"""

from __future__ import annotations

from graphengine import __version__

__all__ = ["__version__"]
