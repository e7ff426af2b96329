"""The settings screen's left column: "General", then every provider grouped by kind with a status tag."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from websearch_tui.core.specs import ProviderSpec
from websearch_tui.tui.common.provider_rows import status_tag
from websearch_tui.tui.settings.fields import KIND_GROUPS

GENERAL = "general"
"""Option id of the General entry."""

LABEL_WIDTH = 18


def nav_prompt(spec: ProviderSpec, status: str | None) -> Content:
    """``  Label               status`` (status ``None``: an ellipsis while it loads)."""
    text, style = status_tag(status)
    return Content.assemble(Content("  " + spec.label.ljust(LABEL_WIDTH) + " "), (text, style))


class SettingsNav(OptionList):
    """General plus one option per provider (option id = provider id), under kind headings."""

    DEFAULT_CSS = """
    SettingsNav { width: 38; height: 1fr; }
    """

    def __init__(self, specs: Sequence[ProviderSpec], *, id: str | None = None) -> None:
        self.specs = {spec.id: spec for spec in specs}
        options: list[Option] = [Option(Content.styled("General", "bold"), id=GENERAL)]
        for kind, heading in KIND_GROUPS:
            group = [spec for spec in specs if spec.kind == kind]
            if group:
                options.append(
                    Option(Content.styled(heading, "bold $text-secondary"), id=f"group-{kind}", disabled=True)
                )
                options += [Option(nav_prompt(spec, None), id=spec.id) for spec in group]
        others = [spec for spec in specs if spec.kind not in dict(KIND_GROUPS)]
        options += [Option(nav_prompt(spec, None), id=spec.id) for spec in others]
        super().__init__(*options, id=id)
        self.border_title = Content("Settings")

    def set_status(self, provider_id: str, status: str) -> None:
        """Show ``status`` ("ready", "keyless", "needs key", "disabled", ...) next to the provider."""
        spec = self.specs.get(provider_id)
        if spec is not None:
            self.replace_option_prompt(provider_id, nav_prompt(spec, status))
