"""The footer of every screen: Textual's, rebuilt only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Hashable

from textual.widgets import Footer

from websearch_tui.tui.patches.styles_cache import release_style_caches
from websearch_tui.tui.patches.watchers import drop_removed_watchers


class KeysFooter(Footer):
    """Textual's :class:`~textual.widgets.Footer`, which builds its row of keys again (a widget per key,
    styled, laid out and drawn) each time the screen's bindings are updated: at every focus change
    and every return to the screen. This one keeps its keys when those updates leave what it shows
    as it was (the same keys, descriptions, enabled states and tooltips, in the same order), and lets
    the keys it removes go (:func:`~websearch_tui.tui.patches.watchers.drop_removed_watchers`,
    :func:`~websearch_tui.tui.patches.styles_cache.release_style_caches`)."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._shown: Hashable = None

    def _showing(self) -> Hashable:
        """What :meth:`compose` would show now (its keys, as displayed, and whether the palette key is shown)."""
        app = self.app
        return (
            self.show_command_palette,
            tuple(
                (binding, app.get_key_display(binding), enabled, tooltip)
                for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
                if binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )

    async def recompose(self) -> None:
        """Build the keys again, unless they would be the ones shown already (or the footer is gone);
        the keys removed are forgotten by the footer's ``compact`` reactive, which each was bound to,
        and by Textual's style caches."""
        if not self.is_attached:
            return
        showing = self._showing()
        if showing != self._shown:
            self._shown = showing
            await super().recompose()
            drop_removed_watchers(self)
            release_style_caches()
