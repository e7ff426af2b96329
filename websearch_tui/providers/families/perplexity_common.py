"""What the two Perplexity providers share (the answer engine, Agent API or Sonar chat
completions, and the Search API).

- :data:`ERROR_KEYS` / :func:`describe_error`: the wording of Perplexity error bodies
  (PROVIDERS.md §2.7, §2.8);
- :func:`describe_answer_error` / :func:`model_check`: the same, pointing at the ``model`` setting
  when the error is about the model, and :func:`.helpers.models.model_not_found` when the model does not
  exist (the answer engine only);
- :func:`domain_filter`: the ``search_domain_filter`` option, checked (the answer engine only);
- :func:`stream_answer`: one answer-engine request (Agent API or chat completions) through the
  shared SSE loop.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import Any

from websearch_tui.core.models import SearchEvent
from websearch_tui.core.text import pattern
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.models import ModelCheck, perplexity_gone
from websearch_tui.providers.helpers.parse import api_error_describer, as_dict, find_message
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.shape import Shape
from websearch_tui.providers.transport.streaming import StreamParser, feed_stream

ERROR_KEYS = ("error", "message", "detail", "type", "code")
"""Where a Perplexity error body keeps its message, in order (searched in nested objects too)."""

describe_error = api_error_describer("Perplexity API error", lambda parsed: find_message(parsed, ERROR_KEYS))
"""``"Perplexity API error (<status>): <message>"`` for a non-2xx response: ``error.message`` of an
OpenAI-style ``{"error": {"message", "type", "code"}}`` body, else a redacted excerpt of the body.
401/403 never reach it (they get the seed auth message)."""

MODEL_HINT = "Set [providers.perplexity] model, or run websearch-tui doctor perplexity."
"""The sentence added to an error about the model: where to change it, how to check it."""
_ABOUT_MODEL = r"(?i)\b(?:model|preset)\b"


def is_model_error(message: str | None, status: int | None) -> bool:
    """True for a 400 whose message names the model or preset (``"unknown preset"``, ``"max_output_tokens
    is required for this model"``): the setting to look at is ``model``."""
    return status == 400 and bool(message and pattern(_ABOUT_MODEL).search(message))


def with_model_hint(message: str) -> str:
    """``message`` with :data:`MODEL_HINT` after it."""
    return f"{message.rstrip().rstrip('.')}. {MODEL_HINT}"


def describe_answer_error(status: int, text: str, parsed: Any) -> str:
    """:func:`describe_error`, with :data:`MODEL_HINT` after a 400 about the model (a model that does
    not exist is worded by :class:`.helpers.models.ModelCheck` before this is asked)."""
    message = describe_error(status, text, parsed)
    api_message = find_message(as_dict(as_dict(parsed).get("error")), ("message",)) or message.partition(": ")[2]
    return with_model_hint(message) if is_model_error(api_message, status) else message


def model_check(provider_id: str, model: str) -> ModelCheck:
    """The :class:`.helpers.models.ModelCheck` of one answer-engine request for ``model`` (its describer wraps
    :func:`describe_answer_error`)."""
    return ModelCheck(provider_id, "Perplexity", model, perplexity_gone)


MAX_DOMAINS = 20
"""The most entries Perplexity accepts in ``search_domain_filter``."""
_HOST = r"^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$"


def domain_filter(value: object) -> tuple[list[str], list[str]]:
    """``(hosts, notes)`` for the ``search_domain_filter`` option: a list of hosts (``example.com``;
    ``-example.com`` excludes it), or one string of them separated by commas or spaces.

    Each entry is lower-cased, a scheme and a path are dropped (``https://example.com/x`` ->
    ``example.com``) and repeats are removed; an entry that is not a host name is left out, and
    entries past :data:`MAX_DOMAINS` too, each with a note. ``None`` or an empty list gives ``([], [])``.
    """
    items = re.split(r"[\s,]+", value) if isinstance(value, str) else value if isinstance(value, list) else []
    hosts: list[str] = []
    bad: list[str] = []
    for item in items:
        if not isinstance(item, str):
            bad.append(repr(item))
            continue
        text = item.strip().lower()
        if not text:
            continue
        sign, host = ("-", text[1:].strip()) if text.startswith("-") else ("", text)
        host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", host).split("/", 1)[0].rstrip(".")
        if not pattern(_HOST).match(host):
            bad.append(repr(item))
        elif sign + host not in hosts:
            hosts.append(sign + host)
    notes = []
    if bad:
        notes.append(
            f"Perplexity search_domain_filter: left out {', '.join(bad[:5])} (not a host name such as example.com)."
        )
    if len(hosts) > MAX_DOMAINS:
        notes.append(
            f"Perplexity search_domain_filter takes at most {MAX_DOMAINS} hosts; used the first {MAX_DOMAINS}."
        )
        hosts = hosts[:MAX_DOMAINS]
    return hosts, notes


async def stream_answer(
    ctx: ProviderContext, path: str, body: Mapping[str, Any], parser: StreamParser, *, model: str, expect: Shape
) -> AsyncGenerator[SearchEvent, None]:
    """POST ``body`` to ``path`` under the configured base URL (the key as ``Authorization: Bearer``)
    and yield ``parser``'s events as the event stream arrives, then its closing events. Any HTTP
    answer is final and only a failure before any answer is retried once (a paid call is never sent
    twice); errors are worded by :func:`describe_answer_error` and :func:`model_check` (``model``:
    what the request asked for); ``expect`` is the answer's :class:`.transport.shape.Shape`. The HTTP stream
    closes when this generator does.

    Raises:
        ProviderError: ``config`` without a key; as :func:`.transport.streaming.feed_stream` otherwise.
    """
    key = ctx.require_api_key()
    errors = model_check(ctx.spec.id, model)
    events = feed_stream(
        ctx,
        http.join_url(ctx.base_url(), path),
        headers={"Authorization": f"Bearer {key}", "Accept": "text/event-stream"},
        body=dict(body),
        describe_error=errors.describer(describe_answer_error),
        parser=parser,
        on_error=errors.requalify,
        retry_http_errors=False,
        max_retries=1,
        expect=expect,
    )
    async with aclosing(events) as running:
        async for event in running:
            yield event
