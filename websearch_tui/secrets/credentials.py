"""Credentials: lookup (environment, then the OS keyring, then the key file) and storage.

Each provider credential is looked up in the env vars its spec lists (first non-empty wins), then
in the OS keyring under service ``websearch-tui`` and username ``<provider id>:<name>``
(``brave:api_key``), then in the unencrypted key file (:func:`key_file_path`), which exists only
when the user explicitly chose it on a machine without a usable keyring. A missing, locked or
broken keyring never fails a lookup: the credential is simply not found there. Every secret value
found or stored is registered with :func:`websearch_tui.core.errors.register_secret`, so it is
redacted from every message, log and export.

Every keyring call is time-limited (:data:`KEYRING_TIMEOUT`): a keyring that never answers (a D-Bus
service that accepts the call and never replies, an unlock prompt nobody sees) leaves its call
waiting on a daemon thread, and the caller goes on as if the keyring held nothing
(:class:`KeyringNotAnswering`, :data:`NOT_ANSWERING`). While that call is still waiting, the keyring is
not asked again.

:class:`KeyStore` does the lookups and the writes, and keeps what must be shared by every caller
in one application (the locked-keyring pause, the read lock, the key file warnings already
logged). Storage goes to the OS keyring through the ``keyring`` library; keys never go in
``config.toml``. Without a usable keyring backend the key file is written only after explicit
consent (:class:`NoKeyringError` explains the options). :meth:`KeyStore.store` applies the settings
screen's rules and returns a :class:`StoreResult`; :meth:`KeyStore.store_one` stores one value as
given (``keys set``).

Everything here may block on the keyring (D-Bus); the TUI calls it off the event loop. Nothing here
imports a front end.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from websearch_tui.core import files
from websearch_tui.core.errors import redact, register_secret
from websearch_tui.core.records import record
from websearch_tui.core.specs import (
    BASIC_AUTH,
    DISABLED,
    KEYLESS,
    NEEDS_KEY,
    NEEDS_URL,
    NO_LOGIN,
    READY,
    CredentialSpec,
    ProviderSettings,
    ProviderSpec,
)
from websearch_tui.core.text import has_control_chars

if TYPE_CHECKING:
    import tomlkit

KEYRING_SERVICE = "websearch-tui"
KEY_FILE_ENV = "WEBSEARCH_TUI_KEY_FILE"
KEY_FILE_HEADER = """\
websearch-tui API keys. THIS FILE IS NOT ENCRYPTED: anyone who can read it can use these keys.
It exists because no OS keyring was usable and you confirmed storing keys here (mode 0600).
To move a key into an OS keyring once one works (gnome-keyring, KeePassXC, macOS Keychain,
Windows Credential Locker), run `websearch-tui keys set <provider>` again: the key is stored in
the keyring and removed from this file. Environment variables (BRAVE_API_KEY, ...) win over both."""
WHERE_LABELS = {"keyring": "keyring", "file": "key file (not encrypted)"}
KEYRING_TIMEOUT = 5.0
"""Seconds one keyring call (a read, a write, choosing the backend) may take before the keyring
counts as not answering."""
NOT_ANSWERING = (
    "the OS keyring is not answering (no reply within {seconds:g} s), so keys stored in it are treated as "
    "absent; check that its service is running and answer any unlock prompt it shows, or use the "
    "provider's environment variable"
)
"""The plain words for a keyring that did not answer (``{seconds}``: :data:`KEYRING_TIMEOUT`)."""
log = logging.getLogger(__name__)
_T = TypeVar("_T")


class KeyStoreError(Exception):
    """Storing, reading or deleting a key failed; ``str()`` is one plain-words line naming the
    provider and what the user can do. It never contains a secret."""


class NoKeyringError(KeyStoreError):
    """There is no usable OS keyring backend; ``str()`` explains the options in plain words."""


class KeyringNotAnswering(KeyStoreError):
    """A keyring call did not return within :data:`KEYRING_TIMEOUT` seconds, or an earlier one is
    still waiting; ``str()`` is :data:`NOT_ANSWERING`."""

    def __init__(self) -> None:
        super().__init__(NOT_ANSWERING.format(seconds=KEYRING_TIMEOUT))


@record(frozen=True)
class BackendInfo:
    """The keyring backend in use: ``usable``, its display ``name`` (``"SecretService Keyring"``)
    and ``message`` (``""`` when usable, else the plain-words explanation of :class:`NoKeyringError`,
    or :data:`NOT_ANSWERING`). ``answering`` is False when the keyring did not answer in time: it may
    work later, so that is no reason to offer the unencrypted key file."""

    usable: bool
    name: str
    message: str
    answering: bool = True


@record(frozen=True)
class CredentialSource:
    """Where a credential was found, never its value.

    ``where`` is ``"env"``, ``"keyring"``, ``"file"`` or ``None`` (not set); ``env_var`` names the
    variable when ``where == "env"``. ``problem`` is set when the stored value breaks the rules a
    typed one must meet (:func:`value_problem`, e.g. a line break in an env var or a hand-edited key
    file): the value is then not used, and the provider's run fails saying so.
    """

    name: str
    where: str | None
    env_var: str | None = None
    problem: str | None = None

    def describe(self) -> str:
        """``"env BRAVE_API_KEY"``, ``"keyring"``, ``"key file (not encrypted)"`` or ``"not set"``; with
        a ``problem``, followed by ``" (not used: it contains control characters ...)"``."""
        where = f"env {self.env_var}" if self.where == "env" else WHERE_LABELS.get(self.where or "", "not set")
        return f"{where} (not used: it {self.problem})" if self.problem else where


def keyring_username(provider_id: str, credential: str) -> str:
    """The keyring username for a provider credential: ``"<provider id>:<credential>"``."""
    return f"{provider_id}:{credential}"


# --- the keyring backend -------------------------------------------------------------------


def no_keyring_message(env_var: str | None = None, detail: str = "") -> str:
    """The plain-words explanation of a missing keyring backend and the ways around it.

    ``env_var`` names the provider's variable (else a generic hint); ``detail`` is the backend's
    own reason, appended in parentheses.
    """
    env = (
        f"export {env_var} in your shell"
        if env_var
        else "export the provider's environment variable (`websearch-tui providers` lists the names)"
    )
    reason = f" ({detail})" if detail else ""
    return (
        f"No usable OS keyring was found{reason}, so keys cannot be stored securely. Either {env}; "
        "or install and start a Secret Service such as "
        "gnome-keyring or KeePassXC, or another keyring backend; or, after explicit confirmation, keep the "
        f"key in the unencrypted key file {key_file_path()}."
    )


def backend_info() -> BackendInfo:
    """Describe the keyring backend that ``keyring.get_keyring()`` selected; never raises. Waits at
    most :data:`KEYRING_TIMEOUT` seconds.

    A backend is usable when its priority is at least 1: the ``fail`` and ``null`` backends, a
    chainer with nothing to chain and plain-text backends are not; a backend whose priority
    raises (D-Bus unreachable) is not either, and its reason becomes part of ``message``. A keyring
    that does not answer is not usable now (``answering`` False).
    """
    try:
        import keyring

        backend = bounded(keyring.get_keyring)
        name = _backend_name(backend)
    except KeyringNotAnswering as exc:
        return BackendInfo(False, "none", str(exc), answering=False)
    except Exception as exc:  # a broken keyring installation
        return BackendInfo(False, "none", no_keyring_message(detail=_reason(exc)))
    try:
        priority = bounded(lambda: backend.priority)
    except KeyringNotAnswering as exc:
        return BackendInfo(False, name, str(exc), answering=False)
    except Exception as exc:  # e.g. SecretService without a session bus
        return BackendInfo(False, name, no_keyring_message(detail=f"{name}: {_reason(exc)}"))
    if priority < 1:
        return BackendInfo(False, name, no_keyring_message(detail=f"backend: {name}"))
    return BackendInfo(True, name, "")


class _Call:
    """One keyring call run on a thread of its own: its result or its exception, once ``done``."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.call = call
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.call()
        except BaseException as exc:  # handed to the caller, who re-raises it
            self.error = exc
        finally:
            self.done.set()


