"""Atomic file writes (temp file + rename) and transparent gzip by file name."""

from __future__ import annotations

import gzip
import io
import os
import tempfile
from pathlib import Path


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


class atomic_stream:  # noqa: N801 - used like open(): `with atomic_stream(path) as handle`
    """Write a file piece by piece (gzip for `.gz`): it appears at `path` only when the block
    ends normally; on any exception (interrupt included) the temp file is removed and `path` is
    left as it was."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.target = Path(path)

    def __enter__(self) -> io.BufferedIOBase:
        directory = self.target.parent if str(self.target.parent) else Path(".")
        directory.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".tmp",
                                        dir=directory)
        os.chmod(self.tmp, 0o666 & ~_UMASK)
        self.raw = os.fdopen(fd, "wb")
        self.handle = self.raw
        if str(self.target).endswith(".gz"):
            self.handle = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw, mtime=0)
        return self.handle  # type: ignore[return-value]

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        renamed = False
        try:
            if self.handle is not self.raw:
                self.handle.close()  # gzip's trailer
            if kind is None:
                self.raw.flush()
                os.fsync(self.raw.fileno())
            self.raw.close()
            if kind is None:
                os.replace(self.tmp, self.target)
                renamed = True
        finally:
            if not renamed:
                try:
                    os.unlink(self.tmp)
                except FileNotFoundError:
                    pass


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
