"""What the settings screen edits: one :class:`FieldSpec` per config key, and text <-> value conversion.

The fields mirror ``config.toml`` (see :mod:`websearch_tui.settings.config`): the ``[search]``, ``[verify]``
and ``[ui]`` tables, and one ``[providers.<id>]`` table per provider with ``enabled``, ``base_url``,
``mcp_url``, ``model``/``models``, ``min_interval`` (pacing) and the provider's own options
(:attr:`ProviderSpec.options`, choices from :attr:`ProviderSpec.option_choices`). This module
holds no widgets, so it is cheap to import and test.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from websearch_tui.core.models import MAX_RESULTS_LIMIT, RECENCIES
from websearch_tui.core.specs import ProviderSpec

TEXT, INT, FLOAT, LIST, BOOL, SWITCH, CHOICE = "text", "int", "float", "list", "bool", "switch", "choice"
"""Field kinds: typed text (str, whole number, number, comma-separated list), a tri-state boolean
(default / on / off), an on/off switch, and a choice from fixed values."""

KIND_GROUPS = (
    ("conventional", "Web search engines"),
    ("agent", "Agent search APIs"),
    ("model", "Model-native answers"),
)
"""Provider kinds in list order, with the heading shown above each group."""

ENABLED_STATES = ("off: never searched, even when selected", "on: searched when selected")
"""The help line of a provider's Enabled switch when it is off and when it is on."""


@dataclass(frozen=True)
class FieldSpec:
    """One editable config key.

    Attributes:
        table: ``"search"``, ``"ui"`` or ``"providers.<id>"``.
        key: the key inside the table.
        label: what the form calls it.
        kind: one of the field kinds above.
        choices: ``(label, value)`` pairs of a ``choice`` field (the blank choice means "default").
        placeholder: shown in an empty text field (usually the default that applies).
        help: one line under the field.
        states: for a switch, the help line when it is off and when it is on (it follows the switch).
    """

    table: str
    key: str
    label: str
    kind: str = TEXT
    choices: tuple[tuple[str, Any], ...] = ()
    placeholder: str = ""
    help: str = ""
    states: tuple[str, str] | tuple[()] = ()

    @property
    def ident(self) -> str:
        """A widget id for the field's control: ``f-providers-brave-base_url``."""
        return "f-" + f"{self.table}-{self.key}".replace(".", "-")


def parse_text(field: FieldSpec, text: str) -> Any:
    """The config value typed as ``text`` in ``field`` (``None``: empty, the default applies).

    Raises:
        ValueError: the text is not a value of the field's type (the message says what is expected).
    """
    text = text.strip()
    if not text:
        return None
    if field.kind == INT:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{field.label} must be a whole number, got {text!r}") from None
    if field.kind == FLOAT:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{field.label} must be a number, got {text!r}") from None
        return int(value) if value.is_integer() else value
    if field.kind == LIST:
        return [part.strip() for part in text.split(",") if part.strip()] or None
    return text


def labelled(label: str, reason: str) -> str:
    """``reason`` prefixed with ``"<label>: "`` unless it already starts with the label.

    ``labelled("Pacing", "Pacing must be a number")`` -> ``"Pacing must be a number"``;
    ``labelled("Pacing", "too large")`` -> ``"Pacing: too large"``.
    """
    return reason if reason.startswith(label) else f"{label}: {reason}"


def format_value(value: Any) -> str:
    """The text a field shows for a config ``value`` (``None``: empty; lists comma-separated)."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


THEME_NAME = re.compile(r"[\w.+-]{1,40}")
"""What a theme name looks like (``textual-dark``); another ``[ui] theme`` is not repeated in the field."""
IN_USE = " (in use)"
"""Appended to the theme shown now in the Theme field's choices (and the palette's theme list)."""


def theme_choices(themes: Sequence[str], current: str) -> tuple[tuple[str, str], ...]:
    """The Theme field's ``(label, name)`` choices: ``themes``, the one in use (``current``) marked."""
    return tuple((name + IN_USE if name == current else name, name) for name in themes)


