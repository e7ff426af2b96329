"""Patterns a search does not use are compiled at their first use (core.text.pattern), not at import."""

from __future__ import annotations

import subprocess
import sys

LAZY_MODULES = (
    "websearch_tui.core.errors",
    "websearch_tui.core.text",
    "websearch_tui.core.logs",
    "websearch_tui.core.pages",
    "websearch_tui.cli.render",
    "websearch_tui.history.codec",
    "websearch_tui.history.index",
    "websearch_tui.settings.config",
    "websearch_tui.providers.helpers.models",
    "websearch_tui.providers.families.perplexity_common",
)
"""Modules a search (or the TUI's first frame) imports whose patterns serve errors, Markdown, keys,
text to clean or other commands only."""

CODE = """
import re, sys
compiled_by = []
real = re.compile
def counting(source, flags=0):
    compiled_by.append(sys._getframe(1).f_globals.get("__name__"))
    return real(source, flags)
re.compile = counting
import websearch_tui.cli.commands.search, websearch_tui.cli.render, websearch_tui.engine.engine
import websearch_tui.providers.families.perplexity_common, websearch_tui.providers.helpers.models
import websearch_tui.settings.config
print(" ".join(sorted(set(compiled_by))))
from websearch_tui.core.text import sanitize
sanitize("a\x07b")
print(" ".join(sorted(set(compiled_by))))
"""


def test_search_modules_compile_no_unused_pattern_at_import() -> None:
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    at_import, after_use = (set(line.split()) for line in done.stdout.splitlines())
    assert "websearch_tui.core.text" in after_use  # the counting works: sanitize's pattern is compiled at its use
    assert at_import.isdisjoint(LAZY_MODULES)


def test_index_form_of_text_without_cjk_compiles_nothing() -> None:
    """A search's history row (query, answers, sources) in a script without CJK does not compile the
    CJK pattern (about 2 ms); with CJK it is split as before."""
    from websearch_tui.core.text import pattern
    from websearch_tui.history import index

    pattern.cache_clear()
    assert index.index_form("python asyncio, café déjà vu") == "python asyncio, café déjà vu"
    assert pattern.cache_info().currsize == 0
    assert index.index_form("asyncio教程") == "asyncio 教 程 "
    assert index.index_form("a\u1100b") == "a \u1100 b"  # the lowest CJK character
    assert min(index._CJK_CHARS.replace("-", "")) == index._CJK_FIRST
