"""Form widgets of the settings screen: one row per config key, one row per credential, the forms.

A :class:`SettingRow` edits one :class:`~websearch_tui.tui.widgets.settings_fields.FieldSpec`
with the right control (Input with a validator, Switch or Select), refuses invalid values at the
field with the reason given by the ``check`` callable (``ConfigEditor.check``), and posts
:class:`SettingRow.Edited` with the parsed value. A :class:`KeyRow` edits one credential in a
masked Input and shows where the stored value comes from; it never shows a stored value. All
text reaches the screen with markup off.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Collapsible, Input, Select, SelectionList, Static, Switch
from textual.widgets.selection_list import Selection

from websearch_tui.core.specs import KIND_LABELS, CredentialSpec, ProviderSpec
from websearch_tui.search.engine import PROBE_QUERY
from websearch_tui.tui.safe import clean, plain
from websearch_tui.tui.widgets.ordered_input import OrderedInput
from websearch_tui.tui.widgets.settings_fields import (
    BOOL,
    CHOICE,
    SWITCH,
    FieldSpec,
    credential_label,
    credential_problem,
    format_value,
    parse_text,
)

Check = Callable[[str, str, Any], "str | None"]
"""``(table, key, value) -> reason | None``: why a value is refused (``ConfigEditor.check``)."""

TEST_QUERY = PROBE_QUERY
"""The query the Test action sends (the engine's probe query)."""

TEST_HINT = f"Sends one search for “{TEST_QUERY}” (1 result) with the settings above, saved or not."

ADVANCED_KEYS = frozenset({"mcp_url", "models", "min_interval"})
"""Provider keys shown folded under "Advanced" (rarely changed)."""


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


class CredentialValidator(Validator):
    """Refuses credential text that could not be stored (control characters, ``:`` in a username)."""

    def __init__(self, credential: CredentialSpec) -> None:
        super().__init__()
        self.credential = credential

    def validate(self, value: str) -> ValidationResult:
        """Failure with the reason from :func:`credential_problem`."""
        problem = credential_problem(self.credential, value)
        return self.failure(problem) if problem else self.success()


def _first_failure(result: ValidationResult | None) -> str | None:
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
            return Switch(value=self.initial is not False, id=field.ident)
        if field.kind in (CHOICE, BOOL):
            value = _match_choice(field.choices, self.initial)
            return Select(
                list(field.choices), value=value, prompt=field.placeholder or "default", id=field.ident, compact=True
            )
        return OrderedInput(
            format_value(self.initial),
            placeholder=field.placeholder,
            validators=[FieldValidator(field, self.check)],
            valid_empty=True,
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
        reason = _first_failure(event.validation_result)
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


class KeyRow(Vertical):
    """One credential: a masked Input for a new value, where the stored one comes from, a Delete button.

    ``typed`` is the text typed and not yet stored; the stored value is never read into the widget.
    """

    DEFAULT_CSS = """
    KeyRow { height: auto; margin: 0 0 1 0; }
    KeyRow > Horizontal { height: auto; }
    KeyRow .setting-label { width: 22; padding: 0 1 0 0; }
    KeyRow Input { width: 1fr; max-width: 60; min-width: 16; }
    KeyRow Button { margin: 0 0 0 1; min-width: 10; }
    KeyRow .key-source { padding: 0 0 0 22; height: auto; color: $text-muted; }
    KeyRow.-invalid .key-source { color: $text-error; }
    KeyRow .key-note { padding: 0 0 0 22; height: auto; color: $text-warning; }
    """

    class Typed(Message):
        """The typed text changed; ``problem`` says why it cannot be stored (``None``: it can)."""

        def __init__(self, row: KeyRow, problem: str | None) -> None:
            super().__init__()
            self.row = row
            self.problem = problem

        @property
        def control(self) -> KeyRow:
            """The row that changed."""
            return self.row

    def __init__(self, spec: ProviderSpec, credential: CredentialSpec, typed: str = "") -> None:
        super().__init__(id=f"key-{spec.id}-{credential.name}")
        self.spec = spec
        self.credential = credential
        self._typed = typed
        self.source: Any = None

    def compose(self) -> ComposeResult:
        """Label, masked input, Delete button; then the source line and the environment note."""
        secret = self.credential.secret
        with Horizontal():
            yield Static(plain(credential_label(self.credential)), classes="setting-label")
            yield OrderedInput(
                self._typed,
                placeholder="paste a new key" if secret else "type a new value",
                password=secret,
                validators=[CredentialValidator(self.credential)],
                valid_empty=True,
                compact=True,
                classes="key-input",
            )
            yield Button("Delete", variant="error", compact=True, classes="key-delete", disabled=True)
        yield Static(plain("Source: checking…"), classes="key-source")
        yield Static(classes="key-note").set_styles(display="none")

    @property
    def input(self) -> Input:
        """The masked input."""
        return self.query_one(".key-input", Input)

    @property
    def typed(self) -> str:
        """The typed value, stripped ("" when nothing was typed)."""
        return self.input.value.strip()

    @property
    def from_env(self) -> bool:
        """True when the environment provides this credential (the screen cannot change it)."""
        return getattr(self.source, "where", None) == "env"

    @property
    def stored(self) -> bool:
        """True when a value is stored in the keyring or the key file."""
        return getattr(self.source, "where", None) in ("keyring", "file")

    def set_source(self, source: Any) -> None:
        """Show where the credential comes from (a ``credentials.CredentialSource``).

        An environment variable wins over stored keys, so the input and Delete are disabled then,
        with a note saying why.
        """
        self.source = source
        described = source.describe() if source is not None else "not set"
        self.query_one(".key-source", Static).update(plain(f"Source: {described}"))
        env = self.from_env
        self.input.disabled = env
        self.input.placeholder = f"set by {described}" if env else self.input.placeholder
        self.query_one(".key-delete", Button).disabled = env or not self.stored
        note = (
            f"The environment variable {source.env_var} takes precedence over stored keys, so this key cannot be "
            "changed here. Unset it in your shell to manage the key from this screen."
            if env
            else ""
        )
        note_line = self.query_one(".key-note", Static)
        note_line.update(plain(note))
        note_line.display = bool(note)

    def clear(self) -> None:
        """Forget the typed value (after it was stored)."""
        self.input.value = ""

    @on(Input.Changed)
    def _on_input(self, event: Input.Changed) -> None:
        event.stop()
        problem = _first_failure(event.validation_result)
        self.set_class(problem is not None, "-invalid")
        if problem:
            self.query_one(".key-source", Static).update(plain(problem))
        elif self.source is not None:
            self.set_source(self.source)
        self.post_message(self.Typed(self, problem))


def section(title: str) -> Static:
    """A section heading inside a form."""
    return Static(plain(title, "bold"), classes="form-section")


class ProviderForm(VerticalScroll):
    """The form of one provider: keys (or its login), settings, Advanced, and the Test action.

    Args:
        spec: the provider.
        fields: its :func:`~websearch_tui.tui.widgets.settings_fields.provider_fields`.
        values: current document value by key.
        check: the validity check.
        typed: keys typed earlier in this session and not stored, by credential name.
        key_note: a warning shown in the key section (e.g. why keys cannot go to an OS keyring); "" for none.
    """

    DEFAULT_CSS = """
    ProviderForm { padding: 0 2; }
    ProviderForm .form-title { margin: 1 0 0 0; }
    ProviderForm .form-subtitle { color: $text-muted; margin: 0 0 1 0; }
    ProviderForm .form-section { margin: 1 0 1 0; color: $text-secondary; }
    ProviderForm .form-actions { height: auto; margin: 0 0 1 0; }
    ProviderForm .form-actions Button { margin: 0 1 0 0; }
    ProviderForm .keys-status { height: auto; margin: 0 0 1 0; }
    ProviderForm .key-store-note { height: auto; margin: 0 0 1 0; color: $text-warning; }
    ProviderForm .test-result { height: auto; padding: 0 0 0 1; width: 1fr; }
    ProviderForm .test-result.-ok { color: $text-success; }
    ProviderForm .test-result.-failed { color: $text-error; }
    """

    def __init__(
        self,
        spec: ProviderSpec,
        fields: Iterable[FieldSpec],
        values: dict[str, Any],
        check: Check,
        typed: dict[str, str],
        key_note: str = "",
    ) -> None:
        super().__init__(id=f"form-{spec.id}")
        self.spec = spec
        self.fields = list(fields)
        self.values = values
        self.check = check
        self.typed = typed
        self.key_note = key_note
        self._retry_timer: Timer | None = None
        self._retry: tuple[float, str] = (0.0, "")

    def compose(self) -> ComposeResult:
        """Title, keys, settings, advanced settings and the Test row."""
        spec = self.spec
        yield Static(plain(spec.label, "bold"), classes="form-title")
        yield Static(plain(_subtitle(spec)), classes="form-subtitle")
        yield from self._keys()
        yield section("Settings")
        for field in self.fields:
            if field.key not in ADVANCED_KEYS:
                yield SettingRow(field, self.values.get(field.key), self.check)
        with Collapsible(title="Advanced", collapsed=True):
            for field in self.fields:
                if field.key in ADVANCED_KEYS:
                    yield SettingRow(field, self.values.get(field.key), self.check)
        yield section("Test")
        with Horizontal(classes="form-actions"):
            yield Button("Test", id=f"test-{spec.id}", classes="test-button", compact=True)
            yield Static(plain(TEST_HINT), classes="test-result")

    def _keys(self) -> ComposeResult:
        spec = self.spec
        if spec.login:
            yield section("Login")
            yield Static(plain("checking…"), classes="login-state")
            return
        if not spec.credentials:
            yield section("Key")
            yield Static(plain("No key needed."), classes="keys-status")
            return
        yield section("Keys" if len(spec.credentials) > 1 else "Key")
        for credential in spec.credentials:
            yield KeyRow(spec, credential, self.typed.get(credential.name, ""))
        with Horizontal(classes="form-actions"):
            yield Button("Save key", variant="primary", id=f"save-key-{spec.id}", classes="save-key", compact=True)
        yield Static(classes="keys-status").set_styles(display="none")
        if self.key_note:
            yield Static(plain(self.key_note), classes="key-store-note")

    @property
    def key_rows(self) -> list[KeyRow]:
        """The credential rows (empty for keyless and login providers)."""
        return list(self.query(KeyRow))

    def show_keys_status(self, text: str, *, error: bool = False) -> None:
        """A one-line outcome of the last key action, under the Save key button."""
        status = self.query_one(".keys-status", Static)
        status.update(plain(text, "$text-error" if error else "$text-success"))
        status.display = True

    def show_test(self, text: str, *, ok: bool | None) -> None:
        """The Test outcome or state (``ok`` None: neither passed nor failed, e.g. in progress)."""
        self._stop_countdown()
        result = self.query_one(".test-result", Static)
        result.set_class(ok is True, "-ok")
        result.set_class(ok is False, "-failed")
        result.update(plain(text))

    def show_searching(self) -> None:
        """The Test search is on its way (again, after a retry wait)."""
        self.show_test(f"Searching “{TEST_QUERY}”…", ok=None)

    def show_retry(self, delay: float, reason: str) -> None:
        """The Test search waits ``delay`` seconds before resending (``reason``: ``"429"``, ``"timeout"``).

        Shows ``Searching “test”… retrying in 3s (429)…``, counting down each second until the next
        :meth:`show_test` or :meth:`show_searching`.
        """
        self.show_searching()
        self._retry = (time.monotonic() + delay, reason)
        self._show_countdown()
        self._retry_timer = self.set_interval(1.0, self._show_countdown)

    def _show_countdown(self) -> None:
        until, reason = self._retry
        left = max(math.ceil(until - time.monotonic()), 0)
        text = f"Searching “{TEST_QUERY}”… retrying in {left}s ({clean(reason, one_line=True, limit=20)})…"
        self.query_one(".test-result", Static).update(plain(text))

    def _stop_countdown(self) -> None:
        if self._retry_timer is not None:
            self._retry_timer.stop()
            self._retry_timer = None

    def show_login(self, text: str) -> None:
        """The state of the login a provider uses instead of a key (Codex)."""
        self.query_one(".login-state", Static).update(plain(text))


def _subtitle(spec: ProviderSpec) -> str:
    kind = KIND_LABELS.get(spec.kind, spec.kind)
    need = "uses an existing login" if spec.login else ("key optional" if spec.keyless else "key required")
    if not spec.credentials and not spec.login:
        need = "keyless"
    return f"{kind} · {need} · [providers.{spec.id}]"


class GeneralForm(VerticalScroll):
    """The ``[search]`` and ``[ui]`` settings: default providers, mode, result count, recency, timeout, theme.

    Args:
        fields: the :func:`~websearch_tui.tui.widgets.settings_fields.general_fields`.
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
        """Title, the default-provider checklist, the search and look settings."""
        yield Static(plain("General", "bold"), classes="form-title")
        yield section("Default providers")
        chosen = set(self.selected)
        yield SelectionList[str](
            *(Selection(plain(spec.label), spec.id, spec.id in chosen) for spec in self.specs),
            id="f-search-providers",
            compact=True,
        )
        yield Static(
            plain("Selected on start; the main screen's list (F2) changes it per search."), classes="setting-help"
        )
        yield section("Search")
        for field in self.fields:
            if field.table == "search":
                yield SettingRow(field, self.values.get((field.table, field.key)), self.check)
        yield section("Look")
        for field in self.fields:
            if field.table != "search":
                yield SettingRow(field, self.values.get((field.table, field.key)), self.check)

    def default_providers(self) -> list[str]:
        """The checked providers: the configured order first, then newly checked ones in list order."""
        checked = set(self.query_one("#f-search-providers", SelectionList).selected)
        order = [pid for pid in self.selected if pid in checked]
        return order + [spec.id for spec in self.specs if spec.id in checked and spec.id not in order]