_waiting_lock = threading.Lock()
_waiting: threading.Thread | None = None
"""The keyring call that did not answer in time and is still waiting (``None``: none is)."""


def bounded(call: Callable[[], _T], timeout: float | None = None) -> _T:
    """``call()`` (a call into the ``keyring`` library), run on a daemon thread and waited for at most
    ``timeout`` seconds (default :data:`KEYRING_TIMEOUT`); its exceptions are re-raised as they are.

    A call that does not return in time is left waiting (the thread ends with the process or when
    the keyring answers at last); until it returns, every later call fails at once instead of
    waiting again.

    Raises:
        KeyringNotAnswering: ``call`` did not return in time, or an earlier call is still waiting.
    """
    global _waiting
    with _waiting_lock:
        if _waiting is not None and _waiting.is_alive():
            raise KeyringNotAnswering
    job = _Call(call)
    thread = threading.Thread(target=job.run, name="keyring-call", daemon=True)
    thread.start()
    if not job.done.wait(KEYRING_TIMEOUT if timeout is None else timeout):
        with _waiting_lock:
            _waiting = thread
        raise KeyringNotAnswering
    if job.error is not None:
        raise job.error
    value: _T = job.value
    return value


def _backend_name(backend: Any) -> str:
    """The display name of a backend; a chainer is named after the backends it chains."""
    chained = getattr(backend, "backends", None)
    if chained:
        return " + ".join(str(b.name) for b in chained)
    return str(getattr(backend, "name", type(backend).__name__))


