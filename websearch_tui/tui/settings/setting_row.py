"""One config key in a settings form: :class:`SettingRow` (label, control, help or reason line).

A row edits one :class:`~websearch_tui.tui.settings.fields.FieldSpec` with the right
control (Input with a validator, a :class:`~websearch_tui.tui.settings.check_switch.CheckSwitch`
or Select), refuses invalid values at the field with the reason given by the ``check`` callable
(``ConfigEditor.check``), and posts :class:`SettingRow.Edited` with the parsed value for the screen
to put in the document. All text reaches the screen with markup off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.validation import ValidationResult, Validator
from textual.widgets import Input, Select, Static, Switch

from websearch_tui.tui.common.safe import plain
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.settings.check_switch import CheckSwitch
from websearch_tui.tui.settings.fields import BOOL, CHOICE, SWITCH, FieldSpec, format_value, parse_text

Check = Callable[[str, str, Any], "str | None"]
"""``(table, key, value) -> reason | None``: why a value is refused (``ConfigEditor.check``)."""


class FieldValidator(Validator):
    """Parses the text of ``field`` and asks ``check`` whether the value is allowed."""

    def __init__(self, field: FieldSpec, check: Check) -> None:
        super().__init__()
        self.field = field
        self.check = check

    def validate(self, value: str) -> ValidationResult:
        """Failure with the one-line reason when the text is not a valid value for the field."""
        try:
            parsed = parse_text(self.field, value)
        except ValueError as exc:
            return self.failure(str(exc))
        reason = self.check(self.field.table, self.field.key, parsed)
        return self.failure(field_reason(self.field, reason)) if reason else self.success()


def field_reason(field: FieldSpec, reason: str) -> str:
    """``reason`` worded for the field: ``"[providers.brave] base_url must be …"`` -> ``"Base URL must be …"``."""
    prefix = f"[{field.table}] {field.key} "
    return f"{field.label} {reason.removeprefix(prefix)}" if reason.startswith(prefix) else reason


def first_failure(result: ValidationResult | None) -> str | None:
    """The first reason a validation failed (``None``: no result, or it passed)."""
    if result is None or result.is_valid:
        return None
    return (result.failure_descriptions or ["invalid value"])[0]


class SettingRow(Vertical):
    """Label, control and a help/reason line for one config key.

    Args:
        field: what the row edits.
        value: the key's current value in the document (``None``: unset, the default applies).
        check: the validity check (``ConfigEditor.check``).
    """

    DEFAULT_CSS = """
    SettingRow { height: auto; margin: 0 0 1 0; }
    SettingRow > Horizontal { height: auto; }
    SettingRow .setting-label { width: 22; padding: 0 1 0 0; }
    SettingRow Input, SettingRow Select { width: 1fr; max-width: 72; min-width: 16; }
    SettingRow Switch { border: none; height: 1; padding: 0 1; }
    SettingRow Switch:focus { border: none; background: $accent 40%; }
    SettingRow .setting-help { padding: 0 0 0 22; color: $text-muted; height: auto; }
    SettingRow.-invalid .setting-help { color: $text-error; }
    """

    class Edited(Message):
        """The row holds a new valid ``value`` (``None`` removes the key) or, with ``reason``, an invalid one."""

        def __init__(self, row: SettingRow, value: Any, reason: str | None) -> None:
            super().__init__()
            self.row = row
            self.value = value
            self.reason = reason

        @property
        def control(self) -> SettingRow:
            """The row that changed."""
            return self.row

    def __init__(self, field: FieldSpec, value: Any, check: Check) -> None:
        super().__init__()
        self.field = field
        self.initial = value
        self.check = check
        self.help = _state_help(field, value is not False) if field.kind == SWITCH else field.help

    def compose(self) -> ComposeResult:
        """The label, the control for the field's kind, and the help line."""
        field = self.field
        with Horizontal():
            yield Static(plain(field.label), classes="setting-label")
            yield self._control()
        yield Static(plain(self.help), classes="setting-help").set_styles(display="block" if self.help else "none")

    def _control(self) -> Input | Switch | Select[Any]:
        field = self.field
        if field.kind == SWITCH:
            return CheckSwitch(self.initial is not False, id=field.ident)
        if field.kind in (CHOICE, BOOL):
            value = _match_choice(field.choices, self.initial)
            return Select(
                list(field.choices), value=value, prompt=field.placeholder or "default", id=field.ident, compact=True
            )
        return SafeInput(
            format_value(self.initial),
            placeholder=field.placeholder,
            validators=[FieldValidator(field, self.check)],
            valid_empty=True,
            select_on_focus=False,  # Tab into a value puts the cursor at its end: a keystroke never replaces it
            id=field.ident,
            compact=True,
        )

    def show_reason(self, reason: str | None) -> None:
        """Show why the value is refused (``None``: back to the help line)."""
        self.set_class(reason is not None, "-invalid")
        help_line = self.query_one(".setting-help", Static)
        help_line.update(plain(reason or self.help))
        help_line.display = bool(reason or self.help)

    @on(Input.Changed)
    def _on_input(self, event: Input.Changed) -> None:
        event.stop()
        reason = first_failure(event.validation_result)
        self.show_reason(reason)
        value = None if reason else parse_text(self.field, event.value)
        self.post_message(self.Edited(self, value, reason))

    @on(Switch.Changed)
    def _on_switch(self, event: Switch.Changed) -> None:
        event.stop()
        self.help = _state_help(self.field, event.value)
        self.show_reason(None)
        # on is the default: write ``true`` only where the file already has the key (its line and
        # comment stay); a file without it stays without it
        value = (True if self.initial is not None else None) if event.value else False
        self.post_message(self.Edited(self, value, None))

    @on(Select.Changed)
    def _on_select(self, event: Select.Changed) -> None:
        event.stop()
        value = None if event.value is Select.NULL else event.value
        self.post_message(self.Edited(self, value, None))


def _state_help(field: FieldSpec, on: bool) -> str:
    """A switch's help line for its position (the field's ``states``), else its plain help."""
    return field.states[on] if field.states else field.help


def _match_choice(choices: Sequence[tuple[str, Any]], value: Any) -> Any:
    """The choice equal to ``value`` (strings compared case-insensitively), else ``Select.NULL``."""
    for _, choice in choices:
        if choice == value and type(choice) is type(value):
            return choice
        if isinstance(choice, str) and isinstance(value, str) and choice.lower() == value.strip().lower():
            return choice
    return Select.NULL


def section(title: str) -> Static:
    """A section heading inside a form."""
    return Static(plain(title, "bold"), classes="form-section")
