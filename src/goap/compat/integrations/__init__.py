"""LangGOAP's LangChain / LangGraph on-ramps: tools as actions, a prebuilt agent, a subgraph node,
a DeepAgents tool and subagent, and a LangGraph deployment scaffold."""

from goap.compat.integrations.deepagents import create_goap_subagent, create_goap_tool, format_goap_result
from goap.compat.integrations.langgraph_deploy import scaffold_deployment
from goap.compat.integrations.prebuilt import create_goap_agent
from goap.compat.integrations.subgraph import GoapSubgraph, add_goap_subgraph
from goap.compat.integrations.tools import goapify_tool

__all__ = [
    "GoapSubgraph",
    "add_goap_subgraph",
    "create_goap_agent",
    "create_goap_subagent",
    "create_goap_tool",
    "format_goap_result",
    "goapify_tool",
    "scaffold_deployment",
]