def _reason(exc: BaseException) -> str:
    """A short, redacted one-line reason from an exception (type name when it has no text)."""
    text = " ".join(redact(str(exc)).split())[:200]
    return text or type(exc).__name__


def _keyring_call(spec: ProviderSpec, item: CredentialSpec, action: str, call: Callable[[], _T]) -> _T:
    """Run a keyring ``call`` for credential ``item`` of ``spec`` and turn every failure into
    :class:`KeyStoreError` in plain words.

    ``action`` completes "could not ... the key" (``"store"``, ``"read"``, ``"delete"``).
    Raises :class:`NoKeyringError` when the library reports no backend.
    """
    from keyring import errors

    try:
        return bounded(call)
    except KeyringNotAnswering as exc:
        raise KeyStoreError(f"{spec.label}: could not {action} the key: {exc}.") from None
    except errors.NoKeyringError as exc:
        raise NoKeyringError(no_keyring_message(_env_hint(spec, item), _reason(exc))) from None
    except errors.KeyringLocked:
        raise KeyStoreError(
            f"{spec.label}: could not {action} the key because the OS keyring is locked; unlock it (log in to the "
            "desktop session or run `gnome-keyring-daemon --unlock`) and try again."
        ) from None
    except PermissionError:
        raise KeyStoreError(
            f"{spec.label}: could not {action} the key: the OS keyring denied access; allow websearch-tui in your "
            "keyring's access settings and try again."
        ) from None
    except Exception as exc:  # InitError, PasswordSetError, D-Bus and OS errors
        raise KeyStoreError(
            f"{spec.label}: could not {action} the key in the OS keyring ({_reason(exc)}); check that the keyring "
            f"service is running and unlocked, or use the environment variable {_env_hint(spec, item)}."
        ) from None


def _env_hint(spec: ProviderSpec, item: CredentialSpec) -> str:
    """The env var to suggest for a credential (its first one)."""
    return item.env_vars[0] if item.env_vars else f"of {spec.id}"


# --- the key file ---------------------------------------------------------------------------


def key_file_path() -> Path:
    """The unencrypted fallback key file: ``$WEBSEARCH_TUI_KEY_FILE``, else ``keys.toml`` in the
    platformdirs user config dir (``~/.config/websearch-tui/keys.toml`` on Linux)."""
    env = os.environ.get(KEY_FILE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("websearch-tui", appauthor=False)) / "keys.toml"


MAX_KEY_FILE_BYTES = 1024 * 1024
"""The largest key file read (bytes): a few keys take a few KiB."""


def _read_key_file() -> tomlkit.TOMLDocument | None:
    """The key file as a TOML document, ``None`` when it does not exist.

    Raises:
        KeyStoreError: the file is not a regular file (a FIFO, a device, a folder: opened without
            waiting and never read), is larger than :data:`MAX_KEY_FILE_BYTES`, is readable by
            other users or not owned by this user (it is not read at all), cannot be read, or is not
            valid TOML.
    """
    path = key_file_path()
    files.remove_leftovers(path)  # a copy a killed save left behind holds plaintext keys too
    try:  # O_NONBLOCK: opening a FIFO would otherwise wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise KeyStoreError(f"Cannot read the key file {path} ({exc.strerror}).") from None
    try:
        _check_readable(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_KEY_FILE_BYTES + 1)
    if len(data) > MAX_KEY_FILE_BYTES:
        raise KeyStoreError(
            f"The key file {path} is over {MAX_KEY_FILE_BYTES // 1024} KiB; a key file holds a few keys. "
            "Check the file, or point WEBSEARCH_TUI_KEY_FILE at the right one."
        )
    import tomlkit  # only when a key file exists: a lookup without one stays light
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(data.decode("utf-8"))
    except (UnicodeDecodeError, TOMLKitError) as exc:
        where = f" (line {exc.line})" if hasattr(exc, "line") else ""
        raise KeyStoreError(f"The key file {path} is not valid TOML{where}; fix or delete it.") from None


