"""``python -m websearch_tui``: the same entry point as the ``websearch-tui`` command."""

from websearch_tui.cli.main import run

run()
