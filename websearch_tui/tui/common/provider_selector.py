"""The provider checklist: every registered provider with its readiness, toggled on or off, with
keys for all, none, only the highlighted one and the named presets of ``[presets]``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content
from textual.widgets import SelectionList
from textual.widgets.selection_list import Selection

from websearch_tui.core.specs import DISABLED, ProviderSpec
from websearch_tui.tui.common.marked_list import MarkedSelectionList
from websearch_tui.tui.common.provider_rows import KEYS_HINT, selector_prompt

if TYPE_CHECKING:
    from websearch_tui.settings.config import Config


class ProviderSelector(MarkedSelectionList):
    """A :class:`SelectionList` of provider ids (a mark in each box, :class:`MarkedSelectionList`);
    :meth:`set_status` fills in readiness later.

    Space toggles the highlighted provider, ``a`` selects every provider not disabled, ``n`` none,
    ``o`` only the highlighted one, and ``p`` steps through :attr:`presets`.

    Attributes:
        presets: name -> provider ids, as ``[presets]`` in the config (the screen leaves out
            disabled providers).
    """

    BINDINGS = [
        Binding("a", "select_every", "All", id="providers-all", tooltip="Select every provider not disabled"),
        Binding("n", "select_none", "None", id="providers-none", tooltip="Unselect every provider"),
        Binding("o", "select_only", "Only", id="providers-only", tooltip="Select only the highlighted provider"),
        Binding(
            "p",
            "next_preset",
            "Preset",
            id="providers-preset",
            tooltip="Select the next preset of the config's presets table",
        ),
    ]

    DEFAULT_CSS = """
    ProviderSelector { height: 1fr; }
    """

    def __init__(
        self,
        specs: Sequence[ProviderSpec],
        selected: Iterable[str],
        *,
        presets: Mapping[str, tuple[str, ...]] | None = None,
        id: str | None = None,
    ) -> None:
        chosen = set(selected)
        self.specs = {spec.id: spec for spec in specs}
        self.statuses: dict[str, str] = {}
        self.presets: Mapping[str, tuple[str, ...]] = presets or {}
        self._preset_turn = 0
        self._constructed_with = chosen & set(self.specs)
        super().__init__(
            *(Selection(selector_prompt(spec, None), spec.id, spec.id in chosen, id=spec.id) for spec in specs),
            id=id,
        )
        self.border_title = Content("Providers")
        self.border_subtitle = Content(KEYS_HINT)

    def on_mount(self) -> None:
        """Report a selection changed before the list mounted (Textual's selection list reports none
        until then; the search screen hands the list out as soon as it is asked for, before it has
        taken its face's place)."""
        if set(self.selected) != self._constructed_with:
            self.post_message(SelectionList.SelectedChanged(self))

    def follow_config(self, previous: Config, config: Config) -> None:
        """Newly saved settings: a changed default selection replaces the current one, newly disabled
        providers are unselected, re-enabled providers of the default selection are selected again (as
        on a fresh start), and the presets are ``config``'s."""
        if config.search.providers != previous.search.providers:
            self.deselect_all()
            for pid in config.default_selection():
                self.select(pid)
        for pid in config.default_selection():
            if not previous.is_enabled(pid):
                self.select(pid)
        for pid in list(self.selected):
            if not config.is_enabled(pid):
                self.deselect(pid)
        self.presets = config.enabled_presets()

    def select_only(self, provider_ids: Iterable[str]) -> None:
        """Select exactly ``provider_ids`` (unknown ids are ignored), with one ``SelectedChanged``."""
        before = set(self.selected)
        with self.prevent(SelectionList.SelectedChanged):
            self.deselect_all()
            for provider_id in provider_ids:
                if provider_id in self.specs:
                    self.select(provider_id)
        if set(self.selected) != before:
            self.post_message(SelectionList.SelectedChanged(self))

    def action_select_every(self) -> None:
        """Select every provider whose readiness is not ``disabled``."""
        self.select_only(pid for pid in self.specs if self.statuses.get(pid) != DISABLED)

    def action_select_none(self) -> None:
        """Unselect every provider."""
        self.deselect_all()

    def action_select_only(self) -> None:
        """Select only the highlighted provider."""
        if self.highlighted is not None:
            self.select_only([self.get_option_at_index(self.highlighted).value])

    def action_next_preset(self) -> None:
        """Select the next preset (in the config's order, round and round) and say which it is."""
        if not self.presets:
            self.notify(
                'No presets yet: add a [presets] table to config.toml, e.g. quick = ["brave", "tavily", "exa"].',
                severity="warning",
                markup=False,
            )
            return
        names = list(self.presets)
        self.apply_preset(names[self._preset_turn % len(names)])
        self._preset_turn += 1

    def apply_preset(self, name: str) -> None:
        """Select exactly the providers of preset ``name`` and say so (an unknown name does nothing)."""
        ids = self.presets.get(name)
        if ids is None:
            return
        self.select_only(ids)
        labels = ", ".join(self.specs[pid].label for pid in ids if pid in self.specs) or "no enabled provider"
        self.notify(f"Preset {name}: {labels}.", markup=False, timeout=4)

    def set_status(self, provider_id: str, status: str) -> None:
        """Show ``status`` ("ready", "keyless", "needs key", ...) next to ``provider_id``."""
        spec = self.specs.get(provider_id)
        if spec is None:
            return
        self.statuses[provider_id] = status
        self.replace_option_prompt(provider_id, selector_prompt(spec, status))