def _check_readable(path: Path, status: os.stat_result) -> None:
    """Refuse a key file that is not a regular file (reading a FIFO would wait for a writer), then
    as :func:`_check_private`."""
    if not stat.S_ISREG(status.st_mode):
        raise KeyStoreError(
            f"The key file {path} is not a regular file, so it was ignored; delete it, or set {KEY_FILE_ENV} to a file."
        )
    _check_private(path, status)


def _check_private(path: Path, stat: os.stat_result) -> None:
    """Refuse a key file that other users can read or write, or that another user owns (POSIX only)."""
    if os.name != "posix":
        return
    if stat.st_mode & 0o077:
        raise KeyStoreError(
            f"The key file {path} is accessible to other users (mode {stat.st_mode & 0o777:04o}), so it was "
            f"ignored; run `chmod 600 {path}` if you trust its contents, or delete it."
        )
    if stat.st_uid != os.getuid():
        raise KeyStoreError(f"The key file {path} belongs to another user, so it was ignored; delete it.")


def _write_key_file(document: tomlkit.TOMLDocument) -> None:
    """Replace the key file atomically, under its lock (:mod:`websearch_tui.core.files`: the temporary copy
    is 0600 from its first byte and never left behind; leftovers of a killed save are removed).

    An empty document deletes the file. Raises :class:`KeyStoreError` when it cannot be written.
    """
    import tomlkit

    path = key_file_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with files.locked(path):
            files.remove_leftovers(path)
            if not any(True for _ in _entries(document)):
                path.unlink(missing_ok=True)
                return
            files.write_atomically(path, tomlkit.dumps(document).encode("utf-8"), mode=0o600)
    except OSError as exc:
        raise KeyStoreError(f"Cannot write the key file {path} ({exc.strerror or exc}).") from None


def _new_key_file() -> tomlkit.TOMLDocument:
    import tomlkit

    document = tomlkit.document()
    for line in KEY_FILE_HEADER.splitlines():
        document.add(tomlkit.comment(line))
    document.add(tomlkit.nl())
    return document


def _entries(document: tomlkit.TOMLDocument) -> Iterator[tuple[str, str, Any]]:
    """``(provider id, credential, value)`` for every entry of a key file document."""
    for provider_id, table in document.items():
        if isinstance(table, dict):
            for name, value in table.items():
                yield provider_id, name, value


def _file_value(document: tomlkit.TOMLDocument | None, provider_id: str, name: str) -> str | None:
    table = document.get(provider_id) if document is not None else None
    value = table.get(name) if isinstance(table, dict) else None
    if not isinstance(value, str):
        return None
    return str(value).strip() or None


def key_file_problem() -> str | None:
    """Why the key file is being ignored (wrong mode, owner or syntax), or ``None`` when it is absent
    or fine. Blocking file read; never raises."""
    try:
        _read_key_file()
    except KeyStoreError as exc:
        return str(exc)
    return None


def _remove_from_file(provider_id: str, name: str) -> bool:
    """Delete one entry from the key file; True when it was there. Raises :class:`KeyStoreError`."""
    document = _read_key_file()
    table = document.get(provider_id) if document is not None else None
    if document is None or not isinstance(table, dict) or name not in table:
        return False
    del table[name]
    if not table:
        del document[provider_id]
    _write_key_file(document)
    return True


def _store_in_file(provider_id: str, name: str, value: str) -> None:
    import tomlkit

    document = _read_key_file() or _new_key_file()
    if provider_id not in document:
        document.add(provider_id, tomlkit.table())
    document[provider_id][name] = value
    _write_key_file(document)


# --- value rules ------------------------------------------------------------------------------


def _checked(
    credential: CredentialSpec, source: CredentialSource, value: str | None
) -> tuple[CredentialSource, str | None]:
    """``(source, value)`` with a secret value registered for redaction, or, when the stored value
    breaks :func:`value_problem`, ``(source with its problem, None)``: a value with a line break
    or an escape must never go into a request (or an error quoting the request)."""
    if value is None:
        return source, None
    problem = value_problem(credential, value)
    # undecodable bytes cannot be sent, nor redacted as text; an over-long value is never sent either
    if credential.secret and problem != NOT_TEXT and len(value) <= MAX_KEY_CHARS:
        register_secret(value)
    if problem is not None:
        return dataclasses.replace(source, problem=problem), None
    return source, value


def _from_env(credential: CredentialSpec) -> tuple[str, str] | None:
    for name in credential.env_vars:
        value = os.environ.get(name, "").strip()
        if value:
            return name, value
    return None


