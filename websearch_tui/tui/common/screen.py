"""The bases of the app's screens: failed workers go to the one funnel (:mod:`websearch_tui.tui.common.workers`)."""

from __future__ import annotations

from textual.screen import ModalScreen, Screen, ScreenResultType

from websearch_tui.tui.common.workers import ReportsFailedWorkers


class AppScreen(Screen[ScreenResultType], ReportsFailedWorkers):
    """A screen whose failed workers are logged and shown (:class:`ReportsFailedWorkers`)."""


class AppModalScreen(ModalScreen[ScreenResultType], ReportsFailedWorkers):
    """A dialog (modal screen) whose failed workers go through the same funnel."""
