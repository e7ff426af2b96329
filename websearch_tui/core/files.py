"""Saving files safely: the app's own ``config.toml`` (settings) and ``keys.toml`` (the opt-in key file),
and the output files a user names (``search -o``, ``fetch -o``, ``history show -o``, the TUI's export).

- :func:`locked` holds an exclusive, cross-process lock (``filelock``) for one file, so two app
  instances saving at the same instant take turns instead of one silently losing its edit;
- :func:`write_atomically` replaces a file in one step through a temporary file that is never left
  behind: it has a fixed name beside the target, is created fresh (never through a link) with the
  final permission bits before any byte is written, and a leftover of a killed save is removed by
  :func:`remove_leftovers` and by the next save. So a key file's plaintext copy cannot linger;
- :func:`write_output` writes an output file by one rule for every front end: a regular file (or a
  new one) is replaced atomically, through its symbolic links (the link's target is replaced, the
  link stays), and a FIFO or a character device (``/dev/stdout``, ``/dev/null``, a terminal) is
  written in place, since renaming over it would replace the FIFO or fail (:func:`output_target`).

Blocking; call from a thread in the TUI.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_TIMEOUT = 5.0
"""Seconds to wait for another instance's save before giving up."""


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
)
"""How :func:`special_file` tells the kinds of special file from a ``st_mode``."""
WRITABLE_SPECIAL = ("FIFO", "character device")
"""The kinds of special file (:func:`special_file`) an output is written to in place."""


class FileBusy(OSError):
    """Another process held the file's lock for longer than :data:`LOCK_TIMEOUT` seconds."""


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` (the lock file ``.<name>.lock`` beside it) while the block runs.

    Raises:
        FileBusy: the lock could not be taken within ``timeout`` seconds.
        OSError: the lock file cannot be created (e.g. the directory is not writable).
    """
    from filelock import FileLock, Timeout  # only saves need it: reading a file stays light

    lock = FileLock(str(path.with_name(f".{path.name}.lock")), timeout=timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise FileBusy(f"{path} is being saved by another process; try again") from None


def temp_path(path: Path) -> Path:
    """The one temporary file a save of ``path`` writes before renaming it into place."""
    return path.with_name(f".{path.name}.tmp")


def write_atomically(path: Path, data: bytes, *, mode: int | None = 0o600, locked: bool = True) -> None:
    """Replace ``path`` with ``data`` in one step: write a temporary file beside it (created anew, not
    through a link, with its final permission bits from the first byte), flush it to disk, rename
    it over ``path``. On any failure the temporary file is removed and ``path`` is untouched.

    Args:
        path: the file to create or replace; its directory must exist.
        data: the whole new content.
        mode: the permission bits (``0o600`` for a secret); ``None`` keeps those of the file it
            replaces, and gives a new file the usual ``0o666`` less the process umask.
        locked: the caller holds :func:`locked` for ``path``, so the temporary file is the fixed
            :func:`temp_path` (a killed save's leftover is found and removed); without the lock
            (an output file, ``search -o``) it gets a random name of its own.

    Raises:
        OSError: the directory or the file cannot be written (``path`` is unchanged).
    """
    if mode is None:
        mode = _current_mode(path)
    if locked:
        temp = temp_path(path)
    else:
        temp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    temp.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)  # the umask may have narrowed it
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _current_mode(path: Path) -> int | None:
    """The permission bits of the existing ``path`` (``None`` when there is none yet)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return None


def remove_leftovers(path: Path) -> None:
    """Delete what a save of ``path`` killed midway left behind: :func:`temp_path` and the randomly
    named ``.<name>.*.tmp`` files earlier versions wrote. Never raises."""
    for leftover in [temp_path(path), *path.parent.glob(f".{path.name}.*.tmp")]:
        try:
            leftover.unlink(missing_ok=True)
        except OSError:
            pass


def special_file(path: Path) -> str | None:
    """What ``path`` is when it is a special file, its symbolic links followed: ``"FIFO"``,
    ``"character device"`` (``/dev/stdout``, ``/dev/null``, a terminal), ``"block device"`` or
    ``"socket"``; ``None`` for a regular file, a folder, or nothing (yet). Never raises."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    return next((kind for is_kind, kind in _SPECIAL_KINDS if is_kind(mode)), None)


def output_target(path: Path) -> Path:
    """The path :func:`write_output` writes for the output file ``path``: ``path`` itself when it is a
    special file (written in place), else where its symbolic links lead (``os.path.realpath``: that
    file is replaced, the links stay)."""
    return path if special_file(path) else Path(os.path.realpath(path))


def write_output(path: Path, data: bytes, *, wait_for_reader: bool = True) -> None:
    """Write ``data`` as the whole content of the output file ``path`` (see :func:`output_target`):
    a FIFO or a character device is opened and written in place; anything else is replaced
    atomically (:func:`write_atomically`, the permission bits of the file it replaces kept).

    Args:
        path: the file as the user named it.
        data: the whole content.
        wait_for_reader: for a FIFO with no reader yet, wait for one (as a shell's ``>`` does);
            ``False`` fails at once instead (an interactive front end must not hang).

    Raises:
        OSError: the file cannot be written (a regular one is then unchanged); a block device or a
            socket is refused; a FIFO without a reader when ``wait_for_reader`` is False.
    """
    kind = special_file(path)
    if kind is None:
        write_atomically(output_target(path), data, mode=None, locked=False)
    elif kind in WRITABLE_SPECIAL:
        _write_in_place(path, data, kind, wait_for_reader)
    else:
        raise OSError(errno.EINVAL, f"that is a {kind}; name a file, a FIFO or a terminal")


def _write_in_place(path: Path, data: bytes, kind: str, wait_for_reader: bool) -> None:
    """Open the existing special file ``path`` (of ``kind``) for writing and write ``data`` whole."""
    try:
        fd = os.open(path, os.O_WRONLY | (0 if wait_for_reader else os.O_NONBLOCK))
    except OSError as exc:
        if exc.errno == errno.ENXIO and kind == "FIFO":
            raise OSError(exc.errno, "nothing is reading that FIFO; start its reader first") from None
        raise
    with open(fd, "wb") as handle:
        os.set_blocking(fd, True)  # opened without waiting; the writes may wait for a slow reader
        handle.write(data)
