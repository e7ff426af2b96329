"""Every key binding of the app in one place: by screen for the Help screen (F1), and the binding ids
a ``[keymap]`` table may name.

Both are read from the classes' own ``BINDINGS`` (never written out a second time), so the Help
screen, the keymap check and the code cannot disagree. Keys are shown as Textual shows them in the
footer (``App.get_key_display``), with the user's keymap applied. Which classes there are is the
app's to say (:func:`websearch_tui.tui.app.binding_table`); this module knows no screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.keys import REPLACED_KEYS, key_to_character

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


BindingTable = list[tuple[str, list[Binding]]]
"""Every binding of the app, grouped by where it acts (``(title, bindings)``), as
:func:`websearch_tui.tui.app.binding_table` lists them."""


def binding_ids(table: BindingTable) -> list[str]:
    """Every binding id of ``table``, sorted: the names a ``[keymap]`` table may use."""
    return sorted({binding.id for _, bindings in table for binding in bindings if binding.id})


def bound_keys(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    """The keys ``binding`` answers to: the keymap's for its id, else its own (``"a,b"`` is two keys)."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [key.strip() for key in keys.split(",") if key.strip()]


def keys_text(binding: Binding, keymap: Mapping[str, str], display: KeyDisplay) -> str:
    """``binding``'s keys as displayed, ``" / "`` between two (a remapped key loses its custom display)."""
    remapped = binding.id is not None and binding.id in keymap
    key_display = None if remapped else binding.key_display
    return " / ".join(display(binding.with_key(key, key_display)) for key in bound_keys(binding, keymap))


def help_sections(table: BindingTable, keymap: Mapping[str, str], display: KeyDisplay) -> list[HelpSection]:
    """The Help screen's key lists: every binding with a description, by section; the same keys
    doing the same thing (a screen and its list both moving the cursor) are listed once."""
    sections = []
    for title, bindings in table:
        lines: dict[tuple[str, str], HelpLine] = {}
        for binding in bindings:
            keys = keys_text(binding, keymap, display)
            if binding.description and (keys, binding.description) not in lines:
                tooltip = binding.tooltip if binding.tooltip != binding.description else ""
                lines[(keys, binding.description)] = HelpLine(keys, binding.description, tooltip)
        sections.append(HelpSection(title, tuple(lines.values())))
    return sections


def keys_by_id(table: BindingTable, keymap: Mapping[str, str], display: KeyDisplay) -> dict[str, str]:
    """Binding id -> its keys as displayed (for text that names a key, such as the Help screen's modes)."""
    return {
        binding.id: keys_text(binding, keymap, display) for _, bindings in table for binding in bindings if binding.id
    }


def typed_character(key: str) -> str | None:
    """The printable character the key named ``key`` types (``"h"``; ``"question_mark"`` -> ``"?"``,
    ``"slash"`` -> ``"/"``), or ``None`` for a key that types none (``"ctrl+q"``, ``"f2"``, ``"escape"``)."""
    character = key_to_character(REPLACED_KEYS.get(key, key))
    return character if character is not None and character.isprintable() else None


def typing_key_notes(keymap: Mapping[str, str], where: str) -> list[str]:
    """One note per ``[keymap]`` entry (of the file ``where``) that gives a binding a key which types
    a character: in a text field (the query box, a filter, the settings' fields) that key types, so
    the binding does not act there (:meth:`websearch_tui.tui.app.WebSearchApp.check_action`)."""
    notes = []
    for binding_id, keys in keymap.items():
        typing = [key for key in keys.split(",") if typed_character(key)]
        others = [key for key in keys.split(",") if key not in typing]
        if typing:
            then = (
                f"{', '.join(others)} still acts there"
                if others
                else "to act there too, add a key with ctrl or alt, or a function key, after a comma"
            )
            notes.append(
                f'{where}: [keymap] {binding_id} = "{keys}": in a text field (the query box, a filter) '
                f"{', '.join(typing)} enters text instead of acting; {then}"
            )
    return notes
