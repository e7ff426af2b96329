"""The form area of the settings screen: :class:`SettingsForms`, one form per entry, built lazily.

Each entry's form ("general" or a provider id) is built by the screen's ``build`` callable the
first time it is shown and kept afterwards (its typed keys and edits stay). A highlight that only
passes over an entry does not build it (:meth:`SettingsForms.show_soon` waits
:data:`FORM_DELAY` first). Leaving a provider's form cancels its running Test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from textual import work
from textual.widget import Widget
from textual.widgets import ContentSwitcher

from websearch_tui.tui.common.workers import ReportsFailedWorkers
from websearch_tui.tui.settings.provider_form import ProviderForm

FORM_DELAY = 0.08
"""Seconds the highlight must rest on a provider before its form is built (a form takes ~0.1-0.3 s)."""

LOADING = "form-loading"
"""Id of the placeholder shown until the first form is built (a child given at composition)."""

BuildForm = Callable[[str, "Mapping[str, str] | None"], Widget]
"""``build(entry, typed) -> form``: the form of ``entry``, with keys typed earlier (or None)."""


class SettingsForms(ContentSwitcher, ReportsFailedWorkers):
    """Shows the form of one entry at a time; form ids are ``form-<entry>``.

    Args:
        build: builds an entry's form (:data:`BuildForm`).
        id: the widget id.
    """

    def __init__(self, *children: Widget, build: BuildForm, id: str | None = None) -> None:
        super().__init__(*children, id=id, initial=LOADING)
        self._build = build
        self._wanted = ""
        self._building: set[str] = set()

    @property
    def entry(self) -> str:
        """The entry whose form is shown (``""`` while none is)."""
        current = self.current or LOADING
        return "" if current == LOADING else current.removeprefix("form-")

    def provider_forms(self) -> list[ProviderForm]:
        """Every provider form built so far, in the order they were built."""
        return list(self.query(ProviderForm))

    def built(self, entry: str) -> Widget | None:
        """The form of ``entry`` when it is built, else None."""
        return next(iter(self.query(f"#form-{entry}")), None)

    async def show(self, entry: str) -> None:
        """Show the form of ``entry``, building it on first use (unless another entry is wanted by
        the time it is built). Leaving a provider's form cancels its running Test."""
        self._wanted = entry
        if self.built(entry) is None and not await self._add(entry):
            return
        if self._wanted != entry:
            return
        left = self.built(self.entry) if self.entry else None
        if isinstance(left, ProviderForm) and self.entry != entry:
            left.cancel_test()
        self.current = f"form-{entry}"

    async def want(self, entry: str) -> None:
        """The highlight rests on ``entry``: show its form now if it is built, else soon."""
        self._wanted = entry
        if self.built(entry) is None:
            self.show_soon(entry)
        else:
            await self.show(entry)

    @work(group="settings-form", exit_on_error=False, description="show a form")
    async def show_soon(self, entry: str) -> None:
        """Build ``entry``'s form unless the highlight moves on first (holding ↓ builds only the last)."""
        await asyncio.sleep(FORM_DELAY)
        if self._wanted == entry:
            await self.show(entry)

    async def rebuild(self) -> None:
        """Drop every form (after the document was reloaded) and show the current entry again; the
        forms that hold typed keys are built again at once, with them."""
        current = self.entry or "general"
        typed = {form.spec.id: form.typed_keys() for form in self.provider_forms()}
        self.current = LOADING
        for form in [child for child in self.children if child.id != LOADING]:
            await form.remove()
        for provider_id, keys in typed.items():
            if keys:
                await self._add(provider_id, keys)
        await self.show(current)

    async def _add(self, entry: str, typed: Mapping[str, str] | None = None) -> bool:
        """Build and mount the form of ``entry`` (hidden); False when it is being built already."""
        if entry in self._building:
            return False
        self._building.add(entry)
        try:
            await self.add_content(self._build(entry, typed), id=f"form-{entry}")
        finally:
            self._building.discard(entry)
        return True
