"""Unpacking an uploaded .zip under caps, while streaming.

Each entry is read in chunks and its real unpacked size counted as it is written (the sizes a
zip's header claims are not trusted), so a zip bomb stops at the first chunk past a cap:
``UPLOAD_MAX_ENTRY_BYTES`` (one entry), ``UPLOAD_MAX_TOTAL_BYTES`` (the whole upload) and
``UPLOAD_MAX_ENTRIES`` (files), all named settings (:data:`debate_core.settings.CAPS`).
Hitting one raises :class:`~debate_core.errors.InputError` whose one line names the cap.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import BinaryIO

from debate_core.errors import InputError
from debate_core.settings import cap, cap_error

CHUNK = 1 << 20


class Budget:
    """What one upload may still unpack: bytes and entries, counted across its files."""

    def __init__(self) -> None:
        self.total = 0
        self.entries = 0

    def add_entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > cap("UPLOAD_MAX_ENTRIES"):
            raise InputError(cap_error("UPLOAD_MAX_ENTRIES", name))

    def add_bytes(self, name: str, n: int, entry_bytes: int) -> None:
        self.total += n
        if entry_bytes > cap("UPLOAD_MAX_ENTRY_BYTES"):
            raise InputError(cap_error("UPLOAD_MAX_ENTRY_BYTES", name))
        if self.total > cap("UPLOAD_MAX_TOTAL_BYTES"):
            raise InputError(cap_error("UPLOAD_MAX_TOTAL_BYTES", name))


def safe_rel(name: str) -> Path | None:
    """An uploaded name as a relative path with no '..', no root, no drive and no control characters."""
    parts = []
    for p in re.split(r"[\\/]+", name or ""):
        p = re.sub(r"[\x00-\x1f]", "", p).strip()
        if p in ("", ".", "..") or re.fullmatch(r"[A-Za-z]:", p):
            continue
        parts.append(p)
    return Path(*parts) if parts else None


def unpack_zip(source: BinaryIO, dest: Path, budget: Budget | None = None, label: str = "upload") -> int:
    """Unpack the zip ``source`` under ``dest`` (never outside it), streaming every entry under the
    caps; returns the files written.  A cap hit raises :class:`InputError` naming it (what was
    written so far is left for the caller's staging folder to remove)."""
    budget = budget or Budget()
    dest = dest.resolve()
    written = 0
    try:
        zf = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(f"{label}: not a readable .zip ({exc})") from None
    with zf:
        for info in zf.infolist():
            r = safe_rel(info.filename)
            if r is None or info.is_dir():
                continue
            out = (dest / r).resolve()
            if dest not in out.parents:
                continue
            shown = f"{label}: {info.filename}"
            budget.add_entry(shown)
            out.parent.mkdir(parents=True, exist_ok=True)
            size = 0
            try:
                with zf.open(info) as src, open(out, "wb") as fh:
                    while True:
                        chunk = src.read(CHUNK)
                        if not chunk:
                            break
                        size += len(chunk)
                        budget.add_bytes(shown, len(chunk), size)
                        fh.write(chunk)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, ValueError) as exc:
                if isinstance(exc, InputError):
                    raise
                raise InputError(f"{shown}: cannot unpack ({exc})") from None
            written += 1
    return written
