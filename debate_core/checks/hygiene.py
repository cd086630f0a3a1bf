"""``hygiene``: a speech is speech — nothing from a file, a prompt or a markup language.

Forbidden: a URL or web address; a Markdown link or Markdown markup (headings, bold, block quotes,
bullets, tables, code fences); an editorial or meta note of the kind packs carry for their
editors (引用时应注明…, 不可代笔虚构…, 深入研究请查阅…, 节选自…, 仅供参考); a prompt fragment
(a 【…】 header that is not a citation, 硬性规则, 本轮你的任务, 弹药库, 你扮演…, 300-500 字 …)
or talk about the writing itself (作为 AI…, 以下是我的发言, 字数：…, 以上为立论部分, a placeholder
such as （待补）); a bracket or quote left open or closed without its opener; a run of English
words outside a citation.

Allowed: citation brackets with ids and titles (【《坛经·般若品》，T48n2008】, even with English
titles inside), a foreign term glossed in parentheses after its Chinese name (毗婆舍那（vipassanā）),
source ids, and single Latin letters (A 与 B).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from debate_core.checks import lexicons as _lx
from debate_core.checks.registry import said
from debate_core.content.text import PAIRS
from debate_core.models import Detail

_URL = _lx.regex("hygiene.url")
_FILE_NAME = _lx.regex("hygiene.file_name")
_MD_LINK = _lx.regex("hygiene.md_link")
_MD_MARKUP = _lx.regex("hygiene.md_markup")
# Notes a pack's files carry for their editors and readers, not for a debate.
_EDITORIAL = _lx.regex("hygiene.editorial")
_PROMPT = _lx.regex("hygiene.prompt")
_LATIN_WORD = _lx.pattern("hygiene.latin_word")
_LATIN_RUN = re.compile(rf"{_LATIN_WORD}(?:[ \t]+{_LATIN_WORD})+")
_META_WORDS = frozenset(_lx.words("hygiene.meta_words"))
_STOPWORDS = frozenset(_lx.words("hygiene.stopwords"))


def unbalanced(text: str) -> list[str]:
    """Brackets and quotes left open or closed without an opener."""
    return [zh for zh, _d in _unbalanced(text)]


def _unbalanced(text: str) -> list[tuple[str, Detail]]:
    closers = {v: k for k, v in PAIRS.items()}
    stack: list[tuple[str, int]] = []
    out: list[tuple[str, Detail]] = []

    def unclosed(o: str, j: int) -> None:
        out.append(
            (f"未闭合的「{o}」：…{text[j : j + 12]}", said("hygiene.unclosed", mark=o, excerpt=text[j : j + 12]))
        )

    for i, ch in enumerate(text):
        if ch in PAIRS:
            stack.append((ch, i))
        elif ch in closers:
            want = closers[ch]
            if stack and stack[-1][0] == want:
                stack.pop()
            elif any(o == want for o, _ in stack):
                while stack and stack[-1][0] != want:
                    unclosed(*stack.pop())
                stack.pop()
            else:
                excerpt = text[max(0, i - 10) : i + 1]
                out.append((f"多余的「{ch}」：…{excerpt}", said("hygiene.extra", mark=ch, excerpt=excerpt)))
    for o, j in stack:
        unclosed(o, j)
    if text.count('"') % 2:
        out.append(("英文双引号不成对", said("hygiene.double_quotes")))
    return out


def _citation_bracket_ranges(text: str, ids: Iterable[str]) -> list[tuple[int, int]]:
    """Ranges of brackets that hold a citation (an id or a 《title》), and of ids standing alone."""
    ids = [i for i in ids if i]
    out = []
    for m in re.finditer(r"【[^】]*】|〔[^〕]*〕|［[^］]*］|\[[^\]]*\]|（[^）]*）|\([^)]*\)", text):
        inner = m.group(0)
        if "《" in inner or any(i in inner for i in ids):
            out.append((m.start(), m.end()))
    for i in ids:
        if i in text:  # most of a pack's ids are not in a given speech
            for m in re.finditer(re.escape(i), text):
                out.append((m.start(), m.end()))
    return out


@lru_cache(maxsize=256)
def _title_words(titles: tuple[str, ...]) -> frozenset[str]:
    """The English words of the pack's source titles (the same for every speech of a debate)."""
    return frozenset(w.lower() for t in titles for w in re.findall(_LATIN_WORD, t))


