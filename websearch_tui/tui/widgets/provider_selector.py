"""The provider checklist: every registered provider with its readiness, toggled on or off."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.content import Content
from textual.widgets import SelectionList
from textual.widgets.selection_list import Selection

from websearch_tui.core.specs import KIND_LABELS, ProviderSpec
from websearch_tui.tui.safe import clean

LABEL_WIDTH = 18
"""Provider labels are padded to this width so the kinds and statuses line up."""

SHORT_STATUS = {"missing key": "needs key", "missing base_url": "needs URL", "missing login": "no login"}
"""Compact wording for the narrow list (``websearch-tui providers`` prints the long form)."""

STATUS_STYLES = {
    "ready": "$text-success",
    "keyless": "$text-accent",
    "missing key": "$text-warning",
    "missing base_url": "$text-warning",
    "missing login": "$text-warning",
    "disabled": "dim",
}


def status_tag(status: str | None) -> tuple[str, str]:
    """The short status text and its style (``None``: an ellipsis while readiness loads)."""
    if status is None:
        return "…", "dim"
    return clean(SHORT_STATUS.get(status, status), one_line=True, limit=12), STATUS_STYLES.get(status, "dim")


def selector_prompt(spec: ProviderSpec, status: str | None) -> Content:
    """``Label  kind  status`` as plain content (status ``None`` shows an ellipsis while it loads)."""
    label = Content(spec.label.ljust(LABEL_WIDTH) + " ")
    kind = (KIND_LABELS.get(spec.kind, spec.kind).ljust(6), "dim")
    return Content.assemble(label, kind, status_tag(status))


class ProviderSelector(SelectionList[str]):
    """A :class:`SelectionList` of provider ids; :meth:`set_status` fills in readiness later."""

    DEFAULT_CSS = """
    ProviderSelector { height: 1fr; }
    """

    def __init__(self, specs: Sequence[ProviderSpec], selected: Iterable[str], *, id: str | None = None) -> None:
        chosen = set(selected)
        self.specs = {spec.id: spec for spec in specs}
        self.statuses: dict[str, str] = {}
        super().__init__(
            *(Selection(selector_prompt(spec, None), spec.id, spec.id in chosen, id=spec.id) for spec in specs),
            id=id,
        )
        self.border_title = Content("Providers")

    def set_status(self, provider_id: str, status: str) -> None:
        """Show ``status`` ("ready", "keyless", "missing key", ...) next to ``provider_id``."""
        spec = self.specs.get(provider_id)
        if spec is None:
            return
        self.statuses[provider_id] = status
        self.replace_option_prompt(provider_id, selector_prompt(spec, status))
