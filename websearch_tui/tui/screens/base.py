"""The base of the app's screens: failed workers go to the one funnel (:mod:`websearch_tui.tui.workers`)."""

from __future__ import annotations

from textual.screen import Screen, ScreenResultType

from websearch_tui.tui.workers import ReportsFailedWorkers


class AppScreen(Screen[ScreenResultType], ReportsFailedWorkers):
    """A screen whose failed workers are logged and shown (:class:`ReportsFailedWorkers`)."""
