"""Bounded reads and atomic writes (temp file + rename), with transparent gzip.

Every file a command reads goes through `read_bytes` / `read_text` (or `read_lines` for a
file read line by line): at most `input_limit()` bytes, decompressed (64 MiB unless
ILP_PYRAMID_MAX_INPUT_BYTES says otherwise), so /dev/zero, a fifo or a gzip bomb is one
line and exit 2, never all the memory there is."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import io
import os
import stat
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from ilp_pyramid.errors import InputError


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
        self.target = _writable_target(self.target)  # a symlink's target; never a directory
        directory = self.target.parent if str(self.target.parent) else Path(".")
        directory.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = _temp_beside(self.target)
        os.chmod(self.tmp, 0o666 & ~_UMASK)
        self.raw = os.fdopen(fd, "wb")
        self.handle = self.raw
        if str(self.target).endswith(".gz"):
            self.handle = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw, mtime=0)
        return self.handle  # type: ignore[return-value]

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 *_: object) -> None:
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
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.raw.close()
            raise InputError(f"cannot write {self.target}: {exc.strerror or exc}") from None
        finally:
            if not renamed:
                _remove(self.tmp)
        if isinstance(error, OSError) and error.errno in _DISK_ERRORS:
            # a write in the block failed: it was this file's (the disk is full)
            raise InputError(f"cannot write {self.target}: {error.strerror}") from None


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


# A name longer than this gets a shortened prefix in its temp file's name (NAME_MAX is 255).
_TMP_PREFIX_CHARS = 200


def _writable_target(path: str | os.PathLike) -> Path:
    """The regular file (existing or not) that writing `path` should replace.

    A symlink is followed to its target, so the link stays a link; anything else that is not
    a regular file (a directory, device, fifo, socket) is refused, never replaced.
    """
    target = Path(path)
    try:
        if target.is_symlink() or ".." in target.parts:
            target = Path(os.path.realpath(target))
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:  # name too long, a parent that is a file, no permission
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"cannot write {path}: it exists and is not a regular file")
    return target


def write_atomic(path: str | os.PathLike, content: str | bytes) -> None:
    """Write `content` to `path` so that readers never see a half-written file.

    A path the user cannot write to (parent is a file, name too long, not a regular file,
    no permission) is an InputError naming it. The temp file is removed on every exit path
    Python sees (errors, KeyboardInterrupt, a signal handler's exception).
    """
    data = encode(content, path)
    try:  # parents first: only then do '..' and symlinks in the path resolve
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    target = _writable_target(path)
    try:
        fd, tmp = _temp_beside(target)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the usual permissions
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # Checked again just before the rename: never rename over a non-regular file, nor
        # over a symlink that appeared meanwhile.
        if _writable_target(path) != target:
            raise InputError(f"cannot write {path}: it changed while being written")
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        _remove(tmp)
        raise


# Errors of a write that are the file system's (full, over quota, too large, failing):
# reported with the file's name.
_DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS}


def _temp_beside(target: Path) -> tuple[int, str]:
    """A new temp file next to `target`, locked for as long as this process has it open.

    Temp files of `target` left by a writer that is gone (SIGKILL, power cut) are removed
    first: a live writer holds the lock on its own, a dead one holds nothing.
    """
    prefix = f".{target.name[:_TMP_PREFIX_CHARS]}."
    directory = target.parent if str(target.parent) else Path(".")
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if _is_temp_of(entry.name, prefix):
                _remove_if_unlocked(entry.path)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=directory)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a fresh file: nobody else holds it
    return fd, tmp


def _is_temp_of(name: str, prefix: str) -> bool:
    middle = name[len(prefix):-len(".tmp")]
    return (name.startswith(prefix) and name.endswith(".tmp") and len(middle) == 8
            and all(ch in _TEMP_CHARS for ch in middle))


_TEMP_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")  # tempfile's random names


def _remove_if_unlocked(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # a live writer's
    finally:
        os.close(fd)
    _remove(path)


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append one line and flush it to disk at once (JSON-lines result files).

    A writer killed mid-line leaves a fragment with no newline; the next record is started on
    a fresh line so that it is not glued to the fragment (readers skip the torn line).
    """
    try:
        with open(path, "a+b") as handle:
            handle.seek(0, os.SEEK_END)
            prefix = b""
            if handle.tell() > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    prefix = b"\n"
            handle.write(prefix + (line.rstrip("\n") + "\n").encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


# The most bytes one input file may hold (after gunzip): far above any model, solution or
# results file the package writes, far below what would exhaust a machine's memory.
DEFAULT_MAX_INPUT_BYTES = 64 << 20
MAX_INPUT_ENV = "ILP_PYRAMID_MAX_INPUT_BYTES"
# Read in pieces: one read(limit + 1) would reserve the whole limit up front.
_CHUNK = 1 << 20
# The longest line read_lines takes by default (a line of fillings is a few hundred bytes).
DEFAULT_MAX_LINE_BYTES = 1 << 20


def input_limit() -> int:
    """The most bytes a command reads from one input file, decompressed: the environment's
    ILP_PYRAMID_MAX_INPUT_BYTES (a whole number of bytes) or 64 MiB; InputError if the
    variable holds anything else."""
    text = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_INPUT_BYTES
    if not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) > 0):
        raise InputError(f"{MAX_INPUT_ENV}={text[:40]!r} is not a positive whole number of bytes")
    return int(text)


