"""The form of one provider in the settings screen: :class:`ProviderForm`.

Title and subtitle (kind, what it needs, its config table), then its key section
(:class:`~websearch_tui.tui.settings.key_section.KeySection`: keys, Save key, Delete, or its login),
its settings (one :class:`~websearch_tui.tui.settings.setting_row.SettingRow` per config key, the
rarely changed ones folded under "Advanced") and its Test
(:class:`~websearch_tui.tui.settings.probe_section.ProbeSection`). The form owns its key actions and
its Test; what the screen needs to know arrives as messages (:class:`SettingRow.Edited`,
:class:`KeyRow.Typed`, :class:`KeySection.KeysChanged`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Static

from websearch_tui.core.results import OnUpdate, ProviderOutcome
from websearch_tui.core.specs import KIND_LABELS, KeyNeed, ProviderSpec
from websearch_tui.secrets.credentials import KeyStore
from websearch_tui.tui.common.safe import plain
from websearch_tui.tui.settings.fields import FieldSpec
from websearch_tui.tui.settings.key_section import KeySection
from websearch_tui.tui.settings.probe_section import ProbeSection
from websearch_tui.tui.settings.setting_row import Check, SettingRow, section

ADVANCED_KEYS = frozenset({"mcp_url", "models", "min_interval"})
"""Provider keys shown folded under "Advanced" (rarely changed)."""

KEY_NEEDS: dict[KeyNeed, str] = {
    "login": "uses an existing login",
    "none": "keyless",
    "optional": "key optional",
    "required": "key required",
}
"""How a form's subtitle words what the provider needs (:attr:`ProviderSpec.key_need`)."""

Probe = Callable[[str, Mapping[str, str], OnUpdate], Awaitable[ProviderOutcome]]
"""``probe(provider_id, typed, on_update) -> outcome``: one Test with the screen's pending settings
and the typed keys (credential name -> value), reporting the engine's updates to ``on_update``."""


def subtitle(spec: ProviderSpec) -> str:
    """``"model-native · key required · [providers.openai]"``."""
    return f"{KIND_LABELS.get(spec.kind, spec.kind)} · {KEY_NEEDS[spec.key_need]} · [providers.{spec.id}]"


class ProviderForm(VerticalScroll, can_focus=False):
    """The form of one provider: keys (or its login), settings, Advanced, and the Test action.

    The form scrolls but never takes focus itself: Tab from the provider list goes to its first
    field (a focused scroll container would swallow typed text without a sign), and the form
    scrolls to whichever field is focused.

    Args:
        spec: the provider.
        fields: its :func:`~websearch_tui.tui.settings.fields.provider_fields`.
        values: current document value by key.
        check: the validity check.
        key_store: the app's key store.
        probe: runs its Test (:data:`Probe`).
        typed: keys typed earlier in this session and not stored, by credential name.
        key_note: a warning shown in the key section (e.g. why keys cannot go to an OS keyring); "" for none.
    """

    DEFAULT_CSS = """
    ProviderForm { padding: 0 2; }
    ProviderForm .form-title { margin: 1 0 0 0; }
    ProviderForm .form-subtitle { color: $text-muted; margin: 0 0 1 0; }
    ProviderForm .form-section { color: $text-secondary; }
    ProviderForm > .form-section { margin: 1 0 1 0; }
    ProviderForm > .form-actions { height: auto; margin: 0 0 1 0; }
    ProviderForm .form-actions Button { margin: 0 1 0 0; }
    """

    def __init__(
        self,
        spec: ProviderSpec,
        fields: Iterable[FieldSpec],
        values: Mapping[str, Any],
        check: Check,
        *,
        key_store: KeyStore,
        probe: Probe,
        typed: Mapping[str, str] | None = None,
        key_note: str = "",
    ) -> None:
        super().__init__(id=f"form-{spec.id}")
        self.spec = spec
        self.fields = list(fields)
        self.values = values
        self.check = check
        self.key_store = key_store
        self.probe = probe
        self.typed = dict(typed or {})
        self.key_note = key_note

    def compose(self) -> ComposeResult:
        """Title, keys, settings, advanced settings and the Test row."""
        spec = self.spec
        yield Static(plain(spec.label, "bold"), classes="form-title")
        yield Static(plain(subtitle(spec)), classes="form-subtitle")
        yield KeySection(spec, self.key_store, self.typed, self.key_note)
        yield section("Settings")
        for field in self.fields:
            if field.key not in ADVANCED_KEYS:
                yield SettingRow(field, self.values.get(field.key), self.check)
        with Collapsible(title="Advanced", collapsed=True):
            for field in self.fields:
                if field.key in ADVANCED_KEYS:
                    yield SettingRow(field, self.values.get(field.key), self.check)
        yield section("Test")
        yield ProbeSection(spec, self._run_probe)

    @property
    def keys(self) -> KeySection:
        """The key section."""
        return self.query_one(KeySection)

    def typed_keys(self) -> dict[str, str]:
        """The keys typed and not stored yet, by credential name (empty: none)."""
        return self.keys.typed()

    async def store_keys(self) -> bool:
        """Store the typed keys, as Save key does; True when every one was stored. Must run in a
        worker (it may ask about the key file)."""
        return await self.keys.store_keys()

    def cancel_test(self) -> bool:
        """Cancel a running Test (it says "Test cancelled."); True if one ran."""
        return self.query_one(ProbeSection).cancel()

    def _run_probe(self, on_update: OnUpdate) -> Awaitable[ProviderOutcome]:
        """One Test with the typed keys that could be stored (:meth:`KeySection.test_values`)."""
        return self.probe(self.spec.id, self.keys.test_values(), on_update)
