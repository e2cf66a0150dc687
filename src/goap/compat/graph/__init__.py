"""LangGraph integration for GOAP planning and execution.

Ported from ``langgoap.graph`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""
