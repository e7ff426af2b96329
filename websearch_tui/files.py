"""Writing a file all at once: the config file, the key file and ``search -o FILE`` share this.

:func:`write_atomic` writes a temp file in the target's own directory (so the final rename stays on
one file system and is atomic), flushes it to disk and renames it over the target: a reader sees the
old file or the new one, never a part of either, and a failure leaves the old file as it was.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` in one step (see the module docstring).

    Args:
        path: the file to create or replace; its directory must exist.
        data: the whole new content.
        mode: permission bits of the new file, applied before it gets its name (``0o600`` for a
            secret); ``None`` keeps those of the file it replaces, and gives a new file the usual
            ``0o666`` less the process umask.

    Raises:
        OSError: the temp file could not be written or renamed (it is removed; ``path`` is untouched).
    """
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = None
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
