"""Built model files kept on disk, so the ONNX graph is built once per machine, not per start.

A file's name is its key: it names the weights (their sha256) and the builder's version, so a
file made from other weights or by an older builder is never read. Files appear atomically:
each is written to a temporary file in the same folder and renamed into place, so another
process sees the whole file or none (two processes building at once both write complete files,
and the second rename wins). Where the folder cannot be written (a read-only home, say) the
model is built in a temporary folder on every start instead: slower to start, same vectors.

The folder is `$EVIDENCEGRAPH_CACHE/models`, or `~/.cache/evidencegraph/models` (the folder
`localneo4j` keeps the Neo4j jars in).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)


def models_dir() -> Path:
    configured = os.environ.get("EVIDENCEGRAPH_CACHE", "")
    root = Path(configured).expanduser() if configured else Path.home() / ".cache" / "evidencegraph"
    return root / "models"


def cached_file(
    name: str, write: Callable[[Path], None], folder: Path | None = None
) -> Path | None:
    """The path of the cached file `name`, made by `write(temporary_path)` if it is not there;
    None when it cannot be stored there (the caller then builds it elsewhere).

    `write` must write the whole file at the path it is given.
    """
    folder = models_dir() if folder is None else folder
    target = folder / name
    if target.is_file():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".partial", dir=folder)
        os.close(handle)
    except OSError as error:
        log.warning("cannot cache %s in %s (%s): building it on every start", name, folder, error)
        return None
    try:
        write(Path(temporary))
        with open(temporary, "rb") as stream:  # on disk before it gets its final name
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if not isinstance(error, OSError):
            raise
        log.warning("cannot cache %s in %s (%s): building it on every start", name, folder, error)
        return None
    return target


def forget(path: Path) -> None:
    """Remove a cached file found unreadable; the next `cached_file` builds it again."""
    with contextlib.suppress(OSError):
        path.unlink()