def _size(count: int) -> str:
    if count % (1 << 20) == 0:
        return f"{count >> 20} MiB"
    return f"{count:,} bytes"


def _too_large(path: str | os.PathLike, limit: int, what: str = "holds") -> InputError:
    return InputError(f"{path} {what} more than {_size(limit)} (the input limit; set "
                      f"{MAX_INPUT_ENV} to raise it)")


def _read_at_most(stream: io.IOBase, limit: int) -> bytes:
    """Up to limit + 1 bytes of `stream`: one more than allowed tells that there is more."""
    data = bytearray()
    while len(data) <= limit:
        chunk = stream.read(min(_CHUNK, limit + 1 - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def read_bytes(path: str | os.PathLike, limit: int | None = None, gunzip: bool = True) -> bytes:
    """The bytes of a user's file, gunzipped (unless `gunzip` is False) when its name ends in
    `.gz` or it starts with gzip's magic; at most `limit` bytes after gunzip (default
    `input_limit()`).

    A file (or stream: /dev/stdin, a fifo) past the limit, or a truncated or corrupt gzip
    stream, is an InputError naming the file; OSError (missing, a directory, no permission)
    is left to callers: they say "cannot read" their own way.
    """
    cap = input_limit() if limit is None else limit
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > cap:
            raise _too_large(path, cap)  # refused before reading a byte of it
        raw = _read_at_most(handle, cap)
    if len(raw) > cap:
        raise _too_large(path, cap)
    if gunzip and (str(path).endswith(".gz") or raw[:2] == b"\x1f\x8b"):
        raw = _gunzip(raw, path, cap)
    return raw


def read_text(path: str | os.PathLike, limit: int | None = None) -> str:
    """`read_bytes`, decoded as UTF-8 (an undecodable byte becomes U+FFFD)."""
    return read_bytes(path, limit).decode("utf-8", errors="replace")


def read_lines(path: str | os.PathLike,
               line_limit: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """(line number, line without its end) of a file too long to read whole (a listing of
    fillings), gunzipped like `read_bytes`; only a line longer than `line_limit` bytes is
    refused (InputError naming its number), so memory stays small whatever the file holds."""
    with open(path, "rb") as raw:
        head = raw.peek(2)[:2]
        zipped = str(path).endswith(".gz") or head == b"\x1f\x8b"
        stream = gzip.GzipFile(fileobj=raw) if zipped else raw
        number = 0
        try:
            while line := stream.readline(line_limit + 1):
                number += 1
                if len(line) > line_limit and not line.endswith(b"\n"):
                    raise InputError(f"{path}: line {number} is longer than "
                                     f"{_size(line_limit)}")
                yield number, line.rstrip(b"\r\n").decode("utf-8", errors="replace")
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            detail = "truncated" if isinstance(exc, EOFError) else "corrupt"
            raise InputError(f"{path}: {detail} gzip data") from None


def _gunzip(raw: bytes, path: str | os.PathLike, limit: int) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
            data = _read_at_most(gz, limit)
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        detail = "truncated" if isinstance(exc, EOFError) else "corrupt"
        raise InputError(f"{path}: {detail} gzip data") from None
    if len(data) > limit:
        raise _too_large(path, limit, "inflates to")
    return data
