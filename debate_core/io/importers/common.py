"""What every import format shares: the error, the result row, reading a file, stable ids, table cells."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# the id a workbench-written file carries
ID_MARK = re.compile(r"<!--\s*debate-workbench\s+id=([A-Za-z0-9_\-]+)[^>]*-->")


class ImportFormatError(ValueError):
    """A file cannot be imported; names the file and (when known) the line."""

    def __init__(self, file: str | Path, line: int | None, message: str):
        self.file = str(file)
        self.line = line
        self.reason = message
        where = f"{self.file}, line {line}" if line else self.file
        super().__init__(f"{where}: {message}")


@dataclass
class ImportResult:
    path: str
    kind: str  # topic-debate / master-md / json
    id: str
    topic: str
    status: str  # imported / exists / updated / skipped
    message: str = ""  # why a file was skipped (with its path and line)

    def as_dict(self) -> dict:
        return asdict(self)


_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def file_kind(mode: int) -> str:
    """What a non-regular file is, for a message (``a named pipe``, ``a character device`` …)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_regular(path: Path) -> os.stat_result:
    """``os.stat`` of ``path`` (a symlink followed), refusing anything but a regular file before it
    is opened: a named pipe would block the import, ``/dev/zero`` would never end."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ImportFormatError(path, None, f"cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ImportFormatError(
            path, None, f"{file_kind(st.st_mode)}, not a regular file: import reads only files and folders"
        )
    return st


def read_bytes(path: Path) -> bytes:
    """A regular file's bytes, at most the cap ``IMPORT_MAX_FILE_BYTES`` (one line naming the cap past it).
    The file is opened without blocking and checked again once open (it may have been swapped for a pipe)."""
    from debate_core.settings import cap, cap_error

    limit = int(cap("IMPORT_MAX_FILE_BYTES"))
    st = check_regular(path)
    if st.st_size > limit:
        raise ImportFormatError(path, None, cap_error("IMPORT_MAX_FILE_BYTES", f"the file is {st.st_size:,} bytes"))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ImportFormatError(path, None, f"cannot read: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ImportFormatError(
                path, None, f"{file_kind(mode)}, not a regular file: import reads only files and folders"
            )
        chunks, size = [], 0
        while size <= limit:  # a file that grows (or a /proc file that claims 0 bytes) stops at the cap
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ImportFormatError(path, None, f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise ImportFormatError(path, None, cap_error("IMPORT_MAX_FILE_BYTES", f"the file is over {limit:,} bytes"))
    return b"".join(chunks)


def read_text(path: Path) -> str:
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ImportFormatError(path, line, f"not UTF-8 text ({exc.reason})") from None


# ------------------------------------------------------------ what may be stored

MAX_ID_CHARS = 128
INT32 = (-(2**31), 2**31 - 1)  # the archive's INTEGER columns (rounds, ordinals, retries …)
TOKENS = (-(10**15), 10**15)  # token counts (BIGINT columns, summed per debate: kept far below 2^63)
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens")
_DIRECTION = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def shown(value: str, limit: int = 40) -> str:
    """A value for a message: quoted, control characters escaped, cut at ``limit`` characters."""
    return repr(value[:limit]) + ("…" if len(value) > limit else "")


def id_problem(debate_id: object) -> str | None:
    """Why ``debate_id`` cannot be a debate's id (it names files on export and rows in the archive), or None."""
    if not isinstance(debate_id, str) or not debate_id.strip():
        return "is empty"
    if len(debate_id) > MAX_ID_CHARS:
        return f"is {len(debate_id):,} characters long (at most {MAX_ID_CHARS})"
    for ch in debate_id:
        if ch in _DIRECTION or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            return f"holds a control or text-direction character (U+{ord(ch):04X})"
    if "/" in debate_id or "\\" in debate_id:
        return "holds a path separator"
    if ".." in debate_id:
        return "holds '..'"
    return None


def check_id(path: str | Path, debate_id: object) -> None:
    problem = id_problem(debate_id)
    if problem:
        text = shown(debate_id) if isinstance(debate_id, str) else repr(debate_id)
        raise ImportFormatError(
            path,
            None,
            f"debate id {text} {problem}; an id is 1-{MAX_ID_CHARS} characters "
            "with no control characters, path separators or '..'",
        )


def _int_shown(value: int) -> str:
    if value.bit_length() > 64:  # str() of a huge int is slow, and refused past 4300 digits
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    return str(value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def value_problem(data: Any, loc: tuple = ()) -> tuple[tuple, str] | None:
    """The first value of ``data`` (a parsed debate, its models walked field by field, or plain data)
    the archive cannot store: ``(where, why)``.  Whole numbers must fit their column (:data:`INT32`,
    token counts :data:`TOKENS`), text must be encodable as UTF-8 (no lone surrogates), times must
    convert to UTC."""
    if data is None or isinstance(data, (bool, float)):
        return None
    if isinstance(data, str):
        m = _SURROGATE.search(data)
        return (loc, f"holds a character that is not valid text (U+{ord(m.group()):04X} at {m.start()})") if m else None
    fields = getattr(type(data), "model_fields", None)
    if fields is not None:  # a pydantic model: its fields, without dumping it
        for name in fields:
            if bad := value_problem(getattr(data, name, None), loc + (name,)):
                return bad
        return None
    if isinstance(data, int):
        key = next((k for k in reversed(loc) if isinstance(k, str)), "")
        lo, hi = TOKENS if key in TOKEN_FIELDS else INT32
        if not lo <= data <= hi:
            return loc, f"{_int_shown(data)} is out of range (a whole number from {lo:,} to {hi:,})"
        return None
    if isinstance(data, datetime):
        if data.tzinfo is not None:
            try:
                data.astimezone(UTC)
            except (OverflowError, ValueError):
                return loc, f"{data.isoformat()} is out of range"
        return None
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(k, str) and (bad := value_problem(k, loc + (k,))):
                return bad
            if bad := value_problem(v, loc + (k,)):
                return bad
        return None
    if isinstance(data, (list, tuple, set, frozenset)):
        for i, v in enumerate(data):
            if bad := value_problem(v, loc + (i,)):
                return bad
    return None


def where(loc: tuple) -> str:
    """``rounds.3.round`` for a location in a debate's data."""
    return ".".join(str(x) for x in loc) or "(the debate)"


def check_values(path: str | Path, debate: Any, line: int | None = None) -> None:
    """:class:`ImportFormatError` (naming the file, the field and the value) for a parsed debate
    holding a value the archive cannot store; checked before anything reaches DuckDB."""
    check_id(path, debate.id)
    bad = value_problem(debate)
    if bad:
        raise ImportFormatError(path, line, f"debate {debate.id}: {where(bad[0])}: {bad[1]}")


def content_id(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.replace("\r\n", "\n").strip().encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:12]


def file_time(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(int(path.stat().st_mtime), tz=UTC)
    except OSError:
        return datetime.now(UTC).replace(microsecond=0)


def split_row(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", body)]


def is_separator(line: str) -> bool:
    return bool(re.fullmatch(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*", line))


def unbold(text: str) -> str:
    return text.replace("**", "").strip()


def parse_float(text: str) -> float | None:
    t = unbold(text).rstrip("分").strip()
    if t in ("", "-", "—", "n/a", "N/A"):
        return None
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(?:\s*/\s*\d+(?:\.\d+)?)?", t)
    if not m:
        raise ValueError(t)
    return float(m.group(1))
