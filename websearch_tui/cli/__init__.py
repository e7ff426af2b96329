"""The command-line front end: ``websearch-tui`` and its commands."""
