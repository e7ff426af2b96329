"""What a row of the provider list shows, shared by the list (:mod:`.provider_selector`), the face the
first frame draws in its place (:mod:`.provider_face`) and the settings screen's provider list: the
prompt (label, kind, readiness), the readiness styles, the check box marks and the list's key hint.
Light on purpose (no Textual widget): the first frame imports it, not the selection list."""

from __future__ import annotations

from textual.content import Content

from websearch_tui.core.specs import DISABLED, KEYLESS, KIND_LABELS, NEEDS_KEY, NEEDS_URL, NO_LOGIN, READY, ProviderSpec
from websearch_tui.tui.common.safe import clean

LABEL_WIDTH = 18
"""Provider labels are padded to this width so the kinds and statuses line up."""

STATUS_STYLES = {
    READY: "$text-success",
    KEYLESS: "$text-accent",
    NEEDS_KEY: "$text-warning",
    NEEDS_URL: "$text-warning",
    NO_LOGIN: "$text-warning",
    DISABLED: "dim",
}
"""The style of each readiness word (:data:`~websearch_tui.core.specs.READINESS`, shown as it is)."""

SELECTED_MARK = "✓"
"""Drawn in the check box of a selected item; an unselected one has an empty box."""
UNSELECTED_MARK = " "

KEYS_HINT = "a all · n none · o only · p preset"
"""The list's own keys, shown on its bottom border."""


def status_tag(status: str | None) -> tuple[str, str]:
    """The short status text and its style (``None``: an ellipsis while readiness loads)."""
    if status is None:
        return "…", "dim"
    return clean(status, one_line=True, limit=12), STATUS_STYLES.get(status, "dim")


def selector_prompt(spec: ProviderSpec, status: str | None) -> Content:
    """``Label  kind  status`` as plain content (status ``None`` shows an ellipsis while it loads)."""
    label = Content(spec.label.ljust(LABEL_WIDTH) + " ")
    kind = (KIND_LABELS.get(spec.kind, spec.kind).ljust(6), "dim")
    return Content.assemble(label, kind, status_tag(status))
