"""Atomic file writes (temp file + rename) and transparent gzip by file name."""

from __future__ import annotations

import gzip
import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def encode(text_or_bytes: str | bytes, path: str | os.PathLike) -> bytes:
    """Bytes to store at `path`: gzip (with a fixed mtime, so output is reproducible) for `.gz`."""
    data = text_or_bytes.encode() if isinstance(text_or_bytes, str) else text_or_bytes
    if str(path).endswith(".gz"):
        buffer = io.BytesIO()
        # mtime=0 and no file name inside: the same model gives the same bytes.
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz:
            gz.write(data)
        return buffer.getvalue()
    return data


def write_atomic(path: str | os.PathLike, content: str | bytes) -> None:
    """Write `content` to `path` so that readers never see a half-written file."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    data = encode(content, target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the usual permissions
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


@contextmanager
def atomic_stream(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Write a file piece by piece (gzip for `.gz`): it appears at `path` only when the block
    ends normally; on any exception (interrupt included) the temp file is removed and `path` is
    left as it was."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as raw:
            if str(target).endswith(".gz"):
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                    yield gz  # type: ignore[misc]
            else:
                yield raw
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append one line and flush it to disk at once (JSON-lines result files)."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line.rstrip("\n") + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_text(path: str | os.PathLike) -> str:
    """Read a text file, gunzipping `.gz` names."""
    p = Path(path)
    raw = p.read_bytes()
    if str(p).endswith(".gz") or raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")
