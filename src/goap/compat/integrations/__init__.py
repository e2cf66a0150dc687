"""LangGOAP's LangChain / LangGraph on-ramps: tools, agent, subgraph, DeepAgents, deployment."""

from goap.compat.integrations.deepagents import create_goap_subagent as create_goap_subagent
from goap.compat.integrations.deepagents import create_goap_tool as create_goap_tool
from goap.compat.integrations.deepagents import format_goap_result as format_goap_result
from goap.compat.integrations.langgraph_deploy import scaffold_deployment as scaffold_deployment
from goap.compat.integrations.prebuilt import create_goap_agent as create_goap_agent
from goap.compat.integrations.subgraph import GoapSubgraph as GoapSubgraph
from goap.compat.integrations.subgraph import add_goap_subgraph as add_goap_subgraph
from goap.compat.integrations.tools import goapify_tool as goapify_tool
