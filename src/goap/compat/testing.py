"""Test helpers: a chat model whose structured output is fixed in advance."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableLambda

__all__ = ["FakeStructuredModel"]


class FakeStructuredModel(BaseChatModel):
    """A chat model whose structured output always answers ``response``."""

    response: Any = None
    expected_schema: Any = None
    _llm_type = property(lambda self: "fake-structured")

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        from langchain_core.messages import AIMessage
        from langchain_core.outputs import ChatGeneration, ChatResult

        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=""))])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> RunnableLambda[Any, Any]:
        """A runnable returning ``response`` whatever the input."""
        if self.expected_schema is not None and schema is not self.expected_schema:
            raise AssertionError(f"structured output for {schema!r}, not {self.expected_schema!r}")
        answer = self.response
        return RunnableLambda(lambda _x: answer)
