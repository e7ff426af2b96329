"""The Textual front end: :mod:`websearch_tui.tui.app` holds ``WebSearchApp`` and ``run_tui``.

Nothing is imported here so that ``import websearch_tui.tui`` stays cheap for the CLI.
"""
