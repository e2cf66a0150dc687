"""LangGOAP's command line on goap.compat."""
