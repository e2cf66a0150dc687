"""Type stub of the optional C accelerator of LM-cut (built from ``goap/_lmcut.c``)."""

from collections.abc import Sequence
from typing import final

@final
class Core:
    """LM-cut over a relaxed task given as integer arrays (see :mod:`goap.planning.heuristics.lmcut`).

    Bad input raises ``TypeError``/``ValueError``. ``__init__`` runs once (a second or re-entrant
    call raises ``RuntimeError``; after a failed one the methods raise ``RuntimeError`` until it
    succeeds). The methods hold the GIL throughout, so one ``Core`` may be shared by threads.
    """

    def __init__(
        self,
        nfacts: int,
        pres: Sequence[Sequence[int]],
        effs: Sequence[Sequence[int]],
        costs: Sequence[float],
        goal: int,
        top: int,
        varinfo: Sequence[tuple[int, int, int]],
        relaxed_of: Sequence[int],
        integral: bool,
        impossible: bool,
        numeric: bool,
    ) -> None: ...
    def evaluate(self, state: object, inherited: bytes | tuple[()], /) -> tuple[float, bytes]:
        """LM-cut of a packed state from inherited landmarks: (h, all landmarks).

        ``ValueError`` for a state outside the task's encoding or landmarks this Core did not
        produce (including ones that would take an operator's cost below zero).
        """
    def inherit(self, landmarks: bytes, op_index: int, /) -> bytes:
        """The landmarks that do not contain the compiled operator ``op_index``."""
    def value(self, state: object, /) -> float:
        """LM-cut of a packed state from scratch."""
    def decode(self, landmarks: bytes, /) -> list[tuple[list[int], float]]:
        """The landmarks as (relaxed operator ids, cost) pairs."""
