"""LangGOAP CLI — standalone command-line interface.

``click`` is a core runtime dependency, so the ``langgoap`` entry
point is always wired up by a plain ``pip install langgoap``.

Ported from ``langgoap.cli`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations
