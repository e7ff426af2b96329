"""Writing files whole: a reader (or a crash) sees the old file or the new one, never half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, flush it to disk, then rename it over ``path``.

    The folder is created when missing; an existing file keeps its permission bits, a new one is
    readable only by the user (0600).

    Raises:
        OSError: the folder or file cannot be written (nothing was changed; no temp file is left).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