def general_fields(themes: Sequence[str], current: str = "", configured: object = None) -> list[FieldSpec]:
    """The ``[search]``, ``[verify]`` and ``[ui]`` fields (``search.providers`` is edited as a checklist,
    not here).

    ``themes`` are the Textual theme names the app offers; ``current`` is the one in use (Textual's
    ``App.theme``): marked in the choices, and named in the field when the file's ``[ui] theme``
    (``configured``) is unset or not one of ``themes``.
    """
    in_use = f"{current} in use" if current else "Textual's default in use"
    unset = f"{in_use}; the file sets none"
    name = configured.strip() if isinstance(configured, str) else ""
    if name and name.lower() not in {theme.lower() for theme in themes}:
        named = f"{name!r} is not a theme" if THEME_NAME.fullmatch(name) else "theme is unknown"
        unset = f"{in_use}; the file's {named}"  # a Select reads its prompt as markup: only a plain name is repeated
    return [
        FieldSpec(
            "search",
            "mode",
            "Mode",
            CHOICE,
            (("compare: all providers side by side", "compare"), ("auto: the first provider that answers", "auto")),
            placeholder="default (compare)",
        ),
        FieldSpec(
            "search",
            "max_results",
            "Results per provider",
            INT,
            placeholder="10",
            help=f"1 to {MAX_RESULTS_LIMIT}",
        ),
        FieldSpec(
            "search",
            "recency",
            "Recency",
            CHOICE,
            tuple((f"past {name}", name) for name in RECENCIES),
            placeholder="any time",
        ),
        FieldSpec("search", "timeout", "Timeout", FLOAT, placeholder="60", help="seconds per provider, 1 to 600"),
        FieldSpec(
            "search",
            "max_body_mib",
            "Largest response",
            FLOAT,
            placeholder="8",
            help="MiB read from one provider before it is stopped, 1 to 1024",
        ),
        FieldSpec(
            "verify",
            "auto",
            "Check citations",
            BOOL,
            (("on: after every search", True), ("off: with C only", False)),
            placeholder="default (off: with C only)",
            help="read every cited page and mark each citation when a search ends",
        ),
        FieldSpec("ui", "theme", "Theme", CHOICE, theme_choices(themes, current), placeholder=unset),
    ]


def provider_fields(spec: ProviderSpec) -> list[FieldSpec]:
    """The ``[providers.<id>]`` fields of ``spec``, in form order: switch, endpoints, model, options, pacing."""
    table = f"providers.{spec.id}"
    fields = [FieldSpec(table, "enabled", "Enabled", SWITCH, states=ENABLED_STATES)]
    if spec.needs_base_url:
        fields.append(
            FieldSpec(
                table, "base_url", "Endpoint", placeholder="required, e.g. http://localhost:8888", help="base URL"
            )
        )
    else:
        fields.append(FieldSpec(table, "base_url", "Base URL", placeholder=spec.default_base_url or "default"))
    if spec.default_mcp_url:
        fields.append(FieldSpec(table, "mcp_url", "MCP URL", placeholder=spec.default_mcp_url, help="keyless endpoint"))
    if spec.default_model or spec.kind == "model":
        fields.append(FieldSpec(table, "model", "Model", placeholder=spec.default_model or "default"))
        fields.append(
            FieldSpec(table, "models", "Models", LIST, placeholder="a, b", help="comma-separated, used in turn")
        )
    fields += [_option_field(spec, key, kind) for key, kind in spec.options.items()]
    fields.append(
        FieldSpec(
            table,
            "min_interval",
            "Pacing",
            FLOAT,
            placeholder=f"{spec.default_min_interval:g}",
            help="seconds between two searches, 0 to 3600",
        )
    )
    return fields


def _option_field(spec: ProviderSpec, key: str, kind: type) -> FieldSpec:
    table = f"providers.{spec.id}"
    label = key.replace("_", " ").capitalize()
    choices = spec.option_choices.get(key)
    if choices:
        return FieldSpec(table, key, label, CHOICE, tuple((choice, choice) for choice in choices), "default")
    if kind is bool:
        return FieldSpec(table, key, label, BOOL, (("on", True), ("off", False)), "default")
    kinds = {int: INT, float: FLOAT, list: LIST}
    return FieldSpec(table, key, label, kinds.get(kind, TEXT), placeholder="default")
