"""Reading a file (a path or uploaded bytes) into memory: only what can be read safely, and text
that is text.

* A path must name a regular file, checked before it is opened (and again once open, without
  blocking): a named pipe (FIFO) with no writer would block forever and a device such as
  ``/dev/zero`` never ends, so they are refused, as are directories and sockets. A file that cannot
  be read says why (permission denied, a symbolic link loop, a link to nothing).
* Gzip is recognised by its magic bytes whatever the file is called, and decompressed as a stream,
  up to a bound on what one file may expand to (:func:`decompressed_limit`). Other archives (zip,
  7z, xz, bzip2, zstd, lz4, rar, tar) are named and refused.
* Text is checked one block at a time as it is read: a NUL byte or bytes that are not UTF-8 stop
  the reading at that block, with the line they are on, so a 2 GB file of NULs is refused after
  its first megabyte.

Splitting the text into rows is :mod:`metrics.loaders.lines`' job.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import zlib
from typing import Iterator, Union

from metrics.errors import InputError

try:   # Intel's ISA-L inflates gzip about three times as fast as zlib, to the same bytes
    from isal import isal_zlib as _inflate
except ImportError:   # a platform without its wheels: zlib
    _inflate = zlib

Source = Union[str, os.PathLike, bytes]

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
NUMPY_MAGIC = b"\x93NUMPY"
PICKLE_MAGIC = b"\x80"
UTF8_BOM = b"\xef\xbb\xbf"
BLOCK = 1 << 20   # bytes read, decompressed and checked at a time

LIMIT_VARIABLE = "METRICS_MAX_DECOMPRESSED_MB"
DEFAULT_LIMIT_MB = 1024
# decompressed blocks up to this total are kept and joined; past it the file is decompressed a
# second time in one piece, so that the result is never held twice
_KEEP_BLOCKS = 64 << 20
_INPUT = 1 << 16   # compressed bytes given to zlib at a time

_ARCHIVES = [(re.compile(pattern, re.S), kind) for pattern, kind in [
    (rb"PK(\x03\x04|\x05\x06|\x07\x08)", "zip"), (rb"7z\xbc\xaf\x27\x1c", "7z"),
    (rb"\xfd7zXZ\x00", "xz"), (rb"BZh[1-9](1AY&SY|\x17rE8P\x90)", "bzip2"),
    (rb"\x28\xb5\x2f\xfd", "zstd"), (rb"\x04\x22\x4d\x18", "lz4"), (rb"Rar!\x1a\x07", "rar"),
    (rb".{257}ustar", "tar")]]
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def source_name(source: Source, name: str | None = None) -> str:
    if name:
        return name
    if isinstance(source, (bytes, bytearray)):
        return "<upload>"
    return os.fspath(source)


def decompressed_limit() -> int:
    """Bytes that one gzipped file (or upload) may expand to: ``METRICS_MAX_DECOMPRESSED_MB``
    megabytes (MiB) when the environment sets it, else 1 GiB — far more than any run or
    ground truth we know of, far less than a "zip bomb" would ask for."""
    given = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not given:
        return DEFAULT_LIMIT_MB << 20
    if not given.isdigit() or int(given) < 1:
        raise InputError(f"{LIMIT_VARIABLE}={given!r} is not a whole number of megabytes (MiB), "
                         f"such as {DEFAULT_LIMIT_MB}")
    return int(given) << 20


def open_regular(path: Source, label: str):
    """An open binary file, after checking that ``path`` is a regular file that can be read: its
    kind is checked before it is opened, and again once it is open (opened without blocking, in
    case it was replaced in between)."""
    try:
        kind = _not_regular(os.stat(path).st_mode)
        if kind is None:
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                                 | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise InputError(_cannot_open(path, exc), source=label) from None
    if kind is None:
        handle = os.fdopen(descriptor, "rb", buffering=0)
        kind = _not_regular(os.fstat(descriptor).st_mode)
        if kind is None:
            return handle
        handle.close()
    if kind == "a directory":
        raise InputError("is a directory, not a file", source=label)
    raise InputError(f"is {kind}, not a regular file: a loader reads a whole file, and this could "
                     f"block or never end; save the data to a file first", source=label)


def _not_regular(mode: int) -> str | None:
    for test, kind in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def _cannot_open(path: Source, exc: OSError) -> str:
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return f"is a symbolic link to {os.readlink(path)!r}, which does not exist"
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return "file not found"
    if exc.errno == errno.ELOOP:
        return ("is a symbolic link loop (its links lead back to themselves, or through more "
                "than the system allows): point the link at a file")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "cannot be read: permission denied; check the permissions of the file and folder"
    return f"cannot be read ({exc.strerror or exc})"


def refuse_archive(head: bytes, label: str, binary: bool = False) -> None:
    """An archive this project does not read is named, and gzip offered instead."""
    for pattern, kind in _ARCHIVES:
        if pattern.match(head):
            hint = ("; an .npz holds several arrays: save each with numpy.save"
                    if binary and kind == "zip" else "")
            article = "an" if kind == "xz" else "a"
            raise InputError(f"is {article} {kind} archive, which is not read; gzip (.gz) is: "
                             f"unpack it, or compress the file itself with gzip{hint}",
                             source=label)


def read_bytes(source: Source, name: str | None = None, binary: bool = False) -> bytes:
    """The bytes of a path or of uploaded content, gunzipped when they are gzip. Unless they are
    ``binary`` or start as a Parquet, ``.npy`` or pickle file, they are checked to be UTF-8 text
    without NUL bytes as they are read."""
    label = source_name(source, name)
    checked = 0
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        head = data[:BLOCK]
        check = None if head[:2] == GZIP_MAGIC else _checker(head, label, binary)
    else:
        with open_regular(source, label) as handle:
            try:
                head = handle.read(BLOCK)
                check = None if head[:2] == GZIP_MAGIC else _checker(head, label, binary)
                if check:   # the first block, before the rest is read
                    check.feed(head)
                    checked = len(head)
                handle.seek(0)
                data = handle.read()
            except OSError as exc:
                raise _unreadable(label, exc) from None
    if head[:2] == GZIP_MAGIC:
        return _gunzip(data, label, binary)
    if check:
        check.feed_rest(data, checked)
    return data


def _checker(head: bytes, label: str, binary: bool) -> "_TextCheck | None":
    refuse_archive(head, label, binary)
    if binary or head.startswith((PARQUET_MAGIC, NUMPY_MAGIC, PICKLE_MAGIC)):
        return None
    if head.startswith(_UTF16_BOMS):
        raise InputError("is UTF-16 (or UTF-32) text; save it as UTF-8", source=label, line=1)
    return _TextCheck(label)


class _TextCheck:
    """Fed a file's bytes block by block, raises at the first NUL byte or byte that is not UTF-8,
    naming its line."""

    def __init__(self, label: str):
        self.label = label
        self.lines = 0        # line ends in the blocks already fed
        self.carry = b""      # the start of a UTF-8 sequence that the last block cut off

    def feed(self, block: bytes) -> None:
        nul = block.find(b"\x00")
        bad = -1
        if self.carry or not block.isascii():
            text = self.carry + block
            try:
                _, used = codecs.utf_8_decode(text, "strict", False)
            except UnicodeDecodeError as exc:
                bad = max(exc.start - len(self.carry), 0)
                if nul < 0 or bad < nul:
                    self._raise_not_utf8(text[exc.start], block, bad)
            else:
                self.carry = text[used:]
        if nul >= 0:
            raise InputError("contains a NUL byte: this is not a text file", source=self.label,
                             line=self.lines + block.count(b"\n", 0, nul) + 1)
        self.lines += block.count(b"\n")

    def feed_rest(self, data: bytes, start: int) -> None:
        """The rest of a whole file in memory, from ``start`` (after the blocks fed before);
        plain ASCII, the usual case, is checked in one pass without copying."""
        if data.isascii():
            nul = data.find(b"\x00", start)
            if nul >= 0:
                raise InputError("contains a NUL byte: this is not a text file",
                                 source=self.label, line=data.count(b"\n", 0, nul) + 1)
            return
        for first in range(start, len(data), BLOCK):
            self.feed(data[first:first + BLOCK])
        self.finish()

    def finish(self) -> None:
        if self.carry:   # the file ends inside a UTF-8 sequence
            self._raise_not_utf8(self.carry[0], b"", 0)

    def _raise_not_utf8(self, byte: int, block: bytes, at: int):
        raise not_utf8(byte, self.label, self.lines + block.count(b"\n", 0, at) + 1)


def not_utf8(byte: int, label: str, line: int) -> InputError:
    return InputError(f"byte 0x{byte:02x} is not valid UTF-8; save the file as UTF-8 text",
                      source=label, line=line)


def _gunzip(compressed: bytes, label: str, binary: bool) -> bytes:
    """Gzip members decompressed block by block (:func:`_gunzip_blocks`), each block checked (as
    text unless ``binary``) and counted against :func:`decompressed_limit` before the next is
    made."""
    limit = decompressed_limit()
    members: list[tuple[int, int, int]] = []   # (start, end, decompressed size)
    kept: list[bytes] | None = []
    check = None
    total = 0
    view = memoryview(compressed)
    position = 0

    def read(count: int) -> memoryview:   # slices of the bytes held: zlib copies what it keeps
        nonlocal position
        piece = view[position:position + count]
        position += len(piece)
        return piece

    for block in _gunzip_blocks(b"", read, label, BLOCK, members):
        if total == 0:
            check = _checker(block, label, binary)
        total += len(block)
        if total > limit:
            raise InputError(
                f"expands to more than {limit >> 20} MiB once decompressed, the most one "
                f"file may expand to; give it uncompressed, or raise the bound with the "
                f"environment variable {LIMIT_VARIABLE}", source=label)
        if check:
            check.feed(block)
        if kept is not None:
            kept.append(block)
            if total > _KEEP_BLOCKS:
                kept = None
    if check:
        check.finish()
    if kept is not None:
        return b"".join(kept)
    # one allocation of exactly the decompressed size: zlib returns its first buffer as it is
    # when the output fills it exactly (with a byte to spare it would copy it into a new one)
    parts = [zlib.decompress(view[a:b], 31, max(size, 1))
             for a, b, size in members]
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_some(handle, label: str, count: int) -> bytes:
    """Up to ``count`` bytes of an open file, from where it stands; an error of the system is an
    :class:`InputError` naming the file."""
    try:
        return handle.read(count)
    except OSError as exc:
        raise _unreadable(label, exc) from None


def read_into(handle, label: str, buffer: bytearray, start: int) -> int:
    """Bytes read into ``buffer[start:]`` from where the file stands, as many as fit unless the
    file ends first; an error of the system is an :class:`InputError` naming the file."""
    got = start
    with memoryview(buffer) as view:
        while got < len(buffer):
            try:
                count = handle.readinto(view[got:])
            except OSError as exc:
                raise _unreadable(label, exc) from None
            if not count:
                break
            got += count
    return got - start


def _unreadable(label: str, exc: OSError) -> InputError:
    return InputError(f"cannot be read ({exc.strerror or exc})", source=label)


def byte_blocks(path: Source, label: str, size: int = BLOCK) -> Iterator[bytes]:
    """A file's bytes a block of at most ``size`` bytes at a time, gunzipped as a stream when it
    is gzip (the blocks are then the decompressed bytes): for readers that never hold the whole
    file. Nothing is checked as text here, and no bound is put on what gzip expands to, since
    nothing is kept: the reader checks each block (see :mod:`metrics.loaders.run_blocks`)."""
    with open_regular(path, label) as handle:
        def read(count: int) -> bytes:
            return read_some(handle, label, count)

        head = read(size)
        if head[:2] != GZIP_MAGIC:
            while head:
                yield head
                head = read(size)
            return
        yield from _gunzip_blocks(head, read, label, size)


def _gunzip_blocks(pending: bytes, read, label: str, size: int,
                   members: list | None = None) -> Iterator[bytes]:
    """Gzip members decompressed a block of at most ``size`` bytes at a time, from ``pending``
    and then ``read(n)``, refusing damaged data and bytes after the last member that are not
    gzip. Each member's (start, end, decompressed size), offsets in the compressed bytes, is
    appended to ``members`` when given, once the member ends."""
    taken = len(pending)   # compressed bytes received so far
    start = 0
    while True:
        stream = _inflate.decompressobj(wbits=31)
        produced = 0
        while not stream.eof:
            ended = False
            if not pending:
                pending = read(_INPUT)
                taken += len(pending)
                ended = not pending
            try:
                block = stream.decompress(pending, size)
            except (_inflate.error, zlib.error) as exc:
                raise _damaged(label, exc) from None
            pending = stream.unconsumed_tail
            if block:
                produced += len(block)
                yield block
            elif ended and not stream.eof:
                raise _damaged(label, "it ends before its compressed data does")
        pending = stream.unused_data
        if members is not None:
            members.append((start, taken - len(pending), produced))
            start = taken - len(pending)
        while len(pending) < 2:
            more = read(_INPUT)
            if not more:
                break
            taken += len(more)
            pending += more
        if not pending:
            return
        if bytes(pending[:2]) != GZIP_MAGIC:
            rest = len(pending)
            while more := read(BLOCK):
                rest += len(more)
            raise InputError(f"has {rest} bytes after the end of its gzip data that are not "
                             f"gzip: is the file damaged?", source=label)


def _damaged(label: str, why) -> InputError:
    return InputError(f"looks gzipped but cannot be decompressed ({why})", source=label)


def refuse_binary(data: bytes, label: str, what: str) -> None:
    if data.startswith((PARQUET_MAGIC, NUMPY_MAGIC, PICKLE_MAGIC)):
        raise InputError(f"is a binary file, but a text {what} was expected", source=label)

