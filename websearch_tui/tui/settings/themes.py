"""The command palette's theme list (Ctrl+P → Theme) with the theme in use marked: :class:`MarkedThemeProvider`."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits
from textual.content import Content
from textual.theme import ThemeProvider

from websearch_tui.tui.settings.fields import IN_USE


class MarkedThemeProvider(ThemeProvider):
    """Textual's :class:`~textual.theme.ThemeProvider` (every theme, by name), the theme shown now
    marked :data:`~websearch_tui.tui.settings.fields.IN_USE`, as in the settings' Theme field."""

    async def discover(self) -> Hits:
        """Every theme in name order, the one in use marked."""
        current = self.app.theme
        for name, command in self.commands:
            yield DiscoveryHit(Content(name + IN_USE if name == current else name), command, text=name)

    async def search(self, query: str) -> Hits:
        """The themes whose name matches ``query``, the one in use marked."""
        matcher = self.matcher(query)
        current = self.app.theme
        for name, command in self.commands:
            if (score := matcher.match(name)) > 0:
                display = matcher.highlight(name)
                yield Hit(score, display + IN_USE if name == current else display, command, text=name)
