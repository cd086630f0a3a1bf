"""Read-only research tools for trial debaters: read, glob and grep inside one workspace folder.

Confinement is by construction:

* only these three tools exist; none writes, deletes, renames or executes anything;
* every path is relative to the workspace: absolute paths and ``..`` components are
  refused, and whatever a path resolves to (symlinks followed) must stay inside the
  workspace's real path, else the tool answers with an error and touches nothing;
* reads, listings and matches are capped in size.

A refusal is returned to the model as the tool's result (``error: …``) so that a
debater learns what it may not do; it never raises into the debate.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from debate_core.models import ToolCallRecord

MAX_READ_CHARS = 12_000
MAX_FILE_BYTES = 2_000_000
MAX_GLOB_RESULTS = 200
MAX_GREP_MATCHES = 80
MAX_GREP_FILES = 2_000
MAX_LINE_CHARS = 300
MAX_PATTERN_CHARS = 200
MAX_RESULT_CHARS = 16_000


class ToolError(Exception):
    """A refused or failed tool call; the message goes back to the model."""


TOOL_SPECS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "read",
        "description": "Read a text file in the workspace (path relative to the workspace root). "
                       "Returns numbered lines; long files are cut, use offset to page on.",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string", "description": "relative path, e.g. src/app.py"},
            "offset": {"type": "integer", "description": "first line to return (1-based)", "minimum": 1},
            "limit": {"type": "integer", "description": "how many lines (default 400)", "minimum": 1},
        }, "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "glob",
        "description": "List workspace files whose relative path matches a glob pattern such as **/*.py.",
        "parameters": {"type": "object", "properties": {
            "pattern": {"type": "string", "description": "glob pattern relative to the workspace root"},
        }, "required": ["pattern"]}}},
    {"type": "function", "function": {
        "name": "grep",
        "description": "Search workspace files for a regular expression; returns path:line: text for each match.",
        "parameters": {"type": "object", "properties": {
            "pattern": {"type": "string", "description": "regular expression (Python syntax)"},
            "path": {"type": "string", "description": "folder or file to search, relative (default: whole workspace)"},
            "glob": {"type": "string", "description": "only files whose name matches this glob, e.g. *.md"},
            "ignore_case": {"type": "boolean"},
        }, "required": ["pattern"]}}},
]

TOOL_NAMES = tuple(t["function"]["name"] for t in TOOL_SPECS)
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


def glob_regex(pattern: str) -> "re.Pattern[str]":
    """A glob over relative POSIX paths: ``*`` and ``?`` stay within one folder, ``**`` spans folders."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1:j].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    try:
        return re.compile("".join(out))
    except re.error as exc:
        raise ToolError(f"bad glob pattern: {exc}") from None


