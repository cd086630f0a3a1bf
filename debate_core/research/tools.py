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
answers in Chinese, ``lang="en"`` (the default) in English.  Tool and parameter names
stay as they are.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

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


# What the tools say to the model, per debate language.
_DESCRIPTIONS = {
    "en": {
        "read": "Read a text file in the workspace (path relative to the workspace root). "
                "Returns numbered lines; long files are cut, use offset to page on.",
        "read.path": "relative path, e.g. src/app.py", "read.offset": "first line to return (1-based)",
        "read.limit": "how many lines (default 400)",
        "glob": "List workspace files whose relative path matches a glob pattern such as **/*.py.",
        "glob.pattern": "glob pattern relative to the workspace root",
        "grep": "Search workspace files for a regular expression; returns path:line: text for each match.",
        "grep.pattern": "regular expression (RE2 syntax: like Python's, without backreferences or lookaround)",
        "grep.path": "folder or file to search, relative (default: whole workspace)",
        "grep.glob": "only files whose name matches this glob, e.g. *.md",
        "grep.ignore_case": "true: ignore upper and lower case",
    },
    "zh": {
        "read": "读取工作区里的一个文本文件（路径相对于工作区根目录）。返回带行号的内容；长文件会被截断，用 offset "
                "往后翻。",
        "read.path": "相对路径，例如 src/app.py", "read.offset": "从第几行开始返回（从 1 数起）",
        "read.limit": "返回多少行（默认 400）",
        "glob": "列出相对路径符合 glob 模式（例如 **/*.py）的工作区文件。",
        "glob.pattern": "相对于工作区根目录的 glob 模式",
        "grep": "在工作区文件里按正则表达式搜索；每处匹配返回「路径:行号: 该行内容」。",
        "grep.pattern": "正则表达式（与 Python 语法相近，但不支持反向引用和环视）",
        "grep.path": "要搜索的文件夹或文件，相对路径（默认：整个工作区）",
        "grep.glob": "只搜文件名符合这个 glob 的文件，例如 *.md",
        "grep.ignore_case": "为 true 时不区分大小写",
    },
}

MESSAGES = {
    "en": {
        "error": "error: ", "bad_glob": "bad glob pattern: {exc}", "path_type": "the path must be a string",
        "nul": "the path contains a NUL character",
        "absolute": "absolute paths are refused ({rel!r}): give a path relative to the workspace root",
        "dotdot": "'..' is refused ({rel!r}): paths must stay inside the workspace",
        "outside": "{rel!r} leads outside the workspace (through a symlink): refused",
        "no_file": "no such file: {path}", "is_folder": "{path} is a folder: use glob to list it",
        "not_regular": "{path} is not a regular file",
        "too_big": "{path} is larger than {n} bytes: use grep on it instead", "binary": "{path} is a binary file",
        "cut_at": "[cut at {n} characters: continue with offset={line}]",
        "more_lines": "[{n} lines in all: continue with offset={line}]",
        "no_lines": "[{path}: no lines from {offset}; the file has {n} lines]",
        "give_glob": "give a glob pattern such as **/*.md", "too_long": "the pattern is too long",
        "abs_pattern": "absolute patterns are refused: give a pattern relative to the workspace root",
        "dotdot_pattern": "'..' is refused: patterns must stay inside the workspace",
        "glob_cap": "[stopped at {n} files]", "no_glob": "no files match {pattern}",
        "give_regex": "give a regular expression to search for", "bad_regex": "bad regular expression: {exc}",
        "no_path": "no such file or folder: {path}", "grep_cap": "[stopped at {n} matches]",
        "no_match": "no matches for {pattern!r}",
        "skipped": "[skipped {n} file(s) not searched: {why}]", "skip_big": "{n} larger than {cap} bytes",
        "skip_binary": "{n} binary", "skip_unreadable": "{n} unreadable",
        "bad_json": "the arguments are not valid JSON",
        "not_object": "arguments must be an object",
        "no_tool": "no tool named {name!r}; the only tools are read, glob and grep (read-only)",
        "bad_args": "bad arguments: {exc}", "failed": "{kind}: {exc}", "cut": "[cut]",
    },
    "zh": {
        "error": "错误：", "bad_glob": "glob 模式有误：{exc}", "path_type": "路径必须是字符串",
        "nul": "路径里有 NUL 字符",
        "absolute": "不接受绝对路径（{rel!r}）：请给出相对于工作区根目录的路径",
        "dotdot": "不接受 '..'（{rel!r}）：路径必须留在工作区之内",
        "outside": "{rel!r} 经由符号链接通向工作区之外：拒绝",
        "no_file": "没有这个文件：{path}", "is_folder": "{path} 是文件夹：请用 glob 列出其中的文件",
        "not_regular": "{path} 不是普通文件",
        "too_big": "{path} 超过 {n} 字节：请改用 grep 搜索它", "binary": "{path} 是二进制文件",
        "cut_at": "[在 {n} 个字符处截断：用 offset={line} 接着读]",
        "more_lines": "[共 {n} 行：用 offset={line} 接着读]",
        "no_lines": "[{path}：从第 {offset} 行起没有内容；文件共 {n} 行]",
        "give_glob": "请给出 glob 模式，例如 **/*.md", "too_long": "模式太长",
        "abs_pattern": "不接受绝对模式：请给出相对于工作区根目录的模式",
        "dotdot_pattern": "不接受 '..'：模式必须留在工作区之内",
        "glob_cap": "[已列出 {n} 个文件，到此为止]", "no_glob": "没有文件符合 {pattern}",
        "give_regex": "请给出要搜索的正则表达式", "bad_regex": "正则表达式有误：{exc}",
        "no_path": "没有这个文件或文件夹：{path}", "grep_cap": "[已找到 {n} 处匹配，到此为止]",
        "no_match": "没有匹配 {pattern!r} 的内容",
        "skipped": "[有 {n} 个文件没有搜索：{why}]", "skip_big": "{n} 个超过 {cap} 字节",
        "skip_binary": "{n} 个是二进制文件", "skip_unreadable": "{n} 个无法读取", "bad_json": "参数不是合法的 JSON",
        "not_object": "参数必须是一个对象",
        "no_tool": "没有名为 {name!r} 的工具；只有 read、glob、grep 三个只读工具",
        "bad_args": "参数有误：{exc}", "failed": "{kind}：{exc}", "cut": "[已截断]",
    },
}