def value_problem(credential: CredentialSpec, value: str) -> str | None:
    """Why ``value`` (already stripped) cannot be stored for ``credential``, as a phrase completing
    "the <credential> ..." (``"is empty"``); ``None`` when it can.

    Refused: an empty value; one over :data:`MAX_KEY_CHARS` characters (a file or paste that is not
    a key: it is never sent, nor registered for redaction); bytes that were not valid in the locale's
    encoding (an environment variable set from a file in another encoding: Python keeps them as lone
    surrogates, :data:`NOT_TEXT`); control characters (a pasted line break or terminal escape; values
    go into HTTP headers); ``:`` in a Basic-auth user name (RFC 7617 joins ``user:password``); a
    character outside ASCII in anything but a Basic-auth user name or password (those are sent
    base64-encoded as UTF-8; every other credential goes into a header or URL as it is).
    """
    if not value:
        return "is empty"
    if len(value) > MAX_KEY_CHARS:
        return too_long_phrase(len(value))
    if not _decodable(value):
        return NOT_TEXT
    if has_control_chars(value):
        return "contains control characters (a pasted line break or terminal escape?)"
    if credential.name == "username" and ":" in value:
        return "must not contain ':' (Basic auth joins username:password)"
    if credential.name not in BASIC_AUTH and not value.isascii():
        return "contains a character that is not plain ASCII (a pasted no-break space or typographic quote?)"
    return None


MAX_KEY_CHARS = 16 * 1024
"""The longest credential value accepted: API keys are tens of characters, a login's JWT a few
thousand."""


def too_long_phrase(length: int) -> str:
    """:func:`value_problem`'s words for a value of ``length`` characters, over :data:`MAX_KEY_CHARS`."""
    return f"is {length:,} characters long; a key is at most {MAX_KEY_CHARS:,} (was a whole file pasted or set?)"


NOT_TEXT = "is not valid UTF-8 text (it holds bytes that are not characters; set it again as plain text)"
""":func:`value_problem`'s words for a value holding undecodable bytes."""


