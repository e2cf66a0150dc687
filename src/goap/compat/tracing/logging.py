"""goap.runtime's logging tracer, answering LangGOAP's extra hooks too, on ``goap.compat.tracing``."""

from __future__ import annotations

import logging as _logging

from goap.compat.tracing._protocol import EXTRA_HOOKS
from goap.runtime import LoggingTracer as _RuntimeLoggingTracer

__all__ = ["LoggingTracer"]


class LoggingTracer(_RuntimeLoggingTracer):
    """Logs every hook (search events included) at INFO on the ``goap.compat.tracing`` logger."""

    hooks = _RuntimeLoggingTracer.hooks | frozenset(EXTRA_HOOKS)

    def __init__(
        self, logger: _logging.Logger | str = "goap.compat.tracing", level: int = _logging.INFO
    ) -> None:
        super().__init__(logger, level)
