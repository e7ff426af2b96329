"""A configured model the provider does not serve (any more): one plain error for every model-native provider.

Providers retire model ids (Gemini 2.5 Flash, gpt-5-mini, grok-4-fast-reasoning, the Codex ``*-codex``
models, ...). When the API says the model does not exist, the run fails with kind
``model_not_found`` and the message :func:`model_message` (never the raw body), which names the
config key to change (one line)::

    Gemini: model 'gemini-2.5-flash' is not available (404). Set [providers.gemini] model,
    or run websearch-tui doctor gemini

- :func:`model_not_found` builds that error;
- the ``*_gone`` predicates (:data:`ModelGone`) recognise each API's answer for an unknown or
  retired model from the HTTP status and the parsed JSON error body. Signals checked 2026-12-02
  against real recorded answers and the providers' docs (sources beside each predicate);
- :class:`ModelCheck` hooks a predicate into a provider's existing error path: it wraps the
  provider's error describer (which sees the body) and requalifies the resulting error in the
  provider's ``on_error`` (which sees the :class:`ProviderError`), as ``families.zhipu.with_code_kind`` does
  for business codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.records import record
from websearch_tui.core.text import pattern, plain_text, truncate
from websearch_tui.providers.helpers.parse import as_dict, code_text, find_message
from websearch_tui.providers.transport.http import ErrorDescriber

MAX_MODEL_CHARS = 120
"""A configured model id longer than this is shortened in the message."""

ModelGone = Callable[[int, Any], bool]
"""``(HTTP status, parsed JSON body or None) -> True`` when the answer says the requested model does
not exist, is retired or is not served to this account."""


def model_message(provider_id: str, label: str, model: str, status: int | None) -> str:
    """``"<Label>: model '<model>' is not available (<status>). Set [providers.<id>] model, or run
    websearch-tui doctor <id>"`` (``(<status>)`` left out when there is no status)."""
    shown = truncate(plain_text(model, collapse=True) or "", MAX_MODEL_CHARS)
    where = f" ({status})" if status is not None else ""
    return (
        f"{label}: model '{shown}' is not available{where}. "
        f"Set [providers.{provider_id}] model, or run websearch-tui doctor {provider_id}"
    )


def model_not_found(provider_id: str, label: str, model: str, status: int | None) -> ProviderError:
    """The ``model_not_found`` :class:`ProviderError` (message :func:`model_message`, ``status`` kept)."""
    return ProviderError(
        provider_id, ErrorKind.MODEL_NOT_FOUND, model_message(provider_id, label, model, status), status=status
    )


# --------------------------------------------------------------------------- reading error bodies


def _error(parsed: Any) -> dict[str, Any]:
    """The ``error`` object of a body (``{}`` when it is absent or a string)."""
    return as_dict(as_dict(parsed).get("error"))


def _message(parsed: Any) -> str:
    """The error text wherever the body keeps it (``error.message``, a string ``error``, ``message``,
    ``detail``), ``""`` when there is none."""
    return find_message(parsed, ("error", "message", "detail")) or ""


def _code(parsed: Any) -> str:
    """``error.code`` (else a top-level ``code``) as text, ``""`` when absent."""
    return code_text(_error(parsed).get("code")) or code_text(as_dict(parsed).get("code")) or ""


# --------------------------------------------------------------------------- per API


_GEMINI_MISSING = r"\bmodels/\S{1,200} is not found\b"
"""Bounded, so a message of many ``models/`` costs linear time."""


def gemini_gone(status: int, parsed: Any) -> bool:
    """Gemini API: HTTP 404, ``error.status`` ``NOT_FOUND``, ``"models/<id> is not found for API
    version v1beta, or is not supported for generateContent. ..."`` (recorded 2026-08-18,
    pydantic-ai ``test_model_name_suggestion[google]``)."""
    error = _error(parsed)
    return (
        status == 404 and error.get("status") == "NOT_FOUND" and bool(pattern(_GEMINI_MISSING).search(_message(parsed)))
    )


def anthropic_gone(status: int, parsed: Any) -> bool:
    """Anthropic Messages: HTTP 404, ``error.type`` ``not_found_error``, message ``"model: <id>"``
    (recorded 2026-08-18, pydantic-ai ``test_model_name_suggestion[anthropic]``; retired models give
    the same answer, https://docs.anthropic.com/en/docs/about-claude/model-deprecations)."""
    error = _error(parsed)
    return status == 404 and error.get("type") == "not_found_error" and _message(parsed).startswith("model:")


_MODEL_MISSING = (
    r"(?i)\b(?:model|preset)\b[^.\n]{0,80}?"
    r"\b(?:not exist|does not exist|not found|not supported|unsupported|not available)\b"
    r"|\b(?:unknown|unsupported|invalid) (?:model|preset)\b"
)


def says_model_missing(message: str | None) -> bool:
    """True when an API's error text says the model (or preset) does not exist or is not served:
    ``"Model Not Exist"``, ``"Invalid model 'x'"``, ``"model 'x' not found"``, ``"Unknown preset"``.
    The gap between the words is bounded, so the cost is linear in the text."""
    return bool(message and pattern(_MODEL_MISSING).search(message))


