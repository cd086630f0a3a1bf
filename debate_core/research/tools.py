"""Read-only research tools for trial debaters: read, glob and grep inside one workspace folder.

Confinement is by construction:

* only these three tools exist; none writes, deletes, renames or executes anything;
* every path is relative to the workspace: absolute paths and ``..`` components are
  refused, and whatever a path resolves to (symlinks followed) must stay inside the
  workspace's real path, else the tool answers with an error and touches nothing;
* reads, listings and matches are capped in size;
* patterns cannot freeze the process: globs are tidied (runs of ``*`` and of ``**/`` collapse to
  one) and every glob and grep pattern is compiled by RE2 (google-re2), whose matching takes
  time linear in the text, with its memory capped (``RE2_MAX_MEM``); a backtracking pattern such
  as ``(a|aa)*b`` is as fast as any other.  Files skipped by a search (too big, binary,
  unreadable) are counted in its answer.

A refusal is returned to the model as the tool's result (``error: …`` / ``错误：…``) so
that a debater learns what it may not do; it never raises into the debate.

What the model reads — the tools' descriptions (:func:`tool_specs`), their results'
notes and their errors — is in the debate's language: ``Workspace(root, lang="zh")``
answers in Chinese, ``lang="en"`` (the default) in English, through the library's catalogs
(:mod:`debate_core.i18n`: the msgids are the English texts).  Tool and parameter names stay
as they are.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from debate_core.i18n import N_, tr, translator
from debate_core.models import ToolCallRecord
from debate_core.settings import cap

MAX_READ_CHARS = 12_000
MAX_FILE_BYTES = 2_000_000  # the default of the GREP_MAX_FILE_BYTES cap (debate_core.settings)
MAX_GLOB_RESULTS = 200
MAX_GREP_MATCHES = 80
MAX_GREP_FILES = 2_000
MAX_LINE_CHARS = 300
MAX_PATTERN_CHARS = 200
MAX_RESULT_CHARS = 16_000


class ToolError(Exception):
    """A refused or failed tool call; the message goes back to the model."""


def tool_specs(lang: str = "en") -> list[dict[str, Any]]:
    """The three tools' definitions, described in ``lang`` (names and parameters stay as they are)."""
    _ = translator("zh" if lang == "zh" else "en")
    return [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": _(
                    "Read a text file in the workspace (path relative to the workspace "
                    "root). Returns numbered lines; long files are cut, use offset to "
                    "page on."
                ),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": _("relative path, e.g. src/app.py")},
                        "offset": {"type": "integer", "description": _("first line to return (1-based)"), "minimum": 1},
                        "limit": {"type": "integer", "description": _("how many lines (default 400)"), "minimum": 1},
                    },
                    "required": ["path"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "glob",
                "description": _("List workspace files whose relative path matches a glob pattern such as **/*.py."),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "description": _("glob pattern relative to the workspace root")},
                    },
                    "required": ["pattern"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "grep",
                "description": _(
                    "Search workspace files for a regular expression; returns path:line: text for each match."
                ),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "pattern": {
                            "type": "string",
                            "description": _(
                                "regular expression (RE2 syntax: like Python's, without backreferences or lookaround)"
                            ),
                        },
                        "path": {
                            "type": "string",
                            "description": _("folder or file to search, relative (default: whole workspace)"),
                        },
                        "glob": {
                            "type": "string",
                            "description": _("only files whose name matches this glob, e.g. *.md"),
                        },
                        "ignore_case": {"type": "boolean", "description": _("true: ignore upper and lower case")},
                    },
                    "required": ["pattern"],
                },
            },
        },
    ]


TOOL_NAMES = ("read", "glob", "grep")


def __getattr__(name: str) -> Any:
    """``TOOL_SPECS``: the English definitions, built when first asked for (they come from the catalogs,
    which are read on first use, not when the library is imported)."""
    if name == "TOOL_SPECS":
        return tool_specs("en")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# why a search skipped files, in the order its answer lists them
_SKIPPED = {"big": N_("{n} larger than {cap} bytes"), "binary": N_("{n} binary"), "unreadable": N_("{n} unreadable")}
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


def _file_cap() -> int:
    """GREP_MAX_FILE_BYTES: ``$DEBATE_GREP_MAX_FILE_BYTES`` when set, else :data:`MAX_FILE_BYTES`."""
    return int(cap("GREP_MAX_FILE_BYTES")) if os.environ.get("DEBATE_GREP_MAX_FILE_BYTES") else MAX_FILE_BYTES


def tidy_glob(pattern: str) -> str:
    """Runs of ``*`` collapse to ``**`` (or stay ``*``), and repeated ``**/`` to one: the same files,
    and a pattern like ``**************b`` no longer multiplies the work."""
    pattern = re.sub(r"\*{3,}", "**", pattern)
    pattern = re.sub(r"(?:\*\*/){2,}", "**/", pattern)
    pattern = re.sub(r"\*\*(?:/\*\*)+", "**", pattern)
    return pattern


