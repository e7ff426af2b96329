"""The General entry of the settings screen: :class:`GeneralForm` (``[search]``, ``[verify]`` and ``[ui]``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from websearch_tui.core.specs import ProviderSpec
from websearch_tui.tui.common.marked_list import MarkedSelectionList
from websearch_tui.tui.common.safe import plain
from websearch_tui.tui.settings.fields import FieldSpec
from websearch_tui.tui.settings.setting_row import Check, SettingRow, section

START_RULE = (
    "Selected at start while nothing is remembered for this config file: the main screen starts with the "
    "providers, mode, recency and count last used with it. Saving a change here applies it at once."
)
"""What the defaults are for at start (the rule of :mod:`websearch_tui.tui.common.remembered`)."""


class GeneralForm(VerticalScroll, can_focus=False):
    """The ``[search]``, ``[verify]`` and ``[ui]`` settings: default providers, mode, result count, recency,
    timeout, checking citations after each search, theme.

    Like :class:`~websearch_tui.tui.settings.provider_form.ProviderForm`, it never takes focus itself.

    Args:
        fields: the :func:`~websearch_tui.tui.settings.fields.general_fields`.
        values: current document value by ``(table, key)``.
        specs: every provider, for the default-selection checklist.
        selected: the provider ids selected by default.
        check: the validity check.
    """

    DEFAULT_CSS = """
    GeneralForm { padding: 0 2; }
    GeneralForm .form-title { margin: 1 0 0 0; }
    GeneralForm .form-section { margin: 1 0 1 0; color: $text-secondary; }
    GeneralForm #f-search-providers { height: auto; max-height: 14; max-width: 94; }
    GeneralForm .setting-help { color: $text-muted; }
    """

    def __init__(
        self,
        fields: Iterable[FieldSpec],
        values: dict[tuple[str, str], Any],
        specs: Sequence[ProviderSpec],
        selected: Iterable[str],
        check: Check,
    ) -> None:
        super().__init__(id="form-general")
        self.fields = list(fields)
        self.values = values
        self.specs = list(specs)
        self.selected = list(selected)
        self.check = check

    def compose(self) -> ComposeResult:
        """Title, the default-provider checklist, the search, citation and look settings."""
        yield Static(plain("General", "bold"), classes="form-title")
        yield section("Default providers")
        chosen = set(self.selected)
        yield MarkedSelectionList(
            *(Selection(plain(spec.label), spec.id, spec.id in chosen) for spec in self.specs),
            id="f-search-providers",
            compact=True,
        )
        yield Static(plain(START_RULE), classes="setting-help", id="start-rule")
        yield section("Search")
        for field in self.fields:
            if field.table == "search":
                yield SettingRow(field, self.values.get((field.table, field.key)), self.check)
        yield section("Citations")
        for field in self.fields:
            if field.table == "verify":
                yield SettingRow(field, self.values.get((field.table, field.key)), self.check)
        yield section("Look")
        for field in self.fields:
            if field.table not in ("search", "verify"):
                yield SettingRow(field, self.values.get((field.table, field.key)), self.check)

    def default_providers(self) -> list[str]:
        """The checked providers: the configured order first, then newly checked ones in list order."""
        checked = set(self.query_one("#f-search-providers", SelectionList).selected)
        order = [pid for pid in self.selected if pid in checked]
        return order + [spec.id for spec in self.specs if spec.id in checked and spec.id not in order]
