"""The Help screen (F1): the keys of every screen, read from the bindings themselves, and the modes.

The key lists come from :func:`~websearch_tui.tui.bindings.help_sections` (the app passes them in), so they
show the keys the code binds, with the user's ``[keymap]`` applied, as the footer shows them. All text is plain
:class:`~textual.content.Content` (never parsed as markup). Escape or ``q`` closes it, and so does
the key that opened it (the app's ``help`` binding, F1 unless remapped).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from websearch_tui.tui.bindings import HelpLine, HelpSection
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.screen import AppScreen

KEY_STYLE = "bold $text-accent"
MAX_KEY_CELLS = 20
"""The key column is as wide as the widest keys, up to this many cells."""
KEY_GAP = "   "
"""Between the key column and what the key does; part of the key's styled text, so a renderer that drops
the leading spaces of a text run (some SVG renderers do) cannot join the two."""
PANE_SCROLLING = (
    HelpLine("↑ / ↓", "Scroll a line", "in the focused pane's text (on a source or a related question: the next one)"),
    HelpLine("pgup / pgdn", "Scroll a page", "in the focused pane, from its text or its sources alike"),
    HelpLine("home / end", "Top / end", "of the focused pane"),
)
"""How a focused pane scrolls: Textual's keys of a scrolling container, which no ``BINDINGS`` of ours
declare, added to the "Panes" section."""

MODES: tuple[tuple[str, str | None, str], ...] = (
    ("compare", None, "every selected provider at once, one pane each, side by side (the mode box)"),
    ("auto", None, "one provider at a time in the configured order; the first that answers wins"),
    ("Panes", "pane-next", "laid out as columns, a grid or tabs, whichever fits the window"),
    ("Merged view", "toggle-merged", "every source once, ranked, with the providers that found it"),
    ("Private search", "toggle-private", "while on, nothing you search is recorded in the history"),
    ("History", "open-history", "every search you ran: reopen it offline, or run it again live"),
    ("Settings", "settings", "Enter on an entry opens its form; Enter in a key field stores the key in the OS keyring"),
    ("Command palette", None, "type what you want: provider, export, copy, history, settings, cancel, zoom, theme"),
)
"""``(name, binding id of its key or None, what it is)``: the lines under "Modes"."""


def section_content(section: HelpSection, width: int) -> Content:
    """A section's lines: keys in a column ``width`` cells wide, what they do, then the longer hint."""
    lines = [
        Content.assemble(
            (line.keys.ljust(width) + KEY_GAP, KEY_STYLE),
            line.description + (" " if line.tooltip else ""),
            (f"— {line.tooltip}" if line.tooltip else "", "$text-muted"),
        )
        for line in section.lines
    ]
    return Content("\n").join(lines)


def modes_content(keys: Mapping[str, str]) -> Content:
    """The "Modes" lines, each naming its key (as bound now) where it has one."""
    lines = []
    for name, binding_id, text in MODES:
        key = keys.get(binding_id, "") if binding_id else ""
        lines.append(Content.assemble((name, "bold"), (f" ({key})" if key else "", KEY_STYLE), f": {text}"))
    return Content("\n").join(lines)


def _with_scrolling(section: HelpSection) -> HelpSection:
    """The "Panes" section with :data:`PANE_SCROLLING` added; any other section as it is."""
    if section.title != "Panes":
        return section
    return HelpSection(section.title, section.lines + PANE_SCROLLING)


class HelpScreen(AppScreen[None]):
    """Every key by screen, with the user's keymap applied, and a few lines on the modes.

    Args:
        sections: every binding with a description, by section, with the user's keymap applied
            (:func:`websearch_tui.tui.bindings.help_sections`).
        keys: binding id -> its keys as displayed (:func:`websearch_tui.tui.bindings.keys_by_id`).
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="help-close", tooltip="Back to where you were"),
        Binding("q", "close", "Close", show=False, id="help-close-q"),
    ]

    DEFAULT_CSS = """
    HelpScreen { layout: vertical; }
    HelpScreen #help-title { height: 1; padding: 0 1; text-style: bold; background: $boost; }
    HelpScreen #help-body { height: 1fr; padding: 0 2; }
    HelpScreen .help-heading { margin: 1 0 0 0; text-style: bold; color: $text-secondary; }
    """

    def __init__(self, sections: Sequence[HelpSection], keys: Mapping[str, str]) -> None:
        super().__init__()
        self.sections = [_with_scrolling(section) for section in sections if section.lines]
        self.keys = dict(keys)

    def compose(self) -> ComposeResult:
        """Title, the key sections and the modes (scrollable), footer."""
        sections = self.sections
        width = min(MAX_KEY_CELLS, max(len(line.keys) for section in sections for line in section.lines))
        yield Static(Content("Help · keys by screen · Esc closes"), id="help-title")
        with VerticalScroll(id="help-body"):
            for section in sections:
                yield Static(Content(section.title), classes="help-heading")
                yield Static(section_content(section, width), classes="help-keys")
            yield Static(Content("Modes"), classes="help-heading")
            yield Static(modes_content(self.keys), id="help-modes")
        yield KeysFooter()

    def on_mount(self) -> None:
        """Focus the text, so the arrows and Page keys scroll it."""
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        """Back to the screen underneath."""
        self.dismiss(None)
