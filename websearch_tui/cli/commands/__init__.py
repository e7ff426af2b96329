"""One module per command of ``websearch-tui``, each with ``run(args, ...) -> exit code``; the
entry point, :mod:`websearch_tui.cli.main`, picks the command and hands it what it needs."""