def deepseek_gone(status: int, parsed: Any) -> bool:
    """DeepSeek (Anthropic-compatible endpoint): the Anthropic answer, or HTTP 400/404 whose message
    says the model does not exist or is not supported (``"Model Not Exist"``; DeepSeek documents
    only "unsupported model names that do not start with claude return a 400 error",
    https://api-docs.deepseek.com/guides/anthropic_api, without the text)."""
    if anthropic_gone(status, parsed):
        return True
    return status in (400, 404) and says_model_missing(_message(parsed))


def perplexity_gone(status: int, parsed: Any) -> bool:
    """Perplexity (Agent API and chat completions): HTTP 400/404 with ``error.type`` ``invalid_model``
    or a message saying the model or preset does not exist (the Agent API's error types, checked
    2026-12-02 against Perplexity's Sonar-to-Agent migration guide; no recorded text)."""
    invalid = _error(parsed).get("type") == "invalid_model"
    return status in (400, 404) and (invalid or says_model_missing(_message(parsed)))


def openai_gone(status: int, parsed: Any) -> bool:
    """OpenAI: ``error.code`` ``model_not_found``, HTTP 400 on ``/v1/responses`` (``"The requested
    model 'x' does not exist."``), 404 on chat completions (recorded 2026-08-18, pydantic-ai
    ``test_model_name_suggestion[openai-responses]`` / ``[openai-chat]``)."""
    return status in (400, 404) and _code(parsed) == "model_not_found"


_CODEX_REFUSED = "model is not supported when using codex"


def codex_gone(status: int, parsed: Any) -> bool:
    """Codex backend: as :func:`openai_gone`, or HTTP 400 ``"The '<id>' model is not supported when
    using Codex with a ChatGPT account."`` in ``detail`` or ``error.message`` (openai/codex#6603,
    #25838, #26053)."""
    if openai_gone(status, parsed):
        return True
    return status in (400, 404) and _CODEX_REFUSED in _message(parsed).lower()


_GROK_MISSING = r"(?i)\bmodel\b.{0,200}?\bdoes not exist\b"


def grok_gone(status: int, parsed: Any) -> bool:
    """xAI: HTTP 404 ``{"code": "not-found", "error": "The model <id> does not exist or your team
    <id> does not have access to it. ..."}`` (``error`` is a string; retired models such as
    grok-4-fast-reasoning answer it since 2026-05-15, https://docs.x.ai/developers/migration/may-15-retirement)."""
    return status in (400, 404) and bool(pattern(_GROK_MISSING).search(_message(parsed)))


def ark_gone(status: int, parsed: Any) -> bool:
    """Volcengine ARK: HTTP 404, ``error.code`` ``InvalidEndpointOrModel.NotFound`` ("The model or
    endpoint <id> does not exist or you do not have access to it."). ``ModelNotOpen`` (a model not
    activated in the console) is not this: it stays the API's own error."""
    return status == 404 and _code(parsed).startswith("InvalidEndpointOrModel.NotFound")


def zhipu_gone(status: int, parsed: Any) -> bool:
    """Zhipu / Z.AI chat: HTTP 400, ``error.code`` ``1211`` with a message about the model
    (``"模型不存在，请检查模型代码。"`` on BigModel, ``"Unknown Model, please check the model code."`` on
    Z.AI). The Web Search API uses 1211 for an unknown ``search_engine`` too, hence the message test."""
    message = _message(parsed)
    return status in (400, 404) and _code(parsed) == "1211" and ("model" in message.lower() or "模型" in message)


# --------------------------------------------------------------------------- the hook


@record
class ModelCheck:
    """Turns a provider's "no such model" answer into :func:`model_not_found` for one request.

    :meth:`describer` wraps the provider's error describer: an answer ``gone`` recognises is worded
    with :func:`model_message` and remembered; :meth:`requalify` (the provider's ``on_error``, or
    called where it catches the request's :class:`ProviderError`) then gives that error the kind
    ``model_not_found``. Every other answer is left to the provider's describer and kind.

    Attributes:
        provider_id / label: the provider's id and label (its spec).
        model: the model id the request sent.
        gone: the API's predicate (:data:`ModelGone`).
    """

    provider_id: str
    label: str
    model: str
    gone: ModelGone
    _status: int | None = None

    def describer(self, describe: ErrorDescriber) -> ErrorDescriber:
        """``describe`` for every answer but the one that says the model is gone."""

        def wrapped(status: int, text: str, parsed: Any) -> str:
            self._status = status if parsed is not None and self.gone(status, parsed) else None
            if self._status is not None:
                return model_message(self.provider_id, self.label, self.model, status)
            return describe(status, text, parsed)

        return wrapped

    def requalify(self, error: ProviderError) -> ProviderError:
        """``error`` as :func:`model_not_found` when it is the answer :meth:`describer` recognised,
        else ``error`` unchanged."""
        if self._status is None or error.status != self._status or error.kind is ErrorKind.AUTH:
            return error
        return model_not_found(self.provider_id, self.label, self.model, self._status)