@dataclass
class Workspace:
    """A folder the debaters may read.  ``Workspace(path)`` raises ValueError when it is not a folder."""

    root: Path

    def __init__(self, root: str | os.PathLike):
        p = Path(root).expanduser()
        if not p.is_dir():
            raise ValueError(f"workspace {str(root)!r} is not a folder")
        self.root = Path(os.path.realpath(p))

    # ------------------------------------------------------------- confinement
    def _inside(self, real: Path) -> bool:
        return real == self.root or self.root in real.parents

    def resolve(self, rel: str) -> Path:
        """The real path of ``rel`` inside the workspace, or :class:`ToolError`."""
        if not isinstance(rel, str):
            raise ToolError("the path must be a string")
        rel = rel.strip() or "."
        if "\x00" in rel:
            raise ToolError("the path contains a NUL character")
        if rel.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", rel) or os.path.isabs(rel):
            raise ToolError(f"absolute paths are refused ({rel!r}): give a path relative to the workspace root")
        parts = PurePosixPath(rel.replace("\\", "/")).parts
        if ".." in parts:
            raise ToolError(f"'..' is refused ({rel!r}): paths must stay inside the workspace")
        real = Path(os.path.realpath(self.root.joinpath(*parts)))
        if not self._inside(real):
            raise ToolError(f"{rel!r} leads outside the workspace (through a symlink): refused")
        return real

    def rel(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix() or "."

    # ------------------------------------------------------------------ tools
    def read(self, path: str, offset: int = 1, limit: int = 400) -> str:
        real = self.resolve(path)
        if not real.exists():
            raise ToolError(f"no such file: {path}")
        if real.is_dir():
            raise ToolError(f"{path} is a folder: use glob to list it")
        if not real.is_file():  # a FIFO, socket or device would block or never end
            raise ToolError(f"{path} is not a regular file")
        if real.stat().st_size > MAX_FILE_BYTES:
            raise ToolError(f"{path} is larger than {MAX_FILE_BYTES} bytes: use grep on it instead")
        data = real.read_bytes()
        if b"\x00" in data[:8192]:
            raise ToolError(f"{path} is a binary file")
        lines = data.decode("utf-8", errors="replace").splitlines()
        offset = max(1, int(offset or 1))
        limit = max(1, min(int(limit or 400), 2000))
        chunk = lines[offset - 1: offset - 1 + limit]
        out, size = [], 0
        for n, line in enumerate(chunk, offset):
            row = f"{n:>5}  {line[:1000]}"
            if size + len(row) > MAX_READ_CHARS:
                out.append(f"[cut at {MAX_READ_CHARS} characters: continue with offset={n}]")
                break
            out.append(row)
            size += len(row) + 1
        else:
            end = offset + len(chunk)
            if end <= len(lines):
                out.append(f"[{len(lines)} lines in all: continue with offset={end}]")
        return "\n".join(out) if out else f"[{path}: no lines from {offset}; the file has {len(lines)} lines]"

    def _walk(self, start: Path):
        """Files under ``start`` (symlinked files only when they stay inside), sorted, bounded."""
        count = 0
        for dirpath, dirnames, filenames in os.walk(start, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            for name in sorted(filenames):
                p = Path(dirpath) / name
                real = Path(os.path.realpath(p))
                if not self._inside(real) or not real.is_file():
                    continue
                yield p, real
                count += 1
                if count >= MAX_GREP_FILES:
                    return

    def glob(self, pattern: str) -> str:
        if not isinstance(pattern, str) or not pattern.strip():
            raise ToolError("give a glob pattern such as **/*.md")
        pattern = pattern.strip()
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ToolError("the pattern is too long")
        if pattern.startswith(("/", "\\", "~")) or os.path.isabs(pattern):
            raise ToolError("absolute patterns are refused: give a pattern relative to the workspace root")
        if ".." in PurePosixPath(pattern).parts:
            raise ToolError("'..' is refused: patterns must stay inside the workspace")
        rx = glob_regex(pattern)
        hits = []
        for p, _real in self._walk(self.root):
            rel = p.relative_to(self.root).as_posix()
            if rx.fullmatch(rel):
                hits.append(rel)
                if len(hits) >= MAX_GLOB_RESULTS:
                    hits.append(f"[stopped at {MAX_GLOB_RESULTS} files]")
                    break
        return "\n".join(hits) if hits else f"no files match {pattern}"

    def grep(self, pattern: str, path: str = ".", glob: Optional[str] = None, ignore_case: bool = False) -> str:
        if not isinstance(pattern, str) or not pattern:
            raise ToolError("give a regular expression to search for")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ToolError("the pattern is too long")
        try:
            rx = re.compile(pattern, re.I if ignore_case else 0)
        except re.error as exc:
            raise ToolError(f"bad regular expression: {exc}") from None
        start = self.resolve(path or ".")
        if not start.exists():
            raise ToolError(f"no such file or folder: {path}")
        files = [(start, start)] if start.is_file() else self._walk(start)
        out: list[str] = []
        for p, real in files:
            if glob and not fnmatch.fnmatch(p.name, glob):
                continue
            try:
                if real.stat().st_size > MAX_FILE_BYTES:
                    continue
                data = real.read_bytes()
            except OSError:
                continue
            if b"\x00" in data[:8192]:
                continue
            rel = p.relative_to(self.root).as_posix() if p != self.root else p.name
            for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
                if rx.search(line):
                    out.append(f"{rel}:{n}: {line.strip()[:MAX_LINE_CHARS]}")
                    if len(out) >= MAX_GREP_MATCHES:
                        out.append(f"[stopped at {MAX_GREP_MATCHES} matches]")
                        return "\n".join(out)
        return "\n".join(out) if out else f"no matches for {pattern!r}"

    # -------------------------------------------------------------- dispatch
    def execute(self, name: str, arguments: Any) -> ToolCallRecord:
        """Run one tool call from a model; the record holds the result or a clear error."""
        args: dict[str, Any]
        if isinstance(arguments, str):
            try:
                args = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                return ToolCallRecord(name=name, arguments={"raw": arguments[:500]},
                                      error="error: the arguments are not valid JSON")
        else:
            args = dict(arguments or {})
        if not isinstance(args, dict):
            return ToolCallRecord(name=name, arguments={"raw": str(args)[:500]}, error="error: arguments must be an object")
        fn = {"read": self.read, "glob": self.glob, "grep": self.grep}.get(name)
        if fn is None:
            return ToolCallRecord(name=name, arguments=args, error=(
                f"error: no tool named {name!r}; the only tools are read, glob and grep (read-only)"))
        allowed = {"read": {"path", "offset", "limit"}, "glob": {"pattern"},
                   "grep": {"pattern", "path", "glob", "ignore_case"}}[name]
        try:
            result = fn(**{k: v for k, v in args.items() if k in allowed})
        except ToolError as exc:
            return ToolCallRecord(name=name, arguments=args, error=f"error: {exc}")
        except TypeError as exc:
            return ToolCallRecord(name=name, arguments=args, error=f"error: bad arguments: {exc}")
        except (OSError, ValueError) as exc:
            return ToolCallRecord(name=name, arguments=args, error=f"error: {type(exc).__name__}: {exc}")
        if len(result) > MAX_RESULT_CHARS:
            result = result[:MAX_RESULT_CHARS] + "\n[cut]"
        return ToolCallRecord(name=name, arguments=args, result=result)


def tool_message_content(record: ToolCallRecord) -> str:
    """What the model receives for one tool call."""
    return record.error or record.result
