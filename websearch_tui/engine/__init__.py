"""The one way into a search, for every front end: the engine (compare and auto modes, probes) and the
output formats. Sits above :mod:`websearch_tui.providers`; front ends (CLI, TUI, MCP server, the
Python API) sit above it."""
