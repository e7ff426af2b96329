"""Does each provider work today? One shared classification of a probe's outcome, and the checks of
``websearch-tui doctor``.

:func:`classify_outcome` (and :func:`classify_error` under it) turns a probe's
:class:`~websearch_tui.core.results.ProviderOutcome` into a :class:`Diagnosis`: a stable ``code``
(``"key_rejected"``), the words a person reads (``"key rejected"``) and the next step
(``"Check the key: websearch-tui keys set brave"``). The ``doctor`` command and the settings
screen's Test both use it, so they never disagree about what went wrong.

:func:`run_checks` runs one :meth:`Engine.probe <websearch_tui.engine.engine.Engine.probe>` per
provider, all at once, and gives one :class:`Check` each; :func:`to_text` and :func:`to_json`
print them. A probe never records to the history.

The classes (``code``: label): ``ok``: OK; ``key_rejected``: key rejected (401/403); ``no_key``: no
key; ``config``: not configured; ``disabled``: disabled; ``quota``: quota used up;
``model_not_found``: model not found (the adapter recognised its API's answer for a model it no
longer serves); ``endpoint_gone``: endpoint gone (another 404 or 410); ``rate_limited``: rate
limited; ``api_changed``: API changed (an answer in a shape this version does not read);
``network``: network (DNS, TLS, refused connection, timeout); ``server_error``: server error (5xx);
``bad_request``: bad request; ``protocol``: protocol error; ``no_results``: no results (the usual
shape with nothing in it); ``cancelled``: cancelled.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind, ProviderError, safe_text
from websearch_tui.core.records import record
from websearch_tui.core.results import ProviderOutcome, RunStatus
from websearch_tui.core.specs import ProviderSettings, ProviderSpec
from websearch_tui.core.text import truncate

if TYPE_CHECKING:
    from websearch_tui.engine.engine import Engine

USABLE_STATUSES = frozenset({"ready", "keyless"})
"""Readiness statuses (``websearch-tui providers``) of the providers ``doctor`` checks when none is named."""

MESSAGE_CHARS = 240
"""The most characters of a failure message one line of :func:`to_text` shows (JSON keeps it whole)."""

NOTHING_READY = (
    "no provider is ready to check: add a key (websearch-tui keys set PROVIDER) or name providers; "
    "`websearch-tui providers` shows each one's status"
)
"""What ``doctor`` says when no provider was named and none is ready."""


@record(frozen=True)
class Diagnosis:
    """What a probe's outcome means for its user.

    Attributes:
        code: the stable class id (``"ok"``, ``"key_rejected"``, ... see the module docstring).
        label: the class in plain words (``"OK"``, ``"key rejected"``).
        hint: the next step in one sentence (``"Check the key: websearch-tui keys set brave."``);
            ``""`` when there is nothing to do.
    """

    code: str
    label: str
    hint: str = ""

    @property
    def ok(self) -> bool:
        """True for the ``ok`` class only."""
        return self.code == "ok"


OK = Diagnosis("ok", "OK")


def classify_outcome(outcome: ProviderOutcome) -> Diagnosis:
    """The :class:`Diagnosis` of one probe: ``OK`` for renderable content, :func:`classify_error`
    of its error, ``no_results`` for an answer with nothing in it, ``cancelled`` for a cancelled run."""
    if outcome.status is RunStatus.DONE:
        return OK
    if outcome.error is not None:
        return classify_error(outcome.error)
    if outcome.status is RunStatus.CANCELLED:
        return Diagnosis("cancelled", "cancelled")
    return _no_results(outcome.provider)


def classify_error(error: ProviderError) -> Diagnosis:
    """The :class:`Diagnosis` of a failed run, from the error's kind, HTTP status, server-requested
    wait and message (already redacted), and the provider's spec (``SPECS[error.provider]``, when
    registered: whether it has a model, a key or a login)."""
    spec = SPECS.get(error.provider)
    pid = error.provider
    kind = error.kind
    if kind is ErrorKind.MODEL_NOT_FOUND:  # the adapters know their API's "no such model" answers
        return Diagnosis(
            "model_not_found", "model not found", f"Set [providers.{pid}] model to a model the provider offers today."
        )
    if kind in (ErrorKind.NOT_FOUND, ErrorKind.DEPRECATED):
        return Diagnosis(
            "endpoint_gone",
            "endpoint gone",
            f"Check [providers.{pid}] base_url; the API may have moved: update websearch-tui.",
        )
    if kind is ErrorKind.AUTH:
        return Diagnosis("key_rejected", "key rejected", _key_hint(pid, spec))
    if kind is ErrorKind.CONFIG:
        return _config(error, spec)
    if kind is ErrorKind.RATE_LIMIT:
        return Diagnosis("rate_limited", "rate limited", _wait_hint(error.retry_after))
    if kind is ErrorKind.TIMEOUT:
        return Diagnosis(
            "network",
            "network",
            "No answer in time: check the connection and proxy; a slow provider needs a longer [search] timeout.",
        )
    return _OTHER.get(kind, _protocol)(pid)


def _key_hint(pid: str, spec: ProviderSpec | None) -> str:
    if spec is not None and spec.key_need == "login":
        return "Log in again with the provider's own command-line tool, then run the check again."
    if spec is not None and spec.key_need == "none":
        return f"The service refused access (it needs no key): check [providers.{pid}] base_url, or try later."
    env = f" ({spec.key_env_vars[0]} in the environment wins over it)" if spec and spec.key_env_vars else ""
    return f"Check the key: websearch-tui keys set {pid}{env}."


def _config(error: ProviderError, spec: ProviderSpec | None) -> Diagnosis:
    """A ``config`` failure: a missing key (``no_key``), else something to set in the config."""
    pid = error.provider
    if "no API key" in error.message:  # the wording of core.errors.missing_key_message
        env = f" (or export {spec.key_env_vars[0]})" if spec is not None and spec.key_env_vars else ""
        return Diagnosis("no_key", "no key", f"Add the key: websearch-tui keys set {pid}{env}.")
    if spec is not None and spec.key_need == "login":
        return Diagnosis(
            "config", "not configured", "Log in with the provider's own command-line tool, then run the check again."
        )
    if "base_url" in error.message or "mcp_url" in error.message:
        return Diagnosis("config", "not configured", f"Set [providers.{pid}] base_url (or mcp_url) in the config.")
    return Diagnosis("config", "not configured", f"Check [providers.{pid}] in the config file and the stored key.")


def _wait_hint(retry_after: float | None) -> str:
    """``"Wait 20 s, then try again."``; without a server-requested wait, a minute."""
    if retry_after is None:
        return "Wait a minute, then try again; if it persists, check the plan's rate limits."
    if retry_after > 3600:
        return "Wait more than an hour, then try again (the plan's limit is used up for now)."
    if retry_after >= 120:
        return f"Wait {math.ceil(retry_after / 60)} min, then try again."
    return f"Wait {max(1, math.ceil(retry_after))} s, then try again."


def _no_results(pid: str) -> Diagnosis:
    return Diagnosis(
        "no_results",
        "no results",
        f"It answered in its usual shape with nothing in it: check [providers.{pid}] (engines, filters).",
    )


def _protocol(pid: str) -> Diagnosis:
    return Diagnosis(
        "protocol",
        "protocol error",
        f"The answer could not be read: check [providers.{pid}] base_url (a proxy in between?), "
        "or update websearch-tui.",
    )


_OTHER: dict[ErrorKind, Callable[[str], Diagnosis]] = {
    ErrorKind.QUOTA: lambda pid: Diagnosis(
        "quota", "quota used up", "The plan's credits or quota are used up: check usage and billing with the provider."
    ),
    ErrorKind.UNRECOGNISED: lambda pid: Diagnosis(
        "api_changed",
        "API changed",
        "Update websearch-tui; if this is the newest version, report it (the message names what arrived).",
    ),
    ErrorKind.NETWORK: lambda pid: Diagnosis(
        "network", "network", f"Check the connection, DNS, proxy and TLS, and [providers.{pid}] base_url."
    ),
    ErrorKind.SERVER: lambda pid: Diagnosis(
        "server_error", "server error", "The provider's servers failed: try again later, or check its status page."
    ),
    ErrorKind.BAD_REQUEST: lambda pid: Diagnosis(
        "bad_request",
        "bad request",
        f"The provider refused the request: check the options in [providers.{pid}], or update websearch-tui.",
    ),
    ErrorKind.EMPTY: _no_results,
    ErrorKind.CANCELLED: lambda pid: Diagnosis("cancelled", "cancelled"),
}
"""Kinds whose diagnosis depends on the provider id only (PROTOCOL and anything new: :func:`_protocol`)."""


@record(frozen=True)
class Check:
    """One provider's check.

    Attributes:
        provider: the provider id.
        label: its display label.
        diagnosis: the class and hint (:func:`classify_outcome`).
        latency_ms: milliseconds the probe took (``None`` when none ran, e.g. disabled).
        results: sources it returned.
        message: the failure message (redacted and sanitized), ``""`` when it passed.
        error_kind: the :class:`~websearch_tui.core.errors.ErrorKind` value, or ``None``.
        http_status: the HTTP status of the failure, or ``None``.
        retry_after: seconds the provider asked to wait, or ``None``.
    """

    provider: str
    label: str
    diagnosis: Diagnosis
    latency_ms: int | None = None
    results: int = 0
    message: str = ""
    error_kind: str | None = None
    http_status: int | None = None
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        """True when the provider passed."""
        return self.diagnosis.ok

    def to_dict(self) -> dict[str, Any]:
        """``{"provider", "label", "ok", "class", "class_label", "latency_ms", "results", "message",
        "hint", "error_kind", "http_status", "retry_after_s"}``: every string sanitized and redacted."""
        return {
            "provider": self.provider,
            "label": safe_text(self.label),
            "ok": self.ok,
            "class": self.diagnosis.code,
            "class_label": self.diagnosis.label,
            "latency_ms": self.latency_ms,
            "results": self.results,
            "message": safe_text(self.message),
            "hint": safe_text(self.diagnosis.hint),
            "error_kind": self.error_kind,
            "http_status": self.http_status,
            "retry_after_s": self.retry_after,
        }


def check_of(outcome: ProviderOutcome) -> Check:
    """The :class:`Check` of one probe's outcome."""
    error = outcome.error
    spec = SPECS.get(outcome.provider)
    return Check(
        provider=outcome.provider,
        label=spec.label if spec is not None else outcome.provider,
        diagnosis=classify_outcome(outcome),
        latency_ms=outcome.elapsed_ms,
        results=len(outcome.response.sources),
        message=error.message if error is not None else "",
        error_kind=error.kind.value if error is not None else None,
        http_status=error.status if error is not None else None,
        retry_after=error.retry_after if error is not None else None,
    )


