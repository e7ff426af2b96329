"""The footer: rebuilt when the keys it shows change, kept when an update leaves them as they were."""

from __future__ import annotations

import gc
import weakref

from textual.widgets._footer import FooterKey

from tests.tui.conftest import submit, wait_for_search
from tests.tui.test_search_screen import full_result, pane


def keys(app) -> list[FooterKey]:
    """The footer's key widgets."""
    return list(app.screen.query(FooterKey))


async def test_the_footer_is_rebuilt_only_when_its_keys_change(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = full_result
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "keys")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.pause()
        in_a_pane = keys(app)
        assert "Open" in [key.description for key in in_a_pane]
        pane(app, "exa").focus_target()  # the same keys, from another pane: the footer is kept
        await pilot.pause()
        assert keys(app) == in_a_pane and all(a is b for a, b in zip(keys(app), in_a_pane, strict=True))
        app.screen.query_input.focus()  # the query box offers other keys: the footer is rebuilt
        await pilot.pause()
        assert "Open" not in [key.description for key in keys(app)]
        assert not set(map(id, keys(app))) & set(map(id, in_a_pane))


async def test_the_keys_a_rebuild_removes_are_freed(make_app, fake_streams):
    """Issue 28 (memory): Textual's footer binds each key to its ``compact`` reactive, and a key's style
    cache is a key of one of Textual's lru_caches; the keys a rebuild removes, and their style caches,
    are not kept alive by either (they were, about 11 widgets a search)."""
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "keys")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()  # a pane offers other keys than the query box: a rebuild
        await pilot.pause()
        before = [weakref.ref(key) for key in keys(app)]
        before += [weakref.ref(key._styles_cache) for key in keys(app)]  # with the lines they drew
        assert "Open" in [key.description for key in keys(app)]
        app.screen.query_input.focus()  # back to the query box: the footer is rebuilt without them
        await pilot.pause()
        assert "Open" not in [key.description for key in keys(app)]
        gc.collect()
        assert [ref() for ref in before if ref() is not None] == []
