"""What every import format shares: the error, the result row, reading a file, stable ids, table cells."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

# the id a workbench-written file carries
ID_MARK = re.compile(r"<!--\s*debate-workbench\s+id=([A-Za-z0-9_\-]+)[^>]*-->")


class ImportFormatError(ValueError):
    """A file cannot be imported; names the file and (when known) the line."""

    def __init__(self, file: str | Path, line: Optional[int], message: str):
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


def read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportFormatError(path, None, f"cannot read: {exc.strerror}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ImportFormatError(path, line, f"not UTF-8 text ({exc.reason})") from None


def content_id(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.replace("\r\n", "\n").strip().encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:12]


def file_time(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(int(path.stat().st_mtime), tz=timezone.utc)
    except OSError:
        return datetime.now(timezone.utc).replace(microsecond=0)


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


def parse_float(text: str) -> Optional[float]:
    t = unbold(text).rstrip("分").strip()
    if t in ("", "-", "—", "n/a", "N/A"):
        return None
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(?:\s*/\s*\d+(?:\.\d+)?)?", t)
    if not m:
        raise ValueError(t)
    return float(m.group(1))
