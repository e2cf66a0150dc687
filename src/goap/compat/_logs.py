"""Loggers of the compat layer, named as langgoap's so logging set up for langgoap keeps working."""

from __future__ import annotations

import logging

__all__ = ["ROOT_LOGGER", "get_logger"]

ROOT_LOGGER = "langgoap"
"""The name of the compat layer's root logger (langgoap's)."""


def get_logger(module: str) -> logging.Logger:
    """The logger of compat module ``module`` (``goap.compat.x.y`` logs as ``langgoap.x.y``)."""
    return logging.getLogger(ROOT_LOGGER + module.removeprefix("goap.compat"))
