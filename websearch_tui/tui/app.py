"""The Textual application: :class:`WebSearchApp` and the :func:`run_tui` entry point."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from websearch_tui.core.engine import Engine
from websearch_tui.tui.screens.search import SearchScreen, StatusResolver

if TYPE_CHECKING:
    from websearch_tui.config import Config


class WebSearchApp(App[int]):
    """Search many web providers at once and compare their answers side by side.

    Args:
        config: loaded settings (default selection, mode, result count, recency, provider tables).
        engine: the engine that runs providers; the app closes it on exit.
        status_resolver: blocking ``(spec, settings) -> status`` for the provider list
            (defaults to ``credentials.provider_status``); always called in a thread.
        clock: monotonic clock for elapsed times and the spinner (tests pass a frozen one).
    """

    CSS_PATH = "app.tcss"
    TITLE = "websearch-tui"

    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Cancel searches and quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="quit-ctrl-c", tooltip="Quit"),
    ]

    def __init__(
        self,
        config: Config,
        engine: Engine,
        *,
        status_resolver: StatusResolver | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.engine = engine
        self.status_resolver = status_resolver
        self.clock = clock or time.monotonic

    def get_default_screen(self) -> Screen[None]:
        """The search screen is the app's base screen."""
        return SearchScreen(self.config, self.engine, status_resolver=self.status_resolver, clock=self.clock)

    async def action_quit(self) -> None:
        """Cancel every worker, then exit with status 0."""
        self.workers.cancel_all()
        self.exit(0)

    async def on_unmount(self) -> None:
        """Close the engine's HTTP connections."""
        await self.engine.aclose()


def run_tui(config_path: str | os.PathLike[str] | Config | None = None) -> int:
    """Run the app; returns the process exit status.

    ``config_path`` is a config file path (``None``: the default location), or an already loaded
    :class:`~websearch_tui.config.Config`. Raises ``ConfigError`` for a bad file.
    """
    from websearch_tui.config import Config, build_engine, load_config

    config = config_path if isinstance(config_path, Config) else load_config(config_path)
    engine = build_engine(config)
    app = WebSearchApp(config, engine)
    result = app.run()
    if app.return_code not in (None, 0):
        return app.return_code
    return result if isinstance(result, int) else 0