def tool_specs(lang: str = "en") -> list[dict[str, Any]]:
    """The three tools' definitions, described in ``lang`` (names and parameters stay as they are)."""
    d = _DESCRIPTIONS["zh" if lang == "zh" else "en"]
    return [
        {"type": "function", "function": {
            "name": "read", "description": d["read"],
            "parameters": {"type": "object", "properties": {
                "path": {"type": "string", "description": d["read.path"]},
                "offset": {"type": "integer", "description": d["read.offset"], "minimum": 1},
                "limit": {"type": "integer", "description": d["read.limit"], "minimum": 1},
            }, "required": ["path"]}}},
        {"type": "function", "function": {
            "name": "glob", "description": d["glob"],
            "parameters": {"type": "object", "properties": {
                "pattern": {"type": "string", "description": d["glob.pattern"]},
            }, "required": ["pattern"]}}},
        {"type": "function", "function": {
            "name": "grep", "description": d["grep"],
            "parameters": {"type": "object", "properties": {
                "pattern": {"type": "string", "description": d["grep.pattern"]},
                "path": {"type": "string", "description": d["grep.path"]},
                "glob": {"type": "string", "description": d["grep.glob"]},
                "ignore_case": {"type": "boolean", "description": d["grep.ignore_case"]},
            }, "required": ["pattern"]}}},
    ]


TOOL_SPECS: list[dict[str, Any]] = tool_specs("en")
TOOL_SPECS_ZH: list[dict[str, Any]] = tool_specs("zh")

