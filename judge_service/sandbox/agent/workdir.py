"""The sandbox's scratch files: job files in, copy-out without following links, the wipe
between jobs, and memfds for a child's streams. Standard library only (sent to the agent)."""

from __future__ import annotations

import fcntl
import fnmatch
import os
import shutil
import stat
from typing import Any

from judge_service.sandbox.agent import wire

MAX_COPY_OUT_BYTES = 64 << 20


def memfd(name: str, data: bytes = b"") -> int:
    # Kept above the low numbers a child's streams are installed at.
    created = os.memfd_create(name, os.MFD_CLOEXEC)
    fd = fcntl.fcntl(created, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(created)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def read_memfd(fd: int, limit: int) -> bytes:
    chunks, offset = [], 0
    while offset < limit:
        chunk = os.pread(fd, min(1 << 20, limit - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def safe_path(name: str) -> str:
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"unsafe path {name!r}")
    return "/".join(parts)


def write_file(name: str, data: bytes, mode: int) -> None:
    path = safe_path(name)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(os.path.join("/work", directory), exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    fd = os.open(os.path.join("/work", path), flags, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def unpack_files(entries: list[wire.BlobFile], blob: bytes) -> None:
    offset = 0
    for entry in entries:
        write_file(entry["name"], blob[offset : offset + entry["size"]], entry["mode"])
        offset += entry["size"]


def _open_no_follow(path: str) -> int:
    """Open /work/<path> read-only without following a symlink in any component."""
    parts = safe_path(path).split("/")
    directory = os.open("/work", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            os.close(directory)
            directory = inner
        return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    finally:
        os.close(directory)


def copy_out(patterns: list[str], glob: bool) -> tuple[list[wire.CopiedFile], bytes]:
    """Copy regular files only (no symlinks, FIFOs or devices), within a total size cap."""
    names = patterns
    if glob:
        names = sorted(
            n for n in os.listdir("/work") if any(fnmatch.fnmatch(n, p) for p in patterns)
        )
    entries: list[wire.CopiedFile] = []
    chunks: list[bytes] = []
    total = 0
    for name in names:
        try:
            fd = _open_no_follow(name)
        except (OSError, ValueError) as error:
            entries.append({"name": name, "error": f"cannot open: {error.__class__.__name__}"})
            continue
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                entries.append({"name": name, "error": "not a regular file"})
                continue
            if total + info.st_size > MAX_COPY_OUT_BYTES:
                entries.append({"name": name, "error": "copy-out size cap exceeded"})
                continue
            data = read_memfd(fd, info.st_size)
        finally:
            os.close(fd)
        entries.append({"name": name, "size": len(data), "mode": stat.S_IMODE(info.st_mode)})
        chunks.append(data)
        total += len(data)
    return entries, b"".join(chunks)


def _make_traversable(top: str) -> None:
    """chmod 700 every directory under ``top`` (iteratively: trees can be deep). rmtree's error
    hook cannot recover a directory the program made unreadable: it never lists it again."""
    pending = [top]
    while pending:
        path = pending.pop()
        try:
            os.chmod(path, 0o700)
            with os.scandir(path) as entries:
                pending.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue


def wipe(directory: str) -> None:
    def make_writable_and_retry(function: Any, path: str, _: Any) -> None:
        try:
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
            function(path)
        except OSError:
            pass

    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                _make_traversable(path)
                shutil.rmtree(path, onerror=make_writable_and_retry)
            else:
                os.unlink(path)
        except OSError:
            pass
