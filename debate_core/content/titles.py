"""Source titles: the names a title goes by, its Chinese part, and whether a title written in a
speech (坛经, 金刚经, 法华经) names a source (六祖大师法宝坛经, 金刚般若波罗蜜经, 妙法莲华经).

Used by the pack reader (a unit that quotes a named text is that text's), the citation rule and
the offline engine.
"""

from __future__ import annotations

import re

from debate_core.content.text import normalize_quote


def title_variants(title: str) -> set[str]:
    """The names a source title goes by: the whole title, each 《…》 and each Chinese or Latin part."""
    out: set[str] = set()
    t = title.strip()
    if not t:
        return out
    out.add(_norm_title(t))
    for inner in re.findall(r"《([^》]+)》", t):
        out.add(_norm_title(inner))
    for part in re.split(r"[（）()《》/／,，;；]+", t):
        part = part.strip()
        if part:
            out.add(_norm_title(part))
    return {o for o in out if len(o) >= 2}


_LATIN_WORD = re.compile(r"[A-Za-zÀ-ɏḀ-ỿ][A-Za-zÀ-ɏḀ-ỿ'’.\-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff][\u3400-\u9fff·]*[\u3400-\u9fff]")


def chinese_title(title: str) -> str:
    """The Chinese name inside a mixed title, or "" when it has none: the Chinese outside any
    brackets (宗喀巴全集 (gsung 'bum) → 宗喀巴全集), else the first 《…》 inside it
    (Food for the Heart（《心灵的资粮》） → 心灵的资粮), else the first Chinese run in brackets.
    A title without Latin letters is returned as it is.  ``title_matches`` accepts the result."""
    t = (title or "").strip()
    if not _LATIN_WORD.search(t):
        return t
    outer = re.sub(r"[（(][^（）()]*[）)]", "", t)
    inner = re.findall(r"《([^》]+)》", outer)
    if inner and _CJK_RUN.search(inner[0]):
        return inner[0].strip()
    run = _CJK_RUN.search(_LATIN_WORD.sub("", outer))
    if run and "《" not in outer:
        return run.group(0)
    for inner in re.findall(r"《([^》]+)》", t):
        if _CJK_RUN.search(inner) and not _LATIN_WORD.search(inner):
            return inner.strip()
    for group in re.findall(r"[（(]([^（）()]*)[）)]", t):
        run = _CJK_RUN.search(group)
        if run:
            return run.group(0)
    return ""


def _norm_title(t: str) -> str:
    t = re.split(r"[·•・:：]", t, maxsplit=1)[0]
    t = re.sub(r"第?[一二三四五六七八九十百\d]+[卷品章]$", "", t)
    return normalize_quote(t)


def _subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(c in it for c in short)


def title_matches(cited: str, source_title: str) -> bool:
    """Does the title written in a speech name this source?  Whole, contained, or a common short
    title (坛经 → 六祖大师法宝坛经, 金刚经 → 金刚般若波罗蜜经, 法华经 → 妙法莲华经) whose characters
    run in order through the full title and end as it does."""
    c = _norm_title(cited)
    if len(c) < 2:
        return False
    for v in title_variants(source_title):
        if c == v or (len(c) >= 2 and (c in v or v in c)):
            return True
        if len(c) >= 2 and _subsequence(c, v) and c[-1] == v[-1] and c[0] in v:
            return True
    return False
