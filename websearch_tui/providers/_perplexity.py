"""What the two Perplexity providers share (Sonar chat completions and the Search API).

- :data:`ERROR_KEYS` / :func:`describe_error`: the wording of Perplexity error bodies
  (PROVIDERS.md §2.7, §2.8).
"""

from __future__ import annotations

from websearch_tui.providers._parse import api_error_describer, find_message

ERROR_KEYS = ("error", "message", "detail", "type", "code")
"""Where a Perplexity error body keeps its message, in order (searched in nested objects too)."""

describe_error = api_error_describer("Perplexity API error", lambda parsed: find_message(parsed, ERROR_KEYS))
"""``"Perplexity API error (<status>): <message>"`` for a non-2xx response: ``error.message`` of an
OpenAI-style ``{"error": {"message", "type", "code"}}`` body, else a redacted excerpt of the body.
401/403 never reach it (they get the seed auth message)."""