TOOL_NAMES = tuple(t["function"]["name"] for t in TOOL_SPECS)
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
                body = pattern[i + 1:j].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    try:
        return compile_linear("".join(out))
    except ValueError as exc:
        raise ToolError(MESSAGES["zh" if lang == "zh" else "en"]["bad_glob"].format(exc=exc)) from None


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

    def _m(self, key: str, **kw: Any) -> str:
        return MESSAGES[self.lang][key].format(**kw)

    # ------------------------------------------------------------- confinement
    def _inside(self, real: Path) -> bool:
        return real == self.root or self.root in real.parents

    def resolve(self, rel: str) -> Path:
        """The real path of ``rel`` inside the workspace, or :class:`ToolError`."""
        if not isinstance(rel, str):
            raise ToolError(self._m("path_type"))
        rel = rel.strip() or "."
        if "\x00" in rel:
            raise ToolError(self._m("nul"))
        if rel.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", rel) or os.path.isabs(rel):
            raise ToolError(self._m("absolute", rel=rel))
        parts = PurePosixPath(rel.replace("\\", "/")).parts
        if ".." in parts:
            raise ToolError(self._m("dotdot", rel=rel))
        real = Path(os.path.realpath(self.root.joinpath(*parts)))
        if not self._inside(real):
            raise ToolError(self._m("outside", rel=rel))
        return real

    def rel(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix() or "."

    # ------------------------------------------------------------------ tools
    def read(self, path: str, offset: int = 1, limit: int = 400) -> str:
        real = self.resolve(path)
        if not real.exists():
            raise ToolError(self._m("no_file", path=path))
        if real.is_dir():
            raise ToolError(self._m("is_folder", path=path))
        if not real.is_file():  # a FIFO, socket or device would block or never end
            raise ToolError(self._m("not_regular", path=path))
        limit_bytes = _file_cap()
        if real.stat().st_size > limit_bytes:
            raise ToolError(self._m("too_big", path=path, n=limit_bytes))
        data = real.read_bytes()
        if b"\x00" in data[:8192]:
            raise ToolError(self._m("binary", path=path))
        lines = data.decode("utf-8", errors="replace").splitlines()
        offset = max(1, int(offset or 1))
        limit = max(1, min(int(limit or 400), 2000))
        chunk = lines[offset - 1: offset - 1 + limit]
        out, size = [], 0
        for n, line in enumerate(chunk, offset):
            row = f"{n:>5}  {line[:1000]}"
            if size + len(row) > MAX_READ_CHARS:
                out.append(self._m("cut_at", n=MAX_READ_CHARS, line=n))
                break
            out.append(row)
            size += len(row) + 1
        else:
            end = offset + len(chunk)
            if end <= len(lines):
                out.append(self._m("more_lines", n=len(lines), line=end))
        return "\n".join(out) if out else self._m("no_lines", path=path, offset=offset, n=len(lines))

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
            raise ToolError(self._m("give_glob"))
        pattern = pattern.strip()
        if len(pattern) > int(cap("RESEARCH_MAX_PATTERN_CHARS")):
            raise ToolError(self._m("too_long"))
        if pattern.startswith(("/", "\\", "~")) or os.path.isabs(pattern):
            raise ToolError(self._m("abs_pattern"))
        if ".." in PurePosixPath(pattern).parts:
            raise ToolError(self._m("dotdot_pattern"))
        rx = glob_regex(pattern, self.lang)
        hits = []
        for p, _real in self._walk(self.root):
            rel = p.relative_to(self.root).as_posix()
            if rx.fullmatch(rel):
                hits.append(rel)
                if len(hits) >= MAX_GLOB_RESULTS:
                    hits.append(self._m("glob_cap", n=MAX_GLOB_RESULTS))
                    break
        return "\n".join(hits) if hits else self._m("no_glob", pattern=pattern)

    def grep(self, pattern: str, path: str = ".", glob: str | None = None, ignore_case: bool = False) -> str:
        if not isinstance(pattern, str) or not pattern:
            raise ToolError(self._m("give_regex"))
        if len(pattern) > int(cap("RESEARCH_MAX_PATTERN_CHARS")):
            raise ToolError(self._m("too_long"))
        try:
            rx = compile_linear(pattern, ignore_case=bool(ignore_case))
        except ValueError as exc:
            raise ToolError(self._m("bad_regex", exc=exc)) from None
        start = self.resolve(path or ".")
        if not start.exists():
            raise ToolError(self._m("no_path", path=path))
        if glob is not None and (not isinstance(glob, str) or len(glob) > int(cap("RESEARCH_MAX_PATTERN_CHARS"))):
            raise ToolError(self._m("too_long") if isinstance(glob, str) else self._m("give_glob"))
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
                        out.append(self._m("grep_cap", n=MAX_GREP_MATCHES))
                        return "\n".join(out)
        if not out:
            out.append(self._m("no_match", pattern=pattern))
        if any(skipped.values()):
            why = [self._m("skip_" + k, n=v, cap=limit_bytes) for k, v in
                   (("big", skipped["big"]), ("binary", skipped["binary"]), ("unreadable", skipped["unreadable"])) if v]
            out.append(self._m("skipped", n=sum(skipped.values()), why=", ".join(why)))
        return "\n".join(out)

    # -------------------------------------------------------------- dispatch
    def execute(self, name: str, arguments: Any) -> ToolCallRecord:
        """Run one tool call from a model; the record holds the result or a clear error."""
        args: dict[str, Any]
        err = self._m("error")
        if isinstance(arguments, str):
            try:
                args = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                return ToolCallRecord(name=name, arguments={"raw": arguments[:500]}, error=err + self._m("bad_json"))
        else:
            args = dict(arguments or {})
        if not isinstance(args, dict):
            return ToolCallRecord(name=name, arguments={"raw": str(args)[:500]}, error=err + self._m("not_object"))
        tools: dict[str, Callable[..., str]] = {"read": self.read, "glob": self.glob, "grep": self.grep}
        fn = tools.get(name)
        if fn is None:
            return ToolCallRecord(name=name, arguments=args, error=err + self._m("no_tool", name=name))
        allowed = {"read": {"path", "offset", "limit"}, "glob": {"pattern"},
                   "grep": {"pattern", "path", "glob", "ignore_case"}}[name]
        try:
            result = fn(**{k: v for k, v in args.items() if k in allowed})
        except ToolError as exc:
            return ToolCallRecord(name=name, arguments=args, error=f"{err}{exc}")
        except TypeError as exc:
            return ToolCallRecord(name=name, arguments=args, error=err + self._m("bad_args", exc=exc))
        except (OSError, ValueError) as exc:
            return ToolCallRecord(name=name, arguments=args,
                                  error=err + self._m("failed", kind=type(exc).__name__, exc=exc))
        if len(result) > MAX_RESULT_CHARS:
            result = result[:MAX_RESULT_CHARS] + "\n" + self._m("cut")
        return ToolCallRecord(name=name, arguments=args, result=result)


def tool_message_content(record: ToolCallRecord) -> str:
    """What the model receives for one tool call."""
    return record.error or record.result