def _decodable(value: str) -> bool:
    """False when ``value`` holds lone surrogates (bytes the locale could not decode)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def credential_problem(credential: CredentialSpec, value: str) -> str | None:
    """Why ``value`` cannot be stored for ``credential``, worded for its field (``"API key contains
    control characters ..."``); ``None`` when it can or when nothing is typed (only whitespace)."""
    value = value.strip()
    problem = value_problem(credential, value) if value else None
    return f"{credential.label} {problem}" if problem else None


def _half_pair_problem(present: set[str], typed: Mapping[str, str]) -> str | None:
    """Why storing ``typed`` would leave half a Basic pair (``None``: both or neither).

    ``present`` are the credential names that have a value now (any source).
    """
    after = present | set(typed)
    missing = [name for name in BASIC_AUTH if name not in after]
    if len(missing) == 1:
        return f"Basic auth needs both a username and a password; the {missing[0]} is missing"
    return None


# --- the key store ----------------------------------------------------------------------------

LOCKED_PAUSE = 60.0
"""Seconds keyring reads are skipped after the keyring reported itself locked (one unlock prompt,
not one per credential)."""

NOTHING_TYPED = "Type a key first; nothing was stored."
ALL_FROM_ENV = "The environment sets this key, so it cannot be changed here; nothing was stored."


@record(frozen=True)
class StoreResult:
    """What :meth:`KeyStore.store` did; it never holds a value.

    Attributes:
        stored: credential name -> ``"keyring"`` or ``"file"``, for every value stored, in the
            spec's order.
        skipped: credential name -> why that typed value was left alone (``"set by env
            BRAVE_API_KEY"``: the environment wins over stored keys, so it is not changed).
        problem: the one problem that stopped the store, one plain-words line (``None``: there was
            none). A refused value or half a Basic pair stops it before anything is written
            (``"...; nothing was stored."``); a key store error stops it after the values already in
            ``stored``.
        needs_consent: there is no usable OS keyring; ``problem`` explains it and the options. Ask
            the user, then call :meth:`KeyStore.store` again with ``allow_file=True`` to use the
            unencrypted key file.
    """

    stored: Mapping[str, str] = field(default_factory=dict)
    skipped: Mapping[str, str] = field(default_factory=dict)
    problem: str | None = None
    needs_consent: bool = False


class KeyStore:
    """Reads and writes provider credentials: the environment, the OS keyring, the key file.

    Blocking (the keyring may wait on D-Bus or an unlock prompt): front ends call it from threads.
    One instance per application (the engine holds it, :attr:`Engine.key_store`) keeps the state
    that makes a locked keyring prompt once, not once per credential or per caller: after the
    keyring reported itself locked, reads are skipped for :data:`LOCKED_PAUSE` seconds; reads are
    serialized, so only one unlock prompt is ever open; a problem with the key file is logged once.
    A keyring that does not answer within :data:`KEYRING_TIMEOUT` seconds counts as holding nothing
    (:attr:`keyring_problem` says so).

    Args:
        clock: the monotonic clock (seconds) the pause is measured with (tests pass a fake).

    Attributes:
        keyring_problem: :data:`NOT_ANSWERING` once a lookup found the keyring not answering (its keys
            were then treated as absent), for a front end to show; ``None`` until then.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._locked_until = 0.0
        self._read_lock = threading.Lock()
        self._warned: set[str] = set()
        self.keyring_problem: str | None = None

    # --- lookup ---------------------------------------------------------------------------

    def lookup(self, spec: ProviderSpec) -> tuple[dict[str, str], list[CredentialSource]]:
        """Find every credential of ``spec``: ``({name: value}, [CredentialSource])``, the sources
        in the spec's order.

        Order: env vars, OS keyring, key file. Secret values are registered for redaction. Never
        raises for a missing, locked or broken keyring or an unusable key file. Blocks on the keyring.
        """
        found = self._find(spec)
        values = {source.name: value for source, value in found if value}
        return values, [source for source, _ in found]

    def sources(self, spec: ProviderSpec) -> list[CredentialSource]:
        """Where each credential of ``spec`` comes from (as :meth:`lookup`, without the values)."""
        return [source for source, _ in self._find(spec)]

    def status(self, spec: ProviderSpec, settings: ProviderSettings) -> str:
        """The provider's readiness (see :func:`provider_status`); its keys are looked up only when
        the status depends on them. Blocks on the keyring."""
        return _status_without_keys(spec, settings) or _status_of_keys(spec, self.lookup(spec)[0])

    def _find(self, spec: ProviderSpec) -> list[tuple[CredentialSource, str | None]]:
        """Each credential of ``spec`` with its source and value (env, then keyring, then key file)."""
        found: list[tuple[CredentialSource, str | None]] = []
        document: tomlkit.TOMLDocument | None = None
        document_read = False
        for credential in spec.credentials:
            from_env = _from_env(credential)
            if from_env:
                found.append(_checked(credential, CredentialSource(credential.name, "env", from_env[0]), from_env[1]))
                continue
            value = self._from_keyring(spec.id, credential)
            if value:
                found.append(_checked(credential, CredentialSource(credential.name, "keyring"), value))
                continue
            if not document_read:
                document, document_read = self._key_file_for_lookup(), True
            value = _file_value(document, spec.id, credential.name)
            found.append(_checked(credential, CredentialSource(credential.name, "file" if value else None), value))
        return found

    def _from_keyring(self, provider_id: str, credential: CredentialSpec) -> str | None:
        """The keyring value, or ``None`` when absent or when the keyring cannot be used (logged).

        Reads are serialized (the engine looks providers up in parallel threads), so only one
        unlock prompt is open; after a locked keyring they are skipped for :data:`LOCKED_PAUSE`.
        """
        with self._read_lock:
            if self._clock() < self._locked_until:
                return None
            return self._read_keyring(provider_id, credential)

    def _read_keyring(self, provider_id: str, credential: CredentialSpec) -> str | None:
        """One keyring read (the caller holds the read lock); a locked keyring starts the pause."""
        try:
            import keyring
            from keyring.errors import KeyringLocked

            username = keyring_username(provider_id, credential.name)
            try:
                value = bounded(lambda: keyring.get_password(KEYRING_SERVICE, username))
            except KeyringLocked:
                self._locked_until = self._clock() + LOCKED_PAUSE
                log.warning("the OS keyring is locked; keys stored in it are not used for %d s", LOCKED_PAUSE)
                return None
        except KeyringNotAnswering as exc:
            if self.keyring_problem is None:
                log.warning("%s", exc)
            self.keyring_problem = str(exc)
            return None
        except Exception as exc:  # no backend, denied, D-Bus down: the key is just not available
            log.debug("keyring unavailable for %s: %s", provider_id, type(exc).__name__)
            return None
        return value.strip() if value and value.strip() else None

    def _key_file_for_lookup(self) -> tomlkit.TOMLDocument | None:
        """The key file for a lookup: an unusable file is skipped with a warning, logged once per reason."""
        try:
            return _read_key_file()
        except KeyStoreError as exc:
            if str(exc) not in self._warned:
                self._warned.add(str(exc))
                log.warning("%s", exc)
            return None

    # --- storage --------------------------------------------------------------------------

    def store(self, spec: ProviderSpec, typed: Mapping[str, str], *, allow_file: bool = False) -> StoreResult:
        """Store the values typed for ``spec`` (credential name -> text) by the settings screen's
        rules, and say what happened (:class:`StoreResult`); key store problems are in the result.

        Blank values are ignored; nothing left is a problem. A credential the environment sets is
        skipped (the environment wins, so it is not changed); nothing left is a problem. Then every
        value must pass :func:`credential_problem`, and a Basic pair must end up complete (both
        halves stored or set, or neither), or nothing is stored. Each value then goes to the OS
        keyring; without a usable one the result ``needs_consent`` unless ``allow_file`` (the user
        agreed to the unencrypted key file for this store; consent never carries over). Calling
        again with the same values after consent is safe: a value already stored is stored again.

        Raises:
            ValueError: a name in ``typed`` is not a credential of ``spec`` (a caller bug).
        """
        unknown = set(typed) - {credential.name for credential in spec.credentials}
        if unknown:
            raise ValueError(f"{spec.id} has no credential {', '.join(sorted(unknown))}")
        values = {c.name: typed[c.name].strip() for c in spec.credentials if typed.get(c.name, "").strip()}
        if not values:
            return StoreResult(problem=NOTHING_TYPED)
        sources = self.sources(spec)
        skipped = {s.name: f"set by {s.describe()}" for s in sources if s.where == "env" and s.name in values}
        values = {name: value for name, value in values.items() if name not in skipped}
        problem = ALL_FROM_ENV if not values else _refusal(spec, values, {s.name for s in sources if s.where})
        if problem is not None:
            return StoreResult(skipped=skipped, problem=problem)
        stored: dict[str, str] = {}
        for name, value in values.items():
            try:
                stored[name] = self.store_one(spec, name, value, allow_file=allow_file)
            except NoKeyringError as exc:
                return StoreResult(stored, skipped, str(exc), needs_consent=True)
            except KeyStoreError as exc:
                return StoreResult(stored, skipped, str(exc))
        return StoreResult(stored, skipped)

    def store_one(self, spec: ProviderSpec, name: str, value: str, *, allow_file: bool = False) -> str:
        """Store one credential of ``spec`` as given (``keys set``: no environment or Basic pair
        rules); returns ``"keyring"`` or ``"file"``.

        The value is stripped, checked with :func:`value_problem` and registered for redaction. It
        goes to the OS keyring (and any old copy in the key file is then removed; the keyring is
        unlocked now, so the locked pause ends). Without a usable keyring it goes to the key file
        (0600, atomic) only when ``allow_file`` is true, i.e. the user explicitly confirmed.
        ``config.toml`` is never written.

        Raises:
            NoKeyringError: no usable keyring backend and ``allow_file`` is false.
            KeyStoreError: an unknown credential, a value :func:`value_problem` refuses, a locked,
                denying or not answering keyring (never a reason to use the key file), or an
                unwritable key file.
        """
        item = _credential(spec, name)
        value = value.strip()
        problem = value_problem(item, value)
        if problem is not None:
            raise KeyStoreError(f"{spec.label}: the {name} {problem}; nothing was stored.")
        if item.secret:
            register_secret(value)
        info = _answering_backend(spec, "store")
        if info.usable:
            import keyring

            username = keyring_username(spec.id, name)
            try:
                _keyring_call(spec, item, "store", lambda: keyring.set_password(KEYRING_SERVICE, username, value))
            except NoKeyringError:
                if not allow_file:
                    raise
            else:
                self._locked_until = 0.0
                _drop_file_copy(spec.id, name)
                return "keyring"
        elif not allow_file:
            raise NoKeyringError(no_keyring_message(_env_hint(spec, item), f"backend: {info.name}"))
        _store_in_file(spec.id, name, value)
        return "file"

    def delete(self, spec: ProviderSpec, names: Sequence[str]) -> list[str]:
        """Remove the stored credentials ``names`` of ``spec`` from the OS keyring and the key file.

        Returns where they were removed from, each place once in order: ``["keyring"]``,
        ``["file"]``, both, or ``[]`` when nothing was stored. Environment variables are not touched.

        Raises:
            KeyStoreError: an unknown credential, a locked, denying or not answering keyring, or an
                unusable key file (the names before it are deleted).
        """
        removed: list[str] = []
        usable = _answering_backend(spec, "delete").usable
        for name in names:
            item = _credential(spec, name)
            if usable and _delete_from_keyring(spec, item):
                removed.append("keyring")
            if _remove_from_file(spec.id, name):
                removed.append("file")
        return list(dict.fromkeys(removed))


def _answering_backend(spec: ProviderSpec, action: str) -> BackendInfo:
    """:func:`backend_info`, for storing or deleting a key of ``spec`` (``action``).

    Raises:
        KeyStoreError: the keyring is not answering.
    """
    info = backend_info()
    if not info.answering:
        raise KeyStoreError(f"{spec.label}: could not {action} the key: {info.message}.")
    return info


def _refusal(spec: ProviderSpec, values: Mapping[str, str], present: set[str]) -> str | None:
    """Why ``values`` may not be stored for ``spec`` (a refused value, half a Basic pair), worded
    for the settings screen; ``present`` are the credential names that have a value now."""
    problem = next((p for p in (credential_problem(c, values.get(c.name, "")) for c in spec.credentials) if p), None)
    if problem is None and spec.basic_auth:
        problem = _half_pair_problem(present, values)
    return None if problem is None else f"{problem}; nothing was stored."


def _credential(spec: ProviderSpec, name: str) -> CredentialSpec:
    """The credential ``name`` of ``spec``; :class:`KeyStoreError` for one it does not have."""
    for item in spec.credentials:
        if item.name == name:
            return item
    names = ", ".join(c.name for c in spec.credentials) or "none"
    raise KeyStoreError(f"{spec.label} has no credential {name!r} (its credentials: {names}).")


def _delete_from_keyring(spec: ProviderSpec, item: CredentialSpec) -> bool:
    """Delete the keyring entry of ``item``; True when there was one. Raises :class:`KeyStoreError`."""
    import keyring

    username = keyring_username(spec.id, item.name)
    if _keyring_call(spec, item, "read", lambda: keyring.get_password(KEYRING_SERVICE, username)) is None:
        return False
    _keyring_call(spec, item, "delete", lambda: keyring.delete_password(KEYRING_SERVICE, username))
    return True


def _drop_file_copy(provider_id: str, credential: str) -> None:
    """After a keyring store, remove the older plain-text copy; a failure is only logged."""
    try:
        if _remove_from_file(provider_id, credential):
            log.info("moved %s:%s from the key file to the keyring", provider_id, credential)
    except KeyStoreError as exc:
        log.warning("%s", exc)


# --- provider readiness ---------------------------------------------------------------------


class LoginState(Protocol):
    """The state of an existing login (``spec.login``): ``ready`` and a plain-words ``reason``."""

    @property
    def ready(self) -> bool:
        """True when the login can be used."""

    @property
    def reason(self) -> str:
        """Why it is (not) ready, one line."""


def login_state(spec: ProviderSpec) -> LoginState:
    """The state of the existing login a provider uses (``spec.login``, ``"module:function"``);
    never raises."""
    import importlib

    module, _, function = (spec.login or "").partition(":")
    state: LoginState = getattr(importlib.import_module(module), function)()
    return state


def provider_status(spec: ProviderSpec, settings: ProviderSettings, values: Mapping[str, str]) -> str:
    """``"disabled"``, ``"needs URL"``, ``"ready"``, ``"keyless"``, ``"needs key"`` or ``"no login"``
    (a provider that uses an existing login, e.g. Codex): the words of
    :data:`~websearch_tui.core.specs.READINESS`, which every front end shows as they are.

    ``values`` are its resolved credentials (:meth:`KeyStore.lookup`); :meth:`KeyStore.status`
    looks them up when needed.
    """
    return _status_without_keys(spec, settings) or _status_of_keys(spec, values)


def _status_without_keys(spec: ProviderSpec, settings: ProviderSettings) -> str | None:
    """The status that does not depend on stored keys (disabled, no base URL, a login), else None."""
    if settings.enabled is False:
        return DISABLED
    if spec.needs_base_url and not settings.base_url:
        return NEEDS_URL
    if spec.key_need == "login":
        return READY if login_state(spec).ready else NO_LOGIN
    return None


def _status_of_keys(spec: ProviderSpec, values: Mapping[str, str]) -> str:
    """``"ready"`` with any of its credentials, else ``"keyless"`` or ``"needs key"``."""
    if any(values.get(credential.name) for credential in spec.credentials):
        return READY
    return KEYLESS if spec.keyless else NEEDS_KEY
