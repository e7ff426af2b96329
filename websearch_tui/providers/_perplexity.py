"""What the two Perplexity providers share (the answer engine, Agent API or Sonar chat
completions, and the Search API).

- :data:`ERROR_KEYS` / :func:`describe_error`: the wording of Perplexity error bodies
  (PROVIDERS.md §2.7, §2.8);
- :class:`ModelErrors`: the same, pointing at the ``model`` setting when the error is about the
  model, and the kind ``model_not_found`` when the model does not exist (the answer engine only);
- :func:`domain_filter`: the ``search_domain_filter`` option, checked (the answer engine only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.providers._parse import api_error_describer, as_dict, find_message

ERROR_KEYS = ("error", "message", "detail", "type", "code")
"""Where a Perplexity error body keeps its message, in order (searched in nested objects too)."""

describe_error = api_error_describer("Perplexity API error", lambda parsed: find_message(parsed, ERROR_KEYS))
"""``"Perplexity API error (<status>): <message>"`` for a non-2xx response: ``error.message`` of an
OpenAI-style ``{"error": {"message", "type", "code"}}`` body, else a redacted excerpt of the body.
401/403 never reach it (they get the seed auth message)."""

MODEL_HINT = "Set [providers.perplexity] model, or run websearch-tui doctor perplexity."
"""The sentence added to an error about the model: where to change it, how to check it."""
_ABOUT_MODEL = re.compile(r"\b(?:model|preset)\b", re.IGNORECASE)
_MODEL_GONE = re.compile(
    r"\b(?:unknown|unsupported|invalid) (?:model|preset)\b"
    r"|\b(?:model|preset)\b[^.\n]{0,80}?"
    r"\b(?:not exist|does not exist|not found|not supported|unsupported|not available)\b",
    re.IGNORECASE,
)


def is_model_error(error_type: object, message: str | None, status: int | None = None) -> bool:
    """True for an error about the model: type ``invalid_model``, a message saying the model does not
    exist (:func:`is_model_gone`), or a 400 whose message names the model or preset (``"unknown
    preset"``, ``"max_output_tokens is required for this model"``)."""
    if is_model_gone(error_type, message):
        return True
    return status == 400 and bool(message and _ABOUT_MODEL.search(message))


def is_model_gone(error_type: object, message: str | None) -> bool:
    """True when the error says the model (or preset) does not exist: type ``invalid_model``, or
    ``"Invalid model 'x'"``, ``"model 'x' not found"`` and the like."""
    return error_type == "invalid_model" or bool(message and _MODEL_GONE.search(message))


def with_model_hint(message: str) -> str:
    """``message`` with :data:`MODEL_HINT` after it."""
    return f"{message.rstrip().rstrip('.')}. {MODEL_HINT}"


@dataclass
class ModelErrors:
    """The error wording of one answer-engine request (Agent API or chat completions).

    :meth:`describe` is :func:`describe_error` plus :data:`MODEL_HINT` after a 400/404 about the model
    (:func:`is_model_error`); :meth:`requalify` (the request's ``on_error``) gives the error of a
    400/404 saying the model does not exist (:func:`is_model_gone`) the kind ``model_not_found``.
    """

    _gone_status: int | None = None

    def describe(self, status: int, text: str, parsed: Any) -> str:
        """``"Perplexity API error (400): Invalid model 'x'. Set [providers.perplexity] model, or run
        websearch-tui doctor perplexity."``; other answers as :func:`describe_error`."""
        message = describe_error(status, text, parsed)
        error = as_dict(as_dict(parsed).get("error"))
        api_message = find_message(error, ("message",)) or message.partition(": ")[2]
        self._gone_status = None
        if status not in (400, 404) or not is_model_error(error.get("type"), api_message, status):
            return message
        if is_model_gone(error.get("type"), api_message):
            self._gone_status = status
        return with_model_hint(message)

    def requalify(self, error: ProviderError) -> ProviderError:
        """``error`` with kind ``model_not_found`` when it is the answer :meth:`describe` found to
        say the model does not exist; else ``error`` unchanged."""
        if self._gone_status is None or error.status != self._gone_status or error.kind is ErrorKind.AUTH:
            return error
        return ProviderError(
            error.provider, ErrorKind.MODEL_NOT_FOUND, error.message, status=error.status, retry_after=error.retry_after
        )


MAX_DOMAINS = 20
"""The most entries Perplexity accepts in ``search_domain_filter``."""
_HOST = re.compile(r"^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$")


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
        if not _HOST.match(host):
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
