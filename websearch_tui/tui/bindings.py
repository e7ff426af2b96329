"""Every key binding of the app in one place: by screen for the Help screen (F1), and the binding ids
a ``[keymap]`` table may name.

Both are read from the classes' own ``BINDINGS`` (never written out a second time), so the Help
screen, the keymap check and the code cannot disagree. Keys are shown as Textual shows them in the
footer (``App.get_key_display``), with the user's keymap applied. The classes are imported when
first asked for (the Help screen and the palette ask; the first paint does not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

KeyDisplay = Callable[[Binding], str]
"""How one bound key is shown (``App.get_key_display``)."""


@dataclass(frozen=True)
class HelpLine:
    """One binding as the Help screen lists it: its keys as displayed, what it does and a longer hint."""

    keys: str
    description: str
    tooltip: str


@dataclass(frozen=True)
class HelpSection:
    """The bindings of one screen or part of a screen, in the order their classes declare them."""

    title: str
    lines: tuple[HelpLine, ...]


def own_bindings(owner: type[DOMNode]) -> list[Binding]:
    """The bindings ``owner`` declares itself (not those it inherits)."""
    declared: Iterable[BindingType] = vars(owner).get("BINDINGS", ())
    return [item if isinstance(item, Binding) else Binding(*item) for item in declared]


def palette_binding() -> Binding:
    """The command palette's key: Textual adds this binding to every app, outside any ``BINDINGS``."""
    from websearch_tui.tui.app import WebSearchApp

    return Binding(
        WebSearchApp.COMMAND_PALETTE_BINDING,
        "command_palette",
        "Command palette",
        tooltip="Find any command by name: provider, export, copy, history, settings, cancel, zoom, theme, help",
    )


def binding_table() -> list[tuple[str, list[Binding]]]:
    """Every binding, grouped by where it acts (a subclass before the class it extends)."""
    from textual.app import App

    from websearch_tui.tui.app import WebSearchApp
    from websearch_tui.tui.screens.export import ExportDialog
    from websearch_tui.tui.screens.help import HelpScreen
    from websearch_tui.tui.screens.history import HistoryScreen, HistoryTable
    from websearch_tui.tui.screens.search import SearchScreen
    from websearch_tui.tui.screens.settings import SettingsScreen
    from websearch_tui.tui.widgets.history_rows import HistoryRows
    from websearch_tui.tui.widgets.link_dialog import LinkDialog
    from websearch_tui.tui.widgets.merged_view import MergedView
    from websearch_tui.tui.widgets.provider_pane import ProviderPane
    from websearch_tui.tui.widgets.provider_selector import ProviderSelector
    from websearch_tui.tui.widgets.query_input import QueryInput
    from websearch_tui.tui.widgets.related_list import RelatedList
    from websearch_tui.tui.widgets.settings_dialogs import ChoiceDialog
    from websearch_tui.tui.widgets.source_list import SourceList

    groups: list[tuple[str, tuple[type[DOMNode], ...]]] = [
        ("Everywhere", (WebSearchApp, App)),
        ("Search screen", (SearchScreen, QueryInput)),
        ("Provider list", (ProviderSelector,)),
        ("Panes", (ProviderPane, SourceList, RelatedList)),
        ("Merged view", (MergedView,)),
        ("History screen", (HistoryScreen, HistoryTable, HistoryRows)),
        ("Settings", (SettingsScreen,)),
        ("Help and dialogs", (HelpScreen, ExportDialog, ChoiceDialog, LinkDialog)),
    ]
    table = [(title, [binding for owner in owners for binding in own_bindings(owner)]) for title, owners in groups]
    table[0][1].append(palette_binding())
    return table


def binding_ids() -> list[str]:
    """Every binding id, sorted: the names a ``[keymap]`` table may use."""
    return sorted({binding.id for _, bindings in binding_table() for binding in bindings if binding.id})


def bound_keys(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    """The keys ``binding`` answers to: the keymap's for its id, else its own (``"a,b"`` is two keys)."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [key.strip() for key in keys.split(",") if key.strip()]


def keys_text(binding: Binding, keymap: Mapping[str, str], display: KeyDisplay) -> str:
    """``binding``'s keys as displayed, ``" / "`` between two (a remapped key loses its custom display)."""
    remapped = binding.id is not None and binding.id in keymap
    key_display = None if remapped else binding.key_display
    return " / ".join(display(binding.with_key(key, key_display)) for key in bound_keys(binding, keymap))


def help_sections(keymap: Mapping[str, str], display: KeyDisplay) -> list[HelpSection]:
    """The Help screen's key lists: every binding with a description, by section; the same keys
    doing the same thing (a screen and its list both moving the cursor) are listed once."""
    sections = []
    for title, bindings in binding_table():
        lines: dict[tuple[str, str], HelpLine] = {}
        for binding in bindings:
            keys = keys_text(binding, keymap, display)
            if binding.description and (keys, binding.description) not in lines:
                tooltip = binding.tooltip if binding.tooltip != binding.description else ""
                lines[(keys, binding.description)] = HelpLine(keys, binding.description, tooltip)
        sections.append(HelpSection(title, tuple(lines.values())))
    return sections


def keys_by_id(keymap: Mapping[str, str], display: KeyDisplay) -> dict[str, str]:
    """Binding id -> its keys as displayed (for text that names a key, such as the Help screen's modes)."""
    return {
        binding.id: keys_text(binding, keymap, display)
        for _, bindings in binding_table()
        for binding in bindings
        if binding.id
    }
