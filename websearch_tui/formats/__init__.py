"""Output formats of a search, one module per format (no re-exports: import from the module):

- :mod:`~websearch_tui.formats.llm` — the LLM text (the seed format, PROVIDERS.md §1.13) of a
  response, an outcome and a search, and the merged view for agents;
- :mod:`~websearch_tui.formats.text` — the plain-text report;
- :mod:`~websearch_tui.formats.markdown` — the Markdown report and its escaping;
- :mod:`~websearch_tui.formats.json_document` — the JSON document, its schema and ``to_json``;
- :mod:`~websearch_tui.formats.common` — helpers several formats share.

All functions are pure: ``SearchResult`` in, ``str`` or ``dict`` out.
"""
