"""Atomic file writes (temp file + rename) and transparent gzip by file name."""

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
# What read_text will inflate from a gzip file: more is a decompression bomb, not a model.
MAX_GUNZIP_BYTES = 1 << 30


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


def read_text(path: str | os.PathLike) -> str:
    """Read a text file, gunzipping `.gz` names and files that start with gzip's magic.

    A truncated or corrupt gzip stream is an InputError naming the file (OSError is left to
    callers: they say "cannot read" their own way).
    """
    p = Path(path)
    raw = p.read_bytes()
    if str(p).endswith(".gz") or raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, path)
    return raw.decode("utf-8", errors="replace")


def _gunzip(raw: bytes, path: str | os.PathLike) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
            data = gz.read(MAX_GUNZIP_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        detail = "truncated" if isinstance(exc, EOFError) else "corrupt"
        raise InputError(f"{path}: {detail} gzip data") from None
    if len(data) > MAX_GUNZIP_BYTES:
        raise InputError(f"{path}: gzip data inflates to more than {MAX_GUNZIP_BYTES >> 30} GiB")
    return data
