"""Chat models: the `ChatModel` protocol, its records, and adapters for real servers.

    from graphengine.models import Message, OpenAIChatModel, chat

    model = OpenAIChatModel("qwen2.5", base_url="http://127.0.0.1:8000/v1")   # vLLM, llama.cpp, LM Studio
    out = await model.chat([Message.user("hi")])

Inside a node, ask through :func:`chat` (``ctx.call`` underneath) so the answer is recorded and
replay never calls the model again; ``chat(..., stream=True)`` also emits the text as ``token``
events while it arrives. A conversation in a state is a `MessagesState` (or any field
annotated with the `add_messages` reducer). Adapters talking HTTP need the ``http`` extra (httpx, tenacity); the
LangChain bridge needs the ``langchain`` extra. Importing this package imports neither:
they are loaded when an adapter is first used. Test doubles live in `graphengine.models.testing`.
"""

from graphengine.exports import publish as _publish

from . import chat as _chat
from . import errors as _errors
from ._http import RetryPolicy, import_httpx, shared_ssl_context
from ._rate import RateLimit
from .chat import *  # noqa: F403
from .errors import *  # noqa: F403
from .langchain import LangChainChatModel
from .messages import MessagesState, add_messages
from .ollama import OllamaChatModel
from .openai import OpenAIChatModel

__all__ = ["LangChainChatModel", "MessagesState", "OllamaChatModel", "OpenAIChatModel"]
__all__ += ["RateLimit", "RetryPolicy"]  # how the HTTP models pace and retry their requests
__all__ += ["add_messages"]  # the reducer of a conversation
# the HTTP client glue other HTTP integrations (graphengine.tools.HttpTool) share with the adapters
__all__ += ["import_httpx", "shared_ssl_context"]
__all__ += _chat.__all__  # the protocol, its records, chat()
__all__ += _errors.__all__  # the error tree
__all__.sort()

_publish(__name__, globals(), __all__)
