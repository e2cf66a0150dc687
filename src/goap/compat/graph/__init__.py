"""LangGOAP's ``langgoap.graph`` package: the GOAP loop as a LangGraph graph."""