def _gloss(text: str, start: int, end: int) -> bool:
    """A foreign term in parentheses right after Chinese: 毗婆舍那（vipassanā）."""
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    if not before or not after:
        return False
    return before[-1] in "（(" and after[0] in "）)"


def hygiene_problems(text: str, *, ids: Iterable[str] = (), titles: Iterable[str] = ()) -> list[str]:
    """What in the text is not speech, each in the checker's Chinese words."""
    return list(hygiene_issues(text, ids=ids, titles=titles))


# what each problem is called in the checker's Chinese (the detail's code: hygiene.<key>)
_NAMES_ZH = {
    "url": "网址",
    "file_name": "文件名",
    "md_link": "Markdown 链接",
    "md_markup": "Markdown 标记",
    "editorial": "资料包的编辑说明",
    "prompt": "提示词或写作说明的残片",
    "bracket_title": "非引文的【】标题",
}


def hygiene_issues(text: str, *, ids: Iterable[str] = (), titles: Iterable[str] = ()) -> dict[str, Detail]:
    """What in the text is not speech: the checker's Chinese words for each problem -> the same as data
    (a ``hygiene.*`` detail), in order, each once."""
    found: list[tuple[str, Detail]] = []

    def add(key: str, excerpt: str) -> None:
        found.append((f"{_NAMES_ZH[key]}：{excerpt}", said(f"hygiene.{key}", excerpt=excerpt)))

    for m in _URL.finditer(text):
        add("url", m.group(0)[:24])
    for m in _FILE_NAME.finditer(text):
        add("file_name", m.group(0)[:24])
    for m in _MD_LINK.finditer(text):
        add("md_link", m.group(0)[:16])
    for m in _MD_MARKUP.finditer(text):
        if _MD_LINK.search(text[m.start() : m.end() + 40]):
            continue
        add("md_markup", m.group(0).strip()[:20])
    for m in _EDITORIAL.finditer(text):
        add("editorial", _around(text, m))
    for m in _PROMPT.finditer(text):
        add("prompt", _around(text, m))
    for m in re.finditer(r"【([^】]*)】", text):
        inner = m.group(1)
        if "《" in inner or any(i and i in inner for i in ids) or re.search(r"[A-Za-z]+\s?:?\s?\d", inner):
            continue
        add("bracket_title", m.group(0)[:20])
    found += [(f"括号或引号不成对：{zh}", d) for zh, d in _unbalanced(text)]
    # English outside citations
    skip = _citation_bracket_ranges(text, list(ids))
    title_words = _title_words(tuple(titles))
    for m in _LATIN_RUN.finditer(text):
        if any(a <= m.start() and m.end() <= b for a, b in skip):
            continue
        words = [w.lower() for w in re.findall(_LATIN_WORD, m.group(0))]
        real = [w for w in words if len(w) >= 2]
        if len(real) < 2:
            continue
        if all(w in title_words for w in real):
            continue
        if _gloss(text, m.start(), m.end()) and len(words) <= 4 and not (set(words) & _STOPWORDS):
            continue
        found.append(
            (
                f"中文发言中夹有英文（{len(words)} 个词，自「{words[0][:12]}」起）",
                said("hygiene.english_run", n=len(words), first=words[0][:12]),
            )
        )
    for m in re.finditer(_LATIN_WORD, text):
        w = m.group(0).lower()
        if w in _META_WORDS and not any(a <= m.start() < b for a, b in skip):
            if not any(f"「{w}" in p.lower() for p, _d in found):
                found.append(
                    (f"中文发言中夹有英文（「{m.group(0)[:12]}」）", said("hygiene.english_word", word=m.group(0)[:12]))
                )
    out: dict[str, Detail] = {}
    for zh, d in found:
        out.setdefault(zh, d)
    return out


def _around(text: str, m: re.Match) -> str:
    return text[max(0, m.start() - 4) : m.end() + 6].replace("\n", " ")
