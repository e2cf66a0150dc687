"""`CostAccumulator`: a LangChain callback counting cost, tokens and calls into the world state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

__all__ = ["DEFAULT_COST_PER_1K_TOKENS", "CostAccumulator"]

# USD per 1,000 tokens, (input, output), by model name (matched exactly, else the longest name
# contained in the model's, so dated variants such as "gpt-4o-mini-2024-07-18" are priced).
DEFAULT_COST_PER_1K_TOKENS: dict[str, tuple[float, float]] = {
    "claude-3-5-haiku": (0.001, 0.005), "claude-3-5-sonnet": (0.003, 0.015),
    "claude-3-opus": (0.015, 0.075), "claude-opus-4": (0.015, 0.075),
    "claude-sonnet-4": (0.003, 0.015), "gpt-4.1": (0.002, 0.008),
    "gpt-4.1-mini": (0.0004, 0.0016), "gpt-4.1-nano": (0.0001, 0.0004),
    "gpt-4o": (0.0025, 0.01), "gpt-4o-mini": (0.00015, 0.0006),
    "o1": (0.015, 0.06), "o1-mini": (0.003, 0.012), "o3-mini": (0.0011, 0.0044),
}  # fmt: skip
"""Default prices: USD per 1,000 (input, output) tokens by model name."""


def _usage(response: Any) -> tuple[int, int, str | None]:
    """(input tokens, output tokens, model) of an ``LLMResult`` (new or old usage fields)."""
    gens = getattr(response, "generations", None) or []
    msg: Any = getattr(gens[0][0], "message", None) if gens and gens[0] else None
    if getattr(msg, "usage_metadata", None):
        use, info, keys = msg.usage_metadata, msg.response_metadata or {}, ("input", "output")
    else:
        info = getattr(response, "llm_output", None) or {}
        use, keys = info.get("token_usage") or {}, ("prompt", "completion")
    model = info.get("model_name") or info.get("model")
    return int(use.get(keys[0] + "_tokens", 0)), int(use.get(keys[1] + "_tokens", 0)), model


class CostAccumulator(BaseCallbackHandler):
    """Adds each model call's cost, tokens and count into ``world_state`` (prices per 1,000 tokens)."""

    def __init__(self, world_state: dict[str, Any], *, cost_per_1k_tokens: Mapping[str, tuple[float, float]] | None = None, default_input_price: float = 0.0, default_output_price: float = 0.0) -> None:  # fmt: skip
        self.world_state = world_state
        self.prices = {**DEFAULT_COST_PER_1K_TOKENS, **dict(cost_per_1k_tokens or {})}
        self.fallback = (default_input_price, default_output_price)

    def price(self, model: str | None) -> tuple[float, float]:
        """USD per 1,000 (input, output) tokens for ``model``."""
        if not model:
            return self.fallback
        if model in self.prices:
            return self.prices[model]
        names = [k for k in self.prices if k in model]
        return self.prices[max(names, key=len)] if names else self.fallback

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Count one finished model call."""
        n_in, n_out, model = _usage(response)
        p_in, p_out = self.price(model)
        ws = self.world_state
        ws["total_cost_usd"] = float(ws.get("total_cost_usd", 0.0)) + (n_in * p_in + n_out * p_out) / 1000.0
        ws["total_tokens"] = int(ws.get("total_tokens", 0)) + n_in + n_out
        ws["llm_call_count"] = int(ws.get("llm_call_count", 0)) + 1
