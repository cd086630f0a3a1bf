"""Which of a master's sources a teaching belongs to.

``SourceMatcher`` maps a line (a 来源/出处 line, a heading, a file's preamble) to one of the master's
source ids: an explicit id, a title or part of one (traditional and variant characters compared as
simplified), a CBETA short id against the master's long ids.  ``file_default`` is an excerpt file's
own source when no line says, and ``cite_named_text`` gives a unit that quotes or rests on a named
text (《X》云…, 依《X》…) that text's source, or none when the master lists no such text.  The reader
that uses them is :mod:`debate_core.content.teachings`.
"""

from __future__ import annotations

import re
from pathlib import Path

from debate_core.content.text import cjk_len, normalize_quote
from debate_core.content.titles import title_matches
from debate_core.models import Master, Teaching

__all__ = ["SourceMatcher", "cite_named_text", "file_default"]


def _norm(text: str) -> str:
    """Compared on letters only, traditional and variant characters as simplified: 法華 matches 法华."""
    return normalize_quote(text)


def _title_parts(title: str) -> list[str]:
    """A source title and its parts: 'Food for the Heart（《心灵的资粮》）' → both names."""
    parts = [title] + re.split(r"[（）()《》\[\]/·，,]+", title)
    out = []
    for p in parts:
        p = p.strip()
        if (cjk_len(p) >= 2 or len(p) >= 6) and p not in out:
            out.append(p)
    return out


class SourceMatcher:
    """Maps a line (出处, heading, preamble) to one of the master's source ids."""

    def __init__(self, master: Master):
        self.master = master
        self.ids = [s.id for s in master.sources if s.id]
        self.parts: list[tuple[str, str]] = []
        for s in master.sources:
            for p in _title_parts(s.title or ""):
                self.parts.append((_norm(p), s.id))
        self.parts.sort(key=lambda x: len(x[0]), reverse=True)

    def match(self, text: str) -> str:
        if not text:
            return ""
        flat = re.sub(r"[\s]", "", text)
        for sid in sorted(self.ids, key=len, reverse=True):  # an explicit id
            if sid and (sid in text or re.sub(r"\s", "", sid) in flat):
                return sid
        low = flat.lower()
        if re.search(r"\bSC\s*:|suttacentral", text, re.I):
            for s in self.master.sources:
                if s.id.lower() == "suttacentral" or s.type == "pali_canon":
                    return s.id
        n = _norm(text)
        for part, sid in self.parts:  # a title, longest first
            if part and len(part) >= 2 and part in n:
                return sid
        # a CBETA short id (T1716) against the master's long ids (T33n1716)
        for m in re.finditer(r"\b([TX])(\d{3,4})\b", text):
            for sid in self.ids:
                if re.fullmatch(rf"{m.group(1)}\d{{2}}n0*{m.group(2)}", sid):
                    return sid
        del low
        return ""


def file_default(md: Path, master: Master) -> str:
    """The source an excerpt file belongs to when no line says: its name or title, else the first."""
    matcher = SourceMatcher(master)
    try:
        head = md.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        head = ""
    return matcher.match(head) or (master.sources[0].id if master.sources else "")


# a unit that speaks in a named text's words or on its ground: 《X》云…, 如《X》所说…, 依《X》…
_TEXT_FRAME = re.compile(
    r"(?:^|[，。；：])(?:(?:如|依|据|據|按|照|正如|诚如|誠如)《(?P<t>[^》]{1,30})》"
    r"|《(?P<t2>[^》]{1,30})》(?:中|里|裡)?(?:云|曰|说|說|言|有云|有言|所说|所說|所言|开篇|開篇|以|指出|讲|講|的|之))"
)


def cite_named_text(master: Master, units: list[Teaching]) -> None:
    """A unit that quotes or rests on a named text is that text's: its source is the master's source of
    that title, or none when he lists no such text (《摩诃般若波罗蜜大明咒经》云… is not his 金刚经)."""
    for t in units:
        m = _TEXT_FRAME.search(t.text)
        if not m:
            continue
        named = m.group("t") or m.group("t2")
        own = [s.id for s in master.sources if s.id and s.title and title_matches(named, s.title)]
        if own:
            t.source_id = own[0]
            t.own_source = True
        elif "references/" in (t.file or "").replace("\\", "/") or (t.file or "").endswith("teaching.md"):
            t.source_id = ""  # the outline quoting a text the master does not list: cited by none of his