def disabled_check(spec: ProviderSpec) -> Check:
    """The :class:`Check` of a named provider the config switches off (no probe runs)."""
    return Check(
        provider=spec.id,
        label=spec.label,
        diagnosis=Diagnosis("disabled", "disabled", f"Set [providers.{spec.id}] enabled = true to use it."),
        message=f"{spec.label} is disabled in the config.",
    )


def readiness(engine: Engine, provider_ids: Sequence[str]) -> dict[str, str]:
    """Provider id -> readiness status as ``websearch-tui providers`` shows it (``"ready"``,
    ``"keyless"``, ``"needs key"``, ``"disabled"``, ...), for ``provider_ids`` (all when empty),
    through the engine's key store. Blocks on the keyring."""
    ids = list(provider_ids) or list(SPECS)
    return {pid: engine.key_store.status(SPECS[pid], _settings(engine, pid)) for pid in ids}


def _settings(engine: Engine, provider_id: str) -> ProviderSettings:
    return engine.settings.get(provider_id) or ProviderSettings()


async def run_checks(engine: Engine, provider_ids: Sequence[str] = (), *, timeout: float | None = None) -> list[Check]:
    """Check ``provider_ids`` (registered ids; empty: every provider whose readiness is in
    :data:`USABLE_STATUSES`) with one probe each, all at once; one :class:`Check` per provider in
    that order (``[]`` when none was named and none is ready).

    A named provider that is not ready is probed all the same (the probe says what is missing),
    except a disabled one, which gets :func:`disabled_check`. ``timeout`` (seconds) is each
    probe's deadline (default: the engine's). Nothing is recorded to the history.

    Raises:
        KeyError: an id that is not registered.
        asyncio.CancelledError: the caller was cancelled (every probe is cancelled too).
    """
    statuses = await asyncio.to_thread(readiness, engine, provider_ids)
    if not provider_ids:
        statuses = {pid: status for pid, status in statuses.items() if status in USABLE_STATUSES}

    async def check(pid: str) -> Check:
        if statuses[pid] == "disabled":
            return disabled_check(SPECS[pid])
        return check_of(await engine.probe(pid, _settings(engine, pid), timeout=timeout))

    return list(await asyncio.gather(*(check(pid) for pid in statuses)))


