"""A click on the provider list's face (the list's stand-in for the first frame) is the list's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.tui.conftest import until
from websearch_tui.core.catalogue import SPECS
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.common.provider_face import ProviderFace
from websearch_tui.tui.search.screen import SearchScreen


async def test_a_click_on_the_face_toggles_that_provider_in_the_list(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clicks in the face's moment after the first frame did nothing (the row stayed unticked)."""

    async def later(screen: SearchScreen) -> None:  # the face stays until something asks for the list
        return None

    monkeypatch.setattr(SearchScreen, "mount_selector", later)
    monkeypatch.setattr(SearchScreen, "_load_statuses", later)  # readiness would ask for the list too
    app = make_app(("ddgs",))
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.pause()
        assert app.screen.query(ProviderFace)
        row = list(SPECS).index("exa")
        await pilot.click("#provider-face", offset=(6, 1 + row))  # below the face's top border
        await until(pilot, lambda: not app.screen.query(ProviderFace), "the list takes the face's place")
        selector = app.screen.selector
        await until(pilot, lambda: "exa" in selector.selected, "exa is ticked", detail=lambda: selector.selected)
        assert sorted(selector.selected) == ["ddgs", "exa"]
        assert selector.highlighted == row
        await until(pilot, lambda: app.focused is selector, "the list has the focus", detail=lambda: app.focused)
        await until(
            pilot,
            lambda: app.screen.pane_area.pane("exa") is not None,
            "a pane for exa",
            detail=lambda: [p.provider_id for p in app.screen.pane_area.panes],
        )
