"""The reader view: a page read inside the app (``v`` on a source, a citation or a merged row).

:mod:`~websearch_tui.tui.reader.request` is what the search screen's widgets post to open it,
:mod:`~websearch_tui.tui.reader.screen` the screen itself (imported when first opened),
:mod:`~websearch_tui.tui.reader.page_view` the page's text with its highlights and
:mod:`~websearch_tui.tui.reader.locate` where a passage or a search term is in it.
"""