def compile_linear(regex: str, *, ignore_case: bool = False):
    """``regex`` compiled by RE2 (linear-time matching, memory capped by ``RE2_MAX_MEM``); raises
    ``ValueError`` with RE2's one-line reason when it does not compile."""
    import re2

    from debate_core.settings import cap

    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = int(cap("RE2_MAX_MEM"))
    opts.case_sensitive = not ignore_case
    try:
        return re2.compile(regex, opts)
    except re2.error as exc:
        msg = exc.args[0] if exc.args else exc
        raise ValueError(msg.decode("utf-8", "replace") if isinstance(msg, bytes) else str(msg)) from None


def glob_regex(pattern: str, lang: str = "en"):
    """A glob over relative POSIX paths: ``*`` and ``?`` stay within one folder, ``**`` spans folders
    (compiled by RE2, see :func:`compile_linear`)."""
    pattern = tidy_glob(pattern)
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
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    try:
        return compile_linear("".join(out))
    except ValueError as exc:
        raise ToolError(tr(lang, "bad glob pattern: {exc}", exc=exc)) from None


@dataclass
class Workspace:
    """A folder the debaters may read.  ``Workspace(path)`` raises ValueError when it is not a folder.

    ``lang`` is the language its answers and errors are written in (``en`` or ``zh``)."""

    root: Path
    lang: str = "en"

    def __init__(self, root: str | os.PathLike, lang: str = "en"):
        p = Path(root).expanduser()
        if not p.is_dir():
            raise ValueError(f"workspace {str(root)!r} is not a folder")
        self.root = Path(os.path.realpath(p))
        self.lang = "zh" if lang == "zh" else "en"

    def _(self, msgid: str, **kw: Any) -> str:
        """``msgid`` in the workspace's language (:func:`debate_core.i18n.t`)."""
        return tr(self.lang, msgid, **kw)

    # ------------------------------------------------------------- confinement
    def _inside(self, real: Path) -> bool:
        return real == self.root or self.root in real.parents

    def resolve(self, rel: str) -> Path:
        """The real path of ``rel`` inside the workspace, or :class:`ToolError`."""
        if not isinstance(rel, str):
            raise ToolError(self._("the path must be a string"))
        rel = rel.strip() or "."
        if "\x00" in rel:
            raise ToolError(self._("the path contains a NUL character"))
        if rel.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", rel) or os.path.isabs(rel):
            raise ToolError(
                self._("absolute paths are refused ({rel!r}): give a path relative to the workspace root", rel=rel)
            )
        parts = PurePosixPath(rel.replace("\\", "/")).parts
        if ".." in parts:
            raise ToolError(self._("'..' is refused ({rel!r}): paths must stay inside the workspace", rel=rel))
        real = Path(os.path.realpath(self.root.joinpath(*parts)))
        if not self._inside(real):
            raise ToolError(self._("{rel!r} leads outside the workspace (through a symlink): refused", rel=rel))
        return real

    def rel(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix() or "."

    # ------------------------------------------------------------------ tools
    def read(self, path: str, offset: int = 1, limit: int = 400) -> str:
        real = self.resolve(path)
        if not real.exists():
            raise ToolError(self._("no such file: {path}", path=path))
        if real.is_dir():
            raise ToolError(self._("{path} is a folder: use glob to list it", path=path))
        if not real.is_file():  # a FIFO, socket or device would block or never end
            raise ToolError(self._("{path} is not a regular file", path=path))
        limit_bytes = _file_cap()
        if real.stat().st_size > limit_bytes:
            raise ToolError(self._("{path} is larger than {n} bytes: use grep on it instead", path=path, n=limit_bytes))
        data = real.read_bytes()
        if b"\x00" in data[:8192]:
            raise ToolError(self._("{path} is a binary file", path=path))
        lines = data.decode("utf-8", errors="replace").splitlines()
        offset = max(1, int(offset or 1))
        limit = max(1, min(int(limit or 400), 2000))
        chunk = lines[offset - 1 : offset - 1 + limit]
        out, size = [], 0
        for n, line in enumerate(chunk, offset):
            row = f"{n:>5}  {line[:1000]}"
            if size + len(row) > MAX_READ_CHARS:
                out.append(self._("[cut at {n} characters: continue with offset={line}]", n=MAX_READ_CHARS, line=n))
                break
            out.append(row)
            size += len(row) + 1
        else:
            end = offset + len(chunk)
            if end <= len(lines):
                out.append(self._("[{n} lines in all: continue with offset={line}]", n=len(lines), line=end))
        if out:
            return "\n".join(out)
        return self._(
            "[{path}: no lines from {offset}; the file has {n} lines]", path=path, offset=offset, n=len(lines)
        )

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
            raise ToolError(self._("give a glob pattern such as **/*.md"))
        pattern = pattern.strip()
        if len(pattern) > int(cap("RESEARCH_MAX_PATTERN_CHARS")):
            raise ToolError(self._("the pattern is too long"))
        if pattern.startswith(("/", "\\", "~")) or os.path.isabs(pattern):
            raise ToolError(self._("absolute patterns are refused: give a pattern relative to the workspace root"))
        if ".." in PurePosixPath(pattern).parts:
            raise ToolError(self._("'..' is refused: patterns must stay inside the workspace"))
        rx = glob_regex(pattern, self.lang)
        hits = []
        for p, _real in self._walk(self.root):
            rel = p.relative_to(self.root).as_posix()
            if rx.fullmatch(rel):
                hits.append(rel)
                if len(hits) >= MAX_GLOB_RESULTS:
                    hits.append(self._("[stopped at {n} files]", n=MAX_GLOB_RESULTS))
                    break
        return "\n".join(hits) if hits else self._("no files match {pattern}", pattern=pattern)

    def grep(self, pattern: str, path: str = ".", glob: str | None = None, ignore_case: bool = False) -> str:
        if not isinstance(pattern, str) or not pattern:
            raise ToolError(self._("give a regular expression to search for"))
        if len(pattern) > int(cap("RESEARCH_MAX_PATTERN_CHARS")):
            raise ToolError(self._("the pattern is too long"))
        try:
            rx = compile_linear(pattern, ignore_case=bool(ignore_case))
        except ValueError as exc:
            raise ToolError(self._("bad regular expression: {exc}", exc=exc)) from None
        start = self.resolve(path or ".")
        if not start.exists():
            raise ToolError(self._("no such file or folder: {path}", path=path))
        if glob is not None and (not isinstance(glob, str) or len(glob) > int(cap("RESEARCH_MAX_PATTERN_CHARS"))):
            raise ToolError(
                self._("the pattern is too long")
                if isinstance(glob, str)
                else self._("give a glob pattern such as **/*.md")
            )
        name_rx = glob_regex(glob, self.lang) if glob else None
        files = [(start, start)] if start.is_file() else self._walk(start)
        limit_bytes = _file_cap()
        out: list[str] = []
        skipped = {"big": 0, "binary": 0, "unreadable": 0}
        for p, real in files:
            if name_rx is not None and not name_rx.fullmatch(p.name):
                continue
            try:
                if not real.is_file():
                    skipped["unreadable"] += 1
                    continue
                if real.stat().st_size > limit_bytes:
                    skipped["big"] += 1
                    continue
                data = real.read_bytes()
            except OSError:
                skipped["unreadable"] += 1
                continue
            if b"\x00" in data[:8192]:
                skipped["binary"] += 1
                continue
            rel = p.relative_to(self.root).as_posix() if p != self.root else p.name
            for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
                if rx.search(line):
                    out.append(f"{rel}:{n}: {line.strip()[:MAX_LINE_CHARS]}")
                    if len(out) >= MAX_GREP_MATCHES:
                        out.append(self._("[stopped at {n} matches]", n=MAX_GREP_MATCHES))
                        return "\n".join(out)
        if not out:
            out.append(self._("no matches for {pattern!r}", pattern=pattern))
        if any(skipped.values()):
            why = [self._(_SKIPPED[k], n=v, cap=limit_bytes) for k, v in skipped.items() if v]
            out.append(self._("[skipped {n} file(s) not searched: {why}]", n=sum(skipped.values()), why=", ".join(why)))
        return "\n".join(out)

    # -------------------------------------------------------------- dispatch
    def execute(self, name: str, arguments: Any) -> ToolCallRecord:
        """Run one tool call from a model; the record holds the result or a clear error."""
        args: dict[str, Any]
        err = self._("error: ")
        if isinstance(arguments, str):
            try:
                args = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                return ToolCallRecord(
                    name=name,
                    arguments={"raw": arguments[:500]},
                    error=err + self._("the arguments are not valid JSON"),
                )
        else:
            args = dict(arguments or {})
        if not isinstance(args, dict):
            return ToolCallRecord(
                name=name, arguments={"raw": str(args)[:500]}, error=err + self._("arguments must be an object")
            )
        tools: dict[str, Callable[..., str]] = {"read": self.read, "glob": self.glob, "grep": self.grep}
        fn = tools.get(name)
        if fn is None:
            return ToolCallRecord(
                name=name,
                arguments=args,
                error=err
                + self._("no tool named {name!r}; the only tools are read, glob and grep (read-only)", name=name),
            )
        allowed = {
            "read": {"path", "offset", "limit"},
            "glob": {"pattern"},
            "grep": {"pattern", "path", "glob", "ignore_case"},
        }[name]
        try:
            result = fn(**{k: v for k, v in args.items() if k in allowed})
        except ToolError as exc:
            return ToolCallRecord(name=name, arguments=args, error=f"{err}{exc}")
        except TypeError as exc:
            return ToolCallRecord(name=name, arguments=args, error=err + self._("bad arguments: {exc}", exc=exc))
        except (OSError, ValueError) as exc:
            return ToolCallRecord(
                name=name, arguments=args, error=err + self._("{kind}: {exc}", kind=type(exc).__name__, exc=exc)
            )
        if len(result) > MAX_RESULT_CHARS:
            result = result[:MAX_RESULT_CHARS] + "\n" + self._("[cut]")
        return ToolCallRecord(name=name, arguments=args, result=result)


def tool_message_content(record: ToolCallRecord) -> str:
    """What the model receives for one tool call."""
    return record.error or record.result
