"""The one way the analysis reads a file it is given (a run's results.json, a reference index):
the Python side of experiments/io/read.hpp. A hostile or broken file -- a FIFO, a device, a
symlink loop, gigabytes, bytes that are not UTF-8, JSON nested 200,000 deep -- is an
InputError (exit 2) naming the file, never a hang, a crash or a traceback (exit 3)."""
from __future__ import annotations

import json
import os
import stat

MAX_BYTES = 256 << 20  # results of the longest runs are tens of MB
MAX_DEPTH = 64  # parlab's deepest document nests about 6


class InputError(Exception):
    """A file that is missing, unreadable or malformed: exit 2, with this message."""


def _nesting(text: str, limit: int) -> int:
    """The deepest nesting of arrays and objects outside strings, counting stopped past `limit`."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif c in "]}":
            depth -= 1
    return deepest


def _read_bytes(path: str, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`: opened without blocking and checked with fstat before
    a byte is read (a FIFO would hang the read; io would name a folder by its descriptor alone),
    bounded in size. InputError names the file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file (a FIFO, socket or device)")
        if st.st_size > max_bytes:
            raise InputError(f"{path}: {st.st_size} bytes, over the {max_bytes} this file may hold")
    except BaseException:
        os.close(fd)
        raise
    try:
        with os.fdopen(fd, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror})") from None
    if len(data) > max_bytes:
        raise InputError(f"{path}: over the {max_bytes} bytes this file may hold")
    return data


def read_text(path: str, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file `path`, guarded as read_json is."""
    data = _read_bytes(path, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None


def read_json(path: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH):
    """The parsed JSON of the regular file `path` (_read_bytes' guard), bounded in nesting too.
    NaN and Infinity parse (a run edited by another tool may hold them), so the checks of a record
    name the record that holds one."""
    data = _read_bytes(path, max_bytes)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError(f"{path}: UTF-16 text; save it as UTF-8 JSON")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise InputError(f"{path}: empty, not JSON")
    if _nesting(text, max_depth) > max_depth:
        raise InputError(f"{path}: JSON nested deeper than {max_depth} levels; not a parlab file")
    try:
        return json.loads(text)
    except ValueError as e:  # JSONDecodeError
        raise InputError(f"{path}: not valid JSON: {e}") from None