def _one_line(text: str, limit: int) -> str:
    return truncate(" ".join(safe_text(text).split()), limit)


def to_text(checks: Sequence[Check]) -> str:
    """One line per check, then a summary line; no trailing newline::

        brave   OK               412 ms, 1 result
        gemini  model not found  Gemini: model 'x' is not available (404). -> Set [providers.gemini] model ...
        1 of 2 providers passed.

    Messages are sanitized, redacted, put on one line and cut to :data:`MESSAGE_CHARS`.
    """
    id_width = max((len(c.provider) for c in checks), default=0)
    class_width = max((len(c.diagnosis.label) for c in checks), default=0)
    lines = [
        f"{c.provider.ljust(id_width)}  {c.diagnosis.label.ljust(class_width)}  {_detail(c)}".rstrip() for c in checks
    ]
    passed = sum(1 for c in checks if c.ok)
    noun = "provider" if len(checks) == 1 else "providers"
    lines.append(f"{passed} of {len(checks)} {noun} passed.")
    return "\n".join(lines)


def _detail(check: Check) -> str:
    if check.ok:
        count = check.results
        return f"{check.latency_ms} ms, {count} result{'' if count == 1 else 's'}"
    parts = [_one_line(check.message, MESSAGE_CHARS)] if check.message else []
    if check.diagnosis.hint:
        parts.append(_one_line(check.diagnosis.hint, MESSAGE_CHARS))
    return " -> ".join(parts)


def to_json(checks: Sequence[Check]) -> str:
    """One JSON document: ``{"ok": all passed, "passed": n, "checked": n, "providers": [...]}``,
    each provider as :meth:`Check.to_dict`."""
    document = {
        "ok": all(c.ok for c in checks),
        "passed": sum(1 for c in checks if c.ok),
        "checked": len(checks),
        "providers": [c.to_dict() for c in checks],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
